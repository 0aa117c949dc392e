/* dr_util.c - the drmemtrace codec's names, probe, dump and byte-order
 * conversion (everything but the models, which are in dr_model.c and
 * dr_event.c). */
#include "dr_int.h"

const char *const dr_type_names[DR_NTYPES] = {
    "read", "write", "prefetch", "prefetcht0", "prefetcht1", "prefetcht2", "prefetchnta", "prefetch_read",
    "prefetch_write", "prefetch_instr", "ifetch", "direct_jump", "indirect_jump", "conditional_jump",
    "direct_call", "indirect_call", "return", "instr_bundle", "iflush", "iflush_end", "dflush", "dflush_end",
    "thread", "thread_exit", "pid", "header", "footer", "hardware_prefetch", "marker", "non-fetched_instr",
    "maybe_fetch", "sysenter", "prefetch_read_l1_nt", "prefetch_read_l2_nt", "prefetch_read_l3_nt",
    "prefetch_instr_l1", "prefetch_instr_l1_nt", "prefetch_instr_l2", "prefetch_instr_l2_nt",
    "prefetch_instr_l3", "prefetch_instr_l3_nt", "prefetch_write_l1", "prefetch_write_l1_nt",
    "prefetch_write_l2", "prefetch_write_l2_nt", "prefetch_write_l3", "prefetch_write_l3_nt", "encoding",
    "taken_jump", "untaken_jump",
};

const char *const dr_marker_names[DRM_NTYPES] = {
    "kernel_event", "kernel_xfer", "timestamp", "cpu_id", "func_id", "func_retaddr", "func_arg", "func_retval",
    "split_value", "filetype", "cache_line_size", "instruction_count", "version", "rseq_abort", "window_id",
    "physical_address", "physical_address_not_available", "virtual_address", "page_size", "syscall_idx",
    "chunk_instr_count", "chunk_footer", "record_ordinal", "filter_endpoint", "rseq_entry", "syscall",
    "maybe_blocking_syscall", "syscall_trace_start", "syscall_trace_end", "branch_target", "syscall_failed",
    "direct_thread_switch", "core_wait", "core_idle", "context_switch_start", "context_switch_end",
    "vector_length", "syscall_unschedule", "syscall_schedule", "syscall_arg_timeout", "signal_number",
    "uncompleted_instruction", "midblock_end_pc", "hardware_event", "hardware_context_return",
    "kernel_event_raw", "skipped_memref",
};

/* ---- probe ---------------------------------------------------------------- */

/* A file starts with HEADER (type 25, size 0, a version 1..15), then a
 * MARKER (version 2 on) or a THREAD (version 1); after that, nearly every
 * record has a type the format defines. */
int dr_probe(const uint8_t *buf, size_t len, int *byte_order)
{
    *byte_order = TRZ_BO_LITTLE;
    if (len < 2 * DR_REC) return 0;
    uint64_t ver = trz_ld_le64(buf + 4);
    unsigned t1 = trz_ld_le16(buf + DR_REC);
    if (trz_ld_le16(buf) != DR_HEADER || trz_ld_le16(buf + 2) != 0 || ver < 1 || ver > 15) return 0;
    if (t1 != DR_MARKER && t1 != DR_THREAD) return 0;
    size_t n = len / DR_REC, good = 0;
    if (n > 4096) n = 4096;
    for (size_t i = 0; i < n; i++) good += trz_ld_le16(buf + i * DR_REC) < DR_NTYPES;
    return good * 100 >= n * 98 ? 95 : 0;
}

/* ---- dump: one record a line, after drmemtrace's view tool ---------------- */

void dr_dump(FILE *f, uint64_t recno, const uint8_t *rec, int byte_order)
{
    (void)byte_order; /* records are little-endian by definition */
    unsigned t = trz_ld_le16(rec), sz = trz_ld_le16(rec + 2);
    uint64_t a = trz_ld_le64(rec + 4);
    fprintf(f, "%llu ", (unsigned long long)recno);
    if (t == DR_MARKER) {
        if (sz < DRM_NTYPES) fprintf(f, "<marker: %s 0x%llx>\n", dr_marker_names[sz], (unsigned long long)a);
        else fprintf(f, "<marker: type %u 0x%llx>\n", sz, (unsigned long long)a);
    } else if (t == DR_ENCODING) {
        fprintf(f, "encoding %u byte(s):", sz);
        for (unsigned k = 0; k < 8; k++) fprintf(f, " %02x", rec[4 + k]);
        fputc('\n', f);
    } else if (dr_is_instr(t)) {
        fprintf(f, "%s %u byte(s) @ 0x%016llx\n", dr_type_names[t], sz, (unsigned long long)a);
    } else if (t == DR_THREAD || t == DR_THREAD_EXIT || t == DR_PID) {
        fprintf(f, "%s %llu (size %u)\n", dr_type_names[t], (unsigned long long)a, sz);
    } else if (t == DR_HEADER) {
        fprintf(f, "header version %llu (size %u)\n", (unsigned long long)a, sz);
    } else if (t < DR_NTYPES) {
        fprintf(f, "%s %u byte(s) @ 0x%016llx\n", dr_type_names[t], sz, (unsigned long long)a);
    } else {
        fprintf(f, "type %u size %u 0x%016llx\n", t, sz, (unsigned long long)a);
    }
}

/* ---- byte order ------------------------------------------------------------ */

/* type, size and addr change byte order; an ENCODING's bytes stay. */
void dr_convert(uint8_t *recs, size_t len, int from, int to)
{
    if (from == to || from == TRZ_BO_NONE || to == TRZ_BO_NONE) return;
    for (size_t off = 0; off + DR_REC <= len; off += DR_REC) {
        uint8_t *p = recs + off;
        unsigned t = from == TRZ_BO_BIG ? trz_ld_be16(p) : trz_ld_le16(p);
        uint8_t c = p[0]; p[0] = p[1]; p[1] = c;
        c = p[2]; p[2] = p[3]; p[3] = c;
        if (t == DR_ENCODING) continue;
        for (int i = 0; i < 4; i++) {
            c = p[4 + i];
            p[4 + i] = p[11 - i];
            p[11 - i] = c;
        }
    }
}

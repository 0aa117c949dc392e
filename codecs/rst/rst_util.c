/* rst_util.c - RST helpers outside the model: the LE<->BE record permutation
 * (a bijection, so losslessness never depends on it being the exact rstf.h
 * placement), format probing, the trconv-style record dump and cpus_seen. */
#include "rst_int.h"

/* A segment of a record: nf == 0 is one integer (byte-reversed between the
 * orders); nf > 0 is a run of bit fields of widths w[] (allocated MSB-first in
 * BE, LSB-first in LE) that together fill the segment's bytes. */
typedef struct { uint8_t start, len, nf, w[11]; } rst_seg;
typedef struct { uint8_t n; rst_seg s[9]; } rst_layout;

static const rst_layout *layout_of(unsigned rt)
{
    static const rst_layout instr = { 4, { { 1, 3, 11, { 1, 1, 1, 1, 1, 1, 1, 1, 6, 4, 6 } },
                                           { 4, 4, 0, { 0 } }, { 8, 8, 0, { 0 } }, { 16, 8, 0, { 0 } } } };
    static const rst_layout tinfo = { 4, { { 2, 2, 0, { 0 } }, { 4, 4, 0, { 0 } }, { 8, 8, 0, { 0 } }, { 16, 8, 0, { 0 } } } };
    static const rst_layout tlb = { 6, { { 1, 1, 3, { 1, 1, 6 } }, { 2, 2, 0, { 0 } }, { 4, 2, 4, { 2, 6, 4, 4 } },
                                         { 6, 2, 0, { 0 } }, { 8, 8, 0, { 0 } }, { 16, 8, 0, { 0 } } } };
    static const rst_layout trap = { 5, { { 1, 3, 5, { 1, 3, 4, 6, 10 } }, { 4, 2, 0, { 0 } }, { 6, 2, 2, { 4, 12 } },
                                          { 8, 8, 0, { 0 } }, { 16, 8, 0, { 0 } } } };
    static const rst_layout texit = { 4, { { 2, 2, 3, { 6, 4, 6 } }, { 4, 4, 0, { 0 } }, { 8, 8, 0, { 0 } }, { 16, 8, 0, { 0 } } } };
    static const rst_layout regval = { 4, { { 1, 1, 2, { 1, 7 } }, { 6, 2, 2, { 3, 13 } }, { 8, 8, 0, { 0 } }, { 16, 8, 0, { 0 } } } };
    static const rst_layout cpu = { 5, { { 2, 2, 0, { 0 } }, { 4, 2, 0, { 0 } }, { 6, 2, 0, { 0 } }, { 8, 8, 0, { 0 } }, { 16, 8, 0, { 0 } } } };
    static const rst_layout dma = { 5, { { 1, 1, 2, { 7, 1 } }, { 2, 2, 0, { 0 } }, { 4, 4, 0, { 0 } }, { 8, 8, 0, { 0 } }, { 16, 8, 0, { 0 } } } };
    static const rst_layout preg = { 9, { { 2, 2, 0, { 0 } }, { 6, 2, 0, { 0 } }, { 9, 1, 2, { 2, 6 } }, { 10, 2, 0, { 0 } },
                                          { 12, 4, 0, { 0 } }, { 16, 2, 0, { 0 } }, { 18, 2, 0, { 0 } }, { 20, 2, 0, { 0 } }, { 22, 2, 0, { 0 } } } };
    static const rst_layout pv = { 5, { { 1, 3, 4, { 1, 7, 3, 13 } }, { 4, 2, 0, { 0 } }, { 6, 2, 0, { 0 } },
                                        { 8, 8, 0, { 0 } }, { 16, 8, 0, { 0 } } } };
    switch (rt) {
    case RT_INSTR: return &instr;
    case RT_TRACEINFO: case RT_THREAD: return &tinfo;
    case RT_TLB: return &tlb;
    case RT_TRAP: return &trap;
    case RT_TRAPEXIT: return &texit;
    case RT_REGVAL: return &regval;
    case RT_CPU: return &cpu;
    case RT_DMA: return &dma;
    case RT_PREG: return &preg;
    case RT_PHYSADDR: case RT_PAVADIFF: return &pv;
    default: return NULL;
    }
}

static uint64_t ld_be_n(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}
static uint64_t ld_le_n(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static void st_be_n(uint8_t *p, int n, uint64_t v)
{
    for (int i = n - 1; i >= 0; i--) { p[i] = (uint8_t)v; v >>= 8; }
}
static void st_le_n(uint8_t *p, int n, uint64_t v)
{
    for (int i = 0; i < n; i++) { p[i] = (uint8_t)v; v >>= 8; }
}

/* Bit run: LE value (fields from the LSB up) -> BE value (fields from the MSB down). */
static uint64_t bits_le_to_be(uint64_t v, const rst_seg *s)
{
    uint64_t out = 0;
    for (int i = 0; i < s->nf; i++) {
        uint64_t f = v & ((1ull << s->w[i]) - 1);
        v >>= s->w[i];
        out = out << s->w[i] | f;
    }
    return out;
}
static uint64_t bits_be_to_le(uint64_t v, const rst_seg *s)
{
    uint64_t out = 0;
    for (int i = s->nf - 1; i >= 0; i--) {
        uint64_t f = v & ((1ull << s->w[i]) - 1);
        v >>= s->w[i];
        out = out << s->w[i] | f;
    }
    return out;
}

static void permute(uint8_t *dst, const uint8_t *src, int to_canon)
{
    memcpy(dst, src, RST_REC);
    const rst_layout *l = layout_of(src[0]);
    if (!l) return; /* strings, headers, unknown types: identity */
    for (int i = 0; i < l->n; i++) {
        const rst_seg *s = &l->s[i];
        if (to_canon) {
            uint64_t v = ld_le_n(src + s->start, s->len);
            st_be_n(dst + s->start, s->len, s->nf ? bits_le_to_be(v, s) : v);
        } else {
            uint64_t v = ld_be_n(src + s->start, s->len);
            st_le_n(dst + s->start, s->len, s->nf ? bits_be_to_le(v, s) : v);
        }
    }
}

void rst_to_canon(uint8_t *dst, const uint8_t *src) { permute(dst, src, 1); }
void rst_from_canon(uint8_t *dst, const uint8_t *src) { permute(dst, src, 0); }

const uint8_t *rst_canon_input(const trz_enc_args *a, uint8_t **copy)
{
    *copy = NULL;
    if (a->byte_order != TRZ_BO_LITTLE) return a->in;
    *copy = trz_big_malloc(a->len);
    if (*copy)
        for (size_t off = 0; off < a->len; off += RST_REC) rst_to_canon(*copy + off, a->in + off);
    return *copy;
}

void rst_uncanon_output(const trz_dec_args *a)
{
    if (a->byte_order != TRZ_BO_LITTLE) return;
    uint8_t t[RST_REC];
    for (size_t off = 0; off < a->len; off += RST_REC) {
        rst_from_canon(t, a->out + off);
        memcpy(a->out + off, t, RST_REC);
    }
}

int rst_rec_cpu(const uint8_t *r)
{
    switch (r[0]) {
    case RT_INSTR: return (int)rst_instr_cpu(r);
    case RT_PAVADIFF: case RT_PHYSADDR: return (int)rst_pv_cpu(r);
    case RT_TRAP: return (r[2] >> 2) | (r[6] >> 4) << 6;
    case RT_TRAPEXIT: return (int)rst_instr_cpu(r);
    case RT_TLB: return (r[4] & 0x3f) | (r[5] >> 4) << 6;
    case RT_REGVAL: return (r[1] & 0x7f) | (r[6] >> 5) << 7;
    case RT_PREG: return r[8] | (r[9] >> 6) << 8;
    case RT_TRAPPING: return (int)(trz_ld_be16(r + 2) >> 6);
    case RT_CPU: return trz_ld_be16(r + 6) & 0x3ff;
    default: return -1;
    }
}

/* ---- probe ---------------------------------------------------------------- */

/* Score one INSTR record's PC in one byte order: aligned, and upper 16 bits
 * all-zero or all-one (user and kernel text of real SPARC programs). */
static int pc_plausible(const uint8_t *pc8, int be)
{
    uint64_t pc = be ? trz_ld_be64(pc8) : trz_ld_le64(pc8);
    int s = (pc & 3) == 0;
    uint16_t hi = (uint16_t)(pc >> 48);
    return s + (s && (hi == 0 || hi == 0xffff));
}

int rst_probe(const uint8_t *buf, size_t len, int *byte_order)
{
    size_t n = len / RST_REC;
    if (n == 0) return 0;
    if (n > 65536) n = 65536;
    size_t known = 0, ins = 0, pv = 0;
    long sbe = 0, sle = 0, wbe = 0, wle = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = buf + i * RST_REC;
        known += rst_known_rtype(r[0]);
        pv += r[0] == RT_PAVADIFF;
        if (r[0] == RT_TLB || r[0] == RT_PAVADIFF || r[0] == RT_TRAP) {
            /* 64-bit addresses: the high byte is 0x00/0xff far more often than the low one */
            wbe += (r[8] == 0 || r[8] == 0xff) + (r[16] == 0 || r[16] == 0xff);
            wle += (r[15] == 0 || r[15] == 0xff) + (r[23] == 0 || r[23] == 0xff);
        }
        if (r[0] != RT_INSTR) continue;
        ins++;
        sbe += pc_plausible(r + 8, 1);
        sle += pc_plausible(r + 8, 0);
    }
    int le = ins >= 8 ? sle > sbe : (sle + wle) > (sbe + wbe);
    if (byte_order) *byte_order = le ? TRZ_BO_LITTLE : TRZ_BO_BIG;
    int hdr = buf[0] == RT_HEADER && len >= 14 && memcmp(buf + 4, "RST Header", 10) == 0;
    if (hdr) return 95;
    long best = le ? sle : sbe;
    /* no header: most records must be known types, mostly INSTR/PAVADIFF,
     * with aligned plausible PCs (random bytes fail all three). */
    if (n < 4 || known * 100 < n * 95 || (ins + pv) * 2 < n || ins == 0) return 0;
    if (best * 100 < (long)ins * 180) return 0;
    return n >= 64 ? 70 : 50;
}

/* ---- dump ----------------------------------------------------------------- */

static const char *const cond_names[16] = { "n", "e", "le", "l", "leu", "cs", "neg", "vs",
                                            "a", "ne", "g", "ge", "gu", "cc", "pos", "vc" };
static const char *const fcond_names[16] = { "n", "ne", "lg", "ul", "l", "ug", "g", "u",
                                             "a", "e", "ue", "ge", "uge", "le", "ule", "o" };
static const char *const rcond_names[8] = { "?", "z", "lez", "lz", "?", "nz", "gz", "gez" };

static const char *alu_name(unsigned op3)
{
    static const char *const n[64] = {
        "add", "and", "or", "xor", "sub", "andn", "orn", "xnor", "addc", "mulx", "umul", "smul",
        "subc", "udivx", "udiv", "sdiv", "addcc", "andcc", "orcc", "xorcc", "subcc", "andncc",
        "orncc", "xnorcc", "addccc", 0, "umulcc", "smulcc", "subccc", 0, "udivcc", "sdivcc",
        "taddcc", "tsubcc", "taddcctv", "tsubcctv", "mulscc", "sll", "srl", "sra", "rd", 0,
        "rdpr", "flushw", "movcc", "sdivx", "popc", "movr", "wr", "saved", "wrpr", 0, "fpop1",
        "fpop2", "impdep1", "impdep2", "jmpl", "return", "tcc", "flush", "save", "restore",
        "done/retry", 0 };
    return n[op3 & 63] ? n[op3 & 63] : "alu?";
}
static const char *mem_name(unsigned op3)
{
    static const char *const n[64] = {
        "lduw", "ldub", "lduh", "ldd", "stw", "stb", "sth", "std", "ldsw", "ldsb", "ldsh", "ldx",
        0, "ldstub", "stx", "swap", "lduwa", "lduba", "lduha", "ldda", "stwa", "stba", "stha",
        "stda", "ldswa", "ldsba", "ldsha", "ldxa", 0, "ldstuba", "stxa", "swapa", "ldf", "ldfsr",
        "ldqf", "lddf", "stf", "stfsr", "stqf", "stdf", 0, 0, 0, 0, 0, "prefetch", 0, 0, "ldfa",
        0, "ldqfa", "lddfa", "stfa", 0, "stqfa", "stdfa", 0, 0, 0, 0, "casa", "prefetcha",
        "casxa", 0 };
    return n[op3 & 63] ? n[op3 & 63] : "mem?";
}

/* A short mnemonic for the instruction word (enough to read a trace). */
static void mnemonic(char *o, size_t on, uint32_t iw)
{
    unsigned op = iw >> 30, op2 = (iw >> 22) & 7, op3 = (iw >> 19) & 63, cond = (iw >> 25) & 15;
    const char *a = (iw >> 29) & 1 ? ",a" : "";
    if (op == 1) { snprintf(o, on, "call"); return; }
    if (op == 3) { snprintf(o, on, "%s", mem_name(op3)); return; }
    if (op == 2) {
        unsigned rd = (iw >> 25) & 31, rs1 = (iw >> 14) & 31;
        if (op3 == 0x38 && rd == 0 && (iw & 0x3fff) == 0x2008 && (rs1 == 31 || rs1 == 15))
            snprintf(o, on, "%s", rs1 == 31 ? "ret" : "retl");
        else if (op3 == 0x3e) snprintf(o, on, "%s", rd == 0 ? "done" : "retry");
        else if (op3 == 0x3a) snprintf(o, on, "t%s", cond_names[cond]);
        else snprintf(o, on, "%s", alu_name(op3));
        return;
    }
    switch (op2) {
    case 1: snprintf(o, on, "bp%s%s", cond_names[cond], a); break;
    case 2: snprintf(o, on, "b%s%s", cond_names[cond], a); break;
    case 3: snprintf(o, on, "br%s%s", rcond_names[cond & 7], a); break;
    case 4: snprintf(o, on, "%s", iw == 0x01000000 ? "nop" : "sethi"); break;
    case 5: snprintf(o, on, "fbp%s%s", fcond_names[cond], a); break;
    case 6: snprintf(o, on, "fb%s%s", fcond_names[cond], a); break;
    default: snprintf(o, on, "%s", op2 == 0 ? "illtrap" : "?"); break;
    }
}

static void dump_text(FILE *f, const uint8_t *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n && s[i]; i++) {
        if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\') fputc(s[i], f);
        else fprintf(f, "\\x%02x", s[i]);
    }
    fputc('"', f);
}

static void dump_instr(FILE *f, uint64_t recno, const uint8_t *r)
{
    char m[24];
    uint32_t iw = trz_ld_be32(r + 4);
    mnemonic(m, sizeof m, iw);
    fprintf(f, "%llu instr : cpuid=%u %c [0x%016llx] %08x %-10s%s%s", (unsigned long long)recno,
            rst_instr_cpu(r), (r[1] & 0x10) ? 'h' : (r[1] & 0x08) ? 'p' : 'u',
            (unsigned long long)trz_ld_be64(r + 8), iw, m, (r[1] & 0x04) ? " T" : "",
            (r[1] & 0x02) ? " an" : "");
    if (r[1] & 0x20) fputs(" tr", f);
    if (r[1] & 0x40) fprintf(f, " [0x%016llx]", (unsigned long long)trz_ld_be64(r + 16));
    fputc('\n', f);
}

static void dump_other(FILE *f, uint64_t recno, const uint8_t *r)
{
    unsigned long long a = trz_ld_be64(r + 8), b = trz_ld_be64(r + 16);
    fprintf(f, "%llu ", (unsigned long long)recno);
    switch (r[0]) {
    case RT_HEADER:
        fprintf(f, "header : majorVer=%u minorVer=%u percent=%u ", r[1], r[2], r[3]);
        dump_text(f, r + 4, 20);
        break;
    case RT_STRDESC: case RT_STRCONT:
        fprintf(f, "%s: ", r[0] == RT_STRDESC ? "strdesc" : "strcont");
        dump_text(f, r + 1, 23);
        break;
    case RT_PAVADIFF:
        fprintf(f, "pavadiff: cpuid=%u icontext=%u dcontext=%u pc_pa_va=0x%016llx ea_pa_va=0x%016llx ea_valid=%u",
                rst_pv_cpu(r), trz_ld_be16(r + 4), trz_ld_be16(r + 6), a, b, r[1] >> 7);
        break;
    case RT_TRAP:
        fprintf(f, "trap : cpuid=%d tl=%u ttype=0x%x pstate=0x%x syscall=%u pc=0x%016llx npc=0x%016llx%s",
                rst_rec_cpu(r), r[1] & 15, trz_ld_be16(r + 2) & 0x3ff, trz_ld_be16(r + 4),
                trz_ld_be16(r + 6) & 0xfff, a, b, (r[1] & 0x80) ? " async" : "");
        break;
    case RT_TLB:
        fprintf(f, "tlb : cpuid=%d demap=%u type=%u index=%u tlb_no=%u tag=0x%016llx data=0x%016llx",
                rst_rec_cpu(r), r[1] >> 7, (r[1] >> 6) & 1, trz_ld_be16(r + 2), r[4] >> 6, a, b);
        break;
    case RT_PREG:
        fprintf(f, "preg : cpuid=%d asi=0x%02x tl=%u tt=0x%02x pstate=0x%04x primA=0x%04x secA=0x%04x primD=0x%04x secD=0x%04x",
                rst_rec_cpu(r), r[1], r[4], r[5], trz_ld_be16(r + 6), trz_ld_be16(r + 16),
                trz_ld_be16(r + 18), trz_ld_be16(r + 20), trz_ld_be16(r + 22));
        break;
    case RT_REGVAL:
        fprintf(f, "regval : cpuid=%d post=%u type=%u/%u id=%u/%u val=0x%016llx 0x%016llx",
                rst_rec_cpu(r), r[1] >> 7, r[2], r[3], r[4], r[5], a, b);
        break;
    case RT_CPU:
        fprintf(f, "cpu : cpu=%u timestamp=0x%llx", trz_ld_be16(r + 6), b);
        break;
    case RT_TRACEINFO:
        fprintf(f, "traceinfo : rtype2=%u level=%u val32=0x%x time64=0x%llx", r[1],
                trz_ld_be16(r + 2), trz_ld_be32(r + 4), a);
        break;
    default:
        fprintf(f, "rtype%u :", r[0]);
        for (int i = 1; i < RST_REC; i++) fprintf(f, " %02x", r[i]);
        break;
    }
    fputc('\n', f);
}

void rst_dump(FILE *f, uint64_t recno, const uint8_t *rec, int byte_order)
{
    uint8_t r[RST_REC];
    if (byte_order == TRZ_BO_LITTLE) rst_to_canon(r, rec);
    else memcpy(r, rec, RST_REC);
    if (r[0] == RT_INSTR) dump_instr(f, recno, r);
    else dump_other(f, recno, r);
}

/* Rewrite records between the big-endian (SPARC) layout and the
 * little-endian one, field by field, for readers that want host order. */
void rst_convert(uint8_t *recs, size_t len, int from, int to)
{
    if (from == to || from == TRZ_BO_NONE || to == TRZ_BO_NONE) return;
    uint8_t tmp[24];
    for (size_t off = 0; off + 24 <= len; off += 24) {
        if (from == TRZ_BO_BIG) rst_from_canon(tmp, recs + off);
        else rst_to_canon(tmp, recs + off);
        memcpy(recs + off, tmp, 24);
    }
}

void rst_cpus_seen(const uint8_t *buf, size_t len, int byte_order, uint64_t cpus[16])
{
    uint8_t r[RST_REC];
    for (size_t off = 0; off + RST_REC <= len; off += RST_REC) {
        const uint8_t *p = buf + off;
        if (byte_order == TRZ_BO_LITTLE) { rst_to_canon(r, p); p = r; }
        int c = rst_rec_cpu(p);
        if (c >= 0 && c < 1024) cpus[c >> 6] |= 1ull << (c & 63);
    }
}

/* ---- carried knowledge (rst.md, "Knowledge") ------------------------------
 * A fact is an instruction word under its PC (4-aligned: SPARC's), from the
 * first INSTR at that PC; with it a chunk's I-cache starts from every word
 * its group has seen instead of from none. */
void rst_ic_fill(const trz_know *k, rst_ic_ent *e, uint64_t pc)
{
    size_t n;
    const uint8_t *f = (pc & 3) ? NULL : trz_know_get(k, pc, &n);
    if (f && n == RST_FACT_IW) e->iw = trz_ld_be32(f);
    e->tag = rst_ic_tag(pc);
}

#define SEEN_BITS 12

int rst_learn(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int byte_order, trz_know_add_fn add,
              void *ctx)
{
    (void)k; /* add skips the keys the group knows */
    if (len % RST_REC || nrec != len / RST_REC) return TRZ_CODEC_UNSUPPORTED;
    int le = byte_order == TRZ_BO_LITTLE;
    /* the PCs just stated: most INSTRs repeat one of a few */
    uint64_t *seen = malloc(((size_t)1 << SEEN_BITS) * sizeof *seen);
    if (!seen) return TRZ_CODEC_NOMEM;
    memset(seen, 0xff, ((size_t)1 << SEEN_BITS) * sizeof *seen); /* no PC: not 4-aligned */
    for (size_t i = 0; i < nrec; i++) {
        const uint8_t *r = in + i * RST_REC;
        if (r[0] != RT_INSTR) continue;
        uint64_t pc = le ? trz_ld_le64(r + 8) : trz_ld_be64(r + 8);
        uint64_t *s = &seen[(pc * 0x9E3779B97F4A7C15ull) >> (64 - SEEN_BITS)];
        if ((pc & 3) || *s == pc) continue;
        *s = pc;
        uint8_t v[RST_FACT_IW];
        trz_st_be32(v, le ? trz_ld_le32(r + 4) : trz_ld_be32(r + 4));
        add(ctx, pc, v, sizeof v);
    }
    free(seen);
    return TRZ_CODEC_OK;
}

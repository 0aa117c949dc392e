/* cs_util.c - the ChampSim codec's record layouts, probe, dump and byte-order
 * conversion (everything but the models, which are in champsim.c). */
#include "champsim_int.h"


const char *const cs_kind_names[CS_NKIND] = { "-", "jump", "ind", "cond", "call", "icall", "ret", "other" };

/* ---- probe ---------------------------------------------------------------- */

/* A canonical x86-64 address (user or kernel half), not 0. */
static int canon_addr(uint64_t a) { return a != 0 && (a >> 47 == 0 || a >> 47 == 0x1ffff); }

/* How well buf reads as records of layout L: the share of records whose
 * fields all look like the Pin tracer's (canonical addresses, is_branch and
 * branch_taken 0 or 1, register ids below 128, memory slots filled from the
 * front, zero padding), and of non-branches followed by
 * the next instruction (1 to 15 bytes further). */
static int probe_layout(const cs_layout *L, const uint8_t *buf, size_t len)
{
    size_t n = len / L->size;
    if (n > 65536) n = 65536;
    if (n < 2) return 0;
    size_t good = 0, seq = 0, nonbr = 0, regs_used = 0;
    cs_rec prev = { 0 }, r;
    int prev_ok = 0;
    for (size_t i = 0; i < n; i++) {
        cs_unpack(L, buf + i * L->size, &r);
        int ok = canon_addr(r.ip) && r.ib <= 1 && r.bt <= 1 && (r.ib || !r.bt);
        for (unsigned k = 0; k < 8 && ok; k++) ok = r.regs[k] < 128;
        /* memory slots are filled from the front and hold user addresses */
        for (unsigned g = 0; g < 2 && ok; g++) {
            int zero = 0;
            for (unsigned k = 0; k < 4 && ok; k++) {
                uint64_t a = r.mem[g * 4 + k];
                if (!a) zero = 1;
                else ok = !zero && canon_addr(a);
            }
        }
        for (unsigned k = 0; k < L->nextra && ok; k++)
            if (L->extra_off[k] < 88 || L->extra_off[k] >= 90) ok = r.extra[k] == 0; /* padding, not asid */
        good += (size_t)ok;
        for (unsigned k = 0; k < 8; k++) regs_used += r.regs[k] != 0;
        if (prev_ok && ok && !prev.ib) {
            nonbr++;
            seq += r.ip - prev.ip >= 1 && r.ip - prev.ip <= 15;
        }
        prev = r;
        prev_ok = ok;
    }
    if (good * 100 < n * 97 || !regs_used) return 0;
    if (nonbr < 2 || seq * 100 < nonbr * 90) return 0;
    if (n >= 1024 && good * 100 >= n * 99 && seq * 100 >= nonbr * 95) return 95;
    if (n >= 16 && nonbr >= 8) return 90;
    return 60;
}

int cs_probe64(const uint8_t *buf, size_t len, int *byte_order)
{
    *byte_order = TRZ_BO_LITTLE;
    return probe_layout(&cs_layout64, buf, len);
}

int cs_probe96(const uint8_t *buf, size_t len, int *byte_order)
{
    *byte_order = TRZ_BO_LITTLE;
    return probe_layout(&cs_layout96, buf, len);
}

/* ---- dump ----------------------------------------------------------------- */

static void dump(FILE *f, const cs_layout *L, uint64_t recno, const uint8_t *p)
{
    cs_rec r;
    cs_unpack(L, p, &r);
    unsigned kind = cs_kind(r.regs);
    fprintf(f, "%llu ip=0x%llx br=%u taken=%u %-5s", (unsigned long long)recno, (unsigned long long)r.ip, r.ib,
            r.bt, cs_kind_names[kind]);
    fputs(" dst=", f);
    for (unsigned k = 0; k < L->ndreg; k++) fprintf(f, "%s%u", k ? "," : "", r.regs[k]);
    fputs(" src=", f);
    for (unsigned k = 0; k < 4; k++) fprintf(f, "%s%u", k ? "," : "", r.regs[4 + k]);
    for (unsigned k = 0; k < L->ndmem; k++)
        if (r.mem[4 + k]) fprintf(f, " w%u=0x%llx", k, (unsigned long long)r.mem[4 + k]);
    for (unsigned k = 0; k < 4; k++)
        if (r.mem[k]) fprintf(f, " r%u=0x%llx", k, (unsigned long long)r.mem[k]);
    if (L->nextra) {
        fprintf(f, " asid=%u,%u", p[88], p[89]);
        int pad = 0;
        for (unsigned k = 0; k < L->nextra; k++) pad |= (L->extra_off[k] < 88 || L->extra_off[k] >= 90) && r.extra[k];
        if (pad) {
            fputs(" pad=", f);
            for (unsigned k = 18; k < 24; k++) fprintf(f, "%02x", p[k]);
            fputc('/', f);
            for (unsigned k = 90; k < 96; k++) fprintf(f, "%02x", p[k]);
        }
    }
    fputc('\n', f);
}

void cs_dump64(FILE *f, uint64_t recno, const uint8_t *rec, int byte_order)
{
    (void)byte_order; /* records are little-endian by definition */
    dump(f, &cs_layout64, recno, rec);
}

void cs_dump96(FILE *f, uint64_t recno, const uint8_t *rec, int byte_order)
{
    (void)byte_order;
    dump(f, &cs_layout96, recno, rec);
}

/* ---- byte order ------------------------------------------------------------ */

static void swap64(uint8_t *p)
{
    for (int i = 0; i < 4; i++) {
        uint8_t t = p[i];
        p[i] = p[7 - i];
        p[7 - i] = t;
    }
}

/* The 64-bit fields (ip and the memory slots) change byte order; the
 * others are single bytes. */
static void convert(const cs_layout *L, uint8_t *recs, size_t len, int from, int to)
{
    if (from == to || from == TRZ_BO_NONE || to == TRZ_BO_NONE) return;
    for (size_t off = 0; off + L->size <= len; off += L->size) {
        uint8_t *p = recs + off;
        swap64(p);
        for (unsigned k = 0; k < L->ndmem; k++) swap64(p + L->off_dmem + 8 * k);
        for (unsigned k = 0; k < 4; k++) swap64(p + L->off_smem + 8 * k);
    }
}

void cs_convert64(uint8_t *recs, size_t len, int from, int to) { convert(&cs_layout64, recs, len, from, to); }
void cs_convert96(uint8_t *recs, size_t len, int from, int to) { convert(&cs_layout96, recs, len, from, to); }

/* pbus_fmt.c - the PEL Pentium bus format's record helpers (pbus_fmt.h):
 * the probe that recognises its records, a record printed for `trz dump`,
 * and the address converted between byte orders.  No model state. */
#include "../codec.h"
#include "pbus_fmt.h"

static const char *const op_names[16] = {
    "INVALID", "INT_ACK", "INVALID", "SPECIAL", "INVALID", "IO_READ", "INVALID", "IO_WRITE",
    "I_FETCH", "NC_I_FETCH", "INVALID", "INVALID", "D_READ", "NC_D_READ", "WRITE_BACK", "D_WRITE",
};

static int valid_type(unsigned t) { return t == 1 || t == 3 || t == 5 || t == 7 || t >= 8; }

/* Byte enables whose requested bytes (zero bits) lie within the 8-byte
 * group at the address's alignment. */
static int plausible_be(uint32_t addr, uint8_t be)
{
    if ((addr & 7) == 0) return 1;
    uint8_t below = (uint8_t)((1u << (addr & 7)) - 1);
    return (be & below) == below;
}

int pbus_probe(const uint8_t *buf, size_t len, int *byte_order)
{
    *byte_order = TRZ_BO_BIG;
    size_t n = len / 6;
    if (n > 8192) n = 8192;
    if (n < 2) return 0;
    size_t type = 0, align = 0, lownib = 0, mem = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = buf + i * 6;
        unsigned t = r[5] >> 4;
        type += valid_type(t);
        mem += t >= 8;
        lownib += (r[5] & 15) == 0;
        align += plausible_be(trz_ld_be32(r), r[4]);
    }
    if (type * 100 < n * 97 || align * 100 < n * 95 || mem * 100 < n * 50) return 0;
    return lownib * 100 >= n * 90 ? 80 : 50;
}

void pbus_dump(FILE *f, uint64_t recno, const uint8_t *r, int byte_order)
{
    (void)byte_order;
    fprintf(f, "%llu: %08x %02x %s\n", (unsigned long long)recno, (unsigned)trz_ld_be32(r), r[4],
            op_names[r[5] >> 4]);
}

/* The address (bytes 0-3) is the only multi-byte field. */
void pbus_convert(uint8_t *recs, size_t len, int from, int to)
{
    if (from == to || from == TRZ_BO_NONE || to == TRZ_BO_NONE) return;
    for (size_t off = 0; off + 6 <= len; off += 6) trz_st_le32(recs + off, trz_ld_be32(recs + off));
}


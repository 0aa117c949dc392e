/* pbus_fmt.h - the PEL Pentium bus format's record helpers for the codec's
 * table (pbus.c): its probe, a record printed, its byte order converted
 * (pbus_fmt.c; the format in pbus.md). */
#ifndef TRZ_PBUS_FMT_H
#define TRZ_PBUS_FMT_H
#include <stdint.h>
#include <stdio.h>

int pbus_probe(const uint8_t *buf, size_t len, int *byte_order);
void pbus_dump(FILE *f, uint64_t recno, const uint8_t *r, int byte_order);
void pbus_convert(uint8_t *recs, size_t len, int from, int to);
#endif

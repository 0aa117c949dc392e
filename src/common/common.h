/* common.h - the library's common room: what every other room uses.
 * bytes.h (little/big-endian loads and stores, bit counts), buf.h (the
 * growable output buffer and the bounds-checked reader, with varints),
 * mem.h (large blocks on huge pages, kept for reuse), hash.h (XXH3),
 * io.h (trz_io over memory; fds are in trz.h), text.h (line starts), and
 * here the CPU count.  Errors and the version are in errors.c.  Nothing in
 * this room knows the container or the codecs. */
#ifndef TRZ_COMMON_H
#define TRZ_COMMON_H

#include "../../include/trz.h"
#include "buf.h"
#include "bytes.h"
#include "hash.h"
#include "io.h"
#include "mem.h"
#include "text.h"

/* Online CPUs, 1..256. */
int trz_ncpus(void);

#endif

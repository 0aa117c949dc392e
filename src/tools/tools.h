/* tools.h - what the tools room offers the rest of the library beyond
 * trz.h (the path and join functions are public; src/common/safefile.h is apart). */
#ifndef TRZ_TOOLS_H
#define TRZ_TOOLS_H

#include <stdio.h>

#include "../../codecs/codec.h"

/* Print n records of codec c at p, numbered from first, one line each. */
void trz_dump_records(FILE *f, const trz_codec *c, int bo, const uint8_t *p, size_t n, uint64_t first);

#endif

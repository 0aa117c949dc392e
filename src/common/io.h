/* io.h - trz_io over memory (trz_io_fd is public, in trz.h). */
#ifndef TRZ_IO_H
#define TRZ_IO_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/trz.h"

/* Memory read through trz_io: seek and size work, write does not. */
typedef struct trz_memio { const uint8_t *p; size_t n, pos; } trz_memio;
void trz_io_mem(trz_io *io, trz_memio *state);

#endif

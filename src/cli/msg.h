/* msg.h - the command line's messages (msg.c). */
#ifndef TRZ_MSG_H
#define TRZ_MSG_H

#include <stdint.h>

#include "../../include/trz.h"

/* One line on stderr: "trz: " then the message. */
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 0 quiet, 1 normal, 2 and up verbose. */
extern int g_verbosity;

/* With --salvage: one line per loss the reader r reports (consecutive
 * chunks lost alike on one), or the damage that cost nothing; total: the
 * bytes written.  Returns 1 when the archive was damaged at all. */
int msg_salvage(const char *name, trz_reader *r, uint64_t total, int failed);
/* The chunks r mended from their parity, in one line; 1 when any. */
int msg_mended(const char *name, trz_reader *r);

#endif

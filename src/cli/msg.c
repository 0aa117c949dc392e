/* msg.c - the command line's messages: one line on stderr, prefixed
 * "trz: ", and how many (verbosity). */
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

int g_verbosity = 1;

void msg_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("trz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

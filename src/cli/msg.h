/* msg.h - the command line's messages (msg.c). */
#ifndef TRZ_MSG_H
#define TRZ_MSG_H

/* One line on stderr: "trz: " then the message. */
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 0 quiet, 1 normal, 2 and up verbose. */
extern int g_verbosity;

#endif

/* errors.c - the library's version, result strings and the machine's CPU
 * count. */
#include <unistd.h>

#include "common.h"

unsigned trz_version_number(void) { return TRZ_VERSION_NUMBER; }

#define STR2(x) #x
#define STR(x) STR2(x)
const char *trz_version_string(void)
{
    return STR(TRZ_VERSION_MAJOR) "." STR(TRZ_VERSION_MINOR) "." STR(TRZ_VERSION_PATCH);
}

const char *trz_strerror(int r)
{
    switch (r) {
    case TRZ_OK: return "success";
    case TRZ_ERR_IO: return "I/O error";
    case TRZ_ERR_NOMEM: return "out of memory";
    case TRZ_ERR_NOT_TRZ: return "not a trz file";
    case TRZ_ERR_VERSION: return "unsupported trz format version";
    case TRZ_ERR_CORRUPT: return "corrupt data";
    case TRZ_ERR_CHECKSUM: return "checksum mismatch";
    case TRZ_ERR_TRUNCATED: return "unexpected end of file";
    case TRZ_ERR_LIMIT: return "size exceeds limits";
    case TRZ_ERR_PARAM: return "invalid parameter";
    case TRZ_ERR_UNSUPPORTED: return "unsupported";
    case TRZ_ERR_RANGE: return "record number out of range";
    case TRZ_ERR_CODEC: return "codec failure";
    default: return "unknown error";
    }
}

int trz_ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

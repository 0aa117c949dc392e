/* member_kind.h - the kind of the member whose header is at p, numbered as
 * the container versions up to 4 numbered them: 1 chunks on their own, 3
 * carried knowledge, 4 chains; a member of version 5 says it in its flags
 * (src/format/FORMAT.md, "File header"). */
#ifndef TRZ_TEST_MEMBER_KIND_H
#define TRZ_TEST_MEMBER_KIND_H
#include <stdint.h>

static inline int member_kind(const uint8_t *p)
{
    if (p[4] != 5) return p[4];
    return p[7] & 2 ? 4 : p[7] & 1 ? 3 : 1;
}
#endif

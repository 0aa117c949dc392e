/* listchase.c - pointer chasing: builds a singly linked list whose nodes sit in a random order
 * in memory, then walks it many times summing payloads and occasionally splicing nodes. */
#include <stdio.h>
#include <stdlib.h>

struct node { struct node *next; long val; long pad[2]; };

static unsigned long rng = 88172645463325252ul;
static unsigned long xorshift(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 50000, rounds = argc > 2 ? atol(argv[2]) : 40;
    struct node *pool = malloc((size_t)n * sizeof *pool);
    long *perm = malloc((size_t)n * sizeof *perm);
    if (!pool || !perm) return 1;
    for (long i = 0; i < n; i++) perm[i] = i;
    for (long i = n - 1; i > 0; i--) { long j = (long)(xorshift() % (unsigned long)(i + 1)); long t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    for (long i = 0; i < n; i++) { pool[perm[i]].val = i; pool[perm[i]].next = i + 1 < n ? &pool[perm[i + 1]] : NULL; }
    struct node *head = &pool[perm[0]];
    long sum = 0;
    for (long r = 0; r < rounds; r++) {
        long k = 0;
        for (struct node *p = head; p; p = p->next, k++) {
            sum += p->val ^ r;
            if ((k & 1023) == 7 && p->next && p->next->next) {   /* move a node to the front */
                struct node *m = p->next; p->next = m->next; m->next = head; head = m;
            }
        }
    }
    printf("%ld\n", sum);
    return 0;
}

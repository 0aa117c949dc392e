/* hashtab.c - a chained hash table of strings: inserts generated words with counts, looks up
 * hits and misses, deletes some, and grows the table as it fills. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry { struct entry *next; unsigned long hash; long count; char key[24]; };
static struct entry **tab;
static unsigned long nbuckets = 1024, nentries;
static unsigned long rng = 1234567ul;
static unsigned long xorshift(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static unsigned long fnv(const char *s) { unsigned long h = 1469598103934665603ul; while (*s) { h ^= (unsigned char)*s++; h *= 1099511628211ul; } return h; }

static void grow(void)
{
    unsigned long nb = nbuckets * 2;
    struct entry **t = calloc(nb, sizeof *t);
    if (!t) exit(1);
    for (unsigned long i = 0; i < nbuckets; i++)
        for (struct entry *e = tab[i], *nx; e; e = nx) { nx = e->next; e->next = t[e->hash & (nb - 1)]; t[e->hash & (nb - 1)] = e; }
    free(tab); tab = t; nbuckets = nb;
}

static struct entry **find(const char *k, unsigned long h)
{
    struct entry **p = &tab[h & (nbuckets - 1)];
    while (*p && ((*p)->hash != h || strcmp((*p)->key, k))) p = &(*p)->next;
    return p;
}

static void word(char *w)
{
    static const char *syl[] = { "ka", "to", "ri", "men", "sa", "lo", "qui", "der", "an", "ex", "po", "tur" };
    int n = 1 + (int)(xorshift() % 4);
    w[0] = 0;
    for (int i = 0; i < n; i++) strcat(w, syl[xorshift() % 12]);
}

int main(int argc, char **argv)
{
    long ops = argc > 1 ? atol(argv[1]) : 400000, hits = 0;
    tab = calloc(nbuckets, sizeof *tab);
    char w[32];
    for (long i = 0; i < ops; i++) {
        word(w);
        unsigned long h = fnv(w);
        struct entry **p = find(w, h);
        if (*p) {
            hits++;
            if (++(*p)->count % 7 == 0) { struct entry *e = *p; *p = e->next; free(e); nentries--; }
        } else if (xorshift() % 4) {
            struct entry *e = malloc(sizeof *e);
            if (!e) return 1;
            strcpy(e->key, w); e->hash = h; e->count = 1; e->next = NULL; *p = e;
            if (++nentries > nbuckets) grow();
        }
    }
    printf("%ld %lu\n", hits, nentries);
    return 0;
}

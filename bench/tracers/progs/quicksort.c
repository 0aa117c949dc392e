/* quicksort.c - sorts arrays of random 64-bit keys with a recursive median-of-three quicksort
 * and insertion sort for small ranges, then checks the order. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long rng = 2463534242ul;
static unsigned long xorshift(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static void isort(long *a, long lo, long hi)
{
    for (long i = lo + 1; i <= hi; i++) {
        long v = a[i], j = i - 1;
        while (j >= lo && a[j] > v) { a[j + 1] = a[j]; j--; }
        a[j + 1] = v;
    }
}

static void qsort_rec(long *a, long lo, long hi)
{
    while (hi - lo > 16) {
        long mid = lo + (hi - lo) / 2, t;
        if (a[mid] < a[lo]) { t = a[mid]; a[mid] = a[lo]; a[lo] = t; }
        if (a[hi] < a[lo]) { t = a[hi]; a[hi] = a[lo]; a[lo] = t; }
        if (a[hi] < a[mid]) { t = a[hi]; a[hi] = a[mid]; a[mid] = t; }
        long p = a[mid], i = lo, j = hi;
        while (i <= j) {
            while (a[i] < p) i++;
            while (a[j] > p) j--;
            if (i <= j) { t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
        }
        if (j - lo < hi - i) { qsort_rec(a, lo, j); lo = i; } else { qsort_rec(a, i, hi); hi = j; }
    }
    isort(a, lo, hi);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000, reps = argc > 2 ? atol(argv[2]) : 5, bad = 0;
    long *a = malloc((size_t)n * sizeof *a);
    if (!a) return 1;
    for (long r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++) a[i] = (long)(xorshift() % 1000000007ul);
        qsort_rec(a, 0, n - 1);
        for (long i = 1; i < n; i++) bad += a[i - 1] > a[i];
    }
    printf("%ld %ld\n", a[n / 2], bad);
    return 0;
}

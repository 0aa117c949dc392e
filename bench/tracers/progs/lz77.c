/* lz77.c - an LZ77 compressor with hash chains (window 32 KB, matches 3..258) over generated
 * text, writing literal/match tokens to a buffer, then a decoder that checks the round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIN 32768
#define HBITS 15
static unsigned long rng = 99991ul;
static unsigned long xorshift(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 300000;
    static const char *words[] = { "the ", "trace ", "of ", "a ", "program ", "compress ", "branch ", "memory ",
                                   "cache ", "line ", "miss ", "and ", "to ", "in ", "is ", "record " };
    unsigned char *in = malloc((size_t)n + 16), *out = malloc((size_t)n * 2 + 16), *back = malloc((size_t)n + 16);
    int *head = malloc(sizeof(int) << HBITS), *prev = malloc(sizeof(int) * WIN);
    if (!in || !out || !back || !head || !prev) return 1;
    long len = 0;
    while (len < n) {
        const char *w = words[xorshift() % 16];
        size_t k = strlen(w);
        if (len + (long)k > n) break;
        memcpy(in + len, w, k); len += (long)k;
        if (xorshift() % 11 == 0) in[len++] = (unsigned char)('0' + xorshift() % 10);
    }
    memset(head, -1, sizeof(int) << HBITS);
    long o = 0, i = 0;
    while (i < len) {
        int best = 0, dist = 0;
        if (i + 3 <= len) {
            unsigned h = ((unsigned)in[i] << 10 ^ (unsigned)in[i + 1] << 5 ^ in[i + 2]) & ((1u << HBITS) - 1);
            int cand = head[h], chain = 32;
            while (cand >= 0 && i - cand < WIN && chain--) {
                int l = 0;
                while (l < 258 && i + l < len && in[cand + l] == in[i + l]) l++;
                if (l > best) { best = l; dist = (int)(i - cand); }
                cand = prev[cand % WIN];
            }
            prev[i % WIN] = head[h]; head[h] = (int)i;
        }
        if (best >= 3) {
            out[o++] = 1; out[o++] = (unsigned char)(best - 3); out[o++] = (unsigned char)(dist >> 8); out[o++] = (unsigned char)dist;
            for (long k = 1; k < best; k++, i++)
                if (i + 1 + 3 <= len) {
                    unsigned h = ((unsigned)in[i + 1] << 10 ^ (unsigned)in[i + 2] << 5 ^ in[i + 3]) & ((1u << HBITS) - 1);
                    prev[(i + 1) % WIN] = head[h]; head[h] = (int)(i + 1);
                }
            i++;
        } else {
            out[o++] = 0; out[o++] = in[i++];
        }
    }
    long b = 0;
    for (long p = 0; p < o;) {
        if (out[p] == 0) { back[b++] = out[p + 1]; p += 2; }
        else { int l = out[p + 1] + 3, d = out[p + 2] << 8 | out[p + 3]; for (int k = 0; k < l; k++, b++) back[b] = back[b - d]; p += 4; }
    }
    printf("%ld -> %ld, %s\n", len, o, b == len && !memcmp(in, back, (size_t)len) ? "ok" : "MISMATCH");
    return 0;
}

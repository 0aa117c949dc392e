/* codec_harness.c - drive one codec directly, without the container: encode
 * a file chunk by chunk, compress every stream with zstd, decode, compare,
 * and print the bytes each stream costs.  A tool for improving a model.
 *
 *   codec_harness CODEC FILE [level] [chunk_bytes] [byte_order 0|1|2|auto] [chain]
 *
 * With `chain`, the chunks form one chain (codec.h, "Chains"): one encoder
 * model and one decoder model kept from chunk to chunk, a->chain = 1.
 */
#define _POSIX_C_SOURCE 200809L
#include "codec_args.h"
#include "../codecs/codec.h"
#include <time.h>
#include <zstd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s CODEC FILE [level] [chunk_bytes] [byte_order] [chain]\n", argv[0]);
        return 2;
    }
    const trz_codec *c = trz_codec_by_name(argv[1]);
    if (!c) { fprintf(stderr, "unknown codec %s\n", argv[1]); return 2; }
    FILE *f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 1; }
    fseek(f, 0, SEEK_END);
    long fsz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)fsz + 1);
    if (fread(data, 1, (size_t)fsz, f) != (size_t)fsz) { perror("read"); return 1; }
    fclose(f);
    int level = argc > 3 ? atoi(argv[3]) : 9;
    size_t chunk = argc > 4 ? (size_t)atol(argv[4]) : (16u << 20);
    int bo = TRZ_BO_NONE;
    int score = c->probe ? c->probe(data, (size_t)fsz, &bo) : 0;
    if (argc > 5 && strcmp(argv[5], "auto") != 0) bo = atoi(argv[5]);
    int chain = argc > 6 && strcmp(argv[6], "chain") == 0;
    trz_model *me = NULL, *md = NULL;
    if (chain && (trz_model_create(c, level, 0, &me) != TRZ_CODEC_OK || trz_model_create(c, 0, 0, &md) != TRZ_CODEC_OK)) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    size_t rs = c->record_size;
    if (rs > 1) chunk -= chunk % rs;
    size_t total = (size_t)fsz;
    if (rs > 1) total -= total % rs;

    size_t sraw[TRZ_MAX_STREAMS] = { 0 }, scmp[TRZ_MAX_STREAMS] = { 0 };
    double tenc = 0, tdec = 0, tz = 0;
    size_t all = 0;
    uint8_t *out = malloc(chunk + 1);
    for (size_t off = 0, len = 0; off < total; off += len) {
        len = total - off < chunk ? total - off : chunk;
        if (rs == 0) { /* text: cut after the last newline */
            size_t l = len;
            while (off + len < total && l > 0 && data[off + l - 1] != '\n') l--;
            if (l > 0) len = l;
        }
        trz_buf s[TRZ_MAX_STREAMS];
        memset(s, 0, sizeof s);
        trz_enc_args ea = TEST_ENC_ARGS(data + off, len, rs ? len / rs : 0, bo, level, s);
        ea.chain = chain;
        double t0 = now();
        int rc = trz_codec_encode(c, &ea, me);
        tenc += now() - t0;
        if (rc) { fprintf(stderr, "encode failed %d at %zu\n", rc, off); return 1; }
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
            sp[i] = s[i].n ? s[i].p : NULL;
            sl[i] = s[i].n;
            if (!s[i].n) continue;
            size_t bound = ZSTD_compressBound(s[i].n);
            void *z = malloc(bound);
            t0 = now();
            size_t zn = ZSTD_compress(z, bound, s[i].p, s[i].n, level);
            tz += now() - t0;
            sraw[i] += s[i].n;
            scmp[i] += zn < s[i].n ? zn : s[i].n;
            free(z);
        }
        trz_dec_args da = { sp, sl, out, len, ea.nrec, bo, NULL, chain };
        t0 = now();
        rc = trz_codec_decode(c, &da, md);
        tdec += now() - t0;
        if (rc || memcmp(out, data + off, len) != 0) {
            size_t i = 0;
            while (i < len && out[i] == data[off + i]) i++;
            fprintf(stderr, "ROUND TRIP FAILED rc=%d chunk at %zu, first diff at byte %zu (record %zu)\n",
                    rc, off, off + i, rs ? (off + i) / rs : 0);
            return 1;
        }
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(s[i].p);
        all += len;
    }
    size_t sum = 0;
    trz_model_free(c, me);
    trz_model_free(c, md);
    printf("codec %s probe=%d byte_order=%d level=%d%s file=%s bytes=%zu\n", c->name, score, bo, level,
           chain ? " chain" : "", argv[2], (size_t)fsz);
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        if (!sraw[i]) continue;
        const char *nm = c->stream_name ? c->stream_name((unsigned)i) : NULL;
        printf("  stream %2d %-16s raw %10zu  zstd %9zu\n", i, nm ? nm : "?", sraw[i], scmp[i]);
        sum += scmp[i];
    }
    printf("  TOTAL %zu (ratio %.2f), tail %zu bytes not coded\n", sum, sum ? (double)fsz / sum : 0.0, (size_t)fsz - total);
    printf("  model encode %.1f MB/s, zstd %.1f MB/s, model decode %.1f MB/s\n",
           all / 1e6 / (tenc > 0 ? tenc : 1e-9), all / 1e6 / (tz > 0 ? tz : 1e-9), all / 1e6 / (tdec > 0 ? tdec : 1e-9));
    free(out);
    free(data);
    return 0;
}

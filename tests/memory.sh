#!/usr/bin/env bash
# memory.sh - the memory bounds: 64 MB to decompress (into a pipe, the
# chunk decoded ahead included) and 128 MB to compress at the default
# level, one thread (decimal MB: 62,500 and 125,000 KiB of peak RSS,
# /usr/bin/time).  The model's tables, window and chunk buffers take the
# same memory whatever the records hold, so the corpus's drmemtrace sample
# repeated 100 times (72 MB, 12 chunks in two chains) stands for a real
# trace: it costs about a second.  The shared corpus's RST, ChampSim, uop
# and BYU traces, when present, are real ones long enough to fill their chains'
# windows (31 to 320 MB of records: a few seconds each).  Skipped without
# /usr/bin/time.
#   tests/memory.sh [path/to/trz]      (prints "N passed, M failed" last)
set -u
TRZ=${1:-./trz}
. "$(dirname "$0")/lib.sh" memory
SAMPLE=$ROOT/corpus/core-6thr.drmemtrace
MAXC=125000
MAXD=62500
if [ ! -x /usr/bin/time ] || [ ! -s "$SAMPLE" ]; then
    echo "memory.sh: skipped (no /usr/bin/time or no $SAMPLE)"
    echo "0 passed, 0 failed"
    exit 0
fi
for _ in $(seq 100); do cat "$SAMPLE"; done > "$W/t.trace"
/usr/bin/time -o "$W/c.kib" -f %M "$TRZ" -q -T1 -c "$W/t.trace" > "$W/t.trz"
rc=$?
c=$(tail -1 "$W/c.kib")
if [ $rc = 0 ] && [ "$c" -le $MAXC ]; then ok "compress: $c KiB"; else bad "compress: $c KiB, at most $MAXC" "exit $rc"; fi
n=$("$TRZ" -l "$W/t.trz" | awk 'NR == 2 { print $3 }')
[ "$n" = 12 ] && ok "12 chunks of 6 MiB" || bad "chunks: $n, not 12"
/usr/bin/time -o "$W/d.kib" -f %M "$TRZ" -T1 -dc "$W/t.trz" | cmp -s - "$W/t.trace"
st=("${PIPESTATUS[@]}")
d=$(tail -1 "$W/d.kib")
if [ "${st[0]}" = 0 ] && [ "${st[1]}" = 0 ] && [ "$d" -le $MAXD ]; then ok "decompress into a pipe: $d KiB"
else bad "decompress into a pipe: $d KiB, at most $MAXD" "exit ${st[*]}"; fi

# trace (.xz in the shared corpus): both bounds at the default level
bounds() {
    local src=$SHARED/$1 name=$1
    [ -s "$src" ] || { echo "note: $src not present; skipped"; return; }
    xz -dc "$src" > "$W/r.trace" || { bad "$name: unpack" "xz failed"; return; }
    /usr/bin/time -o "$W/c.kib" -f %M "$TRZ" -q -T1 -c "$W/r.trace" > "$W/r.trz"
    local rc=$? c
    c=$(tail -1 "$W/c.kib")
    if [ $rc = 0 ] && [ "$c" -le $MAXC ]; then ok "$name: compress $c KiB"; else bad "$name: compress $c KiB, at most $MAXC" "exit $rc"; fi
    /usr/bin/time -o "$W/d.kib" -f %M "$TRZ" -T1 -dc "$W/r.trz" | cmp -s - "$W/r.trace"
    st=("${PIPESTATUS[@]}")
    d=$(tail -1 "$W/d.kib")
    if [ "${st[0]}" = 0 ] && [ "${st[1]}" = 0 ] && [ "$d" -le $MAXD ]; then ok "$name: decompress into a pipe $d KiB"
    else bad "$name: decompress into a pipe $d KiB, at most $MAXD" "exit ${st[*]}"; fi
    rm -f "$W/r.trace" "$W/r.trz"
}
# a file no codec knows (the raw codec, LZMA2 at the default level): this
# build's own executable and library, 24 MiB, three chunks of 8 MiB
cat "$TRZ" "$ROOT/libtrz.a" "$TRZ" "$ROOT/libtrz.a" | head -c 25165824 > "$W/b.bin"
if [ "$(stat -c %s "$W/b.bin")" = 25165824 ]; then
    /usr/bin/time -o "$W/c.kib" -f %M "$TRZ" -q -T1 -c "$W/b.bin" > "$W/b.trz"
    rc=$?
    c=$(tail -1 "$W/c.kib")
    if [ $rc = 0 ] && [ "$c" -le $MAXC ]; then ok "raw: compress $c KiB"; else bad "raw: compress $c KiB, at most $MAXC" "exit $rc"; fi
    "$TRZ" -l "$W/b.trz" | awk 'NR == 2 { exit !($1 == "raw" && $3 == 3) }' && ok "raw: three chunks of 8 MiB" ||
        bad "raw: not three raw chunks" "$("$TRZ" -l "$W/b.trz" | sed -n 2p)"
    /usr/bin/time -o "$W/d.kib" -f %M "$TRZ" -T1 -dc "$W/b.trz" | cmp -s - "$W/b.bin"
    st=("${PIPESTATUS[@]}")
    d=$(tail -1 "$W/d.kib")
    if [ "${st[0]}" = 0 ] && [ "${st[1]}" = 0 ] && [ "$d" -le $MAXD ]; then ok "raw: decompress into a pipe $d KiB"
    else bad "raw: decompress into a pipe $d KiB, at most $MAXD" "exit ${st[*]}"; fi
    rm -f "$W/b.bin" "$W/b.trz"
else
    echo "note: no 24 MiB of this build to compress; the raw bounds skipped"
fi
bounds rst/qemu-sparc64-minigzip6-2M.rst.xz
bounds rst/blaze-32cpu-part1.rst.xz
bounds champsim/gzip6-5M.champsimtrace.xz
bounds byu/lackey-gzip6.byu.xz
bounds uop/qemu-x86-gzip6-1M.trace.xz
finish

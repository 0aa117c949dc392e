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

# both bounds at the default level on the file $W/r.trace, named NAME; a
# check of the archive's listing first when CHECK is given (a command
# that reads the listing on standard input)
file_bounds() { # NAME [CHECK WHAT]
    local name=$1 rc c d
    /usr/bin/time -o "$W/c.kib" -f %M "$TRZ" -q -T1 -c "$W/r.trace" > "$W/r.trz"
    rc=$?
    c=$(tail -1 "$W/c.kib")
    if [ $rc = 0 ] && [ "$c" -le $MAXC ]; then ok "$name: compress $c KiB"; else bad "$name: compress $c KiB, at most $MAXC" "exit $rc"; fi
    if [ $# -ge 3 ]; then
        "$TRZ" -l "$W/r.trz" | eval "$2" && ok "$name: $3" || bad "$name: not $3" "$("$TRZ" -l "$W/r.trz" | sed -n 2p)"
    fi
    /usr/bin/time -o "$W/d.kib" -f %M "$TRZ" -T1 -dc "$W/r.trz" | cmp -s - "$W/r.trace"
    st=("${PIPESTATUS[@]}")
    d=$(tail -1 "$W/d.kib")
    if [ "${st[0]}" = 0 ] && [ "${st[1]}" = 0 ] && [ "$d" -le $MAXD ]; then ok "$name: decompress into a pipe $d KiB"
    else bad "$name: decompress into a pipe $d KiB, at most $MAXD" "exit ${st[*]}"; fi
    rm -f "$W/r.trace" "$W/r.trz"
}
# trace (.xz in the shared corpus)
bounds() {
    local src=$SHARED/$1
    [ -s "$src" ] || { echo "note: $src not present; skipped"; return; }
    xz -dc "$src" > "$W/r.trace" || { bad "$1: unpack" "xz failed"; return; }
    file_bounds "$1"
}
# a file no codec knows (the raw codec, LZMA2 at the default level): this
# build's own executable and library, 24 MiB, three chunks of 8 MiB
cat "$TRZ" "$ROOT/libtrz.a" "$TRZ" "$ROOT/libtrz.a" | head -c 25165824 > "$W/r.trace"
if [ "$(stat -c %s "$W/r.trace")" = 25165824 ]; then
    file_bounds raw "awk 'NR == 2 { exit !(\$1 == \"raw\" && \$3 == 3) }'" "three raw chunks of 8 MiB"
else
    echo "note: no 24 MiB of this build to compress; the raw bounds skipped"
fi
bounds rst/qemu-sparc64-minigzip6-2M.rst.xz
bounds rst/blaze-32cpu-part1.rst.xz
bounds champsim/gzip6-5M.champsimtrace.xz
bounds byu/lackey-gzip6.byu.xz
bounds uop/qemu-x86-gzip6-1M.trace.xz
finish

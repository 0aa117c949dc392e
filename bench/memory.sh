#!/usr/bin/env bash
# memory.sh - peak memory (maximum resident set, KiB, from /usr/bin/time)
# of `trz -T1 -c` and of `trz -T1 -dc` into a pipe (the reader then
# decodes one chunk ahead of its output thread: the bound counts it), per
# file and level, with the archive's size.  Prints a markdown table on
# stdout.  With --max-c and --max-d (KiB) a run above its bound is marked
# and the script exits 1: the project's bounds are 64 MB to decompress
# and 128 MB to compress at the default level (--max-d 62500 --max-c
# 125000, decimal MB).
#   bench/memory.sh [--levels "1 9 19"] [--max-c KIB] [--max-d KIB] FILE...
# FILE: a trace (.xz: unpacked once into TRZ_BENCH_DIR, /tmp/trz-memory).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRZ=${TRZ:-$ROOT/trz}
W=${TRZ_BENCH_DIR:-/tmp/trz-memory}
LEVELS="9"
MAXC=0
MAXD=0
while [ $# -gt 0 ]; do
    case $1 in
    --levels) LEVELS=$2; shift 2 ;;
    --max-c) MAXC=$2; shift 2 ;;
    --max-d) MAXD=$2; shift 2 ;;
    -*) echo "memory.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
[ -x "$TRZ" ] || { echo "memory.sh: no $TRZ: run make first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "memory.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
mkdir -p "$W" || exit 1

# peak KiB of a command whose output goes to $OUT ("-": a pipe to cat)
peak() {
    local out=$1; shift
    local f="$W/time.$$"
    if [ "$out" = - ]; then
        /usr/bin/time -o "$f" -f %M "$@" | cat > /dev/null
    else
        /usr/bin/time -o "$f" -f %M "$@" > "$out"
    fi
    local rc=${PIPESTATUS[0]}
    [ "$rc" = 0 ] || { echo "memory.sh: failed ($rc): $*" >&2; rm -f "$f"; return 1; }
    tail -1 "$f"
    rm -f "$f"
}

fail=0
echo "| file | format | level | raw bytes | archive bytes | compress KiB | decompress KiB |"
echo "|---|---|---:|---:|---:|---:|---:|"
for src in "$@"; do
    [ -f "$src" ] || { echo "memory.sh: no file $src" >&2; fail=1; continue; }
    f=$src
    case $src in
    *.xz)
        f="$W/$(basename "${src%.xz}")"
        [ -s "$f" ] && [ "$f" -nt "$src" ] || xz -dc "$src" > "$f" || { fail=1; continue; }
        ;;
    esac
    for lv in $LEVELS; do
        a="$W/$(basename "$f").$lv.trz"
        c=$(peak "$a" "$TRZ" -q -T1 -"$lv" -c "$f") || { fail=1; continue; }
        d=$(peak - "$TRZ" -q -T1 -dc "$a") || { fail=1; continue; }
        fmt=$("$TRZ" -l "$a" | awk 'NR == 2 { print $1 }')
        mark=
        if [ "$MAXC" -gt 0 ] && [ "$c" -gt "$MAXC" ]; then mark=" (over $MAXC)"; fail=1; fi
        markd=
        if [ "$MAXD" -gt 0 ] && [ "$d" -gt "$MAXD" ]; then markd=" (over $MAXD)"; fail=1; fi
        echo "| $(basename "$src") | $fmt | $lv | $(stat -c %s "$f") | $(stat -c %s "$a") | $c$mark | $d$markd |"
        rm -f "$a"
    done
done
exit $fail

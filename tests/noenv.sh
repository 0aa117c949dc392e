#!/usr/bin/env bash
# noenv.sh - no environment variable changes what the library writes: every
# sample in corpus/ compressed at levels 1 and 9 with the names the codecs'
# tuning builds once read set, and unset; the archives must be identical.
#   tests/noenv.sh [path/to/trz]      (prints "N passed, M failed" last)
set -u
TRZ=${1:-./trz}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-noenv.XXXXXX")
trap 'rm -rf "$W"' EXIT
pass=0; fail=0
NAMES="ADDR_ANY=1 CS_BJ=1 CS_IPD=1 CS_FACTDBG=1 CS_DBG=5 DR_MISS=1 RST_PCSTATS=1 TRZ_LEVEL=19 ZSTD_CLEVEL=19 ZSTD_NBTHREADS=2"
for s in "$ROOT"/corpus/*; do
    case "$s" in *.md) continue ;; esac
    for l in 1 9; do
        env -u ZSTD_CLEVEL "$TRZ" -q -f -T1 -$l --chunk-size=64K -c "$s" > "$W/a" 2> /dev/null
        env $NAMES "$TRZ" -q -f -T1 -$l --chunk-size=64K -c "$s" > "$W/b" 2> "$W/err"
        if cmp -s "$W/a" "$W/b" && [ ! -s "$W/err" ]; then pass=$((pass + 1))
        else fail=$((fail + 1)); echo "FAIL $(basename "$s") -$l: the archive or stderr changes with the environment"; fi
    done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# check_sizes.sh - catch compression regressions: compress every sample in
# corpus/ at the default level and compare with tests/regression/sizes.csv.
# A file that grew by more than 0.5%, changed format, no longer round-trips,
# or is missing from the list fails; shrinking is fine (codecs improve).
# Also checks that `trz bench`, which measures these sizes for
# bench/RESULTS.md, verifies its round trips: it must catch a broken one.
#   tests/regression/check_sizes.sh            check (used by `make check`)
#   tests/regression/check_sizes.sh --update   rewrite sizes.csv
#   --csv FILE   compare with (or rewrite) FILE instead;  TRZ=path  other binary
set -u
cd "$(dirname "$0")/../.." || exit 1
TRZ=${TRZ:-./trz}
csv=tests/regression/sizes.csv
update=0
while [ $# -gt 0 ]; do
    case $1 in
        --update) update=1 ;;
        --csv) csv=$2; shift ;;
        *) echo "usage: $0 [--update] [--csv FILE]" >&2; exit 2 ;;
    esac
    shift
done
[ -x "$TRZ" ] || { echo "check_sizes: $TRZ not built (run make)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d /tmp/trz-sizes.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The samples: every file in corpus/ but its README, in C order.
samples=()
for f in corpus/*; do
    case ${f##*/} in README*|*.md) continue ;; esac
    [ -f "$f" ] && samples+=("$f")
done

# measure FILE: prints "format raw_bytes trz_bytes", or fails when the
# archive does not decompress to the same bytes.
measure() {
    local f=$1 out="$tmp/out.trz"
    "$TRZ" -q -T1 -c "$f" > "$out" || return 1
    "$TRZ" -q -d -c "$out" | cmp -s - "$f" || return 1
    local fmt
    fmt=$("$TRZ" -l "$out" | awk 'NR == 2 { print $1 }')
    echo "$fmt $(stat -c %s "$f") $(stat -c %s "$out")"
}

if [ $update = 1 ]; then
    { echo "file,format,raw_bytes,trz_bytes"
      for f in "${samples[@]}"; do
          m=$(measure "$f") || { echo "check_sizes: $f: round trip failed" >&2; exit 1; }
          set -- $m
          echo "${f##*/},$1,$2,$3"
      done
    } > "$tmp/new.csv" || exit 1
    mv "$tmp/new.csv" "$csv" && echo "check_sizes: wrote $csv (${#samples[@]} files)"
    exit 0
fi

[ -f "$csv" ] || { echo "check_sizes: $csv missing (run with --update)"; echo "0 passed, 1 failed"; exit 1; }
pass=0; fail=0
declare -A old_fmt old_raw old_size
while IFS=, read -r name fmt raw size; do
    [ "$name" = file ] && continue
    old_fmt[$name]=$fmt; old_raw[$name]=$raw; old_size[$name]=$size
done < "$csv"

printf '%-24s %-6s %12s %10s %10s %8s  %s\n' file format raw_bytes old new change result
for f in "${samples[@]}"; do
    name=${f##*/}
    if [ -z "${old_size[$name]+set}" ]; then
        echo "FAIL $name: not in $csv (new sample? run with --update)"; fail=$((fail + 1)); continue
    fi
    if ! m=$(measure "$f"); then
        echo "FAIL $name: compress or round trip failed"; fail=$((fail + 1)); continue
    fi
    set -- $m
    fmt=$1 raw=$2 new=$3 old=${old_size[$name]}
    verdict=$(awk -v o="$old" -v n="$new" 'BEGIN { printf "%+.2f%% %s", 100 * (n - o) / o, (n > o * 1.005) ? "FAIL" : "ok" }')
    result=${verdict#* } change=${verdict% *}
    if [ "$fmt" != "${old_fmt[$name]}" ]; then result=FAIL; change="format ${old_fmt[$name]} -> $fmt"; fi
    if [ "$raw" != "${old_raw[$name]}" ]; then result=FAIL; change="sample changed (raw ${old_raw[$name]} -> $raw; --update)"; fi
    printf '%-24s %-6s %12s %10s %10s %8s  %s\n' "$name" "$fmt" "$raw" "$old" "$new" "$change" "$result"
    if [ "$result" = ok ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    unset "old_size[$name]"
done
for name in "${!old_size[@]}"; do
    echo "FAIL $name: listed in $csv but not in corpus/"; fail=$((fail + 1))
done

# trz bench: a good run passes and reports the same size as above...
check() { if [ "$1" = 0 ]; then pass=$((pass + 1)); echo "ok $2"; else fail=$((fail + 1)); echo "FAIL $2"; fi; }
f=${samples[0]}
"$TRZ" bench --only-trz --levels 9 --threads 1 --runs 1 --csv "$tmp/b.csv" "$f" > "$tmp/b.md" 2>&1
rc=$?
want=$("$TRZ" -q -T1 -c "$f" | wc -c)
got=$(awk -F, 'NR == 2 && $NF == "ok" { print $10 }' "$tmp/b.csv" 2> /dev/null)
check $((rc != 0 || got != want)) "bench: ${f##*/}: exit $rc, size ${got:-none} (trz -c: $want), round trip ok"
# ...and a compressor whose decompression loses a byte makes it fail loudly.
mkdir -p "$tmp/path"
printf '#!/bin/sh\ncase " $* " in *" -d "*) %s "$@" | head -c -1 ;; *) exec %s "$@" ;; esac\n' \
    "$(command -v gzip)" "$(command -v gzip)" > "$tmp/path/gzip"
chmod +x "$tmp/path/gzip"
PATH="$tmp/path:$PATH" "$TRZ" bench --quick --levels 1 --threads 1 "$f" > "$tmp/b.md" 2> "$tmp/b.err"
rc=$?
grep -q 'gzip -9 .*FAILED: round trip differs' "$tmp/b.md" && grep -q 'round trip differs' "$tmp/b.err"
caught=$?
check $((rc != 1 || caught != 0)) "bench: a broken round trip (gzip losing a byte) is marked FAILED, exit $rc"
echo "(a file fails when it grows by more than 0.5%; after an intended change run $0 --update)"
echo "$pass passed, $fail failed"
[ $fail = 0 ]

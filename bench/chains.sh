#!/usr/bin/env bash
# chains.sh - what a group's length buys and costs (src/format/FORMAT.md,
# "Chains"): for each trace and each group length (--restart), the archive's
# size, compress and decompress CPU seconds and peak memory, and the wall
# time of a seek to the worst place: 1,000 records from the start of the
# last chunk of the group that holds the middle of the trace (a seek decodes
# the group's chunks before it), the median of N runs.  --no-chain (each
# chunk from its group's knowledge) is the first row.  Prints a markdown
# table.
#   bench/chains.sh [--trz PATH] [--level L] [--lengths "16M 64M 256M"] [--runs N] TRACE...
set -eu
TRZ=./trz; level=9; lengths="16M 32M 64M 128M 256M"; runs=5
while [ $# -gt 0 ]; do
    case $1 in
        --trz) TRZ=$2; shift 2 ;;
        --level) level=$2; shift 2 ;;
        --lengths) lengths=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        -*) echo "usage: $0 [--trz PATH] [--level L] [--lengths \"16M 64M\"] [--runs N] TRACE..." >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "$0: no trace given" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-chains.XXXXXX")
trap 'rm -rf "$W"' EXIT

# "user+sys seconds, peak RSS MiB" of a command
measure() {
    /usr/bin/time -f "%U %S %M" -o "$W/t" "$@" > /dev/null
    awk '{ printf "%.2f %.0f", $1 + $2, $3 / 1024 }' "$W/t"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ms() { local a b; a=$(date +%s%N); "$@" > /dev/null; b=$(date +%s%N); echo $(( (b - a) / 1000000 )); }

echo "| trace | -$level, group | archive bytes | compress CPU s | peak MiB | decompress CPU s | peak MiB | seek ms (worst place) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for f in "$@"; do
    b=$(basename "$f")
    for g in nochain $lengths; do
        opt=(--restart "$g"); [ "$g" = nochain ] && opt=(--no-chain)
        c=$(measure "$TRZ" -q -f -T1 -$level "${opt[@]}" -c "$f")
        "$TRZ" -q -f -T1 -$level "${opt[@]}" -c "$f" > "$W/a.trz"
        size=$(stat -c %s "$W/a.trz")
        d=$(measure "$TRZ" -q -T1 -dc "$W/a.trz")
        # the chunk table: the last chunk of the middle chunk's group
        "$TRZ" -l -v "$W/a.trz" | awk 'NF == 8 && $1 ~ /^[0-9]+$/ { print $1, $2 }' > "$W/chunks"
        n=$(wc -l < "$W/chunks")
        per=1
        if [ "$g" != nochain ]; then # chunks of 16 MiB (less a partial record) per group
            v=${g%[KkMm]}; case $g in *[Mm]) v=$((v * 1048576)) ;; *[Kk]) v=$((v * 1024)) ;; esac
            per=$((v / 16777216)); [ $per -ge 1 ] || per=1
        fi
        mid=$((n / 2)); last=$((mid - mid % per + per - 1)); [ $last -ge $n ] && last=$((n - 1))
        rec=$(awk -v k=$last '$1 == k { print $2 }' "$W/chunks")
        s=$(for i in $(seq "$runs"); do ms "$TRZ" -q -dc --from=$((rec + 17)) --count=1000 "$W/a.trz"; done | median)
        label=$g; [ "$g" = nochain ] && label="--no-chain"
        read cc cm <<< "$c"; read dc dm <<< "$d"
        echo "| $b | $label | $size | $cc | $cm | $dc | $dm | $s |"
    done
done

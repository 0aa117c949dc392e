#!/usr/bin/env bash
# chains_scale.sh - chains on large traces (src/format/FORMAT.md, "Chains"):
# for each trace, at the default level and at -19, the archive's size;
# compress and decompress wall time with one thread and two (the archive
# must be the same for both); peak memory; and a seek: 1,000 records from
# the middle of the trace, the median of N runs, wall time of the whole
# process.  Prints a markdown table.
#   bench/chains_scale.sh [--trz PATH] [--runs N] [--levels "9 19"] TRACE...
# A trace may be given as LIST=NAME: the files of LIST (comma-separated)
# concatenated into a temporary file called NAME.
set -eu
TRZ=./trz; runs=11; levels="9 19"
while [ $# -gt 0 ]; do
    case $1 in
        --trz) TRZ=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --levels) levels=$2; shift 2 ;;
        -*) echo "usage: $0 [--trz PATH] [--runs N] [--levels \"9 19\"] TRACE..." >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "$0: no trace given" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-scale.XXXXXX")
trap 'rm -rf "$W"' EXIT

# "wall-seconds peak-MiB" of a command, its output discarded
measure() {
    /usr/bin/time -f "%e %M" -o "$W/t" "$@" > /dev/null
    awk '{ printf "%.2f %.0f", $1, $2 / 1024 }' "$W/t"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ms() { local a b; a=$(date +%s%N); "$@" > /dev/null; b=$(date +%s%N); echo $(( (b - a) / 1000000 )); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo "| trace | MB | level | archive bytes | groups | compress s, 1 thread | 2 threads | gain | same archive | peak MiB | decompress s, 1 thread | 2 threads | gain | peak MiB, 1 thread | 2 threads | seek ms (median of $runs) |"
echo "|---|---:|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for arg in "$@"; do
    case $arg in
        *=*) name=${arg#*=}; f=$W/$name; IFS=, read -r -a parts <<< "${arg%%=*}"; cat "${parts[@]}" > "$f" ;;
        *) name=$(basename "$arg"); f=$arg ;;
    esac
    mb=$(( $(stat -c %s "$f") / 1000000 ))
    for l in $levels; do
        read -r c1 cm <<< "$(measure "$TRZ" -q -f -T1 -$l -c "$f")"
        "$TRZ" -q -f -T1 -$l -c "$f" > "$W/a1.trz"
        read -r c2 _ <<< "$(measure "$TRZ" -q -f -T2 -$l -c "$f")"
        "$TRZ" -q -f -T2 -$l -c "$f" > "$W/a2.trz"
        same=no; cmp -s "$W/a1.trz" "$W/a2.trz" && same=yes
        read -r d1 dm <<< "$(measure "$TRZ" -q -T1 -dc "$W/a1.trz")"
        read -r d2 dm2 <<< "$(measure "$TRZ" -q -T2 -dc "$W/a1.trz")"
        groups=$("$TRZ" -l "$W/a1.trz" | sed -n 's/^ *groups: \([0-9]*\), \([0-9]*\) of them chains.*/\1 (\2 chains)/p')
        recs=$("$TRZ" -l "$W/a1.trz" | awk 'NR == 2 { print $4 }')
        mid=$((recs / 2))
        s=$(for i in $(seq "$runs"); do ms "$TRZ" -q -dc --from=$mid --count=1000 "$W/a1.trz"; done | median)
        echo "| $name | $mb | -$l | $(stat -c %s "$W/a1.trz") | ${groups:-1} | $c1 | $c2 | $(ratio "$c1" "$c2") | $same | $cm | $d1 | $d2 | $(ratio "$d1" "$d2") | $dm | $dm2 | $s |"
    done
    case $arg in *=*) rm -f "$f" ;; esac
done

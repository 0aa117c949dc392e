#!/usr/bin/env bash
# group_lengths.sh - what a group's length buys (issue: groups chosen by
# measuring): for one trace and several lengths (--restart), the archive's
# size, the worst-place seek (1,000 records from the first record of the
# chunk that ends the longest group, as `trz -l` names it: a seek decodes
# every chunk of the group before it; wall time of the whole process,
# median of N runs, warm page cache), what a flipped byte in the middle of a group's first chunk
# costs --salvage (with the default parity, and without), and the peak
# memory of a decode into a pipe.  Prints a Markdown table.
#   bench/group_lengths.sh [--trz PATH] [--runs N] [--level L] TRACE LENGTH...
# LENGTH as --restart takes it (64M, 1G); "default" for the codec's own.
set -eu
TRZ=$PWD/trz; runs=11; level=9
while [ $# -gt 0 ]; do
    case $1 in
        --trz) TRZ=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --level) level=$2; shift 2 ;;
        -*) echo "usage: $0 [--trz PATH] [--runs N] [--level L] TRACE LENGTH..." >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--trz PATH] [--runs N] [--level L] TRACE LENGTH..." >&2; exit 2; }
t=$1; shift
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-groups.XXXXXX")
trap 'rm -rf "$W"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ms() { local a b; a=$(date +%s%N); "$@" > /dev/null 2>&1; b=$(date +%s%N); echo $(( (b - a) / 1000000 )); }
size=$(stat -c %s "$t")
name=$(basename "$t")

echo "| trace | level | group length | archive bytes | groups | worst-place seek ms (median of $runs) | flip in a group's first chunk: lost, parity | without parity | decode peak MiB |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|"
for len in "$@"; do
    opt=; [ "$len" = default ] || opt="--restart=$len"
    "$TRZ" -q -f -T1 -$level -c $opt "$t" > "$W/a.trz"
    "$TRZ" -q -f -T1 -$level -c $opt --no-parity "$t" > "$W/n.trz"
    "$TRZ" -l -v "$W/a.trz" > "$W/list"
    groups=$(sed -n 's/.*groups: \([0-9]*\).*/\1/p' "$W/list"); groups=${groups:-1}
    # the worst place: the last chunk of the longest chain, which the
    # listing names (a seek there decodes every chunk of the chain before it)
    read -r per from < <(sed -n 's/.*the longest: \([0-9]*\) chunks from chunk \([0-9]*\),.*/\1 \2/p' "$W/list") || true
    last=$(( ${from:-0} + ${per:-1} - 1 ))
    first=$(awk -v n=$last 'NF == 8 && $1 == n { print $2 }' "$W/list")
    "$TRZ" -dc --from="$first" --count=1000 "$W/a.trz" > /dev/null   # warm the page cache
    seek=$(for i in $(seq "$runs"); do ms "$TRZ" -dc --from="$first" --count=1000 "$W/a.trz"; done | median)
    # a flip in the middle of the first group's first chunk
    lost=()
    for a in a n; do
        "$TRZ" -l -v "$W/$a.trz" > "$W/l2"
        read -r off stored < <(awk 'NF == 8 && $1 == 0 { print $5, $6 }' "$W/l2")
        cp "$W/$a.trz" "$W/d.trz"
        at=$((off + stored / 2))
        printf "\\$(printf %o $(( ($(od -An -tu1 -j$at -N1 "$W/d.trz") ^ 0x40) )))" |
            dd of="$W/d.trz" bs=1 seek=$at conv=notrunc status=none
        got=$("$TRZ" -dc --salvage "$W/d.trz" 2> /dev/null | wc -c)
        lost+=("$(awk -v l=$((size - got)) 'BEGIN { printf "%.1f MiB", l / 1048576 }')")
    done
    peak=$( { /usr/bin/time -f "%M" "$TRZ" -dc -T1 "$W/a.trz" | cat > /dev/null; } 2>&1 | tail -1)
    printf "| %s | -%s | %s | %s | %s | %s | %s | %s | %s |\n" "$name" "$level" "$len" \
        "$(stat -c %s "$W/a.trz")" "$groups" "$seek" "${lost[0]}" "${lost[1]}" "$((peak / 1024))"
done

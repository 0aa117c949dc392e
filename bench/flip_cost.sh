#!/usr/bin/env bash
# flip_cost.sh - what one flipped byte costs: for each trace, the archive at
# the default level (chains where the codec has them, parity), without
# parity (--no-parity) and with --no-chain --no-parity;
# one byte flipped in the middle of a chunk's stored data, at several chunks
# spread over the archive, each time alone; `trz -dc --salvage` then gives
# back the rest, and the records lost are the trace's size less that.
# Prints a Markdown table: records lost per flip (mean and worst), in MiB of
# raw trace and as a share of the trace.
#   bench/flip_cost.sh [TRACE...]   (default: the shared corpus, when present)
set -u
cd "$(dirname "$0")/.." || exit 1
TRZ=$PWD/trz
SHARED=${TRZ_SHARED_CORPUS:-../shared/corpus}
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-flip.XXXXXX")
trap 'rm -rf "$W"' EXIT
FLIPS=${FLIPS:-5}

traces=("$@")
if [ ${#traces[@]} = 0 ]; then
    for f in rst/qemu-sparc64-minigzip6-2M.rst.xz champsim/cc1-5M.champsimtrace.xz uop/qemu-x86-gzip6-1M.trace.xz \
             byu/lackey-gzip6.byu.xz pbus/sdsu-part1.pbus drmemtrace/drmemtrace.core.000000.trace.zip; do
        [ -f "$SHARED/$f" ] && traces+=("$SHARED/$f")
    done
fi

echo "| trace | format | raw MiB | chunks | mode | groups | lost per flip, mean | worst | mean share |"
echo "|---|---|---:|---:|---|---:|---:|---:|---:|"
for t in "${traces[@]}"; do
    name=$(basename "$t"); name=${name%.xz}
    case $t in *.xz) xz -dc "$t" > "$W/src" ;; *.zip) "$TRZ" -q -c "$t" | "$TRZ" -dc > "$W/src" ;; *) cp "$t" "$W/src" ;; esac
    size=$(stat -c %s "$W/src")
    for mode in default no-parity no-chain; do
        opt=; [ $mode = no-parity ] && opt=--no-parity; [ $mode = no-chain ] && opt="--no-chain --no-parity"
        "$TRZ" -q -f -c $opt "$W/src" > "$W/a.trz" || continue
        fmt=$("$TRZ" -l "$W/a.trz" | awk 'NR == 2 {print $1}')
        "$TRZ" -l -v "$W/a.trz" > "$W/list"
        nc=$(awk 'NF == 8 && $1 ~ /^[0-9]+$/' "$W/list" | wc -l)
        groups=$(sed -n 's/.*groups: \([0-9]*\).*/\1/p' "$W/list"); groups=${groups:-$nc}
        sum=0 worst=0 k=0
        for i in $(seq 0 $((FLIPS - 1))); do
            c=$(( nc * (2 * i + 1) / (2 * FLIPS) ))
            read -r off stored < <(awk -v n=$c 'NF == 8 && $1 == n {print $5, $6}' "$W/list")
            [ -n "$off" ] || continue
            cp "$W/a.trz" "$W/d.trz"
            at=$((off + stored / 2))
            printf "\\$(printf %o $(( ($(od -An -tu1 -j$at -N1 "$W/d.trz") ^ 0x40) )))" |
                dd of="$W/d.trz" bs=1 seek=$at conv=notrunc status=none
            got=$("$TRZ" -dc --salvage "$W/d.trz" 2> /dev/null | wc -c)
            lost=$((size - got))
            sum=$((sum + lost)); k=$((k + 1))
            [ $lost -gt $worst ] && worst=$lost
        done
        [ $k -gt 0 ] || continue
        awk -v n="$name" -v f="$fmt" -v s="$size" -v nc="$nc" -v m="$mode" -v g="$groups" -v sum="$sum" -v k="$k" -v w="$worst" \
            'BEGIN { printf "| %s | %s | %.1f | %d | %s | %d | %.1f MiB | %.1f MiB | %.1f%% |\n", n, f, s / 1048576, nc, m, g,
                     sum / k / 1048576, w / 1048576, 100 * sum / k / s }'
    done
done

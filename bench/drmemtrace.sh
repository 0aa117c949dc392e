#!/usr/bin/env bash
# drmemtrace against the files users have and the general compressors:
# bytes per instruction of each .trace.zip, of xz -9 / zstd -19 / zstd -3 of
# its records, of trz's archive of the zip (restores the zip byte for byte)
# and of trz's archive of the bare records; then speed and peak memory of
# trz on all records concatenated REPEAT times (one thread, CPU time).
# Then traces recorded elsewhere (DynamoRIO's output directories, or trace
# files of any container and version), each on its own: bytes against
# xz -9, zstd -19 and zstd -3 of its records, and trz's speed and memory.
#   bench/drmemtrace.sh [DIR] [REPEAT] [TRACE...]   (DIR: ../shared/corpus/drmemtrace)
# A TRACE that is a directory stands for its thread files (under trace/,
# or trace/window.*), their records concatenated.
# Prints a Markdown section on stdout; scratch files go to a temporary
# directory that is removed at exit.
set -eu
cd "$(dirname "$0")/.."
DIR=${1:-../shared/corpus/drmemtrace}
REPEAT=${2:-7}
shift $(($# < 2 ? $# : 2))
TRZ=$PWD/trz
[ -x "$TRZ" ] || { echo "drmemtrace.sh: build ./trz first (make)" >&2; exit 1; }
ls "$DIR"/*.trace.zip > /dev/null 2>&1 || { echo "drmemtrace.sh: no .trace.zip in $DIR" >&2; exit 1; }
for t in xz zstd unzip python3 /usr/bin/time; do
    command -v "$t" > /dev/null || { echo "drmemtrace.sh: needs $t" >&2; exit 1; }
done
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

sz() { stat -c %s "$1"; }
# instruction records (the types that execute an instruction: 10-16, 29, 31, 48, 49)
instrs() {
    python3 - "$1" <<'EOF'
import sys, struct
d = open(sys.argv[1], 'rb').read()
kinds = set(range(10, 17)) | {29, 31, 48, 49}
print(sum(1 for (t,) in struct.iter_unpack('<H10x', d[:len(d) - len(d) % 12]) if t in kinds))
EOF
}
bpi() { awk -v b="$1" -v n="$2" 'BEGIN { printf "%.3f", b / n }'; }
cpu() { # OUT CMD...: user+sys seconds of CMD into $W/cpu, peak KB into $W/rss
    /usr/bin/time -f '%U %S %M' -o "$W/t" "$@"
    awk '{ printf "%.2f\n", $1 + $2 }' "$W/t" > "$W/cpu"; awk '{ print $3 }' "$W/t" > "$W/rss"
}

echo "## DynamoRIO drmemtrace (bench/drmemtrace.sh, $(date -u +%Y-%m-%d))"
echo
echo "Bytes per instruction; the records are the zip members concatenated."
echo "trz (zip) is \`trz X.trace.zip\` (gives the zip back byte for byte);"
echo "trz (records) is \`trz --format=drmemtrace\` of the bare records. Default level, one thread."
echo
echo "| trace | instructions | original zip | xz -9 | zstd -19 | zstd -3 | trz (zip) | trz (records) | trz / xz -9 | zip / trz (zip) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
T_ZIP=0 T_XZ=0 T_TRZZ=0 T_TRZR=0 T_I=0 T_Z19=0 T_Z3=0
: > "$W/all"
for z in "$DIR"/*.trace.zip; do
    n=$(basename "$z" .trace.zip); n=${n#drmemtrace.}
    unzip -p "$z" > "$W/rec"; cat "$W/rec" >> "$W/all"
    i=$(instrs "$W/rec")
    zip_b=$(sz "$z")
    xz_b=$(xz -9 -T1 -c "$W/rec" | wc -c)
    z19=$(zstd -19 -T1 -q -c "$W/rec" | wc -c)
    z3=$(zstd -3 -T1 -q -c "$W/rec" | wc -c)
    rm -f "$W/f.trace.zip"; cp "$z" "$W/f.trace.zip"; "$TRZ" -q -f -T1 "$W/f.trace.zip"
    "$TRZ" -q -d -f -o "$W/back.zip" "$W/f.trace.zip.trz"   # -d restores the zip; -dc writes its records
    cmp -s "$W/back.zip" "$z" || { echo "drmemtrace.sh: $n: the zip did not come back" >&2; exit 1; }
    tz=$(sz "$W/f.trace.zip.trz")
    tr=$("$TRZ" -q -T1 -c --format=drmemtrace "$W/rec" | tee "$W/r.trz" | wc -c)
    "$TRZ" -dc "$W/r.trz" | cmp -s - "$W/rec" || { echo "drmemtrace.sh: $n: the records did not come back" >&2; exit 1; }
    echo "| $n | $i | $(bpi "$zip_b" "$i") | $(bpi "$xz_b" "$i") | $(bpi "$z19" "$i") | $(bpi "$z3" "$i") | $(bpi "$tz" "$i") | $(bpi "$tr" "$i") | $(awk -v a="$tr" -v b="$xz_b" 'BEGIN{printf "%.2f", a/b}') | $(awk -v a="$zip_b" -v b="$tz" 'BEGIN{printf "%.1f", a/b}') |"
    T_ZIP=$((T_ZIP + zip_b)); T_XZ=$((T_XZ + xz_b)); T_TRZZ=$((T_TRZZ + tz)); T_TRZR=$((T_TRZR + tr)); T_I=$((T_I + i))
    T_Z19=$((T_Z19 + z19)); T_Z3=$((T_Z3 + z3))
done
echo "| **all** | $T_I | $(bpi $T_ZIP $T_I) | $(bpi $T_XZ $T_I) | $(bpi $T_Z19 $T_I) | $(bpi $T_Z3 $T_I) | $(bpi $T_TRZZ $T_I) | $(bpi $T_TRZR $T_I) | $(awk -v a=$T_TRZR -v b=$T_XZ 'BEGIN{printf "%.2f", a/b}') | $(awk -v a=$T_ZIP -v b=$T_TRZZ 'BEGIN{printf "%.1f", a/b}') |"
echo
echo "In bytes: original zips $T_ZIP, xz -9 $T_XZ, zstd -19 $T_Z19, zstd -3 $T_Z3, trz (zip) $T_TRZZ, trz (records) $T_TRZR."
echo

for _ in $(seq "$REPEAT"); do cat "$W/all"; done > "$W/big"
mb=$(awk -v b="$(sz "$W/big")" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "Speed: the records of all traces concatenated $REPEAT times ($mb MB), one thread,"
echo "CPU time (user + system), peak RSS; each tool decodes its own output."
echo
echo "| tool | compress s | MB/s | decompress s | MB/s | peak RSS compress / decompress |"
echo "|---|---:|---:|---:|---:|---:|"
row() { # NAME EXT COMPRESS-CMD DECOMPRESS-CMD (both read $W/big or $W/big.EXT via sh -c)
    cpu sh -c "$3"; c=$(cat "$W/cpu"); rc=$(cat "$W/rss")
    cpu sh -c "$4"; d=$(cat "$W/cpu"); rd=$(cat "$W/rss")
    echo "| $1 | $c | $(awk -v s="$c" -v m="$mb" 'BEGIN{printf "%.0f", m/(s>0?s:0.01)}') | $d | $(awk -v s="$d" -v m="$mb" 'BEGIN{printf "%.0f", m/(s>0?s:0.01)}') | $((rc / 1024)) / $((rd / 1024)) MB |"
}
row "trz (default)" trz "$TRZ -q -f -T1 -c --format=drmemtrace $W/big > $W/big.trz" "$TRZ -dc $W/big.trz > /dev/null"
row "xz -9" xz "xz -9 -T1 -c $W/big > $W/big.xz" "xz -dc $W/big.xz > /dev/null"
row "zstd -19" zst "zstd -19 -T1 -q -c $W/big > $W/big.zst" "zstd -dc $W/big.zst > /dev/null"
row "zstd -3" zst3 "zstd -3 -T1 -q -c $W/big > $W/big.zst3" "zstd -dc $W/big.zst3 > /dev/null"

[ $# -gt 0 ] || exit 0
echo
echo "### Traces recorded apart from the corpus"
echo
echo "Each on its own, the records of its thread files concatenated (trz reads"
echo "every container: zip, gzip, lz4, snappy, none). Bytes; trz at the default"
echo "level, one thread; speeds in MB/s of records, CPU time; peak RSS."
echo
echo "| trace | records MB | instructions | xz -9 | zstd -19 | zstd -3 | trz | trz / xz -9 | compress MB/s | decompress MB/s | peak RSS c / d |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for t in "$@"; do
    n=$(basename "$t"); n=${n%.dir}; n=${n#drmemtrace.}
    if [ -d "$t" ]; then
        files=$(find "$t" -path '*/trace/*' -name '*.trace*' ! -name '*.trz' | sort)
    else
        files=$t
    fi
    [ -n "$files" ] || { echo "drmemtrace.sh: no trace files in $t" >&2; continue; }
    : > "$W/rec"
    for f in $files; do "$TRZ" -q -f -T1 -c "$f" | "$TRZ" -dc >> "$W/rec"; done
    i=$(instrs "$W/rec")
    mbr=$(awk -v b="$(sz "$W/rec")" 'BEGIN { printf "%.1f", b / 1e6 }')
    xz_b=$(xz -9 -T1 -c "$W/rec" | wc -c)
    z19=$(zstd -19 -T1 -q -c "$W/rec" | wc -c)
    z3=$(zstd -3 -T1 -q -c "$W/rec" | wc -c)
    cpu sh -c "$TRZ -q -f -T1 -c --format=drmemtrace $W/rec > $W/r.trz"; c=$(cat "$W/cpu"); rc=$(cat "$W/rss")
    cpu sh -c "$TRZ -dc $W/r.trz > $W/back"; d=$(cat "$W/cpu"); rd=$(cat "$W/rss")
    cmp -s "$W/back" "$W/rec" || { echo "drmemtrace.sh: $n: the records did not come back" >&2; exit 1; }
    tr=$(sz "$W/r.trz")
    echo "| $n | $mbr | $i | $xz_b | $z19 | $z3 | $tr | $(awk -v a="$tr" -v b="$xz_b" 'BEGIN{printf "%.2f", a/b}') | $(awk -v s="$c" -v m="$mbr" 'BEGIN{printf "%.0f", m/(s>0?s:0.01)}') | $(awk -v s="$d" -v m="$mbr" 'BEGIN{printf "%.0f", m/(s>0?s:0.01)}') | $((rc / 1024)) / $((rd / 1024)) MB |"
    rm -f "$W/back" "$W/r.trz"
done

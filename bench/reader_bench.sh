#!/usr/bin/env bash
# reader_bench.sh - measure the read side: sequential decoding through the
# reader API (MB/s of raw records, one thread and two), the example analyzer
# fed by the API against the same analyzer behind `xz -dc |` and `trz -dc |`,
# and random access (open, seek, read 1,000 records) in a trace over 1 GB.
# Prints a markdown section on stdout, progress on stderr.  Uses the shared
# corpus when present (../shared/corpus, or TRZ_SHARED_CORPUS), else the
# samples in corpus/.  Scratch files (and the big trace's archive, which
# takes minutes to build once) live in TRZ_BENCH_DIR (/tmp/trz-reader-bench).
#   bench/reader_bench.sh [--quick]      (--quick: no 1 GB trace, fewer repeats)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRZ=$ROOT/trz
AN=$ROOT/build/analyzers
SHARED=${TRZ_SHARED_CORPUS:-$ROOT/../shared/corpus}
W=${TRZ_BENCH_DIR:-/tmp/trz-reader-bench}
QUICK=0; [ "${1:-}" = --quick ] && QUICK=1
REPS=5; [ $QUICK = 1 ] && REPS=3
mkdir -p "$W" || exit 1
for p in "$TRZ" "$AN/rst_stats" "$AN/read_speed" "$AN/seek_time"; do
    [ -x "$p" ] || { echo "reader_bench: missing $p: run make first" >&2; exit 1; }
done
log() { echo "reader_bench: $*" >&2; }

# raw NAME PATH.xz|PATH: a raw copy of a trace in $W (decompressed once)
raw() {
    local name=$1 src=$2
    if [ ! -s "$W/$name" ]; then
        log "unpacking $name"
        case $src in *.xz) xz -dc "$src" > "$W/$name.tmp" ;; *) cp "$src" "$W/$name.tmp" ;; esac && mv "$W/$name.tmp" "$W/$name"
    fi
    echo "$W/$name"
}

# arc RAWPATH: its archive with the default settings (built once)
arc() {
    # rebuilt when the trace or trz is newer: an archive from an older build
    # may not be what this library reads
    if [ ! -s "$1.trz" ] || [ "$1" -nt "$1.trz" ] || [ "$TRZ" -nt "$1.trz" ]; then
        log "compressing $(basename "$1")"
        "$TRZ" -c -T2 < "$1" > "$1.trz.tmp" && mv "$1.trz.tmp" "$1.trz"
    fi
    echo "$1.trz"
}

kv() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; } # a key's value in read_speed/seek_time output

# ---- the traces: one per format, the largest available ----
declare -a FILES=()
if [ -d "$SHARED" ]; then
    FILES+=("$(raw blaze-32cpu-part1.rst "$SHARED/rst/blaze-32cpu-part1.rst.xz")")
    FILES+=("$(raw qemu-sparc64-minigzip6-2M.rst "$SHARED/rst/qemu-sparc64-minigzip6-2M.rst.xz")")
    FILES+=("$(raw lackey-gzip6.byu "$SHARED/byu/lackey-gzip6.byu.xz")")
    FILES+=("$(raw sdsu-part1.pbus "$SHARED/pbus/sdsu-part1.pbus")")
    FILES+=("$(raw qemu-x86-gzip6-1M.trace "$SHARED/uop/qemu-x86-gzip6-1M.trace.xz")")
    RST_RAW=${FILES[0]}
    RST_XZ=$SHARED/rst/blaze-32cpu-part1.rst.xz
    SOURCE="the shared corpus"
else
    for f in loops-4cpu.rst bus-2cpu.byu bus-1cpu.pbus sjeng-like.trace; do FILES+=("$(raw "$f" "$ROOT/corpus/$f")"); done
    RST_RAW=${FILES[0]}
    RST_XZ=$W/loops-4cpu.rst.xz
    [ -s "$RST_XZ" ] || xz -9 -c "$RST_RAW" > "$RST_XZ"
    SOURCE="the samples in corpus/ (no shared corpus here)"
fi

echo "## Reading through the API"
echo
echo "Machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); load average at start: $(cut -d' ' -f1-3 /proc/loadavg). Traces from $SOURCE."
echo "Wall-clock numbers are medians of $REPS runs; \"CPU\" divides by the process's CPU time instead, which a busy machine distorts less."
if command -v hyperfine > /dev/null && command -v python3 > /dev/null; then
    echo "The end-to-end commands are timed by hyperfine: 3 warm-up runs, then $((REPS * 4)) runs, median wall clock, mean CPU (user + system of every process), shell start-up subtracted."
fi
echo

# ---- 1. sequential decoding ----
echo "### Sequential decoding (read_speed: trz_read into a 16 MiB buffer; trz_read_bytes for text)"
echo
echo "| trace | format | raw MB | chunks | 1 thread MB/s (wall) | 1 thread MB/s (CPU) | 2 threads MB/s (wall) |"
echo "|---|---|---:|---:|---:|---:|---:|"
for f in "${FILES[@]}"; do
    a=$(arc "$f")
    log "read_speed $(basename "$a")"
    o1=$("$AN/read_speed" -r "$REPS" "$a") || { echo "| $(basename "$f") | failed | | | | | |"; continue; }
    o2=$("$AN/read_speed" -r "$REPS" -T 2 "$a")
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$(basename "$f")" "$(echo "$o1" | kv format)" \
        "$(awk -v b="$(echo "$o1" | kv bytes)" 'BEGIN { printf "%.1f", b / 1e6 }')" "$(echo "$o1" | kv chunks)" \
        "$(echo "$o1" | kv median_MBps)" "$(echo "$o1" | kv cpu_MBps)" "$(echo "$o2" | kv median_MBps)"
done
echo
echo "Target: >= 500 MB/s of raw records on one thread."
echo

# ---- 2. an analyzer behind the API vs behind a pipe ----
# timed OUT command: run REPS times, print "wall cpu" (medians, s), or
# "failed failed" when a run fails
# With hyperfine (Debian's package): 3 warm-up runs, then 4 x REPS timed
# runs, its shell start-up subtracted; else REPS runs under bash's time.
timed() {
    local out=$1; shift
    local i t all=()
    if command -v hyperfine > /dev/null && command -v python3 > /dev/null; then
        bash -o pipefail -c "$*" > "$out" 2> "$out.err" || { log "failed: $* ($(head -c 200 "$out.err"))"; echo "failed failed"; return; }
        hyperfine -S bash -w 3 -r $((REPS * 4)) --export-json "$out.json" -- "set -o pipefail; $*" > /dev/null 2>&1 ||
            { log "hyperfine failed: $*"; echo "failed failed"; return; }
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.3f %.3f" % (r["median"], r["user"] + r["system"]))' "$out.json"
        return
    fi
    for ((i = 0; i < REPS; i++)); do
        t=$( { TIMEFORMAT='%R %U %S'; time bash -o pipefail -c "$*" > "$out" 2> "$out.err" || echo FAILED; } 2>&1 | tail -1)
        case $t in *FAILED*) log "failed: $* ($(head -c 200 "$out.err"))"; echo "failed failed"; return ;; esac
        all+=("$(echo "$t" | awk '{ printf "%.3f %.3f", $1, $2 + $3 }')")
    done
    printf '%s\n' "${all[@]}" | sort -n | awk -v n="$REPS" 'NR == int(n / 2) + 1'
}

RST_TRZ=$(arc "$RST_RAW")
log "rst_stats end to end on $(basename "$RST_RAW")"
declare -A WALL CPU
run_case() { # KEY command
    local r; r=$(timed "$W/e2e.$1" "$2"); WALL[$1]=${r% *}; CPU[$1]=${r#* }
}
run_case api "'$AN/rst_stats' '$RST_TRZ'"
run_case api2 "'$AN/rst_stats' -T 2 '$RST_TRZ'"
run_case apiR "'$AN/rst_stats' -R '$RST_TRZ'"
run_case xz "xz -dc '$RST_XZ' | '$AN/rst_stats' -"
run_case trzpipe "'$TRZ' -dc '$RST_TRZ' | '$AN/rst_stats' -"
run_case rawfile "'$AN/rst_stats' '$RST_RAW'"
same=yes
for k in api2 apiR xz trzpipe rawfile; do cmp -s "$W/e2e.api" "$W/e2e.$k" || same=no; done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a + 0 > 0) printf "%.1fx", a / b; else printf "-" }'; }
row() { printf '| %s | %s | %s | %s | %s |\n' "$1" "${WALL[$2]}" "${CPU[$2]}" "$(ratio "${WALL[xz]}" "${WALL[$2]}")" "$(ratio "${CPU[xz]}" "${CPU[$2]}")"; }
echo "### rst_stats end to end on $(basename "$RST_RAW") ($(($(wc -c < "$RST_RAW") / 24)) records)"
echo
echo "| input path | wall s | CPU s (all processes) | speed-up over the xz -dc pipe (wall) | (CPU) |"
echo "|---|---:|---:|---:|---:|"
row "\`rst_stats FILE.trz\` (trz_foreach, 1 thread)" api
row "\`rst_stats -T 2 FILE.trz\` (decode-ahead)" api2
row "\`rst_stats -R FILE.trz\` (trz_read, 8 MiB batches)" apiR
row "\`xz -dc FILE.xz \| rst_stats -\`" xz
row "\`trz -dc FILE.trz \| rst_stats -\`" trzpipe
row "\`rst_stats FILE.rst\` (raw file, no decompression)" rawfile
echo
echo "Reports byte-identical on every path: $same.  Target: the API path >= 5x faster than \`xz -dc |\`."
echo

# ---- 3. random access in a trace over 1 GB ----
if [ $QUICK = 1 ]; then echo "(random access in a 1 GB trace: skipped with --quick)"; exit 0; fi
declare -a PARTS=()
if [ -d "$SHARED" ]; then
    for n in blaze-32cpu-part1.rst qemu-sparc64-minigzip6-2M.rst qemu-sparc64-pigz-4thr-2M.rst sun-example-23847-1cpu.rst; do
        PARTS+=("$(raw "$n" "$SHARED/rst/$n.xz")")
    done
else
    PARTS=("$RST_RAW")
fi
part_bytes=0; for p in "${PARTS[@]}"; do part_bytes=$((part_bytes + $(wc -c < "$p"))); done
COPIES=$(( (1100000000 + part_bytes - 1) / part_bytes ))

# big CHUNK_SIZE: the big trace's archive with that chunk size (built once);
# the raw trace is only ever a pipe, never a file
big() {
    local out=$W/big-rst-$1.trz t0
    if [ ! -s "$out" ] || [ "$TRZ" -nt "$out" ]; then
        log "compressing a $((COPIES * part_bytes / 1000000)) MB RST trace ($COPIES copies) with --chunk-size=$1"
        t0=$(date +%s)
        for ((i = 0; i < COPIES; i++)); do cat "${PARTS[@]}"; done | "$TRZ" -c -T2 --chunk-size="$1" > "$out.tmp" && mv "$out.tmp" "$out"
        log "compressed in $(($(date +%s) - t0)) s"
    fi
    echo "$out"
}

echo "### Random access: 1,000 records from a trace over 1 GB"
echo
echo "The trace: $COPIES copies of $(for p in "${PARTS[@]}"; do basename "$p"; done | paste -sd+ -), compressed once with -T2 at two chunk sizes."
echo "Each run: open the archive (index load), trz_seek, trz_read until 1,000 records, close (seek_time: clock_gettime, 21 runs; chunks counted by wrapping the chunk decoder)."
echo
echo "| archive | first record | median ms | best ms | worst ms | median CPU ms | chunks decoded per run |"
echo "|---|---|---:|---:|---:|---:|---:|"
for cs in 16M 4M; do
    b=$(big "$cs")
    o=$("$AN/seek_time" -r 3 -n 1 "$b") || { echo "| $cs | failed | | | | | |"; continue; }
    total=$(echo "$o" | kv records)
    desc=$(echo "$o" | awk -v cs="$cs" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        END { printf "%.0f MB raw, %d records, %d chunks of %s, %.1f MB", v["raw_bytes"] / 1e6, v["records"], v["chunks"], cs, v["compressed_bytes"] / 1e6 }')
    log "seek_time on $(basename "$b")"
    for at in $((total / 2)) 0 $((total - 1000)) $((total / 3 + 12345)); do
        o=$("$AN/seek_time" -r 21 -n 1000 -s "$at" "$b") || { echo "| $desc | $at | failed | | | | |"; continue; }
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$desc" "$at" "$(echo "$o" | kv median_ms)" "$(echo "$o" | kv best_ms)" \
            "$(echo "$o" | kv worst_ms)" "$(echo "$o" | kv median_cpu_ms)" "$(echo "$o" | kv chunks_decoded)"
    done
done
echo
b=$(big 16M)
log "read_speed on $(basename "$b")"
o=$("$AN/read_speed" -r 3 "$b") && echo "Reading the whole 16M-chunk archive sequentially (read_speed, 1 thread, 3 runs): $(echo "$o" | kv median_MBps) MB/s wall, $(echo "$o" | kv cpu_MBps) MB/s per CPU second."
echo
echo "Target: <= 300 ms from open to the last record (median), default level: a seek decodes from the first chunk of its group (RST: groups of 64 MiB, FORMAT.md \"Chains\"; before chains the bound was 20 ms and one chunk).  Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."

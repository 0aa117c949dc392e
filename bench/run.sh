#!/usr/bin/env bash
# run.sh - regenerate bench/RESULTS.md from scratch: `trz bench` on the real
# traces of ../shared/corpus (when present; .xz files are unpacked to a
# temporary directory, never into the project) and on the samples in corpus/,
# the core measurements (raw codec against plain zstd, container overhead,
# thread scaling), chains (bench/chains.sh: group length; bench/chains_scale.sh:
# large traces), the reader (bench/reader_bench.sh), drmemtrace
# (bench/drmemtrace.sh), the plots, the machine and its load, and how the
# results compare with targets.  Every section is written by this script or
# a script it calls; measurements taken by hand live in bench/notes/ and in
# the specs' design notes, never in RESULTS.md.
#   bench/run.sh [--quick] [--runs N] [--out FILE]
# --quick runs everything once and leaves out bzip2, zstd -19 and trz -19
# (trz bench --quick), the reader's 1 GB trace and most drmemtrace repeats:
# 46 minutes on the shared corpus on a 2-core machine that others loaded to
# about 9 (2026-11-28); the full run takes well over an hour.
set -u
cd "$(dirname "$0")/.." || exit 1

quick=0; runs=3; out=bench/RESULTS.md
while [ $# -gt 0 ]; do
    case $1 in
        --quick) quick=1; runs=1 ;;
        --runs) runs=$2; shift ;;
        --out) out=$2; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "usage: $0 [--quick] [--runs N] [--out FILE]" >&2; exit 2 ;;
    esac
    shift
done

TRZ=./trz
[ -x "$TRZ" ] || make trz > /dev/null || { echo "run.sh: cannot build ./trz" >&2; exit 1; }
SHARED=${TRZ_SHARED_CORPUS:-../shared/corpus}
work=$(mktemp -d "${TMPDIR:-/tmp}/trz-run.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP # (so that the EXIT trap cleans up)
mkdir -p "$work/in" "$work/core"
bench_opts=(--runs "$runs")
[ $quick = 1 ] && bench_opts+=(--quick)
t_start=$SECONDS
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
# the build measured: the commit at the start (the run's own outputs,
# RESULTS.md and the plots, do not make it dirty)
commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
dirty=""
git diff --quiet HEAD -- . ':!bench/RESULTS.md' ':!bench/*.png' 2> /dev/null || dirty=" (with uncommitted changes)"
failed=0

note() { echo "run.sh: $* ($((SECONDS - t_start)) s)" >&2; }

# The machine's load through the run: the 1-minute load average every 30 s
# (other people's work on a shared machine slows the wall-clock speeds).
cut -d' ' -f1 /proc/loadavg > "$work/load"
( while sleep 30; do cut -d' ' -f1 /proc/loadavg; done >> "$work/load" ) &
load_pid=$!
trap 'kill "$load_pid" 2> /dev/null; rm -rf "$work"' EXIT

# A shared trace as a plain file: .xz unpacked into the work directory.
plain() {
    local f=$1 name=${1##*/}
    case $f in
        *.xz) xz -dc "$f" > "$work/in/${name%.xz}" && echo "$work/in/${name%.xz}" ;;
        *) echo "$f" ;;
    esac
}

# bench_group NAME FILE...: tables in NAME.md, results in NAME.csv, the plot
# in bench/plot-NAME.png.
bench_group() {
    local name=$1; shift
    [ $# -gt 0 ] || return 0
    note "$name: $# file(s)"
    if ! "$TRZ" bench "${bench_opts[@]}" --streams --csv "$work/$name.csv" --plot "bench/plot-$name.png" "$@" \
            > "$work/$name.md" 2> "$work/$name.err"; then
        failed=1
        { echo; echo "**trz bench reported failures:**"; echo; sed 's/^/    /' "$work/$name.err"; echo; } >> "$work/$name.md"
    fi
}

shared_files() { # DIR...: the traces in those subdirectories of the shared corpus
    local d f
    for d in "$@"; do
        for f in "$SHARED/$d"/*; do [ -f "$f" ] && plain "$f"; done
    done
}

# ---- chains: what a group's length buys and costs (bench/chains.sh), and
# large traces (bench/chains_scale.sh: threads, memory, a seek) ----
chain_runs=5; scale_runs=11; lengths="32M 64M 128M 176M 256M"; scale_levels="9 19"
[ $quick = 1 ] && { chain_runs=1; scale_runs=3; lengths="64M 176M 256M"; scale_levels=9; }
chains_run() { # OUT SCRIPT ARGS...: a script's table into OUT, or its failure
    local out=$1; shift
    note "$(basename "$1")"
    "$@" > "$work/$out" 2> "$work/$out.err" ||
        { failed=1; { echo; echo "**$(basename "$1") failed:**"; echo; sed 's/^/    /' "$work/$out.err"; } >> "$work/$out"; }
}
by_name() { # PATTERN FILE...: the files whose name matches
    local p=$1 f; shift
    for f in "$@"; do case ${f##*/} in $p) echo "$f" ;; esac; done
}
# group_lengths NAME MB LEVEL "LENGTHS" FILE...: FILE... repeated to about MB
# megabytes into one trace, then bench/group_lengths.sh at LEVEL for each
# length (size, worst-place seek, what a flipped byte costs, memory),
# appended to glen.md
glen_runs=7; [ $quick = 1 ] && glen_runs=3
group_lengths() {
    local name=$1 mb=$2 level=$3 lens=$4; shift 4
    local f=$work/$name
    [ -f "$f" ] || { while [ $(( $(stat -c %s "$f" 2> /dev/null || echo 0) / 1000000 )) -lt "$mb" ]; do cat "$@" >> "$f"; done; }
    chains_run glen.part bench/group_lengths.sh --trz "$TRZ" --runs "$glen_runs" --level "$level" "$f" $lens
    if [ -s "$work/glen.md" ]; then tail -n +3 "$work/glen.part" >> "$work/glen.md"; else cat "$work/glen.part" > "$work/glen.md"; fi
}
chains_cs() { # the ChampSim traces
    mapfile -t pick < <(by_name 'cc1*' "$@"; by_name 'python3*' "$@")
    [ ${#pick[@]} -gt 0 ] && chains_run chains_cs.md bench/chains.sh --trz "$TRZ" --runs "$chain_runs" --lengths "$lengths" "${pick[@]}"
    chains_run scale_cs.md bench/chains_scale.sh --trz "$TRZ" --runs "$scale_runs" --levels "$scale_levels" \
        "$(IFS=,; echo "$*")=champsim-$#-traces.champsimtrace"
    if [ $quick = 1 ]; then
        group_lengths champsim-1GB.champsimtrace 1000 9 default "$@"
    else
        group_lengths champsim-1GB.champsimtrace 1000 9 "64M 128M default" "$@"
        group_lengths champsim-1GB.champsimtrace 1000 19 "default" "$@"
    fi
    rm -f "$work/champsim-1GB.champsimtrace"
}
chains_other() { # RST, uop and BYU traces
    mapfile -t pick < <(by_name '*minigzip*' "${rst_files[@]}"; by_name '*gzip6*' "${uop_files[@]}"; by_name 'lackey*' "${bus_files[@]}")
    [ ${#pick[@]} -gt 0 ] && chains_run chains_other.md bench/chains.sh --trz "$TRZ" --runs "$chain_runs" --lengths "$lengths" "${pick[@]}"
    [ ${#rst_files[@]} -gt 0 ] && chains_run scale_rst.md bench/chains_scale.sh --trz "$TRZ" --runs "$scale_runs" \
        --levels "$scale_levels" "$(IFS=,; echo "${rst_files[*]}")=rst-$((${#rst_files[@]}))-traces.rst"
    local l9="16M 32M default 128M" l19=default other="32M default 128M" f
    [ $quick = 1 ] && { l9=default; l19=; other=default; }
    if [ ${#rst_files[@]} -gt 0 ]; then
        group_lengths rst-1GB.rst 1000 9 "$l9" "${rst_files[@]}"
        [ -n "$l19" ] && group_lengths rst-1GB.rst 1000 19 "$l19" "${rst_files[@]}"
        rm -f "$work/rst-1GB.rst"
    fi
    for f in $(by_name '*gzip6*' "${uop_files[@]}"); do group_lengths uop-1GB.trace 1000 9 "$other" "$f"; done
    for f in $(by_name 'lackey*' "${bus_files[@]}"); do group_lengths byu-1GB.byu 1000 9 "$other" "$f"; done
    rm -f "$work/uop-1GB.trace" "$work/byu-1GB.byu"
}

# ---- the real traces and the samples ----
have_shared=0
if [ -d "$SHARED" ]; then
    have_shared=1
    note "unpacking the shared corpus"
    mapfile -t rst_files < <(shared_files rst)
    mapfile -t bus_files < <(shared_files byu pbus)
    mapfile -t uop_files < <(shared_files uop)
    bench_group rst "${rst_files[@]}"
    bench_group bus "${bus_files[@]}"
    bench_group uop "${uop_files[@]}"
    # ChampSim: 320 MB each, so one run and the fast and default levels only
    mapfile -t cs_files < <(shared_files champsim)
    if [ ${#cs_files[@]} -gt 0 ]; then
        saved_opts=("${bench_opts[@]}")
        bench_opts=(--runs 1 --levels 1,9 --threads 1)
        [ $quick = 1 ] && bench_opts+=(--quick)
        bench_group champsim "${cs_files[@]}"
        bench_opts=("${saved_opts[@]}")
        chains_cs "${cs_files[@]}"
        rm -f "${cs_files[@]}"
    fi
fi
# Bus traces of programs no model was tuned on (bench/tooltraces.sh; needs
# valgrind): for sizes more than speeds, so one run each.
mapfile -t tool_files < <(bench/tooltraces.sh "$work/tool" 2> "$work/tool.err")
if [ ${#tool_files[@]} -gt 0 ]; then
    saved_opts=("${bench_opts[@]}")
    bench_opts=(--runs 1)
    [ $quick = 1 ] && bench_opts+=(--quick)
    bench_group tool "${tool_files[@]}"
    bench_opts=("${saved_opts[@]}")
    rm -f "${tool_files[@]}"
fi
sample_files=()
for f in corpus/*; do
    case ${f##*/} in README*|*.md) continue ;; esac
    [ -f "$f" ] && sample_files+=("$f")
done
bench_group samples "${sample_files[@]}"

# ---- core: the raw codec against plain zstd, container overhead ----
# Random bytes (incompressible) and plain text: man pages, a few MB.
head -c 20000000 /dev/urandom > "$work/core/random.bin"
find /usr/share/man/man1 /usr/share/man/man8 -name '*.gz' 2> /dev/null | LC_ALL=C sort | xargs -r zcat 2> /dev/null \
    | head -c 8000000 > "$work/core/text.txt"
if [ "$(stat -c %s "$work/core/text.txt")" -lt 1000000 ]; then # no man pages: licences, repeated
    for _ in $(seq 40); do cat /usr/share/common-licenses/* 2> /dev/null; done | head -c 8000000 > "$work/core/text.txt"
fi
note "core: raw codec against zstd"
"$TRZ" bench "${bench_opts[@]}" --match-zstd --format=raw --levels 1,3,9,19 --threads 1 --streams \
    --csv "$work/core.csv" "$work/core/random.bin" "$work/core/text.txt" > "$work/core.md" 2> "$work/core.err" \
    || { failed=1; sed 's/^/    /' "$work/core.err" >> "$work/core.md"; }

# ---- core: -T2 against -T1 on a 100 MB input ----
big="$work/core/rst-100MB.rst"
if [ $have_shared = 1 ] && [ ${#rst_files[@]} -gt 0 ]; then
    big_from="the shared RST traces, concatenated and cut"
    cat "${rst_files[@]}" "${rst_files[@]}" "${rst_files[@]}" | head -c 100000008 > "$big"
else
    big_from="corpus/loops-4cpu.rst repeated and cut"
    for _ in $(seq 105); do cat corpus/loops-4cpu.rst; done | head -c 100000008 > "$big"
fi
note "core: threads on 100 MB"
"$TRZ" bench --runs "$runs" --only-trz --levels 9 --threads 1,2 --csv "$work/threads.csv" "$big" \
    > "$work/threads.md" 2> "$work/threads.err" || { failed=1; sed 's/^/    /' "$work/threads.err" >> "$work/threads.md"; }
rm -f "$big"
[ $have_shared = 1 ] && chains_other
rm -f "$work"/in/*

# ---- drmemtrace: bench/drmemtrace.sh on the shared corpus's .trace.zip files ----
dr_md=""
if [ $have_shared = 1 ] && ls "$SHARED"/drmemtrace/*.trace.zip > /dev/null 2>&1; then
    note "bench/drmemtrace.sh"
    dr_repeat=7; [ $quick = 1 ] && dr_repeat=2
    if ! dr_md=$(bench/drmemtrace.sh "$SHARED/drmemtrace" "$dr_repeat" 2> "$work/dr.err"); then
        failed=1
        dr_md="$dr_md"$'\n\n**bench/drmemtrace.sh failed:**\n\n'$(sed 's/^/    /' "$work/dr.err")
    fi
fi

# ---- the reader's own benchmark, when that part of the project has one ----
reader_md=""
if [ -x bench/reader_bench.sh ]; then
    note "bench/reader_bench.sh"
    reader_opts=(); [ $quick = 1 ] && reader_opts=(--quick)
    if ! reader_md=$(bench/reader_bench.sh "${reader_opts[@]}" 2> "$work/reader.err"); then
        failed=1
        reader_md="$reader_md"$'\n\n**bench/reader_bench.sh failed:**\n\n'$(sed 's/^/    /' "$work/reader.err")
    fi
fi

# ---- targets ----
# All results in one CSV (one header).
awk 'FNR > 1 || NR == 1' "$work"/*.csv > "$work/all.csv"

# get FILE COMPRESSOR COLUMN: one value of all.csv ("" when not measured).
get() {
    awk -F, -v f="$1" -v c="$2" -v col="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $1 == f && $6 == c && $NF == "ok" { print $h[col]; exit }' "$work/all.csv"
}
group() { awk -v n="$1" 'BEGIN { s = sprintf("%d", n); r = ""
    while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }; print s r }'; }
verdict() { if [ "$1" = 1 ]; then echo "met"; else echo "**missed**"; fi; } # CONDITION-HOLDS (0/1)
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? 1 : 0 }'; }

mibps() { awk -v r="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.1f", r / 1048576 / t; else print "-" }'; }
# A target set in MB/s (10^6 bytes a second) in MiB/s, the unit of every speed here: MB_S [DIVISOR]
mib() { awk -v v="$1" -v d="${2:-1}" 'BEGIN { printf "%.1f", v * 1e6 / 1048576 / d }'; }
num1() { awk -v v="$1" 'BEGIN { printf "%.1f", v }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (b > 0 ? 100 * (a - b) / b : 0) }'; }
# Speed by CPU time (user + system of the child): what the wall-clock speed
# would be on an idle machine, for one thread.  FILE COMPRESSOR compress|decompress
cpu_speed() { mibps "$(get "$1" "$2" raw_bytes)" "$(get "$1" "$2" "$3_cpu_s")"; }

size_row() { # GROUP FILE LIMIT
    local s; s=$(get "$2" "trz -9 -T1" compressed_bytes)
    if [ -z "$s" ]; then echo "| $1 | $2 size <= $(group "$3") B | not measured | | - |"; return; fi
    echo "| $1 | $2 size <= $(group "$3") B | $(group "$s") B | | $(verdict "$(ge "$3" "$s")") |"
}

speed_rows() { # GROUP MIN_COMPRESS MIN_DECOMPRESS FILE...: judged on files of 10 MB or more
    local g=$1 mc=$2 md=$3 f raw cs ds mcm mdm; shift 3
    mcm=$(mib "$mc"); mdm=$(mib "$md")
    for f in "$@"; do
        raw=$(get "$f" "trz -9 -T1" raw_bytes)
        [ -n "$raw" ] || { echo "| $g | $f speed | not measured | | - |"; continue; }
        cs=$(num1 "$(get "$f" "trz -9 -T1" compress_mib_s)"); ds=$(num1 "$(get "$f" "trz -9 -T1" decompress_mib_s)")
        if [ "$raw" -lt 10000000 ]; then
            local cc dc why="not judged: under 10 MB, start-up (about 2 ms) weighs"
            cc=$(cpu_speed "$f" "trz -9 -T1" compress); dc=$(cpu_speed "$f" "trz -9 -T1" decompress)
            if [ "$(ge "$cc" "$(mib "$mc" 2)")" = 0 ] || [ "$(ge "$dc" "$(mib "$md" 2)")" = 0 ]; then
                why="$why; **below half the target even by CPU time**"
            fi
            echo "| $g | $f: compress >= $mc, decompress >= $md MB/s ($mcm, $mdm MiB/s) | $cs / $ds MiB/s | $cc / $dc | ($why) |"
        else
            echo "| $g | $f: compress >= $mc MB/s ($mcm MiB/s) | $cs MiB/s | $(cpu_speed "$f" "trz -9 -T1" compress) | $(verdict "$(ge "$cs" "$mcm")") |"
            echo "| $g | $f: decompress >= $md MB/s ($mdm MiB/s) | $ds MiB/s | $(cpu_speed "$f" "trz -9 -T1" decompress) | $(verdict "$(ge "$ds" "$mdm")") |"
        fi
    done
}

# within2 TRZ ZSTD higher-is-better(0/1): the verdict for "within 2%"
within2() { verdict "$(awk -v t="$1" -v z="$2" -v h="$3" 'BEGIN { print (h ? t >= z * 0.98 : t <= z * 1.02) ? 1 : 0 }')"; }

core_rows() { # the raw codec: at the fast levels within 2% of zstd at the same level, at 9 and 19
    # (LZMA2 where smaller) within 2% of xz -9: size, both speeds
    local f l t=() z=() what peer
    for f in random.bin text.txt; do
        for l in 1 3 9 19; do
            peer="zstd -$l -T1"; [ "$l" -ge 6 ] && peer="xz -9 -T1"
            t[0]=$(get "$f" "trz -$l -T1" compressed_bytes); z[0]=$(get "$f" "$peer" compressed_bytes)
            [ -n "${t[0]}" ] && [ -n "${z[0]}" ] || continue
            echo "| core | raw codec, $f, -$l: size within 2% of ${peer% -T1} | $(group "${t[0]}") vs $(group "${z[0]}") B ($(pct "${t[0]}" "${z[0]}")) | | $(within2 "${t[0]}" "${z[0]}" 0) |"
            for what in compress decompress; do
                t[1]=$(num1 "$(get "$f" "trz -$l -T1" ${what}_mib_s)"); z[1]=$(num1 "$(get "$f" "$peer" ${what}_mib_s)")
                t[2]=$(cpu_speed "$f" "trz -$l -T1" $what); z[2]=$(cpu_speed "$f" "$peer" $what)
                echo "| core | raw codec, $f, -$l: $what speed within 2% of ${peer% -T1} | ${t[1]} vs ${z[1]} MiB/s ($(pct "${t[1]}" "${z[1]}")) | ${t[2]} vs ${z[2]} ($(pct "${t[2]}" "${z[2]}")) | $(within2 "${t[1]}" "${z[1]}" 1) |"
            done
        done
    done
}

overhead_rows() { # container bytes against the archive, multi-MB inputs
    local f c s
    for f in random.bin text.txt; do
        c=$(get "$f" "trz -9 -T1" container_bytes); s=$(get "$f" "trz -9 -T1" compressed_bytes)
        [ -n "$c" ] && [ -n "$s" ] || continue
        echo "| core | container overhead < 0.1%, $f (-9) | $c B of $(group "$s") B ($(awk -v c="$c" -v s="$s" 'BEGIN { printf "%.4f%%", 100 * c / s }')) | | $(verdict "$(awk -v c="$c" -v s="$s" 'BEGIN { print (c < s * 0.001) ? 1 : 0 }')") |"
    done
}

thread_row() {
    local t1 t2 sp
    t1=$(get rst-100MB.rst "trz -9 -T1" compress_s); t2=$(get rst-100MB.rst "trz -9 -T2" compress_s)
    [ -n "$t1" ] && [ -n "$t2" ] || { echo "| core | -T2 >= 1.8x -T1 | not measured | | - |"; return; }
    sp=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", a / b }')
    echo "| core | -T2 compresses >= 1.8x faster than -T1 (100 MB) | $(num1 "$t1") s / $(num1 "$t2") s = ${sp}x | | $(verdict "$(ge "$sp" 1.8)") |"
}

targets() {
    echo "| group | target (trz -9 -T1 unless said) | measured (wall clock) | MiB/s by CPU time | status |"
    echo "|---|---|---|---|---|"
    size_row RST blaze-32cpu-part1.rst 712000
    size_row RST sun-example-23847-1cpu.rst 14900
    speed_rows RST 100 400 blaze-32cpu-part1.rst sun-example-23847-1cpu.rst qemu-sparc64-minigzip6-2M.rst \
        qemu-sparc64-pigz-4thr-2M.rst
    size_row BYU/PEL sdsu-part1.byu 99000
    size_row BYU/PEL sdsu-part1.pbus 64000
    size_row BYU/PEL lackey-gzip6.byu 1160000
    speed_rows BYU/PEL 100 400 lackey-gzip6.byu sdsu-part1.byu sdsu-part1.pbus
    size_row uop sjeng-1K.trace 3420
    size_row uop qemu-x86-gzip6-1M.trace 248000
    speed_rows uop 60 250 qemu-x86-gzip6-1M.trace sjeng-1K.trace
    core_rows
    overhead_rows
    thread_row
}
targets > "$work/targets.md"

# The tool-made traces against xz -9, beside the ratio targeted for
# lackey-gzip6 (1,160,000 / 1,931,052 B = 0.60 of xz -9).
tool_ratios() {
    local f t x
    echo "| trace | trz -9 -T1 (B) | xz -9 -T1 (B) | trz / xz |"
    echo "|---|---:|---:|---:|"
    for f in "${tool_files[@]}"; do
        f=${f##*/}
        t=$(get "$f" "trz -9 -T1" compressed_bytes); x=$(get "$f" "xz -9 -T1" compressed_bytes)
        [ -n "$t" ] && [ -n "$x" ] || { echo "| $f | ${t:-not measured} | ${x:-not measured} | - |"; continue; }
        echo "| $f | $(group "$t") | $(group "$x") | $(awk -v a="$t" -v b="$x" 'BEGIN { printf "%.2f", a / b }') |"
    done
}
[ ${#tool_files[@]} -gt 0 ] && tool_ratios > "$work/tool_ratios.md"

# The fast level (-1) beside what users would keep instead: its
# size against xz -9's, its decode CPU against zstd -d of zstd -19's output,
# its compression against zstd -3's, and the default level's decode speed;
# all by CPU time of the child (start-up included: small files cannot reach
# these speeds).
fast_rows() {
    local f t1 x z1 zd xd td t9d zc tc
    echo "| trace | trz -1 (B) | / xz -9 size | trz -1 decode (MiB/s) | zstd -19 decode (MiB/s) | xz -9 decode (MiB/s) | trz -1 / zstd -d CPU | trz -1 / zstd -3 compress speed | trz -9 decode (MiB/s) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for f in $(awk -F, 'NR > 1 && $6 == "trz -1 -T1" && $NF == "ok" { print $1 }' "$work/all.csv" | sort -u); do
        t1=$(get "$f" "trz -1 -T1" compressed_bytes); x=$(get "$f" "xz -9 -T1" compressed_bytes)
        td=$(get "$f" "trz -1 -T1" decompress_cpu_s); zd=$(get "$f" "zstd -19 --long=27 -T1" decompress_cpu_s)
        tc=$(get "$f" "trz -1 -T1" compress_cpu_s); zc=$(get "$f" "zstd -3" compress_cpu_s)
        xd=$(cpu_speed "$f" "xz -9 -T1" decompress); z1=$(cpu_speed "$f" "zstd -19 --long=27 -T1" decompress)
        t9d=$(cpu_speed "$f" "trz -9 -T1" decompress)
        echo "| $f | $(group "$t1") | $([ -n "$x" ] && awk -v a="$t1" -v b="$x" 'BEGIN { printf "%.2f", a / b }' || echo -) |" \
             "$(cpu_speed "$f" "trz -1 -T1" decompress) | ${z1:--} | ${xd:--} |" \
             "$([ -n "$zd" ] && awk -v a="$td" -v b="$zd" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }' || echo -) |" \
             "$([ -n "$zc" ] && awk -v a="$tc" -v b="$zc" 'BEGIN { printf "%.2fx", (a > 0 ? b / a : 0) }' || echo -) | ${t9d:--} |"
    done
}
fast_rows > "$work/fast.md"
# (the rows are printed from subshells, so count the verdicts afterwards)
met=$(grep -c '| met |$' "$work/targets.md"); missed=$(grep -c '| \*\*missed\*\* |$' "$work/targets.md")
unmeasured=$(grep -c '| not measured |' "$work/targets.md")

# ---- RESULTS.md ----
first_line() { "$@" 2>&1 | head -1; }
machine() {
    local mem os
    mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    os=$(. /etc/os-release 2> /dev/null && echo "$PRETTY_NAME")
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $([ $quick = 1 ] && echo 'quick run (--quick)' || echo 'full run'), median of $runs run(s)"
    echo "- trz: $("$TRZ" --version), commit $commit$dirty, built with $(first_line cc --version)"
    echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); nproc $(nproc); memory $mem"
    echo "- OS: ${os:-unknown}, kernel $(uname -r)"
    echo "- compressors: $(first_line zstd --version); $(first_line xz --version); $(first_line gzip --version); $(bzip2 --help 2>&1 | head -1 | sed 's/, a block-sorting file compressor//')"
    echo "- load average (1, 5, 15 min) at the start: $load_start; at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- load through the run (1-min load average every 30 s, $(wc -l < "$work/load") samples): median" \
         "$(sort -n "$work/load" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'), highest $(sort -n "$work/load" | tail -1);" \
         "above $(nproc) other work shared the cores, and the wall-clock speeds are depressed"
    echo "- run time of bench/run.sh: $(((SECONDS - t_start) / 60)) min $(((SECONDS - t_start) % 60)) s"
}

# tables run together: their first header only
one_header() { awk '/^\| trace \|/ { if (h++) { getline; next } } { print }'; }

section() { # TITLE NAME PLOT-CAPTION
    [ -f "$work/$2.md" ] || return 0
    echo "## $1"; echo
    [ -f "bench/plot-$2.png" ] && { echo "![$3](plot-$2.png)"; echo; }
    cat "$work/$2.md"
}

{
    echo "# Benchmark results"
    echo
    echo "Generated by \`bench/run.sh\`; do not edit by hand. Every table comes from \`trz bench\` (see"
    echo "\`./trz bench --help\`): each compressor runs as a child process on the same file, timed"
    echo "from fork to exit (start-up included) with its peak RSS from wait4; the input is read once"
    echo "before timing so everyone finds it in the page cache, outputs go to one temporary directory"
    echo "and are flushed outside the timed part, decompressed bytes are piped back and compared (XXH3)"
    echo "with the input, and runs alternate between the compressors (median reported). MiB/s is 2^20"
    echo "bytes of input per second (targets set in MB/s, 10^6 bytes, are judged in MiB/s). \`*\` marks the best value of each column. trz -T0 uses all cores."
    echo
    echo "Measurements taken by hand (design studies, paired runs, traces not in the shared corpus)"
    echo "are not kept here: see \`bench/notes/\` (dated) and the *Design notes* of each spec"
    echo "(\`codecs/*/*.md\`, \`src/format/FORMAT.md\`)."
    echo
    echo "## Machine"; echo; machine; echo
    echo "## Targets"; echo
    echo "Sizes and speeds are those of the default level with one thread (\`trz -9 -T1\`); speed"
    echo "targets are judged on wall-clock time, on inputs of 10 MB or more. $met met, $missed missed,"
    echo "$unmeasured not measured. \"MiB/s by CPU time\" divides the input by the child's user + system"
    echo "time instead: one-thread speed with the machine's other load taken out (the load average is"
    echo "under Machine; above $(nproc) the wall-clock speeds are depressed)."
    echo
    cat "$work/targets.md"; echo
    [ $have_shared = 1 ] || { echo "The shared corpus ($SHARED) was not found: no real-trace results."; echo; }
    section "Real traces: SPARC RST" rst "ratio against speed, RST traces"
    section "Real traces: BYU and PEL Pentium bus" bus "ratio against speed, BYU and PEL bus traces"
    section "Real traces: UPenn uop text" uop "ratio against speed, uop traces"
    section "Real traces: ChampSim" champsim "ratio against speed, ChampSim traces"
    echo "## Fast levels against zstd and xz"; echo
    echo "Levels 1-5 write each codec's byte-stream models (\`trz -l -v\` names them per chunk):"
    echo "decoding copies and patches bytes, and zstd codes what the models leave. The targets"
    echo "are: at most 0.6 of \`xz -9\`'s size, decoding in at most 1.5 times the CPU of"
    echo "\`zstd -d\` on \`zstd -19\`'s output (here \`--long=27\`), compressing at least as fast as"
    echo "\`zstd -3\`; and the default level decoding at 150 MB/s (143.1 MiB/s) or more. MiB/s by CPU time of one"
    echo "run's child process, start-up included."
    echo
    cat "$work/fast.md"; echo
    if [ -f "$work/tool.md" ]; then
        echo "## Tool-made bus traces (generalisation)"; echo
        echo "\`bench/tooltraces.sh\` records \`bzip2 -9\` and \`sort -n\` under \`valgrind --tool=lackey\` and"
        echo "\`bench/lackey2bus.c\` turns each memory trace into a BYU trace (times from a two-level"
        echo "cache model) and a PEL trace (one record per bus cycle): programs, inputs and a time model"
        echo "that none of the codecs' tuning saw; \`lackey-mp2.byu\` is the two BYU traces merged by time"
        echo "as processors 0 and 1 of one bus. One run each. The target for lackey-gzip6 is 0.60"
        echo "of \`xz -9\`'s size; here:"
        echo
        cat "$work/tool_ratios.md"; echo
        [ -f bench/plot-tool.png ] && { echo "![ratio against speed, tool-made bus traces](plot-tool.png)"; echo; }
        cat "$work/tool.md"
    else
        echo "## Tool-made bus traces (generalisation)"; echo
        echo "Not measured: \`bench/tooltraces.sh\` made no traces ($(head -1 "$work/tool.err" 2> /dev/null))."; echo
    fi
    section "The project's samples (corpus/)" samples "ratio against speed, samples"
    echo "## Core: the raw codec against plain zstd and xz"; echo
    echo "\`random.bin\`: 20 MB from /dev/urandom; \`text.txt\`: 8 MB of man pages (roff source) of this"
    echo "machine. trz is forced to the raw codec (\`--format=raw\`); \`zstd -L -T1\` is plain zstd at the"
    echo "same level. At levels 1-5 the raw codec is zstd in trz's container, and the targets compare it"
    echo "with zstd at that level; at 6-19 it keeps LZMA2 where that is smaller (FORMAT.md, \"Back-ends\"),"
    echo "and they compare it with \`xz -9\`."
    echo
    cat "$work/core.md"
    echo "## Core: threads"; echo
    echo "A 100,000,008-byte RST input ($big_from), trz -9 with one and two threads. With"
    echo "other load on the machine (load averages under Machine) the second thread does not get a"
    echo "whole core, so this speed-up is only meaningful on an otherwise idle machine."
    echo
    cat "$work/threads.md"
    if [ -f "$work/chains_cs.md" ] || [ -f "$work/chains_other.md" ]; then
        echo "## Chains: group length"; echo
        echo "Within a group a chunk continues the models of the chunk before (FORMAT.md, \"Chains\"), so"
        echo "longer groups compress better and a seek decodes more: from its group's first chunk."
        echo "\`bench/chains.sh\`, one thread, -9, with \`--restart\` set to each group length"
        echo "(\`--no-chain\`: every chunk from its group's carried knowledge, as trz 0.15 wrote). Seek: 1,000"
        echo "records from the last chunk of the group that holds the middle of the trace (the worst place,"
        echo "where the whole group before it is decoded), whole process, wall clock, median of $chain_runs."
        echo "The default group lengths (levels 1-11) are ChampSim 176 MiB and 64 MiB for the other formats;"
        echo "levels 12-19 use 512 MiB for ChampSim and 256 MiB for the others. Traces shorter than a length"
        echo "are one group."
        echo
        cat "$work/chains_cs.md" "$work/chains_other.md" 2> /dev/null | one_header; echo
    fi
    if [ -f "$work/scale_cs.md" ] || [ -f "$work/scale_rst.md" ]; then
        echo "## Chains: large traces"; echo
        echo "\`bench/chains_scale.sh\`: the shared ChampSim traces concatenated into one trace, and the"
        echo "shared RST traces likewise; default groups. Wall clock of the whole process (output"
        echo "discarded), peak RSS; \"gain\" is one thread's time over two threads'; the archive must be the"
        echo "same for both. Seek: 1,000 records from the middle of the trace, median of $scale_runs. Wall"
        echo "clock means little when the load average (under Machine) is above $(nproc)."
        echo
        cat "$work/scale_cs.md" "$work/scale_rst.md" 2> /dev/null | one_header; echo
    fi
    if [ -f "$work/glen.md" ]; then
        echo "## Chains: group length on 1 GB traces"; echo
        echo "\`bench/group_lengths.sh\`: shared traces repeated to about 1 GB, one thread, with \`--restart\`"
        echo "set to each length (\"default\": the codec's own). Seek: 1,000 records from the first record"
        echo "of the last chunk of a full group (the worst place), whole process, wall clock, median of"
        echo "$glen_runs. A flipped byte in the middle of a group's first chunk: the raw bytes \`--salvage\`"
        echo "loses with the default parity sets (FORMAT.md, \"Parity\") and without them. Decode peak:"
        echo "\`trz -dc -T1\` into a pipe."
        echo
        cat "$work/glen.md"; echo
    fi
    if [ -n "$reader_md" ]; then
        case $reader_md in "#"*) ;; *) echo "## Reader"; echo ;; esac
        echo "$reader_md"; echo
    fi
    if [ -n "$dr_md" ]; then
        echo "$dr_md"; echo
    elif [ $have_shared = 1 ]; then
        echo "## DynamoRIO drmemtrace"; echo
        echo "Not measured: no .trace.zip in $SHARED/drmemtrace."; echo
    fi
} > "$work/RESULTS.md"
mv "$work/RESULTS.md" "$out"
note "wrote $out: targets $met met, $missed missed, $unmeasured not measured"
[ $failed = 0 ] || { echo "run.sh: some round trips or runs FAILED: see $out" >&2; exit 1; }
exit 0

#!/usr/bin/env bash
# drmemtrace_client.sh - DynamoRIO's own tools read what trz gives back.
# For each drmemtrace file (default: the shared corpus's .trace.zip files)
# it runs, on the original, on the file `trz -d` restores from its archive,
# and on the records `trz -dc` writes saved under a .trace name:
#   drmemtrace_launcher -simulator_type basic_counts
#   drmemtrace_launcher -simulator_type view
#   histogram_launcher -trace_dir
#   opcode_mix_launcher -trace
# and compares their output (standard error and output together, with the
# file's directory and name put out of the way).  Prints one line per file
# and tool and ends with "N passed, M failed".
#   bench/drmemtrace_client.sh DYNAMORIO_BUILD_DIR [FILE...]
#   TRZ_OPTS="--chunk-size=256K" bench/drmemtrace_client.sh ...   (options
#   for compressing: small chunks make archives whose chunks carry knowledge)
#   bench/drmemtrace_client.sh --serve DYNAMORIO_BUILD_DIR TRACE_DIR...
# instead takes directories of thread files (DynamoRIO's trace/ or
# window.NNNN/ directories), compresses a copy of each with `trz -r --rm`,
# and runs basic_counts (drmemtrace_launcher -indir) and opcode_mix
# (opcode_mix_launcher -trace) on the original directory and, through
# `trz serve`, on the compressed one: outputs compared, wall seconds of
# each printed (one run each; for medians run the two commands it prints
# in a paired timer).
# The build directory is DynamoRIO's, configured and built as
# ../shared/tools/drmemtrace/BUILD-DYNAMORIO.md says (targets
# drmemtrace_launcher, histogram_launcher, opcode_mix_launcher).
set -u
serve=
if [ "${1:-}" = --serve ]; then serve=1; shift; fi
[ $# -ge 1 ] || { echo "usage: $0 DYNAMORIO_BUILD_DIR [FILE...]" >&2; exit 2; }
DR=$(cd "$1" && pwd) || exit 2
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRZ=${TRZ:-$ROOT/trz}
SHARED=${TRZ_SHARED_CORPUS:-$ROOT/../shared/corpus}
BIN=$DR/clients/bin64
for t in drmemtrace_launcher histogram_launcher opcode_mix_launcher; do
    [ -x "$BIN/$t" ] || { echo "$BIN/$t: not built (see BUILD-DYNAMORIO.md)" >&2; exit 2; }
done
[ -x "$TRZ" ] || { echo "$TRZ: not built (make)" >&2; exit 2; }
if [ -n "$serve" ]; then
    [ $# -ge 1 ] || { echo "usage: $0 --serve DYNAMORIO_BUILD_DIR TRACE_DIR..." >&2; exit 2; }
    W=$(mktemp -d "${TMPDIR:-/tmp}/trz-drclient.XXXXXX")
    trap 'rm -rf "$W"' EXIT
    pass=0; fail=0
    now() { date +%s.%N; }
    printf '%-28s %-12s %9s %9s  %s\n' directory tool "orig s" "served s" "original = served"
    for d in "$@"; do
        name=$(basename "$(cd "$d" && pwd)")
        rm -rf "$W/orig" "$W/trz"
        cp -r "$d" "$W/orig" && cp -r "$d" "$W/trz" || { fail=$((fail + 1)); continue; }
        "$TRZ" -q -r --rm "$W/trz" || { echo "$name: trz -r failed"; fail=$((fail + 1)); continue; }
        for tool in basic_counts opcode_mix; do
            case $tool in
            basic_counts) cmd="$BIN/drmemtrace_launcher -simulator_type basic_counts -indir" ;;
            opcode_mix) cmd="$BIN/opcode_mix_launcher -trace" ;;
            esac
            t0=$(now); $cmd "$W/orig" > "$W/o.out" 2>&1; ro=$?; t1=$(now)
            "$TRZ" serve --tmpdir "$W" "$W/trz" -- $cmd {} > "$W/s.out" 2>&1; rs=$?; t2=$(now)
            if [ $ro = 0 ] && [ $rs = 0 ] && cmp -s "$W/o.out" "$W/s.out"; then verdict=equal; pass=$((pass + 1))
            else verdict="DIFFERENT (exit $ro, $rs): $(diff "$W/o.out" "$W/s.out" | head -3 | tr '\n' ' ')"; fail=$((fail + 1)); fi
            printf '%-28s %-12s %9.2f %9.2f  %s\n' "$name" $tool "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$verdict"
        done
        [ -z "$(ls -A "$W" | grep '^trz-serve\.')" ] || { echo "$name: a served directory was left"; fail=$((fail + 1)); }
    done
    echo "$pass passed, $fail failed"
    [ $fail = 0 ]
    exit
fi
if [ $# = 0 ]; then set -- "$SHARED"/drmemtrace/*.trace.zip; fi
[ -f "$1" ] || { echo "no drmemtrace files (looked for $SHARED/drmemtrace/*.trace.zip)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-drclient.XXXXXX")
trap 'rm -rf "$W"' EXIT
pass=0; fail=0

# run TOOL FILE OUT: the tool's output on FILE, with FILE's path made neutral
run() {
    local tool=$1 f=$2 out=$3
    case $tool in
    basic_counts|view) "$BIN/drmemtrace_launcher" -infile "$f" -simulator_type "$tool" > "$out" 2>&1 ;;
    histogram) "$BIN/histogram_launcher" -trace_dir "$f" > "$out" 2>&1 ;;
    opcode_mix) "$BIN/opcode_mix_launcher" -trace "$f" > "$out" 2>&1 ;;
    esac
    local rc=$?
    sed -i -e "s|$(dirname "$f")/||g" -e "s|$(basename "$f")|FILE|g" "$out"
    echo "exit $rc" >> "$out"
}

printf '%-44s %-12s %10s %10s  %s\n' file tool lines bytes "original = restored = records"
for f in "$@"; do
    name=$(basename "$f")
    base=${name%.zip}; base=${base%.gz}; base=${base%.lz4}; base=${base%.sz}
    mkdir -p "$W/orig" "$W/restored" "$W/records"
    cp "$f" "$W/orig/$name"
    "$TRZ" -q -f ${TRZ_OPTS:-} -o "$W/$name.trz" "$f" || { echo "$name: trz failed"; fail=$((fail + 1)); continue; }
    "$TRZ" -q -f -d -o "$W/restored/$name" "$W/$name.trz" || { echo "$name: trz -d failed"; fail=$((fail + 1)); continue; }
    "$TRZ" -q -dc "$W/$name.trz" > "$W/records/$base"
    cmp -s "$W/orig/$name" "$W/restored/$name" && same=identical || same=DIFFERENT
    echo "$name: trz -d gives the file back $same ($(wc -c < "$f") bytes; archive $(wc -c < "$W/$name.trz"))"
    [ $same = identical ] && pass=$((pass + 1)) || fail=$((fail + 1))
    for tool in basic_counts view histogram opcode_mix; do
        run $tool "$W/orig/$name" "$W/o.out"
        run $tool "$W/restored/$name" "$W/r.out"
        run $tool "$W/records/$base" "$W/b.out"
        if cmp -s "$W/o.out" "$W/r.out" && cmp -s "$W/o.out" "$W/b.out" && grep -qx 'exit 0' "$W/o.out"; then
            verdict=equal; pass=$((pass + 1))
        else
            verdict="DIFFERENT (or failed): $(diff "$W/o.out" "$W/b.out" | head -3 | tr '\n' ' ')"; fail=$((fail + 1))
        fi
        printf '%-44s %-12s %10s %10s  %s\n' "$name" "$tool" "$(wc -l < "$W/o.out")" "$(wc -c < "$W/o.out")" "$verdict"
        [ -n "${SHOW:-}" ] && [ $tool = basic_counts ] && sed 's/^/    /' "$W/o.out"
    done
    rm -rf "$W/orig" "$W/restored" "$W/records" "$W/$name.trz"
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]

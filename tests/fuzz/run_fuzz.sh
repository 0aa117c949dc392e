#!/usr/bin/env bash
# run_fuzz.sh - `make fuzz`: run each fuzz target named on the command line
# for FUZZ_SECONDS on a copy of its seed corpus in $FZ/corpus/<target>
# (inputs found there accumulate from run to run), one target at a time.
# Prints one line per target (executions, coverage, corpus) and fails on
# any finding; the crashing input is left in $FZ/artifacts/<target>/.
# The mutations start from FUZZ_SEED (1 unless given), so that runs from
# the seed corpus mostly take the same course (a target that decodes on
# two threads can still see its coverage, and so its course, change from
# run to run); a finding runs again from its input.  Longer runs with
# other seeds are for looking further.
set -u
cd "$(dirname "$0")/../.." || exit 1
FZ=${FZ:-build/fuzz}
SECS=${FUZZ_SECONDS:-60}
SEED=${FUZZ_SEED:-1}
status=0
for t in "$@"; do
    bin="$FZ/$t"
    corpus="$FZ/corpus/$t"
    art="$FZ/artifacts/$t"
    log="$FZ/$t.log"
    mkdir -p "$corpus" "$art"
    cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null
    case $t in # roundtrips cost a codec model per 4 KiB chunk: keep their inputs short
        roundtrip_*) maxlen=16384 ;; seek_read|sequential|reader_api) maxlen=1024 ;; oracle) maxlen=32768 ;; *) maxlen=65536 ;;
    esac
    dict=()
    [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
    "$bin" -seed="$SEED" -max_total_time="$SECS" -timeout=30 -rss_limit_mb=2560 -max_len="$maxlen" \
        -print_final_stats=1 -artifact_prefix="$art/" "${dict[@]}" "$corpus" > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    ncorp=$(ls "$corpus" | wc -l)
    if [ $rc = 0 ]; then
        printf 'fuzz %-15s %4ss  %10s execs  %s  corpus %s\n' "$t" "$SECS" "${execs:-?}" "${cov:-?}" "$ncorp"
    else
        status=1
        printf 'fuzz %-15s FAILED (exit %s); see %s and %s\n' "$t" "$rc" "$log" "$art"
        grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -5 | sed 's/^/    /'
    fi
done
exit $status

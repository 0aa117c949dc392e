#!/usr/bin/env bash
# run_all.sh - run every test program and suite that `make check` built,
# print each one's result, and close with the totals on one line.
set -u
cd "$(dirname "$0")/.."
total_pass=0; total_fail=0; broken=()

run() { # NAME command...: the command's last "N passed, M failed" line counts
    local name=$1; shift
    local log; log=$(mktemp)
    local t0=$SECONDS
    "$@" > "$log" 2>&1
    local rc=$?
    local line; line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
    local p=0 f=0
    if [ -n "$line" ]; then p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}; fi
    if [ $rc != 0 ] && [ "$f" = 0 ]; then f=1; fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    printf '%-34s %5s passed %3s failed  (%ds)\n' "$name" "$p" "$f" $((SECONDS - t0))
    if [ "$f" != 0 ]; then broken+=("$name"); grep -vE '^ok ' "$log" | tail -40 | sed 's/^/    /'; fi
    rm -f "$log"
}

for u in ${TRZ_UNITS:-}; do run "$(basename "$u") (asan+ubsan)" "$u"; done
run "cli suite" tests/cli.sh ./trz
ASAN_OPTIONS=detect_leaks=1 TRZ_QUICK=1 TRZ_SHARED_CORPUS=/nonexistent run "cli suite (asan+ubsan)" tests/cli.sh build/san/trz
for s in ${TRZ_STEPS:-}; do run "$s" bash "$s"; done

[ ${#broken[@]} = 0 ] || echo "failed: ${broken[*]}"
echo "$total_pass passed, $total_fail failed"
[ $total_fail = 0 ]

#!/usr/bin/env bash
# guard.sh - the container's guard: a chunk a model would store larger than
# the raw codec does goes out raw ("fallback" in trz -l -v), whatever the
# format; chunks a model wins keep their model.  Every archive round-trips.
#   tests/guard.sh [path/to/trz]      (prints "N passed, M failed" last)
set -u
TRZ=${1:-./trz}
TRZ=$(cd "$(dirname "$TRZ")" && pwd)/$(basename "$TRZ")
. "$(dirname "$0")/lib.sh" guard
variants() { "$TRZ" -l -v "$1" | awk 'NF == 8 && $1 ~ /^[0-9]+$/ { print $8 }' | sort | uniq -c | tr -s ' ' | tr '\n' ';'; }

# 120 KB of random bytes repeated 40 times: no record model predicts them,
# the back-end finds every repeat.  As each fixed-size format, forced.
head -c 120000 /dev/urandom > "$W/piece"
for i in $(seq 40); do cat "$W/piece"; done > "$W/rep"
raw=$("$TRZ" -q -f -T1 --format=raw -c "$W/rep" | wc -c)
for f in byu pbus rst champsim drmemtrace; do
    "$TRZ" -q -f -T1 --format=$f -c "$W/rep" > "$W/a.trz" 2> /dev/null || { bad "$f: compress"; continue; }
    a=$(stat -c %s "$W/a.trz")
    v=$(variants "$W/a.trz")
    # no larger than the raw codec's archive (a few bytes of header apart)
    if [ "$a" -le $((raw + 64)) ]; then ok "$f: repeated noise: $a bytes (raw codec: $raw), $v"
    else bad "$f: repeated noise" "$a bytes, the raw codec $raw, variants $v"; fi
    "$TRZ" -dc "$W/a.trz" | cmp -s - "$W/rep" && ok "$f: round trip" || bad "$f: round trip"
done

# A trace the model wins keeps its model: the project's own samples.
for s in "$ROOT"/corpus/*; do
    [ -f "$s" ] || continue
    case "$s" in *.md|*.txt) continue ;; esac
    "$TRZ" -q -f -T1 -c "$s" > "$W/s.trz" 2> /dev/null || { bad "$(basename "$s"): compress"; continue; }
    fmt=$("$TRZ" -l "$W/s.trz" | awk 'NR == 2 { print $1 }')
    v=$(variants "$W/s.trz")
    if [ "$fmt" = raw ] || ! echo "$v" | grep -q fallback; then ok "$(basename "$s"): $fmt, $v"
    else bad "$(basename "$s"): a sample the model should win fell back" "$v"; fi
done
finish

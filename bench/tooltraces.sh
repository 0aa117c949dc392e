#!/usr/bin/env bash
# tooltraces.sh - make BYU and PEL traces of programs that no model of trz
# was tuned on, for checking that the bus codecs generalise:
# `valgrind --tool=lackey` records bzip2 -9 and sort -n (stock Debian
# programs, fixed inputs), and bench/lackey2bus.c turns each memory trace
# into a BYU trace (with a two-level cache model's times) and a PEL trace
# (one record per bus cycle); the two BYU traces merged by time as the two
# processors of one bus make a multiprocessor trace.  Prints the paths of
# the five traces.
#   bench/tooltraces.sh DIR
# Needs valgrind (Debian package valgrind); prints nothing without it.
set -u
cd "$(dirname "$0")/.." || exit 1
dir=${1:?usage: bench/tooltraces.sh DIR}
command -v valgrind > /dev/null || { echo "tooltraces.sh: no valgrind: skipped" >&2; exit 0; }
mkdir -p "$dir" || exit 1
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -o "$dir/lackey2bus" bench/lackey2bus.c || exit 1

# Inputs: 8 KB of this project's C source; 2,500 numbers in a fixed shuffle (about 7M and 10M
# accesses: a few minutes for the general-purpose compressors in `trz bench`).
head -c 8000 /usr/share/common-licenses/GPL-3 > "$dir/text.in"  # a text that does not change with the project
seq 1 2500 | awk 'BEGIN { srand(7) } { print rand() "\t" $0 }' | LC_ALL=C sort | cut -f2 > "$dir/nums.in"

run() { # NAME COMMAND...: lackey's memory trace of the command, as BYU and PEL traces
    local name=$1; shift
    valgrind --tool=lackey --trace-mem=yes --log-file="$dir/$name.log" "$@" > /dev/null 2>&1 \
        || { echo "tooltraces.sh: valgrind $* failed" >&2; return 1; }
    "$dir/lackey2bus" byu < "$dir/$name.log" > "$dir/lackey-$name.byu" || return 1
    "$dir/lackey2bus" pel < "$dir/$name.log" > "$dir/lackey-$name.pbus" || return 1
    rm -f "$dir/$name.log"
    echo "$dir/lackey-$name.byu"
    echo "$dir/lackey-$name.pbus"
}
run bzip2 bzip2 -9 -c "$dir/text.in" || exit 1
run sort sort -n "$dir/nums.in" || exit 1
"$dir/lackey2bus" merge "$dir/lackey-bzip2.byu" "$dir/lackey-sort.byu" > "$dir/lackey-mp2.byu" || exit 1
echo "$dir/lackey-mp2.byu"

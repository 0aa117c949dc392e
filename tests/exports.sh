#!/usr/bin/env bash
# exports.sh - the shared library exports the API of include/trz.h and
# nothing else: every dynamic symbol is trz_, and every function trz.h
# declares is exported.  A `make check` step.
set -u
cd "$(dirname "$0")/.." || exit 1
pass=0; fail=0
syms=$(nm -D --defined-only libtrz.so | awk '$2 ~ /^[TWDBR]$/ {print $3}' | sort)
other=$(printf '%s\n' "$syms" | grep -v '^trz_' | tr '\n' ' ')
if [ -z "$other" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: exported beyond the API: $other"; fi
api=$(grep -oE '^TRZ_API [^(]*\btrz_[a-z0-9_]+\(' include/trz.h | grep -oE 'trz_[a-z0-9_]+\($' | tr -d '(' | sort)
missing=$(comm -23 <(printf '%s\n' "$api") <(printf '%s\n' "$syms") | tr '\n' ' ')
if [ -z "$missing" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: declared in trz.h, not exported: $missing"; fi
extra=$(comm -13 <(printf '%s\n' "$api") <(printf '%s\n' "$syms") | tr '\n' ' ')
if [ -z "$extra" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: exported, not in trz.h: $extra"; fi
echo "$(printf '%s\n' "$syms" | wc -l) symbols exported"
echo "$pass passed, $fail failed"
[ $fail = 0 ]

#!/usr/bin/env bash
# exports.sh - the shared library exports the API of include/trz.h and
# nothing else: every dynamic symbol is trz_, and every function trz.h
# declares is exported; and a program links against the static library
# with Debian's static libraries alone.  A `make check` step.
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
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-link.XXXXXX")
trap 'rm -rf "$W"' EXIT
printf '#include "trz.h"\n#include <stdio.h>\nint main(void) { printf("%%s\\n", trz_version_string()); return 0; }\n' > "$W/v.c"
if ${CC:-cc} -Iinclude -o "$W/v" "$W/v.c" libtrz.a -static $(pkg-config --libs --static libzstd zlib libxxhash liblzma 2>/dev/null) -lbz2 -lpthread 2> "$W/err" \
   && [ "$("$W/v")" = "$(./trz -V | cut -d' ' -f2)" ]; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: a static link: $(head -c 300 "$W/err")"; fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]

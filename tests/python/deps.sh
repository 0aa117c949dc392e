#!/usr/bin/env bash
# deps.sh - `make python-deps` (tests/python/python.mk), with apt-get
# replaced by a stub that only notes its arguments: where everything the
# Python tests import is there, it installs nothing and says nothing; with
# a Python that lacks them (a fresh virtual environment), it names the
# packages and, as root, installs exactly those.  A `make check` step; the
# last line is "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${TRZ_PYTHON:-/usr/bin/python3}
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-pydeps.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/bin"
printf '#!/bin/sh\necho "$*" >> "%s/apt.log"\n' "$W" > "$W/bin/apt-get"
chmod +x "$W/bin/apt-get"
# a make of its own: not a job of the make check that runs this script
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" --no-print-directory "$@"; }
PKGS=$(mk print-py-deb-pkgs)

# each module in a process of its own: what is really there, whatever
# importing one does to the next
have=1
for m in dask distributed numpy pandas venv ensurepip; do
    "$PY" -c "import $m" 2> /dev/null || { have=0; echo "note: $PY cannot import $m"; }
done
if [ $have = 1 ]; then
    : > "$W/apt.log"
    PATH="$W/bin:$PATH" mk python-deps PY_TEST_PYTHON="$PY" > "$W/out" 2>&1
    [ ! -s "$W/apt.log" ] && [ ! -s "$W/out" ] && ok \
        || bad "python-deps with every module there: installs nothing, says nothing" "apt-get $(head -1 "$W/apt.log"); $(head -3 "$W/out")"
else
    echo "python-deps check skipped: $PY lacks test modules (apt-get install -y $PKGS)"
fi

# a Python without them: the message first, then (as root) apt-get install of exactly those packages
if "$PY" -m venv "$W/venv" > /dev/null 2>&1; then
    : > "$W/apt.log"
    PATH="$W/bin:$PATH" mk python-deps PY_TEST_PYTHON="$W/venv/bin/python" > "$W/out" 2>&1
    if [ "$(id -u)" = 0 ]; then
        head -1 "$W/out" | grep -qF "installing Python test dependencies: $PKGS" && grep -qx "install -y $PKGS" "$W/apt.log" \
            && ok || bad "python-deps with the modules missing, as root: says so, then installs $PKGS" "$(head -3 "$W/out") / apt-get $(cat "$W/apt.log")"
    else
        grep -qF "apt-get install -y $PKGS" "$W/out" && [ ! -s "$W/apt.log" ] \
            && ok || bad "python-deps with the modules missing: names the command" "$(head -3 "$W/out")"
    fi
else
    echo "note: $PY -m venv does not work; the missing-module case was not run"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]

#!/usr/bin/env bash
# vecstate.sh - test_vecstate against the optimised shared library (a `make
# check` step; the sanitized build runs with the unit tests).
cd "$(dirname "$0")/.." || exit 1
exec build/test_vecstate

#!/usr/bin/env bash
# replay.sh - a `make check` step: every fuzz target over its seed corpus in
# tests/fuzz/corpus/, without libFuzzer (build/fuzz/replay: gcc, ASan and
# UBSan; each input in its own child).  Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
exec build/fuzz/replay tests/fuzz/corpus

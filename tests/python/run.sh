#!/usr/bin/env bash
# run.sh - run the Python binding's tests (tests/python/test_trz.py) with
# Debian's Python, which has python3-dask, python3-distributed, numpy and
# pandas; when they are missing, say so and count nothing.  The last line
# is "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${TRZ_PYTHON:-/usr/bin/python3}
PKGS="python3-dask python3-distributed python3-numpy python3-pandas"

if ! [ -x "$PY" ] || ! "$PY" -c 'import dask, distributed, numpy, pandas' 2>/dev/null; then
    echo "python tests skipped: python3-dask not installed (apt-get install -y $PKGS)"
    echo "0 passed, 0 failed"
    exit 0
fi
if ! [ -f "$ROOT/libtrz.so" ] && [ -z "${TRZ_LIBRARY:-}" ]; then
    echo "FAIL libtrz.so is not built (run make)"
    echo "0 passed, 1 failed"
    exit 1
fi
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the source tree
cd "$ROOT" || exit 1
exec "$PY" tests/python/test_trz.py "$@"

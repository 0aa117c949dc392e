#!/usr/bin/env bash
# examples.sh - the README's Python examples, run as scripts the way a user
# saves them (the Dask one starts worker processes that import the script
# again), on archives of the project's samples; and the package installed
# with `make install-python` into a virtual environment, used from outside
# the source tree without numpy.  A `make check` step; the last line is
# "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${TRZ_PYTHON:-/usr/bin/python3}
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
if ! [ -x "$PY" ] || ! "$PY" -c 'import dask, distributed, numpy, pandas' 2>/dev/null; then
    echo "python examples skipped: python3-dask not installed"; echo "0 passed, 0 failed"; exit 0
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-pyex.XXXXXX")
trap 'rm -rf "$W"' EXIT
export PYTHONDONTWRITEBYTECODE=1
mkdir -p "$W/traces"
"$ROOT/trz" -q -c --chunk-records=3000 "$ROOT/corpus/loops-4cpu.rst" > "$W/run.rst.trz"
cp "$W/run.rst.trz" "$W/traces/a.rst.trz"
"$ROOT/trz" -q -c --chunk-records=700 "$ROOT/corpus/blaze-like-1cpu-le.rst" > "$W/traces/b.rst.trz"
head -c $((24 * 20000)) "$ROOT/corpus/loops-4cpu.rst" > "$W/big.rst"

# the README's ```python blocks, in order
awk '/^```python$/ { n++; f = sprintf("%s/example%d.py", dir, n); next } /^```$/ { f = "" } f { print > f }' \
    dir="$W" "$ROOT/README.md"
[ -f "$W/example1.py" ] && [ -f "$W/example2.py" ] && ok || bad "the README has its two Python examples"
for ex in "$W"/example*.py; do
    if (cd "$W" && PYTHONPATH="$ROOT/python" timeout 300 "$PY" "$ex") > "$W/out" 2>&1; then ok
    else bad "README $(basename "$ex") as a script" "$(tail -5 "$W/out")"; fi
done
grep -q "cpuid" "$W/out" && [ -f "$W/big.rst.trz" ] && "$ROOT/trz" -dc "$W/big.rst.trz" | cmp -s - "$W/big.rst" \
    && ok || bad "the Dask example's results" "$(tail -3 "$W/out")"

# installed into a virtual environment, used without numpy
if "$PY" -m venv --system-site-packages "$W/venv" > /dev/null 2>&1 && make -s -C "$ROOT" install-python PYTHON="$W/venv/bin/python" > "$W/out" 2>&1; then
    (cd "$W" && "$W/venv/bin/python" - "$ROOT" "$W" > "$W/out" 2>&1) <<'PYEOF'
import sys
sys.modules["numpy"] = None            # as if numpy were not installed
import os, trz
root, w = sys.argv[1], sys.argv[2]
assert trz._lib.path.startswith(w), "libtrz.so from " + trz._lib.path
assert trz.__version__ == trz.version, (trz.__version__, trz.version)
src = os.path.join(root, "corpus", "sjeng-like.trace")
trz.compress(src, os.path.join(w, "s.trz"))
trz.decompress(os.path.join(w, "s.trz"), os.path.join(w, "s.out"))
assert open(src, "rb").read() == open(os.path.join(w, "s.out"), "rb").read()
try:
    trz.open(os.path.join(w, "s.trz")).records()
    raise AssertionError("records() without numpy")
except ImportError as e:
    assert "numpy" in str(e)
print("ok")
PYEOF
    grep -qx ok "$W/out" && ok || bad "installed package without numpy" "$(tail -5 "$W/out")"
else
    bad "make install-python into a virtual environment" "$(tail -5 "$W/out")"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]

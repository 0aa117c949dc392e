#!/usr/bin/env bash
# examples.sh - the documentation's Python examples, run as scripts the way
# a user saves them (the Dask one starts worker processes that import the
# script again), on archives of the project's samples, from README.md,
# docs/python.md and python/README.md; the README's virtual environment
# recipe, as written, with its example (docs/python.md repeats both, word
# for word); and the package installed with `make
# install-python` into a virtual environment, used from outside the source
# tree without numpy, and into a fresh one (no system packages, no
# network).  A `make check` step; the last line is "N passed, M failed".
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

# examples DOC DIR N: DOC's ```python blocks, in order, each run as a
# script in DIR: N = 1, its numpy example; N = 2, that and its Dask example
examples() {
    local readme=$1 dir=$2 count=$3 ex
    awk '/^```python$/ { n++; f = sprintf("%s/example%d.py", dir, n); next } /^```$/ { f = "" } f { print > f }' \
        dir="$dir" "$ROOT/$readme"
    [ "$(ls "$dir"/example*.py 2> /dev/null | wc -l)" = "$count" ] && ok || bad "$readme has its $count Python example(s)"
    for ex in "$dir"/example*.py; do
        if (cd "$dir" && PYTHONPATH="$ROOT/python" timeout 300 "$PY" "$ex") > "$dir/out" 2>&1; then ok
        else bad "$readme $(basename "$ex") as a script" "$(tail -5 "$dir/out")"; fi
    done
    if [ "$count" = 1 ]; then
        grep -q '^\[.*\] 100$' "$dir/out" && ok || bad "$readme: the numpy example's results" "$(tail -3 "$dir/out")"
    else
        grep -q "cpuid" "$dir/out" && [ -f "$dir/big.rst.trz" ] && "$ROOT/trz" -dc "$dir/big.rst.trz" | cmp -s - "$dir/big.rst" \
            && ok || bad "$readme: the Dask example's results" "$(tail -3 "$dir/out")"
    fi
}
mkdir -p "$W/readme" "$W/doc/traces"
cp "$W/run.rst.trz" "$W/readme/"
examples README.md "$W/readme" 1
cp "$W/run.rst.trz" "$W/big.rst" "$W/doc/"; cp "$W/traces/"*.trz "$W/doc/traces/"
examples docs/python.md "$W/doc" 2
# python/README.md seeks to record 1,000,000: a run of 1,040,000 records
mkdir -p "$W/py/traces"
for _ in $(seq 26); do cat "$ROOT/corpus/loops-4cpu.rst"; done | "$ROOT/trz" -q -1 -c > "$W/py/run.rst.trz"
cp "$W/traces/"*.trz "$W/py/traces/"; cp "$W/big.rst" "$W/py/"
examples python/README.md "$W/py" 2

# the README's recipe as written: a virtual environment that sees Debian's
# numpy (--system-site-packages), make install-python into it, and its
# first example run there as example.py, with nothing on PYTHONPATH
mkdir -p "$W/ve"
cp "$W/run.rst.trz" "$W/ve/"
awk '/^```python$/ { n++; next } /^```$/ { n += (n % 2) } n == 1 { print }' "$ROOT/README.md" > "$W/ve/example.py"
awk '/^```sh$/ { f = 1; b = ""; next } /^```$/ { if (f && b ~ /-m venv/) { printf "%s", b; exit } f = 0; next } f { b = b $0 "\n" }' \
    "$ROOT/README.md" > "$W/ve/recipe.sh"
if grep -q -- '-m venv --system-site-packages venv' "$W/ve/recipe.sh" && grep -q 'make install-python PYTHON=venv/bin/python' "$W/ve/recipe.sh" \
        && grep -q 'venv/bin/python example.py' "$W/ve/recipe.sh"; then
    # make from the source tree, its PYTHON= made absolute (the README runs it there)
    (cd "$W/ve" && env -u PYTHONPATH ROOT="$ROOT" bash -c \
        'make() { command make -s -C "$ROOT" "${@/#PYTHON=venv/PYTHON=$PWD/venv}"; }; set -e; . ./recipe.sh' > "$W/ve/out" 2>&1)
    grep -q '^\[.*\] 100$' "$W/ve/out" && [ -d "$(echo "$W"/ve/venv/lib/python*/site-packages/trz)" ] \
        && ok || bad "the README's virtual environment recipe and its first example" "$(tail -5 "$W/ve/out")"
else
    bad "README.md has the virtual environment recipe (venv --system-site-packages, make install-python, run)" "$(cat "$W/ve/recipe.sh")"
fi
# docs/python.md repeats the README's recipe and example word for word
awk '/^```python$/ { n++; next } /^```$/ { n += (n % 2) } n == 1 { print }' "$ROOT/docs/python.md" | cmp -s - "$W/ve/example.py" \
    && awk '/^```sh$/ { f = 1; b = ""; next } /^```$/ { if (f && b ~ /-m venv/) { printf "%s", b; exit } f = 0; next } f { b = b $0 "\n" }' \
        "$ROOT/docs/python.md" | cmp -s - "$W/ve/recipe.sh" \
    && ok || bad "docs/python.md repeats the README's virtual environment recipe and first example"

# installed into a virtual environment, used without numpy (files, and
# records and lines as bytes)
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
with trz.open(os.path.join(w, "run.rst.trz")) as r:    # bytes need no numpy: read, batches
    rst = open(os.path.join(root, "corpus", "loops-4cpu.rst"), "rb").read()
    assert r.read(10) == rst[:240]
    r.seek(39990)
    assert r.read() == rst[24 * 39990:] and r.read(5) == b""
    r.seek(0)
    assert b"".join(r.batches(7000)) == rst
with trz.open(os.path.join(w, "s.trz")) as r:            # text: lines
    text = open(src, "rb").read()
    lines = r.read(3)
    assert lines == b"".join(text.splitlines(True)[:3]), lines
    assert lines + r.read() == text
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
# into a fresh virtual environment: no system packages (no wheel, no numpy),
# no network; `pip show` and `pip uninstall` know the package
if "$PY" -m venv "$W/fresh" > "$W/out" 2>&1; then
    if make -s -C "$ROOT" install-python PYTHON="$W/fresh/bin/python" > "$W/out" 2>&1; then
        (cd "$W" && PYTHONNOUSERSITE=1 "$W/fresh/bin/python" - "$ROOT" "$W" > "$W/out" 2>&1) <<'PYEOF'
import importlib.metadata, os, sys
import trz
root, w = sys.argv[1], sys.argv[2]
assert trz._lib.path.startswith(os.path.join(w, "fresh")), "libtrz.so from " + trz._lib.path
assert importlib.metadata.version("trz") == trz.__version__ == trz.version
trz.decompress(os.path.join(w, "run.rst.trz"), os.path.join(w, "fresh.out"))
assert open(os.path.join(root, "corpus", "loops-4cpu.rst"), "rb").read() == open(os.path.join(w, "fresh.out"), "rb").read()
with trz.open(os.path.join(w, "run.rst.trz")) as r:
    assert r.info.format == "rst" and r.info.records == 40000, r.info
print("ok")
PYEOF
        grep -qx ok "$W/out" && ok || bad "a fresh virtual environment: import trz, decode an archive" "$(tail -5 "$W/out")"
        "$W/fresh/bin/python" -m pip show trz > "$W/out" 2>&1 && grep -q "^Version: " "$W/out" \
            && "$W/fresh/bin/python" -m pip uninstall -y trz > "$W/out" 2>&1 \
            && ! "$W/fresh/bin/python" -c 'import trz' 2> /dev/null \
            && [ -z "$(ls -d "$W"/fresh/lib/python*/site-packages/trz* 2> /dev/null)" ] \
            && ok || bad "a fresh virtual environment: pip show and pip uninstall trz" "$(tail -3 "$W/out")"
    else
        bad "make install-python into a fresh virtual environment" "$(tail -5 "$W/out")"
    fi
else
    bad "python3 -m venv (python3-venv)" "$(tail -3 "$W/out")"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]

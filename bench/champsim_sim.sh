#!/usr/bin/env bash
# champsim_sim.sh - the real ChampSim simulator reads a .trz through the
# change in docs/champsim.md (the trz_istream class, the branch in tracereader.cc and
# the two Makefile lines), and its statistics are the same as on the .xz.
# Given a ChampSim source tree (or a git directory of one), it installs trz
# into a temporary prefix, applies that change to a copy of the
# tree, builds the simulator as ../shared/tools/champsim/README.md says
# (Debian's packages, no vcpkg), compresses a ChampSim trace to .trz, runs
# the simulator on the .xz and on the .trz, and compares the JSON
# statistics with the trace's name put out of the way.  Ends with "N
# passed, M failed".  Not a `make check` step: it needs a ChampSim tree.
#   bench/champsim_sim.sh CHAMPSIM_SRC [TRACE.champsimtrace.xz]
#   WARMUP=1000000 SIM=3000000 (instructions; these are the defaults)
# ChampSim's build needs g++, make, python3, libfmt-dev, libcli11-dev,
# nlohmann-json3-dev, libbz2-dev, liblzma-dev and zlib1g-dev.
set -u
[ $# -ge 1 ] || { echo "usage: $0 CHAMPSIM_SRC [TRACE.champsimtrace.xz]" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$1
SHARED=${TRZ_SHARED_CORPUS:-$ROOT/../shared/corpus}
TRACE=${2:-$SHARED/champsim/sqlite3-5M.champsimtrace.xz}
WARMUP=${WARMUP:-1000000} SIM=${SIM:-3000000}
[ -f "$TRACE" ] || { echo "$TRACE: no such trace" >&2; exit 2; }
[ -x "$ROOT/trz" ] || { echo "$ROOT/trz: not built (make)" >&2; exit 2; }
for h in fmt/core.h CLI/CLI.hpp nlohmann/json.hpp; do
    echo "#include <$h>" | g++ -std=c++17 -E -x c++ - > /dev/null 2>&1 \
        || { echo "<$h> missing: apt-get install -y g++ libfmt-dev libcli11-dev nlohmann-json3-dev" >&2; exit 2; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-champsim.XXXXXX")
trap 'rm -rf "$W"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
# a make of its own, whatever make runs this script
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"; }

# trz, installed where pkg-config finds it
mk -s -C "$ROOT" install PREFIX="$W/prefix" > "$W/log" 2>&1 || { echo "make install failed: $(tail -3 "$W/log")" >&2; exit 1; }
export PKG_CONFIG_PATH=$W/prefix/lib/pkgconfig

# a copy of the tree: a checkout, or the HEAD of a git directory
CS=$W/champsim
if [ -f "$SRC/Makefile" ] && [ -f "$SRC/src/tracereader.cc" ]; then
    cp -a "$SRC" "$CS" && rm -rf "$CS/.git"
elif git --git-dir="$SRC" rev-parse --verify -q HEAD > /dev/null; then
    mkdir -p "$CS" && git --git-dir="$SRC" archive HEAD | tar -x -C "$CS"
else
    echo "$SRC: not a ChampSim source tree" >&2; exit 2
fi
[ -f "$CS/src/tracereader.cc" ] && [ -f "$CS/Makefile" ] || { echo "$SRC: no src/tracereader.cc or Makefile" >&2; exit 2; }

# the change, taken from docs/champsim.md
sed -n '/^\/\/ inc\/trz_istream.h (new)/,/^};$/p' "$ROOT/docs/champsim.md" > "$CS/inc/trz_istream.h"
sed -n '/^\/\/ src\/tracereader.cc, in get_tracereader_for_type/,/^\/\/ with #include/p' "$ROOT/docs/champsim.md" \
    | grep -v '^//' > "$W/branch.cc"
sed -n 's/^\/\/   \(.*\(CPPFLAGS\|LDLIBS\) +=.*\)$/\1/p' "$ROOT/docs/champsim.md" > "$W/flags.mk"
[ "$(wc -l < "$CS/inc/trz_istream.h")" -gt 10 ] && [ "$(wc -l < "$W/branch.cc")" = 2 ] && [ "$(wc -l < "$W/flags.mk")" = 2 ] \
    || { echo "docs/champsim.md: the ChampSim change not found" >&2; exit 1; }
awk -v branch="$W/branch.cc" '
    /^#include "tracereader.h"/ { print; print "#include \"trz_istream.h\""; next }
    /return champsim::tracereader\{R<T, std::ifstream>/ { while ((getline l < branch) > 0) print l }
    { print }' "$CS/src/tracereader.cc" > "$W/tr.cc" && mv "$W/tr.cc" "$CS/src/tracereader.cc"
grep -q trz_istream "$CS/src/tracereader.cc" && ok "the guide's branch in src/tracereader.cc" || bad "the guide's branch in src/tracereader.cc"
# Makefile.debian: ../shared/tools/champsim/README.md's three edits (no vcpkg),
# then the guide's two lines after ChampSim's own override lines
awk -v flags="$W/flags.mk" '
    /^override LDFLAGS/ && /TRIPLET_DIR/ { next }
    /^override LDLIBS/ { sub(/ -lCLI11/, ""); print; while ((getline l < flags) > 0) print l; next }
    /absolute.options/ { f = 1 }
    f && /-isystem/ { sub(/ -isystem \$\(realpath \$\(TRIPLET_DIR\)\/include\)/, ""); f = 0 }
    { print }' "$CS/Makefile" > "$CS/Makefile.debian"
grep -c 'pkg-config' "$CS/Makefile.debian" | grep -qx 2 && ok "the guide's Makefile lines in Makefile.debian" \
    || bad "the guide's Makefile lines in Makefile.debian"

echo "building ChampSim (a few minutes)..."
if (cd "$CS" && ./config.sh champsim_config.json && nice env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -f Makefile.debian -j2) > "$W/build.log" 2>&1 && [ -x "$CS/bin/champsim" ]; then
    ok "ChampSim builds with the guide's change"
else
    bad "ChampSim builds with the guide's change" "$(grep -m5 -E 'error|undefined' "$W/build.log")"
    echo "$pass passed, $fail failed"; exit 1
fi
ldd "$CS/bin/champsim" | grep -q "libtrz.so.0 => $W/prefix/lib/" && ok "the simulator links the installed libtrz" \
    || bad "the simulator links the installed libtrz" "$(ldd "$CS/bin/champsim" | grep trz)"

# the trace as .xz and as .trz, under one name inside the work directory
name=$(basename "$TRACE" .xz)
mkdir -p "$W/xz" "$W/trz"
ln -s "$(cd "$(dirname "$TRACE")" && pwd)/$(basename "$TRACE")" "$W/xz/$name.xz"
"$ROOT/trz" -q -c "$TRACE" > "$W/trz/$name.trz" || { bad "trz compresses $TRACE"; echo "$pass passed, $fail failed"; exit 1; }
echo "$name: .xz $(stat -L -c %s "$TRACE") bytes, .trz $(stat -c %s "$W/trz/$name.trz") bytes"
TIMEFORMAT='%U'
for k in xz trz; do
    { time "$CS/bin/champsim" --warmup-instructions "$WARMUP" --simulation-instructions "$SIM" \
        --json "$W/$k.json" "$W/$k/$name.$k" > "$W/$k.out" 2>&1; } 2> "$W/$k.time"
    echo "exit $?" >> "$W/$k.out"
    echo "$k: $(grep -m1 -E 'CPU 0 cumulative IPC' "$W/$k.out" | sed 's/^ *//'); $(tail -1 "$W/$k.time") s user"
    sed -e "s|$W/$k/$name.$k|TRACE|g" "$W/$k.json" > "$W/$k.norm.json"
done
grep -qx 'exit 0' "$W/xz.out" && grep -qx 'exit 0' "$W/trz.out" && ok "the simulator runs on both" \
    || bad "the simulator runs on both" "$(tail -3 "$W/trz.out")"
if [ -s "$W/xz.norm.json" ] && cmp -s "$W/xz.norm.json" "$W/trz.norm.json"; then
    ok "the same JSON statistics from the .trz as from the .xz ($(wc -c < "$W/xz.json") bytes)"
else
    bad "the same JSON statistics from the .trz as from the .xz" "$(diff "$W/xz.norm.json" "$W/trz.norm.json" | head -5)"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]

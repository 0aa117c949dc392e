#!/usr/bin/env bash
# make_traces.sh - records traces of real programs that no model of trz was tuned on, in the
# formats trz models: ChampSim input_instr and UPenn micro-op text of Debian's x86-64 programs,
# and RST of the sparc64 programs in progs/, all under QEMU user mode with the plugins built here
# (x86trace.so, rsttrace.so).  Each trace is checked (check_*.py) and its sizes raw, with xz -9
# and with trz (default level) go to OUT/README.md.  Traces are never for the repository.
#   bench/tracers/make_traces.sh [OUT]        (OUT defaults to /work/traces)
# ONLY="champsim/grep-E rst/lz77" records just those (the other rows of README.md stay);
# SKIP_CHAMPSIM=1, SKIP_UOP=1, SKIP_RST=1 leave a family out; COUNT_X86, COUNT_UOP, COUNT_RST set
# the instructions (records for RST) per trace.
# Needs Debian's qemu-user, gcc-sparc64-linux-gnu, libcapstone-dev, python3-capstone, sqlite3,
# bzip2 and xz-utils; as root it installs the missing ones with apt-get, otherwise it names them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-/work/traces}
py=/usr/bin/python3               # Debian's, where python3-capstone lives

need=()
for p in qemu-user:/usr/bin/qemu-x86_64 gcc-sparc64-linux-gnu:/usr/bin/sparc64-linux-gnu-gcc \
         libcapstone-dev:/usr/include/capstone/capstone.h \
         python3-capstone:/usr/lib/python3/dist-packages/capstone/__init__.py \
         sqlite3:/usr/bin/sqlite3 bzip2:/bin/bzip2 xz-utils:/usr/bin/xz gcc:/usr/bin/gcc; do
    [ -e "${p#*:}" ] || need+=("${p%%:*}")
done
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" || exit 1
    else
        echo "make_traces.sh: needs Debian packages: ${need[*]} (apt-get install them as root)" >&2
        exit 1
    fi
fi

build=$out/.build
mkdir -p "$out"/champsim "$out"/rst "$out"/uop "$build" || exit 1
make -s -C "$here" OUT="$build" || exit 1
make -s -C "$root" trz > /dev/null || exit 1
trz=$root/trz

# ---- inputs (fixed, so that a rerun gives the same traces) ----
in=$build/inputs
mkdir -p "$in"
find "$root/src" "$root/codecs" -name '*.[ch]' | LC_ALL=C sort | xargs cat > "$in/text.in"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$in/text.in"; done > "$in/text10.in"
seq 1 200000 | awk 'BEGIN { srand(7) } { print rand() "\t" $0 }' | LC_ALL=C sort | cut -f2 > "$in/nums.in"
gcc -E -P -I"$root/include" -I"$root/src" -I"$root/codecs" "$root/src/reader.c" > "$in/cc1.i" 2> /dev/null \
    || cp "$in/text.in" "$in/cc1.i"
cat > "$in/work.py" <<'EOF'
import collections, json, re
words = re.findall(r"[A-Za-z_]+", open(__import__("sys").argv[1]).read())
counts = collections.Counter(words)
index = {}
for i, w in enumerate(words):
    index.setdefault(w[:3], []).append(i)
pairs = sorted(((c, w) for w, c in counts.items()), reverse=True)[:200]
blob = json.dumps({"top": pairs, "n": len(words), "keys": sorted(index)[:500]})
print(len(blob), sum(len(v) for v in index.values()))
EOF
cat > "$in/work.sql" <<'EOF'
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, s TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 40000)
INSERT INTO t(k, s) SELECT (i * 7919) % 10007, printf('row%06d-%x', i, i * 31) FROM c;
CREATE INDEX tk ON t(k);
SELECT k % 100 AS g, count(*), sum(length(s)) FROM t GROUP BY g ORDER BY 3 DESC LIMIT 5;
SELECT count(*) FROM t a JOIN t b ON a.k = b.k WHERE a.id < b.id AND a.id < 5000;
UPDATE t SET s = upper(s) WHERE k BETWEEN 100 AND 3000;
SELECT s FROM t WHERE s LIKE '%FF%' ORDER BY k LIMIT 3;
EOF

readme=$out/README.md
rows=$build/rows                  # one table row per trace, kept across runs
mkdir -p "$rows"
fail=0
size() { stat -c %s "$1"; }

# record FORMAT NAME SKIP COUNT CHECK-ARGS -- COMMAND...: trace, check, compress, note a row
record() {
    local fmt=$1 name=$2 skip=$3 count=$4; shift 4
    [ "$1" = -- ] && shift
    case " ${ONLY:-$fmt/$name} " in *" $fmt/$name "*) ;; *) return ;; esac
    local ext plugin qemu recs
    case $fmt in
        champsim) ext=champsimtrace; plugin=x86trace.so; qemu=qemu-x86_64 ;;
        uop) ext=trace; plugin=x86trace.so; qemu=qemu-x86_64 ;;
        rst) ext=rst; plugin=rsttrace.so; qemu=qemu-sparc64 ;;
    esac
    local t=$out/$fmt/$name.$ext code=$build/$name.$fmt.code
    local args="out=$t,skip=$skip,count=$count"
    case $fmt in
        rst) local cmd="$(basename "$1") ${*:2}"; args="$args,cmd=${cmd//,/;}" ;;
        *) args="$args,format=$fmt,code=$code" ;;
    esac
    echo "== $fmt $name: $*" >&2
    (cd "$in" && "$qemu" -plugin "$build/$plugin,$args" "$@" > "$build/$name.$fmt.out" 2> "$build/$name.$fmt.err") \
        || grep -q recorded "$build/$name.$fmt.err" || { echo "make_traces.sh: $name failed" >&2; cat "$build/$name.$fmt.err" >&2; fail=1; return; }
    case $fmt in
        champsim) "$py" "$here/check_champsim.py" "$t" "$code" > "$build/$name.$fmt.check"; recs=$(( $(size "$t") / 64 )) ;;
        uop) "$py" "$here/check_uop.py" "$t" > "$build/$name.$fmt.check"; recs=$(wc -l < "$t") ;;
        rst) "$py" "$here/check_rst.py" "$t" > "$build/$name.$fmt.check"; recs=$(( $(size "$t") / 24 )) ;;
    esac
    [ $? = 0 ] || { echo "make_traces.sh: $name: check failed" >&2; fail=1; }
    cat "$build/$name.$fmt.check" >&2
    xz -9 -T1 -k -c "$t" > "$t.xz" || fail=1
    "$trz" -q -f -o "$t.trz" "$t" || fail=1
    "$trz" -q -t "$t.trz" || { echo "make_traces.sh: $name: trz -t failed" >&2; fail=1; }
    local fmtname
    fmtname=$("$trz" -l "$t.trz" | awk 'NR == 2 { print $1 }')
    local sum
    sum=$(sed -n '1s/^[^:]*: //p' "$build/$name.$fmt.check")
    [ "$fmt" = champsim ] && sum="$sum; $(sed -n '3s/^ *//p' "$build/$name.$fmt.check")"
    printf '| %s/%s | `%s` | %s | %s | %s | %s | %s (%s) | %s |\n' "$fmt" "$(basename "$t")" "${*//|/\\|}" \
        "$recs" "$skip" "$(size "$t")" "$(size "$t.xz")" "$(size "$t.trz")" "$fmtname" "$sum" \
        > "$rows/$fmt-$name.md"
    rm -f "$t.xz"                 # the sizes are noted; keep the raw trace and the .trz
}

qx=/usr/bin
cc1=/usr/lib/gcc/x86_64-linux-gnu/12/cc1
n=${COUNT_X86:-4000000}
if [ -z "${SKIP_CHAMPSIM:-}" ]; then
    record champsim bzip2-9 2000000 "$n" -- $qx/bzip2 -9 -c text.in
    record champsim xz-6 3000000 "$n" -- $qx/xz -6 -T1 -c text.in
    record champsim sort-n 2000000 "$n" -- $qx/sort -n --parallel=1 -S 64M nums.in
    record champsim python3-words 30000000 "$n" -- $qx/python3 -S work.py text.in
    record champsim cc1-O2 5000000 "$n" -- "$cc1" -quiet -O2 cc1.i -o /dev/null
    record champsim sqlite3 5000000 "$n" -- $qx/sqlite3 :memory: -init work.sql .quit
    record champsim grep-E 1000000 "$n" -- $qx/grep -E -o -i '(struct|union) [a-z_]+ \*[a-z]+|0x[0-9a-f]{4,}|[a-z_]+\(' text10.in
    record champsim awk 2000000 "$n" -- $qx/mawk '{ n += NF; for (i = 1; i <= NF; i++) c[$i]++ } END { print n, length(c) }' text.in
fi
u=${COUNT_UOP:-1000000}
if [ -z "${SKIP_UOP:-}" ]; then
    record uop bzip2-9 2000000 "$u" -- $qx/bzip2 -9 -c text.in
    record uop sqlite3 5000000 "$u" -- $qx/sqlite3 :memory: -init work.sql .quit
    record uop python3-words 30000000 "$u" -- $qx/python3 -S work.py text.in
fi
r=${COUNT_RST:-1500000}
if [ -z "${SKIP_RST:-}" ]; then
    for p in listchase quicksort hashtab matmul bytecode lz77; do
        sparc64-linux-gnu-gcc -O2 -static -o "$in/$p" "$here/progs/$p.c" || { fail=1; continue; }
    done
    record rst listchase 3000000 "$r" -- ./listchase 50000 40
    record rst quicksort 3000000 "$r" -- ./quicksort 200000 5
    record rst hashtab 200000 "$r" -- ./hashtab 400000
    record rst matmul 2000000 "$r" -- ./matmul 160
    record rst bytecode 200000 "$r" -- ./bytecode 30000
    record rst lz77 4000000 "$r" -- ./lz77 300000
fi

{
    echo "# Traces of real programs, recorded here"
    echo
    echo "Made by the project's \`bench/tracers/make_traces.sh\` on $(date -u +%Y-%m-%d) with qemu-user"
    echo "$(qemu-x86_64 -version | head -1 | sed 's/.*version //'), one QEMU TCG plugin per family: x86-64"
    echo "programs of Debian 12 as ChampSim \`input_instr\` (64-byte records) and UPenn micro-op text,"
    echo "static sparc64 builds of the C programs in \`bench/tracers/progs/\` (sparc64-linux-gnu-gcc -O2"
    echo "-static) as RST 2.13. Inputs are made by the script (\`text.in\`: the project's C sources;"
    echo "\`nums.in\`: 200,000 shuffled numbers; \`work.sql\`, \`work.py\`, \`cc1.i\`: see the script)."
    echo "Records: 64-byte records, lines, or 24-byte RST records (INSTR count includes annulled"
    echo "slots; the header, strings and PAVADIFFs are counted too); skip: instructions executed"
    echo "before the first recorded one. Sizes in bytes; trz at its default level (its format in"
    echo "brackets: ChampSim has no trz codec yet, so it is stored raw). xz -9 is single-threaded."
    echo "The last column is the checker's summary (bench/tracers/check_*.py, all passed)."
    echo
    echo "| trace | command | records | skip | raw | xz -9 | trz | check |"
    echo "|---|---|---|---|---|---|---|---|"
    for f in champsim uop rst; do cat "$rows/$f-"*.md 2> /dev/null; done
} > "$readme"
echo "make_traces.sh: wrote $readme" >&2
exit $fail

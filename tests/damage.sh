#!/usr/bin/env bash
# damage.sh - chunks cut out, repeated, swapped, and whole groups cut out or
# repeated, in chained and unchained archives and in one of text, with the
# index left as it was and rebuilt to match (build/damage does the
# surgery): no read path ever gives wrong records with exit 0.
#   -d and -t (from a file and a pipe, 1 and 2 threads): exit 1;
#   --from/--count before, at and after the damage: exit 0 only with the
#     original's records;
#   --salvage (file and pipe): exit 1, and the output is the original less
#     exactly the ranges it reports lost (each by record number and offset);
#     no output file when nothing was recovered;
#   the C reader (build/damage read): whole reads and seeks, file and pipe;
#   trz join: refuses the damaged input;
#   archives written by trz 0.17 (tests/files): the same with the index
#     left as it was (nothing in them can tell a rebuilt one).
# `make check` runs a sample: every chunk of one small archive, three
# places in the others.  `make check-damage` (CI) runs every place of every
# archive (TRZ_DAMAGE_FULL=1).  Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/.." || exit 1
TRZ=$PWD/trz
DMG=$PWD/build/damage
FULL=${TRZ_DAMAGE_FULL:-0}
W=$(mktemp -d /tmp/trz-damage.XXXXXX)
trap 'rm -rf "$W"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# ---- archives: several chunks and groups each, from the project's samples ----
head -c 240000 corpus/loops-4cpu.rst > "$W/rst"                # 10,000 records
"$TRZ" -q -c --chunk-records=2000 --restart=96K "$W/rst" > "$W/chain.trz"     # 5 chunks, groups of 2
"$TRZ" -q -c --no-chain --chunk-records=2000 --restart=96K "$W/rst" > "$W/know.trz"
"$TRZ" -q -c --restart=0 --chunk-records=2000 "$W/rst" > "$W/alone.trz"
head -c 60000 corpus/tabs-variant.trace > "$W/uop"
"$TRZ" -q -c --chunk-records=100 --restart=24K "$W/uop" > "$W/text.trz"
NAMES="chain know alone text"
orig_of() { case $1 in text) echo "$W/uop" ;; old*) echo "$W/$1.orig" ;; *) echo "$W/rst" ;; esac; }
# archives of earlier versions (container versions 1, 3 and 4): the index left as it was
for g in tests/files/0.16-chain-rst-l9.trz tests/files/0.12-rst-know-groups.trz tests/files/0.17-bus-pbus-l19.trz \
         tests/files/0.16-chain-uop-l9.trz; do
    [ -f "$g" ] || continue
    n=old$(basename "$g" .trz | tr -c 'a-z0-9\n' '_')
    "$TRZ" -dc "$g" > "$W/$n.orig" 2>/dev/null || continue
    c=$("$DMG" info "$g" 2>/dev/null | wc -l)
    [ "$c" -ge 3 ] || continue
    cp "$g" "$W/$n.trz"
    NAMES="$NAMES $n"
done

# The slice --from=F --count=C of the original, as trz cuts it.
slice_of() { "$TRZ" -dc --from="$2" --count="$3" "$1" 2>/dev/null; }

# The original less the ranges a salvage reports lost ("N bytes at raw offset O").
expected_salvage() { # ORIGINAL ERRFILE
    python3 - "$1" "$2" <<'EOF'
import re, sys
data = open(sys.argv[1], 'rb').read()
cut = []
for line in open(sys.argv[2], errors='replace'):
    if 'may be numbered wrong' in line:
        sys.exit(3)          # an archive of 0.17 or earlier: what went where is not known
    if 'out of place' in line:
        continue
    m = re.search(r'\((\d+) bytes at raw offset (\d+)\)', line)
    if m:
        cut.append((int(m.group(2)), int(m.group(1))))
    elif 'lost' in line and 'salvaged' not in line:
        sys.exit(3)          # a loss whose size is not known: nothing to compare
out, at = bytearray(), 0
for off, n in sorted(cut):
    out += data[at:off]
    at = max(at, off + n)
out += data[at:]
sys.stdout.buffer.write(out)
EOF
}

# Every read path on one damaged archive D (of NAME, whose original is O).
check_one() { # WHAT D O
    local what=$1 d=$2 o=$3 rc t
    for t in 1 $([ "$FULL" = 1 ] && echo 2); do
        "$TRZ" -dc -T$t "$d" > "$W/out" 2> "$W/err"; rc=$?
        [ $rc = 1 ] && ok || bad "$what: -dc -T$t: exit $rc (want 1): $(head -c 200 "$W/err")"
    done
    "$TRZ" -dc < "$d" > "$W/out" 2> "$W/err"; rc=$?
    [ $rc = 1 ] && ok || bad "$what: -dc from a pipe: exit $rc: $(head -c 200 "$W/err")"
    "$TRZ" -t "$d" 2> "$W/err"; rc=$?
    [ $rc = 1 ] && ok || bad "$what: -t: exit $rc"
    # slices at the start, the middle and the end of the original
    local n; n=$("$TRZ" -l "$o.ref.trz" 2>/dev/null | awk 'NR==2 {print $4}')
    for f in $([ "$FULL" = 1 ] && echo "0 $((n - 7))") $((n / 2)); do
        slice_of "$o.ref.trz" "$f" 5 > "$W/want"
        for src in file pipe; do
            if [ $src = file ]; then "$TRZ" -dc --from=$f --count=5 "$d" > "$W/out" 2> "$W/err"; rc=$?
            else "$TRZ" -dc --from=$f --count=5 < "$d" > "$W/out" 2> "$W/err"; rc=$?; fi
            if [ $rc = 0 ] && ! cmp -s "$W/out" "$W/want"; then bad "$what: --from=$f from a $src: wrong records, exit 0"
            elif [ $rc -gt 1 ]; then bad "$what: --from=$f from a $src: exit $rc"
            else ok; fi
        done
    done
    # salvage: exit 1, the original less what it reports
    for src in file pipe; do
        if [ $src = file ]; then "$TRZ" -dc --salvage "$d" > "$W/out" 2> "$W/err"; rc=$?
        else "$TRZ" -dc --salvage < "$d" > "$W/out" 2> "$W/err"; rc=$?; fi
        [ $rc = 1 ] && ok || bad "$what: --salvage from a $src: exit $rc (want 1)"
        expected_salvage "$o" "$W/err" > "$W/want"; local e=$?
        if [ $e = 0 ] && ! cmp -s "$W/out" "$W/want"; then
            bad "$what: --salvage from a $src: the output is not the original less the ranges reported: $(head -c 400 "$W/err")"
        else ok; fi
    done
    # the C reader, every way
    "$DMG" read "$o" "$d" $([ "$FULL" = 1 ] && echo 4 || echo 2) > "$W/rd" 2>&1; rc=$?
    [ $rc = 0 ] && ok || bad "$what: the C reader: $(grep WRONG "$W/rd" | head -3)"
    # join takes no damaged input
    "$TRZ" join -f -o "$W/j.trz" "$d" 2> "$W/err"; rc=$?
    [ $rc = 1 ] && ok || bad "$what: join: exit $rc (want 1)"
}

for name in $NAMES; do
    a=$W/$name.trz
    o=$(orig_of "$name")
    cp "$a" "$o.ref.trz"
    "$DMG" info "$a" > "$W/info"
    nc=$(wc -l < "$W/info")
    starts=$(awk '$2 == "start" && $1 > 0 {print $1}' "$W/info" | tr '\n' ' ')
    # the places: every chunk of the chained archive when FULL, or in the
    # sample run the first chained one; else the second chunk, one in the
    # middle, the last but one
    all=$(seq 0 $((nc - 2)) | tr '\n' ' ')
    modes="left rebuild"
    case $name in old*) modes=left ;; esac # nothing in a 0.17 archive can tell a rebuilt index
    for m in $modes; do
        rb=; [ $m = rebuild ] && rb=rebuild
        for op in cut dup swap; do
            # every place of the chained archive, and of every archive when
            # FULL; else one place of each operation
            places=$all
            if [ "$FULL" != 1 ] && [ "$name" != chain ]; then
                case $op in cut) places=1 ;; dup) places=$((nc / 2)) ;; swap) places=$((nc - 2)) ;; esac
            fi
            for k in $places; do
                "$DMG" $op "$a" "$W/d.trz" "$k" $rb || { bad "$name: $op $k: the surgery failed"; continue; }
                check_one "$name: $op chunk $k, index $m" "$W/d.trz" "$o"
            done
        done
        for k in $starts; do
            for op in cutgroup dupgroup; do
                [ "$FULL" = 1 ] || [ "$k" = "$(echo $starts | cut -d' ' -f1)" ] || continue
                # the last group cut and the index rebuilt is a shorter archive, valid in
                # every way: no format can tell (FORMAT.md, "Damage and salvage")
                [ $op = cutgroup ] && [ $m = rebuild ] && [ "$k" = "$(echo $starts | awk '{print $NF}')" ] && continue
                "$DMG" $op "$a" "$W/d.trz" "$k" $rb || { bad "$name: $op $k: the surgery failed"; continue; }
                check_one "$name: $op at chunk $k, index $m" "$W/d.trz" "$o"
            done
        done
    done
done

# --salvage that recovers nothing writes no file
printf '\x89TRZ garbage that is no archive at all, long enough to scan %.0s' {1..40} > "$W/junk.trz"
rm -f "$W/junk"
"$TRZ" -d --salvage "$W/junk.trz" 2> "$W/err"; rc=$?
[ $rc = 1 ] && [ ! -e "$W/junk" ] && ok || bad "salvage of nothing: exit $rc, output $(ls "$W/junk" 2>&1)"

# bytes inserted between two chunks that follow each other by their places:
# nothing lost, and no loss reported (file and pipe)
python3 - "$W/alone.trz" "$W/ins.trz" <<'EOF'
import sys
d = open(sys.argv[1], 'rb').read()
i = d.find(b'TZCK', d.find(b'TZCK') + 4)
open(sys.argv[2], 'wb').write(d[:i] + b'\x5a' * 22 + d[i:])
EOF
for how in file pipe; do
    if [ $how = file ]; then "$TRZ" -dc --salvage "$W/ins.trz" > "$W/got" 2> "$W/err"; rc=$?
    else "$TRZ" -dc --salvage < "$W/ins.trz" > "$W/got" 2> "$W/err"; rc=$?; fi
    [ $rc = 1 ] && cmp -s "$W/got" "$W/rst" && grep -q "nothing lost" "$W/err" && ! grep -q "lost records" "$W/err" && ok ||
        bad "bytes inserted between chunks ($how): exit $rc, $(wc -c < "$W/got") bytes, $(head -c 300 "$W/err")"
done

# the file-size limit: a write that fails with EFBIG, the temporary file removed
mkdir -p "$W/fs"
cp corpus/loops-4cpu.rst "$W/fs/t.rst"
( ulimit -f 2; "$TRZ" -q -f -1 "$W/fs/t.rst" -o "$W/fs/t.trz" 2> "$W/err" ); rc=$?
"$TRZ" -q -f "$W/fs/t.rst"
( ulimit -f 100; "$TRZ" -d -f "$W/fs/t.rst.trz" -o "$W/fs/back" 2> "$W/err2" ); rc2=$?
left=$(ls -a "$W/fs" | grep -c tmp)
[ $rc = 1 ] && [ $rc2 = 1 ] && [ "$left" = 0 ] && grep -q "File too large" "$W/err" && [ "$(wc -l < "$W/err")" = 1 ] && ok ||
    bad "file-size limit: exit $rc/$rc2, $left temporary files left, message: $(cat "$W/err" "$W/err2")"

echo "$pass passed, $fail failed"
[ $fail = 0 ]

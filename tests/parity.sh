#!/usr/bin/env bash
# parity.sh - parity sets (src/format/FORMAT.md, "Parity"): every sample is
# written with parity by default and round-trips; a byte changed, or a
# stretch of bytes, anywhere in one chunk's stored data (its streams, the
# parity itself included) is mended when read through the index: -d gives
# the original with exit 0 and names the chunk, -t and -l exit 1 naming
# it, seeks and threads give the same records; two damaged chunks in one
# set, or a pipe (no index to find the set), are damage as before, never
# wrong records with exit 0; a set that does not compress carries no
# parity (never larger than its input); --no-parity writes none.
#   tests/parity.sh [path/to/trz]      (prints "N passed, M failed" last)
set -u
TRZ=${1:-./trz}
TRZ=$(cd "$(dirname "$TRZ")" && pwd)/$(basename "$TRZ")
. "$(dirname "$0")/lib.sh" parity

# payload positions of an archive's chunks: "chunk offset header_len stored flags" per line
chunks() {
    python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
ix_off, msize = struct.unpack_from('<QQ', d, len(d) - 24)
start = len(d) - msize
ix = start + ix_off
n = struct.unpack_from('<I', d, ix + 4)[0]
for i in range(n):
    off, _, _, _, _, stored = struct.unpack_from('<QQQIII', d, ix + 8 + 40 * i)
    off += start
    ns, fl = d[off + 6], d[off + 7]
    print(i, off, (48 if fl & 4 else 28) + 10 * ns + 4, stored, fl)
EOF
}
# change LEN bytes at OFFSET of FILE (each XORed with a value 1..255)
hit() {
    python3 - "$1" "$2" "$3" "$4" <<'EOF'
import random, sys
path, at, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
random.seed(seed)
d = bytearray(open(path, 'rb').read())
for k in range(n):
    d[at + k] ^= random.randrange(1, 256)
open(path, 'wb').write(d)
EOF
}

seed=1
for s in "$ROOT"/corpus/*; do
    [ -f "$s" ] || continue
    case "$s" in *.md|*.txt) continue ;; esac
    b=$(basename "$s")
    "$TRZ" -q -f -T1 -c --chunk-size 64K "$s" > "$W/a.trz" 2> /dev/null || { bad "$b: compress"; continue; }
    "$TRZ" -dc "$W/a.trz" | cmp -s - "$s" && ok "$b: round trip" || { bad "$b: round trip"; continue; }
    flags=$(od -An -tu1 -j7 -N1 "$W/a.trz" | tr -d ' ')
    [ $((flags & 4)) = 4 ] && ok "$b: the header says parity" || bad "$b: header flags $flags"
    "$TRZ" -q -f -T1 -c --chunk-size 64K --no-parity "$s" > "$W/n.trz"
    flags=$(od -An -tu1 -j7 -N1 "$W/n.trz" | tr -d ' ')
    [ $((flags & 4)) = 0 ] && ! "$TRZ" -l -v "$W/n.trz" | grep -q ' parity ' && "$TRZ" -dc "$W/n.trz" | cmp -s - "$s" &&
        ok "$b: --no-parity writes none" || bad "$b: --no-parity"
    chunks "$W/a.trz" > "$W/list"
    if ! awk '$5 >= 8' "$W/list" | grep -q .; then
        # a sample that does not compress: no parity, and no larger than with none
        [ "$(stat -c %s "$W/a.trz")" -le $(( $(stat -c %s "$W/n.trz") + 8 )) ] && ok "$b: no set compresses, no parity" ||
            bad "$b: parity without a set that compresses"
        continue
    fi
    "$TRZ" -l -v "$W/a.trz" | grep -q ' 62 parity ' && ok "$b: -l -v lists the parity stream" || bad "$b: -l -v"
    n=$(wc -l < "$W/list")
    # a changed byte in each of three chunks (first, middle, last), one at a time
    for c in 0 $((n / 2)) $((n - 1)); do
        read -r _ off hl st fl < <(awk -v c=$c '$1 == c' "$W/list")
        seed=$((seed + 1))
        at=$((off + hl + (seed * 7919) % (st - hl)))
        cp "$W/a.trz" "$W/d.trz"; hit "$W/d.trz" $at 1 $seed
        "$TRZ" -dc -T1 "$W/d.trz" > "$W/out" 2> "$W/err"; rc=$?
        [ $rc = 0 ] && cmp -s "$W/out" "$s" && grep -q "chunk $c: damaged stored data, mended" "$W/err" &&
            ok "$b: a byte changed in chunk $c is mended" ||
            bad "$b: a byte changed in chunk $c (at $at)" "exit $rc: $(head -c 300 "$W/err")"
        "$TRZ" -dc -T2 "$W/d.trz" 2> /dev/null | cmp -s - "$s" && ok "$b: chunk $c mended, 2 threads" ||
            bad "$b: chunk $c, 2 threads"
        "$TRZ" -t "$W/d.trz" 2> "$W/err"; rc=$?
        [ $rc = 1 ] && grep -q "chunk $c: damaged stored data, mended" "$W/err" && ok "$b: -t names mended chunk $c" ||
            bad "$b: -t on chunk $c" "exit $rc: $(head -c 300 "$W/err")"
        cat "$W/d.trz" | "$TRZ" -dc > "$W/out" 2> "$W/err"; rc=$?
        [ $rc = 1 ] && cmp -s "$W/out" <(head -c "$(stat -c %s "$W/out")" "$s") && grep -q "chunk $c" "$W/err" &&
            ok "$b: from a pipe, chunk $c is damage (no index to find its set)" ||
            bad "$b: from a pipe, chunk $c" "exit $rc: $(head -c 300 "$W/err")"
    done
    # a stretch of 12 bytes in the middle chunk; the same stretch in a
    # second chunk of its set: not mended, and nothing wrong with exit 0
    c=$((n / 2))
    read -r _ off hl st fl < <(awk -v c=$c '$1 == c' "$W/list")
    if [ $((st - hl)) -gt 40 ]; then
        cp "$W/a.trz" "$W/d.trz"; hit "$W/d.trz" $((off + hl + (st - hl) / 3)) 12 5
        "$TRZ" -dc "$W/d.trz" 2> /dev/null | cmp -s - "$s" && ok "$b: a stretch of 12 bytes is mended" ||
            bad "$b: a stretch of 12 bytes"
        # the same set's other chunk: the one after it, unless a set ends at c
        o=$((c + 1)); [ $((fl & 8)) = 8 ] && o=$((c - 1))
        read -r _ off2 hl2 st2 _ < <(awk -v c=$o '$1 == c' "$W/list")
        if [ -n "${off2:-}" ] && [ $o -ge 0 ]; then
            hit "$W/d.trz" $((off2 + hl2 + (st2 - hl2) / 2)) 1 6
            "$TRZ" -dc "$W/d.trz" > "$W/out" 2> "$W/err"; rc=$?
            [ $rc = 1 ] && grep -q "checksum mismatch" "$W/err" && cmp -s "$W/out" <(head -c "$(stat -c %s "$W/out")" "$s") &&
                ok "$b: two damaged chunks in one set are damage" ||
                bad "$b: two damaged chunks in one set" "exit $rc: $(head -c 300 "$W/err")"
            "$TRZ" -dc --salvage "$W/d.trz" > "$W/out" 2> "$W/err"; rc=$?
            [ $rc = 1 ] && grep -q "lost records" "$W/err" && ok "$b: salvage reports the two" ||
                bad "$b: salvage of two damaged chunks" "exit $rc: $(head -c 300 "$W/err")"
        fi
    fi
    # the parity itself damaged (the last byte of a carrier)
    read -r c off hl st fl < <(awk '$5 >= 8' "$W/list" | head -1)
    cp "$W/a.trz" "$W/d.trz"; hit "$W/d.trz" $((off + st - 1)) 1 7
    "$TRZ" -dc "$W/d.trz" 2> "$W/err" | cmp -s - "$s" && grep -q "chunk $c: damaged stored data, mended" "$W/err" &&
        ok "$b: damaged parity is mended from the data" || bad "$b: damaged parity in chunk $c" "$(head -c 300 "$W/err")"
    # a seek into a mended chunk
    cp "$W/a.trz" "$W/d.trz"; c=$((n / 2))
    read -r _ off hl st fl < <(awk -v c=$c '$1 == c' "$W/list")
    hit "$W/d.trz" $((off + hl + (st - hl) / 2)) 1 8
    first=$("$TRZ" -l -v "$W/a.trz" | awk -v c=$c 'NF == 8 && $1 == c { print $2 }')
    "$TRZ" -dc --from=$first --count=20 "$W/a.trz" > "$W/want"
    "$TRZ" -dc --from=$first --count=20 "$W/d.trz" 2> /dev/null | cmp -s - "$W/want" &&
        ok "$b: a seek into a mended chunk" || bad "$b: a seek into mended chunk $c"
done

# random bytes: no set compresses, so no parity, and the archive is no larger than its input
head -c 3000000 /dev/urandom > "$W/rand"
"$TRZ" -q -f -c "$W/rand" > "$W/r.trz"
[ "$(stat -c %s "$W/r.trz")" -le $((3000000 + 200)) ] && ! "$TRZ" -l -v "$W/r.trz" | grep -q ' parity ' &&
    ok "random bytes: no parity, no larger than the input" || bad "random bytes: $(stat -c %s "$W/r.trz") bytes"
# a trace of many sets (32 MiB of trace each) and a damaged chunk in a later one
python3 -c "
import sys
with open(sys.argv[1], 'wb') as f:
    for i in range(3 * 1024 * 1024):
        f.write((0x10000 + (i % 40000) * 4).to_bytes(8, 'big') + (i * 64 % 900000).to_bytes(8, 'big') + (i % 7).to_bytes(8, 'big'))
" "$W/long.rst"
"$TRZ" -q -f -1 -c --format=rst "$W/long.rst" > "$W/l.trz"
chunks "$W/l.trz" > "$W/list"
sets=$(awk '$5 >= 8' "$W/list" | wc -l)
[ "$sets" -ge 2 ] && ok "72 MiB of trace: $sets parity sets" || bad "72 MiB of trace: $sets parity sets"
read -r c off hl st fl < <(tail -2 "$W/list" | head -1)
hit "$W/l.trz" $((off + hl + 3)) 1 9
"$TRZ" -dc "$W/l.trz" 2> "$W/err" | cmp -s - "$W/long.rst" && grep -q "chunk $c: damaged" "$W/err" &&
    ok "a damaged chunk in a later set is mended" || bad "a damaged chunk in a later set" "$(head -c 300 "$W/err")"
# join: a mendable input is refused (join copies bytes), an intact one keeps its parity
"$TRZ" -q -f -c --chunk-size 64K "$ROOT/corpus/loops-4cpu.rst" > "$W/j1.trz"
"$TRZ" join -f -o "$W/j.trz" "$W/j1.trz" "$W/j1.trz" && "$TRZ" -dc "$W/j.trz" | cmp -s - <(cat "$ROOT/corpus/loops-4cpu.rst" "$ROOT/corpus/loops-4cpu.rst") &&
    [ $(( $(od -An -tu1 -j7 -N1 "$W/j.trz") & 4 )) = 4 ] && ok "join keeps the parity" || bad "join with parity"
chunks "$W/j.trz" > "$W/list"
read -r c off hl st fl < <(awk '$1 == 1' "$W/list")
hit "$W/j.trz" $((off + hl + 2)) 1 10
"$TRZ" -dc "$W/j.trz" 2> /dev/null | cmp -s - <(cat "$ROOT/corpus/loops-4cpu.rst" "$ROOT/corpus/loops-4cpu.rst") &&
    ok "a joined archive mends" || bad "a joined archive mends"
"$TRZ" join -f -o "$W/j2.trz" "$W/j.trz" 2> "$W/err"; rc=$?
[ $rc = 1 ] && [ ! -e "$W/j2.trz" ] && grep -q "mendable" "$W/err" && ok "join refuses a damaged, mendable input" ||
    bad "join of a damaged input" "exit $rc: $(head -c 300 "$W/err")"
finish

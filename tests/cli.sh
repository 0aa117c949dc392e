#!/usr/bin/env bash
# cli.sh - end-to-end tests of the trz command: round trips of edge cases,
# samples and (when present) the shared corpus; CLI behaviour with expected
# exit codes and messages; pipes, listing, concatenation, damaged archives.
#   tests/cli.sh [path/to/trz]      (prints "N passed, M failed" last)
set -u
TRZ=${1:-./trz}
TRZ=$(cd "$(dirname "$TRZ")" && pwd)/$(basename "$TRZ")
. "$(dirname "$0")/lib.sh" cli
# roundtrip NAME FILE [trz options...]: compress via pipe and via files, compare
roundtrip() {
    local name=$1 f=$2; shift 2
    if ! "$TRZ" -c "$@" < "$f" > "$W/rt.trz" 2> "$W/err"; then bad "$name" "compress: $(cat "$W/err")"; return; fi
    if ! "$TRZ" -dc < "$W/rt.trz" | cmp -s - "$f"; then bad "$name" "pipe round trip differs"; return; fi
    if ! "$TRZ" -t "$W/rt.trz" 2> "$W/err"; then bad "$name" "test: $(cat "$W/err")"; return; fi
    ok "$name"
}

# expect NAME RC PATTERN -- command...: exit code and a stderr pattern
expect() {
    local name=$1 rc=$2 pat=$3; shift 4
    "$@" > "$W/out" 2> "$W/err" < /dev/null
    local got=$?
    if [ "$got" != "$rc" ]; then bad "$name" "exit $got, expected $rc; stderr: $(head -c 300 "$W/err")"; return; fi
    if [ -n "$pat" ] && ! grep -qE "$pat" "$W/err"; then bad "$name" "stderr lacks /$pat/: $(head -c 300 "$W/err")"; return; fi
    if [ "$rc" != 0 ] && [ "$(wc -l < "$W/err")" -gt 3 ]; then bad "$name" "error is not short"; return; fi
    ok "$name"
}

# ---- edge cases ----
: > "$W/empty"
roundtrip "empty input" "$W/empty"
printf 'x' > "$W/one"; roundtrip "1 byte" "$W/one"
head -c 100003 /dev/urandom > "$W/rand"; roundtrip "random odd size" "$W/rand"
for fmt in rst byu pbus; do
    case $fmt in rst) rs=24;; byu) rs=12;; pbus) rs=6;; esac
    src=$(ls "$ROOT"/corpus/*."$fmt" | head -1)
    for n in $((rs - 1)) $rs $((rs + 1)); do
        head -c $n "$src" > "$W/e"; roundtrip "$fmt one record ($n bytes)" "$W/e" --format=$fmt
    done
    # a chunk of 1000 records, and 1000 records +- 1 record, +- 1 byte
    for n in $((999 * rs)) $((1000 * rs)) $((1001 * rs)) $((1000 * rs + 1)) $((2000 * rs - 1)); do
        head -c $n "$src" > "$W/e"; roundtrip "$fmt chunk edge ($n bytes)" "$W/e" --chunk-records=1000
    done
    head -c $((5000 * rs + 3)) "$src" > "$W/e"; roundtrip "$fmt 5 chunks with tail" "$W/e" --chunk-records=1000 -T2
done
printf 'no newline at end' > "$W/t"; roundtrip "text without final newline" "$W/t" --format=uop
printf '\n\n\r\n' > "$W/t"; roundtrip "blank lines" "$W/t" --format=uop
head -c 20000 "$ROOT/corpus/sjeng-like.trace" > "$W/t"; roundtrip "uop cut mid-line" "$W/t"
roundtrip "uop small chunks" "$ROOT/corpus/sjeng-like.trace" --chunk-size=4K
roundtrip "gzip back-end" "$ROOT/corpus/loops-4cpu.rst" --backend=gzip
roundtrip "level 1" "$ROOT/corpus/bus-2cpu.byu" -1
roundtrip "level 19" "$ROOT/corpus/bus-1cpu.pbus" -19
roundtrip "forced raw" "$ROOT/corpus/loops-4cpu.rst" --format=raw
roundtrip "rst forced on random" "$W/rand" --format=rst
roundtrip "byu forced on text" "$ROOT/corpus/tabs-variant.trace" --format=byu
roundtrip "uop forced on random" "$W/rand" --format=uop
# a chunk is never larger than its bytes stored: every codec forced on random bytes
for f in rst byu pbus uop champsim; do
    "$TRZ" -q -f -c --format=$f "$W/rand" > "$W/rand.trz"
    n=$(wc -c < "$W/rand.trz")
    if [ "$n" -le $((100003 + 300)) ]; then ok "$f forced on random: $n bytes"; else bad "$f forced on random: $n bytes, larger than stored"; fi
done

# ---- every sample, and the shared corpus when present ----
for f in "$ROOT"/corpus/*.rst "$ROOT"/corpus/*.byu "$ROOT"/corpus/*.pbus "$ROOT"/corpus/*.trace; do
    roundtrip "sample $(basename "$f")" "$f"
    roundtrip "sample $(basename "$f") -T2 4K chunks" "$f" -T2 --chunk-size=64K
done
if [ -d "$SHARED" ]; then
    for f in "$SHARED"/*/*; do
        case $f in
        *.md) continue;;
        *.zip|*.lz4|*.sz) continue;; # containers kept restorable: tests/drfile.sh
        *.xz) xz -dc "$f" > "$W/shared"; roundtrip "shared $(basename "$f")" "$W/shared" -T2;;
        *) roundtrip "shared $(basename "$f")" "$f";;
        esac
    done
else
    echo "note: $SHARED not present; shared-corpus round trips skipped"
fi

# ---- 100 MB of random data, threads give identical output ----
if [ -z "${TRZ_QUICK:-}" ]; then
    head -c 100000000 /dev/urandom > "$W/big"
    "$TRZ" -c -T1 "$W/big" > "$W/b1.trz" && "$TRZ" -c -T2 "$W/big" > "$W/b2.trz"
    if cmp -s "$W/b1.trz" "$W/b2.trz" && "$TRZ" -dc -T2 "$W/b2.trz" | cmp -s - "$W/big"; then ok "100 MB random, -T1 = -T2"; else bad "100 MB random"; fi
    rm -f "$W/big" "$W/b1.trz" "$W/b2.trz"
fi

# ---- files, suffixes, safety ----
cp "$ROOT/corpus/bus-1cpu.pbus" "$W/a.pbus"
expect "compress file" 0 "" -- "$TRZ" "$W/a.pbus"
[ -f "$W/a.pbus" ] && [ -f "$W/a.pbus.trz" ] && ok "input kept by default" || bad "input kept by default"
expect "refuse overwrite" 1 "already exists" -- "$TRZ" "$W/a.pbus"
expect "force overwrite" 0 "" -- "$TRZ" -f "$W/a.pbus"
expect "suffix skip" 1 "already has .trz suffix" -- "$TRZ" "$W/a.pbus.trz"
mv "$W/a.pbus" "$W/orig.pbus"
expect "decompress file" 0 "" -- "$TRZ" -d "$W/a.pbus.trz"
cmp -s "$W/a.pbus" "$W/orig.pbus" && ok "decompressed file equal" || bad "decompressed file equal"
expect "decompress unknown suffix" 1 "unknown suffix" -- "$TRZ" -d "$W/orig.pbus"
expect "missing file" 1 "No such file" -- "$TRZ" "$W/nope"
expect "directory" 1 "is a directory" -- "$TRZ" "$W"
expect "not trz" 1 "not a trz file" -- "$TRZ" -t "$W/orig.pbus"
expect "bad option" 2 "unknown option" -- "$TRZ" --bogus
expect "bad level" 2 "level" -- "$TRZ" -25 "$W/orig.pbus"
expect "bad format" 1 "unknown format" -- "$TRZ" -c --format=nope "$W/orig.pbus"
expect "help" 0 "" -- "$TRZ" --help
[ "$("$TRZ" --help | wc -l)" -le 30 ] && ok "help fits a screen" || bad "help fits a screen"
expect "version" 0 "" -- "$TRZ" --version
cp "$W/orig.pbus" "$W/r.pbus"
expect "--rm removes input" 0 "" -- "$TRZ" --rm "$W/r.pbus"
[ ! -e "$W/r.pbus" ] && [ -f "$W/r.pbus.trz" ] && ok "--rm after verified write" || bad "--rm after verified write"
# --rm only with the whole input in the output: a slice is refused before anything is written
for opt in "--from 10 --count 5" "--from 10" "--count 5" "--from=0"; do
    rm -f "$W/slice.out"; "$TRZ" -q -f -c "$W/orig.pbus" > "$W/slice.pbus.trz"
    # shellcheck disable=SC2086
    expect "--rm with $opt: refused" 1 "not with --from/--count" -- "$TRZ" -d --rm $opt -o "$W/slice.out" "$W/slice.pbus.trz"
    [ -f "$W/slice.pbus.trz" ] && [ ! -e "$W/slice.out" ] && ok "--rm with $opt: archive kept, nothing written" \
        || bad "--rm with $opt: archive kept, nothing written"
done
expect "-o names output" 0 "" -- "$TRZ" -o "$W/named.trz" "$W/orig.pbus"
[ -f "$W/named.trz" ] && ok "-o file exists" || bad "-o file exists"
if [ -w /dev/full ]; then
    expect "write to /dev/full" 1 "No space left" -- "$TRZ" -c "$W/orig.pbus" -o /dev/full
    expect "stdout to /dev/full" 1 "write error|No space" -- sh -c "'$TRZ' -c '$W/orig.pbus' > /dev/full"
    expect "decompress to /dev/full" 1 "No space" -- sh -c "'$TRZ' -dc '$W/named.trz' > /dev/full"
    [ -f "$W/orig.pbus" ] && ok "input intact after full disk" || bad "input intact after full disk"
fi
# a reader that leaves while worker threads still hold chunks: one error, no hang
head -c 3000000 /dev/urandom > "$W/big.bin"
bash -c "set -o pipefail; '$TRZ' -T3 --chunk-size=64K -c '$W/big.bin' | head -c 10 > /dev/null" 2> "$W/err"; rc=$?
[ $rc = 141 ] && [ ! -s "$W/err" ] && ok "threads, reader gone mid-stream: quiet, as by SIGPIPE" || bad "threads, reader gone mid-stream" "exit $rc: $(cat "$W/err")"
rm -f "$W/big.bin"
ls "$W"/.*tmp* >/dev/null 2>&1 && bad "no temporary files left" || ok "no temporary files left"
if command -v script >/dev/null; then
    script -qc "'$TRZ' -c '$W/orig.pbus'" /dev/null > "$W/tty.out" 2>&1
    grep -q "terminal" "$W/tty.out" && ok "refuses compressed data on a terminal" || bad "refuses compressed data on a terminal" "$(head -c 200 "$W/tty.out")"
fi

# ---- listing, ranges, dump ----
"$TRZ" -c --chunk-records=1000 "$ROOT/corpus/loops-4cpu.rst" > "$W/l.trz"
"$TRZ" -l "$W/l.trz" > "$W/list" 2>&1 && grep -q "rst" "$W/list" && grep -q "40000" "$W/list" && grep -q "records per chunk: 1000" "$W/list" \
    && ok "-l shows format, records, chunks" || bad "-l" "$(cat "$W/list")"
"$TRZ" -l -v "$W/l.trz" > "$W/listv" 2>&1 && grep -q "bytes per stream" "$W/listv" && ok "-l -v streams" || bad "-l -v"
# each chunk's model variant: the fast levels' byte streams, the range-coded model above them
"$TRZ" -c -1 --fast "$ROOT/corpus/loops-4cpu.rst" > "$W/l1.trz" && "$TRZ" -l -v "$W/l1.trz" > "$W/listv1" 2>&1 \
    && grep -q "Variant" "$W/listv1" && grep -Eq " rst +streams$" "$W/listv1" && ok "-l -v names the fast variant" \
    || bad "-l -v names the fast variant" "$(cat "$W/listv1")"
"$TRZ" -c -9 "$ROOT/corpus/loops-4cpu.rst" > "$W/l9.trz" && "$TRZ" -l -v "$W/l9.trz" > "$W/listv9" 2>&1 \
    && grep -Eq " rst +(range|streams)$" "$W/listv9" && ok "-l -v names the default's variant" \
    || bad "-l -v names the default's variant" "$(cat "$W/listv9")"
expect "-l on a pipe" 1 "pipe" -- sh -c "cat '$W/l.trz' | '$TRZ' -l"
"$TRZ" -d --from=1234 --count=567 -c "$W/l.trz" > "$W/range"
tail -c +$((1234 * 24 + 1)) "$ROOT/corpus/loops-4cpu.rst" | head -c $((567 * 24)) | cmp -s - "$W/range" && ok "--from/--count" || bad "--from/--count"
cat "$W/l.trz" | "$TRZ" -d --from=1234 --count=567 -c > "$W/range2"
cmp -s "$W/range" "$W/range2" && ok "--from/--count from a pipe" || bad "--from/--count from a pipe"
"$TRZ" -c "$ROOT/corpus/sjeng-like.trace" --chunk-size=64K > "$W/u.trz"
"$TRZ" -dc --from=5000 --count=3 "$W/u.trz" > "$W/lines"
sed -n '5001,5003p' "$ROOT/corpus/sjeng-like.trace" | cmp -s - "$W/lines" && ok "text --from/--count" || bad "text --from/--count"
"$TRZ" dump -s 5000 -n 3 "$W/u.trz" | cmp -s - "$W/lines" && ok "dump text" || bad "dump text"
[ "$("$TRZ" dump -s 100 -n 7 "$W/l.trz" | wc -l)" = 7 ] && ok "dump rst 7 lines" || bad "dump rst"
"$TRZ" dump -s 100 -n 7 "$ROOT/corpus/loops-4cpu.rst" | cmp -s - <("$TRZ" dump -s 100 -n 7 "$W/l.trz") && ok "dump raw = dump trz" || bad "dump raw = dump trz"

# ---- concatenation ----
"$TRZ" -c "$ROOT/corpus/bus-1cpu.pbus" > "$W/c1.trz"; "$TRZ" -c "$ROOT/corpus/bus-2cpu.byu" > "$W/c2.trz"
cat "$W/c1.trz" "$W/c2.trz" > "$W/cc.trz"
cat "$ROOT/corpus/bus-1cpu.pbus" "$ROOT/corpus/bus-2cpu.byu" > "$W/cc.raw"
"$TRZ" -dc "$W/cc.trz" | cmp -s - "$W/cc.raw" && ok "concatenated members (file)" || bad "concatenated members (file)"
cat "$W/cc.trz" | "$TRZ" -dc | cmp -s - "$W/cc.raw" && ok "concatenated members (pipe)" || bad "concatenated members (pipe)"
"$TRZ" -l "$W/cc.trz" | grep -q "2 members" && ok "-l counts members" || bad "-l counts members"

# ---- join: parts compressed apart become one archive with one index ----
split -b $((1000 * 24 * 7)) -d "$ROOT/corpus/loops-4cpu.rst" "$W/part."
for p in "$W"/part.*; do "$TRZ" -q --chunk-records=2000 "$p"; done
"$TRZ" join -o "$W/joined.trz" "$W"/part.*.trz
"$TRZ" -dc "$W/joined.trz" | cmp -s - "$ROOT/corpus/loops-4cpu.rst" && "$TRZ" -t "$W/joined.trz" \
    && "$TRZ" -l "$W/joined.trz" | grep -q "1 member" && ok "join: one member, same bytes" || bad "join"
"$TRZ" -d --from=20000 --count=10 -c "$W/joined.trz" | cmp -s - <(tail -c +$((20000 * 24 + 1)) "$ROOT/corpus/loops-4cpu.rst" | head -c 240) \
    && ok "join: seek in joined archive" || bad "join: seek"
expect "join refuses mixed formats" 1 "different format" -- "$TRZ" join -o "$W/mixed.trz" "$W/c1.trz" "$W/c2.trz"
# raw parts at -3 (zstd) and -9 (LZMA2): the joined member states LZMA2 in
# its header (flag bit 3) whichever part comes first
head -c 300000 "$ROOT/README.md" > "$W/rj1"; cat "$ROOT/trz.1" "$ROOT/trz.1" > "$W/rj2"
"$TRZ" -q -f -3 --format=raw -o "$W/rj1.trz" "$W/rj1" && "$TRZ" -q -f -9 --format=raw -o "$W/rj2.trz" "$W/rj2" &&
    "$TRZ" join -o "$W/rj.trz" "$W/rj1.trz" "$W/rj2.trz" && cat "$W/rj1" "$W/rj2" | cmp -s - <("$TRZ" -dc "$W/rj.trz") &&
    [ $(( $(od -An -tu1 -j7 -N1 "$W/rj.trz") & 8 )) = 8 ] && [ $(( $(od -An -tu1 -j7 -N1 "$W/rj1.trz") & 8 )) = 0 ] &&
    ok "join: a zstd part before an LZMA2 part gives a member that states LZMA2" || bad "join: LZMA2 flag"
# joinparts NAME MEMBERS FMT PART...: compress each part (with --format=FMT unless
# FMT is -), join them, and require exit 0, trz -t, MEMBERS members, the decoded
# join equal to cat of the decoded parts, and as many records as the whole input
# has when compressed in one go (MEMBERS 1) or as the parts have together
joinparts() {
    local name=$1 members=$2 fmt=$3; shift 3
    local p parts=() fopt=()
    [ "$fmt" != - ] && fopt=(--format="$fmt")
    rm -f "$W"/jp.*
    # (chunks that stand alone or carry knowledge: joined parts of chains
    # keep a group each, tests/chain.sh)
    for p in "$@"; do "$TRZ" -q -f -c --no-chain "${fopt[@]}" --chunk-size=16K "$p" > "$p.trz" && parts+=("$p.trz"); done
    if ! "$TRZ" join -o "$W/jp.trz" "${parts[@]}" 2> "$W/err"; then bad "$name" "join: $(cat "$W/err")"; return; fi
    if ! "$TRZ" -t "$W/jp.trz" 2> "$W/err"; then bad "$name" "trz -t: $(cat "$W/err")"; return; fi
    for p in "${parts[@]}"; do "$TRZ" -dc "$p"; done > "$W/jp.cat"
    if ! "$TRZ" -dc "$W/jp.trz" | cmp -s - "$W/jp.cat"; then bad "$name" "decodes to other bytes than the parts"; return; fi
    "$TRZ" -l "$W/jp.trz" > "$W/jp.l"
    if ! grep -q "; $members member" "$W/jp.l"; then bad "$name" "not $members member(s): $(cat "$W/jp.l")"; return; fi
    local want got
    if [ "$members" = 1 ]; then "$TRZ" -q -f -c --no-chain "${fopt[@]}" "$W/jp.cat" > "$W/jp.whole.trz"; want=$("$TRZ" -l "$W/jp.whole.trz" | awk 'NR == 2 { print $4 }')
    else want=$(for p in "${parts[@]}"; do "$TRZ" -l "$p"; done | awk '$1 == "Format" { getline; n += $4 } END { print n }'); fi
    got=$(awk 'NR == 2 { print $4 }' "$W/jp.l")
    if [ "$got" != "$want" ]; then bad "$name" "-l says $got records, expected $want"; return; fi
    ok "$name"
}
U=$ROOT/corpus/sjeng-like.trace B=$ROOT/corpus/bus-2cpu.byu
split -b 400000 -d "$U" "$W/ub."
joinparts "join: text split mid-line stays one member, lines counted once" 1 - "$W"/ub.0?
split -l 4000 -d "$U" "$W/ul."
joinparts "join: text split at newlines" 1 - "$W"/ul.0?
head -n 1000 "$U" > "$W/u3.a"; tail -n +1001 "$U" | head -c 300001 > "$W/u3.b"; tail -n +1001 "$U" | tail -c +300002 > "$W/u3.c"
[ "$(tail -c 1 "$W/u3.b" | od -An -c | tr -d ' ')" != '\n' ] || bad "join: test setup" "u3.b ends a line"
joinparts "join: three text parts, the middle one ending mid-line" 1 - "$W"/u3.a "$W"/u3.b "$W"/u3.c
# a part of one chunk has no knowledge (version 1), the others have: cut
# inside lines, they still make one member
head -c 9000 "$U" > "$W/uk.a"; tail -c +9001 "$U" | head -c 100000 > "$W/uk.b"; tail -c +109001 "$U" | head -c 7000 > "$W/uk.c"
tail -c +116001 "$U" | head -c 60000 > "$W/uk.d"
joinparts "join: text parts with and without knowledge, cut inside lines, stay one member" 1 - "$W"/uk.a "$W"/uk.b "$W"/uk.c "$W"/uk.d
split -n 3 -d "$B" "$W/bb."
joinparts "join: BYU parts with partial records: a member after each" 3 byu "$W"/bb.0?
split -b $((12 * 30000)) -d "$B" "$W/bw."
joinparts "join: BYU parts of whole records stay one member" 1 byu "$W"/bw.0?
# parts written with and without carried knowledge: a member where the
# version changes, and every chunk still decodes with its own group's facts
C=$ROOT/corpus/mix.champsimtrace
split -b $((64 * 6000)) -d "$C" "$W/ck."
"$TRZ" -q -f --chunk-size=64K "$W/ck.00" && "$TRZ" -q -f --chunk-size=64K --restart=0 "$W/ck.01" \
    && "$TRZ" -q -f --chunk-size=64K "$W/ck.02" && "$TRZ" -q -f --chunk-size=64K "$W/ck.03"
if "$TRZ" join -o "$W/ck.trz" "$W"/ck.0?.trz 2> "$W/err" && "$TRZ" -t "$W/ck.trz" && "$TRZ" -dc "$W/ck.trz" | cmp -s - "$C" \
        && "$TRZ" -l "$W/ck.trz" | grep -q "; 3 members" \
        && "$TRZ" -d --from=16000 --count=100 -c "$W/ck.trz" | cmp -s - <(tail -c +$((16000 * 64 + 1)) "$C" | head -c 6400); then
    ok "join: parts with and without knowledge: a member per change, same bytes, seeks"
else bad "join: parts with and without knowledge" "$(cat "$W/err"; "$TRZ" -l "$W/ck.trz")"; fi
# an input with a damaged chunk (its headers and index intact) is caught by
# the check after writing: exit 1, and no output
cp "$W/bw.01.trz" "$W/bw-bad.trz"; printf '\377' | dd of="$W/bw-bad.trz" bs=1 seek=400 conv=notrunc status=none
expect "join: a damaged input: exit 1" 1 "join: .*jbad.trz.*chunk [0-9]+: stored data checksum mismatch" -- "$TRZ" join -o "$W/jbad.trz" "$W/bw.00.trz" "$W/bw-bad.trz"
[ ! -e "$W/jbad.trz" ] && [ -z "$(ls -A "$W" | grep 'jbad')" ] && ok "join: a damaged input leaves no output" || bad "join: a damaged input leaves no output"
if [ -f "$SHARED/uop/sjeng-1K.trace" ]; then
    mkdir -p "$W/js" && (cd "$W/js" && split -b 40000 "$SHARED/uop/sjeng-1K.trace" part_)
    joinparts "join: sjeng-1K split -b 40000" 1 - "$W"/js/part_*
fi

# ---- compressed input is unwrapped ----
gzip -c "$ROOT/corpus/sjeng-like.trace" > "$W/s.trace.gz"
"$TRZ" -c "$W/s.trace.gz" > "$W/gz.trz" && "$TRZ" -l "$W/gz.trz" | grep -q "uop" && "$TRZ" -dc "$W/gz.trz" | cmp -s - "$ROOT/corpus/sjeng-like.trace" \
    && ok "gzip input stored uncompressed" || bad "gzip input stored uncompressed"
zstd -q -c "$ROOT/corpus/bus-2cpu.byu" > "$W/b.zst"
"$TRZ" -c "$W/b.zst" > "$W/zs.trz" && "$TRZ" -dc "$W/zs.trz" | cmp -s - "$ROOT/corpus/bus-2cpu.byu" && ok "zstd input unwrapped" || bad "zstd input unwrapped"
head -c 3000 "$W/s.trace.gz" > "$W/cut.gz"
expect "truncated gzip input" 1 "" -- "$TRZ" -c "$W/cut.gz" -o "$W/cut.trz"

# ---- nothing is lost: the output is never the input, never a file that appeared meanwhile ----
cp "$ROOT/corpus/sjeng-like.trace" "$W/in.trace"
expect "-o on the input itself" 1 "is the input itself" -- "$TRZ" -f --rm -o "$W/in.trace" "$W/in.trace"
cmp -s "$W/in.trace" "$ROOT/corpus/sjeng-like.trace" && ok "the input is kept" || bad "the input is kept"
ln -sf "$W/in.trace" "$W/in.link"; ln -f "$W/in.trace" "$W/in.hard"
expect "-o on a symlink to the input" 1 "is the input itself" -- "$TRZ" -f --rm -o "$W/in.link" "$W/in.trace"
expect "-o on a hard link of the input" 1 "is the input itself" -- "$TRZ" -f --rm -o "$W/in.hard" "$W/in.trace"
cmp -s "$W/in.trace" "$ROOT/corpus/sjeng-like.trace" && ok "the input is kept (links)" || bad "the input is kept (links)"
"$TRZ" -q -k "$W/in.trace"
expect "-d -o on the archive itself" 1 "is the input itself" -- "$TRZ" -d -f --rm -o "$W/in.trace.trz" "$W/in.trace.trz"
"$TRZ" -t "$W/in.trace.trz" && ok "the archive is kept" || bad "the archive is kept"
expect "-c into the input itself" 1 "is the input itself" -- sh -c "exec \"$TRZ\" -c \"$W/in.trace\" >> \"$W/in.trace\""
# outputs that are not regular files (as the library's path functions decide, docs/library.md):
# a link is followed, the file it leads to replaced and the link kept; a link to nothing and a
# directory are refused; a FIFO is written to; join takes a regular file only
mkdir -p "$W/np"; printf old > "$W/np/target"; ln -sf target "$W/np/link"; ln -sf nowhere "$W/np/dangling"
"$TRZ" -q -f -o "$W/np/link" "$W/in.trace" && [ -L "$W/np/link" ] && "$TRZ" -dc "$W/np/target" | cmp -s - "$W/in.trace" \
    && ok "-f -o a symbolic link: its target replaced, the link kept" || bad "-f -o a symbolic link"
expect "-o a dangling symbolic link" 1 "does not exist" -- "$TRZ" -o "$W/np/dangling" "$W/in.trace"
[ ! -e "$W/np/nowhere" ] && ok "nothing made at a dangling link's end" || bad "a file made at a dangling link's end"
mkdir -p "$W/np/dir"
expect "-o a directory" 1 "directory" -- "$TRZ" -f -o "$W/np/dir" "$W/in.trace"
mkfifo "$W/np/fifo"
( cat "$W/np/fifo" > "$W/np/from-fifo" & "$TRZ" -q -f -o "$W/np/fifo" "$W/in.trace"; wait )
[ -p "$W/np/fifo" ] && "$TRZ" -dc < "$W/np/from-fifo" | cmp -s - "$W/in.trace" \
    && ok "-o a FIFO: written to, still a FIFO" || bad "-o a FIFO"
expect "join -o a FIFO" 1 "not a regular file" -- "$TRZ" join -f -o "$W/np/fifo" "$W/in.trace.trz"
[ -p "$W/np/fifo" ] && ok "join left the FIFO as it was" || bad "join replaced the FIFO"
# two writers of one output: one wins, the other keeps its input; nothing is lost
lost=0
for i in 1 2 3 4 5; do
    rm -f "$W/same.trz"
    cp "$ROOT/corpus/loops-4cpu.rst" "$W/A.rst"; cp "$ROOT/corpus/bus-2cpu.byu" "$W/B.byu"
    "$TRZ" -q --rm -o "$W/same.trz" "$W/A.rst" 2>/dev/null & "$TRZ" -q --rm -o "$W/same.trz" "$W/B.byu" 2>/dev/null & wait
    for x in A.rst:loops-4cpu.rst B.byu:bus-2cpu.byu; do
        f=${x%%:*} src=${x#*:}
        [ -e "$W/$f" ] || "$TRZ" -dc "$W/same.trz" | cmp -s - "$ROOT/corpus/$src" || lost=$((lost + 1))
    done
done
[ $lost = 0 ] && ok "two writers of one output lose nothing" || bad "two writers of one output" "$lost inputs lost"
# --rm: what it removes was verified and is on disk; without -f nothing is replaced
cp "$ROOT/corpus/bus-1cpu.pbus" "$W/r.pbus"; : > "$W/r.pbus.trz"
expect "existing output without -f" 1 "already exists" -- "$TRZ" --rm "$W/r.pbus"
[ -e "$W/r.pbus" ] && [ ! -s "$W/r.pbus.trz" ] && ok "input and existing output untouched" || bad "input and existing output untouched"

# ---- records: a file and a pipe agree, on concatenations of different formats too ----
"$TRZ" -q -c --chunk-size=4K "$ROOT/corpus/sjeng-like.trace" > "$W/t.trz"
cat "$W/t.trz" "$W/c2.trz" > "$W/tb.trz"
agree=0
for r in "0 5" "200 3" "14999 3" "15000 2" "114999 9" "115000 1"; do
    set -- $r
    a=$("$TRZ" -dc --from=$1 --count=$2 "$W/tb.trz" | md5sum); b=$(cat "$W/tb.trz" | "$TRZ" -dc --from=$1 --count=$2 | md5sum)
    [ "$a" = "$b" ] || { agree=1; echo "  --from=$1 --count=$2: file and pipe differ"; }
done
[ $agree = 0 ] && ok "--from/--count: file and pipe agree (text + BYU)" || bad "--from/--count: file and pipe agree"
"$TRZ" -dc --from=14999 --count=1 "$W/tb.trz" | cmp -s - <(tail -n 1 "$ROOT/corpus/sjeng-like.trace") \
    && ok "--from: the last line of the text member" || bad "--from: the last line of the text member"
"$TRZ" -dc --from=15000 --count=2 "$W/tb.trz" | cmp -s - <(head -c 24 "$ROOT/corpus/bus-2cpu.byu") \
    && ok "--from: the BYU member counts its own records" || bad "--from: the BYU member counts its own records"
expect "--from past the end (file)" 1 "record 115001 is past the end \\(115000 records\\)" -- "$TRZ" -dc --from=115001 "$W/tb.trz"
expect "--from past the end (pipe)" 1 "record 115001 is past the end \\(115000 records\\)" -- sh -c "cat \"$W/tb.trz\" | \"$TRZ\" -dc --from=115001"
"$TRZ" dump -s 14998 -n 4 "$W/tb.trz" > "$W/d1"; cat "$W/tb.trz" | "$TRZ" dump -s 14998 -n 4 > "$W/d2"
cmp -s "$W/d1" "$W/d2" && [ "$(wc -l < "$W/d1")" = 4 ] && grep -q '^15001: .*FETCH' "$W/d1" \
    && ok "dump: a pipe is read as an archive, each member in its format" || bad "dump from a pipe"
expect "dump -s past the end" 1 "past the end" -- "$TRZ" dump -s 200000 "$W/tb.trz"
cp "$W/t.trz" "$W/badmagic.trz"; printf 'X' | dd of="$W/badmagic.trz" bs=1 seek=1 conv=notrunc status=none
expect "dump of an archive with a damaged magic" 1 "damaged file header at byte 0 \\(bad magic\\)" -- "$TRZ" dump "$W/badmagic.trz"
read off8 st8 < <("$TRZ" -l -v "$W/t.trz" | awk 'NF == 8 && $1 == 8 { print $5, $6 }')
cp "$W/t.trz" "$W/flip.trz"; printf '\377' | dd of="$W/flip.trz" bs=1 seek=$((off8 + st8 - 2)) conv=notrunc status=none  # a payload byte of chunk 8
expect "-l -v on a damaged chunk" 1 "chunk 8: damaged stored data, mended from its parity set" -- "$TRZ" -l -v "$W/flip.trz"
"$TRZ" -q -c --no-parity --chunk-size=4K "$ROOT/corpus/sjeng-like.trace" > "$W/flip0.trz"
read off8 st8 < <("$TRZ" -l -v "$W/flip0.trz" | awk 'NF == 8 && $1 == 8 { print $5, $6 }')
printf '\377' | dd of="$W/flip0.trz" bs=1 seek=$((off8 + st8 - 2)) conv=notrunc status=none
expect "-l -v on a damaged chunk without parity" 1 "chunk [0-9]+: stored data checksum mismatch" -- "$TRZ" -l -v "$W/flip0.trz"

# ---- files that are not regular: skipped (never blocking on a FIFO), read
# as a stream with -f, never removed (timeout: a hang fails, as 124) ----
mkdir -p "$W/nr"; mkfifo "$W/nr/f"; mkfifo "$W/nr/g.trz"; cp "$W/orig.pbus" "$W/nr/b.pbus"
for m in "" -t -r -l; do
    expect "a FIFO${m:+ with $m}: skipped" 1 "nr/f: not a regular file" -- timeout 10 "$TRZ" $m "$W/nr/f"
done
expect "a FIFO with -d: skipped" 1 "g.trz: not a regular file" -- timeout 10 "$TRZ" -d "$W/nr/g.trz"
expect "a FIFO among files: the others done" 1 "not a regular file" -- timeout 10 "$TRZ" -q "$W/nr/f" "$W/nr/b.pbus"
[ -f "$W/nr/b.pbus.trz" ] && [ ! -e "$W/nr/f.trz" ] && [ -p "$W/nr/f" ] && ok "a FIFO among files: only the file compressed" \
    || bad "a FIFO among files: only the file compressed" "$(ls "$W/nr")"
(timeout 10 cat "$W/orig.pbus" > "$W/nr/f" &)
expect "a FIFO with -f --rm: read as a stream, kept" 1 "nr/f: not a regular file; not removed" -- timeout 10 "$TRZ" -f --rm "$W/nr/f"
[ -p "$W/nr/f" ] && "$TRZ" -dc "$W/nr/f.trz" | cmp -s - "$W/orig.pbus" && ok "a FIFO with -f: its bytes, the FIFO kept" \
    || bad "a FIFO with -f: its bytes, the FIFO kept"
if [ "$(id -u)" = 0 ] && mknod "$W/nr/dev" c 1 3 2> /dev/null; then
    expect "a device with --rm: skipped" 1 "dev: not a regular file" -- timeout 10 "$TRZ" --rm "$W/nr/dev"
    expect "a device with -f --rm: not removed" 1 "not removed" -- timeout 10 "$TRZ" -f --rm "$W/nr/dev"
    [ -c "$W/nr/dev" ] && ok "a device node is never removed" || bad "a device node is never removed"
else
    echo "note: not root (or no mknod here); device node cases skipped"
fi
rm -rf "$W/nr"

# ---- habits users bring from xz, zstd and gzip ----
xz -k -c "$ROOT/corpus/sjeng-like.trace" > "$W/u.trace.xz"; bzip2 -c "$ROOT/corpus/sjeng-like.trace" > "$W/u2.trace.bz2"
expect "xz input is unwrapped" 0 "" -- "$TRZ" -q "$W/u.trace.xz"
[ -f "$W/u.trace.trz" ] && [ ! -e "$W/u.trace.xz.trz" ] && "$TRZ" -dc "$W/u.trace.trz" | cmp -s - "$ROOT/corpus/sjeng-like.trace" \
    && ok "u.trace.xz -> u.trace.trz, the trace inside" || bad "u.trace.xz -> u.trace.trz"
"$TRZ" -l "$W/u.trace.trz" | grep -q "unwrapped: the input was xz-compressed" && ok "-l says what was unwrapped" || bad "-l says what was unwrapped"
[ "$(stat -c %s "$W/u.trace.trz")" -lt "$(stat -c %s "$W/u.trace.xz")" ] && ok ".xz input: the archive is smaller than the .xz" || bad ".xz input: smaller"
"$TRZ" -q "$W/u2.trace.bz2" && [ -f "$W/u2.trace.trz" ] && "$TRZ" -d -c "$W/u2.trace.trz" | cmp -s - "$ROOT/corpus/sjeng-like.trace" \
    && ok ".bz2 input unwrapped and named" || bad ".bz2 input unwrapped and named"
cp "$ROOT/corpus/bus-1cpu.pbus" "$W/notgz.gz"
"$TRZ" -q "$W/notgz.gz" && [ -f "$W/notgz.gz.trz" ] && ok "a .gz name that is not gzip keeps its suffix" || bad "a .gz name that is not gzip keeps its suffix"
"$TRZ" -dc "$W/u.trace.trz" | head -c 100 > /dev/null 2> "$W/err"; rc=${PIPESTATUS[0]}
[ ! -s "$W/err" ] && [ "$rc" != 1 ] && ok "-dc | head: ends quietly" || bad "-dc | head: ends quietly" "exit $rc: $(cat "$W/err")"
"$TRZ" -c "$ROOT/corpus/loops-4cpu.rst" 2> "$W/err" | head -c 100 > /dev/null; rc=${PIPESTATUS[0]}
[ ! -s "$W/err" ] && [ "$rc" != 1 ] && ok "-c | head: ends quietly" || bad "-c | head: ends quietly" "exit $rc: $(cat "$W/err")"
if command -v script > /dev/null; then
    script -qec "$TRZ -d" /dev/null < /dev/null > "$W/tty" 2>&1; rc=$?
    [ $rc = 1 ] && grep -q "compressed data cannot be read from a terminal" "$W/tty" && ok "-d with a terminal on stdin refuses" \
        || bad "-d with a terminal on stdin refuses" "exit $rc: $(head -c 200 "$W/tty")"
fi
"$TRZ" --threads 2 --format rst --chunk-size 8K --best -c "$ROOT/corpus/loops-4cpu.rst" > "$W/sp.trz" \
    && "$TRZ" --threads=2 --format=rst --chunk-size=8K -19 -c "$ROOT/corpus/loops-4cpu.rst" | cmp -s - "$W/sp.trz" \
    && ok "long options take their value after a space; --best is -19" || bad "long options after a space; --best"
"$TRZ" --fast -c "$ROOT/corpus/loops-4cpu.rst" | cmp -s - <("$TRZ" -1 -c "$ROOT/corpus/loops-4cpu.rst") && ok "--fast is -1" || bad "--fast is -1"
expect "--from without its value" 2 "needs a value" -- "$TRZ" -d --from
for c in "join --help:Usage: trz join" "dump --help:Usage: trz dump" "bench --help:trz bench"; do
    "$TRZ" ${c%%:*} > "$W/h" 2>&1 && grep -q "${c#*:}" "$W/h" && ok "trz ${c%%:*}" || bad "trz ${c%%:*}"
done
# bench measures every compressor on a symlinked input too (zstd skips symlinks it is given)
head -c 120000 "$ROOT/corpus/bus-1cpu.pbus" > "$W/bq.pbus"; ln -s "$W/bq.pbus" "$W/bq-link.pbus"
if "$TRZ" bench --quick --levels=1 --threads=1 --tmpdir="$W" "$W/bq-link.pbus" > "$W/bench.md" 2> "$W/bench.err" \
        && grep -q '^| trz -1 -T1 |.*| ok |$' "$W/bench.md" && ! grep -q FAILED "$W/bench.md"; then
    ok "bench on a symlinked input: every side ran"
else bad "bench on a symlinked input" "$(cat "$W/bench.err")"; fi
# a compressed input is benchmarked as the trace trz stores, for every side; xz -9 is in --quick
head -c 64000 "$ROOT/corpus/mix.champsimtrace" | xz -1 > "$W/bq.champsimtrace.xz"
if "$TRZ" bench --quick --levels=1 --threads=1 --tmpdir="$W" "$W/bq.champsimtrace.xz" > "$W/bench.md" 2> "$W/bench.err" \
        && grep -q '^64,000 bytes (unwrapped from xz); trz format champsim' "$W/bench.md" \
        && grep -q '^| xz -9 -T1 |.*| ok |$' "$W/bench.md" && ! grep -q FAILED "$W/bench.md"; then
    ok "bench on an .xz input: every side gets the trace inside"
else bad "bench on an .xz input" "$(head -5 "$W/bench.md") $(cat "$W/bench.err")"; fi
[ -z "$(ls "$W" | grep '^trz-bench')" ] && ok "bench leaves no work files" || bad "bench leaves no work files" "$(ls "$W")"
[ "$("$TRZ" --help | awk 'length($0) > 79' | wc -l)" = 0 ] && [ "$("$TRZ" --help | wc -l)" -le 24 ] && ok "--help fits 80 columns and a screen" || bad "--help fits 80 columns"
# the format names the library knows (its table, as the unknown-format
# message lists them) in every text that lists them: --help, the man page's
# --format, bench --help's --format and the README's table; drmemtrace in
# the opening lines of --help and of the man page
names=$("$TRZ" -c --format=nope "$ROOT/corpus/bus-1cpu.pbus" 2>&1 > /dev/null | sed -n 's/.*(auto, \(.*\))$/\1/p' | tr -d ,)
man_text() { sed -e 's/\\f[BIR]//g' -e 's/\\-/-/g' "$ROOT/trz.1"; }
man_text | awk '/^\.BI --format/ { f = 1; next } f && /^\.TP/ { exit } f' | tr '\n' ' ' | sed 's/\.  .*//' > "$W/man.format"
"$TRZ" --help | awk '/--format NAME/ { f = 1 } f && /--backend/ { exit } f' > "$W/help.format"
"$TRZ" bench --help | awk '/--format=NAME/ { f = 1 } f && /--match-zstd/ { exit } f' > "$W/bench.format"
awk '/^\| format \| records/ { f = 1 } f && /^$/ { exit } f' "$ROOT/README.md" | cut -d'|' -f2 | grep -o '`[a-z-]*`' | tr -d '`' > "$W/readme.format"
[ "$(echo $names | wc -w)" -ge 8 ] && ok "the library names its formats" || bad "the library names its formats" "$names"
for n in $names; do
    for t in help man bench readme; do
        grep -qE "(^|[^a-z-])$n([^a-z-]|$)" "$W/$t.format" && ok "$t lists format $n" || bad "$t lists format $n" "$(cat "$W/$t.format")"
    done
done
for t in help man bench readme; do   # and nothing the library does not know
    for n in $(grep -oE '[a-z][a-z-]+' "$W/$t.format" | grep -vxE 'auto|default|force|trz|s|format|or|probe|the|input|and|fall|back|to|NAME'); do
        echo " $names " | grep -q " $n " || bad "$t lists a format the library does not know" "$n"
    done
done
"$TRZ" --help | sed -n '2,5p' | grep -q drmemtrace && ok "--help's opening lines name drmemtrace" || bad "--help's opening lines name drmemtrace"
man_text | awk '/^\.SH DESCRIPTION/ { f = 1; next } f && /^\.PP/ { exit } f' | grep -q drmemtrace \
    && ok "the man page's description names drmemtrace" || bad "the man page's description names drmemtrace"
# --backend: zlib in the texts, gzip still taken
"$TRZ" --help | grep -E -- '--backend' | grep -q 'zlib' && ! "$TRZ" --help | grep -E -- '--backend' | grep -q gzip \
    && man_text | grep -A1 -- '^\.BI --backend' | grep -q zlib && ok "--backend says zlib" || bad "--backend says zlib"
"$TRZ" -q -c --backend=zlib "$ROOT/corpus/bus-1cpu.pbus" | cmp -s - <("$TRZ" -q -c --backend=gzip "$ROOT/corpus/bus-1cpu.pbus") \
    && ok "--backend=zlib is --backend=gzip" || bad "--backend=zlib is --backend=gzip"
expect "an unknown back-end names zstd and zlib" 2 "zstd or zlib" -- "$TRZ" --backend=lzma -c "$ROOT/corpus/bus-1cpu.pbus"
# -l -v: the columns after a long format name stay in place
"$TRZ" -q -c "$ROOT/corpus/core-6thr.drmemtrace" > "$W/lw1.trz"; "$TRZ" -q -c "$ROOT/corpus/mix-cloudsuite.champsimtrace" > "$W/lw2.trz"
for a in lw1 lw2; do
    "$TRZ" -l -v "$W/$a.trz" > "$W/lw" 2>&1
    awk '/^ *Chunk +First rec/ { h = index($0, "Variant"); getline; match($0, / [^ ]+$/); exit !(h == RSTART + 1) }' "$W/lw" \
        && awk 'NR == 1 { h = index($0, "Order"); getline; match($0, /^[^ ]+ +/); exit !(h == RLENGTH + 1) }' "$W/lw" \
        && ok "-l -v columns after a long format name ($a)" || bad "-l -v columns after a long format name ($a)" "$(cat "$W/lw")"
done
# -r: an archive met in a directory is passed over; -v names it (as gzip -r -v does)
mkdir -p "$W/rv"; cp "$W/lw1.trz" "$W/rv/old.trz"; head -c 6000 "$ROOT/corpus/bus-1cpu.pbus" > "$W/rv/new.pbus"
"$TRZ" -r "$W/rv" 2> "$W/err" && [ ! -s "$W/err" ] && [ -f "$W/rv/new.pbus.trz" ] && [ ! -e "$W/rv/old.trz.trz" ] \
    && ok "-r passes over archives quietly" || bad "-r passes over archives quietly" "$(cat "$W/err")"
rm -f "$W/rv/new.pbus.trz"
"$TRZ" -r -v "$W/rv" 2> "$W/err" && grep -qxF "trz: $W/rv/old.trz: already has .trz suffix -- ignored" "$W/err" \
    && ok "-r -v names the archives it passes over" || bad "-r -v names the archives it passes over" "$(cat "$W/err")"
cp "$ROOT/corpus/sjeng-like.trace" "$W/v.trace"
"$TRZ" -v "$W/v.trace" 2> "$W/err" && grep -qE "v.trace : [0-9.]+% \([0-9.]+ ([KMG]i)?B => [0-9.]+ ([KMG]i)?B, .*v.trace.trz\)" "$W/err" \
    && ok "-v ends with a summary line" || bad "-v ends with a summary line" "$(cat "$W/err")"
# -v of a compressed input and of a drmemtrace container: the ratio and sizes
# are the file's as given (not the trace inside), the line before says what
# was unwrapped; human NUM: the summary's way of writing a size
# (binary units, as zstd -v writes them)
human() { awk -v v="$1" 'BEGIN { if (v < 1024) printf "%d B", v; else if (v < 1048576) printf "%.1f KiB", v / 1024;
                                 else printf "%.1f MiB", v / 1048576 }'; }
python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(zipfile.ZipInfo("chunk.0000", (2024, 5, 6, 7, 8, 10)), open(sys.argv[1], "rb").read(), zipfile.ZIP_DEFLATED)' \
    "$ROOT/corpus/core-6thr.drmemtrace" "$W/v.trace.zip"
for v in "v.trace.zip:zip:v.trace.zip.trz:703.2 KiB of trace; the file is kept: trz -d restores it" "u.trace.xz:xz:u.trace.trz:1.3 MiB of trace"; do
    IFS=: read -r f kind out inside <<< "$v"
    rm -f "$W/$out"
    if "$TRZ" -v "$W/$f" 2> "$W/err"; then
        given=$(stat -c %s "$W/$f") arch=$(stat -c %s "$W/$out")
        want="$W/$f : $(awk -v a="$arch" -v g="$given" 'BEGIN { printf "%.2f", 100 * a / g }')% ($(human "$given") => $(human "$arch"), $W/$out)"
        grep -qxF "$want" "$W/err" && grep -qF "$W/$f: " "$W/err" && grep -qF ", unwrapped from $kind ($inside)" "$W/err" \
            && ok "-v of a .$kind input: the file as given, and what was unwrapped" \
            || bad "-v of a .$kind input: the file as given, and what was unwrapped" "want '$want'; got $(cat "$W/err")"
    else bad "-v of a .$kind input" "$(cat "$W/err")"; fi
done
expect "a forced format that does not fit warns" 0 "does not look like byu input \\(auto-detection picks rst\\)" -- "$TRZ" --format=byu -c "$ROOT/corpus/loops-4cpu.rst"
"$TRZ" --format=rst -c "$ROOT/corpus/loops-4cpu.rst" 2> "$W/err" > /dev/null && [ ! -s "$W/err" ] && ok "a forced format that fits says nothing" || bad "a forced format that fits says nothing" "$(cat "$W/err")"

# ---- what a new user met: slices, -l on many files, -v names, progress ----
# a slice of a named file without -c or -o: refused before anything is
# written (under the trace's name it would pass for the whole of it)
mkdir -p "$W/sl"; "$TRZ" -q -c "$ROOT/corpus/loops-4cpu.rst" > "$W/sl/t.rst.trz"
for opt in "--from=10 --count=5" "--from=10" "--count=5"; do
    # shellcheck disable=SC2086
    expect "a slice without -c/-o ($opt): usage error" 2 "write a slice, not the whole trace: name it with -o FILE, or use -c" \
        -- "$TRZ" -d $opt "$W/sl/t.rst.trz"
    [ "$(ls "$W/sl")" = t.rst.trz ] && ok "a slice without -c/-o ($opt): nothing written" || bad "a slice without -c/-o ($opt): nothing written" "$(ls "$W/sl")"
done
expect "a slice with -o" 0 "" -- "$TRZ" -d --from=10 --count=5 -o "$W/sl/five.rst" "$W/sl/t.rst.trz"
tail -c +241 "$ROOT/corpus/loops-4cpu.rst" | head -c 120 | cmp -s - "$W/sl/five.rst" && ok "a slice with -o: the records asked for" || bad "a slice with -o: the records asked for"
"$TRZ" -d --from=10 --count=5 < "$W/sl/t.rst.trz" | cmp -s - "$W/sl/five.rst" && ok "a slice of standard input goes to standard output" \
    || bad "a slice of standard input goes to standard output"
# -l on many files: one header, a row a file, a totals row that adds them up
"$TRZ" -q -c "$ROOT/corpus/sjeng-like.trace" > "$W/sl/u.trz"; "$TRZ" -q -c "$ROOT/corpus/bus-2cpu.byu" > "$W/sl/b.trz"
if "$TRZ" -l "$W/sl/t.rst.trz" "$W/sl/u.trz" "$W/sl/b.trz" > "$W/list" 2> "$W/err"; then
    sum=$(for f in t.rst.trz u.trz b.trz; do "$TRZ" -l "$W/sl/$f" | sed -n 2p; done \
          | awk '{ c += $3; r += $4; w += $5; z += $6 } END { printf "%d %d %d %d", c, r, w, z }')
    tot=$(grep '^total ' "$W/list" | awk '{ printf "%d %d %d %d", $3, $4, $5, $6 }')
    [ "$(grep -c '^Format ' "$W/list")" = 1 ] && [ "$(grep -c "$W/sl/" "$W/list")" = 3 ] && ! grep -q "records per chunk" "$W/list" \
        && [ "$sum" = "$tot" ] && [ "$(tail -1 "$W/list" | awk '{ print $(NF-1), $NF }')" = "3 files" ] \
        && [ "$(wc -l < "$W/list")" = 6 ] && ok "-l on many files: one table, a totals row" \
        || bad "-l on many files: one table, a totals row" "sum $sum, total $tot: $(cat "$W/list")"
    # the columns line up: every row as wide as the header up to the file name
    [ "$(grep -v '^---' "$W/list" | awk '{ match($0, /^([^ ]+ +){8}/); print RLENGTH }' | sort -u | wc -l)" = 1 ] && ok "-l on many files: the columns line up" \
        || bad "-l on many files: the columns line up" "$(cat "$W/list")"
else bad "-l on many files" "$(cat "$W/err")"; fi
"$TRZ" -l -v "$W/sl/t.rst.trz" "$W/sl/u.trz" > "$W/list" && [ "$(grep -c 'bytes per stream' "$W/list")" = 2 ] \
    && grep -q '^Totals:$' "$W/list" && tail -1 "$W/list" | grep -q '^total .* 2 files$' \
    && ok "-l -v on many files: each file's detail, then the totals" || bad "-l -v on many files" "$(cat "$W/list")"
"$TRZ" -l "$W/sl/t.rst.trz" > "$W/list" && ! grep -q '^total' "$W/list" && grep -q "records per chunk" "$W/list" \
    && ok "-l on one file: its table and detail, no totals" || bad "-l on one file" "$(cat "$W/list")"
"$TRZ" -l "$W/sl/t.rst.trz" "$W/sl/five.rst" "$W/sl/u.trz" > "$W/list" 2> "$W/err"; rc=$?
[ $rc = 1 ] && grep -q "five.rst" "$W/err" && tail -1 "$W/list" | grep -q '^total .* 2 files$' \
    && ok "-l on many files, one not an archive: said, exit 1, the others totalled" || bad "-l with a file that is not an archive" "exit $rc: $(cat "$W/list" "$W/err")"
# -v names the final files: never the temporary name --rm's check reads
cp "$ROOT/corpus/loops-4cpu.rst" "$W/sl/v.rst"
"$TRZ" -v --rm "$W/sl/v.rst" 2> "$W/err" && [ ! -e "$W/sl/v.rst" ] && ! grep -q '\.tmp' "$W/err" \
    && [ "$(grep -c "$W/sl/v.rst.trz" "$W/err")" = 1 ] && ok "-v --rm names the archive, not the temporary file" \
    || bad "-v --rm names the archive, not the temporary file" "$(cat "$W/err")"
"$TRZ" -vv --rm -d "$W/sl/v.rst.trz" 2> "$W/err" && ! grep -q '\.tmp' "$W/err" && ok "-vv --rm -d names no temporary file" \
    || bad "-vv --rm -d names no temporary file" "$(cat "$W/err")"
# an archive compressed again, from a pipe or under another name: said
expect "cat x.trz | trz -c warns: an archive in an archive" 0 "\\(stdin\\): warning: the input is a trz archive already" \
    -- sh -c "cat '$W/sl/t.rst.trz' | '$TRZ' -c > '$W/sl/again'"
"$TRZ" -dc "$W/sl/again" | cmp -s - "$W/sl/t.rst.trz" && ok "an archive in an archive gives the archive back" || bad "an archive in an archive gives the archive back"
cp "$W/sl/t.rst.trz" "$W/sl/t.bin"
expect "an archive under another name warns" 0 "t.bin: warning: the input is a trz archive already" -- "$TRZ" -k "$W/sl/t.bin"
expect "an archive in an archive, -q: quiet" 0 "" -- sh -c "cat '$W/sl/t.rst.trz' | '$TRZ' -qc > /dev/null"
[ ! -s "$W/err" ] && ok "-q: no warning" || bad "-q: no warning" "$(cat "$W/err")"
# dump -s at the record count names no record: an error, file and pipe
expect "dump -s N (N records): past the last record" 1 "record 40000 is past the end \\(40000 records\\)" -- "$TRZ" dump -s 40000 "$W/sl/t.rst.trz"
expect "dump -s N from a pipe" 1 "record 40000 is past the end \\(40000 records\\)" -- sh -c "cat '$W/sl/t.rst.trz' | '$TRZ' dump -s 40000"
"$TRZ" dump -s 39999 "$W/sl/t.rst.trz" | grep -q '^ *39999' && ok "dump -s N-1: the last record" || bad "dump -s N-1: the last record"
# progress on a terminal: a percentage of the size known, binary units
if command -v script > /dev/null; then
    head -c 40000000 /dev/urandom > "$W/sl/big"
    script -qec "$TRZ -k -f -T1 $W/sl/big" /dev/null < /dev/null > "$W/tty" 2>&1
    tr '\r' '\n' < "$W/tty" | grep -aqE "^$W/sl/big: +[0-9]+% [0-9.]+ MiB => [0-9.]+ MiB" && ! grep -aqE " [kMG]B" "$W/tty" \
        && ok "progress: a percentage, MiB" || bad "progress: a percentage, MiB" "$(tr '\r' '\n' < "$W/tty" | od -c | head -5)"
    script -qec "$TRZ -d -f -T1 $W/sl/big.trz" /dev/null < /dev/null > "$W/tty" 2>&1
    tr '\r' '\n' < "$W/tty" | grep -aqE "^$W/sl/big.trz: +[0-9]+% [0-9.]+ MiB" && ok "progress decompressing: a percentage of the trace" \
        || bad "progress decompressing: a percentage of the trace" "$(tr '\r' '\n' < "$W/tty" | od -c | head -5)"
    rm -f "$W/sl/big" "$W/sl/big.trz"
fi

# ---- damaged archives: truncation and corruption give one-line errors, exit 1 ----
"$TRZ" -c --chunk-records=2000 "$ROOT/corpus/loops-4cpu.rst" > "$W/d.trz"
size=$(stat -c %s "$W/d.trz")
tfail=0
for cut in 0 3 10 27 28 100 1000 $((size / 2)) $((size - 25)) $((size - 24)) $((size - 1)); do
    head -c $cut "$W/d.trz" > "$W/cut.trz"
    "$TRZ" -t "$W/cut.trz" > /dev/null 2> "$W/err"; rc=$?
    if [ $rc != 1 ] || [ "$(wc -l < "$W/err")" != 1 ]; then tfail=1; echo "  truncation at $cut: exit $rc: $(cat "$W/err")"; fi
done
[ $tfail = 0 ] && ok "truncations give exit 1 and one line" || bad "truncations"
cfail=0; n=0
for pos in $(seq 0 97 $((size - 1))); do
    cp "$W/d.trz" "$W/x.trz"
    printf "\\x$(printf %02x $(( ($(od -An -tu1 -j $pos -N1 "$W/d.trz") + 1) % 256 )))" | dd of="$W/x.trz" bs=1 seek=$pos conv=notrunc 2>/dev/null
    "$TRZ" -t "$W/x.trz" > /dev/null 2> "$W/err"; rc=$?
    n=$((n + 1))
    if [ $rc != 1 ]; then cfail=$((cfail + 1)); echo "  flip at $pos: exit $rc"; fi
done
[ $cfail = 0 ] && ok "corruption at $n positions detected" || bad "corruption" "$cfail of $n undetected or crashed"
# a byte flipped amid the chunks: the message names the chunk it is in
cp "$W/d.trz" "$W/x.trz"
printf "\\x$(printf %02x $(( ($(od -An -tu1 -j $((size / 2)) -N1 "$W/d.trz") + 1) % 256 )))" | dd of="$W/x.trz" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$TRZ" -t "$W/x.trz" > /dev/null 2> "$W/err"; rc=$?
[ $rc = 1 ] && grep -qE "^trz: .*: chunk [0-9]+: " "$W/err" && ok "corruption inside a chunk names the chunk" \
    || bad "corruption inside a chunk names the chunk" "exit $rc: $(cat "$W/err")"

# salvage after a loss of unknown end: the chunks after it are numbered in
# their member (its header went with the damage), and the lines say so
f=$(cd "$(dirname "$0")" && pwd)/fuzz/corpus/decode_any/salvage-open-loss-then-a-member-numbering-again.trz
"$TRZ" -dc --salvage "$f" > /dev/null 2> "$W/err"; rc=$?
[ $rc = 1 ] && grep -q "chunk 16 on: lost records from 480" "$W/err" &&
    grep -q "chunk 2 (numbered within its member) damaged: lost records 1000..1499" "$W/err" &&
    ok "salvage: the losses after one of unknown end are numbered within their member" ||
    bad "salvage: losses after one of unknown end" "exit $rc: $(head -c 400 "$W/err")"

finish

#!/usr/bin/env bash
# shellcheck disable=SC2034 # variables read by the conditions check() evals
# reliability.sh - a `make check` step: trz on damaged, cut and hostile
# archives, and its output files when things go wrong.
#   1. corruption and truncation sweeps over small multi-chunk archives of
#      every format (build/rel/sweep*: every byte, in process; a sample with
#      ASan and UBSan; a sample through ./trz and build/san/trz);
#   2. --salvage on a 6-chunk archive: a damaged chunk, header, index and
#      footer, a cut file, a pipe;
#   3. crafted hostile archives (build/rel/craft): error, bounded memory;
#   4. safe output: SIGINT/SIGTERM, a full disk, --rm.
# Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/.." || exit 1
S=$PWD/corpus
W=$(mktemp -d /tmp/trz-rel.XXXXXX)
# copies of the programs under test: the archives made here must meet the same code
mkdir -p "$W/bin"
cp trz "$W/bin/trz.plain"
cp build/san/trz "$W/bin/trz.san"
cp build/rel/sweep build/rel/sweep_fast build/rel/craft "$W/bin/"
TRZ=$W/bin/trz.plain
SAN=$W/bin/trz.san
REL=$W/bin
SMALL=""
cleanup() {
    [ -n "$SMALL" ] && umount "$SMALL" 2>/dev/null
    rm -rf "$W"
}
trap cleanup EXIT
export ASAN_OPTIONS=detect_leaks=1
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { # DESCRIPTION 'CONDITION': passes when the shell condition holds
    if eval "$2"; then ok "$1"; else bad "$1"; fi
}
lines() { wc -l < "$1" | tr -d ' '; }

# ---- sample archives: 4-6 chunks each, one or two KB ----
slice() { tail -c +"$(($2 + 1))" "$1" | head -c "$3"; }
slice "$S/loops-4cpu.rst" 48000 3840 > "$W/rst"
slice "$S/blaze-like-1cpu-le.rst" 0 2880 > "$W/rst-le"
tail -c 2882 "$S/bus-2cpu.byu" > "$W/byu"              # ends in the 2-byte tail
slice "$S/bus-1cpu.pbus" 6000 3000 > "$W/pbus"
head -c 1700 "$S/tabs-variant.trace" > "$W/uop"
slice "$S/sjeng-like.trace" 1000 2000 > "$W/raw"
# (the sweeps expect chunks alone or knowledge, chains: tests/chain.sh; and
# damage that is reported, not mended: parity, tests/parity.sh and the
# in-process sweeps of the parity samples below, which must never give
# wrong data)
"$TRZ" -q --no-chain --no-parity --chunk-records=40 "$W/rst"
"$TRZ" -q --no-chain --no-parity -1 --backend=gzip --chunk-records=30 "$W/rst-le"
"$TRZ" -q --no-chain --no-parity --chunk-records=60 "$W/byu"
"$TRZ" -q --no-chain --no-parity --chunk-records=100 "$W/pbus"
"$TRZ" -q --no-chain --no-parity --chunk-records=8 "$W/uop"
"$TRZ" -q --format=raw --no-parity --chunk-records=500 "$W/raw"
"$TRZ" -q -c --no-chain --chunk-records=40 "$W/rst" > "$W/rst-parity.trz"
"$TRZ" -q -c --no-chain --chunk-records=8 "$W/uop" > "$W/uop-parity.trz"
cat "$W/pbus" "$W/raw" > "$W/concat"
cat "$W/pbus.trz" "$W/raw.trz" > "$W/concat.trz"
slice "$S/sjeng-like.trace" 0 400000 > "$W/big"          # the bigger archive: spread positions
"$TRZ" -q --format=raw --no-parity --chunk-size=64K "$W/big"
SET=()
for f in rst rst-le byu pbus uop raw; do SET+=("$W/$f" "$W/$f.trz"); done
for f in rst rst-le byu pbus uop raw concat big; do
    n=$("$TRZ" -l "$W/$f.trz" | awk 'NR == 2 { print $3 }')
    echo "    sample $f.trz: $(wc -c < "$W/$f.trz" | tr -d ' ') bytes, $n chunks"
done

# ---- 1. sweeps ----
sweep() { # NAME BINARY ARGS...: one sweep, its summary lines, pass if clean
    local name=$1; shift
    local log="$W/sweep.log" t0=$SECONDS
    timeout 600 "$@" > "$log" 2>&1
    local rc=$?
    echo "    ($name: $((SECONDS - t0)) s)"
    grep -E '^(flip|cut|total) ' "$log" | sed 's/^/    /'
    if [ $rc = 0 ]; then ok "sweep: $name"; else bad "sweep: $name (exit $rc)"; grep -E '^FAIL' "$log" | head -10 | sed 's/^/    /'; tail -3 "$log" | sed 's/^/    /'; fi
}
sweep "every byte of each format, one bit each, in process" "$REL/sweep_fast" --reads=2 "${SET[@]}"
sweep "two members, every third byte and cut" "$REL/sweep_fast" --reads=2 --stride=3 "$W/concat" "$W/concat.trz"
sweep "bigger archive, 5000 spread positions" "$REL/sweep_fast" --flip --reads=2 --spread=5000 "$W/big" "$W/big.trz"
sweep "ASan+UBSan, every 5th byte" "$REL/sweep" --flip --reads=2 --stride=5 --offset=2 "${SET[@]}"
sweep "parity archives, every byte, in process (mended or reported, never wrong)" "$REL/sweep_fast" --reads=2 \
    "$W/rst" "$W/rst-parity.trz" "$W/uop" "$W/uop-parity.trz"
sweep "ASan+UBSan, every 11th cut" "$REL/sweep" --cut --reads=2 --stride=11 --offset=3 "${SET[@]}" "$W/concat" "$W/concat.trz"
sweep "./trz -d and -t, 25 spread positions per archive" "$REL/sweep_fast" --flip --spread=25 --cli="$TRZ" "${SET[@]}" "$W/concat" "$W/concat.trz"
sweep "./trz -d and -t, cuts at chunk boundaries, middles, index, footer, 0..40" "$REL/sweep_fast" --cut --cut-points --cli="$TRZ" "${SET[@]}"
sweep "build/san/trz -d and -t, 3 spread positions per archive" "$REL/sweep_fast" --flip --spread=3 --offset=1 --cli="$SAN" "${SET[@]}"
sweep "build/san/trz -d and -t, a few cut points of the RST archive" "$REL/sweep_fast" --cut --cut-points --stride=5 --cli="$SAN" "$W/rst" "$W/rst.trz"

# ---- 2. --salvage on a 6-chunk archive ----
head -c 14400 "$S/loops-4cpu.rst" > "$W/six"
"$TRZ" -q --no-chain --no-parity --chunk-records=100 "$W/six"  # (chains lose the rest of a group: tests/chain.sh; parity mends)
"$TRZ" -l -v "$W/six.trz" | awk 'NF == 8 && $1 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5, $6 }' > "$W/six.chunks"
field() { awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$W/six.chunks"; } # CHUNK COLUMN (4 raw, 5 offset, 6 stored)
flip() { # FILE POS: xor one byte with 0x10
    local v; v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\x$(printf %02x $((v ^ 16)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
without() { # FIRST LEN: the original without bytes [FIRST, FIRST+LEN)
    head -c "$1" "$W/six"; tail -c +"$(($1 + $2 + 1))" "$W/six"
}
salvage() { # NAME: trz -d --salvage of $W/d.trz into $W/out; stderr in $W/err
    rm -f "$W/out"
    "$TRZ" -d --salvage -f -o "$W/out" "$W/d.trz" 2> "$W/err"
}
n_chunks=$(lines "$W/six.chunks")
check "salvage sample has 6 chunks" '[ "$n_chunks" = 6 ]'
off2=$(field 2 5) st2=$(field 2 6) raw2=$(field 2 4)
first2=$((2 * raw2))

cp "$W/six.trz" "$W/d.trz"; flip "$W/d.trz" $((off2 + st2 / 2))
salvage; rc=$?
check "salvage, chunk 2 damaged: exit 1" '[ $rc = 1 ]'
check "salvage, chunk 2 damaged: output is the original minus chunk 2" 'cmp -s "$W/out" <(without $first2 "$raw2")'
check "salvage, chunk 2 damaged: names the lost records" 'grep -q "chunk 2 damaged: lost records 200..299" "$W/err"'
cat "$W/d.trz" | "$TRZ" -d --salvage -c > "$W/out2" 2> /dev/null; rc=$?
check "salvage through a pipe: exit 1, same output" '[ $rc = 1 ] && cmp -s "$W/out" "$W/out2"'
rm -f "$W/out"; "$TRZ" -d -o "$W/out" "$W/d.trz" 2> "$W/err"; rc=$?
check "no --salvage: exit 1, one line naming chunk 2, no output file" ' [ $rc = 1 ] && [ "$(lines "$W/err")" = 1 ] && grep -q "chunk 2" "$W/err" && [ ! -e "$W/out" ]'

# --salvage --rm: the archive goes only when nothing was lost
cp "$W/six.trz" "$W/rm.six.trz"; flip "$W/rm.six.trz" $((off2 + st2 / 2))
"$TRZ" -q -d --salvage --rm "$W/rm.six.trz" 2> /dev/null; rc=$?
check "salvage --rm, chunk 2 damaged: exit 1, damaged archive kept" '[ $rc = 1 ] && [ -f "$W/rm.six.trz" ] && [ -f "$W/rm.six" ]'
cp "$W/six.trz" "$W/rm.six.trz"; flip "$W/rm.six.trz" $(($(wc -c < "$W/six.trz") - 12)); rm -f "$W/rm.six"
"$TRZ" -q -d --salvage --rm "$W/rm.six.trz" 2> /dev/null; rc=$?
check "salvage --rm, footer damaged (all records back): exit 1, archive kept" '[ $rc = 1 ] && [ -f "$W/rm.six.trz" ] && cmp -s "$W/rm.six" "$W/six"'
cp "$W/six.trz" "$W/rm.six.trz"; rm -f "$W/rm.six"
"$TRZ" -q -d --salvage --rm "$W/rm.six.trz"; rc=$?
check "salvage --rm, intact archive: all of it decoded, archive removed" '[ $rc = 0 ] && [ ! -e "$W/rm.six.trz" ] && cmp -s "$W/rm.six" "$W/six"'
rm -f "$W/rm.six"

# chunk 2's header and the footer damaged: nothing tells whether chunk 2
# stated facts, so with knowledge the rest of its group (chunks 3-5) is lost
# too; without (--restart=0) only chunk 2
cp "$W/six.trz" "$W/d.trz"; flip "$W/d.trz" $((off2 + 9)); flip "$W/d.trz" $(($(wc -c < "$W/six.trz") - 1))
salvage; rc=$?
check "salvage with knowledge, chunk 2 header and footer damaged (no index): chunks 0-1 back, the group's rest lost" ' [ $rc = 1 ] && cmp -s "$W/out" <(head -c $first2 "$W/six")'
# (the chunks state their places: the loss is known exactly without the index)
check "salvage without index: names the lost records" 'grep -q "chunk 2 damaged: lost records 200..299 " "$W/err"'
check "salvage: the chunks after it are named intact, lost with their group's knowledge" 'grep -q "chunks 3..5 intact but lost with their group.s knowledge: lost records 300..599 " "$W/err"'
"$TRZ" -q -f --chunk-records=100 --restart=0 -o "$W/six0.trz" "$W/six"
o0=$("$TRZ" -l -v "$W/six0.trz" | awk '$1 == 2 && NF == 8 { print $5 }')
cp "$W/six0.trz" "$W/d.trz"; flip "$W/d.trz" $((o0 + 9)); flip "$W/d.trz" $(($(wc -c < "$W/six0.trz") - 1))
salvage; rc=$?
check "salvage without knowledge, chunk 2 header and footer damaged (no index): the original minus chunk 2" ' [ $rc = 1 ] && cmp -s "$W/out" <(without $first2 "$raw2")'

cp "$W/six.trz" "$W/d.trz"; flip "$W/d.trz" $(($(wc -c < "$W/six.trz") - 12))
salvage; rc=$?
check "salvage, footer damaged: every record recovered, exit 1" '[ $rc = 1 ] && cmp -s "$W/out" "$W/six"'
check "salvage, footer damaged: says so" 'grep -q "footer.*all 14400 bytes recovered" "$W/err"'

cp "$W/six.trz" "$W/d.trz"; flip "$W/d.trz" 9
salvage; rc=$?
check "salvage, file header damaged: every record recovered" '[ $rc = 1 ] && cmp -s "$W/out" "$W/six"'

off3=$(field 3 5) st3=$(field 3 6)
head -c $((off3 + st3 / 2)) "$W/six.trz" > "$W/d.trz"
salvage; rc=$?
check "salvage, cut inside chunk 3: chunks 0-2 recovered" '[ $rc = 1 ] && cmp -s "$W/out" <(head -c $((3 * raw2)) "$W/six")'
check "salvage, cut inside chunk 3: says records from 300 on are lost" 'grep -q "chunk 3 on: lost records from 300 " "$W/err"'

cat "$W/six.trz" "$W/six.trz" > "$W/d.trz"; flip "$W/d.trz" $(($(wc -c < "$W/six.trz") + off2 + st2 / 2))
salvage; rc=$?
check "salvage, two members, chunk 8 damaged: numbered across members" ' [ $rc = 1 ] && grep -q "chunk 8 damaged: lost records 800..899" "$W/err" && cmp -s "$W/out" <(cat "$W/six"; without $first2 "$raw2")'

# ---- 3. crafted hostile archives: an error (or, for a valid one, success),
#      in bounded time and memory (peak RSS under 600 MB) ----
mkdir -p "$W/craft"
"$REL/craft" "$W/craft" > "$W/craft.list"
maxkb=0
while read -r name expect; do
    f="$W/craft/$name.trz"
    for mode in "-t" "-d -c" "-d -c --salvage"; do
        # shellcheck disable=SC2086
        /usr/bin/time -f %M -o "$W/rss" timeout 120 "$TRZ" $mode "$f" > /dev/null 2> "$W/err"
        rc=$?
        kb=$(tail -1 "$W/rss")
        [ "$kb" -gt "$maxkb" ] && maxkb=$kb
        one=1; [ "$mode" = "-d -c --salvage" ] || [ "$(lines "$W/err")" = 1 ] || one=0
        [ "$expect" = 0 ] && [ "$mode" != "-d -c --salvage" ] && one=1
        if [ $rc = "$expect" ] && [ $one = 1 ] && [ "$kb" -lt 614400 ]; then ok "crafted $name: trz $mode: exit $rc, ${kb} KB"
        else bad "crafted $name: trz $mode: exit $rc, ${kb} KB, $(head -3 "$W/err" | tr '\n' '|')"; fi
    done
    if [ "$(wc -c < "$f")" -lt 1000000 ]; then
        "$SAN" -t "$f" > /dev/null 2> "$W/err"; rc=$?
        if [ $rc = "$expect" ] && ! grep -qE 'Sanitizer|runtime error' "$W/err"; then ok "crafted $name: build/san/trz -t"
        else bad "crafted $name: build/san/trz -t: exit $rc: $(head -3 "$W/err" | tr '\n' '|')"; fi
    fi
done < "$W/craft.list"
echo "    crafted archives: peak RSS of ./trz at most $maxkb KB"
# a good chunk, then six that each declare the most a chunk may, damaged:
# with decode threads the chunks in flight share one such chunk's memory
# (the same bound as one thread), through the index, after a seek, from a
# pipe and when salvaging
f="$W/craft/max-streams-x6-damaged.trz"
for T in 2 4; do
    for mode in "-t" "-d -c --from=8" "-d -c --salvage" "pipe -t" "pipe -d -c --salvage"; do
        # shellcheck disable=SC2086
        if [ "${mode#pipe }" != "$mode" ]; then cat "$f" | /usr/bin/time -f %M -o "$W/rss" timeout 120 "$TRZ" -T$T ${mode#pipe } > /dev/null 2> "$W/err"
        else /usr/bin/time -f %M -o "$W/rss" timeout 120 "$TRZ" -T$T $mode "$f" > /dev/null 2> "$W/err"; fi
        rc=$?
        kb=$(tail -1 "$W/rss")
        if [ $rc = 1 ] && [ "$kb" -lt 614400 ] && grep -qE "chunks? [0-9.]+(: stream 1 does not decompress| damaged)" "$W/err"; then
            ok "max-streams-x6-damaged: trz -T$T $mode: exit 1, ${kb} KB"
        else bad "max-streams-x6-damaged: trz -T$T $mode: exit $rc, ${kb} KB (at most 614400), $(head -2 "$W/err" | tr '\n' '|')"; fi
    done
done

# ---- 4. safe output ----
mkfifo "$W/fifo"
head -c 3000000 /dev/urandom > "$W/rnd"
for sig in INT TERM; do
    mkdir -p "$W/sig"
    "$TRZ" -q -o "$W/sig/x.trz" < "$W/fifo" &
    pid=$!
    exec 3> "$W/fifo"
    cat "$W/rnd" >&3 # trz now waits for more input, its temporary file open
    for _ in $(seq 300); do compgen -G "$W/sig/.x.trz.tmp*" > /dev/null && break; sleep 0.1; done
    had_tmp=$(compgen -G "$W/sig/.x.trz.tmp*" > /dev/null && echo 1 || echo 0)
    kill -s $sig $pid
    wait $pid
    rc=$?
    exec 3>&-
    check "SIG$sig while compressing from a slow pipe: killed by it, temporary file removed, no output" ' [ "$had_tmp" = 1 ] && [ $rc -ge 128 ] && [ -z "$(ls -A "$W/sig")" ]'
    rm -rf "$W/sig"
done

sum=$(cksum < "$W/rnd")
"$TRZ" -c "$W/rnd" > /dev/full 2> "$W/err"; rc=$?
check "compress -c to /dev/full: exit 1, one line" '[ $rc = 1 ] && [ "$(lines "$W/err")" = 1 ]'
"$TRZ" -f -o /dev/full "$W/rnd" 2> "$W/err"; rc=$?
check "compress -o /dev/full: exit 1, one line" '[ $rc = 1 ] && [ "$(lines "$W/err")" = 1 ]'
"$TRZ" -d -c "$W/rst.trz" > /dev/full 2> "$W/err"; rc=$?
check "decompress -c to /dev/full: exit 1, one line" '[ $rc = 1 ] && [ "$(lines "$W/err")" = 1 ]'
check "the input is intact after the full-disk errors" '[ "$(cksum < "$W/rnd")" = "$sum" ]'

mkdir -p "$W/small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m tmpfs "$W/small" 2> /dev/null; then
    SMALL=$W/small
    cp "$W/rnd" "$W/rnd2"
    "$TRZ" -1 --rm -o "$SMALL/x.trz" "$W/rnd2" 2> "$W/err"; rc=$?
    check "compress into a full 1 MiB tmpfs with --rm: exit 1, nothing left there, input kept" ' [ $rc = 1 ] && [ -z "$(ls -A "$SMALL")" ] && [ "$(cksum < "$W/rnd2")" = "$sum" ]'
    head -c 3000000 /dev/zero > "$W/zeros"; "$TRZ" -q "$W/zeros"
    "$TRZ" -d -o "$SMALL/zeros" "$W/zeros.trz" 2> "$W/err"; rc=$?
    check "decompress into a full tmpfs: exit 1, one line, nothing left there" ' [ $rc = 1 ] && [ "$(lines "$W/err")" = 1 ] && [ -z "$(ls -A "$SMALL")" ]'
    umount "$SMALL" && SMALL=""
else
    echo "    (no tmpfs mount here: the full-file-system cases ran on /dev/full only)"
fi

cp "$S/bus-1cpu.pbus" "$W/rm.pbus"
"$TRZ" -q --rm "$W/rm.pbus"; rc=$?
check "--rm: input removed after a verified write" '[ $rc = 0 ] && [ ! -e "$W/rm.pbus" ] && "$TRZ" -t "$W/rm.pbus.trz"'
cp "$S/bus-1cpu.pbus" "$W/rm.pbus"
"$TRZ" -q --rm "$W/rm.pbus" 2> /dev/null; rc=$?
check "--rm when the output exists (no -f): exit 1, input kept" '[ $rc = 1 ] && cmp -s "$W/rm.pbus" "$S/bus-1cpu.pbus"'
"$TRZ" -q --rm -o "$W/no/such/dir/x.trz" "$W/rm.pbus" 2> /dev/null; rc=$?
check "--rm into a missing directory: exit 1, input kept" '[ $rc = 1 ] && cmp -s "$W/rm.pbus" "$S/bus-1cpu.pbus"'
"$TRZ" -q --rm -f -o /dev/full "$W/rm.pbus" 2> /dev/null; rc=$?
check "--rm with the output on /dev/full: exit 1, input kept" '[ $rc = 1 ] && cmp -s "$W/rm.pbus" "$S/bus-1cpu.pbus"'

# --rm and an input that changes while trz works on it (a tracer still
# appending, cat >>, a chmod): the input must stay.  To land the change
# inside that window whatever the machine's speed, trz is stopped
# (SIGSTOP) once its temporary output exists and checked to be stopped with
# that file still there: it opened the input before creating the file and
# makes its final check only after renaming it, so the change falls
# between the two.  When trz was too quick to be caught, the attempt is
# made again on a larger input; never caught is a failure, not a pass.
pstate() { sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1; }
changed_rm() { # NAME IN OUT "TRZ OPTIONS" CHANGE: sets rc and caught
    local name=$1 in=$2 out=$3 opts=$4 change=$5 pid st before
    caught=0 rc=
    before=$(stat -c '%s %y %z %a' "$in")
    # shellcheck disable=SC2086
    "$TRZ" -q $opts --rm "$in" 2> "$W/chg.err" & pid=$!
    for _ in $(seq 4000); do
        compgen -G "$(dirname "$out")/.$(basename "$out").tmp*" > /dev/null && break
        kill -0 $pid 2> /dev/null || break
        sleep 0.005
    done
    kill -STOP $pid 2> /dev/null
    for _ in $(seq 200); do st=$(pstate $pid); [ "$st" = T ] || [ "$st" = Z ] || [ -z "$st" ] && break; sleep 0.005; done
    if [ "$st" = T ] && compgen -G "$(dirname "$out")/.$(basename "$out").tmp*" > /dev/null; then
        eval "$change"
        [ "$(stat -c '%s %y %z %a' "$in")" != "$before" ] && caught=1 # the change shows in what trz compares
    fi
    kill -CONT $pid 2> /dev/null
    wait $pid; rc=$?
}
rm_change_case() { # NAME "TRZ OPTIONS" compress|decompress ADD: the file ADD appended, or a chmod when empty
    local name=$1 opts=$2 kind=$3 add=$4 copies in out change
    change='chmod u+x "$in"'; [ -n "$add" ] && change='cat "$add" >> "$in"'
    for copies in 8 16 32 64; do
        rm -rf "$W/chg"; mkdir -p "$W/chg"
        for _ in $(seq "$copies"); do cat "$S/loops-4cpu.rst"; done > "$W/chg/orig"
        if [ "$kind" = decompress ]; then
            "$TRZ" -q -1 -c "$W/chg/orig" > "$W/chg/in.rst.trz"; in=$W/chg/in.rst.trz out=$W/chg/in.rst
        else
            cp "$W/chg/orig" "$W/chg/in.rst"; in=$W/chg/in.rst out=$W/chg/in.rst.trz
        fi
        cat "$in" ${add:+"$add"} > "$W/chg/want"
        changed_rm "$name" "$in" "$out" "$opts" "$change"
        [ "$caught" = 1 ] && break
        echo "    ($name: trz finished before it could be stopped, $copies copies; again, larger)"
    done
    if [ "$caught" != 1 ]; then bad "$name: trz was never caught at work (no change made)"; return; fi
    check "$name: exit 1, one line naming the input, the input kept as changed" \
        ' [ $rc = 1 ] && [ "$(lines "$W/chg.err")" = 1 ] && grep -q "in.rst[.a-z]*: .*changed" "$W/chg.err" && cmp -s "$in" "$W/chg/want"'
    rm -rf "$W/chg"
}
# (a member appended to an archive: whether the decoder meets it or not, what it
# says is the same)
printf 'appended\n' > "$W/add.txt"; "$TRZ" -q -c "$W/add.txt" > "$W/add.trz"
rm_change_case "--rm, bytes appended to the input while compressing" -19 compress "$W/add.txt"
rm_change_case "--rm, the input's mode changed while compressing (status-change time only)" -19 compress ""
rm_change_case "--rm -d, a member appended to the archive while decompressing" -d decompress "$W/add.trz"

echo "$pass passed, $fail failed"
[ $fail = 0 ]

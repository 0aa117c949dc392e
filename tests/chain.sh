#!/usr/bin/env bash
# chain.sh - chains (src/format/FORMAT.md, "Chains"): every sample of a
# format whose models chain is written as a member of version 5 in chains (version 4 before 0.18), in groups
# of four chunks; it round-trips with one and two threads, the archive is
# the same for every thread count, a seek into the middle of a group gives
# the records a full decode gives, a damaged chunk costs the rest of its
# group and no more (--salvage), and chains join.
#   tests/chain.sh [path/to/trz]      (prints "N passed, M failed" last)
set -u
TRZ=${1:-./trz}
TRZ=$(cd "$(dirname "$TRZ")" && pwd)/$(basename "$TRZ")
. "$(dirname "$0")/lib.sh" chain
# a member's kind: its version, and for version 5 the mode in its flags (c chains, k knowledge)
version() {
    local v f; read -r v f < <(od -An -tu1 -j4 -N4 "$1" | awk '{print $1, $4}')
    if [ "$v" = 5 ]; then case $((f & 3)) in 2) echo 5c ;; 1) echo 5k ;; *) echo 5 ;; esac; else echo "$v"; fi
}
# chunk N's stored offset and size, from trz -l -v
chunk_at() { "$TRZ" -l -v "$1" | awk -v n="$2" 'NF == 8 && $1 == n { print $5, $6 }'; }
# records a..a+n-1 of a decoded trace (record size rs; 0: lines)
slice() {
    if [ "$2" = 0 ]; then sed -n "$(($3 + 1)),$(($3 + $4))p" "$1"
    else dd if="$1" bs="$2" skip="$3" count="$4" status=none; fi
}

OPT="-q -f --chunk-size 64K --restart 256K"
for s in "$ROOT"/corpus/*; do
    [ -f "$s" ] || continue
    case "$s" in *.md|*.txt) continue ;; esac
    b=$(basename "$s")
    "$TRZ" $OPT -T1 -c "$s" > "$W/a.trz" 2> /dev/null || { bad "$b: compress"; continue; }
    fmt=$("$TRZ" -l "$W/a.trz" | awk 'NR == 2 { print $1 }')
    [ "$fmt" = raw ] && continue
    v=$(version "$W/a.trz")
    [ "$v" = 5c ] && ok "$b: $fmt, version 5 in chains" || { bad "$b: $fmt is written as version $v, not as chains"; continue; }
    "$TRZ" -l "$W/a.trz" | grep -q "groups: [0-9]*, [0-9]* of them chains" && ok "$b: -l lists the chains" ||
        bad "$b: -l lists no chains"
    # the longest chain -l names: its chunks' raw bytes as the table lists them, and no chain longer
    "$TRZ" -l -v "$W/a.trz" | awk '
        /the longest: / { match($0, /the longest: [0-9]+ chunks from chunk [0-9]+, [0-9]+ raw bytes/)
                          split(substr($0, RSTART, RLENGTH), w, " "); n = w[3]; at = w[7] + 0; want = w[8] + 0 }
        NF == 8 && $1 ~ /^[0-9]+$/ { raw[$1] = $4; last = $1 }
        END { if (n == "") exit 1; for (i = at; i < at + n; i++) got += raw[i]
              # groups of 256K: none holds more
              exit !(got == want && want <= 262144 && at + n - 1 <= last && (n >= 4 || last < 4)) }' &&
        ok "$b: -l names the longest chain" || bad "$b: -l names the longest chain wrongly"
    "$TRZ" -t "$W/a.trz" && ok "$b: -t" || bad "$b: -t"
    "$TRZ" -dc -T1 "$W/a.trz" | cmp -s - "$s" && ok "$b: round trip" || bad "$b: round trip"
    "$TRZ" -dc -T2 "$W/a.trz" | cmp -s - "$s" && ok "$b: round trip, 2 threads" || bad "$b: round trip, 2 threads"
    "$TRZ" -dc -T3 "$W/a.trz" | cmp -s - "$s" && ok "$b: round trip, 3 threads" || bad "$b: round trip, 3 threads"
    cat "$W/a.trz" | "$TRZ" -dc | cmp -s - "$s" && ok "$b: from a pipe" || bad "$b: from a pipe"
    cat "$W/a.trz" | "$TRZ" -dc -T2 | cmp -s - "$s" && ok "$b: from a pipe, 2 threads" || bad "$b: from a pipe, 2 threads"
    for t in 2 4; do # (groups in two and four lanes)
        "$TRZ" $OPT -T$t -c "$s" | cmp -s - "$W/a.trz" && ok "$b: same archive with $t threads" ||
            bad "$b: the archive differs with $t threads"
    done
    "$TRZ" $OPT --no-chain -c "$s" > "$W/n.trz" && [ "$(version "$W/n.trz")" != 5c ] &&
        "$TRZ" -dc "$W/n.trz" | cmp -s - "$s" && ok "$b: --no-chain writes version $(version "$W/n.trz")" ||
        bad "$b: --no-chain"

    # a seek into the third chunk of the second group (chunk 6 of groups
    # 0-3, 4-7, ...): the records a full decode has there
    rs=$(awk -v f="$fmt" 'BEGIN { s["rst"]=24; s["byu"]=12; s["pbus"]=6; s["drmemtrace"]=12; s["champsim"]=64;
                                  s["champsim-cloudsuite"]=96; s["uop"]=0; print s[f] }')
    first=$("$TRZ" -l -v "$W/a.trz" | awk 'NF == 8 && $1 == 6 { print $2 }')
    if [ -n "$first" ]; then
        "$TRZ" -dc "$W/a.trz" > "$W/all"
        from=$((first + 17))
        "$TRZ" -dc --from=$from --count=100 "$W/a.trz" > "$W/part" 2> /dev/null
        slice "$W/all" "$rs" $from 100 | cmp -s - "$W/part" && ok "$b: seek into a group's third chunk" ||
            bad "$b: seek into a group's third chunk"
        # with threads, and on to the end: the groups after it decode on the other lanes
        "$TRZ" -dc -T2 --from=$from "$W/a.trz" > "$W/part" 2> /dev/null
        tail -c +$(( $(slice "$W/all" "$rs" 0 $from | wc -c) + 1 )) "$W/all" | cmp -s - "$W/part" &&
            ok "$b: seek, 2 threads, to the end" || bad "$b: seek, 2 threads, to the end"
    fi

    # damage in chunk 5 (the second of group 4-7): chunks 5-7 are lost,
    # chunk 8 starts the next group and decodes (an archive without parity,
    # which would mend it: tests/parity.sh)
    "$TRZ" $OPT --no-parity -T1 -c "$s" > "$W/a.trz"
    n=$("$TRZ" -l "$W/a.trz" | awk 'NR == 2 { print $3 }')
    if [ "$n" -ge 10 ]; then
        read off size < <(chunk_at "$W/a.trz" 5)
        cp "$W/a.trz" "$W/d.trz"
        at=$((off + size - 3))
        printf "\\$(printf %o $(( ($(od -An -tu1 -j$at -N1 "$W/d.trz") + 1) % 256 )))" |
            dd of="$W/d.trz" bs=1 seek=$at conv=notrunc status=none
        lost=0
        for c in 5 6 7; do lost=$((lost + $("$TRZ" -l -v "$W/a.trz" | awk -v n=$c 'NF == 8 && $1 == n { print $4 }'))); done
        want=$(( $(stat -c %s "$s") - lost ))
        for T in 1 2 3; do
            msg=$("$TRZ" -t -T$T "$W/d.trz" 2>&1); rc=$?
            [ $rc = 1 ] && echo "$msg" | grep -q "chunk 5" && ok "$b: damage names chunk 5, $T thread(s)" ||
                bad "$b: damage in chunk 5, $T thread(s)" "exit $rc: $msg"
            "$TRZ" -dc -T$T --salvage "$W/d.trz" > "$W/salv" 2> "$W/salv.err"
            got=$(stat -c %s "$W/salv")
            [ "$got" = "$want" ] && ok "$b: salvage loses the rest of the group only, $T thread(s)" ||
                bad "$b: salvage, $T thread(s)" "$got bytes, want $want (3 chunks lost): $(head -c 300 "$W/salv.err")"
        done
        # from a pipe (no index to replay from): the same loss, named (the chunks state their places)
        cat "$W/d.trz" | "$TRZ" -dc --salvage > "$W/salvp" 2> "$W/salvp.err"; rc=$?
        [ $rc = 1 ] && [ "$(stat -c %s "$W/salvp")" = "$want" ] && grep -q "chunk 5 damaged: lost records" "$W/salvp.err" &&
            grep -q "chunks 6..7 intact but lost with their chain" "$W/salvp.err" &&
            ok "$b: salvage from a pipe loses the rest of the group only" ||
            bad "$b: salvage from a pipe" "exit $rc, $(stat -c %s "$W/salvp") bytes, want $want: $(head -c 300 "$W/salvp.err")"
        read o8 s8 < <(chunk_at "$W/a.trz" 8)
        first8=$("$TRZ" -l -v "$W/a.trz" | awk 'NF == 8 && $1 == 8 { print $2 }')
        "$TRZ" -dc --from=$first8 --count=50 "$W/d.trz" > "$W/p8" 2> /dev/null &&
            slice "$W/all" "$rs" $first8 50 | cmp -s - "$W/p8" && ok "$b: the next group decodes after the damage" ||
            bad "$b: the next group after the damage"
    fi

    # two chained archives join into one member that decodes to both
    "$TRZ" join -f -o "$W/j.trz" "$W/a.trz" "$W/a.trz" 2> "$W/j.err" &&
        "$TRZ" -dc "$W/j.trz" | cmp -s - <(cat "$s" "$s") && ok "$b: join" || bad "$b: join" "$(head -c 300 "$W/j.err")"
done

# A piece repeated: the chain finds the repeat in the chunks before (a
# 192 KiB piece of a sample six times over, in 64 KiB chunks, one group):
# at most 60% of what the same chunks cost each starting afresh.
for s in "$ROOT"/corpus/loops-4cpu.rst "$ROOT"/corpus/mix.champsimtrace "$ROOT"/corpus/bus-2cpu.byu \
         "$ROOT"/corpus/sjeng-like.trace; do
    head -c 196608 "$s" > "$W/piece"
    for i in 1 2 3 4 5 6; do cat "$W/piece"; done > "$W/rep"
    # (BYU's default level writes byte streams, which the back-end sees one
    # chunk at a time: its mixing levels hold the chain's records)
    l=-9; case $s in *.byu) l=-12 ;; esac
    ch=$("$TRZ" $l -q -f -c --chunk-size 64K "$W/rep" | wc -c)
    alone=$("$TRZ" $l -q -f -c --chunk-size 64K --restart 0 "$W/rep" | wc -c)
    [ "$ch" -le $((alone * 6 / 10)) ] && ok "$(basename "$s"): repeats cost $ch bytes chained, $alone alone" ||
        bad "$(basename "$s"): repeats" "$ch bytes chained, $alone with every chunk alone"
done
# The bus codecs at -19: a chunk the stream path codes (a piece repeated
# inside it, which suits the back-end) feeds the chain's match model, so
# the chunks that repeat it cost next to nothing: at most 200 bytes each,
# their header and index entry included (the piece alone: 650-1250).
for s in "$ROOT"/corpus/bus-2cpu.byu "$ROOT"/corpus/bus-1cpu.pbus; do
    rs=12; case $s in *.pbus) rs=6 ;; esac
    for i in 1 2 3 4 5 6 7 8; do head -c $((500 * rs)) "$s"; done > "$W/piece"
    for i in 1 2 3 4 5 6; do cat "$W/piece"; done > "$W/rep"
    one=$("$TRZ" -19 -q -f -c --chunk-records 4000 "$W/piece" | wc -c)
    "$TRZ" -19 -q -f -c --chunk-records 4000 "$W/rep" > "$W/rep.trz"
    six=$(wc -c < "$W/rep.trz")
    "$TRZ" -dc "$W/rep.trz" | cmp -s - "$W/rep" && [ "$six" -le $((one + 5 * 200)) ] &&
        ok "$(basename "$s") -19: the stream path's piece repeated 6 times: $six bytes, alone $one" ||
        bad "$(basename "$s") -19: repeats of a stream-path piece" "$six bytes, the piece alone $one"
done
# With one thread the self-check's decoder reads the encoder's history (RST's
# window of 2^20 records, ChampSim's ring of 2^18): in a chain longer than
# that, so that records leave it, one thread writes the archive two threads
# write (each side with a history of its own), and no chunk falls back to
# raw, as one would whose check failed.
for s in "$ROOT"/corpus/loops-4cpu.rst "$ROOT"/corpus/mix.champsimtrace; do
    for i in $(seq 30); do cat "$s"; done > "$W/long"
    "$TRZ" -9 -q -f -T1 -c --chunk-size 2M --restart 1G "$W/long" > "$W/long1.trz"
    "$TRZ" -9 -q -f -T2 -c --chunk-size 2M --restart 1G "$W/long" > "$W/long2.trz"
    n=$("$TRZ" -l -v "$W/long1.trz" | grep -c fallback)
    cmp -s "$W/long1.trz" "$W/long2.trz" && [ "$n" = 0 ] && "$TRZ" -dc "$W/long1.trz" | cmp -s - "$W/long" &&
        ok "$(basename "$s") x30: the self-check on the encoder's history, same archive as -T2" ||
        bad "$(basename "$s") x30: the self-check on the encoder's history" "fallbacks: $n; archives: $(wc -c < "$W/long1.trz") / $(wc -c < "$W/long2.trz")"
done
rm -f "$W/long" "$W/long1.trz" "$W/long2.trz"
# Lanes (src/compress/ring.c): with threads a chain's groups are coded at
# once, and a chunk's records while the chunk before is checked.  Random
# bytes inside an RST trace go out raw, and the chain starts afresh after
# them: the chunk coded on the old model is coded again.  Every thread
# count writes the one archive.
s=$ROOT/corpus/loops-4cpu.rst
{ cat "$s" "$s"; head -c 240000 /dev/urandom; cat "$s" "$s" "$s"; } > "$W/fb"
LOPT="-q -f --format rst --chunk-size 64K --restart 192K"
"$TRZ" $LOPT -T1 -c "$W/fb" > "$W/fb1.trz"
n=$("$TRZ" -l -v "$W/fb1.trz" | grep -c fallback)
[ "$n" -ge 2 ] && "$TRZ" -dc -T2 "$W/fb1.trz" | cmp -s - "$W/fb" && ok "random bytes in a chain: $n chunks raw, round trip" ||
    bad "random bytes in a chain" "$n chunks raw"
for t in 2 3 4 8; do
    "$TRZ" $LOPT -T$t -c "$W/fb" | cmp -s - "$W/fb1.trz" && ok "random bytes in a chain: same archive with $t threads" ||
        bad "random bytes in a chain: the archive differs with $t threads"
done
rm -f "$W/fb" "$W/fb1.trz"
# Groups up to 1 GiB (--restart); past that a clear refusal.  Knowledge
# (--no-chain) starts afresh every 256 MiB whatever is asked.
s=$ROOT/corpus/loops-4cpu.rst
"$TRZ" -q -f -c --restart 1G "$s" | "$TRZ" -dc | cmp -s - "$s" && ok "--restart 1G" || bad "--restart 1G"
msg=$("$TRZ" -q -f -c --restart 2G "$s" 2>&1 > /dev/null); rc=$?
[ $rc = 1 ] && echo "$msg" | grep -q "4K..1G" && ok "--restart 2G refused" || bad "--restart 2G" "exit $rc: $msg"
"$TRZ" -q -f -c --no-chain --restart 1G "$s" | cmp -s - <("$TRZ" -q -f -c --no-chain --restart 256M "$s") &&
    ok "--no-chain: knowledge over 256 MiB at most" || bad "--no-chain --restart 1G differs from 256M"
finish

#!/usr/bin/env bash
# reader.sh - the reader API from the command line and the example
# analyzers: rst_stats, bus_stats and champsim_stats must print the same thing through the
# API (foreach, trz_read, decode-ahead threads) as from a raw pipe; their
# numbers on hand-made traces must be the hand-counted ones; and
# `trz -d --from --count` and `trz dump -s -n` must cut exactly the records
# asked for, in every format.  Run from anywhere; prints "N passed, M failed".
#   TRZ_QUICK=1 skips the shared corpus; TRZ_SHARED_CORPUS=DIR moves it.
set -u
. "$(dirname "$0")/lib.sh" reader
TRZ=${TRZ:-$ROOT/trz}
AN=$ROOT/build/analyzers
CORPUS=$ROOT/corpus


for p in "$TRZ" "$AN/rst_stats" "$AN/bus_stats" "$AN/champsim_stats" "$AN/champsim_read"; do
    [ -x "$p" ] || { echo "missing $p: run make first"; echo "0 passed, 1 failed"; exit 1; }
done

# same NAME FILE_A FILE_B: the two outputs must be identical and not empty
same() {
    if [ ! -s "$2" ]; then bad "$1" "empty output"; return; fi
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1" "$(diff "$2" "$3" | head -5 | tr '\n' ' ')"; fi
}

# ---- analyzers: every path gives the same report ----
# paths TOOL NAME RAW TRZ [tool options for raw stdin]
paths() {
    local tool=$1 name=$2 raw=$3 arc=$4; shift 4
    "$AN/$tool" "$@" - < "$raw" > "$W/ref" 2> "$W/err" || { bad "$name: $tool on stdin" "$(cat "$W/err")"; return; }
    "$AN/$tool" "$arc" > "$W/o" 2>&1; same "$name: $tool FILE.trz (trz_foreach) = raw stdin" "$W/ref" "$W/o"
    "$AN/$tool" -R "$arc" > "$W/o" 2>&1; same "$name: $tool -R (trz_read) = raw stdin" "$W/ref" "$W/o"
    "$AN/$tool" -T 2 "$arc" > "$W/o" 2>&1; same "$name: $tool -T 2 = raw stdin" "$W/ref" "$W/o"
    "$AN/$tool" -T 4 -R "$arc" > "$W/o" 2>&1; same "$name: $tool -T 4 -R = raw stdin" "$W/ref" "$W/o"
    "$TRZ" -dc "$arc" | "$AN/$tool" "$@" - > "$W/o" 2>&1; same "$name: trz -dc | $tool - = raw stdin" "$W/ref" "$W/o"
    cat "$W/ref" > "$W/last_report"
}

rst_samples() {
    local f n
    for f in loops-4cpu blaze-like-1cpu-le; do
        "$TRZ" -c --chunk-records=1000 "$CORPUS/$f.rst" > "$W/$f.trz" || { bad "compress $f"; continue; }
        paths rst_stats "$f" "$CORPUS/$f.rst" "$W/$f.trz"
        "$AN/rst_stats" "$CORPUS/$f.rst" > "$W/o" 2>&1; same "$f: rst_stats RAWFILE = raw stdin" "$W/last_report" "$W/o"
        n=$(( $(wc -c < "$CORPUS/$f.rst") / 24 ))
        if grep -q "^rst_stats: $n records" "$W/last_report"; then ok "$f: record count"; else bad "$f: record count" "$(head -1 "$W/last_report")"; fi
    done
    if grep -q "little-endian" "$W/last_report"; then ok "little-endian sample detected"; else bad "little-endian sample detected"; fi
}

bus_samples() {
    local f fmt
    for f in bus-2cpu.byu bus-1cpu.pbus; do
        fmt=${f##*.}
        "$TRZ" -c --chunk-records=1000 "$CORPUS/$f" > "$W/$f.trz" || { bad "compress $f"; continue; }
        paths bus_stats "$f" "$CORPUS/$f" "$W/$f.trz" -f "$fmt"
        "$AN/bus_stats" "$CORPUS/$f" > "$W/o" 2>&1; same "$f: bus_stats RAWFILE (format from the name) = raw stdin" "$W/last_report" "$W/o"
    done
    if "$AN/bus_stats" - < "$CORPUS/bus-2cpu.byu" > /dev/null 2>&1; then bad "bus_stats on raw stdin without -f must refuse"; else ok "bus_stats without -f refuses raw stdin"; fi
}

champsim_samples() {
    local f fmt
    for f in mix.champsimtrace:champsim mix-cloudsuite.champsimtrace:champsim-cloudsuite; do
        fmt=${f#*:}; f=${f%%:*}
        "$TRZ" -c --chunk-records=1000 "$CORPUS/$f" > "$W/$f.trz" || { bad "compress $f"; continue; }
        paths champsim_stats "$f" "$CORPUS/$f" "$W/$f.trz" -f "$fmt"
        # the batch reader: ChampSim's structs written back are the whole records
        for t in 1 2; do
            "$AN/champsim_read" -T $t -o "$W/structs" "$W/$f.trz" > /dev/null 2> "$W/err"
            local rs=64; [ "$fmt" = champsim-cloudsuite ] && rs=96
            head -c $(( $(wc -c < "$CORPUS/$f") / rs * rs )) "$CORPUS/$f" > "$W/want"
            if cmp -s "$W/structs" "$W/want"; then ok "$f: champsim_read -T $t structs = the records"; else bad "$f: champsim_read -T $t structs = the records" "$(head -c 200 "$W/err")"; fi
        done
    done
    if "$AN/champsim_read" "$W/bus-2cpu.byu.trz" > /dev/null 2>&1; then bad "champsim_read must refuse a BYU archive"; else ok "champsim_read refuses a BYU archive"; fi
    if grep -q "^champsim_stats: 8000 records, cloudsuite" "$W/last_report"; then ok "champsim_stats: 96-byte records, tail dropped"; else bad "champsim_stats: 96-byte records, tail dropped" "$(head -1 "$W/last_report")"; fi
}

# ---- analyzers: hand-made traces with hand-counted results ----
# hexrec HEX: the bytes of a hex string
hexrec() {
    local h=$1 i f=""
    for ((i = 0; i < ${#h}; i += 2)); do f+="\\x${h:i:2}"; done
    printf "$f"
}

rst_hand() {
    local be="$W/hand-be.rst" le="$W/hand-le.rst"
    # cpu 1: PAVADIFF (ea_valid, ea_pa_va 0x10000000), ldx and stx in one line,
    # bne taken, be untaken, ba, call, ret, retl, an annulled nop;
    # cpu 2: ldx with no PAVADIFF (VA), add;
    # cpu 3: six loads over one set, A B C D E A E: LRU evicts A, then E hits.
    : > "$be"; : > "$le"
    # BE INSTR: 03 | flags | cpuid<<2 (cpu < 64) | 00 | iw | pc | ea
    # LE INSTR: 03 | flags (ea_valid 02, bt 20, an 40) | cpu | 00 | iw LE | pc LE | ea LE
    local recs=(
        # type  cpu flagsBE flagsLE iw        ea
        "P 1 80 01 - 0000000010000000"
        "I 1 40 02 c2586000 0000000000002000"
        "I 1 40 02 c2706008 0000000000002008"
        "I 1 44 22 12800004 0000000000001000"
        "I 1 40 02 02800004 0000000000001010"
        "I 1 40 02 10800004 0000000000001000"
        "I 1 44 22 40000010 0000000000001000"
        "I 1 44 22 81c7e008 0000000000001000"
        "I 1 44 22 81c3e008 0000000000001000"
        "I 1 02 40 01000000 0000000000000000"
        "I 2 40 02 c2586000 0000000000002000"
        "I 2 00 00 82004001 0000000000000000"
        "I 3 40 02 c2586000 0000000000000000"
        "I 3 40 02 c2586000 0000000000002000"
        "I 3 40 02 c2586000 0000000000004000"
        "I 3 40 02 c2586000 0000000000006000"
        "I 3 40 02 c2586000 0000000000008000"
        "I 3 40 02 c2586000 0000000000000000"
        "I 3 40 02 c2586000 0000000000008000"
    )
    local r t cpu fb fl iw ea pc=0000000100001000 h
    for r in "${recs[@]}"; do
        read -r t cpu fb fl iw ea <<< "$r"
        if [ "$t" = P ]; then # PAVADIFF: ea_valid + cpuid in byte 1 (BE: 0x80|cpu, LE: 1|cpu<<1)
            hexrec "13$(printf '%02x' $((0x$fb | cpu)))0000000000000000000000000000${ea}" >> "$be"
            hexrec "13$(printf '%02x' $((0x$fl | cpu << 1)))0000000000000000000000000000$(le64 "$ea")" >> "$le"
        else
            hexrec "03${fb}$(printf '%02x' $((cpu << 2)))00${iw}${pc}${ea}" >> "$be"
            hexrec "03${fl}$(printf '%02x' "$cpu")00$(le32 "$iw")$(le64 "$pc")$(le64 "$ea")" >> "$le"
        fi
    done
    local want_be="$W/hand.want"
    cat > "$want_be" <<'EOF'
1                 9           1           1           2   50.00          1         1         2           0         1           2   50.00         0
2                 2           1           0           0       -          0         0         0           1         0           1    0.00         1
3                 7           7           0           0       -          0         0         0           0         0           7   14.29         7
total            18           9           1           2   50.00          1         1         2           1         1          10   20.00         8
EOF
    for order in be le; do
        h="$W/hand-$order.rst"
        "$AN/rst_stats" - < "$h" | tail -4 | sed 's/  */ /g' > "$W/got"
        sed 's/  */ /g' "$want_be" > "$W/want"
        if cmp -s "$W/got" "$W/want"; then ok "rst_stats hand-counted trace ($order)"; else bad "rst_stats hand-counted trace ($order)" "$(diff "$W/want" "$W/got" | tr '\n' ' ')"; fi
    done
    if "$AN/rst_stats" - < "$W/hand-le.rst" | head -1 | grep -q little-endian; then ok "rst_stats probes little-endian"; else bad "rst_stats probes little-endian"; fi
    "$TRZ" -c --format=rst < "$W/hand-le.rst" > "$W/hand-le.trz" 2>/dev/null
    "$AN/rst_stats" "$W/hand-le.trz" | tail -4 | sed 's/  */ /g' > "$W/got"
    if cmp -s "$W/got" "$W/want"; then ok "rst_stats hand-counted trace (le, .trz)"; else bad "rst_stats hand-counted trace (le, .trz)" "$(diff "$W/want" "$W/got" | tr '\n' ' ')"; fi
}

le32() { local h=$1; printf '%s' "${h:6:2}${h:4:2}${h:2:2}${h:0:2}"; }
le64() { local h=$1; printf '%s%s' "$(le32 "${h:8:8}")" "$(le32 "${h:0:8}")"; }

# csrec IP IS_BRANCH TAKEN DST0 DST1 SRC0..SRC3: a 64-byte input_instr, no memory operands
csrec() {
    local ip=$1; shift
    hexrec "$(le64 "$ip")$(printf '%02x' "$@")$(printf '0%.0s' {1..96})"
}

champsim_hand() {
    local h="$W/hand.champsim"
    {
        csrec 0000000000401000 0 0 3 0 7 0 0 0       # not a branch
        csrec 0000000000401004 1 1 26 0 0 0 0 0      # direct jump
        csrec 0000000000401008 1 1 26 0 3 0 0 0      # indirect jump
        csrec 000000000040100c 1 1 26 0 26 25 0 0    # conditional, taken
        csrec 0000000000401010 1 0 26 0 26 25 0 0    # conditional, not taken
        csrec 0000000000401014 1 1 26 6 26 6 0 0     # direct call
        csrec 0000000000401018 1 1 26 6 26 6 3 0     # indirect call
        csrec 000000000040101c 1 1 26 6 6 0 0 0      # return
        csrec 0000000000401020 1 0 26 0 6 25 0 0     # other (reads SP, writes no SP), not taken
        csrec 0000000000401024 1 0 3 0 7 0 0 0       # not a branch, is_branch 1
        csrec 0000000000401028 0 1 26 0 26 3 0 0     # conditional on a register, taken, is_branch 0
    } > "$h"
    cat > "$W/want" <<'EOF'
champsim_stats: 11 records, input_instr (64-byte records)
kind count share% taken taken%
not-branch 2 18.18 0 0.00
jump 1 9.09 1 100.00
indirect 1 9.09 1 100.00
conditional 3 27.27 2 66.67
call 1 9.09 1 100.00
indirect-call 1 9.09 1 100.00
return 1 9.09 1 100.00
other 1 9.09 0 0.00
branches 9 81.82 7 77.78
is_branch disagreeing with the registers: 2
EOF
    "$AN/champsim_stats" - < "$h" | sed 's/  */ /g' > "$W/got"
    if cmp -s "$W/got" "$W/want"; then ok "champsim_stats hand-counted trace"; else bad "champsim_stats hand-counted trace" "$(diff "$W/want" "$W/got" | tr '\n' ' ')"; fi
    "$TRZ" -c --format=champsim < "$h" > "$W/hand-cs.trz" 2>/dev/null
    "$AN/champsim_stats" "$W/hand-cs.trz" | sed 's/  */ /g' > "$W/got"
    if cmp -s "$W/got" "$W/want"; then ok "champsim_stats hand-counted trace (.trz)"; else bad "champsim_stats hand-counted trace (.trz)" "$(diff "$W/want" "$W/got" | tr '\n' ' ')"; fi
}

bus_hand() {
    # proc 0: FETCH 0x1000 (miss), FETCH 0x1008 (hit), MEMREAD 0x2000 (miss),
    # MEMWRITE 0x2010 (hit), IOREAD 0x60 (not cached); proc 1: FETCH 0x1000 (miss)
    { hexrec 001000000008000000000000; hexrec 081000000008000005000000
      hexrec 002000000108000005000000; hexrec 102000000308000005000000
      hexrec 600000001001000005000000; hexrec 001000000008000105000000; } > "$W/hand.byu"
    "$AN/bus_stats" -f byu - < "$W/hand.byu" | sed 's/  */ /g' | tail -5 > "$W/got"
    printf '%s\n' "FETCH 3 50.00 3 33.33" "MEMREAD 1 16.67 1 0.00" "MEMWRITE 1 16.67 1 100.00" \
        "IOREAD 1 16.67 0 -" "total 6 100.00 5 40.00" > "$W/want"
    if cmp -s "$W/got" "$W/want"; then ok "bus_stats hand-counted BYU"; else bad "bus_stats hand-counted BYU" "$(diff "$W/want" "$W/got" | tr '\n' ' ')"; fi
    # PEL: I_FETCH 0x1000 (miss), D_READ 0x1038 (hit), D_WRITE 0x3000 (miss), IO_WRITE
    { hexrec 000010000080; hexrec 0000103800c0; hexrec 0000300000f0; hexrec 000000600070; } > "$W/hand.pbus"
    "$AN/bus_stats" "$W/hand.pbus" | sed 's/  */ /g' | tail -5 > "$W/got"
    printf '%s\n' "IO_WRITE 1 25.00 0 -" "I_FETCH 1 25.00 1 0.00" "D_READ 1 25.00 1 100.00" \
        "D_WRITE 1 25.00 1 0.00" "total 4 100.00 3 33.33" > "$W/want"
    if cmp -s "$W/got" "$W/want"; then ok "bus_stats hand-counted PEL"; else bad "bus_stats hand-counted PEL" "$(diff "$W/want" "$W/got" | tr '\n' ' ')"; fi
}

# ---- the shared corpus (real traces), when present ----
shared_corpus() {
    [ -n "${TRZ_QUICK:-}" ] && return
    [ -d "$SHARED" ] || return
    local x=$SHARED/rst/blaze-32cpu-part1.rst.xz
    if [ -f "$x" ] && command -v xz > /dev/null; then
        xz -dc "$x" | "$TRZ" -c -T2 > "$W/blaze.trz" 2> "$W/err" || bad "compress blaze" "$(cat "$W/err")"
        xz -dc "$x" | "$AN/rst_stats" - > "$W/ref"
        "$AN/rst_stats" -T 2 "$W/blaze.trz" > "$W/o" 2>&1; same "blaze: rst_stats -T 2 FILE.trz = xz -dc | rst_stats -" "$W/ref" "$W/o"
        "$AN/rst_stats" -R "$W/blaze.trz" > "$W/o" 2>&1; same "blaze: rst_stats -R FILE.trz = xz -dc | rst_stats -" "$W/ref" "$W/o"
        if [ "$(grep -cE '^[0-9]+ ' "$W/ref")" = 32 ]; then ok "blaze: 32 CPUs reported"; else bad "blaze: 32 CPUs reported"; fi
        rm -f "$W/blaze.trz"
    fi
    local f
    for f in byu/sdsu-part1.byu pbus/sdsu-part1.pbus; do
        [ -f "$SHARED/$f" ] || continue
        "$TRZ" -c --chunk-records=5000 < "$SHARED/$f" > "$W/s.trz"
        "$AN/bus_stats" -f "${f##*.}" - < "$SHARED/$f" > "$W/ref"
        "$AN/bus_stats" -T 2 "$W/s.trz" > "$W/o" 2>&1; same "$f: bus_stats FILE.trz = raw stdin" "$W/ref" "$W/o"
    done
    x=$SHARED/champsim/python3work-skip30M-5M.champsimtrace.xz
    if [ -f "$x" ] && command -v xz > /dev/null; then
        "$TRZ" -q -c -T2 "$x" > "$W/cs.trz" 2> "$W/err" || bad "compress $x" "$(cat "$W/err")"
        xz -dc "$x" | "$AN/champsim_stats" - > "$W/ref"
        "$AN/champsim_stats" -T 2 "$W/cs.trz" > "$W/o" 2>&1; same "python3work: champsim_stats FILE.trz = xz -dc | champsim_stats -" "$W/ref" "$W/o"
        rm -f "$W/cs.trz"
    fi
}

# ---- trz -d --from --count, and trz dump -s -n, in every format ----
# slice FILE RS FIRST COUNT: the expected bytes (RS 0 = lines)
slice() {
    if [ "$2" = 0 ]; then sed -n "$(($3 + 1)),$(($3 + $4))p" "$1"
    else tail -c +$(($3 * $2 + 1)) "$1" | head -c $(($4 * $2)); fi
}

cut_format() { # NAME FILE RS FORMAT CHUNK_OPTION RECORDS
    local name=$1 f=$2 rs=$3 fmt=$4 copt=$5 total=$6 a n m
    "$TRZ" -c --format="$fmt" "$copt" < "$f" > "$W/c.trz" || { bad "$name: compress"; return; }
    # the first record, both sides of chunk edges, a long run, the last record
    for a in "0 1" "999 2" "1000 1" "1999 1002" "$((total / 2)) 777" "$((total - 3)) 2" "$((total - 1)) 1"; do
        read -r n m <<< "$a"
        slice "$f" "$rs" "$n" "$m" > "$W/want"
        # the last record's bytes run to the end: a partial record after it is its own
        [ "$rs" != 0 ] && [ $((n + m)) -ge "$total" ] && tail -c +$((n * rs + 1)) "$f" > "$W/want"
        "$TRZ" -dc --from="$n" --count="$m" "$W/c.trz" > "$W/got" 2> "$W/err"
        if cmp -s "$W/got" "$W/want"; then ok "$name: -d --from=$n --count=$m"
        else bad "$name: -d --from=$n --count=$m" "$(wc -c < "$W/got") bytes, want $(wc -c < "$W/want"); $(head -c 200 "$W/err")"; fi
    done
    # dump: the archive and the raw file print the same lines, the ones asked for
    for a in "0 3" "999 2" "$((total - 2)) 2"; do
        read -r n m <<< "$a"
        "$TRZ" dump -s "$n" -n "$m" "$W/c.trz" > "$W/d1" 2> "$W/err"
        "$TRZ" dump -s "$n" -n "$m" --format="$fmt" "$f" > "$W/d2" 2>> "$W/err"
        if [ -s "$W/d1" ] && cmp -s "$W/d1" "$W/d2"; then ok "$name: dump -s $n -n $m, .trz = raw"
        else bad "$name: dump -s $n -n $m, .trz = raw" "$(diff "$W/d1" "$W/d2" | head -3 | tr '\n' ' ') $(head -c 200 "$W/err")"; fi
        case $fmt in
            uop) slice "$f" 0 "$n" "$m" | cmp -s - "$W/d1" ;;
            raw) [ "$(head -c 8 "$W/d1")" = "$(printf '%08x' "$n")" ] ;;
            *) [ "$(wc -l < "$W/d1")" = "$m" ] && head -1 "$W/d1" | grep -qE "^ *$n[: ]" ;;
        esac
        if [ $? = 0 ]; then ok "$name: dump -s $n -n $m prints records $n.."; else bad "$name: dump -s $n -n $m prints records $n.." "$(head -2 "$W/d1" | tr '\n' ' ')"; fi
    done
    # FIRST names a record: at the record count or past it is an error (at
    # it with -n 0, nothing asked, prints nothing), from the raw file (and a
    # pipe of it) as from the archive
    local src how rc opt
    for src in archive file pipe; do
        for a in "$total - 1" "$total 0 0" "$total 1 1" "$((total + 1)) - 1" "$((total + 1)) 0 1" "$((total + 1000)) 5 1"; do
            read -r n m rc <<< "$a"
            opt="-s $n"; [ "$m" != - ] && opt="$opt -n $m"
            case $src in
                archive) how="$TRZ dump $opt $W/c.trz" ;;
                file) how="$TRZ dump $opt --format=$fmt $f" ;;
                pipe) how="cat $f | $TRZ dump $opt --format=$fmt" ;;
            esac
            bash -c "$how" > "$W/d1" 2> "$W/err"
            got=$?
            if [ "$rc" = 0 ]; then [ $got = 0 ] && [ ! -s "$W/d1" ] && [ ! -s "$W/err" ]
            else [ $got = 1 ] && [ ! -s "$W/d1" ] && [ "$(wc -l < "$W/err")" = 1 ] \
                && grep -q "record $n is past the end ($total records)" "$W/err"; fi
            if [ $? = 0 ]; then ok "$name: dump $opt of the $src: exit $rc"
            else bad "$name: dump $opt of the $src" "exit $got, want $rc; $(head -c 200 "$W/err")"; fi
        done
    done
}

cuts() {
    head -c 60000 /dev/urandom > "$W/rand.bin"
    cut_format rst "$CORPUS/loops-4cpu.rst" 24 rst --chunk-records=1000 40000
    cut_format rst-le "$CORPUS/blaze-like-1cpu-le.rst" 24 rst --chunk-records=1000 20000
    cut_format byu "$CORPUS/bus-2cpu.byu" 12 byu --chunk-records=1000 100000
    cut_format pbus "$CORPUS/bus-1cpu.pbus" 6 pbus --chunk-records=1000 100000
    cut_format uop "$CORPUS/sjeng-like.trace" 0 uop --chunk-size=4K 15000
    cut_format uop-chunk-lines "$CORPUS/tabs-variant.trace" 0 uop --chunk-records=1000 3001
    cut_format champsim "$CORPUS/mix.champsimtrace" 64 champsim --chunk-records=1000 20000
    cut_format champsim-cloudsuite "$CORPUS/mix-cloudsuite.champsimtrace" 96 champsim-cloudsuite --chunk-records=1000 8000
    cut_format raw "$W/rand.bin" 1 raw --chunk-size=4K 60000
}

# ---- the push-style writer: record by record, the archive trz -c makes ----
writer() {
    local wr=$AN/write_records
    head -c $((24 * 3001 + 7)) "$CORPUS/loops-4cpu.rst" > "$W/tail.rst"       # a partial last record
    { head -c 20000 "$CORPUS/sjeng-like.trace"; printf 'no newline'; } > "$W/nonl.trace"
    for c in "rst -r 24 $W/tail.rst" "byu -r 12 $CORPUS/bus-2cpu.byu" "pbus -r 6 $CORPUS/bus-1cpu.pbus" \
             "uop -r 0 $CORPUS/sjeng-like.trace" "uop -r 0 $W/nonl.trace" "raw -r 7 $CORPUS/bus-1cpu.pbus"; do
        set -- $c
        local fmt=$1 rs=$3 f=$4
        for t in 1 2; do
            local fopt=auto; [ "$fmt" = raw ] && fopt=raw
            if "$wr" -f "$fopt" -r "$rs" -T "$t" -L 3 "$f" "$W/w.trz" 2> "$W/err" && "$TRZ" -q -c -3 -T"$t" --format="$fopt" "$f" > "$W/c.trz" \
               && cmp -s "$W/w.trz" "$W/c.trz" && "$TRZ" -dc "$W/w.trz" | cmp -s - "$f"; then ok "writer: $fmt, $rs-byte writes, $t threads: the archive trz -c makes"
            else bad "writer: $fmt, $rs-byte writes, $t threads" "$(head -c 200 "$W/err")"; fi
        done
    done
}

# ---- trz dump of concatenated members: every record on a line of its own ----
dump_members() {
    local t=$W/dm
    mkdir -p "$t"
    printf 'a b c' | "$TRZ" -q --format=uop -c > "$t/nonl.trz"                   # text, no final newline
    printf 'd e f\ng h i\n' | "$TRZ" -q --format=uop -c > "$t/text.trz"
    head -c 30 "$CORPUS/bus-2cpu.byu" > "$t/tail.byu"                            # 2 records and 6 bytes
    "$TRZ" -q --format=byu -c "$t/tail.byu" > "$t/tail.trz"
    head -c 5 "$CORPUS/bus-2cpu.byu" > "$t/tiny.byu"                             # no whole record
    "$TRZ" -q --format=byu -c "$t/tiny.byu" > "$t/tiny.trz"; : > "$t/tiny.txt"
    head -c 40 "$CORPUS/bus-1cpu.pbus" > "$t/r40"                               # raw: 2.5 hex lines
    "$TRZ" -q --format=raw -c "$t/r40" > "$t/raw.trz"
    "$TRZ" dump "$t/tail.trz" > "$t/tail.txt"
    "$TRZ" dump "$t/raw.trz" > "$t/raw.txt"
    # a last line longer than a chunk, without a newline: its pieces stay on one line
    { head -c 3000 "$CORPUS/sjeng-like.trace"; head -c 9000 /dev/zero | tr '\0' x; } > "$t/long.trace"
    "$TRZ" -q --format=uop --chunk-size=4K -c "$t/long.trace" > "$t/long.trz"
    local name parts want m
    for c in "text after text:nonl text" "BYU after text:nonl tail" "raw after text:nonl raw" \
             "text after a BYU tail:tail nonl" "BYU after a BYU tail:tail tail" "text after raw:raw nonl" \
             "raw after raw:raw raw" "text after a long line:long text" \
             "text, a BYU member without a whole record, text:nonl tiny text"; do
        name=${c%%:*} parts=${c#*:}
        : > "$t/cat.trz"; : > "$t/want"
        for m in $parts; do
            cat "$t/$m.trz" >> "$t/cat.trz"
            # a record that follows a line without its newline starts a line of its own
            [ -s "$t/want" ] && [ "$(tail -c 1 "$t/want" | od -An -c | tr -d ' ')" != '\n' ] && echo >> "$t/want"
            case $m in
                nonl) printf 'a b c' >> "$t/want" ;;
                text) printf 'd e f\ng h i\n' >> "$t/want" ;;
                long) cat "$t/long.trace" >> "$t/want" ;;
                *) cat "$t/$m.txt" >> "$t/want" ;;
            esac
        done
        "$TRZ" dump "$t/cat.trz" > "$t/got" 2> "$t/err"
        # the numbers go on across members: compare the records, not their numbers
        sed -E 's/^ *[0-9]+: //; s/^[0-9a-f]{8}  //' "$t/got" > "$t/got.rec"
        sed -E 's/^ *[0-9]+: //; s/^[0-9a-f]{8}  //' "$t/want" > "$t/want.rec"
        if cmp -s "$t/got.rec" "$t/want.rec"; then ok "dump of a concatenation, $name: every record on its own line"
        else bad "dump of a concatenation, $name" "$(diff "$t/got.rec" "$t/want.rec" | head -4 | cut -c 1-100 | tr '\n' ' ') $(head -c 200 "$t/err")"; fi
        cat "$t/cat.trz" | "$TRZ" dump > "$t/got2" 2> "$t/err"
        cmp -s "$t/got" "$t/got2" && ok "dump of a concatenation, $name: a pipe prints the same" \
            || bad "dump of a concatenation, $name: a pipe prints the same" "$(head -c 200 "$t/err")"
    done
    # raw chunks that end inside a hex line: the lines are those of the raw file
    head -c 1000 "$CORPUS/bus-1cpu.pbus" > "$t/r1000"
    "$TRZ" -q --format=raw --chunk-records=10 -c "$t/r1000" > "$t/r10.trz"
    for a in "0 1000" "5 100" "13 7"; do
        read -r n m <<< "$a"
        "$TRZ" dump -s "$n" -n "$m" "$t/r10.trz" > "$t/got"
        "$TRZ" dump -s "$n" -n "$m" --format=raw "$t/r1000" > "$t/want"
        cmp -s "$t/got" "$t/want" && ok "raw in 10-byte chunks: dump -s $n -n $m, .trz = raw" \
            || bad "raw in 10-byte chunks: dump -s $n -n $m, .trz = raw" "$(diff "$t/got" "$t/want" | head -3 | tr '\n' ' ')"
    done
    # a pipe that delivers a raw trace in odd pieces prints the same lines too
    (head -c 7 "$t/r1000"; sleep 0.2; tail -c +8 "$t/r1000") | "$TRZ" dump --format=raw > "$t/got"
    "$TRZ" dump --format=raw "$t/r1000" > "$t/want"
    cmp -s "$t/got" "$t/want" && ok "raw from a pipe in odd pieces: the lines of the file" \
        || bad "raw from a pipe in odd pieces: the lines of the file" "$(diff "$t/got" "$t/want" | head -3 | tr '\n' ' ')"
}

# a compressed file given as a raw trace: refused (its bytes are no
# records; an .xz read as records gave nonsense counts and exit 0), from a
# file and from stdin, while the trace itself is read
compressed_input() {
    local a z f o
    for a in "rst_stats loops-4cpu.rst" "bus_stats bus-2cpu.byu -f byu" "champsim_stats mix.champsimtrace"; do
        read -r p f o <<< "$a"
        for z in xz gzip bzip2 zstd; do
            command -v $z > /dev/null || continue
            $z -c < "$CORPUS/$f" > "$W/$f.$z"
            # shellcheck disable=SC2086
            "$AN/$p" $o "$W/$f.$z" > "$W/o" 2> "$W/err"; local rc=$?
            if [ $rc = 1 ] && [ ! -s "$W/o" ] && grep -q "^$p: the input is $z-compressed, not records" "$W/err"; then
                ok "$p refuses a $z file"; else bad "$p refuses a $z file" "exit $rc: $(head -c 200 "$W/err")"; fi
        done
        # shellcheck disable=SC2086
        "$AN/$p" $o - < "$W/$f.xz" > "$W/o" 2> "$W/err"
        [ $? = 1 ] && grep -q "xz-compressed" "$W/err" && ok "$p refuses xz on stdin" || bad "$p refuses xz on stdin" "$(head -c 200 "$W/err")"
        # shellcheck disable=SC2086
        "$AN/$p" $o "$CORPUS/$f" > "$W/o" 2> "$W/err" && [ -s "$W/o" ] && ok "$p reads the trace itself" || bad "$p reads the trace itself" "$(head -c 200 "$W/err")"
    done
}

compressed_input
dump_members
rst_samples
bus_samples
champsim_samples
writer
rst_hand
bus_hand
champsim_hand
cuts
shared_corpus
finish

#!/usr/bin/env bash
# make_seeds.sh - regenerate the seed corpora in tests/fuzz/corpus/<target>/
# from the project's generated samples (corpus/) and a few edge cases: small
# .trz archives of every format for decode_any (several chunks, a tail,
# concatenated and mixed members, damaged ones), record slices with their
# parameter bytes for roundtrip_<codec>, and (record, count) lists for
# seek_read, and call sequences for reader_api.  Needs ./trz built.  The output is the same on every run.
# Files named regress-* (inputs that found a bug) and legacy-* (archives an
# earlier writer made, whose variants today's writer no longer makes from
# these samples) are kept as they are.
set -eu
cd "$(dirname "$0")/../.." || exit 1
TRZ=./trz
S=corpus
OUT=tests/fuzz/corpus
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# inputs that once found a bug (regress-*) and earlier writers' archives
# (legacy-*) stay; the rest is made anew
mkdir -p "$OUT"/{decode_any,roundtrip_raw,roundtrip_rst,roundtrip_byu,roundtrip_pbus,roundtrip_uop,roundtrip_champsim,roundtrip_drmemtrace,seek_read,oracle,drfile,sequential,reader_api}
find "$OUT" -type f ! -name 'regress-*' ! -name 'legacy-*' -delete

slice() { # FILE OFFSET LENGTH
    tail -c +"$(($2 + 1))" "$1" | head -c "$3"
}
byte() { printf "\\x$(printf %02x "$1")"; }

# ---- decode_any: archives ----
D=$OUT/decode_any
arc() { # NAME INPUT-FILE TRZ-OPTIONS...
    local name=$1 in=$2; shift 2
    "$TRZ" -q -f -c "$@" "$in" > "$D/$name.trz"
}
slice $S/loops-4cpu.rst 24000 2400 > "$W/a.rst"
slice $S/blaze-like-1cpu-le.rst 48000 2400 > "$W/le.rst"
slice $S/bus-2cpu.byu 1199000 1002 > "$W/t.byu"       # ends in the 2-byte tail
slice $S/bus-2cpu.byu 24000 13200 > "$W/g.byu"
slice $S/bus-1cpu.pbus 60000 1800 > "$W/a.pbus"
slice $S/sjeng-like.trace 40000 3000 > "$W/a.trace"
head -c 2000 $S/tabs-variant.trace > "$W/tabs.trace"
{ head -c 300 $S/sjeng-like.trace; head -c 5000 /dev/zero | tr '\0' 'x'; echo; head -c 200 $S/sjeng-like.trace; } > "$W/long.trace"
slice $S/loops-4cpu.rst 100000 6000 > "$W/a.raw"
slice $S/mix.champsimtrace 128000 9600 > "$W/a.champsim"
slice $S/mix-cloudsuite.champsimtrace 756000 12007 > "$W/t.cloudsuite"  # ends in the 7-byte tail
slice $S/core-6thr.drmemtrace 240000 36005 > "$W/a.drmemtrace"       # ends in a 5-byte tail
: > "$W/empty"
head -c 24 $S/loops-4cpu.rst > "$W/one.rst"
# PEL at instruction grain (the pbus exact model): a loop of fetches of
# lengths 1-7 with a 4-byte read after every third; byte enables mark the
# bytes used within the 8-byte cycle
pel_rec() { # ADDR OFFSET LENGTH CTL
    local be=$(( ~(((1 << $3) - 1) << $2) & 255 ))
    byte $(($1 >> 24 & 255)); byte $(($1 >> 16 & 255)); byte $(($1 >> 8 & 255)); byte $(($1 & 255))
    byte $be; byte "$4"
}
{
    for it in 1 2 3 4 5 6 7 8 9 10; do
        x=4198400
        for k in 0 1 2 3 4 5 6 7 8 9 10 11; do
            l=$((1 + k * 5 % 7)) o=$((x & 7))
            [ $((o + l)) -le 8 ] || l=$((8 - o))
            pel_rec $((x & ~7)) $o $l 144
            x=$((x + 1 + k * 5 % 7))
            [ $((k % 3)) = 0 ] && pel_rec $((8388608 + k * 64 + it * 8)) 4 4 208
        done
    done
} > "$W/grain.pbus"
arc rst-4chunks "$W/a.rst" --chunk-records=25
arc rst-le-gzip "$W/le.rst" -1 --backend=gzip --chunk-records=40
arc rst-level19 "$W/a.rst" -19
arc rst-one-record "$W/one.rst"
arc rst-v1-4chunks "$W/a.rst" --chunk-records=25             # range-coded (model variant 1) chunks
arc rst-v1-le "$W/le.rst" --chunk-records=40
slice $S/loops-4cpu.rst 48000 24000 > "$W/k.rst"
arc rst-know-groups "$W/k.rst" --chunk-records=40 --restart=4K --no-chain # RST knowledge restarted every 5 chunks
arc rst-no-know "$W/a.rst" --chunk-records=25 --restart=0          # version 1
arc byu-tail "$W/t.byu" --chunk-records=30
arc byu-grouped "$W/g.byu" -1                          # 2 processors, the grouped layout
arc pbus-5chunks "$W/a.pbus" --chunk-records=60
arc pbus-raw-format "$W/a.pbus" --format=raw --chunk-size=4096
arc pbus-grain "$W/grain.pbus" -1 --chunk-records=50
arc uop-8lines "$W/a.trace" --chunk-records=8
arc uop-tabs "$W/tabs.trace" -3
arc uop-midline "$W/long.trace" --chunk-size=4096
slice $S/sjeng-like.trace 60000 40000 > "$W/k.trace"
arc uop-know-groups "$W/k.trace" --chunk-size=4096 --restart=16K --no-chain # uop knowledge restarted every 4 chunks
arc uop-know-fast "$W/k.trace" -3 --chunk-size=6000 --no-chain       # the zstd variant with knowledge
arc uop-no-know "$W/a.trace" --chunk-records=8 --restart=0            # version 1
arc raw-2chunks "$W/a.raw" --format=raw --chunk-size=4096
arc rst-as-raw "$W/a.rst" --format=raw --chunk-records=500
arc champsim-3chunks "$W/a.champsim" --chunk-records=50
arc champsim-know-groups "$W/a.champsim" --chunk-records=40 --restart=8K --no-chain # knowledge restarted every 3 chunks
arc cloudsuite-tail "$W/t.cloudsuite" --chunk-records=25
# the fast levels' variants: ChampSim's byte streams with byte-form
# knowledge, the bus codecs' lean models
arc champsim-fast-know "$W/a.champsim" -1 --chunk-records=40 --restart=8K --no-chain
arc cloudsuite-fast-tail "$W/t.cloudsuite" -2 --chunk-records=25
arc byu-lean-tail "$W/t.byu" -1 --chunk-records=30
arc pbus-lean "$W/a.pbus" -1 --chunk-records=60
arc drmemtrace-know-groups "$W/a.drmemtrace" --format=drmemtrace --chunk-records=500 --restart=12K --no-chain # knowledge restarted every 2 chunks
# chains (container version 4): groups of a few chunks, each continuing the one before
arc rst-chain "$W/k.rst" --chunk-records=40 --restart=4K
arc rst-chain-l1 "$W/k.rst" -1 --chunk-records=40 --restart=4K
arc byu-chain "$W/g.byu" --chunk-records=300 --restart=8K
arc byu-chain-l19 "$W/g.byu" -19 --chunk-records=300 --restart=8K
arc pbus-chain "$W/a.pbus" --chunk-records=60 --restart=4K
arc pbus-chain-l19 "$W/a.pbus" -19 --chunk-records=60 --restart=4K
arc uop-chain "$W/k.trace" --chunk-size=4096 --restart=16K
arc champsim-chain "$W/a.champsim" --chunk-records=40 --restart=8K
arc champsim-chain-l1 "$W/a.champsim" -1 --chunk-records=40 --restart=8K
arc drmemtrace-chain "$W/a.drmemtrace" --format=drmemtrace --chunk-records=500 --restart=12K
arc drmemtrace-no-know "$W/a.drmemtrace" --format=drmemtrace --chunk-records=1000 --restart=0
# drmemtrace's fast variant (levels 1-3): alone, with knowledge, in chains
arc drmemtrace-fast "$W/a.drmemtrace" --format=drmemtrace -1 --chunk-records=1000 --restart=0
arc drmemtrace-fast-know "$W/a.drmemtrace" --format=drmemtrace -3 --chunk-records=500 --restart=12K --no-chain
arc drmemtrace-fast-chain "$W/a.drmemtrace" --format=drmemtrace -1 --chunk-records=500 --restart=12K
arc empty "$W/empty"
cat "$D/rst-4chunks.trz" "$D/byu-tail.trz" > "$D/concat-mixed.trz"
cat "$D/pbus-5chunks.trz" "$D/pbus-5chunks.trz" > "$D/concat-same.trz"
cat "$D/empty.trz" "$D/uop-8lines.trz" > "$D/concat-empty-first.trz"
n=$(wc -c < "$D/rst-4chunks.trz")
head -c $((n / 2)) "$D/rst-4chunks.trz" > "$D/cut-half.trz"
head -c $((n - 10)) "$D/rst-4chunks.trz" > "$D/cut-footer.trz"
head -c 30 "$D/rst-4chunks.trz" > "$D/cut-header.trz"
cp "$D/pbus-5chunks.trz" "$D/flip-chunk.trz"
printf '\377' | dd of="$D/flip-chunk.trz" bs=1 seek=200 conv=notrunc status=none
cp "$D/uop-8lines.trz" "$D/flip-index.trz"
m=$(wc -c < "$D/uop-8lines.trz")
printf '\001' | dd of="$D/flip-index.trz" bs=1 seek=$((m - 40)) conv=notrunc status=none
printf 'not a trz file\n' > "$D/not-trz"
# a hostile case the fuzzers found (tests/fuzz/craft.c writes it with every check right)
make -s build/rel/craft
mkdir -p "$W/craft"
build/rel/craft "$W/craft" > /dev/null
cp "$W/craft/zstd-stream-empty.trz" "$D/"

# ---- oracle: the intact archives; its mutator changes and reseals them ----
for f in "$D"/*.trz; do
    case $(basename "$f") in cut-*|flip-*) ;; *) cp "$f" "$OUT/oracle/";; esac
done

# ---- roundtrip_<codec>: two parameter bytes, then records ----
rt() { # CODEC NAME P1 P2 FILE OFFSET LENGTH
    { byte "$3"; byte "$4"; slice "$5" "$6" "$7"; } > "$OUT/roundtrip_$1/$2"
}
for c in rst byu pbus uop raw; do
    { byte 0; byte 0; } > "$OUT/roundtrip_$c/empty"
done
rt rst be-l1 0 0 $S/loops-4cpu.rst 0 4800
rt rst be-l2-small 1 4 $S/loops-4cpu.rst 480000 2400
rt rst be-gzip-t2 12 1 $S/loops-4cpu.rst 240000 7200
rt rst le-l3 2 0 $S/blaze-like-1cpu-le.rst 0 4800
rt rst le-noverify 16 12 $S/blaze-like-1cpu-le.rst 96000 4800
rt rst misaligned 0 0 $S/loops-4cpu.rst 7 3000
rt rst pipe-threads 97 5 $S/loops-4cpu.rst 720000 6000
rt rst not-rst 0 0 $S/bus-2cpu.byu 0 4800
rt byu l1 0 0 $S/bus-2cpu.byu 0 6000
rt byu tail 1 4 $S/bus-2cpu.byu 1196000 4002
rt byu gzip 4 2 $S/bus-2cpu.byu 600000 4800
rt byu noverify-t2 24 0 $S/bus-2cpu.byu 300000 6000
rt byu pipe 161 13 $S/bus-2cpu.byu 900000 3600
rt byu grouped 0 3 $S/bus-2cpu.byu 24000 13200   # 1100 records of 2 processors in one chunk: the grouped layout
rt byu not-byu 0 0 $S/sjeng-like.trace 0 3000
rt pbus l1 0 0 $S/bus-1cpu.pbus 0 6000
rt pbus small-chunks 2 4 $S/bus-1cpu.pbus 300000 3000
rt pbus gzip 4 1 $S/bus-1cpu.pbus 540000 4800
rt pbus noverify 16 0 $S/bus-1cpu.pbus 120000 6000
rt pbus odd-tail 1 0 $S/bus-1cpu.pbus 6000 3001
rt pbus not-pbus 0 0 $S/loops-4cpu.rst 0 3000
rt pbus grain 0 0 "$W/grain.pbus" 0 960
rt uop padded 0 0 $S/sjeng-like.trace 0 6000
rt uop lines 2 4 $S/sjeng-like.trace 650000 4000
rt uop tabs 1 0 $S/tabs-variant.trace 0 5000
rt uop midline 0 0 $S/sjeng-like.trace 1001 3000
rt uop gzip-noverify 20 1 $S/tabs-variant.trace 70000 5000
rt uop not-uop 0 0 $S/bus-1cpu.pbus 0 3000
{ byte 0; byte 0; head -c 300 $S/sjeng-like.trace; head -c 5000 /dev/zero | tr '\0' 'y'; } > "$OUT/roundtrip_uop/long-line"
rt raw rst 0 0 $S/loops-4cpu.rst 0 5000
rt raw text 1 4 $S/sjeng-like.trace 0 5000
rt raw byu-gzip 4 0 $S/bus-2cpu.byu 0 5000
rt raw records-cap 0 12 $S/bus-1cpu.pbus 0 3000
{ byte 0; byte 0; head -c 6000 /dev/zero; } > "$OUT/roundtrip_raw/zeros"
# roundtrip_champsim: a third parameter byte, bit 0 = 96-byte records
rt3() { # NAME P1 P2 P3 FILE OFFSET LENGTH
    { byte "$2"; byte "$3"; byte "$4"; slice "$5" "$6" "$7"; } > "$OUT/roundtrip_champsim/$1"
}
{ byte 0; byte 0; byte 0; } > "$OUT/roundtrip_champsim/empty"
rt3 l1 0 0 0 $S/mix.champsimtrace 0 12800
rt3 l9 129 3 0 $S/mix.champsimtrace 640000 16000
rt3 small-gzip 4 4 0 $S/mix.champsimtrace 320000 9600
rt3 noverify-pipe 48 1 0 $S/mix.champsimtrace 960000 12800
rt3 tail 1 0 0 $S/mix.champsimtrace 64000 6450
rt3 cloudsuite 129 3 1 $S/mix-cloudsuite.champsimtrace 0 15360
rt3 cloudsuite-tail 0 0 1 $S/mix-cloudsuite.champsimtrace 760032 7975
rt3 not-champsim 0 0 0 $S/loops-4cpu.rst 0 6400
{ byte 128; byte 0; byte 0; head -c 6400 /dev/zero; } > "$OUT/roundtrip_champsim/zeros"

# roundtrip_drmemtrace: two parameter bytes, then 12-byte records
rt drmemtrace l1 0 0 $S/core-6thr.drmemtrace 0 12000
rt drmemtrace l9-small 129 3 $S/core-6thr.drmemtrace 120000 9600
rt drmemtrace gzip-t2 12 1 $S/core-6thr.drmemtrace 360000 7200
rt drmemtrace mid-cut 0 0 $S/core-6thr.drmemtrace 240006 6007
rt drmemtrace not-drmemtrace 0 0 $S/bus-2cpu.byu 0 6000
{ byte 0; byte 0; } > "$OUT/roundtrip_drmemtrace/empty"

# ---- seek_read: archive selector, then (record u32, count u8) pairs ----
for sel in 0 1 2 3 4 17 26 40; do
    { byte "$sel"; slice $S/bus-2cpu.byu $((sel * 1000 + 12)) $((5 * (4 + sel % 7))); } > "$OUT/seek_read/sel$sel"
done
{ byte 0; printf '\000\000\000\000\001\000\000\013\271\377\377\377\377\377\003'; } > "$OUT/seek_read/ends"
# ---- sequential: archive selector, then (operation, chunk[, argument]) pairs ----
# (operations: 0 drop, 1 repeat, 2 move, 3 flip a byte, 4 cut short, 5 none)
seq() { printf "$2" > "$OUT/sequential/$1"; }
seq intact '\000\005\000'
seq cut-chain '\000\000\004'
seq cut-know '\001\000\004'
seq cut-alone '\002\000\004'
seq cut-text '\003\000\003'
seq repeat-chain '\000\001\002'
seq repeat-text-t2 '\023\001\005'
seq move-know '\001\002\003\001'
seq flip-chain '\000\003\004\033'
seq flip-alone-t2 '\022\003\005\177'
seq short-chain '\000\004\011'
seq cut-then-repeat '\000\000\003\001\006\000\000\100\000'
seq from-middle '\000\005\000\000\000\005\334'
# ---- reader_api: archive/pipe/threads byte, then (call u8, argument u32) ----
call() { byte "$1"; byte $(($2 >> 24 & 255)); byte $(($2 >> 16 & 255)); byte $(($2 >> 8 & 255)); byte $(($2 & 255)); }
for sel in 0 1 2 3 4 5 6 7 9 14 43 102 125; do
    { byte "$sel"; slice $S/loops-4cpu.rst $((sel * 4000 + 24)) $((5 * (12 + sel % 20))); } > "$OUT/reader_api/sel$sel"
done
# 5 bytes into a record, then whole records (TRZ_ERR_PARAM, not a hang), the rest, records to the partial last one
{ byte 0; call 0 5; call 2 2000000; call 3 0; call 5 0; call 0 19; call 2 299; call 3 0; call 0 100; } > "$OUT/reader_api/inside-record"
# members from a pipe: a partial record passed over, the last one left for trz_read_bytes
{ byte 5; call 0 5; call 2 77; call 3 1; call 0 7; call 2 1000; call 0 64; call 2 5; } > "$OUT/reader_api/members-pipe"
# text: inside a line, spans, seeks
{ byte 2; call 0 3; call 3 0; call 2 1; call 7 5; call 4 31; call 0 9000; call 7 0; } > "$OUT/reader_api/text"
# ---- drfile: small drmemtrace files in every container, whole and cut ----
python3 tests/fuzz/drfile_seeds.py "$OUT/drfile"

du -sh "$OUT"; ls "$OUT"/* | wc -l

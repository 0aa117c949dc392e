#!/usr/bin/env bash
# make_golden.sh - write the golden archives of this version into
# tests/files/ and append them to MANIFEST: small archives of every codec,
# byte order, back-end and level family (the model variants the levels
# pick), and bad-* archives with the error each must give.  Run once per
# release that changes what the writer produces, with PREFIX naming it:
#   tests/files/make_golden.sh 0.9
# A release that changes one codec's output may add only that codec's set,
# NAME being the first word of the archives' names (e.g. uop):
#   tests/files/make_golden.sh 0.11 uop
# It never replaces a file: golden archives are only ever added.
set -eu
cd "$(dirname "$0")/../.." || exit 1
V=${1:?usage: make_golden.sh VERSION [NAME]}
ONLY=${2:-}
TRZ=./trz
S=corpus
F=tests/files
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cc -std=c11 -O2 -o "$W/hash" tests/test_golden.c libtrz.a $(pkg-config --libs libzstd zlib libxxhash liblzma liblz4 snappy) -lbz2 -lpthread
cc -std=c11 -O2 -o "$W/reseal" tests/fuzz/reseal.c -lxxhash
cc -std=c11 -O2 -o "$W/damage" tests/damage.c libtrz.a $(pkg-config --libs libzstd zlib libxxhash liblzma liblz4 snappy) -lbz2 -lpthread
slice() { tail -c +"$(($2 + 1))" "$1" | head -c "$3"; }

add() { # NAME: hash the archive $W/NAME into the manifest, then keep it
    case $1 in "$ONLY"*) ;; *) return 0 ;; esac
    local name=$V-$1.trz
    if [ -e "$F/$name" ]; then echo "$F/$name exists: golden files are never replaced" >&2; exit 1; fi
    cp "$W/$1.trz" "$F/$name"
    echo "$name $("$W/hash" --hash "$F/$name")" >> "$F/MANIFEST"
}
arc() { # NAME INPUT TRZ-OPTIONS...
    local name=$1 in=$2; shift 2
    "$TRZ" -q -f -c "$@" "$in" > "$W/$name.trz"
    add "$name"
}

# bad archives: the error each must give (the reader's message)
bad() { # NAME: the archive $W/NAME.trz fails with the message it gives now
    local name=$V-bad-$1.trz
    if [ -e "$F/$name" ]; then echo "$F/$name exists: golden files are never replaced" >&2; exit 1; fi
    cp "$W/$1.trz" "$F/$name"
    local got; got=$("$W/hash" --hash "$F/$name")
    case $got in error*) echo "$name $got" >> "$F/MANIFEST";; *) echo "$name decodes: not a bad file" >&2; exit 1;; esac
}

# sources: slices of the project's generated samples
slice $S/loops-4cpu.rst 0 96000 > "$W/be.rst"
slice $S/blaze-like-1cpu-le.rst 0 72005 > "$W/le.rst"              # and a 5-byte tail
slice $S/bus-2cpu.byu 0 60002 > "$W/a.byu"                          # 2 processors, a 2-byte tail
slice $S/bus-1cpu.pbus 0 48003 > "$W/a.pbus"
slice $S/sjeng-like.trace 0 60000 > "$W/a.trace"
slice $S/tabs-variant.trace 0 30000 > "$W/tabs.trace"
{ slice $S/sjeng-like.trace 0 3000; head -c 9000 /dev/zero | tr '\0' 'x'; echo; slice $S/sjeng-like.trace 3000 2000; } > "$W/long.trace"
slice $S/bus-2cpu.byu 12000 40000 > "$W/a.raw"
tail -c +3 tests/fuzz/corpus/roundtrip_pbus/grain > "$W/grain.pbus"   # PEL at instruction grain
slice $S/mix.champsimtrace 64000 192005 > "$W/a.champsim"            # 3000 records and a 5-byte tail
slice $S/mix-cloudsuite.champsimtrace 0 192007 > "$W/a.cloudsuite"   # 2000 records and a 7-byte tail
slice $S/core-6thr.drmemtrace 0 120005 > "$W/a.drmemtrace"          # 10000 records and a 5-byte tail

for l in 1 9 19; do arc rst-be-l$l "$W/be.rst" -$l --chunk-records=1500; done
arc rst-le-l9-tail "$W/le.rst" --chunk-records=1000
arc rst-be-gzip "$W/be.rst" --backend=gzip --chunk-records=2000
{ for i in 1 2 3 4 5 6 7 8 9 10; do slice $S/bus-2cpu.byu 0 7200; done; slice $S/loops-4cpu.rst 0 48000; } > "$W/mix.rst"
arc rst-mixed-variants "$W/mix.rst" --format=rst --chunk-records=3000 # a chunk the back-end path wins, then a modelled one
for l in 1 6 9 12; do arc byu-l$l "$W/a.byu" -$l --chunk-records=2000; done
arc byu-gzip "$W/a.byu" --backend=gzip --chunk-records=2000
for l in 1 6 9; do arc pbus-l$l "$W/a.pbus" -$l --chunk-records=3000; done
arc pbus-grain-l1 "$W/grain.pbus" -1
arc pbus-grain-l9 "$W/grain.pbus" -9
for l in 1 9 19; do arc uop-l$l "$W/a.trace" -$l --chunk-size=16K; done
arc uop-tabs "$W/tabs.trace"
arc uop-midline "$W/long.trace" --chunk-size=4K
arc uop-gzip "$W/a.trace" --backend=gzip --chunk-size=16K
arc raw-l9 "$W/a.raw" --format=raw --chunk-size=16K
arc raw-l1-gzip "$W/a.raw" --format=raw -1 --backend=gzip --chunk-size=16K
arc rst-forced-raw "$W/be.rst" --format=raw --chunk-size=32K
arc champsim "$W/a.champsim" --format=champsim --chunk-records=1000
arc champsim-cloudsuite "$W/a.cloudsuite" --format=champsim-cloudsuite --chunk-records=800
arc drmemtrace "$W/a.drmemtrace" --format=drmemtrace --chunk-records=4000              # version 3: knowledge
arc drmemtrace-groups "$W/a.drmemtrace" --format=drmemtrace --chunk-records=2000 --restart=48000  # knowledge restarted every 2 chunks
arc drmemtrace-no-know "$W/a.drmemtrace" --format=drmemtrace --chunk-records=4000 --restart=0  # version 1
arc drmemtrace-l19 "$W/a.drmemtrace" --format=drmemtrace --chunk-records=4000 -19        # model variant 5: a bigger match table
arc drmemtrace-l19-no-know "$W/a.drmemtrace" --format=drmemtrace --chunk-records=4000 --restart=0 -19  # variant 4
printf 'no newline at the end' > "$W/nonl.trace"
arc uop-no-final-newline "$W/nonl.trace" --format=uop
: > "$W/empty"
arc empty "$W/empty"
# carried knowledge (container version 3, from 0.12): groups of two or three chunks
arc champsim-l1 "$W/a.champsim" --format=champsim --chunk-records=1000 -1   # the fast variant (from 0.12)
arc champsim-know-groups "$W/a.champsim" --format=champsim --chunk-records=500 --restart=64K
arc rst-know-groups "$W/be.rst" --chunk-records=500 --restart=32K
arc uop-know-groups "$W/a.trace" --chunk-size=16K --restart=32K
if [ -z "$ONLY" ] || [ "$ONLY" = know ]; then
    badk() { ONLY= bad "$@"; }
    "$TRZ" -q -f -c --format=champsim --chunk-records=500 --restart=64K "$W/a.champsim" > "$W/k.trz"
    "$W/reseal" "$W/k.trz" "$W/know-first-no-restart.trz" flags 0 2; badk know-first-no-restart
    "$TRZ" -q -f -c --format=champsim --chunk-records=500 --restart=0 "$W/a.champsim" > "$W/k1.trz"
    "$W/reseal" "$W/k1.trz" "$W/know-restart-in-v1.trz" flags 2 2; badk know-restart-in-v1
    "$W/reseal" "$W/k.trz" "$W/know-group-moved.trz" flags 1 2; badk know-group-moved  # chunk 1 restarts: chunk 2 misses its facts
fi
# drmemtrace containers kept restorable (a restore block): the file layer's fuzz seeds
for s in dr.zip dr-cut.zip py-stored-deflated.zip dr.gz tool.lz4 dr.sz gnu9.gz gnu-rsync.gz infozip.zip; do
    [ -f tests/fuzz/corpus/drfile/$s ] || continue
    n=drfile-${s%.*}-${s##*.}
    cp tests/fuzz/corpus/drfile/$s "$W/$s"
    "$TRZ" -q -f "$W/$s"
    mv "$W/$s.trz" "$W/$n.trz"
    add "$n"
done
if [ -f tests/fuzz/corpus/drfile/dr.zip ]; then # a restore block before chunks that carry knowledge
    cp tests/fuzz/corpus/drfile/dr.zip "$W/k.zip"
    "$TRZ" -q -f --chunk-size=4K "$W/k.zip"
    mv "$W/k.zip.trz" "$W/drfile-dr-zip-know.trz"
    add drfile-dr-zip-know
fi
# chains (container version 4, from 0.16): groups of two or three chunks,
# each chunk continuing the models of the one before
for l in 1 9 19; do
    arc chain-rst-l$l "$W/be.rst" -$l --chunk-records=500 --restart=32K
    arc chain-byu-l$l "$W/a.byu" -$l --chunk-records=1000 --restart=24K
    arc chain-pbus-l$l "$W/a.pbus" -$l --chunk-size=8K --restart=16K
    arc chain-uop-l$l "$W/a.trace" -$l --chunk-size=16K --restart=32K
    arc chain-champsim-l$l "$W/a.champsim" --format=champsim -$l --chunk-records=500 --restart=64K
    arc chain-drmemtrace-l$l "$W/a.drmemtrace" --format=drmemtrace -$l --chunk-records=2000 --restart=48000
done
# drmemtrace's fast variant (levels 1-3, from 0.19): alone (6), with
# knowledge (7), in chains (8 and 9)
arc drfast-l1 "$W/a.drmemtrace" --format=drmemtrace -1 --chunk-records=4000 --restart=0
arc drfast-know-l3 "$W/a.drmemtrace" --format=drmemtrace -3 --chunk-records=4000 --no-chain
arc drfast-chain-l1 "$W/a.drmemtrace" --format=drmemtrace -1 --chunk-records=2000 --restart=48000
arc chain-champsim-cloudsuite "$W/a.cloudsuite" --format=champsim-cloudsuite --chunk-records=400 --restart=80K
# the bus codecs' mixed model on the shared range coder (stream variant 8,
# from 0.17), chunks alone and in chains
arc bus-byu-l19 "$W/a.byu" -19 --chunk-records=2000 --no-chain
arc bus-pbus-l19 "$W/a.pbus" -19 --chunk-records=3000 --no-chain
arc bus-chain-byu-l19 "$W/a.byu" -19 --chunk-records=1000 --restart=24K
arc bus-chain-pbus-l19 "$W/a.pbus" -19 --chunk-size=8K --restart=16K
# the bus codecs' feed (from 0.20): in a chain at -19 a stream-path chunk's
# records go on into the match model (BYU layout flag 8, PEL mode 16-20),
# and the chunks that repeat them take variant 8 (chunk 0: the stream path,
# a piece repeated inside it; chunk 1 repeats it; chunk 2 is new; 3-5 repeat)
{ for i in 1 2 3 4 5 6 7 8; do slice $S/bus-2cpu.byu 0 6000; done; slice $S/bus-2cpu.byu 30000 24000
  for i in 1 2 3; do slice $S/bus-2cpu.byu 0 24000; done; } > "$W/feed.byu"
{ for i in 1 2 3 4 5 6 7 8; do slice $S/bus-1cpu.pbus 0 3000; done; slice $S/bus-1cpu.pbus 20000 12000
  for i in 1 2 3; do slice $S/bus-1cpu.pbus 0 12000; done; } > "$W/feed.pbus"
arc feed-byu-l19 "$W/feed.byu" -19 --chunk-records=2000
arc feed-pbus-l19 "$W/feed.pbus" -19 --chunk-records=2000
if [ -z "$ONLY" ] || [ "$ONLY" = chain ]; then
    badc() { ONLY= bad "$@"; }
    "$TRZ" -q -f -c --chunk-records=500 --restart=32K "$W/be.rst" > "$W/c.trz"
    "$W/reseal" "$W/c.trz" "$W/chain-group-moved.trz" flags 1 2; badc chain-group-moved  # chunk 1 starts afresh: it was coded continuing chunk 0
    "$W/reseal" "$W/c.trz" "$W/chain-first-no-restart.trz" flags 0 2; badc chain-first-no-restart
fi
# chunks that state their place (container version 5, from 0.18): a chunk cut
# out, repeated or moved, the index as it was or rebuilt over them
placed() {
    [ -z "$ONLY" ] || [ "$ONLY" = placed ] || return 0
    badp() { ONLY= bad "$@"; }
    "$TRZ" -q -f -c --chunk-records=500 --restart=32K "$W/be.rst" > "$W/p.trz"
    "$W/damage" cut "$W/p.trz" "$W/placed-cut.trz" 2; badp placed-cut
    "$W/damage" cut "$W/p.trz" "$W/placed-cut-reindexed.trz" 2 rebuild; badp placed-cut-reindexed
    "$W/damage" dup "$W/p.trz" "$W/placed-dup-reindexed.trz" 1 rebuild; badp placed-dup-reindexed
    "$W/damage" swap "$W/p.trz" "$W/placed-swap.trz" 3; badp placed-swap
    "$TRZ" -q -f -c --restart=0 --chunk-records=1500 "$W/be.rst" > "$W/p1.trz"
    "$W/damage" cut "$W/p1.trz" "$W/placed-alone-cut-reindexed.trz" 1 rebuild; badp placed-alone-cut-reindexed
}
# (a codec's set alone: the bad archives of every release are not made again)
if [ -n "$ONLY" ]; then placed; echo "$(grep -c . "$F/MANIFEST") lines in $F/MANIFEST"; exit 0; fi
cat "$F/$V-rst-be-l9.trz" "$F/$V-byu-l1.trz" "$F/$V-uop-l9.trz" > "$W/concat-mixed.trz"; add concat-mixed
split -b 24000 -d "$W/be.rst" "$W/part."
for p in "$W"/part.0*; do "$TRZ" -q -f --chunk-records=400 "$p"; done
"$TRZ" join -o "$W/joined.trz" "$W"/part.0*.trz; add joined

# the bad archives of every release
U=$F/$V-uop-l9.trz
n=$(wc -c < "$U")
head -c $((n / 2)) "$U" > "$W/truncated.trz"; bad truncated
head -c $((n - 10)) "$U" > "$W/no-footer.trz"; bad no-footer
cp "$U" "$W/payload-flip.trz"; printf '\377' | dd of="$W/payload-flip.trz" bs=1 seek=300 conv=notrunc status=none; bad payload-flip
cp "$U" "$W/magic.trz"; printf 'X' | dd of="$W/magic.trz" bs=1 seek=1 conv=notrunc status=none; bad magic
cp "$U" "$W/version.trz"; printf '\002' | dd of="$W/version.trz" bs=1 seek=4 conv=notrunc status=none
"$W/reseal" "$W/version.trz" "$W/version.trz" seal; bad version
"$W/reseal" "$U" "$W/text-count.trz" nrec 2 1; bad text-count
"$W/reseal" "$U" "$W/text-count-100.trz" nrec 2 100; bad text-count-100
M=$F/$V-uop-midline.trz
"$W/reseal" "$M" "$W/midline-flag.trz" flags 1 1; bad midline-flag
"$W/reseal" "$W/midline-flag.trz" "$W/midline-consistent.trz" nrec 1 -1; bad midline-consistent  # the count fits the flag
"$W/reseal" "$F/$V-byu-l1.trz" "$W/byu-count.trz" nrec 1 -1; bad byu-count
placed
echo "$(grep -c . "$F/MANIFEST") lines in $F/MANIFEST"

#!/usr/bin/env bash
# drfile.sh - the drmemtrace file layer through the trz command: the
# corpus's .trace.zip files (when ../shared/corpus is there) and
# containers made here (DynamoRIO's zip and gzip, Python's zipfile, the
# zip and lz4 tools when installed, snappy framing) compressed by name and
# restored byte for byte, their records from -dc, --original, --records
# and the names each gives; -r over a trace directory and back; damaged
# archives refused on one line with exit status 1, leaving no file.
#   tests/drfile.sh [path/to/trz]      (prints "N passed, M failed" last)
set -u
TRZ=${1:-./trz}
TRZ=$(cd "$(dirname "$TRZ")" && pwd)/$(basename "$TRZ")
. "$(dirname "$0")/lib.sh" drfile
PY=${PYTHON:-python3}

# expect NAME RC PATTERN -- command...: exit code, a stderr pattern, one line on error
expect() {
    local name=$1 rc=$2 pat=$3; shift 4
    "$@" > "$W/out" 2> "$W/err" < /dev/null
    local got=$?
    if [ "$got" != "$rc" ]; then bad "$name" "exit $got, expected $rc; stderr: $(head -c 300 "$W/err")"; return; fi
    if [ -n "$pat" ] && ! grep -qE "$pat" "$W/err"; then bad "$name" "stderr lacks /$pat/: $(head -c 300 "$W/err")"; return; fi
    if [ "$rc" != 0 ] && [ "$(wc -l < "$W/err")" -gt 1 ]; then bad "$name" "error is not one line: $(cat "$W/err")"; return; fi
    ok "$name"
}

# The records a container holds, by Python's standard library.
records_of() {
    "$PY" - "$1" <<'EOF'
import sys, zipfile, gzip, subprocess
p = sys.argv[1]; out = sys.stdout.buffer
if p.endswith('.zip'):
    z = zipfile.ZipFile(p); out.write(b''.join(z.read(i) for i in z.infolist()))
elif p.endswith('.gz'):
    out.write(gzip.decompress(open(p, 'rb').read()))
elif p.endswith('.lz4'):
    out.write(subprocess.run(['lz4', '-dc', p], capture_output=True, check=True).stdout)
else:
    raise SystemExit('no reader for ' + p)
EOF
}

# kept FILE HOW: compress by name, -l says HOW, -d gives FILE back, -dc its records
kept() {
    local f=$1 how=$2 name; name=$(basename "$f")
    rm -f "$f.trz"
    if ! "$TRZ" -q "$f" 2> "$W/err"; then bad "$name: compress" "$(cat "$W/err")"; return; fi
    [ -f "$f.trz" ] && ok "$name: named $name.trz" || { bad "$name: named $name.trz"; return; }
    "$TRZ" -l "$f.trz" > "$W/list" 2>&1
    grep -qE "original file: .*($how)" "$W/list" && ok "$name: -l says $how" || bad "$name: -l says $how" "$(cat "$W/list")"
    mkdir -p "$W/back"; cp "$f.trz" "$W/back/"
    if "$TRZ" -q -d "$W/back/$name.trz" && cmp -s "$W/back/$name" "$f"; then ok "$name: -d restores it byte for byte"
    else bad "$name: -d restores it byte for byte"; fi
    "$TRZ" -dc --original "$f.trz" | cmp -s - "$f" && ok "$name: -dc --original" || bad "$name: -dc --original"
    if [ -s "$W/rec" ]; then
        "$TRZ" -dc "$f.trz" | cmp -s - "$W/rec" && ok "$name: -dc gives the records" || bad "$name: -dc gives the records"
        cat "$f" | "$TRZ" -c | "$TRZ" -dc | cmp -s - "$W/rec" && ok "$name: from a pipe, the records" \
            || bad "$name: from a pipe, the records"
    fi
    "$TRZ" -t "$f.trz" && ok "$name: -t" || bad "$name: -t"
    rm -rf "$W/back"
}

# ---- the corpus ----
if [ -d "$SHARED/drmemtrace" ]; then
    for f in "$SHARED"/drmemtrace/*.trace.zip; do
        cp "$f" "$W/"; g=$W/$(basename "$f")
        records_of "$g" > "$W/rec"
        kept "$g" "rebuilt: zip, deflate 6, 1 member"
        echo "size $(basename "$f") $(wc -c < "$f") $(wc -c < "$g.trz")" >> "$W/sizes"
        rm -f "$g" "$g.trz"
    done
    [ -n "${VERBOSE:-}" ] && cat "$W/sizes"
else
    echo "note: $SHARED/drmemtrace not present; corpus files skipped"
fi

# ---- containers made here: records like a thread's, a few members ----
"$PY" - "$W" <<'EOF'
import sys, struct, zlib, zipfile, random
w = sys.argv[1]; r = random.Random(7); recs = bytearray(); pc = 0x401000
def rec(t, s, a): recs.extend(struct.pack('<HHQ', t, s, a))
for t, s, a in ((25, 0, 7), (28, 12, 7), (28, 9, 0xe40), (22, 4, 99), (24, 4, 99), (28, 20, 2000)):
    rec(t, s, a)
bounds = []
for i in range(20000):
    n = r.randint(1, 7); rec(10, n, pc); pc = pc + n if pc < 0x401100 else 0x401000
    if r.random() < 0.3: rec(0, 8, 0x7ffd0000 + 8 * r.randint(0, 15))
    if i % 8000 == 7999: rec(28, 21, len(bounds)); bounds.append(len(recs)); rec(28, 22, i)
rec(23, 4, 99); rec(26, 0, 0); bounds.append(len(recs))
open(w + '/rec.bin', 'wb').write(recs)
parts = [bytes(recs[a:b]) for a, b in zip([0] + bounds[:-1], bounds)]
def d6(b):
    c = zlib.compressobj(6, zlib.DEFLATED, -15, 8); return c.compress(b) + c.flush()
# DynamoRIO's minizip framing (drmemtrace-format.md, section 6)
out = bytearray(); cd = bytearray()
for k, p in enumerate(parts):
    name = b'chunk.%08d' % k; c = d6(p); crc = zlib.crc32(p); off = len(out)
    out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0, crc, len(c), len(p), len(name), 0) + name + c
    cd += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 0, 20, 0, 8, 0, 0, crc, len(c), len(p), len(name), 0, 0, 0, 0, 0, off) + name
out += cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(parts), len(parts), len(cd), len(out), 0)
open(w + '/dr.trace.zip', 'wb').write(out)
with zipfile.ZipFile(w + '/py.trace.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    for k, p in enumerate(parts):
        z.writestr(zipfile.ZipInfo('chunk.%04d' % k, (2024, 5, 6, 7, 8, 10)), p, zipfile.ZIP_DEFLATED)
open(w + '/dr.trace.gz', 'wb').write(bytes.fromhex('1f8b0800000000000003') + d6(bytes(recs)) +
                                      struct.pack('<II', zlib.crc32(recs), len(recs)))
try:  # snappy framing as DynamoRIO's writer cuts it, when libsnappy is there
    import ctypes
    lib = ctypes.CDLL('libsnappy.so.1'); lib.snappy_max_compressed_length.restype = ctypes.c_size_t
    def crc32c(b):
        c = 0xffffffff
        for x in b:
            c ^= x
            for _ in range(8): c = (c >> 1) ^ 0x82f63b78 if c & 1 else c >> 1
        return c ^ 0xffffffff
    out = bytearray(b'\xff\x06\x00\x00sNaPpY'); i = 0
    for n in [65536, 65534] * 20:
        b = bytes(recs[i:i + n]); i += n
        if not b: break
        cap = lib.snappy_max_compressed_length(len(b)); buf = ctypes.create_string_buffer(cap); ln = ctypes.c_size_t(cap)
        lib.snappy_compress(b, ctypes.c_size_t(len(b)), buf, ctypes.byref(ln)); c = buf.raw[:ln.value]
        v = crc32c(b); m = (((v >> 15) | (v << 17)) + 0xa282ead8) & 0xffffffff
        body, t = (struct.pack('<I', m) + c, 0) if len(c) < len(b) else (struct.pack('<I', m) + b, 1)
        out += bytes([t]) + len(body).to_bytes(3, 'little') + body
    open(w + '/dr.trace.sz', 'wb').write(out)
except OSError:
    pass
EOF
cp "$W/rec.bin" "$W/rec"
kept "$W/dr.trace.zip" "rebuilt: zip, deflate 6, 3 members"
kept "$W/py.trace.zip" "rebuilt: zip, deflate 6, 3 members"
kept "$W/dr.trace.gz" "rebuilt: gzip, deflate 6"
# GNU gzip's deflate at every level, and --rsyncable, rebuilt by trz's own
# encoder (src/wrap/gzdeflate.c); the archive a fraction of the file
if command -v gzip >/dev/null; then
    for l in 1 2 3 4 5 6 7 8 9; do
        gzip -$l -c "$W/rec.bin" > "$W/gnu$l.trace.gz"
        kept "$W/gnu$l.trace.gz" "rebuilt: gzip, GNU gzip $l\$"
        [ "$(wc -c < "$W/gnu$l.trace.gz.trz")" -lt "$(( $(wc -c < "$W/gnu$l.trace.gz") / 3 ))" ] \
            && ok "gnu$l.trace.gz: archive under a third of the file" || bad "gnu$l.trace.gz: archive under a third of the file"
        rm -f "$W/gnu$l.trace.gz" "$W/gnu$l.trace.gz.trz"
    done
    gzip -6 --rsyncable -c "$W/rec.bin" > "$W/gnur.trace.gz"
    kept "$W/gnur.trace.gz" "rebuilt: gzip, GNU gzip --rsyncable 6"
else
    echo "note: gzip not installed; GNU gzip cases skipped (test_drfile checks the encoder)"
fi
if command -v lz4 >/dev/null; then
    lz4 -q -c "$W/rec.bin" > "$W/tool.trace.lz4"
    kept "$W/tool.trace.lz4" "rebuilt: lz4"
else
    echo "note: lz4 not installed; lz4 tool case skipped (test_drfile makes its own frames)"
fi
[ -f "$W/dr.trace.sz" ] && kept "$W/dr.trace.sz" "rebuilt: snappy"
# a zip of 16 members checked on 1, 2 and 4 threads (-T), 19 KB of records
# each (from 16 KiB a stream is handed to a thread): members the first
# settings rebuild, ones that need retries (levels 9, 1, 3; memLevel 9), stored
# ones, ones that nothing rebuilds (kept): the same archive each time, -d gives
# the zip back, -t passes; cut inside a member, the same archive (or error)
"$PY" - "$W" <<'EOF'
import sys, struct, zlib
w = sys.argv[1]; recs = open(w + '/rec.bin', 'rb').read(); n = 16; step = len(recs) // n + 1
out = bytearray(); cd = bytearray()
how = [(6, 8, 0), (9, 8, 0), (1, 8, 0), (6, 9, 0), (0, 0, 0), (3, 8, 0), (6, 8, 0), (6, 3, zlib.Z_FILTERED)]
for k in range(n):
    p = recs[k * step:(k + 1) * step]; lv, mem, st = how[k % len(how)]
    if lv: c = zlib.compressobj(lv, zlib.DEFLATED, -15, mem, st); c = c.compress(p) + c.flush()
    else: c = p
    name = b'chunk.%04d' % k; crc = zlib.crc32(p); off = len(out); m = 8 if lv else 0
    out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, m, 0, 0, crc, len(c), len(p), len(name), 0) + name + c
    cd += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 0, 20, 0, m, 0, 0, crc, len(c), len(p), len(name), 0, 0, 0, 0, 0, off) + name
out += cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, n, n, len(cd), len(out), 0)
open(w + '/many.trace.zip', 'wb').write(out)
EOF
for t in 1 2 4; do
    if "$TRZ" -q -f -T$t -c "$W/many.trace.zip" > "$W/many$t.trz" 2> "$W/err"; then ok "16 members, -T$t: compresses"
    else bad "16 members, -T$t: compresses" "$(cat "$W/err")"; fi
done
cmp -s "$W/many1.trz" "$W/many2.trz" && ok "16 members: -T2 writes what -T1 writes" || bad "16 members: -T2 writes what -T1 writes"
cmp -s "$W/many1.trz" "$W/many4.trz" && ok "16 members: -T4 writes what -T1 writes" || bad "16 members: -T4 writes what -T1 writes"
"$TRZ" -l "$W/many4.trz" > "$W/list" 2>&1
grep -qE "partly rebuilt: zip, deflate 1/6/9, Info-ZIP 3, 2 stored, 14 members; streams of [0-9]+ record bytes kept" "$W/list" \
    && ok "16 members: -l says what was rebuilt and kept" || bad "16 members: -l says what was rebuilt and kept" "$(cat "$W/list")"
"$TRZ" -dc --original "$W/many4.trz" | cmp -s - "$W/many.trace.zip" && ok "16 members, -T4: -d gives the zip back" \
    || bad "16 members, -T4: -d gives the zip back"
"$TRZ" -dc "$W/many4.trz" | cmp -s - "$W/rec.bin" && ok "16 members, -T4: -dc gives the records" \
    || bad "16 members, -T4: -dc gives the records"
"$TRZ" -t "$W/many4.trz" && ok "16 members, -T4: -t" || bad "16 members, -T4: -t"
head -c $(( $(wc -c < "$W/many.trace.zip") * 5 / 8 )) "$W/many.trace.zip" > "$W/cut.trace.zip"
"$TRZ" -q -f -T1 -c "$W/cut.trace.zip" > "$W/cut1.trz" 2> "$W/err1"; r1=$?
"$TRZ" -q -f -T4 -c "$W/cut.trace.zip" > "$W/cut4.trz" 2> "$W/err4"; r4=$?
[ $r1 = $r4 ] && cmp -s "$W/cut1.trz" "$W/cut4.trz" && cmp -s "$W/err1" "$W/err4" \
    && ok "16 members cut in a member: -T4 as -T1 (exit $r1)" || bad "16 members cut in a member: -T4 as -T1" "exit $r1/$r4"
rm -f "$W"/many*.trz "$W"/cut.trace.zip "$W"/cut?.trz
# gzip members and lz4 frames are checked on the threads too: the same archive
"$PY" -c "
import gzip, sys
d = open(sys.argv[1] + '/rec.bin', 'rb').read(); n = len(d) // 6 + 1
open(sys.argv[1] + '/many.trace.gz', 'wb').write(b''.join(
    gzip.compress(d[i * n:(i + 1) * n], compresslevel=(6, 9, 1)[i % 3], mtime=0) for i in range(6)))" "$W"
if command -v lz4 >/dev/null; then
    for i in 0 1 2 3; do head -c $(( (i + 1) * 70000 )) "$W/rec.bin" | tail -c 70000 | lz4 -q -c; done > "$W/many.trace.lz4"
fi
for f in many.trace.gz many.trace.lz4; do
    [ -f "$W/$f" ] || continue
    "$TRZ" -q -f -T1 -c "$W/$f" > "$W/$f.1.trz" && "$TRZ" -q -f -T4 -c "$W/$f" > "$W/$f.4.trz" \
        && cmp -s "$W/$f.1.trz" "$W/$f.4.trz" && "$TRZ" -dc --original "$W/$f.4.trz" | cmp -s - "$W/$f" \
        && ok "$f: -T4 writes what -T1 writes, and restores" || bad "$f: -T4 writes what -T1 writes, and restores"
    rm -f "$W/$f"*
done
if command -v zip >/dev/null; then
    (cd "$W" && cp rec.bin chunk.0000 && zip -q -X info.trace.zip chunk.0000 && rm chunk.0000)
    kept "$W/info.trace.zip" "rebuilt: zip, Info-ZIP 6, 1 member"
    (cd "$W" && cp rec.bin chunk.0000 && head -c 30000 rec.bin > chunk.0001 && zip -q -X -9 info9.trace.zip chunk.0000 \
        && zip -q -X -1 info9.trace.zip chunk.0001 && rm chunk.000?)
    { cat "$W/rec.bin"; head -c 30000 "$W/rec.bin"; } > "$W/rec"
    kept "$W/info9.trace.zip" "rebuilt: zip, Info-ZIP 1/9, 2 members"
    cp "$W/rec.bin" "$W/rec"
else
    echo "note: zip not installed; Info-ZIP case skipped"
fi
# two archives that each keep their zip, concatenated: -l lists them and
# says each original is restored from an archive of its own (exit 0);
# -d refuses in one line; -dc gives both members' records
cat "$W/dr.trace.zip.trz" "$W/py.trace.zip.trz" > "$W/two.trz"
"$TRZ" -l "$W/two.trz" > "$W/list" 2> "$W/err"; rc=$?
if [ $rc = 0 ] && grep -q "original file: zip; 2 members, each restores from an archive of its own" "$W/list" && [ ! -s "$W/err" ]
then ok "two members keeping zips: -l lists them, exit 0"
else bad "two members keeping zips: -l lists them, exit 0" "exit $rc; $(cat "$W/list" "$W/err" | tail -2)"; fi
expect "two members keeping zips: -d refuses in one line" 1 "several members" "" "$TRZ" -d -c --original "$W/two.trz"
{ "$TRZ" -dc "$W/dr.trace.zip.trz"; "$TRZ" -dc "$W/py.trace.zip.trz"; } > "$W/both.rec"
"$TRZ" -dc "$W/two.trz" | cmp -s - "$W/both.rec" && ok "two members keeping zips: -dc gives both members' records" \
    || bad "two members keeping zips: -dc gives both members' records"
# ---- never larger than the file: what trz cannot rebuild, kept beside
# the records, must not make the archive larger than the file stored as it
# is (docs/cli.md: its size + 68 bytes + 102 per chunk): such a file is
# stored as it is, with a warning; one kept partly within that, with a
# warning too; --no-original stores the records alone ----
stored() { # FILE: stored as it is, raw, at most its size + 170 bytes; -d gives it back
    local f=$1 name; name=$(basename "$f")
    rm -f "$f.trz"
    "$TRZ" "$f" 2> "$W/err" || { bad "$name: compress" "$(cat "$W/err")"; return; }
    grep -q "warning: the .* file is stored as it is: .* bytes of its streams are not ones trz rebuilds" "$W/err" \
        && ok "$name: a warning says it is stored as it is" || bad "$name: a warning says it is stored as it is" "$(cat "$W/err")"
    local n a; n=$(wc -c < "$f"); a=$(wc -c < "$f.trz")
    [ "$a" -le $((n + 170)) ] && ok "$name: archive $a <= $n + 170" || bad "$name: archive $a <= $n + 170"
    "$TRZ" -l "$f.trz" | grep -q "^raw " && ok "$name: -l says raw" || bad "$name: -l says raw" "$("$TRZ" -l "$f.trz" 2>&1)"
    mkdir -p "$W/back"; cp "$f.trz" "$W/back/"
    "$TRZ" -q -d "$W/back/$name.trz" && cmp -s "$W/back/$name" "$f" && ok "$name: -d gives the file back" \
        || bad "$name: -d gives the file back"
    rm -rf "$W/back"
}
head -c 20000 "$W/dr.trace.zip" > "$W/cut.trace.zip"
stored "$W/cut.trace.zip"
"$PY" - "$W" <<'EOF'
import sys, struct, zlib
w = sys.argv[1]; recs = open(w + '/rec.bin', 'rb').read()
def d(b, level, mem, strategy):
    c = zlib.compressobj(level, zlib.DEFLATED, -15, mem, strategy); return c.compress(b) + c.flush()
# a deflate trz does not rebuild: memLevel 5, the filtered strategy
open(w + '/odd.trace.gz', 'wb').write(bytes.fromhex('1f8b0800000000000003') + d(recs, 6, 5, zlib.Z_FILTERED) +
                                      struct.pack('<II', zlib.crc32(recs), len(recs)))
# a zip whose first member is such a deflate (2 KB of the records), the other zlib's level 6
parts = [recs[:2048], recs[2048:]]; out = bytearray(); cd = bytearray()
for k, p in enumerate(parts):
    name = b'chunk.%04d' % k; crc = zlib.crc32(p); off = len(out)
    c = d(p, 6, 5, zlib.Z_FILTERED) if k == 0 else d(p, 6, 8, zlib.Z_DEFAULT_STRATEGY)
    out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0, crc, len(c), len(p), len(name), 0) + name + c
    cd += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 0, 20, 0, 8, 0, 0, crc, len(c), len(p), len(name), 0, 0, 0, 0, 0, off) + name
out += cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 2, 2, len(cd), len(out), 0)
open(w + '/mixed.trace.zip', 'wb').write(out)
EOF
stored "$W/odd.trace.gz"
"$TRZ" "$W/mixed.trace.zip" 2> "$W/err"
grep -q "warning: [0-9]* bytes of the zip file's streams are kept as they are" "$W/err" \
    && ok "mixed.trace.zip: a warning says what is kept as it is" || bad "mixed.trace.zip: a warning says what is kept as it is" "$(cat "$W/err")"
kept "$W/mixed.trace.zip" "partly rebuilt: zip, deflate 6, 1 member; streams of 2048 record bytes kept as is"
[ "$(wc -c < "$W/mixed.trace.zip.trz")" -lt "$(wc -c < "$W/mixed.trace.zip")" ] && ok "mixed.trace.zip: archive smaller than the file" \
    || bad "mixed.trace.zip: archive smaller than the file"
cp "$W/odd.trace.gz" "$W/alone.trace.gz"
"$TRZ" -q --no-original "$W/alone.trace.gz" && [ -f "$W/alone.trace.trz" ] && ok "--no-original: x.trace.gz -> x.trace.trz" \
    || bad "--no-original: x.trace.gz -> x.trace.trz"
"$TRZ" -l "$W/alone.trace.trz" | grep -q "holds the trace inside, not the gzip file (its records alone)" \
    && ok "--no-original: -l says the records alone" || bad "--no-original: -l says the records alone" "$("$TRZ" -l "$W/alone.trace.trz" 2>&1)"
"$TRZ" -dc "$W/alone.trace.trz" | cmp -s - "$W/rec.bin" && ok "--no-original: -dc gives the records" || bad "--no-original: -dc gives the records"
[ "$(wc -c < "$W/alone.trace.trz")" -lt "$(( $(wc -c < "$W/odd.trace.gz") / 3 ))" ] && ok "--no-original: under a third of the file" \
    || bad "--no-original: under a third of the file"
cp "$W/dr.trace.zip" "$W/alonez.trace.zip"
"$TRZ" -q --no-original "$W/alonez.trace.zip" && [ -f "$W/alonez.trace.trz" ] && "$TRZ" -dc "$W/alonez.trace.trz" | cmp -s - "$W/rec.bin" \
    && ok "--no-original: a zip's records alone in x.trace.trz" || bad "--no-original: a zip's records alone in x.trace.trz"
expect "--no-original with -d: usage error" 2 "no-original goes with compressing" "" "$TRZ" -d --no-original "$W/alonez.trace.trz"

# ---- a zip of 40,000 small deflated members (Python's zipfile, a few
# records each): read in one pass, so it takes about 1 s of CPU here where
# it took 10 s (each member's bytes were read again with a fresh 256 KiB
# buffer three times); restored byte for byte ----
"$PY" - "$W/many.trace.zip" 40000 <<'EOF'
import sys, struct, zipfile, random
r = random.Random(5); n = int(sys.argv[2])
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    for k in range(n):
        b = bytearray(struct.pack('<HHQHHQHHQ', 25, 0, 7, 28, 12, 7, 22, 4, 99) if k == 0 else b'')
        b += struct.pack('<HHQ', 28, 21, k); pc = 0x401000 + 16 * r.randrange(256)
        for i in range(r.randint(4, 12)):
            b += struct.pack('<HHQ', 10, 4, pc + 4 * i)
            if r.random() < 0.3: b += struct.pack('<HHQ', 0, 8, 0x7ffd0000 + 8 * r.randrange(16))
        z.writestr(zipfile.ZipInfo('chunk.%08d' % k, (2024, 5, 6, 7, 8, 10)), bytes(b), zipfile.ZIP_DEFLATED)
EOF
cpu=$( { TIMEFORMAT='%3U %3S'; time "$TRZ" -q "$W/many.trace.zip" 2> "$W/err"; } 2>&1 )
if [ -f "$W/many.trace.zip.trz" ] && awk -v t="$cpu" 'BEGIN { split(t, a, " "); exit !(a[1] + a[2] < 5) }'; then
    ok "40,000 members: compressed in $cpu s of CPU (user, system)"
else bad "40,000 members: compressed in under 5 s of CPU" "$cpu s; $(cat "$W/err")"; fi
"$TRZ" -l "$W/many.trace.zip.trz" | grep -q "rebuilt: zip, deflate 6, 40000 members" && ok "40,000 members: -l counts them" \
    || bad "40,000 members: -l counts them" "$("$TRZ" -l "$W/many.trace.zip.trz" 2>&1 | tail -1)"
mkdir -p "$W/many"; mv "$W/many.trace.zip.trz" "$W/many/"
"$TRZ" -q -d "$W/many/many.trace.zip.trz" && cmp -s "$W/many/many.trace.zip" "$W/many.trace.zip" \
    && ok "40,000 members: -d restores the zip byte for byte" || bad "40,000 members: -d restores the zip byte for byte"
rm -rf "$W/many" "$W/many.trace.zip"

# ---- names: --records to a file drops the container's suffix ----
cp "$W/dr.trace.zip.trz" "$W/n.trace.zip.trz"
"$TRZ" -q -d --records "$W/n.trace.zip.trz" && cmp -s "$W/n.trace" "$W/rec.bin" && [ ! -e "$W/n.trace.zip" ] \
    && ok "--records writes x.trace" || bad "--records writes x.trace"
expect "--records again: refuses to overwrite" 1 "already exists" -- "$TRZ" -d --records "$W/n.trace.zip.trz"
"$TRZ" -q -c "$W/rec.bin" > "$W/plain.trz"
expect "--original of an archive that keeps none" 1 "keeps no original" -- "$TRZ" -dc --original "$W/plain.trz"
expect "--original goes with -d" 2 "go with -d" -- "$TRZ" -t --original "$W/plain.trz"
expect "join refuses a kept container" 1 "keeps its original zip" -- "$TRZ" join -o "$W/j.trz" "$W/dr.trace.zip.trz"
"$TRZ" -d -c --from=5 --count=3 "$W/dr.trace.zip.trz" | cmp -s - <("$TRZ" -d -c --from=5 --count=3 "$W/plain.trz") \
    && ok "--from/--count give records" || bad "--from/--count give records"

# ---- damaged archives: one line, exit 1, no file ----
a=$W/dr.trace.zip.trz
blk=$(( 28 + $(od -An -tu2 -j22 -N2 "$a" | tr -d ' ') ))
for at in 0 4 20 40 $((blk + 1)) $((blk + 10)) $((blk + 50)) $((blk + 120)); do
    mkdir -p "$W/dmg"; cp "$a" "$W/dmg/d.trace.zip.trz"
    printf '\x55' | dd of="$W/dmg/d.trace.zip.trz" bs=1 seek=$at conv=notrunc 2>/dev/null
    expect "damaged at byte $at: refused" 1 "." -- "$TRZ" -d "$W/dmg/d.trace.zip.trz"
    [ ! -e "$W/dmg/d.trace.zip" ] && [ -z "$(ls -A "$W/dmg" | grep -v '^d.trace.zip.trz$')" ] \
        && ok "damaged at byte $at: no file left" || bad "damaged at byte $at: no file left" "$(ls -a "$W/dmg")"
    expect "damaged at byte $at: -t fails" 1 "." -- "$TRZ" -t "$W/dmg/d.trace.zip.trz"
    rm -rf "$W/dmg"
done
for cut in 30 $((blk + 60)) 2000 $(( $(wc -c < "$a") - 1 )); do
    mkdir -p "$W/dmg"; head -c $cut "$a" > "$W/dmg/c.trace.zip.trz"
    expect "cut to $cut bytes: refused" 1 "." -- "$TRZ" -d "$W/dmg/c.trace.zip.trz"
    [ ! -e "$W/dmg/c.trace.zip" ] && ok "cut to $cut bytes: no file left" || bad "cut to $cut bytes: no file left"
    rm -rf "$W/dmg"
done

# ---- a container a newer trz knows: parameter 2's byte 0 set, the header
# check resealed (XXH3low32, src/format/header.c); refused as a newer
# block version is, by every command, and the archive kept ----
reseal() { # IN OUT KIND
    "$PY" - "$@" <<'EOF'
import sys, struct, ctypes, ctypes.util
x = ctypes.CDLL(ctypes.util.find_library('xxhash') or 'libxxhash.so.0')
x.XXH3_64bits.restype = ctypes.c_uint64; x.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
a = bytearray(open(sys.argv[1], 'rb').read()); p = struct.unpack_from('<H', a, 22)[0]; i = 24
while i < 24 + p:
    if a[i] == 2: a[i + 2] = int(sys.argv[3])
    i += 2 + a[i + 1]
struct.pack_into('<I', a, 24 + p, x.XXH3_64bits(bytes(a[:24 + p]), 24 + p) & 0xffffffff)
open(sys.argv[2], 'wb').write(a)
EOF
}
for k in 0 2 3 4 8 255; do
    N="container $k"; mkdir -p "$W/nw"; y=$W/nw/y.trace.zip.trz
    if ! reseal "$W/dr.trace.zip.trz" "$y" $k; then bad "$N: crafted"; rm -rf "$W/nw"; continue; fi
    pat="restore container $k: written by a newer trz"
    expect "$N: -d refused" 1 "$pat" -- "$TRZ" -d "$y"
    [ "$(ls -A "$W/nw")" = y.trace.zip.trz ] && ok "$N: -d leaves no file" || bad "$N: -d leaves no file" "$(ls -A "$W/nw")"
    expect "$N: -t fails" 1 "$pat" -- "$TRZ" -t "$y"
    expect "$N: --original refused" 1 "$pat" -- "$TRZ" -dc --original "$y"
    expect "$N: --records wants a name" 1 "$pat" -- "$TRZ" -d --records "$y"
    expect "$N: -l -v lists it" 0 "" -- "$TRZ" -l -v "$y"
    grep -q "restore container $k unknown (newer trz)" "$W/out" && ! grep -qi damaged "$W/out" "$W/err" \
        && ok "$N: -l says newer, not damaged" || bad "$N: -l says newer, not damaged" "$(cat "$W/out" "$W/err" | head -5)"
    "$TRZ" -dc "$y" 2>/dev/null | cmp -s - "$W/rec.bin" && ok "$N: -dc gives the records" || bad "$N: -dc gives the records"
    expect "$N: -d -r --rm refused" 1 "$pat" -- "$TRZ" -d -r --rm "$W/nw"
    [ "$(ls -A "$W/nw")" = y.trace.zip.trz ] && cmp -s "$y" <(reseal "$W/dr.trace.zip.trz" /dev/stdout $k) \
        && ok "$N: -d -r --rm keeps the archive" || bad "$N: -d -r --rm keeps the archive" "$(ls -A "$W/nw")"
    rm -rf "$W/nw"
done

# ---- -r over a trace directory, and back ----
D=$W/drmemtrace.app.4242.0000.dir
mkdir -p "$D/raw" "$D/trace/aux" "$D/trace/window.0000"
cp "$W/dr.trace.zip" "$D/trace/drmemtrace.app.4242.0000.trace.zip"
cp "$W/py.trace.zip" "$D/trace/window.0000/drmemtrace.app.4243.0000.trace.zip"
cp "$W/dr.trace.gz" "$D/trace/drmemtrace.app.4244.0000.trace.gz"
cp "$W/rec.bin" "$D/trace/drmemtrace.app.4245.0000.trace"
head -c 320 /dev/urandom > "$D/trace/serial_schedule.bin"; gzip -c "$D/trace/serial_schedule.bin" > "$D/trace/serial_schedule.bin.gz"
(cd "$W" && cp rec.bin 0 && "$PY" -c "import zipfile; zipfile.ZipFile('$D/trace/cpu_schedule.bin.zip','w').write('0')" && rm 0)
for x in modules.log funclist.log encodings.bin; do echo "$x" > "$D/raw/$x"; done
echo 'v2p' > "$D/trace/aux/v2p.textproto"; echo 'aux' > "$D/trace/aux/other.bin"
cp -a "$D" "$W/orig.dir"
expect "-r --rm compresses the trace files" 0 "" -- "$TRZ" -r --rm "$D"
n=$(find "$D" -name '*.trz' | wc -l)
[ "$n" = 4 ] && ok "-r: the 4 traces compressed" || bad "-r: the 4 traces compressed" "$(find "$D" -type f)"
left=$(cd "$D" && find . -type f ! -name '*.trz' | sort | tr '\n' ' ')
want=$(cd "$W/orig.dir" && find . -type f ! -name 'drmemtrace.app.*' | sort | tr '\n' ' ')
[ "$left" = "$want" ] && ok "-r: schedules and auxiliary files left alone" || bad "-r: schedules and auxiliary files left alone" "$left"
[ -f "$D/trace/drmemtrace.app.4244.0000.trace.gz.trz" ] && ok "-r: a drmemtrace .gz keeps its name" || bad "-r: .gz name"
cp "$W/dr.trace.zip" "$D/trace/drmemtrace.app.4242.0000.trace.zip"
expect "-r never overwrites without -f" 1 "already exists" -- "$TRZ" -r "$D"
cmp -s "$W/dr.trace.zip" "$D/trace/drmemtrace.app.4242.0000.trace.zip" && ok "-r: the input is kept" || bad "-r: input kept"
rm "$D/trace/drmemtrace.app.4242.0000.trace.zip"
expect "-t -r tests every archive" 0 "" -- "$TRZ" -t -r "$D"
expect "-d -r --rm restores the directory" 0 "" -- "$TRZ" -d -r --rm "$D"
diff -r "$D" "$W/orig.dir" > /dev/null && ok "-d -r: the directory as it was" || bad "-d -r: the directory as it was" "$(diff -r "$D" "$W/orig.dir" | head -3)"
ls -a "$D/trace" | grep -q tmp && bad "-r: no temporary files left" || ok "-r: no temporary files left"
# -r is general: a directory of other traces
mkdir -p "$W/other/sub"; cp "$ROOT"/corpus/*.byu "$W/other/"; cp "$ROOT"/corpus/*.pbus "$W/other/sub/"
expect "-r on other traces" 0 "" -- "$TRZ" -r "$W/other"
[ "$(find "$W/other" -name '*.trz' | wc -l)" = "$(find "$W/other" -type f ! -name '*.trz' | wc -l)" ] \
    && ok "-r on other traces: every file" || bad "-r on other traces: every file"
expect "a directory without -r" 1 "is a directory" -- "$TRZ" "$W/other"

finish

#!/usr/bin/env python3
"""drfile_seeds.py DIR - seeds of the `drfile` fuzz target (make_seeds.sh):
small drmemtrace record streams in every container the file layer reads,
whole and cut: DynamoRIO's zip and gzip, Python's zipfile (stored and
deflated members, real dates), the lz4 tool's frame, snappy framing, and
plain records, and an xz file damaged inside; GNU gzip's and Info-ZIP's
deflate (restore operation 6) when those tools are installed.  The same
bytes on every run."""
import ctypes, io, lzma, random, struct, subprocess, sys, zipfile, zlib

out = sys.argv[1]
r = random.Random(11)
recs = bytearray()
pc = 0x401000
bounds = []


def rec(t, s, a):
    recs.extend(struct.pack('<HHQ', t, s, a))


for t, s, a in ((25, 0, 7), (28, 12, 7), (28, 9, 0xe40), (22, 4, 9), (24, 4, 9), (28, 20, 100)):
    rec(t, s, a)
for i in range(300):
    n = r.randint(1, 7)
    rec(10, n, pc)
    pc = pc + n if pc < 0x401080 else 0x401000
    if r.random() < 0.3:
        rec(1, 8, 0x7ffd0000 + 8 * r.randint(0, 7))
    if i % 100 == 99 and i < 299:
        rec(28, 21, len(bounds))
        bounds.append(len(recs))
        rec(28, 22, i)
rec(23, 4, 9)
rec(26, 0, 0)
bounds.append(len(recs))
parts = [bytes(recs[a:b]) for a, b in zip([0] + bounds[:-1], bounds)]


def deflate(b, level=6):
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 8)
    return c.compress(b) + c.flush()


def put(name, b):
    with open(out + '/' + name, 'wb') as f:
        f.write(b)


z = bytearray()
cd = bytearray()
for k, p in enumerate(parts):  # DynamoRIO's minizip framing
    nm = b'chunk.%04d' % k
    c = deflate(p)
    crc = zlib.crc32(p)
    off = len(z)
    z += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0, crc, len(c), len(p), len(nm), 0) + nm + c
    cd += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 0, 20, 0, 8, 0, 0, crc, len(c), len(p), len(nm),
                      0, 0, 0, 0, 0, off) + nm
z += cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(parts), len(parts), len(cd), len(z), 0)
put('dr.zip', z)
put('dr-cut.zip', z[:len(z) * 2 // 3])
b = io.BytesIO()
with zipfile.ZipFile(b, 'w', zipfile.ZIP_STORED) as zf:
    zf.writestr(zipfile.ZipInfo('chunk.00000000', (2024, 1, 2, 3, 4, 6)), parts[0])
    zf.writestr(zipfile.ZipInfo('chunk.00000001', (2024, 1, 2, 3, 4, 6)), parts[1], zipfile.ZIP_DEFLATED)
put('py-stored-deflated.zip', b.getvalue())
g = bytes.fromhex('1f8b0800000000000003') + deflate(bytes(recs)) + struct.pack('<II', zlib.crc32(recs), len(recs))
put('dr.gz', g)
put('dr-cut.gz', g[:len(g) // 2])
try:
    put('tool.lz4', subprocess.run(['lz4', '-q', '-c'], input=bytes(recs), capture_output=True, check=True).stdout)
except (OSError, subprocess.CalledProcessError):
    pass
try:
    lib = ctypes.CDLL('libsnappy.so.1')
    lib.snappy_max_compressed_length.restype = ctypes.c_size_t

    def crc32c(data):
        c = 0xffffffff
        for x in data:
            c ^= x
            for _ in range(8):
                c = (c >> 1) ^ 0x82f63b78 if c & 1 else c >> 1
        return c ^ 0xffffffff

    s = bytearray(b'\xff\x06\x00\x00sNaPpY')
    i = 0
    for n in (1000, 998, 5000):
        blk = bytes(recs[i:i + n])
        i += n
        cap = lib.snappy_max_compressed_length(len(blk))
        buf = ctypes.create_string_buffer(cap)
        ln = ctypes.c_size_t(cap)
        lib.snappy_compress(blk, ctypes.c_size_t(len(blk)), buf, ctypes.byref(ln))
        c = buf.raw[:ln.value]
        v = crc32c(blk)
        m = (((v >> 15) | (v << 17)) + 0xa282ead8) & 0xffffffff
        body, t = (struct.pack('<I', m) + c, 0) if len(c) < len(blk) else (struct.pack('<I', m) + blk, 1)
        s += bytes([t]) + len(body).to_bytes(3, 'little') + body
    put('dr.sz', s)
except OSError:
    pass
try:  # GNU gzip -9 (no name, no time) and --rsyncable -6, whole and cut
    for name, args in (('gnu9.gz', ['-9']), ('gnu-rsync.gz', ['-6', '--rsyncable'])):
        gz = subprocess.run(['gzip', '-n', '-c'] + args, input=bytes(recs), capture_output=True, check=True).stdout
        put(name, gz)
    put('gnu9-cut.gz', gz[:len(gz) * 2 // 3])
except (OSError, subprocess.CalledProcessError):
    pass
try:  # Info-ZIP's deflate (-9 and -1, from its output to a pipe) in zip framing of fixed dates
    iz = bytearray()
    cd = bytearray()
    for k, (p, level, flags) in enumerate(((parts[0] + parts[1], '-9', 2), (parts[2], '-1', 4))):
        raw = subprocess.run(['zip', '-q', level, '-', '-'], input=p, capture_output=True, check=True).stdout
        nl, xl = struct.unpack('<HH', raw[26:30])
        d = zlib.decompressobj(-15)
        d.decompress(raw[30 + nl + xl:])
        c = raw[30 + nl + xl:len(raw) - len(d.unused_data)]
        nm = b'chunk.%04d' % k
        crc = zlib.crc32(p)
        off = len(iz)
        iz += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, flags, 8, 0x6b21, 0x5a3c, crc, len(c), len(p), len(nm), 0) + nm + c
        cd += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 0x31e, 20, flags, 8, 0x6b21, 0x5a3c, crc, len(c), len(p),
                          len(nm), 0, 0, 0, 0, 0, off) + nm
    iz += cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 2, 2, len(cd), len(iz), 0)
    put('infozip.zip', iz)
except (OSError, subprocess.CalledProcessError):
    pass
put('plain.trace', bytes(recs[:3000]))
# An xz file of records, damaged inside its compressed data: unwrapped
# before the file layer, it must be refused, never stored.
x = bytearray(lzma.compress(bytes(recs[:3000]), preset=1))
x[len(x) // 2] ^= 0x40
put('damaged.xz', x)

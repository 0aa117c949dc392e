#!/usr/bin/env python3
"""test_trz.py - tests of the Python binding (python/trz) and its Dask side
(trz.dask, bench/analyzers/dask_mix.py): round trips and field values on
the samples in corpus/, errors as exceptions, partitions, compressing in
parts on a 2-worker LocalCluster, and the Dask analysis against the C
analyzers (rst_stats, bus_stats), on the shared corpus too when present.
Run by tests/python/run.sh; prints "N passed, M failed" last."""

import filecmp
import os
import random
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench", "analyzers"))

import numpy as np  # noqa: E402

import trz  # noqa: E402
import trz.dask as tdask  # noqa: E402

CLI = os.environ.get("TRZ_CLI", os.path.join(ROOT, "trz"))
ANALYZERS = os.environ.get("TRZ_ANALYZERS", os.path.join(ROOT, "build", "analyzers"))
SHARED = os.environ.get("TRZ_SHARED_CORPUS", os.path.join(os.path.dirname(ROOT), "shared", "corpus"))
CORPUS = os.path.join(ROOT, "corpus")
W = None  # the scratch directory, made by main(): worker processes re-import this file
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


class Skip(Exception):
    """A test whose inputs are absent: counted as skipped, not passed."""


def check(cond, msg="check failed"):
    if not cond:
        raise AssertionError(msg)


def raises(code, fn, *args, contains=None, **kw):
    """fn(...) must raise TrzError with this code (None: any) and message part."""
    try:
        fn(*args, **kw)
    except trz.TrzError as e:
        check(code is None or e.code == code, "error code %r, expected %r (%s)" % (e.code, code, e))
        check(str(e), "empty error message")
        if contains:
            check(contains in str(e), "message %r lacks %r" % (str(e), contains))
        return e
    raise AssertionError("no TrzError from %s" % getattr(fn, "__name__", fn))


def sample(name):
    return os.path.join(CORPUS, name)


_archives = {}


def archive(src, **opts):
    """src compressed with opts (once per run), in the scratch directory."""
    key = (src, tuple(sorted(opts.items())))
    if key not in _archives:
        dst = os.path.join(W, "a%d-%s.trz" % (len(_archives), os.path.basename(src)))
        trz.compress(src, dst, **opts)
        _archives[key] = dst
    return _archives[key]


def raw_records(path, rs):
    data = open(path, "rb").read()
    return data[:len(data) // rs * rs]


# ---- the binding --------------------------------------------------------------------------
@test
def round_trip_every_sample():
    for name in ("loops-4cpu.rst", "blaze-like-1cpu-le.rst", "bus-2cpu.byu", "bus-1cpu.pbus", "sjeng-like.trace",
                 "tabs-variant.trace", "mix.champsimtrace", "mix-cloudsuite.champsimtrace"):
        src = sample(name)
        a = archive(src)
        back = os.path.join(W, "back")
        trz.decompress(a, back, threads=2)
        check(filecmp.cmp(src, back, shallow=False), name + ": decompress differs")
        with trz.open(a) as r:
            check(r.raw_bytes == os.path.getsize(src), name + ": raw_bytes")
            if r.record_size:
                check(r.read() == raw_records(src, r.record_size), name + ": read() differs")
            else:
                check(r.read() == open(src, "rb").read(), name + ": read() of text differs")
            check(r.read(5) == b"", name + ": read past the end")


@test
def metadata():
    expect = {"loops-4cpu.rst": ("rst", 24, "big", 40000), "blaze-like-1cpu-le.rst": ("rst", 24, "little", 20000),
              "bus-2cpu.byu": ("byu", 12, "little", 100000), "bus-1cpu.pbus": ("pbus", 6, "big", 100000),
              "sjeng-like.trace": ("uop", 0, None, 15000), "mix.champsimtrace": ("champsim", 64, "little", 20000),
              "mix-cloudsuite.champsimtrace": ("champsim-cloudsuite", 96, "little", 8000)}
    for name, (fmt, rs, bo, n) in expect.items():
        with trz.open(archive(sample(name))) as r:
            got = (r.format, r.record_size, r.byte_order, r.n_records)
            check(got == (fmt, rs, bo, n), "%s: %r != %r" % (name, got, (fmt, rs, bo, n)))
            check(r.info.records == n and len(r) == n and r.info.format == fmt, name + ": info")
            check(r.info.chunks == r.n_chunks == len(r.chunks()) >= 1, name + ": chunk count")
            check(r.compressed_bytes == os.path.getsize(archive(sample(name))), name + ": compressed_bytes")


@test
def chunks_cover_the_records():
    a = archive(sample("bus-2cpu.byu"), chunk_records=7000)
    with trz.open(a) as r:
        ch = r.chunks()
        whole = [c for c in ch if c[1]]
        check(len(whole) == 15 and all(n == 7000 for _, n in whole[:-1]) and whole[-1][1] == 2000, repr(ch))
        nxt = 0
        for first, n in ch:
            check(first == nxt, "chunk starts at %d, expected %d" % (first, nxt))
            nxt += n
        check(nxt == r.n_records == 100000)
        check(r.chunk_info(3)["first_record"] == 21000 and r.chunk_info(3)["format"] == "byu")


@test
def seek_and_read_binary():
    for name, rs in (("loops-4cpu.rst", 24), ("bus-2cpu.byu", 12), ("bus-1cpu.pbus", 6)):
        src = sample(name)
        raw = raw_records(src, rs)
        n = len(raw) // rs
        a = archive(src, chunk_records=3000)
        with trz.open(a) as r:
            rng = random.Random(7)
            for k in [0, 2999, 3000, 3001, n - 1, n] + [rng.randrange(n) for _ in range(20)]:
                check(r.seek(k) == k and r.tell() == k)
                got = r.read(5)
                check(got == raw[k * rs:(k + 5) * rs], "%s: seek(%d) read(5) differs" % (name, k))
                check(r.tell() == min(k + 5, n), "tell after read")
            r.seek(-10)
            check(r.read() == raw[-10 * rs:], name + ": seek from the end")


def _threads_now():
    return len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None


@test
def overlap_reads_the_same_records():
    src = sample("loops-4cpu.rst")
    raw = raw_records(src, 24)
    n = len(raw) // 24
    a = archive(src, chunk_records=3000)
    before = _threads_now()
    with trz.open(a, overlap=True) as r:
        got = r.read(10)
        during = _threads_now()
        check(got == raw[:240], "overlap: the first records differ")
        if before is not None:
            check(during > before, "overlap=True started no decoding thread (%d -> %d)" % (before, during))
        check(b"".join(bytes(b) for b in r.batches(5000)) == raw[240:], "overlap: the rest differs")
        for k in (n - 1, 0, 2999, 3000, 4321):
            check(r.seek(k) == k and r.read(7) == raw[k * 24:(k + 7) * 24], "overlap: seek(%d) differs" % k)
    with trz.open(a) as r:
        r.read(10)
        check(before is None or _threads_now() == before, "a plain reader started a thread")
    with trz.open(a, threads=2, overlap=True) as r:
        check(r.read() == raw, "threads=2 with overlap differs")


@test
def seek_and_read_text():
    src = sample("sjeng-like.trace")
    lines = open(src, "rb").read().splitlines(keepends=True)
    with trz.open(archive(src, chunk_records=1000)) as r:
        check(r.n_records == len(lines))
        for k in (0, 1, 999, 1000, 1001, 7777, len(lines) - 2):
            r.seek(k)
            check(r.read(3) == b"".join(lines[k:k + 3]), "seek(%d) read(3)" % k)
            check(r.tell() == min(k + 3, len(lines)))
        r.seek(0)
        got = list(r.batches(997))
        check(all(g.count(b"\n") == 997 for g in got[:-1]), "batch sizes")
        check(b"".join(got) == b"".join(lines), "text batches differ")


@test
def batches_and_records_agree():
    a = archive(sample("loops-4cpu.rst"), chunk_records=3000)
    with trz.open(a) as r:
        full = r.records()
        r.seek(0)
        parts = list(r.batches(4096, numpy=True))
        check(sum(len(p) for p in parts) == len(full) == 40000)
        check(np.array_equal(np.concatenate(parts), full), "numpy batches differ")
        r.seek(0)
        check(b"".join(r.batches(1000)) == raw_records(sample("loops-4cpu.rst"), 24), "byte batches differ")
        for start, n in ((0, 10), (2999, 2), (39990, 100)):
            part = r.records(n, start=start)
            check(np.array_equal(part, full[start:start + n]), "records(%d, start=%d)" % (n, start))
        sub = r.records(50, start=100, fields=["cpuid", "ea_va"])
        check(sub.dtype.names == ("cpuid", "ea_va") and np.array_equal(sub["ea_va"], full["ea_va"][100:150]))


def _rst_expected(rec, little):
    """One RST record's fields by plain struct parsing (rst-records.md)."""
    rt, f, b2, b3 = rec[0], rec[1], rec[2], rec[3]
    o = "<" if little else ">"
    instr, w8, w16 = struct.unpack(o + "IQQ", rec[4:24])
    z = dict(rtype=rt, ea_valid=0, tr=0, hpriv=0, pr=0, bt=0, an=0, cpuid=0, instr=0, pc_va=w8, ea_va=w16)
    if rt == 3:
        bits = [1, 2, 3, 4, 5, 6] if little else [6, 5, 4, 3, 2, 1]
        for name, b in zip(("ea_valid", "tr", "hpriv", "pr", "bt", "an"), bits):
            z[name] = (f >> b) & 1
        if little:
            z["cpuid"] = (b2 & 0x3F) | (((b2 >> 6) | (b3 & 3) << 2) << 6)
        else:
            z["cpuid"] = (b2 >> 2) | ((((b2 & 3) << 2) | (b3 >> 6)) << 6)
        z["instr"] = instr
    elif rt in (18, 19):
        z["ea_valid"] = (f & 1) if little else f >> 7
        z["cpuid"] = ((f >> 1) | (b2 & 7) << 7) if little else ((f & 0x7F) | (b2 >> 5) << 7)
    return z


@test
def rst_fields_match_struct_parsing():
    for name, little in (("loops-4cpu.rst", False), ("blaze-like-1cpu-le.rst", True)):
        raw = open(sample(name), "rb").read()
        arr = trz.records(archive(sample(name)))
        check(arr.dtype.names == trz.fields("rst"))
        rng = random.Random(1)
        idx = set(rng.sample(range(len(arr)), 400))
        rt = np.frombuffer(raw, np.uint8)[::24]
        for t in (3, 19, 5, 7, 9, 2):  # every kind of record, first and last of each
            hits = np.flatnonzero(rt == t)
            if len(hits):
                idx.update([int(hits[0]), int(hits[-1])])
        check((rt == 19).any() and (rt == 3).any(), name + ": sample lacks INSTR or PAVADIFF")
        cpus = set()
        for i in sorted(idx):
            want = _rst_expected(raw[i * 24:(i + 1) * 24], little)
            got = {k: int(arr[k][i]) for k in want}
            check(got == want, "%s record %d: %r != %r" % (name, i, got, want))
            if want["rtype"] == 3:
                cpus.add(want["cpuid"])
        if name.startswith("loops"):
            check(cpus == {0, 1, 2, 3}, "cpuids seen: %r" % cpus)
        full = np.array([_rst_expected(raw[i * 24:(i + 1) * 24], little)["cpuid"] for i in range(len(arr))])
        check(np.array_equal(full, arr["cpuid"]), name + ": cpuid column differs")


@test
def byu_and_pbus_fields_match_struct_parsing():
    raw = open(sample("bus-2cpu.byu"), "rb").read()
    a = trz.records(archive(sample("bus-2cpu.byu")))
    check(len(a) == 100000 and a.dtype.names == ("addr", "reqtype", "size", "attr", "proc", "time"))
    for i in list(range(0, 100000, 997)) + [99999]:
        want = struct.unpack("<IBBBBI", raw[i * 12:(i + 1) * 12])
        check(tuple(int(a[k][i]) for k in a.dtype.names) == want, "byu record %d" % i)
    check(set(np.unique(a["proc"]).tolist()) == {0, 1}, "two processors")
    raw = open(sample("bus-1cpu.pbus"), "rb").read()
    p = trz.records(archive(sample("bus-1cpu.pbus")))
    for i in list(range(0, 100000, 991)) + [99999]:
        addr, be, ctl = struct.unpack(">IBB", raw[i * 6:(i + 1) * 6])
        check((int(p["addr"][i]), int(p["be"][i]), int(p["ctl"][i]), int(p["type"][i])) == (addr, be, ctl, ctl >> 4),
              "pbus record %d" % i)


@test
def champsim_fields_match_struct_parsing():
    for name, cs in (("mix.champsimtrace", False), ("mix-cloudsuite.champsimtrace", True)):
        raw = open(sample(name), "rb").read()
        a = trz.records(archive(sample(name)))
        rs, nd = (96, 4) if cs else (64, 2)
        check(len(a) == len(raw) // rs and a.dtype.itemsize == rs, name + ": count and itemsize")
        check(trz.fields("champsim-cloudsuite" if cs else "champsim") == a.dtype.names, name + ": fields")
        for i in list(range(0, len(a), 997)) + [len(a) - 1]:
            r = raw[i * rs:(i + 1) * rs]
            ip, isb, tk = struct.unpack_from("<QBB", r)
            dreg, sreg = tuple(r[10:10 + nd]), tuple(r[10 + nd:14 + nd])
            m = struct.unpack_from("<%dQ" % (nd + 4), r, 24 if cs else 16)
            got = (int(a["ip"][i]), int(a["is_branch"][i]), int(a["branch_taken"][i]),
                   tuple(int(x) for x in a["destination_registers"][i]), tuple(int(x) for x in a["source_registers"][i]),
                   tuple(int(x) for x in a["destination_memory"][i]) + tuple(int(x) for x in a["source_memory"][i]))
            check(got == (ip, isb, tk, dreg, sreg, m), "%s record %d: %r" % (name, i, got))
            if cs:
                check(tuple(int(x) for x in a["asid"][i]) == tuple(r[88:90]), "%s record %d asid" % (name, i))
        part = trz.records(archive(sample(name)), n=10, start=100, fields=["ip", "source_memory"])
        check(part.dtype.names == ("ip", "source_memory") and np.array_equal(part["ip"], a["ip"][100:110]),
              name + ": a field subset from a start")


@test
def uop_fields_match_text():
    for name in ("sjeng-like.trace", "tabs-variant.trace"):
        lines = [ln for ln in open(sample(name), "rb").read().splitlines() if ln.strip()]
        if not lines[0].split()[0].isdigit():
            lines = lines[1:]  # the header of the format's example table
        a = trz.records(archive(sample(name)))
        check(len(a) == len(lines), "%s: %d rows, %d lines" % (name, len(a), len(lines)))
        for i in list(range(0, len(lines), 97)) + [len(lines) - 1]:
            t = lines[i].split()
            want = (int(t[0]), int(t[1], 16), int(t[2]), int(t[3]), int(t[4]), t[5], t[6], t[7], int(t[8]),
                    int(t[9], 16), int(t[10], 16), int(t[11], 16), t[12].decode(), t[13].decode())
            got = tuple(a[i][k] for k in a.dtype.names)
            got = tuple(int(v) if isinstance(v, np.integer) else v for v in got)
            check(got == want, "%s line %d: %r != %r" % (name, i, got, want))
        check(a["pc"].dtype == np.uint64 and a["imm"].dtype == np.int64 and a["flags"].dtype == np.dtype("S1"))


@test
def open_from_memory():
    a = archive(sample("bus-1cpu.pbus"))
    with trz.open(open(a, "rb").read()) as r:
        check(r.format == "pbus" and r.n_records == 100000)
        r.seek(500)
        check(r.read(2) == raw_records(sample("bus-1cpu.pbus"), 6)[3000:3012])


@test
def compress_options():
    src = sample("loops-4cpu.rst")
    d = os.path.join(W, "opt.trz")
    got = trz.compress(src, d, level=3, threads=2, chunk_records=4000, backend="gzip")
    check(got == {"format": "rst", "byte_order": "big"}, repr(got))
    with trz.open(d) as r:
        check(r.n_chunks == 10 and r.read() == raw_records(src, 24))
    got = trz.compress(src, d, format="raw", chunk_bytes=65536)
    with trz.open(d) as r:
        check(got["format"] == r.format == "raw" and r.n_chunks == 15, "raw: %r %d" % (got, r.n_chunks))
        check(r.read() == open(src, "rb").read(), "raw read")


@test
def join_parts():
    src = sample("bus-2cpu.byu")
    size = os.path.getsize(src)
    cut = 12 * 30000  # a whole number of 10000-record chunks
    p1, p2 = os.path.join(W, "p1.trz"), os.path.join(W, "p2.trz")
    # (chunks that stand alone: parts of chains keep a group each; without
    # parity, whose sets end at each part's end: parts cut at groups keep
    # it, compress_parallel_cuts_at_groups)
    trz.compress_range(src, 0, cut, p1, chunk_records=10000, chain=False, parity=False)
    trz.compress_range(src, cut, size - cut, p2, chunk_records=10000, format="byu", unwrap=False, chain=False,
                       parity=False)
    joined = os.path.join(W, "joined.trz")
    trz.join([p1, p2], joined)
    whole = os.path.join(W, "whole.trz")
    trz.compress(src, whole, chunk_records=10000, chain=False, parity=False)
    check(filecmp.cmp(joined, whole, shallow=False), "joined parts differ from a one-process archive")
    with trz.open(joined) as r:
        check(r.members == 1 and r.n_chunks == 11, "members %d chunks %d" % (r.members, r.n_chunks))
    check(subprocess.run([CLI, "-t", joined]).returncode == 0, "trz -t")


@test
def join_parts_cut_anywhere():
    def parts(src, cuts, fmt, name):
        out = []
        for k in range(len(cuts) - 1):
            out.append(os.path.join(W, "%s%d.trz" % (name, k)))
            trz.compress_range(src, cuts[k], cuts[k + 1] - cuts[k], out[-1], chunk_bytes=16384, format=fmt,
                               unwrap=False)
        return out

    # text cut inside lines, the middle part too: one member, each line counted once
    src = sample("sjeng-like.trace")
    data = open(src, "rb").read()
    cuts = [0, 400001, 700001, len(data)]
    check(all(data[c - 1] != ord("\n") for c in cuts[1:3]), "the cuts fall inside lines")
    joined = os.path.join(W, "jt.trz")
    trz.join(parts(src, cuts, "uop", "jt"), joined)
    with trz.open(joined) as r:
        check(r.members == 1 and r.n_records == data.count(b"\n"), "members %d records %d" % (r.members, r.n_records))
        check(r.read_bytes(len(data) + 1) == data, "joined text differs")
        two = b"\n".join(data.split(b"\n")[4000:4002]) + b"\n"
        r.seek(4000)
        check(r.read_bytes(len(two)) == two, "seek(4000)")
    # BYU cut inside records: a member after each part that ends in a partial one
    src = sample("bus-2cpu.byu")
    data = open(src, "rb").read()
    cuts = [0, 400000, 800000, len(data)]
    ps = parts(src, cuts, "byu", "jb")
    joined = os.path.join(W, "jb.trz")
    trz.join(ps, joined)
    n = 0
    for p in ps:
        with trz.open(p) as r:
            n += r.n_records
    with trz.open(joined) as r:
        check(r.members == 3 and r.n_records == n, "members %d records %d (parts: %d)" % (r.members, r.n_records, n))
        check(r.read_bytes(len(data) + 1) == data, "joined BYU differs")
    check(subprocess.run([CLI, "-t", joined]).returncode == 0, "trz -t")
    # a damaged chunk in an input: an error, and no dst
    ps = parts(src, [0, 12 * 50000, len(data)], "byu", "jd")
    bad = bytearray(open(ps[1], "rb").read())
    bad[400] ^= 0x55
    open(ps[1], "wb").write(bytes(bad))
    dst = os.path.join(W, "jd.trz")
    raises(-6, trz.join, ps, dst, contains="does not decode")  # TRZ_ERR_CHECKSUM
    check(not os.path.exists(dst) and not [f for f in os.listdir(W) if f.startswith(".jd.trz")], "a failed join leaves nothing")


@test
def errors_are_exceptions():
    missing = os.path.join(W, "no-such.trz")
    raises(trz._lib.ERR_IO, trz.open, missing, contains="no-such.trz")
    e = raises(-3, trz.open, sample("loops-4cpu.rst"))  # TRZ_ERR_NOT_TRZ
    check("loops-4cpu.rst" in str(e))
    a = archive(sample("loops-4cpu.rst"), chunk_records=5000, parity=False)  # (damage parity would mend, below)
    with trz.open(a) as r:
        raises(trz._lib.ERR_RANGE, r.seek, 40001, contains="past the end")
    raises(trz._lib.ERR_PARAM, trz.compress, sample("loops-4cpu.rst"), os.path.join(W, "x.trz"), level=42)
    raises(trz._lib.ERR_PARAM, trz.compress, sample("loops-4cpu.rst"), os.path.join(W, "x.trz"), format="nope",
           contains="nope")
    raises(None, trz.compress, missing, os.path.join(W, "x.trz"), contains="no-such.trz")
    raises(None, trz.decompress, missing, os.path.join(W, "x"), contains="no-such.trz")
    raises(trz._lib.ERR_PARAM, trz.join, [a, archive(sample("bus-2cpu.byu"))], os.path.join(W, "j.trz"),
           contains="format")
    check(not os.path.exists(os.path.join(W, "j.trz")), "a failed join leaves no output")
    # a damaged chunk: the error names it, and reading raises instead of returning bad data
    bad = os.path.join(W, "bad.trz")
    data = bytearray(open(a, "rb").read())
    with trz.open(a) as r:
        c = r.chunk_info(2)
    data[c["offset"] + c["stored_bytes"] // 2] ^= 0x55
    open(bad, "wb").write(bytes(data))
    with trz.open(bad) as r:
        r.seek(0)
        check(len(r.read(10000)) == 240000, "the intact chunks read")
        raises(None, r.read, 5000, contains="chunk 2")
        raises(None, r.records, 10, start=12000, contains="chunk 2")
    with trz.open(bad) as r:
        raises(None, r.records, contains="chunk 2")  # not a silently shorter array
    with trz.open(bad) as r:
        raises(None, r.read, contains="chunk 2")
    # members of different formats: no record reads, but the bytes are there
    mixed = os.path.join(W, "mixed.trz")
    with open(mixed, "wb") as f:
        f.write(open(a, "rb").read() + open(archive(sample("bus-1cpu.pbus")), "rb").read())
    with trz.open(mixed) as r:
        check(r.format == "mixed" and r.members == 2)
        raises(trz._lib.ERR_UNSUPPORTED, r.records, contains="members differ")
        raises(trz._lib.ERR_UNSUPPORTED, r.read, 10, contains="members differ")
        both = open(sample("loops-4cpu.rst"), "rb").read() + open(sample("bus-1cpu.pbus"), "rb").read()
        check(r.read_bytes(1 << 22) == both, "read_bytes of a mixed archive")
    r = trz.open(a)
    r.close()
    try:
        r.read(1)
        raise AssertionError("read on a closed reader")
    except ValueError:
        pass


@test
def chunks_cut_out_or_repeated_never_read_as_records():
    """A chunk cut out of an archive, or repeated, with its index left as it
    was or rebuilt: no read gives records under another record's number."""
    src = sample("loops-4cpu.rst")
    a = archive(src, chunk_records=5000)
    want = open(src, "rb").read()
    data = open(a, "rb").read()
    with trz.open(a) as r:
        c = [r.chunk_info(i) for i in range(r.n_chunks)]
    cut = data[:c[2]["offset"]] + data[c[3]["offset"]:]                               # chunk 2 cut out
    dup = data[:c[3]["offset"]] + data[c[2]["offset"]:c[3]["offset"]] + data[c[3]["offset"]:]  # chunk 2 twice
    for name, body in (("cut", cut), ("dup", dup)):
        path = os.path.join(W, "%s.trz" % name)
        open(path, "wb").write(body)
        with trz.open(path) as r:                      # the index no longer fits: read without it
            raises(None, r.read, contains="chunk")
        with trz.open(path) as r:
            try:
                r.seek(30000)
                got = r.read(100)
                check(got == want[30000 * 24:30100 * 24], "%s: records 30000.. wrong" % name)
            except trz.TrzError:
                pass
        with trz.open(path) as r:
            try:
                got = r.read_bytes(1 << 22)   # a short read means the end: the error comes with it
                check(got == want, "%s: read_bytes gave other bytes without an error" % name)
            except trz.TrzError:
                pass


# ---- misuse: positions inside records, numbers, output paths --------------------------------
def _no_hang(seconds):
    """A call that hangs fails the test instead of stopping the run."""
    def on_alarm(sig, frame):
        raise AssertionError("a call did not return within %d s (a hang)" % seconds)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)


@test
def read_inside_a_record_raises():
    src = sample("loops-4cpu.rst")
    raw = raw_records(src, 24)
    with trz.open(archive(src, chunk_records=3000)) as r:
        check(r.read_bytes(5) == raw[:5] and r.tell() == 1, "tell() inside record 0")
        _no_hang(60)
        try:
            raises(trz._lib.ERR_PARAM, r.read, 50000, contains="inside a record")
            raises(trz._lib.ERR_PARAM, r.records, 10, contains="inside a record")
            raises(trz._lib.ERR_PARAM, lambda: next(r.batches(100)), contains="inside a record")
        finally:
            signal.alarm(0)
        check(r.tell() == 1, "a refused read moved the reader")
        check(r.read_bytes(19) == raw[5:24] and r.read(2) == raw[24:72] and r.tell() == 3, "the rest, then records")
        for k in (1, 23, 24, 25, 47):  # tell() is the library's position, after any read_bytes
            r.seek(100)
            r.read_bytes(k)
            check(r.tell() == 100 + (k + 23) // 24, "tell() after read_bytes(%d)" % k)
    # a partial last record: read() stops before it, read_bytes() returns it
    src_tail = os.path.join(W, "tail.rst")
    with open(src_tail, "wb") as f:
        f.write(raw[:24 * 5000] + b"12345")
    with trz.open(archive(src_tail, chunk_records=1000)) as r:
        check(r.read() == raw[:24 * 5000] and r.read(10) == b"", "the records before the partial one")
        check(r.read_bytes(100) == b"12345", "read_bytes() after read() returns the partial record")


@test
def text_reads_lose_nothing():
    src = sample("sjeng-like.trace")
    data = open(src, "rb").read()
    lines = data.splitlines(keepends=True)
    small = os.path.join(W, "1000.trace")
    with open(small, "wb") as f:
        f.write(b"".join(lines[:1000]))
    for path, n in ((small, 1000), (src, len(lines))):
        with trz.open(archive(path, chunk_records=97)) as r:
            first = r.read(1)
            check(first == lines[0], "read(1)")
            got = r.read_bytes(100)
            check(got == b"".join(lines[1:])[:100], "read_bytes(100) after read(1) on %d lines: %r" % (n, got[:20]))
            check(r.tell() == 1 + b"".join(lines[1:])[:100].count(b"\n") + 1 - (got.endswith(b"\n")), "tell() after it")
            raises(trz._lib.ERR_PARAM, r.read, 1, contains="inside a record")
            rest = lines[1 + got.count(b"\n")]
            cut = len(b"".join(lines[1:])[:100].split(b"\n")[-1])
            check(r.read_bytes(len(rest) - cut) == rest[cut:], "the rest of the line")
            k = r.tell()
            check(r.read(3) == b"".join(lines[k:k + 3]) and r.tell() == k + 3, "whole lines again")
            r.seek(n - 2)
            check(r.read(10) == b"".join(lines[n - 2:n]) and r.read(1) == b"", "the last lines")


@test
def numbers_are_checked_not_wrapped():
    src = sample("bus-2cpu.byu")
    raw = raw_records(src, 12)
    with trz.open(archive(src, chunk_records=3000)) as r:
        n = r.n_records
        r.seek(7)
        for bad in (2 ** 64 + 5, 2 ** 64, 2 ** 64 - 1, n + 1, -n - 1, -(2 ** 70)):
            raises(trz._lib.ERR_RANGE, r.seek, bad)
            check(r.tell() == 7, "a refused seek(%d) moved the reader" % bad)
        for bad in (1.5, "3"):
            try:
                r.seek(bad)
                raise AssertionError("seek(%r) taken" % (bad,))
            except TypeError:
                pass
        for fn in (r.read, r.read_bytes, r.records):
            try:
                fn(-1)
                raise AssertionError("%s(-1) taken" % fn.__name__)
            except ValueError:
                pass
        check(r.seek(np.uint64(5)) == 5 and r.read(1) == raw[60:72], "numpy integers")
        # a count past the end is cut to what is left: nothing that large is allocated
        import tracemalloc
        tracemalloc.start()
        try:
            r.seek(n - 10)
            check(r.read(10 ** 8) == raw[-120:], "read(10**8) near the end")
            r.seek(0)
            check(len(r.records(10 ** 9)) == n, "records(10**9)")
            r.seek(n - 3)
            check(sum(len(b) for b in r.batches(10 ** 9)) == 36, "batches(10**9)")
            r.seek(0)
            check(len(r.read_bytes(10 ** 12)) == len(open(src, "rb").read()), "read_bytes(10**12)")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        check(peak < 64 << 20, "peak Python allocation %d bytes for counts past the end" % peak)
    # a pipe (a FIFO's path): no count known, read in pieces
    fifo = os.path.join(W, "fifo.trz")
    os.mkfifo(fifo)
    blob = open(archive(src, chunk_records=3000), "rb").read()

    def feed():
        with open(fifo, "wb") as f:
            f.write(blob)
    t = threading.Thread(target=feed)
    t.start()
    try:
        with trz.open(fifo) as r:
            check(r.n_records == -1 and not r.seekable, "a FIFO reads as a pipe")
            check(r.read(10 ** 8) == raw, "read(10**8) from a pipe")
    finally:
        t.join()
        os.unlink(fifo)


@test
def tell_survives_an_interrupt():
    src = sample("loops-4cpu.rst")
    raw = raw_records(src, 24)
    real = trz.lib.trz_read
    calls = [0]

    def interrupted(r, buf, n):  # the library reads some records, then ^C arrives
        k = real(r, buf, min(n, 777))
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        return k
    with trz.open(archive(src, chunk_records=3000)) as r:
        trz.lib.trz_read = interrupted
        try:
            r.records()
            raise AssertionError("no KeyboardInterrupt")
        except KeyboardInterrupt:
            pass
        finally:
            trz.lib.trz_read = real
        k = r.tell()
        check(k == 3 * 777, "tell() after the interrupt: %d, the library read %d" % (k, 3 * 777))
        check(r.read(5) == raw[k * 24:(k + 5) * 24], "reading on from tell()")


def _fifo_drain(path, out):
    with open(path, "rb") as f:
        out.append(f.read())


@test
def output_paths():
    src = sample("bus-1cpu.pbus")
    a = archive(src)
    orig = open(src, "rb").read()
    for what, fn, inp in (("compress", trz.compress, src), ("decompress", trz.decompress, a)):
        def good(data):
            if what == "decompress":
                return data == orig
            with trz.open(data) as r:
                return r.read_bytes(1 << 24) == orig
        d = os.path.join(W, "out-" + what)
        os.mkdir(d)
        # a symbolic link: the file it leads to is replaced, the link stays
        target, link = os.path.join(d, "target"), os.path.join(d, "link")
        open(target, "wb").write(b"old")
        os.symlink("target", link)
        fn(inp, link)
        check(os.path.islink(link) and good(open(target, "rb").read()), what + " through a symbolic link")
        # one that leads nowhere, a directory, the input itself: refused, nothing made
        os.symlink("nowhere", os.path.join(d, "dangling"))
        raises(trz._lib.ERR_PARAM, fn, inp, os.path.join(d, "dangling"), contains="does not exist")
        check(not os.path.exists(os.path.join(d, "nowhere")), what + ": a dangling link's target was made")
        os.mkdir(os.path.join(d, "sub"))
        raises(trz._lib.ERR_PARAM, fn, inp, os.path.join(d, "sub"), contains="directory")
        raises(trz._lib.ERR_PARAM, fn, inp, inp, contains="input itself")
        # a FIFO: written in place
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        got = []
        t = threading.Thread(target=_fifo_drain, args=(fifo, got))
        t.start()
        try:
            fn(inp, fifo)
        finally:
            t.join()
        check(stat.S_ISFIFO(os.lstat(fifo).st_mode) and good(got[0]), what + " into a FIFO")
        # a character device (/dev/null's numbers), root only: written to, never replaced
        dev = os.path.join(d, "null")
        try:
            os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            print("     (character device outputs skipped: not root)")
        else:
            fn(inp, dev)
            check(stat.S_ISCHR(os.lstat(dev).st_mode), what + " replaced a character device")
        left = [f for f in os.listdir(d) if ".tmp" in f]
        check(not left, what + ": temporary files left: %s" % left)
    raises(trz._lib.ERR_PARAM, trz.decompress, a, os.path.join(W, "t.out"), threads=-3)
    check(not os.path.exists(os.path.join(W, "t.out")), "decompress with -3 threads made a file")
    raises(trz._lib.ERR_PARAM, trz.open, a, threads=65)


# ---- Dask ---------------------------------------------------------------------------------
_cluster = []


def client():
    if not _cluster:
        import dask_mix
        _cluster.extend(dask_mix.start_cluster(2))
    return _cluster[1]


@test
def dask_partitions_are_chunks():
    a = archive(sample("loops-4cpu.rst"), chunk_records=3000, chain=False)
    c = client()
    df = tdask.read_records(a)
    with trz.open(a) as r:
        chunks = [ch for ch in r.chunks() if ch[1]]
        full = r.records()
    check(df.npartitions == len(chunks) == 14, "%d partitions for %d chunks" % (df.npartitions, len(chunks)))
    check(df.divisions == tuple(f for f, _ in chunks) + (39999,), repr(df.divisions))
    lens = c.compute(df.map_partitions(len)).result().tolist()
    check(lens == [n for _, n in chunks], repr(lens))
    got = c.compute(df).result()
    check(list(got.index) == list(range(40000)))
    for k in trz.fields("rst"):
        check(np.array_equal(got[k].to_numpy(), full[k]), "column " + k)
    df2 = tdask.read_records(a, records_per_partition=7000)
    check(df2.npartitions == 5, "7000 records rounds up to 3 chunks: %d partitions" % df2.npartitions)
    check(c.compute(df2.map_partitions(len)).result().tolist() == [9000] * 4 + [4000])
    both = tdask.read_records([a, archive(sample("loops-4cpu.rst"), chain=False)], fields=["cpuid", "instr"],
                              filter="instr")
    check(both.npartitions == 15 and list(both.columns) == ["cpuid", "instr"])
    got = c.compute(both).result()
    check(len(got) == 2 * int((full["rtype"] == 3).sum()), "INSTR filter over two files")
    check(np.array_equal(got["instr"].to_numpy()[:38762], full["instr"][full["rtype"] == 3]))
    text = tdask.read_records(archive(sample("tabs-variant.trace"), chunk_records=500, chain=False))
    t = c.compute(text).result()
    check(text.npartitions == 7 and len(t) == 3000 and t.index[0] == 1, "uop: header line skipped, index = line")
    check(t["micro"].iloc[0] == "ADD" and t["pc"].iloc[0] == 0x48d1a0)


def member_kind(path):
    # the mode of the first member: container versions 3 and 4 said it in
    # their number, version 5 says it in the header's flags (byte 7)
    h = open(path, "rb").read(8)
    if h[4] == 5:
        return "chains" if h[7] & 2 else "knowledge" if h[7] & 1 else "alone"
    return {4: "chains", 3: "knowledge"}.get(h[4], "alone")


@test
def dask_partitions_follow_chains():
    # chunks of chains: a partition is a group (it decodes from its first
    # chunk), and the partitions read what one process reads
    a = archive(sample("loops-4cpu.rst"), chunk_records=3000, restart_bytes=3 * 3000 * 24)
    c = client()
    with trz.open(a) as r:
        groups = [g for g in r.groups() if g[1]]
        chunks = [ch for ch in r.chunks() if ch[1]]
        full = r.records()
    check(member_kind(a) == "chains", "a member of chains")
    check(len(chunks) == 14 and len(groups) == 5, "%d chunks in %d groups" % (len(chunks), len(groups)))
    df = tdask.read_records(a)
    check(df.npartitions == 5, "%d partitions for 5 groups" % df.npartitions)
    lens = c.compute(df.map_partitions(len)).result().tolist()
    check(lens == [n for _, n in groups] == [9000] * 4 + [4000], repr(lens))
    got = c.compute(df).result()
    for k in trz.fields("rst"):
        check(np.array_equal(got[k].to_numpy(), full[k]), "column " + k)


@test
def dask_partitions_with_knowledge():
    # chunks that carry knowledge: each partition replays its group's facts
    # on its own worker and reads the same records as one process
    a = archive(sample("mix.champsimtrace"), chunk_records=1500, restart_bytes=4 * 1500 * 64, chain=False)
    c = client()
    with trz.open(a) as r:
        chunks = [ch for ch in r.chunks() if ch[1]]
        full = r.records()
    check(member_kind(a) == "knowledge", "a member with knowledge")
    scalar = [k for k in trz.fields("champsim") if full[k].ndim == 1]
    df = tdask.read_records(a, fields=scalar)
    check(df.npartitions == len(chunks) >= 10, "%d partitions for %d chunks" % (df.npartitions, len(chunks)))
    got = c.compute(df).result()
    for k in scalar:
        check(np.array_equal(got[k].to_numpy(), full[k]), "column " + k)
    lens = c.compute(df.map_partitions(len)).result().tolist()
    check(lens == [n for _, n in chunks], repr(lens))


def _compress_parallel_case(src, part_records=None, parts=None, trace=None, **opts):
    # the parts start where a one-process run starts its groups, so the
    # joined archive is byte for byte that run's (with knowledge, chains
    # or neither)
    c = client()
    dst = os.path.join(W, "par-" + os.path.basename(src) + ".trz")
    info = tdask.compress_parallel(src, dst, c, part_records=part_records, **opts)
    if parts is None:
        check(info["parts"] > 1, "%s: %d part(s)" % (src, info["parts"]))
    else:
        check(info["parts"] == parts, "%s: %r, not %d part(s)" % (src, info, parts))
    back = os.path.join(W, "par-back")
    trz.decompress(dst, back)
    check(filecmp.cmp(trace or src, back, shallow=False), src + ": compress_parallel round trip differs")
    check(subprocess.run([CLI, "-t", dst]).returncode == 0, src + ": trz -t fails")
    one = os.path.join(W, "one.trz")
    trz.compress(src, one, **opts)
    with trz.open(dst) as p, trz.open(one) as o:
        check(p.members == 1 and p.chunks() == o.chunks(), src + ": chunks differ from a one-process run")
    check(filecmp.cmp(dst, one, shallow=False), src + ": archive differs from a one-process run")
    check(not [f for f in os.listdir(W) if ".parts-" in f], "part directory left behind")
    return info, member_kind(one)


@test
def compress_parallel_two_workers():
    # chunks alone, without parity (its sets of 32 MiB make a sample one part)
    _compress_parallel_case(sample("loops-4cpu.rst"), chunk_records=3000, restart_bytes=0, parity=False)
    _compress_parallel_case(sample("bus-2cpu.byu"), chunk_records=7000, restart_bytes=0, parity=False)  # a 2-byte tail
    _compress_parallel_case(sample("sjeng-like.trace"), chunk_bytes=65536, restart_bytes=0, parity=False)
    _compress_parallel_case(sample("tabs-variant.trace"), chunk_records=400, level=5, restart_bytes=0, parity=False)
    # with parity: one set, one part, the same archive
    _compress_parallel_case(sample("loops-4cpu.rst"), parts=1, chunk_records=3000, restart_bytes=0)


@test
def compress_parallel_cuts_at_groups():
    # groups of 2-3 chunks: chains, knowledge, text chains; a part of one
    # chunk (a member without groups) joins the part before it
    _, kind = _compress_parallel_case(sample("loops-4cpu.rst"), chunk_records=3000, restart_bytes=2 * 3000 * 24)
    check(kind == "chains", kind)
    _, kind = _compress_parallel_case(sample("loops-4cpu.rst"), chunk_records=3000, restart_bytes=2 * 3000 * 24,
                                      chain=False)
    check(kind == "knowledge", kind)
    _compress_parallel_case(sample("mix.champsimtrace"), chunk_records=2000, restart_bytes=3 * 2000 * 64)
    _compress_parallel_case(sample("sjeng-like.trace"), chunk_bytes=65536, restart_bytes=3 * 65536)
    # 100,000 records in groups of 2 chunks of 10,000: part_records rounds
    # up to whole groups, 40,000 + 40,000 + 20,000
    _compress_parallel_case(sample("bus-1cpu.pbus"), chunk_records=10000, restart_bytes=120000, part_records=25000,
                            parts=3)
    # 1,200,002 bytes in chunks of 192,000 and groups of 6 chunks: the second
    # group is 48,000 bytes and a 2-byte tail, which alone would be a member
    # without groups, so the whole is one part, in one task
    info, kind = _compress_parallel_case(sample("bus-2cpu.byu"), chunk_records=16000, restart_bytes=6 * 192000,
                                         parts=1)
    check(kind == "chains" and "one task" in info.get("note", ""), "%s %r" % (kind, info))
    # the default groups (64 MiB and more) are longer than any sample: one task
    info, _ = _compress_parallel_case(sample("mix.champsimtrace"), chunk_records=2000, parts=1)
    check("one task" in info.get("note", ""), repr(info))


@test
def compress_parallel_compressed_input():
    # xz and bzip2 data are unwrapped whole by the library: a part of one is
    # no such file, so the input goes to one task (groups of 2 chunks would
    # otherwise cut it) and the archive is one process's
    import bz2
    import lzma
    src = sample("loops-4cpu.rst")
    raw = open(src, "rb").read()
    for name, data in (("x.rst.xz", lzma.compress(raw)), ("x.rst.bz2", bz2.compress(raw))):
        path = os.path.join(W, name)
        with open(path, "wb") as f:
            f.write(data)
        info, _ = _compress_parallel_case(path, parts=1, trace=src, chunk_records=3000, restart_bytes=2 * 3000 * 24)
        check(info.get("note") == "compressed in one task: compressed input", repr(info))


def _c_report(path):
    with trz.open(path) as r:
        tool = "rst_stats" if r.format == "rst" else "bus_stats"
    p = subprocess.run([os.path.join(ANALYZERS, tool), path], capture_output=True, text=True)
    check(p.returncode == 0, "%s %s: %s" % (tool, path, p.stderr))
    return p.stdout


def _same_as_c(path, **kw):
    import dask_mix
    got = dask_mix.analyze(client(), path, **kw)
    want = _c_report(path)
    if got != want:
        raise AssertionError("%s: dask_mix differs from the C analyzer:\n%s\n--- C:\n%s" % (path, got, want))


@test
def dask_analysis_equals_c_on_samples():
    for name, opts in (("loops-4cpu.rst", {"chunk_records": 2500}), ("loops-4cpu.rst", {}),
                       ("blaze-like-1cpu-le.rst", {"chunk_records": 1500}),
                       ("bus-2cpu.byu", {"chunk_records": 6000}), ("bus-1cpu.pbus", {"chunk_records": 9000})):
        _same_as_c(archive(sample(name), **opts))


@test
def dask_mix_script():
    a = archive(sample("bus-2cpu.byu"), chunk_records=6000)
    b = archive(sample("loops-4cpu.rst"), chunk_records=2500)
    addr = client().scheduler.address
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "analyzers", "dask_mix.py"), "--scheduler", addr,
                        a, b], capture_output=True, text=True, env=dict(os.environ))
    check(p.returncode == 0, p.stderr[-2000:])
    check(p.stdout == _c_report(a) + _c_report(b), "dask_mix.py output differs:\n" + p.stdout)


def _reference_lru(groups, lines):
    """A plain sequential 4-way LRU per group: hit flags."""
    sets, out = {}, []
    for g, x in zip(groups, lines):
        w = sets.setdefault(g, [])
        hit = x in w
        if hit:
            w.remove(x)
        elif len(w) == 4:
            w.pop()
        w.insert(0, x)
        out.append(hit)
    return out


@test
def lru_over_partitions_is_exact():
    import dask_mix
    rng = np.random.default_rng(5)
    for trial in range(30):
        n = int(rng.integers(1, 3000))
        groups = rng.integers(0, int(rng.integers(1, 6)), n)
        lines = rng.integers(1, int(rng.integers(2, 12)), n).astype(np.uint64)
        keys = rng.integers(0, 3, n)
        ref = np.array(_reference_lru(groups.tolist(), lines.tolist()))
        cuts = np.sort(rng.choice(np.arange(1, n + 1), size=min(n, int(rng.integers(1, 40))), replace=False))
        bounds = [0] + [int(c) for c in cuts if c < n] + [n]
        parts = [dask_mix.lru_local(groups[s:e], lines[s:e], keys[s:e], 3) for s, e in zip(bounds, bounds[1:])]
        acc, hits = dask_mix.lru_merge(parts, 3)
        check(np.array_equal(acc, np.bincount(keys, minlength=3)), "accesses")
        want = np.bincount(keys[ref], minlength=3)
        check(np.array_equal(hits, want), "trial %d: hits %r, sequential %r" % (trial, hits, want))


@test
def classification_table_matches_the_rules():
    import dask_mix
    rng = np.random.default_rng(9)
    words = rng.integers(0, 1 << 32, 20000, dtype=np.uint64).astype(np.uint32)
    special = [0x81C7E008, 0x81C3E008, 0x81C3E00C, 0x9FC00000, 0x81C00000, 0x81CFE008, 0x10800004, 0x00800004,
               0x12800004, 0x40000010, 0xC2002000, 0xC2202000, 0x01000000]
    words = np.concatenate([words, np.array(special, dtype=np.uint32)])
    got = dask_mix.classify(words)
    want = np.array([dask_mix.classify_word(int(w)) for w in words])
    check(np.array_equal(got, want), "vectorised classes differ from classify_word")
    check([dask_mix.classify_word(w) for w in special[:5]] ==
          [dask_mix.K_RET, dask_mix.K_RET, dask_mix.K_UBR, dask_mix.K_CALL, dask_mix.K_UBR], "ret/retl/jmpl")


# ---- the shared corpus (real traces), when it is there ---------------------------------------
def _shared(rel):
    """A decompressed copy of a shared-corpus file in the scratch directory."""
    p = os.path.join(SHARED, rel)
    if os.path.exists(p):
        return p
    if os.path.exists(p + ".xz"):
        out = os.path.join(W, os.path.basename(rel))
        with open(out, "wb") as f:
            check(subprocess.run(["xz", "-dc", p + ".xz"], stdout=f).returncode == 0, "xz -dc " + rel)
        return out
    return None


@test
def dask_analysis_equals_c_on_shared_corpus():
    if not os.path.isdir(SHARED):
        raise Skip("%s absent" % SHARED)
    done = 0
    for rel in ("rst/blaze-32cpu-part1.rst", "rst/sun-example-23847-1cpu.rst", "rst/qemu-sparc64-minigzip6-2M.rst",
                "rst/qemu-sparc64-pigz-4thr-2M.rst", "byu/sdsu-part1.byu", "pbus/sdsu-part1.pbus"):
        src = _shared(rel)
        if src is None:
            continue
        a = archive(src, threads=2, chunk_bytes=4 << 20)
        _same_as_c(a)
        done += 1
    check(done >= 4, "only %d shared traces found" % done)


def main():
    global W
    W = tempfile.mkdtemp(prefix="trz-py.")
    only = sys.argv[1:]
    passed = failed = skipped = 0
    t_all = time.time()
    try:
        for fn in TESTS:
            if only and fn.__name__ not in only:
                continue
            t0 = time.time()
            try:
                fn()
                passed += 1
                print("ok   %s (%.1fs)" % (fn.__name__, time.time() - t0))
            except Skip as e:
                skipped += 1
                print("skip %s: %s" % (fn.__name__, e))
            except Exception:
                failed += 1
                print("FAIL %s\n%s" % (fn.__name__, traceback.format_exc()))
            sys.stdout.flush()
    finally:
        if _cluster:
            _cluster[1].close()
            _cluster[0].close()
        shutil.rmtree(W, ignore_errors=True)
    print("python tests: %.0fs" % (time.time() - t_all))
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

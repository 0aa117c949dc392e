"""trz.dask - trz archives on Dask: read_records() turns one or more
archives into a Dask DataFrame with one partition per range of whole
chunks (each read by a worker that seeks there), and compress_parallel()
compresses one large raw trace on the workers of a distributed.Client in
parts and joins them into one archive with one index.

Workers open the archives by path, so the paths must name the same files
on every worker (shared storage, e.g. NFS or Lustre under Slurm)."""

import glob
import math
import mmap
import os
import shutil
import tempfile
import threading

import numpy as np

import trz
from trz import _lib, _records

__all__ = ["read_records", "chunk_ranges", "read_partition", "compress_parallel", "plan_parts"]

# ---- reading ------------------------------------------------------------------------


def _expand(paths):
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = []
    for p in paths:
        p = os.fspath(p)
        if isinstance(p, str) and any(ch in p for ch in "*?["):
            hits = sorted(glob.glob(p))
            if not hits:
                raise trz.TrzError("%s: no file matches" % p, _lib.ERR_IO)
            out.extend(hits)
        else:
            out.append(p)
    if not out:
        raise ValueError("no archives given")
    return out


def chunk_ranges(paths, records_per_partition=None):
    """[(path, first_record, n_records)]: consecutive whole groups of chunks
    of each archive (a group decodes from its first chunk: Reader.groups),
    at least records_per_partition records per range (the last of a file
    may hold fewer); one group per range by default.  Groups holding no
    whole record (a partial tail) are left out.  Also returns the archives'
    format."""
    ranges, fmt = [], None
    for p in _expand(paths):
        with trz.open(p) as r:
            if fmt is not None and r.format != fmt:
                raise trz.TrzError("%s holds %s records, the others %s" % (p, r.format, fmt), _lib.ERR_PARAM)
            fmt = r.format
            if not r.seekable:
                raise trz.TrzError("%s: no index, cannot split it into partitions" % p, _lib.ERR_UNSUPPORTED)
            first = count = 0
            for c_first, c_n in r.groups():
                if c_n == 0:
                    continue
                if count == 0:
                    first = c_first
                count += c_n
                if records_per_partition is None or count >= records_per_partition:
                    ranges.append((p, first, count))
                    count = 0
            if count:
                ranges.append((p, first, count))
    return ranges, fmt


_cache = threading.local()
_CACHE_MAX = 8


def _reader(path):
    """An open reader per (thread, file), kept between partitions: opening
    loads the index, which a worker would otherwise redo for every task."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size, st.st_ino)
    d = getattr(_cache, "readers", None)
    if d is None:
        d = _cache.readers = {}
    r = d.get(key)
    if r is None or r.closed:
        _forget(path)
        if len(d) >= _CACHE_MAX:
            d.pop(next(iter(d))).close()
        r = d[key] = trz.open(path)
    return r


def _forget(path):
    d = getattr(_cache, "readers", {})
    for k in [k for k in d if k[0] == path]:
        d.pop(k).close()


def _filter_mask(arr, fmt, flt):
    if callable(flt):
        return np.asarray(flt(arr), dtype=bool)
    names = {"instr": _records.RST_INSTR, "pavadiff": _records.RST_PAVADIFF, "physaddr": _records.RST_PHYSADDR}
    if fmt != "rst":
        raise ValueError("filter by rtype needs RST records; give a function of the record array instead")
    vals = flt if isinstance(flt, (list, tuple, set)) else [flt]
    want = [names[v.lower()] if isinstance(v, str) else int(v) for v in vals]
    return np.isin(arr["rtype"], want)


def _frame(arr, index, fields=None):
    import pandas as pd
    names = list(fields) if fields is not None else list(arr.dtype.names)
    cols = {}
    for n in names:
        col = arr[n]
        if col.dtype.kind == "S":
            col = col.astype(object)
        cols[n] = col
    return pd.DataFrame(cols, index=pd.Index(index, name="record"), columns=names)


def read_partition(path, first, count, fields=None, filter=None):
    """Records [first, first+count) of one archive as a pandas DataFrame
    indexed by record number (what read_records' tasks run on a worker).
    filter: an RST rtype name ("instr", "pavadiff", "physaddr"), number or
    list of them, or a function of the record array returning a mask."""
    r = _reader(path)
    need = fields
    if filter is not None and fields is not None:
        # an rtype filter reads one column more; a function may read any
        need = None if callable(filter) else list(fields) + ([] if "rtype" in fields else ["rtype"])
    try:
        arr, index = r.records_indexed(count, first, need)
    except Exception:
        _forget(path)  # reader errors are sticky: the next task starts afresh
        raise
    if filter is not None:
        m = _filter_mask(arr, r.format, filter)
        arr, index = arr[m], index[m]
    return _frame(arr, index, fields)


def read_records(paths, fields=None, records_per_partition=None, filter=None):
    """A Dask DataFrame of the records of one or more archives of one
    format (paths: a path, a glob pattern or a list), with one partition
    per range of whole groups of chunks (records_per_partition rounds up
    to whole groups; default one group per partition), indexed by record number in
    its archive.  Columns as trz.Reader.records gives them (fields picks
    some).  With one archive the divisions are known."""
    import dask.dataframe as dd
    ranges, fmt = chunk_ranges(paths, records_per_partition)
    dt = _records.dtype_of(fmt, fields)
    meta = _frame(np.empty(0, dtype=dt), np.empty(0, dtype=np.int64), fields)
    divisions = None
    if len({p for p, _, _ in ranges}) == 1 and ranges:
        divisions = tuple(f for _, f, _ in ranges) + (ranges[-1][1] + ranges[-1][2] - 1,)
    if not ranges:
        ranges = [(_expand(paths)[0], 0, 0)]
        divisions = None
    return dd.from_map(_read_range, ranges, args=(fields, filter), meta=meta, divisions=divisions,
                       label="trz-read", enforce_metadata=False)


def _read_range(rng, fields, filter):
    path, first, count = rng
    return read_partition(path, first, count, fields, filter)


# ---- compressing in parts --------------------------------------------------------------
_OPTS = ("level", "threads", "format", "chunk_records", "chunk_bytes", "backend", "unwrap", "verify",
         "restart_bytes", "chain", "parity")
_DEFAULT_CHUNK_BYTES = 16 << 20
_PARITY_SET = 32 << 20  # a writer ends a parity set once it holds this much trace (format.h TRZ_PARITY_SET)
# what the library unwraps whole (unwrap.c, drfile.c): gzip, zstd, xz,
# bzip2, zip, lz4, snappy; a part of such a file is no such file
_WRAPPED = (b"\x1f\x8b\x08", b"\x28\xb5\x2f\xfd", b"\xfd7zXZ\x00", b"BZh", b"PK\x03\x04", b"PK\x05\x06",
            b"\x04\x22\x4d\x18", b"\xff\x06\x00\x00sNaPpY")


def _probe(src, opts, tmpdir):
    """The codec, record size and group length a one-process run would
    choose: it probes at most the first MiB of the first chunk, so
    compressing that prefix with the same settings gives the same choice."""
    size = os.path.getsize(src)
    chunk = opts.get("chunk_bytes") or _DEFAULT_CHUNK_BYTES
    n = min(size, 1 << 20, chunk)
    out = os.path.join(tmpdir, "probe.trz")
    popts = dict(opts, threads=1, verify=False)
    got = trz.compress_range(src, 0, n, out, **popts)
    with trz.open(out) as r:
        rs = r.record_size
    os.unlink(out)
    return got["format"], rs, got["group_bytes"]


def _text_chunks(src, chunk_bytes, chunk_records):
    """End offsets and line counts of the chunks trz_compress cuts a text
    file into (writer.c: a chunk ends at the last newline within chunk_bytes
    unless the input ends there, then at most chunk_records lines), and
    whether each chunk ends at a line end."""
    size = os.path.getsize(src)
    ends, lines, at_nl = [], [], []
    if size == 0:
        return ends, lines, at_nl
    with open(src, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        pos, prev_nl = 0, True
        while pos < size:
            rem = size - pos
            ln = min(chunk_bytes, rem)
            take = ln
            if not rem < chunk_bytes:  # more may follow: end on a newline if one is there
                k = m.rfind(b"\n", pos, pos + ln)
                if k >= 0:
                    take = k + 1 - pos
            nl = m.count(b"\n", pos, pos + take) if hasattr(m, "count") else m[pos:pos + take].count(b"\n")
            last_nl = m[pos + take - 1] == 0x0A
            n_lines = nl + (0 if last_nl else 1) - (0 if prev_nl else 1) if take else 0
            if chunk_records and n_lines > chunk_records:
                # offset after the chunk_records-th line start past the first (trz_line_offset)
                want = chunk_records if prev_nl else chunk_records + 1
                q = pos
                for _ in range(want):
                    q = m.find(b"\n", q, pos + take) + 1
                take, n_lines = q - pos, chunk_records
                last_nl = True
            ends.append(pos + take)
            lines.append(n_lines)
            at_nl.append(bool(last_nl))
            prev_nl = last_nl
            pos += take
    return ends, lines, at_nl


def plan_parts(src, record_size, n_parts=None, part_records=None, chunk_bytes=None, chunk_records=0,
               group_bytes=0, parity=True):
    """Byte ranges [(offset, length)] to compress separately so that, joined,
    they are the archive a one-process run writes: every part but the last
    is a whole number of chunks (records or lines) ending at a line end,
    and with group_bytes (trz_cctx_group_bytes: the one-process run's
    groups carry knowledge or chain) every part starts where that run
    starts a group and holds two chunks or more (a member of one chunk
    has no groups).  So an input of fewer groups than n_parts gets fewer
    parts, and one of one group a single part.  With parity (the default)
    every part also starts a parity set (FORMAT.md, "Parity": a set ends
    once it holds 32 MiB of trace, and before each group), so without
    groups parts are whole sets."""
    size = os.path.getsize(src)
    chunk_bytes = chunk_bytes or _DEFAULT_CHUNK_BYTES
    if record_size == 0:
        ends, lines, at_nl = _text_chunks(src, chunk_bytes, chunk_records)
        per_chunk = lines
    else:
        per = chunk_bytes // record_size if record_size > 1 else chunk_bytes
        if chunk_records:
            per = min(per, chunk_records)
        step = per * record_size
        whole = size // record_size * record_size if record_size > 1 else size
        ends = list(range(step, whole, step)) + [size]
        per_chunk = [per] * len(ends)
        at_nl = [True] * len(ends)
    if not ends:
        return [(0, size)]
    # where the one-process run starts groups (writer.c: at the first chunk
    # and at each chunk that would take its group past group_bytes)
    cut_ok, start, have, sraw = [], 0, 0, 0
    for i, end in enumerate(ends):
        n = end - start
        if group_bytes:
            new = i == 0 or have + n > group_bytes
            have = n if new else have + n
        else:
            new = True
        if parity:  # (writer.c, parity.c: where a one-process run ends its parity sets)
            set_start = i == 0 or sraw >= _PARITY_SET or (group_bytes and new)
            sraw = n if set_start else sraw + n
            new = new and set_start
        cut_ok.append(i > 0 and new and at_nl[i - 1])
        start = end
    if part_records is None:
        n_parts = max(1, n_parts or 1)
        target = math.ceil(sum(per_chunk) / n_parts)
    else:
        target = max(1, int(part_records))
    cuts, have = [0], 0  # chunk indices that start parts
    for i, n in enumerate(per_chunk):
        if have >= target and cut_ok[i]:
            cuts.append(i)
            have = 0
        have += n
    if group_bytes:  # a part of one chunk would be a member without groups: it joins its neighbour
        bounds = cuts + [len(ends)]
        keep = [0] + [c for j, c in enumerate(cuts[1:], 1) if bounds[j] - bounds[j - 1] > 1]
        if len(keep) > 1 and bounds[-1] - keep[-1] < 2:
            keep.pop()
        cuts = keep
    offs = [0 if c == 0 else ends[c - 1] for c in cuts] + [size]
    return [(offs[j], offs[j + 1] - offs[j]) for j in range(len(cuts))]


def _compress_part(src, offset, length, dst, opts):
    return trz.compress_range(src, offset, length, dst, **opts)


def compress_parallel(src, dst, client, part_records=None, **opts):
    """Compress the raw trace src into the archive dst on the workers of a
    distributed.Client: cut src into parts where a one-process run starts
    a group of chunks (its knowledge or chain starts afresh there: FORMAT.md
    "Knowledge", "Chains"), compress each part on a worker into a temporary
    directory beside dst, join the parts into dst (one member, one index)
    and remove them.  The result is byte for byte the archive one process
    writes with the same options.  An input of fewer groups than parts
    wanted gets fewer parts; one of one group (64-176 MiB of trace by
    default, the format's chain length) is compressed in one task, as is
    input that is compressed (gzip, zstd, xz, bzip2, a zip, lz4 or
    snappy) or whose parts the codec reads with different byte orders.
    part_records: records (lines) per part,
    rounded up to whole groups (default: about two parts per worker).
    opts: as trz.compress (level, threads per part, format, chunk_records,
    chunk_bytes, backend, verify, restart_bytes, chain, parity); a shorter
    restart_bytes gives more, smaller groups to spread.  Returns
    {'format', 'byte_order', 'parts'} (and 'note' when in one task)."""
    bad = [k for k in opts if k not in _OPTS]
    if bad:
        raise TypeError("unknown option(s): %s" % ", ".join(bad))
    src, dst = os.path.abspath(os.fspath(src)), os.path.abspath(os.fspath(dst))
    if not os.path.isfile(src):
        raise trz.TrzError("%s: %s" % (src, os.strerror(2)), _lib.ERR_IO)
    with open(src, "rb") as f:
        head = f.read(10)
    if opts.get("unwrap", True) and any(head.startswith(m) for m in _WRAPPED):
        return _whole(client, src, dst, opts, "compressed input")
    tmpdir = tempfile.mkdtemp(prefix="." + os.path.basename(dst) + ".parts-", dir=os.path.dirname(dst))
    try:
        fmt, rs, group = _probe(src, opts, tmpdir)
        nworkers = max(1, len(client.scheduler_info().get("workers", {})))
        ranges = plan_parts(src, rs, 2 * nworkers, part_records, opts.get("chunk_bytes"),
                            opts.get("chunk_records", 0), group, opts.get("parity", True))
        if len(ranges) == 1:
            return _whole(client, src, dst, opts, "one group of chunks, or one chunk")
        names = [os.path.join(tmpdir, "part%06d.trz" % i) for i in range(len(ranges))]
        # Part 0 chooses as a one-process run would; the others take its
        # codec, and never unwrap (a part may begin with gzip's magic bytes).
        popts = [dict(opts)] + [dict(opts, format=fmt, unwrap=False) for _ in ranges[1:]]
        futs = client.map(_compress_part, [src] * len(ranges), [o for o, _ in ranges], [n for _, n in ranges],
                          names, popts, pure=False)
        got = client.gather(futs)
        if any((g["format"], g["byte_order"]) != (got[0]["format"], got[0]["byte_order"]) for g in got):
            return _whole(client, src, dst, opts, "parts differ in byte order")
        trz.join(names, dst)
        return {"format": got[0]["format"], "byte_order": got[0]["byte_order"], "parts": len(names)}
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def _whole(client, src, dst, opts, why):
    got = client.submit(trz.compress, src, dst, pure=False, **opts).result()
    return dict(got, parts=1, note="compressed in one task: " + why)

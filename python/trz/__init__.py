"""trz - Python access to trz archives of computer-architecture traces
through libtrz (ctypes; nothing to compile beyond the C library).

    import trz
    with trz.open("run.rst.trz") as r:      # r.info: format, record_size, byte_order, records, chunks, ...
        a = r.records()                      # numpy structured array, host byte order
        r.seek(1_000_000); raw = r.read(10)  # bytes of 10 whole records
        for batch in r.batches(65536): ...   # bytes (numpy=True: arrays) from the position on
    trz.compress("run.rst", "run.rst.trz", level=9, threads=2)
    trz.decompress("run.rst.trz", "copy.rst")

Failures raise trz.TrzError with the library's message.  trz.dask holds
the Dask integration (read_records, compress_parallel)."""

import collections
import ctypes
import operator
import os
import tempfile

try:
    import numpy as np
except ImportError:  # compress, decompress, join, info and reading bytes work without it
    np = None

from . import _lib
from ._lib import lib
from ._version import __version__  # noqa: F401


def _numpy():
    if np is None:
        raise ImportError("trz: numpy is needed for records() and batches(numpy=True) "
                          "(pip install numpy, or Debian's python3-numpy); compress, decompress, join, "
                          "read, read_bytes and batches of bytes work without it")
    return np


def _recs():
    """_records, the numpy decoders, imported when first needed."""
    _numpy()
    from . import _records
    return _records

__all__ = ["TrzError", "Reader", "ArchiveInfo", "open", "records", "fields", "compress", "compress_range",
           "decompress", "join", "formats", "version", "library_path"]

version = _lib.text(lib.trz_version_string())
library_path = _lib.path
_BYTE_ORDER = {_lib.BYTE_ORDER_NONE: None, _lib.BYTE_ORDER_LITTLE: "little", _lib.BYTE_ORDER_BIG: "big"}


class TrzError(Exception):
    """A libtrz failure: .code is the negative trz_result, str() the message."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


def _fail(code, message=""):
    raise TrzError(message or _lib.text(lib.trz_strerror(code)), code)


def formats():
    """Names of the codecs this library knows ("raw", "rst", ...)."""
    out, i = [], 0
    while True:
        name = lib.trz_format_name(i)
        if not name:
            return out
        out.append(_lib.text(name))
        i += 1


def _path(p):
    return os.fsencode(p)


class ArchiveInfo(collections.namedtuple(
        "ArchiveInfo",
        "format record_size byte_order records chunks raw_bytes compressed_bytes members seekable unwrapped")):
    """An archive's metadata: format (codec name, "mixed" when members
    differ), record_size (0 for text: records are lines), byte_order ("big",
    "little" or None), records, chunks, raw_bytes, compressed_bytes, members
    (-1 where unknown), seekable (the index was loaded), unwrapped ("gzip",
    "zstd", "xz" or "bzip2" when the input came compressed and the archive
    holds the trace inside, else None)."""


_U64 = (1 << 64) - 1
_STEP = 1 << 20  # records read at once where the count left is unknown (a pipe)
_INSIDE = "position is inside a record: read the rest with read_bytes() or seek()"


def _count_arg(n, what="n"):
    """A count: a non-negative integer (numpy's too), or None."""
    if n is None:
        return None
    n = operator.index(n)
    if n < 0:
        raise ValueError("%s must be >= 0, not %d" % (what, n))
    return n


class Reader:
    """An open .trz archive.  Positions count records (lines for text
    formats): tell() is the number of the next record that starts at or
    after the position, which read_bytes() moves by bytes, so that it may
    stand inside a record; read(), records() and batches() hand out whole
    records and raise TrzError there (read the rest with read_bytes(), or
    seek()).  Not for use by two threads at once.  threads: the decoding
    threads (0: every core); overlap=True with threads=1 decodes the next
    chunk in a background thread while the caller works on the last one
    (two chunks' memory instead of one; no effect with 2 threads or more,
    which decode ahead anyway)."""

    def __init__(self, source, threads=1, overlap=False):
        self._r = ctypes.c_void_p()
        self._keep = None
        if isinstance(source, (bytes, bytearray, memoryview)) and bytes(source[:4]) == b"\x89TRZ":
            self._keep = (ctypes.c_char * len(source)).from_buffer_copy(source)
            rc = lib.trz_reader_open_mem(ctypes.byref(self._r), self._keep, len(source))
            self.name = "<memory>"
        else:
            self.name = os.fspath(source)
            rc = lib.trz_reader_open_path(ctypes.byref(self._r), _path(source))
        if rc:
            msg = _lib.text(lib.trz_reader_error(self._r)) if self._r else ""
            lib.trz_reader_close(self._r)
            self._r = None
            _fail(rc, "%s: %s" % (self.name, msg or _lib.text(lib.trz_strerror(rc))))
        if threads != 1:
            self._check(lib.trz_reader_set(self._r, _lib.R_THREADS, threads))
        if overlap:
            self._check(lib.trz_reader_set(self._r, _lib.R_OVERLAP, 1))
        info = _lib.Info()
        self._check(lib.trz_reader_info(self._r, ctypes.byref(info)))
        self.info = ArchiveInfo(_lib.text(info.format), info.record_size, _BYTE_ORDER.get(info.byte_order),
                                info.records, info.chunks, info.raw_bytes, info.compressed_bytes, info.members,
                                bool(info.seekable), _lib.text(info.unwrapped) if info.unwrapped else None)
        self.format, self.record_size, self.byte_order = self.info.format, info.record_size, self.info.byte_order
        self.raw_bytes, self.compressed_bytes = info.raw_bytes, info.compressed_bytes
        self.members, self.seekable = info.members, self.info.seekable
        self.n_records = info.records  # -1 when unknown (a pipe); also self.info.records and len()
        self.n_chunks = info.chunks    # the same as self.info.chunks
        self._bo = info.byte_order
        # text formats: the position is at a line start (the byte before it
        # is a newline); read_bytes() may leave it inside a line
        self._at_line = True

    # ---- plumbing ----
    def _check(self, rc):
        if rc < 0:
            self._raise(rc)
        return rc

    def _raise(self, rc):
        msg = _lib.text(lib.trz_reader_error(self._r)) if self._r else ""
        _fail(rc, "%s: %s" % (self.name, msg or _lib.text(lib.trz_strerror(rc))))

    def _live(self):
        if not self._r:
            raise ValueError("I/O operation on a closed trz reader")
        return self._r

    @property
    def closed(self):
        return not self._r

    @property
    def mended(self):
        """Chunks whose stored data was damaged and that the reader mended
        from their parity set so far (their records came out as written;
        the file itself is damaged all the same)."""
        return int(lib.trz_reader_mended(self._live(), None))

    def close(self):
        if self._r:
            lib.trz_reader_close(self._r)
            self._r = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return "<trz.Reader %s format=%s records=%s chunks=%s>" % (self.name, self.format, self.n_records,
                                                                   self.n_chunks)

    # ---- metadata ----
    def __len__(self):
        if self.n_records < 0:
            raise TypeError("record count unknown (no index)")
        return self.n_records

    def chunk_info(self, i):
        """One chunk's index entry as a dict."""
        c = _lib.ChunkInfo()
        self._check(lib.trz_reader_chunk(self._live(), i, ctypes.byref(c)))
        return {"first_record": c.first_record, "records": c.records, "first_byte": c.first_byte,
                "raw_bytes": c.raw_bytes, "offset": c.offset, "stored_bytes": c.stored_bytes,
                "format": _lib.text(c.format)}

    def chunks(self):
        """[(first_record, n_records)] for every chunk, from the index."""
        c = _lib.ChunkInfo()
        out = []
        r = self._live()
        for i in range(max(self.n_chunks, 0)):
            self._check(lib.trz_reader_chunk(r, i, ctypes.byref(c)))
            out.append((c.first_record, c.records))
        return out

    def groups(self):
        """[(first_record, n_records)] for every group of chunks, from the
        index: a chunk's models start from what its group's earlier chunks
        left, so a seek decodes from its group's first chunk and a group is
        what a worker reads best on its own.  A chunk that stands alone, or
        that starts from its group's knowledge alone (a seek reads only the
        knowledge before it), is a group of one here."""
        c = _lib.ChunkInfo()
        out = []
        r = self._live()
        for i in range(max(self.n_chunks, 0)):
            self._check(lib.trz_reader_chunk(r, i, ctypes.byref(c)))
            chained = ctypes.c_int(0)
            g = lib.trz_reader_chunk_group(r, i, ctypes.byref(chained))
            if g < 0:
                self._check(int(g))
            if g == i or not chained.value or not out:
                out.append((c.first_record, c.records))
            else:
                out[-1] = (out[-1][0], out[-1][1] + c.records)
        return out

    def cpus(self):
        """Distinct CPUs in the whole trace (decodes every chunk); 0 when the
        format has none."""
        return self._check(lib.trz_reader_cpus(self._live()))

    # ---- position ----
    def tell(self):
        """The number of the next record (line) that starts at or after the
        position: the library's own count, whatever was read before."""
        return lib.trz_tell(self._live())

    def seek(self, record):
        """Go to record (line) `record`; negative counts from the end.  A
        number past the end raises TrzError (ERR_RANGE), as does one that
        does not fit in 64 bits: it is never wrapped."""
        record = operator.index(record)
        if record < 0:
            if self.n_records < 0:
                raise TrzError("cannot seek from the end: record count unknown", _lib.ERR_UNSUPPORTED)
            record += self.n_records
            if record < 0:
                raise TrzError("%s: record %d is before the start" % (self.name, record - self.n_records),
                               _lib.ERR_RANGE)
        if record > _U64:
            raise TrzError("%s: record %d is past the end" % (self.name, record), _lib.ERR_RANGE)
        rc = lib.trz_seek(self._live(), record)
        if rc == _lib.ERR_RANGE and not self.seekable:
            self._at_line = True  # a pipe read to its end looking for it
        self._check(rc)
        self._at_line = True
        return self.tell()

    # ---- bytes ----
    def read_bytes(self, n):
        """Up to n decoded bytes from the position, record boundaries ignored
        (b'' at the end).  Fewer than n only at the end: damage met on the
        way raises, rather than a short read that looks like the end.  A
        large n costs only what is there: the bytes come in pieces of at
        most 16 MiB."""
        n = _count_arg(n)
        r, parts, left = self._live(), [], n
        while left > 0:
            step = min(left, 1 << 24)
            buf = ctypes.create_string_buffer(step)
            self._at_line = False  # until the bytes are in (a KeyboardInterrupt leaves it so)
            got = 0
            while got < step:  # a short count is the end, or an error the next call returns
                k = lib.trz_read_bytes(r, ctypes.byref(buf, got), step - got)
                if k < 0:
                    self._raise(k)
                if k == 0:
                    break
                got += k
            if got:
                parts.append(buf.raw[:got])
            if got < step:  # the end
                self._at_line = True
                break
            self._at_line = parts[-1].endswith(b"\n")
            left -= got
        return b"".join(parts)

    def _remaining(self):
        return None if self.n_records < 0 else max(self.n_records - self.tell(), 0)

    def _no_mixed(self):
        if self.format == "mixed":
            # Concatenated members of different formats or byte orders have no
            # one record size: each member counts records in its own unit.
            raise TrzError("%s: its members differ in format or byte order: read records from each member's "
                           "own archive, or bytes with read_bytes()" % self.name, _lib.ERR_UNSUPPORTED)

    def _count(self, n, read, join):
        """n capped at the records left, so that a huge n allocates no more
        than there is to read; where that is unknown (a pipe) and n is
        larger than a step, read(step) until n or the end, join(parts)."""
        self._no_mixed()
        n = _count_arg(n)
        left = self._remaining()
        if left is not None:
            return (left if n is None else min(n, left)), None
        if n is not None and n <= _STEP:
            return n, None
        parts, want = [], n
        while want is None or want > 0:
            part = read(_STEP if want is None else min(want, _STEP))
            if len(part) == 0:
                break
            parts.append(part)
            if want is not None:
                want -= len(part) // self.record_size
        return None, join(parts)

    def _fill(self, ptr, n):
        """Read up to n records to address ptr; returns how many came."""
        got, r, rs = 0, self._live(), self.record_size
        while got < n:
            # A short count is the end, or an error that the next call reports
            # (errors are sticky): never hand out a silently shortened result.
            k = lib.trz_read(r, ptr + got * rs, n - got)
            if k < 0:
                self._raise(k)
            if k == 0:
                break
            got += k
        return got

    def _read_into(self, n):
        """n records (fewer at the end) as a uint8 numpy array."""
        n, whole = self._count(n, self._read_into,
                               lambda parts: np.concatenate(parts) if parts else np.empty(0, np.uint8))
        if n is None:
            return whole
        rs = self.record_size
        buf = _numpy().empty(n * rs, dtype=np.uint8)
        got = self._fill(buf.ctypes.data, n)
        return buf[:got * rs] if got < n else buf

    def _read_lines(self, n):
        """Up to n whole lines (the last line of the file may lack '\\n'),
        span by span (trz_read_span): the library's position is the only
        one, and at a line start after each call."""
        self._no_mixed()
        n = _count_arg(n)
        if not self._at_line:
            _fail(_lib.ERR_PARAM, "%s: %s" % (self.name, _INSIDE))
        r, parts, left = self._live(), [], _U64 if n is None else min(n, _U64)
        data, recs = ctypes.c_void_p(), ctypes.c_uint64()
        while True:
            # with no line left to start, a span hands out the rest of the
            # last one (when it goes on in the next chunk), then 0
            self._at_line = False
            g = lib.trz_read_span(r, ctypes.byref(data), left, ctypes.byref(recs))
            if g < 0:
                self._raise(g)
            if g == 0:
                break
            parts.append(ctypes.string_at(data.value, g))
            self._at_line = parts[-1].endswith(b"\n")
            left -= recs.value
        self._at_line = True
        return b"".join(parts)

    def _read_records(self, n):
        """The bytes of n whole records (fewer at the end), without numpy."""
        n, whole = self._count(n, self._read_records, b"".join)
        if n is None:
            return whole
        rs = self.record_size
        buf = bytearray(n * rs)
        view = (ctypes.c_char * len(buf)).from_buffer(buf) if buf else None
        try:
            got = self._fill(ctypes.addressof(view) if buf else 0, n)
        finally:
            del view  # releases the export, so that the bytearray can shrink
        if got < n:
            del buf[got * rs:]
        return bytes(buf)

    def read(self, n=None):
        """Bytes of the next n whole records (n lines for text formats); all
        the rest when n is None; b'' at the end.  A partial last record of
        the source is never returned (read_bytes returns it).  Needs no
        numpy."""
        if self.record_size == 0:
            return self._read_lines(n)
        return self._read_records(n)

    def batches(self, n=65536, numpy=False, fields=None):
        """Iterate from the current position to the end in batches of n
        records (lines): bytes, or structured arrays as records() gives them
        with numpy=True."""
        if numpy and fields is not None:
            self.dtype(fields)
        while True:
            if self.record_size == 0:
                data = self._read_lines(n)
                if not data:
                    return
                yield self._decode_text(data, fields) if numpy else data
            elif numpy:
                buf = self._read_into(n)
                if len(buf) == 0:
                    return
                yield self._decode(buf, fields)
            else:
                data = self.read(n)
                if not data:
                    return
                yield data

    def __iter__(self):
        return self.batches()

    # ---- numpy ----
    def dtype(self, fields=None):
        return _recs().dtype_of(self.format, fields)

    def records(self, n=None, start=None, fields=None):
        """The next n records (all the rest when None), from `start` if given,
        as a numpy structured array with named fields in host byte order:
        rst, byu, pbus, uop, champsim, champsim-cloudsuite and drmemtrace have
        field layouts (see trz.fields(); ChampSim's as the simulator's structs); other
        formats come back as plain uint8 arrays of bytes."""
        if start is not None:
            self.seek(start)
        if fields is not None:
            self.dtype(fields)  # validate the names before reading
        if self.record_size == 0:
            return self._decode_text(self._read_lines(n), fields)
        return self._decode(self._read_into(n), fields)

    def records_indexed(self, n=None, start=None, fields=None):
        """(records(n, start, fields), their record numbers): the numbers
        differ from a plain range only where text lines were skipped (a
        uop header)."""
        if start is not None:
            self.seek(start)
        first = self.tell()
        if self.record_size == 0 and self.format == "uop":
            if fields is not None:
                self.dtype(fields)
            try:
                a, lines = _recs().decode_uop(self._read_lines(n), fields, with_lines=True)
            except _recs().ParseError as e:
                raise TrzError("%s: %s" % (self.name, e), _lib.ERR_PARAM) from None
            return a, lines + first
        a = self.records(n, None, fields)
        return a, np.arange(first, first + len(a), dtype=np.int64)

    def _decode(self, buf, fields):
        dec = _recs().DECODERS.get(self.format)
        return buf if dec is None else dec(buf, self._bo, fields)

    def _decode_text(self, data, fields):
        if self.format != "uop":
            return np.frombuffer(data, dtype=np.uint8)
        try:
            return _recs().decode_uop(data, fields)
        except _recs().ParseError as e:
            raise TrzError("%s: %s" % (self.name, e), _lib.ERR_PARAM) from None


def open(source, threads=1, overlap=False):  # noqa: A001 - mirrors builtins.open on purpose
    """Open a .trz archive by path (or from bytes holding one); threads and
    overlap as Reader's."""
    return Reader(source, threads=threads, overlap=overlap)


def records(path, n=None, start=None, fields=None):
    """trz.open(path).records(n, start, fields), closing the archive."""
    with Reader(path) as r:
        return r.records(n, start, fields)


def fields(fmt):
    """Field names records() gives for a format."""
    return _recs().FIELDS.get(fmt, ())


# ---- whole files -----------------------------------------------------------------
_BACKENDS = {"zstd": _lib.BACKEND_ZSTD, "zlib": _lib.BACKEND_GZIP, "gzip": _lib.BACKEND_GZIP}  # gzip: zlib's old name


def _cctx(level=9, threads=1, format="auto", chunk_records=0, chunk_bytes=None, backend="zstd",
          unwrap=True, verify=True, restart_bytes=None, chain=True, parity=True):
    c = lib.trz_cctx_create()
    if not c:
        raise MemoryError("trz_cctx_create")
    try:
        settings = [(_lib.C_LEVEL, level, "level"), (_lib.C_THREADS, threads, "threads"),
                    (_lib.C_CHUNK_RECORDS, chunk_records, "chunk_records"),
                    (_lib.C_UNWRAP, int(bool(unwrap)), "unwrap"), (_lib.C_VERIFY, int(bool(verify)), "verify"),
                    (_lib.C_CHAIN, int(bool(chain)), "chain"), (_lib.C_PARITY, int(bool(parity)), "parity")]
        if chunk_bytes is not None:
            settings.append((_lib.C_CHUNK_BYTES, chunk_bytes, "chunk_bytes"))
        if restart_bytes is not None:
            settings.append((_lib.C_RESTART_BYTES, restart_bytes, "restart_bytes"))
        if backend not in _BACKENDS:
            raise TrzError("unknown backend %r (zstd or zlib)" % (backend,), _lib.ERR_PARAM)
        settings.append((_lib.C_BACKEND, _BACKENDS[backend], "backend"))
        for param, value, name in settings:
            rc = lib.trz_cctx_set(c, param, int(value))
            if rc:
                _fail(rc, "bad %s: %r" % (name, value))
        rc = lib.trz_cctx_set_format(c, (format or "auto").encode())
        if rc:
            _fail(rc, "unknown format %r (known: auto, %s)" % (format, ", ".join(formats())))
    except BaseException:
        lib.trz_cctx_free(c)
        raise
    return c


def _cctx_fail(c, rc, what):
    msg = _lib.text(lib.trz_cctx_error(c))
    if not msg:
        err = ctypes.get_errno()
        msg = os.strerror(err) if rc == _lib.ERR_IO and err else _lib.text(lib.trz_strerror(rc))
    _fail(rc, "%s: %s" % (what, msg))


def compress(src, dst, level=9, threads=1, format="auto", chunk_records=0, chunk_bytes=None, backend="zstd",
             unwrap=True, verify=True, restart_bytes=None, chain=True, parity=True):
    """Compress the file src into the archive dst (created or replaced;
    removed on failure).  Returns {'format', 'byte_order'} as chosen.
    chunk_bytes: raw bytes per chunk (default 16 MiB, drmemtrace 6 MiB); chunk_records caps
    the records (lines) per chunk; unwrap: gzip/zstd input is unpacked
    first; verify: every chunk is decoded back after encoding;
    restart_bytes: the chunks' models start afresh every this many bytes
    of trace (default 256 MiB; 0: every chunk on its own); chain: within
    such a group each chunk continues the models of the chunk before, for
    the formats whose models chain (False: archives trz 0.12-0.15 read);
    parity: every 32 MiB of trace the parity of the chunks' stored data,
    from which a reader mends a damaged stretch (False: archives trz
    0.18-0.21 read)."""
    for p in (src,):
        if not os.path.exists(p):
            raise TrzError("%s: %s" % (p, os.strerror(2)), _lib.ERR_IO)
    c = _cctx(level, threads, format, chunk_records, chunk_bytes, backend, unwrap, verify, restart_bytes, chain,
              parity)
    try:
        ctypes.set_errno(0)
        rc = lib.trz_compress_path(c, _path(src), _path(dst))
        if rc:
            _cctx_fail(c, rc, "%s -> %s" % (os.fspath(src), os.fspath(dst)))
        return {"format": _lib.text(lib.trz_cctx_format(c)),
                "byte_order": _BYTE_ORDER.get(lib.trz_cctx_byte_order(c))}
    finally:
        lib.trz_cctx_free(c)


def compress_range(src, offset, length, dst, **opts):
    """Compress bytes [offset, offset+length) of the file src into dst, as
    trz.compress does a whole file (compress_parallel's parts)."""
    fd = os.open(src, os.O_RDONLY)
    state = {"pos": offset, "end": offset + length}

    def _read(opaque, buf, n):
        try:
            k = min(n, state["end"] - state["pos"])
            if k <= 0:
                return 0
            got = os.preadv(fd, [memoryview((ctypes.c_char * k).from_address(buf)).cast("B")], state["pos"])
            state["pos"] += got
            return got
        except OSError:
            return -1

    cb_read = _lib.READ_FN(_read)
    c = _cctx(**opts)
    try:
        tmp = _tmp_beside(dst)
        try:
            ofd = ctypes.c_int(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
            try:
                out = _lib.Io()
                lib.trz_io_fd(ctypes.byref(out), ctypes.byref(ofd))
                inp = _lib.Io(read=cb_read)
                ctypes.set_errno(0)
                rc = lib.trz_compress(c, ctypes.byref(inp), ctypes.byref(out))
            finally:
                os.close(ofd.value)
            if rc:
                _cctx_fail(c, rc, "%s [%d, +%d) -> %s" % (os.fspath(src), offset, length, os.fspath(dst)))
            os.replace(tmp, dst)
        except BaseException:
            _unlink(tmp)
            raise
        chains = ctypes.c_int(0)
        group = lib.trz_cctx_group_bytes(c, ctypes.byref(chains))
        # group_bytes: where a one-process run starts its groups (trz.dask cuts there)
        return {"format": _lib.text(lib.trz_cctx_format(c)),
                "byte_order": _BYTE_ORDER.get(lib.trz_cctx_byte_order(c)),
                "group_bytes": group, "chains": bool(chains.value)}
    finally:
        lib.trz_cctx_free(c)
        os.close(fd)


def decompress(src, dst, threads=1):
    """Decompress the archive src into the file dst (removed on failure)."""
    err = ctypes.create_string_buffer(512)
    ctypes.set_errno(0)
    rc = lib.trz_decompress_path(_path(src), _path(dst), threads, err, len(err))
    if rc:
        _fail(rc, _lib.text(err.value) or "%s: %s" % (os.fspath(src), _lib.text(lib.trz_strerror(rc))))


def _tmp_beside(dst):
    d, b = os.path.split(os.path.abspath(os.fspath(dst)))
    fd, tmp = tempfile.mkstemp(prefix="." + b + ".", suffix=".tmp", dir=d)
    os.close(fd)
    return tmp


def _unlink(p):
    try:
        os.unlink(p)
    except OSError:
        pass


def join(parts, dst):
    """Join archives into one archive dst with one member and one index (the
    chunks are copied, not re-encoded), so that it lists, seeks and tests as
    if one process had written it.  All parts need the same format and byte
    order.  Text parts cut inside a line join up (the line counts once);
    after a part that ends in a partial record a new member starts.  dst
    decodes to the parts one after another; it is written through a
    temporary file, decoded and checked, and renamed."""
    parts = [os.fspath(p) for p in parts]
    arr = (ctypes.c_char_p * len(parts))(*[_path(p) for p in parts])
    err = ctypes.create_string_buffer(512)
    tmp = _tmp_beside(dst)
    try:
        fd = ctypes.c_int(os.open(tmp, os.O_WRONLY | os.O_TRUNC))
        try:
            io = _lib.Io()
            lib.trz_io_fd(ctypes.byref(io), ctypes.byref(fd))
            rc = lib.trz_join(arr, len(parts), ctypes.byref(io), err, len(err))
            if rc == 0:
                os.fsync(fd.value)
        finally:
            os.close(fd.value)
        if rc:
            _fail(rc, _lib.text(err.value) or _lib.text(lib.trz_strerror(rc)))
        try:  # dst takes its name only once it decodes, as `trz join` checks it
            with Reader(tmp) as r:
                while r.read_bytes(1 << 24):
                    pass
                if r.mended:  # join copies bytes, and never a damaged one
                    _fail(-6, "%s: chunk damaged (mendable from its parity: decompress the damaged input and "
                          "compress it again)" % (tmp,))
        except TrzError as e:
            _fail(e.code, "%s: the joined archive does not decode (%s)" % (os.fspath(dst), str(e).split(": ", 1)[-1]))
        os.chmod(tmp, 0o644)
        os.replace(tmp, dst)
    except BaseException:
        _unlink(tmp)
        raise

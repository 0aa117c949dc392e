"""_lib.py - load libtrz.so through ctypes and declare the C functions of
include/trz.h that the binding uses.  The library is found through the
TRZ_LIBRARY environment variable, then in the repository root next to
python/, then wherever ctypes.util.find_library finds "trz"."""

import ctypes
import ctypes.util
import os

c_int, c_int64, c_uint64, c_size_t = ctypes.c_int, ctypes.c_int64, ctypes.c_uint64, ctypes.c_size_t
c_char_p, c_void_p, POINTER = ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER

READ_FN = ctypes.CFUNCTYPE(c_int64, c_void_p, c_void_p, c_size_t)
WRITE_FN = ctypes.CFUNCTYPE(c_int64, c_void_p, c_void_p, c_size_t)
SEEK_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_uint64)
SIZE_FN = ctypes.CFUNCTYPE(c_int64, c_void_p)


class Io(ctypes.Structure):
    """struct trz_io: the read/write/seek/size callbacks."""
    _fields_ = [("opaque", c_void_p), ("read", READ_FN), ("write", WRITE_FN),
                ("seek", SEEK_FN), ("size", SIZE_FN)]


class Info(ctypes.Structure):
    """struct trz_info."""
    _fields_ = [("format", c_char_p), ("record_size", ctypes.c_uint32), ("byte_order", c_int),
                ("seekable", c_int), ("records", c_int64), ("raw_bytes", c_int64),
                ("compressed_bytes", c_int64), ("chunks", c_int64), ("members", c_int64),
                ("unwrapped", c_char_p)]


class ChunkInfo(ctypes.Structure):
    """struct trz_chunk_info."""
    _fields_ = [("first_record", c_uint64), ("records", c_uint64), ("first_byte", c_uint64),
                ("raw_bytes", c_uint64), ("offset", c_uint64), ("stored_bytes", c_uint64),
                ("format", c_char_p)]


# enum values from trz.h
ERR_IO, ERR_PARAM, ERR_UNSUPPORTED, ERR_RANGE = -1, -9, -10, -11
BYTE_ORDER_NONE, BYTE_ORDER_LITTLE, BYTE_ORDER_BIG = 0, 1, 2
C_LEVEL, C_THREADS, C_BACKEND, C_CHUNK_BYTES, C_CHUNK_RECORDS, C_UNWRAP, C_VERIFY, C_RESTART_BYTES = 1, 2, 3, 4, 5, 6, 7, 8
C_CHAIN = 9
C_PARITY = 10
R_THREADS, R_HOST_ORDER, R_SALVAGE, R_OVERLAP = 1, 2, 3, 4
BACKEND_ZSTD, BACKEND_GZIP = 1, 2

_PROTOS = {
    # name: (restype, argtypes)
    "trz_version_string": (c_char_p, []),
    "trz_strerror": (c_char_p, [c_int]),
    "trz_io_fd": (c_int, [POINTER(Io), POINTER(c_int)]),
    "trz_format_name": (c_char_p, [c_size_t]),
    "trz_cctx_create": (c_void_p, []),
    "trz_cctx_free": (None, [c_void_p]),
    "trz_cctx_set": (c_int, [c_void_p, c_int, c_int64]),
    "trz_cctx_set_format": (c_int, [c_void_p, c_char_p]),
    "trz_compress": (c_int, [c_void_p, POINTER(Io), POINTER(Io)]),
    "trz_cctx_format": (c_char_p, [c_void_p]),
    "trz_cctx_byte_order": (c_int, [c_void_p]),
    "trz_cctx_group_bytes": (c_uint64, [c_void_p, POINTER(c_int)]),
    "trz_cctx_error": (c_char_p, [c_void_p]),
    "trz_reader_open_path": (c_int, [POINTER(c_void_p), c_char_p]),
    "trz_reader_open_fd": (c_int, [POINTER(c_void_p), c_int]),
    "trz_reader_open_mem": (c_int, [POINTER(c_void_p), c_void_p, c_size_t]),
    "trz_reader_close": (None, [c_void_p]),
    "trz_reader_error": (c_char_p, [c_void_p]),
    "trz_reader_set": (c_int, [c_void_p, c_int, c_int64]),
    "trz_reader_info": (c_int, [c_void_p, POINTER(Info)]),
    "trz_reader_cpus": (c_int, [c_void_p]),
    "trz_reader_mended": (c_uint64, [c_void_p, POINTER(c_uint64)]),
    "trz_reader_chunk": (c_int, [c_void_p, c_uint64, POINTER(ChunkInfo)]),
    "trz_reader_chunk_group": (c_int64, [c_void_p, c_uint64, POINTER(c_int)]),
    "trz_read": (c_int64, [c_void_p, c_void_p, c_size_t]),
    "trz_read_bytes": (c_int64, [c_void_p, c_void_p, c_size_t]),
    "trz_seek": (c_int, [c_void_p, c_uint64]),
    "trz_tell": (c_uint64, [c_void_p]),
    "trz_read_span": (c_int64, [c_void_p, POINTER(c_void_p), c_uint64, POINTER(c_uint64)]),
    "trz_join": (c_int, [POINTER(c_char_p), c_size_t, POINTER(Io), c_char_p, c_size_t]),
    "trz_compress_path": (c_int, [c_void_p, c_char_p, c_char_p]),
    "trz_decompress_path": (c_int, [c_char_p, c_char_p, c_int, c_char_p, c_size_t]),
}


def _candidates():
    """Where libtrz.so may be, in order: TRZ_LIBRARY (then nothing else),
    beside this package (an installed copy), the source tree this package
    sits in (after `make`), and the system's loader."""
    env = os.environ.get("TRZ_LIBRARY")
    if env:
        yield env
        return  # an explicit choice is not second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libtrz.so")
    yield os.path.join(os.path.dirname(os.path.dirname(here)), "libtrz.so")
    found = ctypes.util.find_library("trz")
    yield found or "libtrz.so.0"


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            lib = ctypes.CDLL(path, use_errno=True)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        for name, (res, args) in _PROTOS.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        return lib, path
    raise OSError("libtrz.so not found (tried: %s); run `make` in the trz source tree, install it "
                  "(make install), or set TRZ_LIBRARY to its path" % "; ".join(tried))


lib, path = _load()


def text(b):
    """A C string from the library as str ('' for NULL)."""
    return b.decode("utf-8", "replace") if b else ""

"""_records.py - turn decoded trace bytes into numpy structured arrays with
named fields in the host's byte order, one decoder per format, all
vectorised (no Python loop per record for the binary formats).

Field layouts follow the record formats as the codecs' specifications in
the repository give them (codecs/rst/rst.md, codecs/bus/byu.md,
codecs/bus/pbus.md, codecs/uop/uop.md, codecs/champsim/champsim.md,
codecs/drmemtrace/drmemtrace.md)."""

import numpy as np

from . import _lib

# ---- RST (24-byte records) -------------------------------------------------
RST_INSTR, RST_PHYSADDR, RST_PAVADIFF = 3, 18, 19
RST_FIELDS = ("rtype", "ea_valid", "tr", "hpriv", "pr", "bt", "an", "cpuid", "instr", "pc_va", "ea_va")
RST_PACKED = np.dtype([("rtype", "u1"), ("ea_valid", "u1"), ("tr", "u1"), ("hpriv", "u1"), ("pr", "u1"),
                       ("bt", "u1"), ("an", "u1"), ("cpuid", "u2"), ("instr", "u4"), ("pc_va", "u8"),
                       ("ea_va", "u8")])
# Bit of each INSTR flag in byte 1, for records written big-endian (bit
# fields from the most significant bit down) and little-endian (from the
# least significant bit up).
_RST_FLAG_SHIFT = {"ea_valid": (6, 1), "tr": (5, 2), "hpriv": (4, 3), "pr": (3, 4), "bt": (2, 5), "an": (1, 6)}


def _rst_raw_dtype(little):
    o = "<" if little else ">"
    return np.dtype({"names": ["rtype", "f", "c", "instr", "w8", "w16"],
                     "formats": ["u1", "u1", o + "u2", o + "u4", o + "u8", o + "u8"],
                     "offsets": [0, 1, 2, 4, 8, 16], "itemsize": 24})


def _rst_cpuid(rtype, f, c, little, is_instr):
    """10-bit CPU number of INSTR records, and of PHYSADDR/PAVADIFF records
    (whose cpuid sits in byte 1 with bits 9..7 in byte 2); 0 elsewhere."""
    if little:
        ci = c & np.uint16(0x3FF)                    # cpuid:6 then cpuid9_6:4 from bit 0 up
        cp = (f >> 1).astype(np.uint16) | ((c & np.uint16(7)) << 7)
    else:
        ci = ((c >> 10) & np.uint16(0x3F)) | (((c >> 6) & np.uint16(0xF)) << 6)
        cp = (f & np.uint8(0x7F)).astype(np.uint16) | ((c >> 13) << 7)
    is_pa = (rtype == RST_PAVADIFF) | (rtype == RST_PHYSADDR)
    return np.where(is_instr, ci, np.where(is_pa, cp, np.uint16(0)))


def _rst_ea_valid(rtype, f, little, is_instr):
    vi = (f >> (1 if little else 6)) & np.uint8(1)
    vp = (f & np.uint8(1)) if little else (f >> 7)
    is_pa = (rtype == RST_PAVADIFF) | (rtype == RST_PHYSADDR)
    return np.where(is_instr, vi, np.where(is_pa, vp, np.uint8(0)))


def decode_rst_generic(buf, byte_order, fields=None):
    """Field-by-field RST decoder (the reference for decode_rst's tables)."""
    little = byte_order == _lib.BYTE_ORDER_LITTLE
    raw = np.frombuffer(buf, dtype=_rst_raw_dtype(little))
    want = RST_FIELDS if fields is None else tuple(fields)
    dt = np.dtype([(n, RST_PACKED.fields[n][0]) for n in want])
    out = np.empty(len(raw), dtype=dt)
    rtype = raw["rtype"]
    if "rtype" in want:
        out["rtype"] = rtype
    is_instr = rtype == RST_INSTR
    f = raw["f"]
    fi = f * is_instr  # flags of non-INSTR records read as 0
    for name, (sb, sl) in _RST_FLAG_SHIFT.items():
        if name in want and name != "ea_valid":
            out[name] = (fi >> (sl if little else sb)) & np.uint8(1)
    if "ea_valid" in want:
        out["ea_valid"] = _rst_ea_valid(rtype, f, little, is_instr)
    if "cpuid" in want:
        out["cpuid"] = _rst_cpuid(rtype, f, raw["c"], little, is_instr)
    if "instr" in want:
        out["instr"] = np.where(is_instr, raw["instr"], np.uint32(0))
    if "pc_va" in want:
        out["pc_va"] = raw["w8"]
    if "ea_va" in want:
        out["ea_va"] = raw["w16"]
    return out


# The fast decoder writes whole 8-byte words: byte 0 rtype and bytes 1..6
# the six flags (one table look-up per record), then cpuid and instr, then
# pc_va and ea_va, which sit at the same word positions as in the record.
RST_DTYPE = np.dtype({"names": list(RST_FIELDS),
                      "formats": ["u1"] * 7 + ["u2", "u4", "u8", "u8"],
                      "offsets": [0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 24], "itemsize": 32})
_RST_TABLES = {}


def _rst_tables(little):
    """word0[b0 | b1 << 8]: the first output word for record bytes 0 and 1
    (rtype and the INSTR flag byte, or PHYSADDR/PAVADIFF's ea_valid);
    cpu[b2 << 8 | b3] (big-endian; b3 << 8 | b2 little): INSTR's cpuid."""
    t = _RST_TABLES.get(little)
    if t is not None:
        return t
    per_f = np.zeros((3, 256), np.uint64)  # 0 other, 1 INSTR, 2 PHYSADDR/PAVADIFF
    for f in range(256):
        w = 0
        for i, name in enumerate(("ea_valid", "tr", "hpriv", "pr", "bt", "an")):
            sb, sl = _RST_FLAG_SHIFT[name]
            w |= ((f >> (sl if little else sb)) & 1) << (8 * (i + 1))
        per_f[1, f] = w
        per_f[2, f] = ((f & 1) if little else (f >> 7)) << 8
    cls = np.zeros(256, np.intp)
    cls[RST_INSTR] = 1
    cls[RST_PHYSADDR] = cls[RST_PAVADIFF] = 2
    rt = np.arange(256, dtype=np.uint64)
    word0 = (per_f[cls] | rt[:, None]).T.reshape(-1).copy()  # index rtype | f << 8
    c = np.arange(65536, dtype=np.uint32)
    cpu = (c & 0x3FF) if little else ((c >> 10) & 0x3F) | (((c >> 6) & 0xF) << 6)
    t = _RST_TABLES[little] = (word0, cpu.astype(np.uint32))
    return t


def decode_rst(buf, byte_order, fields=None):
    """RST records.  INSTR fields (tr, hpriv, pr, bt, an, instr) are 0 in
    other records; ea_valid and cpuid are also decoded for PHYSADDR and
    PAVADIFF; pc_va and ea_va are the 64-bit words at bytes 8 and 16 of
    every record (pc_pa_va and ea_pa_va in a PAVADIFF)."""
    little = byte_order == _lib.BYTE_ORDER_LITTLE
    word0, cpu_instr = _rst_tables(little)
    raw = np.frombuffer(buf, dtype=_rst_raw_dtype(little))
    n = len(raw)
    out = np.empty(n, dtype=RST_DTYPE)
    o64 = out.view(np.uint64).reshape(n, 4)
    o32 = out.view(np.uint32).reshape(n, 8)
    rtype, f, c = raw["rtype"], raw["f"], raw["c"]
    o64[:, 0] = word0.take(np.frombuffer(buf, dtype="<u2").reshape(n, 12)[:, 0])
    o32[:, 2] = cpu_instr.take(c)
    o32[:, 3] = raw["instr"]
    want = RST_FIELDS if fields is None else tuple(fields)
    words = np.frombuffer(buf, dtype=("<u8" if little else ">u8")).reshape(n, 3)
    if "pc_va" in want and "ea_va" in want:
        o64[:, 2:4] = words[:, 1:3]
    elif "pc_va" in want or "ea_va" in want:
        col = 2 if "pc_va" in want else 3
        o64[:, col] = words[:, col - 1]
    other = np.flatnonzero(rtype != RST_INSTR)
    if len(other):  # non-INSTR records: no instr word, cpuid only where the layout has one
        o32[other, 2:4] = 0
        rt = rtype[other]
        pa = other[(rt == RST_PAVADIFF) | (rt == RST_PHYSADDR)]
        if len(pa):
            fp, cpa = f[pa].astype(np.uint32), c[pa].astype(np.uint32)
            o32[pa, 2] = (fp >> 1) | ((cpa & 7) << 7) if little else (fp & 0x7F) | ((cpa >> 13) << 7)
    if want != RST_FIELDS:  # a view of the chosen fields (the others hold garbage)
        return out[list(want)]
    return out


# ---- BYU (12-byte little-endian records) --------------------------------------
BYU_DTYPE = np.dtype([("addr", "<u4"), ("reqtype", "u1"), ("size", "u1"), ("attr", "u1"), ("proc", "u1"),
                      ("time", "<u4")])
BYU_FIELDS = BYU_DTYPE.names


def decode_byu(buf, byte_order, fields=None):
    raw = np.frombuffer(buf, dtype=BYU_DTYPE)
    native = BYU_DTYPE.newbyteorder("=")
    if fields is None:
        return raw.astype(native, copy=False) if raw.flags.writeable else raw.astype(native)
    dt = np.dtype([(n, native.fields[n][0]) for n in fields])
    out = np.empty(len(raw), dtype=dt)
    for n in fields:
        out[n] = raw[n]
    return out


# ---- PEL Pentium bus (6-byte records, big-endian address) ----------------------
PBUS_RAW = np.dtype([("addr", ">u4"), ("be", "u1"), ("ctl", "u1")])
PBUS_DTYPE = np.dtype([("addr", "u4"), ("be", "u1"), ("ctl", "u1"), ("type", "u1")])
PBUS_FIELDS = PBUS_DTYPE.names


def decode_pbus(buf, byte_order, fields=None):
    raw = np.frombuffer(buf, dtype=PBUS_RAW)
    want = PBUS_FIELDS if fields is None else tuple(fields)
    out = np.empty(len(raw), dtype=np.dtype([(n, PBUS_DTYPE.fields[n][0]) for n in want]))
    for n in ("addr", "be", "ctl"):
        if n in want:
            out[n] = raw[n]
    if "type" in want:
        out["type"] = raw["ctl"] >> 4
    return out


# ---- UPenn uop text -------------------------------------------------------------
UOP_DTYPE = np.dtype([("uop", "i8"), ("pc", "u8"), ("src1", "i8"), ("src2", "i8"), ("dest", "i8"),
                      ("flags", "S1"), ("branch", "S1"), ("ldst", "S1"), ("imm", "i8"), ("addr", "u8"),
                      ("fallthrough", "u8"), ("target", "u8"), ("macro", "O"), ("micro", "O")])
UOP_FIELDS = UOP_DTYPE.names
_UOP_HEX = {"pc", "addr", "fallthrough", "target"}
_HEXVAL = np.full(256, 255, dtype=np.uint8)
for _i, _ch in enumerate(b"0123456789abcdef"):
    _HEXVAL[_ch] = _i
for _i, _ch in enumerate(b"ABCDEF"):
    _HEXVAL[_ch] = 10 + _i


class ParseError(ValueError):
    pass


def _parse_hex(col):
    """Vectorised hex parse of an 'S' array (no 0x prefix, up to 16 digits)."""
    a = np.asarray(col)
    width = a.dtype.itemsize
    if width > 16:
        raise ParseError("hex value longer than 16 digits")
    m = a.view(np.uint8).reshape(len(a), width)
    d = _HEXVAL[m]
    pad = m == 0
    if np.any((d == 255) & ~pad) or np.any(pad[:, 0]):
        raise ParseError("bad hex value")
    lens = width - pad.sum(axis=1)
    val = np.zeros(len(a), dtype=np.uint64)
    for j in range(width):  # Horner over columns; padding columns leave val as is
        live = j < lens
        val = np.where(live, (val << np.uint64(4)) | d[:, j].astype(np.uint64), val)
    return val


def _is_header(line):
    tok = line.split(None, 1)
    return bool(tok) and not tok[0].lstrip(b"-").isdigit()


def decode_uop(data, fields=None, with_lines=False):
    """Lines of UPenn uop text -> one row per micro-op.  Blank lines and
    header lines (a first token that is not a number, as in the format's
    example table) are skipped; with_lines=True also returns the numbers
    (from 0) of the lines the rows come from."""
    want = UOP_FIELDS if fields is None else tuple(fields)
    lines = data.split(b"\n")
    keep = [i for i, ln in enumerate(lines) if ln.strip()]
    if keep and _is_header(lines[keep[0]]):
        keep = keep[1:]
    toks = b" ".join([lines[i] for i in keep]).split()
    if len(toks) != 14 * len(keep):  # a header inside (concatenated files) or a malformed line
        keep = [i for i in keep if not _is_header(lines[i])]
        toks = b" ".join([lines[i] for i in keep]).split()
        if len(toks) != 14 * len(keep):
            bad = next(lines[i] for i in keep if len(lines[i].split()) != 14)
            raise ParseError("uop line %r has %d fields, not 14" % (bad[:80], len(bad.split())))
    n = len(keep)
    out = np.empty(n, dtype=np.dtype([(f, UOP_DTYPE.fields[f][0]) for f in want]))
    if n == 0:
        return (out, np.array(keep, dtype=np.int64)) if with_lines else out
    cols = np.array(toks, dtype=object).reshape(n, 14)
    for j, name in enumerate(UOP_FIELDS):
        if name not in want:
            continue
        col = cols[:, j]
        if name in ("macro", "micro"):
            out[name] = [t.decode("ascii", "replace") for t in col]
        elif name in ("flags", "branch", "ldst"):
            s = col.astype("S")
            if s.dtype.itemsize != 1:
                raise ParseError("field %s is not one character" % name)
            out[name] = s
        elif name in _UOP_HEX:
            out[name] = _parse_hex(col.astype("S"))
        else:
            try:
                out[name] = col.astype("S").astype(np.int64)
            except ValueError as e:
                raise ParseError("field %s: %s" % (name, e)) from None
    return (out, np.array(keep, dtype=np.int64)) if with_lines else out


# ---- ChampSim: input_instr (64 bytes) and cloudsuite_instr (96), little-endian ----
def _champsim_dtype(ndst, cs):
    names = ["ip", "is_branch", "branch_taken", "destination_registers", "source_registers",
             "destination_memory", "source_memory"]
    formats = ["<u8", "u1", "u1", ("u1", (ndst,)), ("u1", (4,)), ("<u8", (ndst,)), ("<u8", (4,))]
    offsets = [0, 8, 9, 10, 10 + ndst, 24 if cs else 16, 56 if cs else 32]
    if cs:
        names.append("asid")
        formats.append(("u1", (2,)))
        offsets.append(88)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": 96 if cs else 64})


CHAMPSIM_DTYPE = _champsim_dtype(2, False)
CHAMPSIM_CS_DTYPE = _champsim_dtype(4, True)


def _decode_champsim(raw_dtype):
    # any fixed little-endian layout read as it is (ChampSim, drmemtrace)
    def decode(buf, byte_order, fields=None):
        raw = np.frombuffer(buf, dtype=raw_dtype)
        native = raw_dtype.newbyteorder("=")
        if fields is None:
            return raw.astype(native)
        out = np.empty(len(raw), dtype=np.dtype([(n, native.fields[n][0]) for n in fields]))
        for n in fields:
            out[n] = raw[n]
        return out
    return decode


# ---- drmemtrace (12-byte little-endian trace_entry_t records) ---------------
# type (trace_type_t), size (access size, instruction length, marker type,
# encoding byte count) and addr (address, PC, marker value, id; an ENCODING
# record's raw bytes read as a little-endian integer).
DRMEMTRACE_DTYPE = np.dtype([("type", "<u2"), ("size", "<u2"), ("addr", "<u8")])

DECODERS = {"rst": decode_rst, "byu": decode_byu, "pbus": decode_pbus,
            "champsim": _decode_champsim(CHAMPSIM_DTYPE), "champsim-cloudsuite": _decode_champsim(CHAMPSIM_CS_DTYPE),
            "drmemtrace": _decode_champsim(DRMEMTRACE_DTYPE)}
FIELDS = {"rst": RST_FIELDS, "byu": BYU_FIELDS, "pbus": PBUS_FIELDS, "uop": UOP_FIELDS,
          "champsim": CHAMPSIM_DTYPE.names, "champsim-cloudsuite": CHAMPSIM_CS_DTYPE.names,
          "drmemtrace": DRMEMTRACE_DTYPE.names}
DTYPES = {"rst": RST_DTYPE, "byu": BYU_DTYPE.newbyteorder("="), "pbus": PBUS_DTYPE, "uop": UOP_DTYPE,
          "champsim": CHAMPSIM_DTYPE.newbyteorder("="), "champsim-cloudsuite": CHAMPSIM_CS_DTYPE.newbyteorder("="),
          "drmemtrace": DRMEMTRACE_DTYPE.newbyteorder("=")}


def dtype_of(fmt, fields=None):
    """The record dtype records() returns for a format (and field subset)."""
    if fmt not in DTYPES:
        return np.dtype("u1")
    dt = DTYPES[fmt]
    if fields is None:
        return dt
    unknown = [f for f in fields if f not in dt.names]
    if unknown:
        raise ValueError("unknown %s field(s): %s (known: %s)" % (fmt, ", ".join(unknown), ", ".join(dt.names)))
    return np.dtype([(f, dt.fields[f][0]) for f in fields])

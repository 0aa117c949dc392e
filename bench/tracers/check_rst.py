#!/usr/bin/python3
"""check_rst.py - checks an RST trace written by rsttrace.so: the records' layout (rst-records.md),
the control flow (each pc is the previous pc+4, the previous CTI's ea_va after its delay slot, or a
re-run of an instruction marked tr), the CTI conventions (bt and ea_va against the decoded target,
untaken branches at pc+8, annulled slots exactly where the annul bit says), aligned load/store EAs
and one PAVADIFF mapping per page.  With LOG, the output of `qemu-sparc64 -singlestep -d
exec,cpu,nochain` for the same run recorded from its first instruction, it also checks each
executed pc, each load/store EA and each JMPL/RETURN target against QEMU's registers.
    check_rst.py TRACE [LOG]"""
import re
import struct
import sys
from collections import Counter

INSTR, PAVADIFF = 3, 19
KNOWN = {2, 3, 4, 14, 19, 21}
SIZE = {0x0: 4, 0x1: 1, 0x2: 2, 0x3: 8, 0x4: 4, 0x5: 1, 0x6: 2, 0x7: 8, 0x8: 4, 0x9: 1, 0xa: 2,
        0xb: 8, 0xd: 1, 0xe: 8, 0xf: 4, 0x20: 4, 0x23: 8, 0x24: 4, 0x27: 8, 0x3c: 4, 0x3e: 8}


def sext(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def decode(w, pc):
    """(kind, annul, target): kind is None, 'cond', 'always', 'never', 'call' or 'jmpl'."""
    op, op2, op3, cond = w >> 30, (w >> 22) & 7, (w >> 19) & 0x3F, (w >> 25) & 0xF
    if op == 1:
        return "call", 0, (pc + 4 * sext(w, 30)) & (2**64 - 1)
    if op == 0 and op2 in (1, 2, 3, 5, 6):
        if op2 == 3:
            disp, kind = sext(((w >> 20) & 3) << 14 | (w & 0x3FFF), 16), "cond"
        else:
            disp = sext(w, 19) if op2 in (1, 5) else sext(w, 22)
            kind = {8: "always", 0: "never"}.get(cond, "cond")
        return kind, (w >> 29) & 1, (pc + 4 * disp) & (2**64 - 1)
    if op == 2 and op3 in (0x38, 0x39):
        return "jmpl", 0, None
    return None, 0, None


def log_states(path):
    """Yields (pc, regs[32]) per instruction of a QEMU -d exec,cpu log."""
    pc, regs = None, None
    for line in open(path):
        if line.startswith("pc: "):
            pc = int(line.split()[1], 16)
            regs = [0] * 32
        elif line.startswith("%") and regs is not None:
            name, vals = line.split(":", 1)
            base = {"g": 0, "o": 8, "l": 16, "i": 24}[name[1]] + (4 if name[2] == "4" else 0)
            for k, v in enumerate(vals.split()):
                regs[base + k] = int(v, 16)
            if name == "%i4-7":
                yield pc, regs
                regs = None


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    data = open(sys.argv[1], "rb").read()
    if len(data) % 24:
        sys.exit("size %d is not a multiple of 24" % len(data))
    states = log_states(sys.argv[2]) if len(sys.argv) == 3 else None
    errors, examples, stats = Counter(), {}, Counter()

    def err(what, i):
        errors[what] += 1
        examples.setdefault(what, i)

    pc_map, ea_map = {}, {}
    cur_pd = cur_ed = None
    pending_pavadiff = False
    expect = None            # pc the next INSTR must have (None: any)
    retry_pc = None          # a tr record's pc: the next may repeat it
    slot_of = None           # the CTI whose delay slot comes next: (pc, kind, annul, taken, ea)
    after_slot = None        # where control goes after the slot now being executed
    n = len(data) // 24
    for i in range(n):
        r = data[24 * i:24 * i + 24]
        rt = r[0]
        stats["rtype %d" % rt] += 1
        if rt not in KNOWN:
            err("unexpected rtype %d" % rt, i)
        if i == 0 and (rt != 2 or r[1:3] != b"\x02\x0d" or r[4:20] != b"RST Header v2.13"):
            err("no RST 2.13 header first", i)
        if rt == PAVADIFF:
            if pending_pavadiff:
                err("two PAVADIFFs in a row", i)
            pending_pavadiff = True
            if r[1] & 0x7F or r[2:4] != b"\0\0":
                err("PAVADIFF reserved bits or cpuid", i)
            cur_pd = struct.unpack_from(">Q", r, 8)[0]
            if r[1] & 0x80:
                cur_ed = struct.unpack_from(">Q", r, 16)[0]
            elif struct.unpack_from(">Q", r, 16)[0]:
                err("PAVADIFF ea_pa_va without ea_valid", i)
            continue
        if rt != INSTR:
            continue
        pending_pavadiff = False
        flags = r[1]
        w, pc, ea = struct.unpack_from(">IQQ", r, 4)
        ea_valid, tr, bt, an = flags & 0x40, flags & 0x20, flags & 0x04, flags & 0x02
        stats["instr"] += 1
        if flags & 0x99 or r[2:4] != b"\0\0":
            err("INSTR reserved bits, hpriv, pr or cpuid set", i)
        if not ea_valid and ea:
            err("ea_va without ea_valid", i)
        if pc % 4:
            err("unaligned pc", i)
        # one PA mapping per page
        if pc_map.setdefault(pc >> 13, cur_pd) != cur_pd:
            err("pc page with two PA mappings", i)
        # control flow
        # (the first INSTR may be a delay slot whose CTI came before the trace: skip its successor)
        if expect is not None and pc != expect and not (retry_pc is not None and pc == retry_pc) \
                and stats["instr"] > 2:
            err("pc not the expected successor", i)
        kind, annul, target = decode(w, pc)
        op, op3 = w >> 30, (w >> 19) & 0x3F
        if an:
            stats["annulled"] += 1
            if slot_of is None or slot_of[0] + 4 != pc:
                err("annulled record not after a CTI", i)
            else:
                skind, sannul, staken = slot_of[1], slot_of[2], slot_of[3]
                ok = sannul and ((skind == "cond" and not staken) or skind in ("always", "never"))
                if not ok:
                    err("annulled slot the annul bit does not allow", i)
            if ea_valid or bt or tr:
                err("annulled record with ea, bt or tr", i)
        elif slot_of is not None and slot_of[0] + 4 == pc:
            skind, sannul, staken = slot_of[1], slot_of[2], slot_of[3]
            if sannul and ((skind == "cond" and not staken) or skind in ("always", "never")):
                err("executed slot that the annul bit annuls", i)
        if states is not None and not an:
            st = next(states, None)
            if st is None:
                err("trace longer than the log", i)
                states = None
            else:
                lpc, regs = st
                if lpc != pc:
                    err("pc differs from QEMU's log", i)
                    states = None
                elif op in (2, 3) and (kind == "jmpl" or op == 3):
                    rs1, rs2 = (w >> 14) & 31, w & 31
                    addr = (regs[rs1] + (sext(w, 13) if w & 0x2000 else regs[rs2])) & (2**64 - 1)
                    if op == 3 and op3 in (0x3C, 0x3E):   # CASA, CASXA: the address is r[rs1]
                        addr = regs[rs1]
                    if op == 3 and ea_valid:
                        stats["ea checked"] += 1
                        if addr != ea:
                            err("load/store EA differs from QEMU's registers", i)
                    if kind == "jmpl" and not tr:
                        stats["jmpl checked"] += 1
                        if addr != ea:
                            err("JMPL/RETURN target differs from QEMU's registers", i)
        if op == 3 and not an:
            stats["mem"] += 1
            if not ea_valid:
                stats["mem without ea"] += 1
            else:
                size = SIZE.get(op3, SIZE.get(op3 & 0x2F, 1))
                if ea % size:
                    stats["misaligned ea"] += 1
                if ea_map.setdefault(ea >> 13, cur_ed) != cur_ed:
                    err("data page with two PA mappings", i)
        # work out what comes next
        in_slot = after_slot
        after_slot = None
        retry_pc = pc if tr else None
        if kind and not an and not tr:
            stats["cti"] += 1
            stats["taken"] += bool(bt)
            if not ea_valid:
                err("CTI without ea_valid", i)
            if kind in ("call", "always", "jmpl") and not bt:
                err("unconditional CTI not taken", i)
            if kind == "never" and bt:
                err("branch-never taken", i)
            if not bt and ea != pc + 8:
                err("untaken CTI whose ea_va is not pc+8", i)
            if bt and target is not None and ea != target:
                err("taken CTI whose ea_va is not its target", i)
            slot_of = (pc, kind, annul, bool(bt), ea)
            expect = pc + 4
            after_slot = ea
        else:
            if not an:
                slot_of = None
            if in_slot is not None:
                expect = in_slot
            elif an:
                expect = slot_of[4] if slot_of else None
                slot_of = None
            else:
                expect = pc + 4
            if tr:
                after_slot = in_slot      # a re-run slot still leads to the CTI's target
                if in_slot is None:
                    expect = pc + 4
            if an:
                slot_of = None
    print("%s: %d records, %d INSTR (%d CTIs, %.1f%% taken; %d annulled slots; %d loads/stores, "
          "%d without an EA, %d misaligned)" % (
              sys.argv[1], n, stats["instr"], stats["cti"], 100.0 * stats["taken"] / max(1, stats["cti"]),
              stats["annulled"], stats["mem"], stats["mem without ea"], stats["misaligned ea"]))
    print("  " + ", ".join("%s %d" % (k, v) for k, v in sorted(stats.items()) if k.startswith("rtype")))
    if len(sys.argv) == 3:
        print("  against QEMU's log: %d EAs and %d JMPL/RETURN targets checked" % (
            stats["ea checked"], stats["jmpl checked"]))
    for what, count in errors.most_common():
        print("  ERROR %s: %d (first at record %d)" % (what, count, examples[what]))
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()

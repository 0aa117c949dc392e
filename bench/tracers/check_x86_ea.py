#!/usr/bin/python3
"""check_x86_ea.py - checks the ips and memory addresses of a ChampSim trace from x86trace.so
against QEMU's own per-instruction log of the same run (`qemu-x86_64 -singlestep -d
exec,cpu,nochain -D LOG -plugin ...x86trace.so,skip=0,...`): record i must be the i-th logged
instruction, and each memory operand's address must equal base + index*scale + disp (+ the FS or
GS base) computed from the logged registers (push/call: RSP-8, pop/ret: RSP).
    check_x86_ea.py TRACE CODEFILE LOG"""
import re
import struct
import sys
from collections import Counter

import capstone
from capstone import x86_const as X

REGS = ["RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "RSP"] + ["R%d" % i for i in range(8, 16)]
REG_RE = re.compile(r"(R[A-Z0-9]{1,2}) ?=([0-9a-f]{16})")
SEG_RE = re.compile(r"^(FS|GS) =[0-9a-f]{4} ([0-9a-f]{16})", re.M)
M64 = (1 << 64) - 1


def states(log):
    """Yields (pc, registers) for each logged instruction."""
    text = open(log).read()
    blocks = text.split("Trace ")[1:]
    for b in blocks:
        pc = int(b.split("[", 1)[1].split("/")[1], 16)
        regs = {k: int(v, 16) for k, v in REG_RE.findall(b)}
        for seg, base in SEG_RE.findall(b):
            regs[seg] = int(base, 16)
        yield pc, regs


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.detail = True
    code = {}
    for line in open(sys.argv[2]):
        ip, raw = line.split()
        raw = bytes.fromhex(raw)
        if len(raw) > len(code.get(int(ip, 16), b"")):   # see check_champsim.py
            code[int(ip, 16)] = raw
    data = open(sys.argv[1], "rb").read()
    n = len(data) // 64
    cache = {}
    stats = Counter()
    bad = []
    for i, (pc, regs) in enumerate(states(sys.argv[3])):
        if i >= n:
            break
        rec = struct.unpack_from("<Q8x2Q4Q", data, 64 * i)
        ip, wmem, rmem = rec[0], rec[1:3], rec[3:7]
        if ip != pc:
            bad.append("record %d: ip %x, QEMU logged %x" % (i, ip, pc))
            break
        if ip not in cache:
            cache[ip] = next(md.disasm(code[ip], ip))
        ins = cache[ip]

        def reg(r):
            if r == 0:
                return 0
            name = ins.reg_name(r).upper()
            if name == "RIP":
                return ip + ins.size
            return regs[name]

        expect = None
        if ins.id in (X.X86_INS_PUSH, X.X86_INS_CALL):
            expect = ("w", (regs["RSP"] - 8) & M64)
        elif ins.id in (X.X86_INS_POP, X.X86_INS_RET):
            expect = ("r", regs["RSP"])
        elif ins.id not in (X.X86_INS_LEA, X.X86_INS_NOP) and not ins.mnemonic.startswith("prefetch"):
            for op in ins.operands:
                if op.type == X.X86_OP_MEM:
                    m = op.mem
                    ea = reg(m.base) + reg(m.index) * m.scale + m.disp
                    if m.segment in (X.X86_REG_FS, X.X86_REG_GS):
                        ea += regs["FS" if m.segment == X.X86_REG_FS else "GS"]
                    expect = ("rw", ea & M64)
                    break
        if expect is None:
            continue
        kind, ea = expect
        got = ([a for a in rmem if a] if "r" in kind else []) + ([a for a in wmem if a] if "w" in kind else [])
        if not got and ins.mnemonic.startswith("rep"):
            stats["rep with count 0"] += 1
            continue
        stats["checked"] += 1
        if ea not in got:
            stats["mismatch"] += 1
            if len(bad) < 10:
                bad.append("record %d: %s %s: expected %x, trace has %s" % (
                    i, ins.mnemonic, ins.op_str, ea, [hex(a) for a in got]))
    print("%s: %d records; memory operands checked against QEMU's registers: %d, mismatches %d" % (
        sys.argv[1], n, stats["checked"], stats["mismatch"]))
    for b in bad:
        print("  ERROR " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

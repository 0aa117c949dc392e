#!/usr/bin/python3
"""check_champsim.py - checks a ChampSim input_instr trace written by x86trace.so against an
independent decoding of the instructions (Debian's python3-capstone) and ChampSim's branch rules.
    check_champsim.py TRACE CODEFILE
CODEFILE is the plugin's code=FILE output ("ip hexbytes" per translated instruction).  Checks:
every non-branch is followed by the next sequential ip (a REP string instruction may repeat); a
conditional's taken byte matches its successor (fall-through when not taken, its target when
taken); direct jumps and calls go to their targets; returns go back after their calls; the kind
the simulator derives from the registers matches the instruction; memory operands that read or
write have addresses.  Prints the kind mix and exits 1 on any error."""
import struct
import sys
from collections import Counter

import capstone
from capstone import x86_const as X

SP, FLAGS, IP = 6, 25, 26


def champsim_kind(src, dst):
    """The branch kind ChampSim derives from a record's registers (inc/instruction.h)."""
    reads_sp, reads_flags, reads_ip = SP in src, FLAGS in src, IP in src
    writes_sp, writes_ip = SP in dst, IP in dst
    reads_other = any(r not in (SP, FLAGS, IP) for r in src)
    if not reads_sp and not reads_flags and writes_ip and not reads_other:
        return "direct_jump"
    if not reads_sp and not reads_ip and not reads_flags and writes_ip and reads_other:
        return "indirect_jump"
    if not reads_sp and reads_ip and not writes_sp and writes_ip and (reads_flags or reads_other):
        return "conditional"
    if reads_sp and reads_ip and writes_sp and writes_ip and not reads_flags and not reads_other:
        return "direct_call"
    if reads_sp and reads_ip and writes_sp and writes_ip and not reads_flags and reads_other:
        return "indirect_call"
    if reads_sp and not reads_ip and writes_sp and writes_ip:
        return "return"
    if writes_ip:
        return "other"
    return "none"


def load_code(path):
    code = {}
    with open(path) as f:
        for line in f:
            ip, hexb = line.split()
            raw = bytes.fromhex(hexb)
            # QEMU 7.2 may first translate an instruction that crosses a page with only its first
            # page's bytes (that translation is dropped and never runs): keep the longest bytes.
            if len(raw) > len(code.get(int(ip, 16), b"")):
                code[int(ip, 16)] = raw
    return code


class Insn:
    """What the checker needs of one static instruction."""

    def __init__(self, md, ip, raw):
        ins = next(md.disasm(raw, ip), None)
        if ins is None:
            raise ValueError("capstone cannot decode %x" % ip)
        self.len = ins.size
        self.text = ins.mnemonic + " " + ins.op_str
        g = ins.groups
        self.call = X.X86_GRP_CALL in g
        self.ret = X.X86_GRP_RET in g
        jump = X.X86_GRP_JUMP in g
        self.jmp = jump and ins.id in (X.X86_INS_JMP, X.X86_INS_LJMP)
        self.cond = jump and not self.jmp
        ops = ins.operands
        self.direct = len(ops) == 1 and ops[0].type == X.X86_OP_IMM
        self.target = ops[0].imm if self.direct else None
        self.rep = any(p in (X.X86_PREFIX_REP, X.X86_PREFIX_REPNE) for p in ins.prefix)
        noaccess = ins.id in (X.X86_INS_LEA, X.X86_INS_NOP) or ins.mnemonic.startswith("prefetch")
        readonly = ins.id in (X.X86_INS_TEST, X.X86_INS_CMP, X.X86_INS_BT)  # capstone 4 says RW
        self.mem_read = self.mem_write = False
        ops = list(ops)
        if ins.mnemonic.startswith(("mov", "vmov")) and len(ops) == 2:  # capstone 4 says RW too
            self.mem_write = ops[0].type == X.X86_OP_MEM
            self.mem_read = ops[1].type == X.X86_OP_MEM
            ops = []
        for op in ops:
            if op.type == X.X86_OP_MEM and not noaccess:
                self.mem_read |= bool(op.access & capstone.CS_AC_READ)
                self.mem_write |= bool(op.access & capstone.CS_AC_WRITE) and not readonly
        ops = ins.operands
        if ins.id == X.X86_INS_PUSH or self.call:
            self.mem_write = True
        if ins.id == X.X86_INS_POP or (self.ret and ins.id == X.X86_INS_RET):
            self.mem_read = True
        if self.call:
            self.expect = "direct_call" if self.direct else "call"
        elif self.ret:
            self.expect = "return"
        elif self.cond:
            self.expect = "conditional"
        elif self.jmp:
            self.expect = "jump"
        else:
            self.expect = "none"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.detail = True
    code = load_code(sys.argv[2])
    insns = {}
    data = open(sys.argv[1], "rb").read()
    if len(data) % 64:
        sys.exit("size %d is not a multiple of 64" % len(data))
    n = len(data) // 64
    errors = Counter()
    examples = {}
    kinds = Counter()
    stats = Counter()
    ips = set()
    ras = []

    def err(what, i, ins):
        errors[what] += 1
        examples.setdefault(what, "record %d: %s" % (i, ins.text if ins else "?"))

    prev = None
    for i in range(n + 1):
        if i < n:
            rec = struct.unpack_from("<QBB2B4B2Q4Q", data, 64 * i)
            ip = rec[0]
        if prev is not None:
            pi, pip, is_br, taken, src, dst, wmem, rmem, ins = prev
            nxt = ip if i < n else None
            fall = pip + ins.len
            kind = champsim_kind(src, dst)
            kinds[kind] += 1
            stats["loads"] += len(rmem)
            stats["stores"] += len(wmem)
            ok_kind = {"none": kind == "none", "conditional": kind == "conditional",
                       "jump": kind in ("direct_jump", "indirect_jump"),
                       "direct_call": kind == "direct_call",
                       "call": kind in ("direct_call", "indirect_call"),
                       "return": kind == "return"}[ins.expect]
            if not ok_kind:
                err("kind %s for a %s" % (kind, ins.expect), pi, ins)
            if (ins.expect == "none") != (is_br == 0):
                err("is_branch byte", pi, ins)
            if nxt is not None:
                if ins.expect == "none":
                    if nxt != fall and not (ins.rep and nxt == pip):
                        err("non-branch not followed by its next ip", pi, ins)
                    if taken:
                        err("non-branch marked taken", pi, ins)
                elif ins.cond:
                    stats["cond"] += 1
                    stats["cond_taken"] += taken
                    if taken and (nxt == fall or (ins.target is not None and nxt != ins.target)):
                        err("taken conditional not at its target", pi, ins)
                    if not taken and nxt != fall:
                        err("untaken conditional not followed by its fall-through", pi, ins)
                else:
                    if not taken:
                        err("unconditional transfer not taken", pi, ins)
                    if ins.direct and nxt != ins.target:
                        err("direct jump/call not at its target", pi, ins)
                if ins.call:
                    ras.append(fall)
                if ins.ret:
                    stats["returns"] += 1
                    if ras and ras[-1] == nxt:
                        stats["returns_matched"] += 1
                        ras.pop()
            if ins.mem_read and not rmem and not (ins.rep and nxt == fall):
                err("memory read without a source address", pi, ins)
            if ins.mem_write and not wmem and not (ins.rep and nxt == fall):
                err("memory write without a destination address", pi, ins)
        if i == n:
            break
        if ip not in insns:
            if ip not in code:
                sys.exit("record %d: ip %x not in the code file" % (i, ip))
            insns[ip] = Insn(md, ip, code[ip])
        ins = insns[ip]
        ips.add(ip)
        src = [r for r in rec[5:9] if r]
        dst = [r for r in rec[3:5] if r]
        wmem = [a for a in rec[9:11] if a]
        rmem = [a for a in rec[11:15] if a]
        # slots must be filled from the front
        if 0 in rec[5:9][:len(src)] or 0 in rec[3:5][:len(dst)] or 0 in rec[9:11][:len(wmem)] \
                or 0 in rec[11:15][:len(rmem)]:
            err("slots not filled from the front", i, ins)
        prev = (i, ip, rec[1], rec[2], src, dst, wmem, rmem, ins)

    print("%s: %d records, %d distinct ips" % (sys.argv[1], n, len(ips)))
    print("  kinds: " + ", ".join("%s %d (%.1f%%)" % (k, v, 100.0 * v / n) for k, v in kinds.most_common()))
    if stats["cond"]:
        print("  conditional taken rate %.3f" % (stats["cond_taken"] / stats["cond"]))
    print("  loads/instr %.3f, stores/instr %.3f" % (stats["loads"] / n, stats["stores"] / n))
    if stats["returns"]:
        print("  returns to the address after their call: %d of %d" % (stats["returns_matched"], stats["returns"]))
    for what, count in errors.most_common():
        print("  ERROR %s: %d (first at %s)" % (what, count, examples[what]))
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""check_uop.py - checks a UPenn micro-op text trace written by x86trace.so: each line has the 14
fields and re-prints byte-exactly with the course's layout ("%d %lx %2d %2d %2d %c %c %c %9ld %12lx
%12lx %12lx %-8s %s"); micro-op counters run 1, 2, ... within one instruction, whose lines share
PC, fall-through and macro opcode; the next instruction starts at the fall-through unless a branch
micro-op says T, then at its target (a REP string instruction may repeat); loads and stores have
addresses and other micro-ops none.  Prints a summary; exits 1 on any error.
    check_uop.py TRACE"""
import sys
from collections import Counter


def fmt(f):
    return "%d %x %2d %2d %2d %s %s %s %9d %12x %12x %12x %-8s %s\n" % (
        int(f[0]), int(f[1], 16), int(f[2]), int(f[3]), int(f[4]), f[5], f[6], f[7], int(f[8]),
        int(f[9], 16), int(f[10], 16), int(f[11], 16), f[12], f[13])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    errors, examples, stats, micro = Counter(), {}, Counter(), Counter()

    def err(what, n):
        errors[what] += 1
        examples.setdefault(what, n)

    group = None             # (pc, fallthrough, macro, next counter, where control goes)
    expect = None
    with open(sys.argv[1]) as f:
        for n, line in enumerate(f, 1):
            fld = line.split()
            if len(fld) != 14:
                err("not 14 fields", n)
                continue
            if fmt(fld) != line:
                err("does not re-print byte-exactly", n)
            k, pc, fall = int(fld[0]), int(fld[1], 16), int(fld[10], 16)
            br, ls, addr, target = fld[6], fld[7], int(fld[9], 16), int(fld[11], 16)
            micro[fld[13]] += 1
            stats["uops"] += 1
            if fld[5] not in "RW-" or br not in "TN-" or ls not in "LS-":
                err("bad flag, branch or load/store character", n)
            if (ls in "LS") != (addr != 0):
                err("memory address where there is no load/store, or none where there is", n)
            if k == 1:
                if group is not None:
                    nxt = group[4]
                    if pc != nxt and not (group[2].startswith("REP") and pc == group[0]):
                        err("instruction does not start where the previous one went", n)
                stats["instructions"] += 1
                group = [pc, fall, fld[12], 2, fall]
            else:
                if group is None or k != group[3] or pc != group[0] or fall != group[1] or fld[12] != group[2]:
                    err("micro-op out of sequence within an instruction", n)
                    group = [pc, fall, fld[12], k + 1, fall]
                else:
                    group[3] += 1
            if br in "TN":
                stats["branches"] += 1
                stats["taken"] += br == "T"
                if br == "T":
                    group[4] = target
                    if target == 0:
                        err("taken branch without a target", n)
    print("%s: %d micro-ops, %d instructions (%.2f micro-ops each), %d branch micro-ops (%.1f%% taken)" % (
        sys.argv[1], stats["uops"], stats["instructions"], stats["uops"] / max(1, stats["instructions"]),
        stats["branches"], 100.0 * stats["taken"] / max(1, stats["branches"])))
    print("  micro-ops: " + ", ".join("%s %d" % kv for kv in micro.most_common(12)))
    for what, count in errors.most_common():
        print("  ERROR %s: %d (first at line %d)" % (what, count, examples[what]))
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()

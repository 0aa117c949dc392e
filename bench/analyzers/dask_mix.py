#!/usr/bin/env python3
"""dask_mix.py - the analyses of rst_stats and bus_stats, run on a Dask
cluster through the trz Python binding: instruction mix, conditional-branch
taken rate and an L1 D-cache per CPU for RST; request mix and the hit rate
of a cache per request type for BYU and PEL bus traces.  The report is
byte for byte what the C analyzers print for the same archive.

Each partition (a range of whole chunks, read by a worker that seeks
there) is analysed on its own; what depends on earlier records is carried
across partition boundaries exactly:
  * the PAVADIFF translation: a partition's accesses before its first
    PAVADIFF of a CPU take that CPU's last difference from the partitions
    before it, which a chain of small tasks carries from partition to
    partition; each partition's second pass starts when the chain reaches it;
  * the LRU caches: each partition simulates every set from an empty state;
    an access is then already decided unless its line was not seen in the
    partition and fewer than 4 distinct lines of its set were, and those few
    (at most 4 per set) are decided in trace order against the set's state
    carried in from the partitions before (see lru_local and lru_merge).

  dask_mix.py [--workers N] [--scheduler ADDRESS] [--partition-records N] FILE.trz...
A LocalCluster of N worker processes (default 2, one thread each) is
started unless --scheduler names a running one (dask-scheduler, or a
cluster under Slurm); the archives must then be on storage every worker
sees under the same path."""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")
if os.path.isdir(os.path.join(PYDIR, "trz")) and PYDIR not in sys.path:
    sys.path.insert(0, PYDIR)

import numpy as np  # noqa: E402

import trz  # noqa: E402
import trz.dask  # noqa: E402

# ---- the definitions of rst_stats.c and bus_stats.c --------------------------------------
WAYS, LINE_SHIFT, SETS = 4, 6, (32 << 10) // 64 // 4   # 32 KB, 4-way, 64 B lines, LRU
MAX_CPUS = 1024
K_LOAD, K_STORE, K_CBR, K_UBR, K_CALL, K_RET, K_OTHER, K_ANNULLED, NKIND = range(9)
_K_JMPL0 = 99  # JMPL with rd = 0: ret/retl or an indirect jump, told by the low bits
RT_INSTR, RT_PAVADIFF = 3, 19
_STORE_OP3 = {0x04, 0x05, 0x06, 0x07, 0x0e, 0x14, 0x15, 0x16, 0x17, 0x1e, 0x24, 0x25, 0x26, 0x27, 0x34,
              0x36, 0x37, 0x0d, 0x0f, 0x1d, 0x1f, 0x3c, 0x3e}
_RET_LOW = {31 << 14 | 1 << 13 | 8, 15 << 14 | 1 << 13 | 8}  # rs1 = %i7 or %o7, i = 1, simm13 = 8


def classify_word(w):
    """One SPARC V9 instruction word's class, as rst_stats.c's classify()."""
    op, op3 = w >> 30, (w >> 19) & 0x3F
    if op == 1:
        return K_CALL
    if op == 3:
        return K_STORE if op3 in _STORE_OP3 else K_LOAD  # prefetches count as loads
    if op == 0:
        op2, cond = (w >> 22) & 7, (w >> 25) & 0xF
        if op2 == 3:
            return K_CBR
        if op2 in (1, 2, 5, 6):
            return K_UBR if (cond & 7) == 0 else K_CBR
        return K_OTHER
    if op3 == 0x39:
        return K_RET
    if op3 == 0x38:
        rd = (w >> 25) & 31
        if rd == 0 and (w & 0x7FFFF) in _RET_LOW:
            return K_RET
        return K_CALL if rd == 15 else K_UBR
    return K_OTHER


def _class_table():
    """Class of every value of bits 31..19 (op, rd/cond, op2/op3); only
    JMPL with rd = 0 also needs the low 19 bits."""
    t = np.empty(1 << 13, np.uint8)
    for v in range(1 << 13):
        w = v << 19
        k = classify_word(w)
        if w >> 30 == 2 and (v & 0x3F) == 0x38 and ((v >> 6) & 31) == 0:
            k = _K_JMPL0
        t[v] = k
    return t


_CLASS = _class_table()


def classify(words):
    k = _CLASS[words >> 19]
    j = np.flatnonzero(k == _K_JMPL0)
    if len(j):
        low = words[j] & 0x7FFFF
        k[j] = np.where(np.isin(low, list(_RET_LOW)), K_RET, K_UBR)
    return k


def pct(part, total):
    """an_pct: "12.34", or "-" when total is 0."""
    return "-" if total == 0 else "%.2f" % (100.0 * part / total)


# ---- an exact LRU cache over partitions ---------------------------------------------------
def lru_local(group, line, key, nkeys):
    """Simulate every set (group = cache * SETS + set) of one partition from
    empty; lines are never 0.  Returns per key the accesses and the hits
    decided here; the accesses left undecided, as rows (group, line, key,
    the lines of the set seen before it, 0-padded to WAYS - 1); and each
    touched set's lines, as rows (group, lines most recent first, 0-padded).
    Rows are numpy arrays: cheap to send back from a worker."""
    acc = np.bincount(key, minlength=nkeys)
    hits = np.zeros(nkeys, np.int64)
    undecided, ends, hit_keys = [], [], []
    if len(group):
        order = np.argsort(group, kind="stable")  # sets are independent; trace order within each
        g, ln, k = group[order], line[order], key[order]
        again = np.zeros(len(g), bool)  # the set's previous line again: a hit that moves nothing
        again[1:] = (g[1:] == g[:-1]) & (ln[1:] == ln[:-1])
        hits += np.bincount(k[again], minlength=nkeys)
        g, ln, k = g[~again], ln[~again], k[~again]
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        bounds = starts.tolist() + [len(g)]
        lines, keys = ln.tolist(), k.tolist()
        pad = (0,) * WAYS
        for gi, s, e in zip(g[starts].tolist(), bounds, bounds[1:]):
            w = []
            for i in range(s, e):
                x = lines[i]
                if x in w:
                    w.remove(x)
                    hit_keys.append(keys[i])
                elif len(w) < WAYS:  # the state before this partition decides
                    undecided.append((gi, x, keys[i], *w, *pad[len(w) + 1:]))
                else:
                    w.pop()
                w.insert(0, x)
            ends.append((gi, *w, *pad[len(w):]))
    hits += np.bincount(np.array(hit_keys, dtype=np.int64), minlength=nkeys)
    return (acc, hits, np.array(undecided, dtype=np.uint64).reshape(-1, 2 + WAYS),
            np.array(ends, dtype=np.uint64).reshape(-1, 1 + WAYS))


class LruMerge:
    """Decide the undecided accesses of each partition, in trace order,
    against the sets' state after the partitions before it.  An access to
    a line not seen in its partition, after the distinct lines `seen`, hits
    iff the line is among the first WAYS - len(seen) lines of the carried
    state that are not in `seen`.  Partitions are added in trace order."""

    def __init__(self, nkeys):
        self.acc, self.hits, self.state = np.zeros(nkeys, np.int64), np.zeros(nkeys, np.int64), {}

    def add(self, part):
        p_acc, p_hits, undecided, ends = part
        state, hits = self.state, self.hits
        self.acc += p_acc
        hits += p_hits
        for gi, x, key, *seen in undecided.tolist():
            room = WAYS - sum(1 for v in seen if v)
            for v in state.get(gi, ()):
                if v == x:
                    hits[key] += 1
                    break
                if v not in seen:
                    room -= 1
                    if room == 0:
                        break
        for gi, *w in ends.tolist():
            w = [v for v in w if v]
            old = state.get(gi)
            state[gi] = (w + [v for v in old if v not in w])[:WAYS] if old else w


def lru_merge(parts, nkeys):
    """(accesses, hits) per key over partitions given in trace order."""
    m = LruMerge(nkeys)
    for p in parts:
        m.add(p)
    return m.acc, m.hits


def in_order(client, futures):
    """The futures' results in order, each as soon as it and all before it
    are done: the client merges while the workers still compute."""
    from distributed import as_completed
    where = {f.key: i for i, f in enumerate(futures)}
    done, nxt = {}, 0
    for f in as_completed(futures):
        done[where[f.key]] = f.result()
        f.release()
        while nxt in done:
            yield done.pop(nxt)
            nxt += 1


# ---- RST ----------------------------------------------------------------------------------
RST_FIELDS = ["rtype", "ea_valid", "bt", "an", "cpuid", "instr", "ea_va"]


def rst_scan(df):
    """Pass 1 over one partition: the mix and taken counts per CPU, and the
    D-cache accesses with the PAVADIFF offset known inside the partition."""
    rt = df["rtype"].to_numpy()
    cpuid, ea_valid, ea = df["cpuid"].to_numpy(), df["ea_valid"].to_numpy(), df["ea_va"].to_numpy()
    ins = np.flatnonzero(rt == RT_INSTR)
    cpu = cpuid[ins].astype(np.int64)
    kind = classify(df["instr"].to_numpy()[ins])
    kind[df["an"].to_numpy()[ins] != 0] = K_ANNULLED
    kinds = np.bincount(cpu * NKIND + kind, minlength=MAX_CPUS * NKIND).reshape(MAX_CPUS, NKIND)
    taken = np.bincount(cpu[(kind == K_CBR) & (df["bt"].to_numpy()[ins] != 0)], minlength=MAX_CPUS)
    mem = ((kind == K_LOAD) | (kind == K_STORE)) & (ea_valid[ins] != 0)
    a_pos, a_cpu = ins[mem], cpu[mem]
    p_pos = np.flatnonzero((rt == RT_PAVADIFF) & (ea_valid != 0))
    p_cpu = cpuid[p_pos].astype(np.int64)
    # Order accesses and PAVADIFFs by (CPU, record); each access takes the
    # last PAVADIFF before it in its CPU's run, if there is one.
    pos = np.concatenate([a_pos, p_pos])
    is_p = np.r_[np.zeros(len(a_pos), bool), np.ones(len(p_pos), bool)]
    o = np.lexsort((pos, np.concatenate([a_cpu, p_cpu])))
    ev_cpu, is_p, ev_val = np.concatenate([a_cpu, p_cpu])[o], is_p[o], ea[pos[o]]
    idx = np.arange(len(o))
    last_p = np.maximum.accumulate(np.where(is_p, idx, -1)) if len(o) else idx
    run0 = np.maximum.accumulate(np.where(np.r_[True, ev_cpu[1:] != ev_cpu[:-1]], idx, 0)) if len(o) else idx
    a = ~is_p
    has = (last_p >= run0)[a]
    acc = {"cpu": ev_cpu[a], "ea": ev_val[a], "has": has,
           "off": np.where(has, ev_val[np.maximum(last_p, 0)][a], np.uint64(0)).astype(np.uint64)}
    last = {}
    if len(p_pos):
        u, first_rev = np.unique(p_cpu[::-1], return_index=True)
        last = dict(zip(u.tolist(), ea[p_pos][::-1][first_rev].tolist()))
    summary = {"records": len(rt), "instrs": len(ins), "pavadiffs": int(np.count_nonzero(rt == RT_PAVADIFF)),
               "kinds": kinds, "taken": taken, "last_pava": last}
    return summary, acc


def rst_scan_range(rng):
    """Read one partition (path, first record, count) as read_records'
    tasks do, and scan it: one task, so the frame never leaves the worker."""
    return rst_scan(trz.dask.read_partition(*rng, fields=RST_FIELDS))


def rst_carry(carry, scan):
    """Each CPU's last PAVADIFF difference after one more partition."""
    out = dict(carry)
    out.update(scan[0]["last_pava"])
    return out


def rst_cache(scan, incoming):
    """Pass 2: translate with the differences carried in, then simulate the
    partition's caches.  Returns the partition's summary, its cache result
    and its untranslated accesses per CPU."""
    acc = scan[1]
    cpu, has = acc["cpu"], acc["has"]
    in_val, in_has = np.zeros(MAX_CPUS, np.uint64), np.zeros(MAX_CPUS, bool)
    for c, v in incoming.items():
        in_val[c], in_has[c] = v, True
    carried = ~has & in_has[cpu]
    none = ~has & ~in_has[cpu]
    off = np.where(has, acc["off"], np.where(carried, in_val[cpu], np.uint64(0)))
    block = (acc["ea"] + off) >> np.uint64(LINE_SHIFT)  # PA = EA + difference, mod 2^64 as in C
    group = cpu * SETS + (block & np.uint64(SETS - 1)).astype(np.int64)
    return (scan[0], lru_local(group, block + np.uint64(1), cpu, MAX_CPUS),
            np.bincount(cpu[none], minlength=MAX_CPUS))


def analyze_rst(client, path, records_per_partition=None):
    import dask
    # The partitions of trz.dask.read_records (whole chunks), each read and
    # scanned by one task.  One graph: pass 2 of partition i waits for the
    # carry chain through partitions 0..i-1 only, so the scheduler starts it
    # while later partitions are still in pass 1.
    tasks, carry = [], {}
    for rng in trz.dask.chunk_ranges(path, records_per_partition)[0]:
        scan = dask.delayed(rst_scan_range)(rng)
        tasks.append(dask.delayed(rst_cache)(scan, carry))
        carry = dask.delayed(rst_carry)(carry, scan)
    with trz.open(path) as r:
        little = r.byte_order == "little"
    merge, summaries, va_only = LruMerge(MAX_CPUS), [], np.zeros(MAX_CPUS, np.int64)
    for summary, cache, untranslated in in_order(client, client.compute(tasks)):
        summaries.append(summary)
        merge.add(cache)
        va_only = va_only + untranslated
    return format_rst(summaries, merge.acc, merge.hits, va_only, little)


def format_rst(summaries, dc_acc, dc_hits, va_only, little):
    kinds = sum((s["kinds"] for s in summaries), np.zeros((MAX_CPUS, NKIND), np.int64))
    taken = sum((s["taken"] for s in summaries), np.zeros(MAX_CPUS, np.int64))
    records = sum(s["records"] for s in summaries)
    instrs = sum(s["instrs"] for s in summaries)
    pavs = sum(s["pavadiffs"] for s in summaries)
    out = ["rst_stats: %d records, %s-endian; %d INSTR, %d PAVADIFF, %d other"
           % (records, "little" if little else "big", instrs, pavs, records - instrs - pavs),
           "L1 D-cache per CPU: %d KB, %d-way, %d B lines, LRU, write-allocate; "
           "PA = EA + the CPU's last PAVADIFF ea_pa_va (VA before the first)" % (32, WAYS, 1 << LINE_SHIFT),
           "%-6s %12s %11s %11s %11s %7s %10s %9s %9s %11s %9s %11s %7s %9s"
           % ("cpu", "instrs", "loads", "stores", "cond_br", "taken%", "uncond_br", "calls", "returns", "other",
              "annulled", "dc_access", "dc_hit%", "va_only")]

    def row(name, k, t, a, h, v):
        return ("%-6s %12d %11d %11d %11d %7s %10d %9d %9d %11d %9d %11d %7s %9d"
                % (name, int(k.sum()), k[K_LOAD], k[K_STORE], k[K_CBR], pct(int(t), int(k[K_CBR])), k[K_UBR],
                   k[K_CALL], k[K_RET], k[K_OTHER], k[K_ANNULLED], a, pct(int(h), int(a)), v))
    for c in np.flatnonzero(kinds.sum(axis=1)):
        out.append(row(str(c), kinds[c], taken[c], dc_acc[c], dc_hits[c], va_only[c]))
    out.append(row("total", kinds.sum(axis=0), taken.sum(), dc_acc.sum(), dc_hits.sum(), va_only.sum()))
    return "\n".join(out) + "\n"


# ---- BYU and PEL bus ----------------------------------------------------------------------
BYU_NAMES = {0x00: "FETCH", 0x01: "MEMREAD", 0x02: "MEMREADINV", 0x03: "MEMWRITE", 0x10: "IOREAD",
             0x11: "IOWRITE", 0x20: "DEFERREPLY", 0x21: "INTA", 0x22: "CNTRLAGNTRES", 0x23: "BRTRACEREC",
             0x31: "SHUTDOWN", 0x32: "FLUSH", 0x33: "HALT", 0x34: "SYNC", 0x35: "FLUSHACK", 0x36: "STOPCLKACK",
             0x37: "SMIACK"}
PEL_NAMES = ["INVALID0", "INT_ACK", "INVALID2", "SPECIAL", "INVALID4", "IO_READ", "INVALID6", "IO_WRITE",
             "I_FETCH", "NC_I_FETCH", "INVALID10", "INVALID11", "D_READ", "NC_D_READ", "WRITE_BACK", "D_WRITE"]
PEL_MEMORY = [8, 9, 12, 13, 14, 15]  # fetches, reads, write-backs and writes


def bus_scan(df, fmt):
    """One partition of a bus trace: requests per type, and the caches
    (one per BYU proc; one for PEL) over the memory requests."""
    addr = df["addr"].to_numpy().astype(np.uint64)
    if fmt == "byu":
        q = df["reqtype"].to_numpy().astype(np.int64)
        mem = q <= 3  # I/O, control and bus-management cycles bypass the cache
        cache = df["proc"].to_numpy()[mem].astype(np.int64)
    else:
        q = df["type"].to_numpy().astype(np.int64)
        mem = np.isin(q, PEL_MEMORY)
        cache = np.zeros(int(mem.sum()), np.int64)
    block = addr[mem] >> np.uint64(LINE_SHIFT)
    group = cache * SETS + (block & np.uint64(SETS - 1)).astype(np.int64)
    sim = lru_local(group, block + np.uint64(1), q[mem], 256)
    return {"records": len(q), "count": np.bincount(q, minlength=256), "caches": set(np.unique(cache).tolist()),
            "sim": sim}


def bus_scan_range(rng, fmt):
    fields = ["addr", "reqtype", "proc"] if fmt == "byu" else ["addr", "type"]
    return bus_scan(trz.dask.read_partition(*rng, fields=fields), fmt)


def analyze_bus(client, path, fmt, records_per_partition=None):
    import dask
    ranges = trz.dask.chunk_ranges(path, records_per_partition)[0]
    parts, merge = [], LruMerge(256)
    for p in in_order(client, client.compute([dask.delayed(bus_scan_range)(r, fmt) for r in ranges])):
        merge.add(p.pop("sim"))
        parts.append(p)
    acc, hits = merge.acc, merge.hits
    records = sum(p["records"] for p in parts)
    count = sum((p["count"] for p in parts), np.zeros(256, np.int64))
    caches = len(set().union(*[p["caches"] for p in parts])) if fmt == "byu" else int(records > 0)
    return format_bus(fmt, records, count, acc, hits, caches)


def format_bus(fmt, records, count, acc, hits, caches):
    byu = fmt == "byu"
    kind = "BYU (12-byte records)" if byu else "PEL Pentium bus (6-byte records)"
    out = ["bus_stats: %d records, %s" % (records, kind),
           "cache: %d KB, %d-way, %d B lines, LRU, write-allocate, %s; %d cache%s"
           % (32, WAYS, 1 << LINE_SHIFT, "one per proc" if byu else "one", caches, "" if caches == 1 else "s"),
           "%-12s %12s %8s %12s %8s" % ("reqtype", "requests", "share%", "cached", "hit%")]
    for q in np.flatnonzero(count):
        name = BYU_NAMES.get(int(q), "0x%02x" % q) if byu else PEL_NAMES[q & 15]
        out.append("%-12s %12d %8s %12d %8s" % (name, count[q], pct(int(count[q]), records), acc[q],
                                                pct(int(hits[q]), int(acc[q]))))
    out.append("%-12s %12d %8s %12d %8s" % ("total", records, pct(records, records), acc.sum(),
                                            pct(int(hits.sum()), int(acc.sum()))))
    return "\n".join(out) + "\n"


def analyze(client, path, records_per_partition=None):
    """The report rst_stats or bus_stats prints for this archive."""
    with trz.open(path) as r:
        fmt = r.format
    if fmt == "rst":
        return analyze_rst(client, path, records_per_partition)
    if fmt in ("byu", "pbus"):
        return analyze_bus(client, path, fmt, records_per_partition)
    raise trz.TrzError("%s: %s records; dask_mix analyses rst, byu and pbus" % (path, fmt))


def _warm_up():
    """Import what the tasks use, once per worker, before any timing."""
    import dask.dataframe  # noqa: F401
    import pandas  # noqa: F401
    import trz.dask  # noqa: F401,F811
    import dask_mix  # noqa: F401
    return True


def start_cluster(workers=2, threads=1):
    """A LocalCluster of worker processes that can import trz and this file."""
    from distributed import Client, LocalCluster
    paths = [p for p in (PYDIR, HERE) if p]
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(paths + ([old] if old else []))
    cluster = LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    client.run(_warm_up)
    return cluster, client


def connect(address):
    """A client of a running cluster; this file is sent to its workers
    (trz itself must be importable there: PYTHONPATH=.../python)."""
    from distributed import Client
    client = Client(address)
    client.upload_file(os.path.abspath(__file__))
    client.run(_warm_up)
    return client


def main(argv=None):
    ap = argparse.ArgumentParser(description="rst_stats / bus_stats on a Dask cluster")
    ap.add_argument("files", nargs="+", metavar="FILE.trz")
    ap.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler instead of a local cluster")
    ap.add_argument("--partition-records", type=int, default=None,
                    help="records per partition, rounded up to whole chunks (default: one chunk each)")
    args = ap.parse_args(argv)
    cluster = None
    if args.scheduler:
        client = connect(args.scheduler)
    else:
        cluster, client = start_cluster(args.workers)
    rc = 0
    try:
        for f in args.files:
            t0 = time.perf_counter()
            try:
                sys.stdout.write(analyze(client, f, args.partition_records))
                sys.stdout.flush()
            except (trz.TrzError, OSError) as e:
                print("dask_mix: %s" % e, file=sys.stderr)
                rc = 1
                continue
            print("dask_mix: %s: %.2f s on %d workers" % (f, time.perf_counter() - t0,
                                                         len(client.scheduler_info()["workers"])), file=sys.stderr)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return rc


if __name__ == "__main__":
    # Run as the module dask_mix, not __main__, so that the workers import the
    # task functions instead of receiving each one pickled by value.
    import dask_mix as _self
    sys.exit(_self.main())

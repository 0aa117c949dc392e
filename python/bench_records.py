#!/usr/bin/env python3
"""bench_records.py - how fast trz.Reader.records() turns an archive into a
numpy structured array: the numpy step alone (decoded bytes -> fields),
and end to end (decompression included) with 1 and 2 decode threads.
Prints MB/s of raw records, best of --reps runs, one line per archive.
  bench_records.py [--reps N] FILE.trz..."""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trz  # noqa: E402


def best(fn, reps):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    for path in args.files:
        with trz.open(path) as r:
            if r.record_size == 0:
                print("%s: %s is text; records() parses lines (no MB/s target)" % (path, r.format))
            mb = r.raw_bytes / 1e6
            buf = r._read_into(None) if r.record_size else None
            numpy_only = mb / best(lambda: r._decode(buf, None), args.reps) if buf is not None else float("nan")

        def whole(threads):
            with trz.open(path, threads=threads) as rr:
                rr.records()
        e1 = mb / best(lambda: whole(1), args.reps)
        e2 = mb / best(lambda: whole(2), args.reps)
        print("file=%s format=%s MB=%.1f numpy_step_MBps=%.0f records_1thread_MBps=%.0f records_2threads_MBps=%.0f"
              % (os.path.basename(path), r.format, mb, numpy_only, e1, e2))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Dump the bench workload's per-series streams for the chunk cost report (ChunkCostReport).

Uses gen_workload.py of the remote-write benchmark harness (the directory in BENCH_DIR; see
docs/BENCHMARKS.md, "The harness") exactly as its main() does --
same Instance seeds, same scrape offsets, same jitter draws in the same order -- so the streams
are the samples of the data set `gen_workload.py --series S --samples N` would send, without the
remote-write encoding. Needs /usr/bin/python3 with python3-snappy (imported by gen_workload).

usage: BENCH_DIR=... scripts/bench-series-dump.py --series 2000 --samples 2880 --out /tmp/chunkbench/s2k-2880.bin

Output, all big-endian:
  magic "ILSD" u32(version 1) u32(series) u32(samples per series)
  per series: u16 len, kind (UTF-8, gorilla_cost.py's kind names), then samples x i64 timestamp ms,
              then samples x u64 IEEE-754 bits
"""
import argparse
import os
import random
import struct
import sys

BENCH = os.environ.get("BENCH_DIR")
if not BENCH:
    sys.exit("BENCH_DIR must name the remote-write benchmark harness (docs/BENCHMARKS.md)")
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.join(BENCH, "tools"))
import gen_workload as g  # noqa: E402
from gorilla_cost import kind_of  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--series", type=int, default=2000)
    ap.add_argument("--samples", type=int, default=2880)
    ap.add_argument("--interval", type=int, default=15)
    ap.add_argument("--jitter-frac", type=float, default=0.15)
    ap.add_argument("--jitter-ms", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--end-ms", type=int, default=1_796_000_000_000)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    n_inst = -(-a.series // g.SERIES_PER_INSTANCE)
    iv = a.interval * 1000
    end = a.end_ms // iv * iv - iv
    start = end - (a.samples - 1) * iv - 15000
    insts = [g.Instance(i, a.seed) for i in range(n_inst)]
    targets = []
    for inst in insts:
        targets.append((inst.off_vllm, inst, True))
        targets.append((inst.off_dcgm, inst, False))
    targets.sort(key=lambda t: (t[0], t[1].idx, not t[2]))
    jr = random.Random(a.seed + 7)
    ts = {}  # (idx, is_vllm) -> list
    vals = [[[] for _ in range(g.SERIES_PER_INSTANCE)] for _ in insts]
    for step in range(a.samples):
        grid = start + step * iv
        for inst in insts:
            inst.step()
            for s in range(g.SERIES_PER_INSTANCE):
                vals[inst.idx][s].append(inst.values[s])
        for off, inst, is_vllm in targets:
            j = 0 if jr.random() >= a.jitter_frac else jr.randint(-a.jitter_ms, a.jitter_ms)
            ts.setdefault((inst.idx, is_vllm), []).append(grid + off + j)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "wb") as f:
        f.write(b"ILSD" + struct.pack(">III", 1, n_inst * g.SERIES_PER_INSTANCE, a.samples))
        for inst in insts:
            for s in range(g.SERIES_PER_INSTANCE):
                k = kind_of(inst.labelsets[s]).encode()
                f.write(struct.pack(">H", len(k)) + k)
                f.write(struct.pack(">%dq" % a.samples, *ts[(inst.idx, s < inst.n_vllm)]))
                f.write(struct.pack(">%dd" % a.samples, *vals[inst.idx][s]))
    print("wrote", a.out, n_inst * g.SERIES_PER_INSTANCE, "series x", a.samples, file=sys.stderr)


if __name__ == "__main__":
    main()

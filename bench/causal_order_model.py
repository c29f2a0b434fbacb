#!/usr/bin/env python3
"""causal_order_model.py: how evenly the sm90 wgmma kernels' static causal job orders load the
SMs, from the jobs and the grid alone (no GPU).

The persistent kernels give block k of g the jobs job_at(i) of its rounds i = 0, 1, ...
(templates/sm90/attn_fwd_wgmma.cu.in; runtime/src/split_plan.h). A block's time is modelled as
the sum over its jobs of (the job's KV tiles + OVERHEAD), a job being one m-block of block_m
query rows of one (head, batch) pair, whose causal rows (Sq = Skv) see keys up to their own
position. The call's time is the largest block's; printed relative to the mean (1.000 = every
block ends together). Orders:

  pairs      m-blocks n_mb - 1 - k and k of one head in a block's two consecutive rounds, heads
             in order (odd n_mb: the middles paired across heads), no end
  pairs+R>=3 pairs with the longest-first end after the first 2 R rounds when R >= 3 (R =
             jobs / 2g - 1): the rule before run M94
  pairs+rule the end also when R >= 1 and ceil(P / g) > 1.1 P / g (P = pairs): the rule now
  longest    m-block-major from the last m-block, blocks reversed every other round
  dynamic    each job to the block that is free first, longest first (a counter; the bound the
             static orders are measured against)

The host's choice between pairs and longest first (one longest-first round's K/V above 40 MiB)
is printed beside. The orders are the runtime's own C specification (split_plan.c, which
tests/test_split_plan.c holds the kernels' job_at to), called in libattngen.so. Model only: L2 traffic and the per-call fixed cost are not in it (run M94 in
bench/RESULTS.md measured what it predicts).

  python3 bench/causal_order_model.py --shape 4,14,1800 --shape 2,12,3300,256
"""
import argparse
import ctypes
import heapq
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INT_MAX = 2**31 - 1


class PairEnd(ctypes.Structure):
    """runtime/src/split_plan.h attngen__pair_end."""
    _fields_ = [(n, ctypes.c_int) for n in
                ("round", "jobs", "hb0", "lo", "hi", "nf", "above", "mid", "uh", "hole")]


_lib = None


def lib(path=None):
    """libattngen.so (path, else where the Python package looks: $ATTNGEN_LIB, build*/), with
    the runtime's own order functions declared: the model runs the C specification of the orders
    (split_plan.c), not a copy of it."""
    global _lib
    if _lib is None or path:
        spec = importlib.util.spec_from_file_location(
            "attngen_lib_loader", os.path.join(ROOT, "python", "attngen", "_lib.py"))
        loader = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loader)  # (stdlib only: no torch)
        L = loader.load(path)
        L.attngen__pair_end_round.restype = ctypes.c_int
        L.attngen__pair_end_round.argtypes = [ctypes.c_long] * 3
        L.attngen__pair_end_plan.restype = None
        L.attngen__pair_end_plan.argtypes = [ctypes.c_long] * 3 + [ctypes.c_int,
                                                                    ctypes.POINTER(PairEnd)]
        L.attngen__pair_job.restype = ctypes.c_long
        L.attngen__pair_job.argtypes = [ctypes.POINTER(PairEnd)] + [ctypes.c_long] * 5
        L.attngen__causal_order.restype = ctypes.c_int
        L.attngen__causal_order.argtypes = [ctypes.c_int] * 5 + [ctypes.c_long] * 2 + \
            [ctypes.c_int] * 2
        _lib = L
    return _lib


def end_plan(n_mb, nhb, g, rule):
    """The pair order's end (split_plan.c attngen__pair_end_plan) under a rule: "none", "before"
    (R >= 3), "now" (attngen__pair_end_round); None where there is none."""
    L = lib()
    rp = n_mb * nhb // (2 * g) - 1
    rnd = (L.attngen__pair_end_round(n_mb, nhb, g) if rule == "now"
           else 2 * rp if rule == "before" and rp >= 3 else INT_MAX)
    e = PairEnd()
    L.attngen__pair_end_plan(n_mb, nhb, g, rnd, ctypes.byref(e))
    return e if e.round != INT_MAX else None


def pair_job(e, n_mb, nhb, g, i, k):
    """Job of round i on block k (split_plan.c attngen__pair_job); n_mb * nhb: none."""
    if e is None:
        e = PairEnd(round=INT_MAX)
    return lib().attngen__pair_job(ctypes.byref(e), n_mb, nhb, g, i, k)


def model(B, H, S, head_dim=128, grid=132, overhead=0.5, block_m=128, kv_tile=128, hkv=None):
    n_mb = -(-S // block_m)
    nhb = B * H
    n_jobs = n_mb * nhb
    g = min(grid, n_jobs)

    def cost(j):
        last = min(S, block_m * (j % n_mb) + block_m)
        return -(-last // kv_tile) + overhead

    mean = sum(cost(j) for j in range(n_jobs)) / g
    out = {}
    for name, rule in (("pairs", "none"), ("pairs+R>=3", "before"), ("pairs+rule", "now")):
        e = end_plan(n_mb, nhb, g, rule)
        worst = 0.0
        for k in range(g):
            load, i = 0.0, 0
            while i < 2 * (n_jobs // g) + 8:
                j = pair_job(e, n_mb, nhb, g, i, k)
                if j < n_jobs:
                    load += cost(j)
                i += 1
            worst = max(worst, load)
        out[name] = worst / mean
    load = [0.0] * g
    for f in range(n_jobs):
        i, r = divmod(f, g)
        k = g - 1 - r if i & 1 else r
        load[k] += cost((f % nhb) * n_mb + n_mb - 1 - f // nhb)
    out["longest"] = max(load) / mean
    heap = [0.0] * g
    for j in sorted(range(n_jobs), key=lambda j: -cost(j)):
        heapq.heappush(heap, heapq.heappop(heap) + cost(j))
    out["dynamic"] = max(heap) / mean
    order = lib().attngen__causal_order(B, H, hkv or H, S, head_dim, n_jobs, g, 0, 0)
    host = {1: "longest", 2: "pairs"}.get(order, str(order))
    pairs = (n_jobs + 1) // 2
    info = dict(n_mb=n_mb, R=n_jobs // (2 * g) - 1, loss=-(-pairs // g) * g / pairs, host=host)
    return info, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--shape", action="append", required=True, metavar="B,H,S[,HEAD_DIM]",
                    help="a causal self-attention call (repeatable); head_dim 128 by default")
    ap.add_argument("--grid", type=int, default=132, help="blocks (the SMs; default 132, H100/H200)")
    ap.add_argument("--overhead", type=float, default=0.5,
                    help="a job's fixed cost in KV tiles (default 0.5)")
    ap.add_argument("--lib", metavar="PATH",
                    help="libattngen.so (default: $ATTNGEN_LIB, else the build folders)")
    a = ap.parse_args(argv)
    shapes = []
    for s in a.shape:
        try:
            v = [int(x) for x in s.split(",")]
            if len(v) not in (3, 4) or min(v) < 1 or (len(v) == 4 and v[3] not in (64, 128, 256)):
                raise ValueError
        except ValueError:
            ap.error(f"--shape {s}: expected B,H,S or B,H,S,HEAD_DIM (positive integers; "
                     "HEAD_DIM 64, 128 or 256)")
        shapes.append(v if len(v) == 4 else v + [128])
    if a.grid < 1 or a.overhead < 0:
        ap.error("--grid: at least 1; --overhead: not negative")
    try:
        lib(a.lib)
    except Exception as e:  # the package loader's AttngenError or OSError
        print(f"causal_order_model.py: {e}", file=sys.stderr)
        return 1
    print("| shape | n_mb | R | ceil(P/g)/(P/g) | host | pairs | pairs+R>=3 | pairs+rule | longest |"
          " dynamic |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for B, H, S, hd in shapes:
        kv_tile = 64 if hd == 256 else 128
        info, out = model(B, H, S, hd, a.grid, a.overhead, 128, kv_tile)
        print(f"| ({B},{H},{S}) hd{hd} | {info['n_mb']} | {info['R']} | {info['loss']:.3f} | "
              f"{info['host']} | " + " | ".join(f"{out[k]:.3f}" for k in
                                                 ("pairs", "pairs+R>=3", "pairs+rule", "longest",
                                                  "dynamic")) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
is printed beside. Model only: L2 traffic and the per-call fixed cost are not in it (run M94 in
bench/RESULTS.md measured what it predicts).

  python3 bench/causal_order_model.py --shape 4,14,1800 --shape 2,12,3300,256
"""
import argparse
import heapq
import sys

L2_BUDGET = 40.0 * 1024 * 1024


def end_plan(n_mb, nhb, g, rule):
    """The pair order's end (split_plan.c attngen__pair_end_round / _plan), or None."""
    n_jobs = n_mb * nhb
    rp = n_jobs // (2 * g) - 1
    pairs = (n_jobs + 1) // 2
    rounds = -(-pairs // g)
    if rule == "none" or rp < 1:
        return None
    if not (rp >= 3 or (rule == "now" and 10 * rounds * g > 11 * pairs)):
        return None
    t0 = 2 * rp * g
    hb0, p0 = divmod(t0, n_mb)
    hole = (n_mb & hb0 & 1) and p0 > 0
    pp = p0 - 1 if hole else p0
    lo, hi, nf = pp >> 1, n_mb - 1 - ((pp + 1) >> 1), nhb - 1 - hb0
    e = dict(round=2 * rp, jobs=n_jobs - t0, hb0=hb0, lo=lo, hi=hi, nf=nf,
             above=(n_mb - 1 - hi) * nf, mid=(hi - lo + 1) * (nf + 1) - (1 if hole else 0),
             uh=None, hole=-1)
    if hole:
        e["hole"] = (n_mb - 1) >> 1
        e["uh"] = (hi - e["hole"]) * (nf + 1)
    return e


def pair_job(e, n_mb, nhb, g, i, k):
    """Job of round i on block k (split_plan.c attngen__pair_job); n_mb * nhb: none."""
    n_jobs = n_mb * nhb
    if e is not None and i >= e["round"]:
        tr = i - e["round"]
        t = tr * g + (g - 1 - k if tr & 1 else k)
        if t >= e["jobs"]:
            return n_jobs
        if e["above"] <= t < e["above"] + e["mid"]:
            u = t - e["above"]
            if e["uh"] is not None and u >= e["uh"]:
                if u < e["uh"] + e["nf"]:
                    return (e["hb0"] + 1 + u - e["uh"]) * n_mb + e["hole"]
                u += 1
            q = u // (e["nf"] + 1)
            return (e["hb0"] + u - q * (e["nf"] + 1)) * n_mb + e["hi"] - q
        u = t if t < e["above"] else t - e["mid"]
        q = u // e["nf"]
        m = n_mb - 1 - q if t < e["above"] else e["lo"] - 1 - (q - (n_mb - 1 - e["hi"]))
        return (e["hb0"] + 1 + u - q * e["nf"]) * n_mb + m
    f = ((i >> 1) * g + k) * 2 + (i & 1)
    if f >= n_jobs:
        return n_jobs
    hb, pos = divmod(f, n_mb)
    if n_mb & hb & 1:
        pos = n_mb - 1 if pos == 0 else pos - 1
    return hb * n_mb + (pos >> 1 if pos & 1 else n_mb - 1 - (pos >> 1))


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
    kv_heads = -(-min(nhb, g) // (H // hkv if hkv else 1))
    host = "pairs" if n_jobs >= 2 * g and kv_heads * S * head_dim * 4 > L2_BUDGET else "longest"
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

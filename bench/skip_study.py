#!/usr/bin/env python3
"""skip_study.py: what temporal tile skipping (attngen.SkipState, docs/NUMERICS.md "Tile
skipping") drops on a synthetic denoising sequence, per step and per threshold.

No trained weights: the queries and keys of a "video" of F frames x GH x GW patches are
    q_t = a * (P + C) + s_t * n_t^q,   k_t = a * (P + C) + s_t * n_t^k,   v_t = C_v + s_t * n_t^v
with P a positional code whose dot products fall off with the space-time distance of two
patches (random Fourier features of (frame, row, col) / --length: banded, local attention),
C a content vector shared by the patches of one space-time block (--block frames x rows x cols:
objects), n_t noise that drifts slowly from step to step (n_t = r n_{t-1} + sqrt(1 - r^2) fresh,
r = --drift-keep) and s_t a noise level that falls linearly from --noise to --noise-end over
the --steps steps (denoising). Each step runs the dense attention and, for every threshold
T, the skipping attention on that threshold's own SkipState (the lists written by the previous
step); it reports per step the skipped fraction (skipped / visited tiles) and the output error
of the skipping call against the dense call of the same step (relative L2 and max |diff|, fp32
over the whole output). The inputs of a step do not depend on earlier outputs, so the errors
are per step, not compounded as in a real pipeline.

  python3 bench/skip_study.py                                   # CPU, the fp32 reference
  python3 bench/skip_study.py --device cuda --grid 21,30,52 --heads 12 --time   # Wan 1.3B 480p
  python3 bench/skip_study.py --json out.json --md table.md

On the CPU the calls run on attngen's cpu backend (the reference, tile grid 128 x 128); on a GPU
on the kernels with skip = on (the dispatcher's choice; --time adds the time per call of the
dense and the skipping call, CUDA events, median of --iters calls after a warm-up, on the last
step's inputs, each skipping call reading the list of the call before).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

import torch  # noqa: E402

import attngen  # noqa: E402


def positional(F, GH, GW, D, length, gen):
    """[S, D] random Fourier features of (f, y, x) / length: P_i . P_j ~ (D / 2) * a Gaussian
    of the space-time distance (about `length` patches wide)."""
    f, y, x = torch.meshgrid(torch.arange(F), torch.arange(GH), torch.arange(GW), indexing="ij")
    pos = torch.stack([f, y, x], -1).reshape(-1, 3).double() / length
    w = torch.randn(3, D // 2, generator=gen, dtype=torch.float64)
    ph = pos @ w
    return torch.cat([ph.cos(), ph.sin()], -1).float()


def blocks(F, GH, GW, D, block, heads, gen):
    """[S, H, D]: one random vector per space-time block of block = (bf, by, bx) patches."""
    bf, by, bx = block
    nf, ny, nx = -(-F // bf), -(-GH // by), -(-GW // bx)
    c = torch.randn(nf, ny, nx, heads, D, generator=gen)
    f, y, x = torch.meshgrid(torch.arange(F), torch.arange(GH), torch.arange(GW), indexing="ij")
    return c[f // bf, y // by, x // bx].reshape(-1, heads, D)


def make_sequence(args, device):
    """Yields (q, k, v) [1, S, H, D] bf16 for each step."""
    F, GH, GW = args.grid
    S, H, D = F * GH * GW, args.heads, args.head_dim
    gen = torch.Generator().manual_seed(args.seed)
    P = positional(F, GH, GW, D, args.length, gen)[:, None, :].expand(S, H, D)
    C = blocks(F, GH, GW, D, args.block, H, gen)
    Cv = blocks(F, GH, GW, D, args.block, H, gen)
    struct = args.signal * (P + C)
    noise = [torch.randn(S, H, D, generator=gen) for _ in range(3)]
    r = args.drift_keep
    for t in range(args.steps):
        s = args.noise + (args.noise_end - args.noise) * t / max(args.steps - 1, 1)
        if t:
            noise = [r * n + math.sqrt(1 - r * r) * torch.randn(S, H, D, generator=gen)
                     for n in noise]
        q = struct + s * noise[0]
        k = struct + s * noise[1]
        v = Cv + s * noise[2]
        yield tuple(x[None].to(torch.bfloat16).to(device) for x in (q, k, v))


def errors(o, ref):
    d = (o.float() - ref.float())
    n = float(ref.float().norm())
    return float(d.norm()) / n if n else 0.0, float(d.abs().max())


def time_call(fn, iters):
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def run(args):
    device = torch.device(args.device)
    thresholds = [float(t) for t in args.thresholds.split(",")]
    states = {t: attngen.SkipState(threshold_log2=t) for t in thresholds}
    rows = []
    t0 = time.time()
    last = None
    for step, (q, k, v) in enumerate(make_sequence(args, device)):
        dense = attngen.attention(q, k, v)
        for t in thresholds:
            o = attngen.attention(q, k, v, skip=states[t])
            st = states[t].stats()
            rel, mx = errors(o, dense)
            rows.append({"step": step + 1, "threshold_log2": t, "skipped": st["skipped"],
                         "visited": st["visited"], "skipped_fraction": st["fraction"],
                         "rel_l2_err": rel, "max_abs_err": mx})
        last = (q, k, v)
        if args.verbose:
            print(f"step {step + 1}/{args.steps} done ({time.time() - t0:.1f} s)",
                  file=sys.stderr)
    timing = {}
    if args.time and device.type == "cuda":
        q, k, v = last
        timing["dense_ms"] = time_call(lambda: attngen.attention(q, k, v), args.iters)
        for t in thresholds:
            # the state goes on from the last step on the last step's inputs: each timed call
            # reads the previous one's list (tiles stay skipped, so the fraction can only grow;
            # the one reported is the last timed call's)
            s = states[t]
            ms = time_call(lambda s=s: attngen.attention(q, k, v, skip=s), args.iters)
            timing[str(t)] = {"ms": ms, "last_fraction": s.skipped_fraction}
    info = next(iter(states.values())).info()
    return {"grid": args.grid, "heads": args.heads, "head_dim": args.head_dim,
            "tokens": args.grid[0] * args.grid[1] * args.grid[2], "device": str(device),
            "tile_grid": [info["block_m"], info["block_n"]] if info else None,
            "variant": info["variant"] if info else None, "rows": rows, "timing": timing,
            "seconds": time.time() - t0, "args": vars(args)}


def summarize(res):
    """Markdown: per threshold the mean skipped fraction and errors over steps 2.., and the
    per-step table."""
    rows = res["rows"]
    ths = sorted({r["threshold_log2"] for r in rows}, reverse=True)
    out = [f"tokens {res['tokens']} (grid {res['grid']}), heads {res['heads']}, head_dim "
           f"{res['head_dim']}, {res['device']}, variant {res['variant']}, tile grid "
           f"{res['tile_grid']}", "",
           "| T (log2) | skipped, mean of steps 2.. | rel L2 err, mean | rel L2 err, max | "
           "max abs err |", "|---|---|---|---|---|"]
    for t in ths:
        rs = [r for r in rows if r["threshold_log2"] == t and r["step"] > 1]
        if not rs:
            continue
        out.append(f"| {t:g} | {statistics.mean(r['skipped_fraction'] for r in rs):.3f} | "
                   f"{statistics.mean(r['rel_l2_err'] for r in rs):.2e} | "
                   f"{max(r['rel_l2_err'] for r in rs):.2e} | "
                   f"{max(r['max_abs_err'] for r in rs):.2e} |")
    out += ["", "| step | " + " | ".join(f"T={t:g}: skipped / rel L2" for t in ths) + " |",
            "|---|" + "---|" * len(ths)]
    for step in sorted({r["step"] for r in rows}):
        cells = []
        for t in ths:
            r = next(r for r in rows if r["step"] == step and r["threshold_log2"] == t)
            cells.append(f"{r['skipped_fraction']:.3f} / {r['rel_l2_err']:.1e}")
        out.append(f"| {step} | " + " | ".join(cells) + " |")
    if res["timing"]:
        out += ["", f"time per call (median of {res['args']['iters']}, last step's inputs): "
                f"dense {res['timing']['dense_ms']:.3f} ms"]
        for t in ths:
            tm = res["timing"][str(t)]
            out.append(f"- T={t:g}: {tm['ms']:.3f} ms at skipped fraction "
                       f"{tm['last_fraction']:.3f} ({tm['ms'] / res['timing']['dense_ms']:.3f}x "
                       f"dense; (1 - f) = {1 - tm['last_fraction']:.3f})")
    return "\n".join(out) + "\n"


def grid3(text):
    v = tuple(int(x) for x in text.split(","))
    if len(v) != 3 or min(v) < 1:
        raise argparse.ArgumentTypeError("expected F,H,W (positive)")
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__[__doc__.index("\n") + 1:])
    ap.add_argument("--device", default="cpu", help="cpu (the reference) or cuda")
    ap.add_argument("--grid", type=grid3, default=(8, 16, 16),
                    help="frames,rows,cols of patches (default 8,16,16: 2048 tokens)")
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--head-dim", type=int, default=128, choices=(64, 128))
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--thresholds", default="-2,-4,-6,-8,-10",
                    help="comma-separated T values (log2 units, < 0; write "
                    "--thresholds=-4,-6: a value that starts with '-')")
    ap.add_argument("--length", type=float, default=2.0,
                    help="width of the positional fall-off in patches (default 2)")
    ap.add_argument("--block", type=grid3, default=(2, 4, 4),
                    help="frames,rows,cols of a content block (default 2,4,4)")
    ap.add_argument("--signal", type=float, default=0.7, help="a (default 0.7)")
    ap.add_argument("--noise", type=float, default=1.0, help="s at step 1 (default 1.0)")
    ap.add_argument("--noise-end", type=float, default=0.1, help="s at the last step (0.1)")
    ap.add_argument("--drift-keep", type=float, default=0.95,
                    help="r: noise kept from one step to the next (default 0.95)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time", action="store_true", help="cuda: time dense and skipping calls")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--json", help="write the results (every row) here")
    ap.add_argument("--md", help="write the markdown tables here")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    with torch.no_grad():
        res = run(args)
    text = summarize(res)
    print(text, end="")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()

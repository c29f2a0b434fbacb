#!/usr/bin/env python3
"""variant_race.py: forced attngen variants timed against each other on the same inputs.

For each shape (BSHD, bf16, random normal inputs, the Python API's default scale
1/sqrt(head_dim)): every variant of --variants once per round, in turn (CUDA events around
each call, after a GPU sleep so host overhead is hidden), --iters rounds; a variant's ratio is
the median of its per-round time / the first variant's (rounds cancel clock drift). Before
timing, each variant's output is compared with the first variant's: "same" (bitwise), else
the max |diff| / max |first| (variants with other KV tiles round P at other boundaries, so a
few 1e-3 is expected; the contract check is `attngen check`, not this). --peer-sdpa adds
SDPA forced to cuDNN as one more column (its TFLOP/s only).

  python3 bench/variant_race.py --lib .gpu/libattngen.so --head-dim 64 \\
      --variants attn_fwd_d64_..._kv128_w16_nosplit_tma_wgmma_sm90,... --shape 2,24,4429,4429
"""
import argparse
import os
import statistics
import sys

import torch

from skip_speed import time_one  # one call after a GPU sleep, timed with CUDA events

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", help="libattngen.so (default $ATTNGEN_LIB)")
    p.add_argument("--variants", required=True,
                   help="comma-separated canonical variant names; the first is the baseline")
    p.add_argument("--shape", action="append", default=[], metavar="B,H,SQ,SKV", required=True)
    p.add_argument("--head-dim", type=int, default=128, choices=[64, 128, 256])
    p.add_argument("--round", default="rtne", choices=["rtne", "rtna", "rtz"])
    p.add_argument("--iters", type=int, default=9)
    p.add_argument("--peer-sdpa", action="store_true", help="add SDPA (cuDNN) as a column")
    args = p.parse_args(argv)
    args.vs = [v for v in args.variants.split(",") if v]
    try:
        args.shapes = [tuple(int(x) for x in s.split(",")) for s in args.shape]
        if any(len(s) != 4 or min(s) < 1 for s in args.shapes):
            raise ValueError
    except ValueError:
        p.error(f"--shape: expected B,H,SQ,SKV (4 positive integers), got {args.shape}")
    if len(args.vs) < 2:
        p.error("--variants: give at least two (the first is the baseline)")
    if args.iters < 1:
        p.error(f"--iters: expected a positive integer, got {args.iters}")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.lib:
        os.environ["ATTNGEN_LIB"] = args.lib
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import attngen
    inf = attngen.info()
    print(f"attngen {inf['attngen']} @ {inf['build']} ({inf['library']}); "
          f"{torch.cuda.get_device_name()}; round {args.round}, head_dim {args.head_dim}")
    torch.manual_seed(1)
    d = args.head_dim
    names = [f"v{i}" for i in range(len(args.vs))]
    for i, v in enumerate(args.vs):
        print(f"  {names[i]} = {v}")
    print("| shape | " + " | ".join(f"{n} TFLOP/s" for n in names)
          + (" | cudnn TFLOP/s" if args.peer_sdpa else "") + " | "
          + " | ".join(f"{n} / v0 time" for n in names[1:]) + " | outputs vs v0 |")
    print("|---" * (1 + len(names) + (1 if args.peer_sdpa else 0) + len(names) - 1 + 1) + "|")
    for (B, H, S, T) in args.shapes:
        q = torch.randn(B, S, H, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, T, H, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, T, H, d, device="cuda", dtype=torch.bfloat16)
        flops = 4.0 * B * H * S * T * d
        fns, outs = {}, {}
        for n, var in zip(names, args.vs):
            outs[n] = attngen.attention(q, k, v, variant=var, rounding=args.round)
            fns[n] = (lambda var=var: attngen.attention(q, k, v, variant=var,
                                                        rounding=args.round))
        if args.peer_sdpa:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            qs, ks, vs = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)

            def cudnn():
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    torch.nn.functional.scaled_dot_product_attention(qs, ks, vs)
            fns["cudnn"] = cudnn
        cmp = []
        ref = outs[names[0]].float()
        for n in names[1:]:
            if torch.equal(outs[n], outs[names[0]]):
                cmp.append(f"{n} same")
            else:
                e = ((outs[n].float() - ref).abs().max() / ref.abs().max()).item()
                cmp.append(f"{n} {e:.1e}")
        t = {n: [] for n in fns}
        for _ in range(args.iters):
            for n, fn in fns.items():
                t[n].append(time_one(fn))
        med = {n: statistics.median(x) for n, x in t.items()}
        rat = [statistics.median(a / b for a, b in zip(t[n], t[names[0]])) for n in names[1:]]
        cells = [f"{flops / med[n] / 1e9:.1f}" for n in names]
        if args.peer_sdpa:
            cells.append(f"{flops / med['cudnn'] / 1e9:.1f}")
        cells += [f"{r:.3f}" for r in rat]
        print(f"| {(B, H, S, T)} | " + " | ".join(cells) + " | " + ", ".join(cmp) + " |",
              flush=True)


if __name__ == "__main__":
    main()

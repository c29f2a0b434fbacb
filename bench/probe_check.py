#!/usr/bin/env python3
"""probe_check.py: before a probe build is timed, its outputs against the base build's (bit
for bit) and against the fp64 attention, on inputs chosen to reach the softmax's rare paths.

A template change meant to keep the numerics contract (docs/NUMERICS.md) must give the base
build's outputs bit for bit; one that changes the contract must at least stay as close to the
exact attention as the base. Both are checked here on the GPU, per input kind and shape:

  rand     random normal q, k, v
  large    rand with a few query rows scaled by 30 (large scores, peaky rows)
  rising   the scores grow along the keys: every KV tile moves each row's max, by ~4-6 (log2)
  steep    as rising, ~45 per 128-key tile (a kernel's path for big jumps of the max)
  falling  the scores fall along the keys: the first tile holds every row's max
  spiky    rand with three late keys scaled by 8 (for most rows one big late move of the max)

Each case runs the base build (--lib) and each --alt-lib NAME=PATH on the same inputs (BSHD,
scale 1/sqrt(D)) and prints, per library: outputs differing from the base's (count), the
largest difference, relative L2 and largest absolute error against the fp64 attention (torch's
math SDPA in float64), and whether every output is finite.

Exit status 1 when a library named by --expect-same differs from the base anywhere, when a
library's relative L2 error exceeds the base's by more than --max-err-ratio on a case, or when
a library gives a non-finite output where the base's are finite; 2 on a usage error.

  python3 bench/probe_check.py --lib build/libattngen.so --alt-lib probe=/tmp/probe/libattngen.so \\
      --expect-same probe
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ("rand", "large", "rising", "steep", "falling", "spiky")
# (B, H, Sq, Skv, causal): ragged and cross lengths (masked last tiles), causal, many tiles
DEFAULT_CASES = ["1,3,1000,2999", "8,16,2048,2048", "c4,8,4096,4096", "2,4,1500,3000",
                 "c2,4,2048,2048", "1,2,777,5000"]


def parse_case(text):
    """'[c]B,H,SQ,SKV' -> (B, H, SQ, SKV, causal), or None."""
    causal = text.startswith("c")
    try:
        s = tuple(int(x) for x in text[1 if causal else 0:].split(","))
    except ValueError:
        return None
    if len(s) != 4 or min(s) < 1:
        return None
    return s + (causal,)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", default=os.environ.get("ATTNGEN_LIB"),
                   help="the base build's libattngen.so (default: $ATTNGEN_LIB)")
    p.add_argument("--alt-lib", action="append", default=[], metavar="NAME=PATH",
                   help="a probe build to check against the base (repeatable)")
    p.add_argument("--case", action="append", default=[], metavar="[c]B,H,SQ,SKV",
                   help="a shape (c: causal); repeatable (default: "
                        + " ".join(DEFAULT_CASES) + ")")
    p.add_argument("--kind", action="append", default=[], choices=KINDS,
                   help="input kinds (repeatable; default: all)")
    p.add_argument("--head-dim", type=int, default=128, choices=[64, 128, 256])
    p.add_argument("--round", default="rtne", choices=["rtne", "rtna", "rtz"],
                   help="rounding mode of P and out (default rtne)")
    p.add_argument("--expect-same", action="append", default=[], metavar="NAME",
                   help="an --alt-lib that must give the base's outputs bit for bit")
    p.add_argument("--max-err-ratio", type=float, default=1.02,
                   help="largest allowed ratio of a library's rel. L2 error vs fp64 to the "
                        "base's (default 1.02)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if not args.lib:
        p.error("--lib: the base build's libattngen.so is required (or $ATTNGEN_LIB)")
    sys.path.insert(0, HERE)
    import attngen_ctypes
    try:
        args.alts = attngen_ctypes.parse_alt_libs(args.alt_lib, ("base",))
    except ValueError as e:
        p.error(str(e))
    names = [n for n, _ in args.alts]
    if len(set(names)) != len(names):
        p.error("--alt-lib: each NAME once")
    for n in args.expect_same:
        if n not in names:
            p.error(f"--expect-same {n!r}: not an --alt-lib NAME ({', '.join(names) or 'none'})")
    args.cases = []
    for text in args.case or DEFAULT_CASES:
        c = parse_case(text)
        if c is None:
            p.error(f"--case {text!r}: expected [c]B,H,SQ,SKV (4 positive integers, c = causal)")
        args.cases.append(c)
    args.kinds = args.kind or list(KINDS)
    if not args.max_err_ratio >= 1.0:
        p.error(f"--max-err-ratio: expected a number >= 1, got {args.max_err_ratio}")
    return args


def make_inputs(kind, b, h, sq, skv, d, gen, device="cpu"):
    """q, k, v (bf16, BSHD) of one input kind; gen: a torch.Generator on the CPU."""
    import torch
    q = torch.randn(b, sq, h, d, generator=gen)
    k = torch.randn(b, skv, h, d, generator=gen)
    v = torch.randn(b, skv, h, d, generator=gen)
    if kind == "large":
        q[:, :5] *= 30.0
    elif kind in ("rising", "steep", "falling"):
        # the score component q_0 k_0 = 8 k_0 grows by 1 / 4 per key (rising, falling:
        # 0.032 in log2 units at d = 128, ~4 per 128-key tile, ~6 per 176) or by 2.75 (steep:
        # 0.35, ~45 per 128-key tile)
        j = torch.arange(skv, dtype=torch.float32)
        step = 0.34375 if kind == "steep" else 1.0 / 32.0
        q[..., 0] = 8.0
        k[..., 0] = (skv - j if kind == "falling" else j)[None, :, None] * step
    elif kind == "spiky":
        late = [x for x in (skv * 3 // 5, skv * 3 // 5 + 1, skv * 9 // 10) if x < skv]
        k[:, late] *= 8.0
    bf = torch.bfloat16
    return (q.to(bf).to(device), k.to(bf).to(device), v.to(bf).to(device))


def exact(q, k, v, causal):
    """The fp64 attention (BSHD), bottom-right causal as attngen's mask."""
    import torch
    qd, kd, vd = (t.transpose(1, 2).double() for t in (q, k, v))
    s = qd @ kd.transpose(-1, -2) / (q.shape[-1] ** 0.5)
    if causal:
        sq, skv = q.shape[1], k.shape[1]
        i = torch.arange(sq, device=q.device)[:, None]
        j = torch.arange(skv, device=q.device)[None, :]
        s = s.masked_fill(j > i + (skv - sq), float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)   # rows that see no key: 0
    return (p @ vd).transpose(1, 2)


def compare(out, base, ref):
    """(outputs differing from base, largest |out - base|, rel. L2 vs ref, max abs vs ref,
    all finite)."""
    import torch
    o = out.double()
    ndiff = int((out != base).sum().item())
    maxdiff = float((o - base.double()).abs().max().item()) if ndiff else 0.0
    e = o - ref
    err = float((e.norm() / ref.norm()).item())
    return ndiff, maxdiff, err, float(e.abs().max().item()), bool(torch.isfinite(out).all())


def main(argv=None):
    args = parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        sys.exit("probe_check.py: no CUDA device (torch.cuda.is_available() is False)")
    import attngen_ctypes
    libs = attngen_ctypes.open_libs([("base", args.lib)] + args.alts)
    gen = torch.Generator().manual_seed(args.seed)
    problems = []
    print(f"| case | kind | library | outputs != base | max diff | rel. L2 vs fp64 | max abs vs fp64 "
          f"| finite | variant |\n|---|---|---|---|---|---|---|---|---|")
    for (b, h, sq, skv, causal) in args.cases:
        for kind in args.kinds:
            q, k, v = make_inputs(kind, b, h, sq, skv, args.head_dim, gen, "cuda")
            ref = exact(q, k, v, causal)
            outs = []
            for name, ag in libs:
                o = torch.empty_like(q)
                a = ag.args(q, k, v, o, rounding=args.round, causal=causal)
                ag.fwd_args(a)
                torch.cuda.synchronize()
                outs.append((name, o, ag.explain(a)[0]))
            base = outs[0][1]
            case = f"({b},{h},{sq},{skv}{',causal' if causal else ''})"
            base_err = None
            base_finite = True
            for name, o, variant in outs:
                nd, md, err, mabs, fin = compare(o, base, ref)
                if name == "base":
                    base_err, base_finite = err, fin
                print(f"| {case} | {kind} | {name} | {nd} | {md:.3e} | {err:.4e} | {mabs:.3e} "
                      f"| {'yes' if fin else 'NO'} | `{variant}` |", flush=True)
                if name in args.expect_same and nd:
                    problems.append(f"{name} {case} {kind}: {nd} outputs differ from base's")
                if name != "base" and err > args.max_err_ratio * base_err:
                    problems.append(f"{name} {case} {kind}: rel. L2 {err:.4e} > "
                                    f"{args.max_err_ratio} x base's {base_err:.4e}")
                if name != "base" and base_finite and not fin:
                    problems.append(f"{name} {case} {kind}: non-finite outputs")
    for line in problems:
        print("FAIL " + line)
    print(f"probe_check: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

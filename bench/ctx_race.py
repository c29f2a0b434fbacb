#!/usr/bin/env python3
"""ctx_race.py: attngen contexts raced on the same calls in interleaved rounds, for the 1-2%
differences that bench.py's blocks of calls per kernel do not resolve.

Each --ctx NAME=PATH[,VAR=VALUE...] is one context of the libattngen.so at PATH, created with
the ATTNGEN_* environment variables given set (attngen reads them when a context is created,
e.g. ATTNGEN_CAUSAL_ORDER=1 or ATTNGEN_VARIANT=...), so one build can race itself under two
settings, or two builds each other. Per shape (BSHD, random normal bf16, scale 1/sqrt(D)),
every context runs the same call once per round, in the order given, each call after a GPU
sleep (host overhead hidden), for --iters rounds; a context's ratio is the median over the
rounds of its time / the first context's. Its outputs are compared bit for bit with the first
context's. Two contexts of the same build measure the race's own spread (H200, bench/RESULTS.md
run M44: within 0.5%, no effect of the position in the round).

  python3 bench/ctx_race.py --ctx main=/tmp/main/libattngen.so \\
      --ctx new=build/libattngen.so --ctx new_longest=build/libattngen.so,ATTNGEN_CAUSAL_ORDER=1 \\
      --causal --shape 4,32,4096 --shape 1,32,8192,8192,8

Each --fa3 NAME=PATH is a FlashAttention-3 library with bench.py's C entry point (bench.py's
docstring; built by the user, not part of this repository), raced in the same rounds after the
attngen contexts: so that an FA3 build and a change to it (e.g. a part of its softmax removed)
are timed beside attngen's in one process. Its outputs are compared with the first context's as
the largest absolute difference (FA3 rounds differently).

  python3 bench/ctx_race.py --ctx main=/tmp/main/libattngen.so --fa3 fa3=/x/libfa3_d128.so \
      --fa3 fa3_nomax=/y/libfa3_d128.so --shape 2,24,8192

Exit status: 0 done; 1 no CUDA device, or a library or call failed; 2 usage error.
"""
import argparse
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import attngen_ctypes  # noqa: E402

ENV_NAME = re.compile(r"ATTNGEN_[A-Z0-9_]+$")
DEFAULT_SHAPES = ["2,24,8192", "8,16,2048"]


def parse_ctx(text):
    """'NAME=PATH[,VAR=VALUE...]' -> (NAME, PATH, {VAR: VALUE}); ValueError naming what is
    wrong (NAME an identifier, PATH not empty, each VAR an ATTNGEN_* name)."""
    name, eq, rest = text.partition("=")
    if not eq or not name.isidentifier():
        raise ValueError(f"--ctx {text!r}: expected NAME=PATH[,VAR=VALUE...] with NAME an "
                         "identifier")
    path, *assigns = rest.split(",")
    if not path:
        raise ValueError(f"--ctx {text!r}: the library path is empty")
    env = {}
    for a in assigns:
        var, eq, value = a.partition("=")
        if not eq or not ENV_NAME.match(var):
            raise ValueError(f"--ctx {text!r}: {a!r} is not VAR=VALUE with VAR an ATTNGEN_* "
                             "variable")
        env[var] = value
    return name, path, env


def parse_fa3(text):
    """'NAME=PATH' -> (NAME, PATH); ValueError naming what is wrong."""
    name, eq, path = text.partition("=")
    if not eq or not name.isidentifier() or not path:
        raise ValueError(f"--fa3 {text!r}: expected NAME=PATH with NAME an identifier and PATH "
                         "not empty")
    return name, path


def parse_shape(text):
    """'B,H,SQ[,SKV[,HKV]]' -> (B, H, SQ, SKV, HKV), or None (SKV defaults to SQ, HKV to H; HKV
    must divide H)."""
    try:
        s = [int(x) for x in text.split(",")]
    except ValueError:
        return None
    if not 3 <= len(s) <= 5 or min(s) < 1:
        return None
    b, h, sq = s[:3]
    skv = s[3] if len(s) > 3 else sq
    hkv = s[4] if len(s) > 4 else h
    if h % hkv:
        return None
    return b, h, sq, skv, hkv


pairs = attngen_ctypes.mask_pairs   # (query, key) pairs a call computes (causal: kept ones)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ctx", action="append", default=[], metavar="NAME=PATH[,VAR=VALUE...]",
                   help="a context to race (at least one; the first is the reference)")
    p.add_argument("--fa3", action="append", default=[], metavar="NAME=PATH",
                   help="a FlashAttention-3 library to race beside them (repeatable)")
    p.add_argument("--shape", action="append", default=[], metavar="B,H,SQ[,SKV[,HKV]]",
                   help="a shape (repeatable; default " + " ".join(DEFAULT_SHAPES) + ")")
    p.add_argument("--causal", action="store_true", help="the causal mask (bottom-right)")
    p.add_argument("--head-dim", type=int, default=128, choices=[64, 128, 256])
    p.add_argument("--round", default="rtne", choices=["rtne", "rtna", "rtz"])
    p.add_argument("--iters", type=int, default=15, help="rounds (default 15)")
    args = p.parse_args(argv)
    try:
        args.ctxs = [parse_ctx(t) for t in args.ctx]
        args.fa3s = [parse_fa3(t) for t in args.fa3]
    except ValueError as e:
        p.error(str(e))
    if not args.ctxs or len(args.ctxs) + len(args.fa3s) < 2:
        p.error("--ctx: give at least two contexts, or one and a --fa3 (the first --ctx is the "
                "reference)")
    names = [c[0] for c in args.ctxs] + [f[0] for f in args.fa3s]
    if len(set(names)) != len(names):
        p.error("--ctx/--fa3: each NAME once")
    args.shapes = []
    for text in args.shape or DEFAULT_SHAPES:
        s = parse_shape(text)
        if s is None:
            p.error(f"--shape {text!r}: expected B,H,SQ[,SKV[,HKV]] (positive integers, HKV "
                    "dividing H)")
        args.shapes.append(s)
    if args.iters < 1:
        p.error(f"--iters: expected an integer >= 1, got {args.iters}")
    return args


def open_contexts(ctxs):
    """[(NAME, Attngen)], each created with its variables set (and then restored)."""
    if len({path for _, path, _ in ctxs}) > 1:
        attngen_ctypes.allow_more_copies()
    out = []
    for name, path, env in ctxs:
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            out.append((name, attngen_ctypes.Attngen(path, backend="cuda")))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return out


def main(argv=None):
    args = parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print("ctx_race.py: no CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
        return 1
    from skip_speed import time_one
    try:
        ctxs = open_contexts(args.ctxs)
    except Exception as e:  # a library that does not load or a context that does not open
        print(f"ctx_race.py: {e}", file=sys.stderr)
        return 1
    fa3s = []
    if args.fa3s:
        from bench import FA3   # needs torch >= 2.3 (SDPA backends); only for --fa3
        try:
            fa3s = [(n, FA3(path, args.head_dim, args.causal)) for n, path in args.fa3s]
        except OSError as e:
            print(f"ctx_race.py: --fa3: {e}", file=sys.stderr)
            return 1
        for n, f in fa3s:
            if not f.fn_ok:
                print(f"ctx_race.py: --fa3 {n}: the library has no {f.name}", file=sys.stderr)
                return 1
    names = [n for n, _ in ctxs] + [n for n, _ in fa3s]
    fa3_names = {n for n, _ in fa3s}
    print(f"{torch.cuda.get_device_name()}; round {args.round}, head_dim {args.head_dim}"
          f"{', causal' if args.causal else ''}; {args.iters} interleaved rounds")
    for name, path, env in args.ctxs:
        print(f"  {name} = {path}" + "".join(f" {k}={v}" for k, v in env.items()))
    for name, f in fa3s:
        print(f"  {name} = {f.path} (FlashAttention-3, {f.name})")
    print("| shape | " + " | ".join(f"{n} TFLOP/s" for n in names) + " | "
          + " | ".join(f"{n} / {names[0]} time" for n in names[1:])
          + f" | outputs vs {names[0]} | {names[0]}: variant"
          + (", causal job order |" if args.causal else " |"))
    print("|---" * (2 * len(names) + 2) + "|")
    torch.manual_seed(1)
    d = args.head_dim
    for (b, h, sq, skv, hkv) in args.shapes:
        q = torch.randn(b, sq, h, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, skv, hkv, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, skv, hkv, d, device="cuda", dtype=torch.bfloat16)
        outs = {n: torch.empty_like(q) for n in names}
        try:
            calls = {n: c.args(q, k, v, outs[n], rounding=args.round, causal=args.causal,
                               heads_kv=hkv) for n, c in ctxs}
            run = {n: (lambda c=c, n=n: c.fwd_args(calls[n])) for n, c in ctxs}
            for n, f in fa3s:
                if hkv != h and not f.with_hk:
                    raise RuntimeError(f"--fa3 {n}: {f.name} has no KV-head argument")
                prep = f.prepare(q, k, v, outs[n], "bshd")
                run[n] = lambda f=f, prep=prep: f(prep)
            for n in names:
                run[n]()
                run[n]()
            torch.cuda.synchronize()
            why = dict(ctxs)[names[0]].explain(calls[names[0]])
        except Exception as e:
            print(f"ctx_race.py: {(b, h, sq, skv, hkv)}: {e}", file=sys.stderr)
            return 1
        cmp = []
        for n in names[1:]:
            if n in fa3_names:
                diff = (outs[n].float() - outs[names[0]].float()).abs().max().item()
                cmp.append(f"{n} max abs diff {diff:.3g}")
                continue
            nd = int((outs[n] != outs[names[0]]).sum().item())
            cmp.append(f"{n} bitwise equal" if nd == 0 else f"{n} {nd} differ")
        t = {n: [] for n in names}
        for _ in range(args.iters):
            for n in names:
                t[n].append(time_one(run[n]))
        flops = 4.0 * b * h * pairs(sq, skv, args.causal) * d
        cells = [f"{flops / statistics.median(t[n]) / 1e9:.1f}" for n in names]
        cells += [f"{statistics.median(x / y for x, y in zip(t[n], t[names[0]])):.3f}"
                  for n in names[1:]]
        shape = f"({b},{h}{'/' + str(hkv) if hkv != h else ''},{sq},{skv})"
        order = f", {why[2].split('; ')[-1]}" if args.causal else ""
        print(f"| {shape} | " + " | ".join(cells) + f" | {', '.join(cmp)} | `{why[0]}`{order} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

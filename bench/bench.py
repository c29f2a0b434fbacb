#!/usr/bin/env python3
"""bench.py: attngen vs PyTorch SDPA (cuDNN, FlashAttention, memory-efficient backends) and,
when given its library, FlashAttention-3 on the shapes of docs/SHAPES.md, side by side in one
process on one NVIDIA GPU, plus a bf16 GEMM 8192^3 as the same-run ceiling. Prints TFLOP/s per
shape and kernel and the ratios attngen/peer; --md writes a markdown block ready for
bench/RESULTS.md.

Timing (docs/SHAPES.md): warm-up calls first, then the median of many timed calls, each between
two CUDA events and each after a GPU sleep (--gpu-sleep-us), so the host's launch overhead
of the next call is hidden behind the sleep for every kernel alike; calls rotate over several
input sets so that repeated calls do not run from L2; inputs are random normal bf16 (never
zeros). FLOPs of a call = 4*B*H*Sq*Skv*D (D = --head-dim, default 128).

Peer fa3 (FlashAttention-3, not part of this repository): a shared library built by the user
from a FlashAttention checkout (hopper/) that exports the C function
    int fa3_fwd_bf16_hd128(void *q, void *k, void *v, void *o, void *lse, int b, int h,
        int sq, int skv, long long q_batch_stride, long long q_row_stride,
        long long q_head_stride, (the same three for k, v and o), float scale, int num_sm,
        void *stream)
(strides in elements; lse: fp32 [b, h, sq]; returns 0 or a cudaError_t) filling
Flash_fwd_params as FlashAttention-3's mha_fwd does with num_splits = 1, and optionally
`const char *fa3_error_string(int)`. Its path: --fa3-lib or $ATTNGEN_FA3_LIB. For other head
dims, the causal mask and grouped-query calls the library exports
    int fa3_fwd_bf16_d<D>[_causal](the same, with `int h_k` (KV heads) after h)
e.g. fa3_fwd_bf16_d64, fa3_fwd_bf16_d128_causal; a configuration whose symbol the library
lacks is reported n/a for fa3 (fa3_fwd_bf16_d128 is preferred to fa3_fwd_bf16_hd128 when
both exist; the latter serves dense MHA calls at head_dim 128 only).

  python3 bench/bench.py --lib build/libattngen.so --shapes all --md results.md
  python3 bench/bench.py --peers cudnn,fa3 --fa3-lib /path/libfa3.so --shape 1,4,4608,4608
"""
import argparse
import ctypes
import datetime
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attngen_ctypes  # noqa: E402

HEAD_DIM = 128

# (B, H, Sq, Skv) per group, from docs/SHAPES.md.
SWEEP = [(2, 24, 8192), (2, 24, 16384), (1, 32, 16384), (4, 16, 16384), (1, 64, 16384),
         (2, 24, 32768), (2, 16, 65536), (2, 8, 86016), (1, 16, 131072)]
SHAPES = {
    "sweep": [(b, h, s, s) for b, h, s in SWEEP],
    "video": [(1, 12, 32760, 32760), (1, 40, 75600, 75600), (2, 40, 32760, 32760),
              (1, 12, 32760, 512), (1, 40, 75600, 512), (2, 40, 32760, 257)],
    "short": [(32, 16, 512, 512), (16, 16, 1024, 1024), (8, 16, 2048, 2048)],
    "fewhead": [(1, 3, 32760, 32760), (1, 4, 4608, 4608), (2, 5, 75600, 75600)],
    # LLM prefill (docs/SHAPES.md), run with the causal mask: MHA, Llama-style GQA (32 query
    # heads over 8 KV heads: a 5th number is heads_kv) and MQA
    "prefill": [(4, 32, 4096, 4096), (1, 32, 8192, 8192, 8), (1, 64, 16384, 16384, 1)],
    # head_dim 64 (run with --head-dim 64): SD3 1024px joint attention (4096 latent + 333
    # text tokens), an LLM hd64 set, a video-length one
    "hd64": [(2, 24, 4429, 4429), (4, 16, 4096, 4096), (1, 16, 16384, 16384),
             (1, 24, 32760, 32760), (16, 12, 1024, 1024)],
    # head_dim 256 (run with --head-dim 256): LLM prefill lengths, and Gemma-like grouped-query
    # attention (16 query heads over 8 KV heads)
    "hd256": [(1, 16, 8192, 8192), (4, 8, 4096, 4096), (1, 16, 16384, 16384, 8)],
}

# The packed varlen batch of docs/SHAPES.md (--shapes varlen): sequences, heads, KV heads,
# length range and total tokens; the lengths are drawn per --seed (varlen_lengths).
VARLEN = {"sequences": 16, "heads": 32, "heads_kv": 8, "min": 256, "max": 16384,
          "total": 65536}

PEERS = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION),
         ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("fa3", None)]
PEER_NAMES = [p for p, _ in PEERS]

L2_ROTATE_BYTES = 512 << 20  # input sets per shape cover at least this much memory


def flops(b, h, sq, skv, causal=False):
    """2 x multiply-adds of QK^T and PV over the (query, key) pairs the mask keeps (causal:
    bottom-right aligned, row i sees min(max(i + skv - sq + 1, 0), skv) keys)."""
    return 4.0 * b * h * attngen_ctypes.mask_pairs(sq, skv, causal) * HEAD_DIM


SLEEP_CYCLES = [0]  # GPU clock cycles of torch.cuda._sleep before each timed call


def time_calls(fn, nsets, budget_s, min_iters, max_iters, warmup):
    """Median milliseconds of fn(i) over timed calls, rotating i over nsets input sets.
    Warm-up: `warmup` calls, fewer when they take more than a second (huge shapes). Each
    timed call follows a GPU sleep of SLEEP_CYCLES[0] cycles: while the GPU sleeps the host
    queues the call, so its events time the kernel(s) without the host's launch overhead."""
    t0 = time.time()
    for i in range(warmup):
        fn(i % nsets)
        torch.cuda.synchronize()
        if time.time() - t0 > 1.0:
            break
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn(0)
    end.record()
    end.synchronize()
    estimate_ms = max(start.elapsed_time(end), 1e-3)
    iters = int(min(max_iters, max(min_iters, budget_s * 1e3 / estimate_ms)))
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(iters)]
    for i, (s, e) in enumerate(events):
        if SLEEP_CYCLES[0] > 0:
            torch.cuda._sleep(SLEEP_CYCLES[0])
        s.record()
        fn((i + 1) % nsets)
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events), iters


def dims(shape):
    """(b, h, sq, skv, heads_kv) of a shape (B, H, Sq, Skv[, H_kv])."""
    b, h, sq, skv = shape[:4]
    return b, h, sq, skv, shape[4] if len(shape) > 4 else h


def make_sets(b, h, sq, skv, layout, nsets, gen, hkv=None):
    """nsets input sets (q, k, v, out) in `layout`, random normal bf16; k, v with hkv heads."""
    hkv = h if hkv is None else hkv

    def shape(s, heads):
        return (b, s, heads, HEAD_DIM) if layout == "bshd" else (b, heads, s, HEAD_DIM)
    sets = []
    for _ in range(nsets):
        q = torch.randn(shape(sq, h), device="cuda", dtype=torch.bfloat16, generator=gen)
        k = torch.randn(shape(skv, hkv), device="cuda", dtype=torch.bfloat16, generator=gen)
        v = torch.randn(shape(skv, hkv), device="cuda", dtype=torch.bfloat16, generator=gen)
        sets.append((q, k, v, torch.empty_like(q)))
    return sets


def sdpa_view(x, layout):
    """SDPA takes [B, H, S, D]: BSHD tensors go in as transposed views (no copy)."""
    return x.transpose(1, 2) if layout == "bshd" else x


class FA3:
    """FlashAttention-3 through the C entry point of a user-built library (see the module
    docstring); called on the current stream with strides taken from the torch tensors."""

    def __init__(self, path, head_dim=128, causal=False):
        if not path:
            sys.exit("bench.py: peer fa3 needs --fa3-lib PATH or $ATTNGEN_FA3_LIB")
        self.lib = ctypes.CDLL(path)
        name = f"fa3_fwd_bf16_d{head_dim}" + ("_causal" if causal else "")
        self.with_hk = hasattr(self.lib, name)
        if self.with_hk:
            self.fn = getattr(self.lib, name)
        elif head_dim == 128 and not causal and hasattr(self.lib, "fa3_fwd_bf16_hd128"):
            self.fn, name = self.lib.fa3_fwd_bf16_hd128, "fa3_fwd_bf16_hd128"
        else:
            self.fn = None
        self.name = name
        self.fn_ok = self.fn is not None
        if self.fn is not None:
            self.fn.restype = ctypes.c_int
            self.fn.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int] * (5 if self.with_hk else 4) \
                + [ctypes.c_longlong] * 12 + [ctypes.c_float, ctypes.c_int, ctypes.c_void_p]
        self.err = getattr(self.lib, "fa3_error_string", None)
        if self.err is not None:
            self.err.restype = ctypes.c_char_p
            self.err.argtypes = [ctypes.c_int]
        self.num_sm = torch.cuda.get_device_properties(0).multi_processor_count
        self.path = path

    def prepare(self, q, k, v, o, layout):
        """The argument tuple of one call (BSHD or BHSD tensors; an fp32 LSE buffer)."""
        if layout == "bshd":
            b, sq, h, d = q.shape
            skv = k.shape[1]
            dims = (0, 1, 2)                  # batch, row, head strides
        else:
            b, h, sq, d = q.shape
            skv = k.shape[2]
            dims = (0, 2, 1)
        hk = k.shape[2] if layout == "bshd" else k.shape[1]
        lse = torch.empty((b, h, sq), device=q.device, dtype=torch.float32)
        strides = [t.stride(i) for t in (q, k, v, o) for i in dims]
        stream = torch.cuda.current_stream().cuda_stream
        heads = (h, hk) if self.with_hk else (h,)
        return (lse, (q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(),
                      b, *heads, sq, skv, *strides, 1.0 / math.sqrt(d), self.num_sm, stream))

    def __call__(self, prepared):
        rc = self.fn(*prepared[1])
        if rc != 0:
            msg = self.err(rc).decode() if self.err is not None else ""
            raise RuntimeError(f"{self.name} returned {rc} {msg}")


def gemm_ceiling(args):
    n = 8192
    gen = torch.Generator(device="cuda").manual_seed(7)
    sets = [(torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=gen),
             torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=gen),
             torch.empty(n, n, device="cuda", dtype=torch.bfloat16)) for _ in range(3)]
    ms, _ = time_calls(lambda i: torch.matmul(sets[i][0], sets[i][1], out=sets[i][2]), 3,
                       args.budget, 10, 200, 5)
    del sets
    torch.cuda.empty_cache()
    return 2.0 * n ** 3 / (ms * 1e-3) / 1e12


def bench_shape(ag, shape, layout, args, gen):
    b, h, sq, skv, hkv = dims(shape)
    set_bytes = 2 * HEAD_DIM * b * (2 * h * sq + 2 * hkv * skv)
    nsets = max(2, min(8, math.ceil(L2_ROTATE_BYTES / set_bytes)))
    # The biggest shapes (tens of GB of inputs per set) keep to two sets.
    sets = make_sets(b, h, sq, skv, layout, nsets, gen, hkv)
    stream = torch.cuda.current_stream().cuda_stream
    row = {"shape": shape, "layout": layout, "tflops": {}, "iters": {}, "variant": "",
           "check": None}
    fl = flops(b, h, sq, skv, causal=args.causal)

    ag_args = [ag.args(q, k, v, o, layout=layout, rounding=args.round, stream=stream,
                       variant=args.variant, causal=args.causal, heads_kv=hkv)
               for q, k, v, o in sets]
    try:
        row["variant"] = ag.explain(ag_args[0])[0]
        ms, it = time_calls(lambda i: ag.fwd_args(ag_args[i]), nsets, args.budget,
                            args.min_iters, args.max_iters, args.warmup + 1)
        row["tflops"]["attngen"], row["iters"]["attngen"] = fl / (ms * 1e-3) / 1e12, it
    except attngen_ctypes.AttngenError as e:
        print(f"  attngen: {e}", file=sys.stderr)

    for name, alt in args.alts:
        # Another libattngen build, same calls and inputs (an A/B in one step).
        alt_args = [alt.args(q, k, v, o, layout=layout, rounding=args.round, stream=stream,
                             variant=args.variant, causal=args.causal, heads_kv=hkv)
                    for q, k, v, o in sets]
        try:
            ms, it = time_calls(lambda i: alt.fwd_args(alt_args[i]), nsets, args.budget,
                                args.min_iters, args.max_iters, args.warmup + 1)
            row["tflops"][name], row["iters"][name] = fl / (ms * 1e-3) / 1e12, it
        except attngen_ctypes.AttngenError as e:
            print(f"  {name}: {e}", file=sys.stderr)
        del alt_args

    for peer, backend in PEERS:
        if peer not in args.peers:
            continue
        if peer == "fa3" and not args.fa3.fn_ok:
            print(f"  fa3: n/a (the library has no {args.fa3.name})", file=sys.stderr)
            continue
        if peer == "fa3" and hkv != h and not args.fa3.with_hk:
            print(f"  fa3: n/a ({args.fa3.name} has no KV-head argument)", file=sys.stderr)
            continue
        if peer == "fa3":
            outs = [torch.empty_like(q) for q, _, _, _ in sets]
            prepared = [args.fa3.prepare(q, k, v, o, layout)
                        for (q, k, v, _), o in zip(sets, outs)]

            def call(i, prepared=prepared, outs=outs):
                args.fa3(prepared[i])
                return sdpa_view(outs[i], layout)
        else:
            views = [(sdpa_view(q, layout), sdpa_view(k, layout), sdpa_view(v, layout))
                     for q, k, v, _ in sets]

            gqa = {"enable_gqa": True} if hkv != h else {}

            def call(i, views=views, backend=backend, gqa=gqa):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(*views[i], is_causal=args.causal,
                                                          **gqa)
        try:
            ms, it = time_calls(call, nsets, args.budget, args.min_iters, args.max_iters,
                                args.warmup)
            row["tflops"][peer], row["iters"][peer] = fl / (ms * 1e-3) / 1e12, it
            if row["check"] is None and "attngen" in row["tflops"]:
                # attngen's last output of set 0 against this peer (both bf16, scale 1/sqrt(D)).
                ag.fwd_args(ag_args[0])
                ref = call(0)
                got = sdpa_view(sets[0][3], layout)
                row["check"] = (peer, (got.float() - ref.float()).abs().max().item())
                del ref
        except Exception as e:  # a backend that does not support the shape or layout
            print(f"  {peer}: n/a ({type(e).__name__}: {str(e).splitlines()[0][:120]})",
                  file=sys.stderr)
    del sets, ag_args
    torch.cuda.empty_cache()
    return row


def time_named(res, name, fn, nsets, args, real, extra=lambda ms: ""):
    """Times fn (time_calls) into res[name] and prints its ms and TFLOP/s over `real` FLOPs
    (plus extra(ms)); a peer that is missing or refuses the call prints n/a instead."""
    try:
        ms, it = time_calls(fn, nsets, args.budget, args.min_iters, args.max_iters, args.warmup)
        res[name] = ms
        print(f"  {name}: {ms:.3f} ms, {real / (ms * 1e-3) / 1e12:.1f} TFLOP/s on the real "
              f"pairs{extra(ms)} ({it} calls)", flush=True)
    except Exception as e:  # a peer that is missing or refuses the call
        print(f"  {name}: n/a ({type(e).__name__}: {str(e).splitlines()[0][:160]})", flush=True)


def varlen_lengths(seed, n=VARLEN["sequences"], lo=VARLEN["min"], hi=VARLEN["max"],
                   total=VARLEN["total"]):
    """n long-tailed lengths in [lo, hi] summing to about `total`: log-normal draws
    (sigma 1.2, seeded) scaled to the total, clamped, rescaled until the clamps settle, then
    rounded to multiples of 8; sorted longest first for the printout only."""
    import random
    r = random.Random(seed)
    x = [math.exp(r.gauss(0.0, 1.2)) for _ in range(n)]
    x = [v * total / sum(x) for v in x]
    for _ in range(50):
        x = [min(hi, max(lo, v)) for v in x]
        free = [i for i in range(n) if lo < x[i] < hi]
        fixed = sum(v for i, v in enumerate(x) if i not in free)
        if not free or abs(sum(x) - total) < 1:
            break
        scale = (total - fixed) / sum(x[i] for i in free)
        x = [v * scale if i in free else v for i, v in enumerate(x)]
    return [int(min(hi, max(lo, round(v / 8) * 8))) for v in x]


def causal_pairs(n):
    """(query, key) pairs of a causal self-attention sequence of n tokens."""
    return n * (n + 1) // 2


def bench_varlen(ag, args, gen):
    """--shapes varlen: one packed causal batch (FlashAttention's varlen convention) against
    the dense kernel on the padded equivalent (every sequence padded to the longest, causal,
    B = sequences) and against the peers that take packed batches. TFLOP/s count the (query,
    key) pairs the causal mask keeps in the real sequences for every column (the padded call
    computes more: its time per real token is what the comparison is about); the dense
    kernel's own rate on the pairs it computes is printed too."""
    lens = varlen_lengths(args.seed)
    n, h, hkv = len(lens), VARLEN["heads"], VARLEN["heads_kv"]
    total, mx = sum(lens), max(lens)
    print(f"varlen batch (seed {args.seed}): {n} sequences, {total} tokens, lengths "
          f"{sorted(lens, reverse=True)}; {h} query heads over {hkv} KV heads, causal")
    cu = torch.tensor([0] + [sum(lens[:i + 1]) for i in range(n)], dtype=torch.int32,
                      device="cuda")
    real = 4.0 * h * HEAD_DIM * sum(causal_pairs(x) for x in lens)
    nsets = 2
    sets = []
    for _ in range(nsets):
        q = torch.randn(total, h, HEAD_DIM, device="cuda", dtype=torch.bfloat16, generator=gen)
        k = torch.randn(total, hkv, HEAD_DIM, device="cuda", dtype=torch.bfloat16, generator=gen)
        v = torch.randn(total, hkv, HEAD_DIM, device="cuda", dtype=torch.bfloat16, generator=gen)
        sets.append((q, k, v, torch.empty_like(q)))
    stream = torch.cuda.current_stream().cuda_stream
    res = {}

    def timed(name, fn):
        time_named(res, name, fn, nsets, args, real,
                   lambda ms: f", {ms * 1e3 / total:.4f} us per real token")

    ag_args = [ag.varlen_args(q, k, v, o, cu, cu, mx, mx, rounding=args.round, stream=stream,
                              variant=args.variant, causal=True) for q, k, v, o in sets]
    variant = ag.explain(ag_args[0])[0]
    timed("attngen varlen", lambda i: ag.fwd_args(ag_args[i]))
    # the padded equivalent: [n, max, H, 128], causal, every sequence padded to the longest
    pad = make_sets(n, h, mx, mx, "bshd", 1, gen, hkv)
    pad_args = [ag.args(q, k, v, o, layout="bshd", rounding=args.round, stream=stream,
                        variant=args.variant, causal=True, heads_kv=hkv) for q, k, v, o in pad]
    pad_variant = ag.explain(pad_args[0])[0]
    timed("attngen dense, padded", lambda i: ag.fwd_args(pad_args[0]))
    if "attngen dense, padded" in res:
        padded = flops(n, h, mx, mx, causal=True)
        ms = res["attngen dense, padded"]
        print(f"  (the padded call computes {padded / real:.2f}x the real pairs: "
              f"{padded / (ms * 1e-3) / 1e12:.1f} TFLOP/s on the pairs it computes)")
    del pad, pad_args
    torch.cuda.empty_cache()
    print("  torch SDPA (cudnn, flash, efficient): n/a (scaled_dot_product_attention has no "
          "packed variable-length form; nested tensors are not timed here)")
    # FlashAttention-2 / -3 when installed: their own flash_attn_varlen_func
    for name, module in (("flash-attn 2", "flash_attn"), ("flash-attn 3", "flash_attn_interface")):
        try:
            fn = __import__(module, fromlist=["flash_attn_varlen_func"]).flash_attn_varlen_func
        except ImportError as e:
            print(f"  {name}: n/a (import {module}: {e})")
            continue
        timed(name, lambda i, fn=fn: fn(sets[i][0], sets[i][1], sets[i][2], cu, cu, mx, mx,
                                        causal=True))
    if "fa3" in args.peers:
        print("  fa3 (--fa3-lib): n/a (its C entry point is dense; the installed "
              "flash_attn_interface above is FlashAttention-3's varlen path)")
    # correctness next to the timing: sequence 0 and the longest against attngen's dense call
    ag.fwd_args(ag_args[0])
    q, k, v, o = sets[0]
    worst = 0.0
    for b in sorted({0, lens.index(mx)}):
        s0, s1 = int(cu[b]), int(cu[b + 1])
        want = torch.empty_like(q[None, s0:s1])
        one = ag.args(q[None, s0:s1], k[None, s0:s1], v[None, s0:s1], want, layout="bshd",
                      rounding=args.round, stream=stream, variant=variant, causal=True,
                      heads_kv=hkv)
        ag.fwd_args(one)
        torch.cuda.synchronize()
        worst = max(worst, (o[s0:s1].float() - want[0].float()).abs().max().item())
    print(f"  check: packed rows vs the dense call of the same variant on sequences 0 and the "
          f"longest: max |diff| {worst:.3g} (0 expected: bit for bit)")
    lines = [f"varlen: {n} sequences, {total} tokens (seed {args.seed}, lengths "
             f"{sorted(lens, reverse=True)}), H {h} / KV {hkv}, causal; attngen `{variant}`, "
             f"padded dense `{pad_variant}`", "",
             "| kernel | ms | TFLOP/s (real pairs) | us / real token | vs attngen varlen |",
             "|---|---|---|---|---|"]
    base = res.get("attngen varlen")
    for name, ms in res.items():
        rel = "n/a" if base is None else f"{ms / base:.2f}x the time"
        lines.append(f"| {name} | {ms:.3f} | {real / (ms * 1e-3) / 1e12:.1f} | "
                     f"{ms * 1e3 / total:.4f} | {rel} |")
    del sets, ag_args
    torch.cuda.empty_cache()
    return "\n".join(lines)


KEYPAD = {"batch": 1, "heads": 24, "latent": 118800, "text": 256, "prompt": 50}


def bench_keypad(ag, args, gen):
    """--shapes keypad: HunyuanVideo's key padding (docs/SHAPES.md): 1 x 24 heads, 118800
    latent + 256 text tokens (Sq = Skv = 119056), a prompt of 50 tokens, so the keys past
    118850 are padding (attngen's kv_lengths; the diffusers backend turns the mask into it).
    The key-padded call against attngen's dense call over all the keys (what padding costs
    without the lengths) and over the real keys only (k, v cut to 118850 rows: the least any
    kernel can do); "cost <= saving" holds when the padded call takes no longer than the call
    over all keys, and the overhead of the lengths is its time over the real-keys call. Peers
    on the real keys only (FA3 through its dense entry point: what its seqused_k computes;
    SDPA cuDNN with the boolean key mask, when it takes one). TFLOP/s count the real pairs."""
    b, h = KEYPAD["batch"], KEYPAD["heads"]
    n = KEYPAD["latent"] + KEYPAD["text"]
    real_k = KEYPAD["latent"] + KEYPAD["prompt"]
    real = 4.0 * b * h * n * real_k * HEAD_DIM
    print(f"keypad: B {b}, H {h}, Sq = Skv = {n} ({KEYPAD['latent']} latent + {KEYPAD['text']} "
          f"text), kv_lengths [{real_k}] ({n - real_k} padding keys, "
          f"{(n - real_k) / n * 100:.2f}% of the keys)")
    q, k, v, o = make_sets(b, h, n, n, "bshd", 1, gen)[0]
    kr, vr = k[:, :real_k].contiguous(), v[:, :real_k].contiguous()
    lens = torch.full((b,), real_k, dtype=torch.int32, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    res = {}

    def timed(name, fn):
        time_named(res, name, fn, 1, args, real)

    pad = ag.args(q, k, v, o, rounding=args.round, stream=stream, variant=args.variant)
    pad.kv_lengths = lens.data_ptr()
    full = ag.args(q, k, v, o, rounding=args.round, stream=stream, variant=args.variant)
    o2 = torch.empty_like(o)
    cut = ag.args(q, kr, vr, o2, rounding=args.round, stream=stream, variant=args.variant)
    variant = ag.explain(pad)[0]
    timed("attngen key-padded (kv_lengths)", lambda i: ag.fwd_args(pad))
    timed("attngen dense, all keys", lambda i: ag.fwd_args(full))
    timed("attngen dense, real keys only", lambda i: ag.fwd_args(cut))
    ag.fwd_args(pad)
    ag.fwd_args(cut)
    torch.cuda.synchronize()
    diff = (o.float() - o2.float()).abs().max().item()
    print(f"  check: key-padded output vs the call over the real keys only: max |diff| {diff:.3g}"
          f" (0 expected: the padding keys contribute nothing)")
    if args.fa3 is not None:
        fo = torch.empty_like(o)
        fprep = args.fa3.prepare(q, kr, vr, fo, "bshd")
        timed("fa3, real keys only", lambda i: args.fa3(fprep))
    if "cudnn" in args.peers:
        mask = torch.zeros((b, 1, 1, n), dtype=torch.bool, device="cuda")
        mask[..., :real_k] = True
        qs, ks, vs = sdpa_view(q, "bshd"), sdpa_view(k, "bshd"), sdpa_view(v, "bshd")

        def cudnn_mask(i):
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                F.scaled_dot_product_attention(qs, ks, vs, attn_mask=mask)
        timed("cudnn (SDPA, boolean key mask)", cudnn_mask)
    lines = [f"keypad: (1,{h},{n},{n}) BSHD, kv_lengths [{real_k}]; attngen `{variant}`", "",
             "| kernel | ms | TFLOP/s (real pairs) | / attngen key-padded time |",
             "|---|---|---|---|"]
    base = res.get("attngen key-padded (kv_lengths)")
    for name, ms in res.items():
        rel = "n/a" if base is None else f"{ms / base:.3f}"
        lines.append(f"| {name} | {ms:.3f} | {real / (ms * 1e-3) / 1e12:.1f} | {rel} |")
    if base is not None and "attngen dense, all keys" in res:
        ok = base <= res["attngen dense, all keys"]
        lines.append("")
        lines.append(f"cost <= saving: {'yes' if ok else 'NO'} (key-padded / all keys "
                     f"{base / res['attngen dense, all keys']:.4f}; key-padded / real keys only "
                     f"{base / res.get('attngen dense, real keys only', float('nan')):.4f})")
    del q, k, v, o, o2, kr, vr
    torch.cuda.empty_cache()
    return "\n".join(lines)


def fmt(x):
    return "n/a" if x is None else f"{x:.1f}"


def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def shape_str(shape):
    b, h, sq, skv, hkv = dims(shape)
    return f"({b},{h},{sq},{skv})" if hkv == h else f"({b},{h}/{hkv},{sq},{skv})"


def table(rows, peers):
    head = ["shape (B,H,Sq,Skv)", "layout", "attngen"] + peers + \
        [f"attngen/{p}" for p in peers] + ["variant"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        t = r["tflops"]
        cells = [shape_str(r["shape"]), r["layout"], fmt(t.get("attngen"))]
        cells += [fmt(t.get(p)) for p in peers]
        cells += [ratio(t.get("attngen"), t.get(p)) for p in peers]
        cells.append(f"`{r['variant']}`" if r["variant"] else "n/a")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def build_commit(args, ag):
    """The report's commit: --commit, else the one the library was built from
    (attngen_build_id; the checkout the script runs in may hold another commit)."""
    return args.commit or ag.build_id


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", help="path of libattngen.so (default: $ATTNGEN_LIB, build/)")
    p.add_argument("--shapes", choices=["sweep", "video", "short", "fewhead", "prefill", "hd64",
                                        "hd256", "varlen", "keypad", "all"],
                   default="all", help="a group of docs/SHAPES.md (all: every group but "
                   "prefill, which runs with the causal mask, hd64 and hd256, at head_dim 64 and "
                   "256, and varlen: "
                   "one packed causal batch of 16 long-tailed sequences, ~64k tokens, drawn per "
                   "--seed, vs the dense kernel on the padded equivalent and FlashAttention's "
                   "flash_attn_varlen_func when installed; keypad: HunyuanVideo's key padding, "
                   "kv_lengths vs the dense call over all keys and over the real keys)")
    p.add_argument("--head-dim", type=int, choices=[64, 128, 256], default=None,
                   help="elements per row of q, k, v (default 128; 64 with --shapes hd64, 256 "
                   "with --shapes hd256)")
    p.add_argument("--shape", action="append", default=[], metavar="B,H,SQ,SKV[,HKV]",
                   help="time this shape instead of the groups (repeatable); HKV: KV heads "
                   "(grouped-query attention, HKV divides H)")
    p.add_argument("--layout", choices=["bshd", "bhsd", "both"], default="both",
                   help="both (default): every shape in BSHD, the sweep also in BHSD")
    p.add_argument("--round", choices=["rtne", "rtna", "rtz"], default="rtne",
                   help="attngen rounding mode (the SDPA peers always round to nearest even)")
    p.add_argument("--variant", help="force one attngen variant (canonical name)")
    p.add_argument("--peers", default="cudnn,flash,efficient",
                   help="comma-separated subset of cudnn,flash,efficient,fa3 ('' for none)")
    p.add_argument("--alt-lib", action="append", default=[], metavar="NAME=PATH",
                   help="another libattngen build timed as column NAME next to --lib's "
                        "(same inputs, same step; repeatable): an A/B in one process")
    p.add_argument("--fa3-lib", default=os.environ.get("ATTNGEN_FA3_LIB"),
                   help="FlashAttention-3 library for peer fa3 (default: $ATTNGEN_FA3_LIB)")
    p.add_argument("--gpu-sleep-us", type=float, default=200.0,
                   help="GPU sleep before each timed call, microseconds (0: none; default 200)")
    p.add_argument("--quick", action="store_true",
                   help="short timing budget and the first shape of each group only")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds of timed calls per kernel and shape (default 1.0, quick 0.2)")
    p.add_argument("--md", help="write a markdown block for bench/RESULTS.md to this file")
    p.add_argument("--commit", help="commit id for the report (default: the one the library was "
                   "built from, attngen_build_id)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--causal", action="store_true",
                   help="the causal mask (attngen: bottom-right aligned; SDPA peers: "
                        "is_causal, top-left: shapes need Sq == Skv); TFLOP/s count only the "
                        "(query, key) pairs the mask keeps")
    args = p.parse_args()
    args.peers = [x for x in args.peers.split(",") if x]
    bad = [x for x in args.peers if x not in PEER_NAMES]
    if bad:
        p.error(f"--peers: unknown {','.join(bad)} (allowed: {','.join(PEER_NAMES)})")
    shapes = []
    for text in args.shape:
        try:
            shape = tuple(int(x) for x in text.split(","))
        except ValueError:
            shape = ()
        if len(shape) not in (4, 5) or min(shape) < 1 or (len(shape) == 5 and
                                                          shape[1] % shape[4] != 0):
            p.error(f"--shape {text!r}: expected positive integers B,H,SQ,SKV[,HKV] with HKV "
                    "dividing H")
        shapes.append(shape)
    try:
        alts = attngen_ctypes.parse_alt_libs(args.alt_lib, ["attngen"] + PEER_NAMES)
    except ValueError as e:
        p.error(str(e))
    if args.gpu_sleep_us < 0:
        p.error("--gpu-sleep-us: must be >= 0")
    if args.shapes == "prefill" and not args.shape:
        args.causal = True  # the LLM-prefill set is causal by definition (docs/SHAPES.md)
    if args.head_dim is None:
        by_group = {"hd64": 64, "hd256": 256}
        args.head_dim = by_group.get(args.shapes, 128) if not args.shape else 128
    global HEAD_DIM
    HEAD_DIM = args.head_dim
    if args.causal and any(s[2] != s[3] for s in shapes):
        p.error("--causal: SDPA's is_causal is top-left aligned, attngen's bottom-right: "
                "they are the same mask only for shapes with Sq == Skv")
    if alts:
        attngen_ctypes.allow_more_copies()
    args.budget = args.budget if args.budget is not None else (0.2 if args.quick else 1.0)
    args.warmup = 2 if args.quick else 3
    args.min_iters = 3 if args.quick else 5
    args.max_iters = 20 if args.quick else 100

    if not torch.cuda.is_available():
        sys.exit("bench.py: no CUDA device visible to torch")
    torch.backends.cuda.matmul.allow_tf32 = False
    ag = attngen_ctypes.Attngen(args.lib, backend="cuda")
    args.alts = [(name, attngen_ctypes.Attngen(path, backend="cuda")) for name, path in alts]
    args.fa3 = FA3(args.fa3_lib, args.head_dim, args.causal) if "fa3" in args.peers else None
    SLEEP_CYCLES[0] = int(args.gpu_sleep_us * 1980)  # cycles at 1.98 GHz (H100/H200 boost)
    gpu = torch.cuda.get_device_name()
    groups = (["sweep", "video", "short", "fewhead"] if args.shapes == "all"
              else [] if args.shapes in ("varlen", "keypad") else [args.shapes])  # (below)
    work = []
    if shapes:
        groups = []
        work = [(shape, "bshd" if args.layout == "both" else args.layout) for shape in shapes]
    for grp in groups:
        shapes = SHAPES[grp][:1] if args.quick else SHAPES[grp]
        for shape in shapes:
            if args.layout == "both":
                work.append((shape, "bshd"))
                if grp == "sweep":
                    work.append((shape, "bhsd"))
            else:
                work.append((shape, args.layout))
    if args.causal:  # (explicit shapes were checked above)
        work = [(shape, lay) for shape, lay in work if shape[2] == shape[3]]

    if args.shapes in ("varlen", "keypad") and not args.shape:
        print(f"attngen {ag.version} @ {ag.build_id} | {gpu} | torch {torch.__version__} | "
              f"round {args.round} | GPU sleep {args.gpu_sleep_us:g} us before each timed call")
        fn = bench_varlen if args.shapes == "varlen" else bench_keypad
        text = fn(ag, args, torch.Generator(device="cuda").manual_seed(args.seed))
        ag.close()
        print()
        print(text)
        if args.md:
            with open(args.md, "w") as f:
                f.write(text + "\n")
        return
    t0 = time.time()
    print(f"attngen {ag.version} @ {ag.build_id} | {gpu} | torch {torch.__version__} | cuDNN "
          f"{torch.backends.cudnn.version()} | round {args.round} | {len(work)} runs | "
          f"GPU sleep {args.gpu_sleep_us:g} us before each timed call"
          + (f" | fa3 {args.fa3.path}" if args.fa3 else ""))
    ceiling = gemm_ceiling(args)
    print(f"bf16 GEMM 8192^3 ceiling: {ceiling:.1f} TFLOP/s")
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    rows = []
    for shape, layout in work:
        r = bench_shape(ag, shape, layout, args, gen)
        rows.append(r)
        t = r["tflops"]
        cols = [name for name, _ in args.alts] + args.peers
        parts = [f"attngen {fmt(t.get('attngen'))}"]
        parts += [f"{p} {fmt(t.get(p))}" for p in cols]
        parts += [f"ag/{p} {ratio(t.get('attngen'), t.get(p))}" for p in cols]
        check = f" | max|ag-{r['check'][0]}| {r['check'][1]:.3g}" if r["check"] else ""
        print(f"{shape_str(shape):>26} {layout}: " + "  ".join(parts) +
              f" TFLOP/s | {r['variant']}{check}", flush=True)
    ag.close()
    for _, alt in args.alts:
        alt.close()
    print(f"total {time.time() - t0:.0f} s")

    md = [f"### {datetime.date.today().isoformat()} | {gpu} | attngen {ag.version} "
          f"@ {build_commit(args, ag)}",
          "",
          f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}; attngen rounding "
          f"{args.round} (SDPA peers and fa3: RTNE)"
          + "".join(f"; column {name} = attngen built from {path}" for name, path in alts)
          + ("; causal mask (attngen bottom-right, SDPA is_causal; Sq == Skv); TFLOP/s = "
             f"4*B*H*{HEAD_DIM}*(query, key pairs kept) / median time; " if args.causal else
             f"; TFLOP/s = 4*B*H*Sq*Skv*{HEAD_DIM} / median time; ")
          + f"GPU sleep {args.gpu_sleep_us:g} us before each timed call; "
          f"`bench/bench.py --shapes {args.shapes} --layout {args.layout}"
          f"{' --quick' if args.quick else ''}{' --causal' if args.causal else ''}`",
          "",
          table(rows, [name for name, _ in args.alts] + args.peers),
          "",
          f"Same-run ceiling: bf16 GEMM 8192^3 (torch.matmul) {ceiling:.1f} TFLOP/s.",
          ""]
    text = "\n".join(md)
    print()
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()

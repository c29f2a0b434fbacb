"""cp_bench.py: ring and Ulysses attention on N GPUs (torchrun, NCCL) vs one GPU.

    torchrun --nproc-per-node=2 bench/cp_bench.py [--shape B,H,S] [--iters 5]

Shapes default to the video shapes of docs/SHAPES.md: (1,40,75600,75600) and
(1,24,118800,118800) (B, H, S: full bidirectional attention over S tokens). Each rank holds
S/P tokens. Per shape it times (CUDA events, median of --iters after a warm-up):
  single   attngen on the whole sequence on rank 0's GPU alone
  ring     attngen.ring_attention, attngen as the local kernel
  ring_sdpa  the same ring with SDPA-cuDNN (aten._scaled_dot_product_cudnn_attention, LSE)
  ulysses  attngen.ulysses_attention
and checks each result against single-GPU attngen on the rank's slice (max |diff| within
the merge's rounding: one bf16 rounding of the merged O; Ulysses must be bit-identical).
Prints a markdown table (rank 0). NCCL NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
"""
import argparse
import os
import statistics

import torch
import torch.distributed as dist

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
import attngen  # noqa: E402

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")


def sdpa_cudnn_local(q, k, v, scale, layout):
    """(out, lse [B, H, S]) from cuDNN attention, BSHD in and out."""
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    res = torch.ops.aten._scaled_dot_product_cudnn_attention(
        qh, kh, vh, None, True, 0.0, False, False, scale=scale)
    out, lse = res[0], res[1]
    if lse.dim() == 4:
        lse = lse.squeeze(-1)
    return out.transpose(1, 2), lse


def time_fn(fn, iters):
    fn()
    torch.cuda.synchronize()
    dist.barrier()
    ts = []
    for _ in range(iters):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        dist.barrier()
        e0.record()
        fn()
        e1.record()
        torch.cuda.synchronize()
        ts.append(e0.elapsed_time(e1))
    t = torch.tensor([statistics.median(ts)], device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)  # a call ends when its slowest rank ends
    return t.item()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", action="append", help="B,H,S (repeatable)")
    ap.add_argument("--iters", type=int, default=5)
    args = ap.parse_args()
    shapes = [tuple(int(x) for x in s.split(",")) for s in args.shape] if args.shape else \
        [(1, 40, 75600), (1, 24, 118800)]
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    rows = []
    for (B, H, S) in shapes:
        g = torch.Generator(device="cuda").manual_seed(1)
        q, k, v = (torch.randn(B, S, H, 128, device="cuda", dtype=torch.bfloat16, generator=g)
                   for _ in range(3))
        sl = slice(rank * S // world, (rank + 1) * S // world)
        ql, kl, vl = (t[:, sl].contiguous() for t in (q, k, v))
        single_ms = None
        full = attngen.attention(q, k, v)
        want = full[:, sl].clone()
        if rank == 0:
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            ts = []
            for i in range(args.iters + 1):
                e0.record()
                attngen.attention(q, k, v, out=full)
                e1.record()
                torch.cuda.synchronize()
                if i:
                    ts.append(e0.elapsed_time(e1))
            single_ms = statistics.median(ts)
        del q, k, v, full
        torch.cuda.empty_cache()
        row = {"shape": (B, H, S, S), "gpus": world, "single_ms": single_ms}
        for name, fn in (
                ("ring", lambda: attngen.ring_attention(ql, kl, vl)),
                ("ring_sdpa", lambda: attngen.ring_attention(ql, kl, vl,
                                                             local_attn=sdpa_cudnn_local)),
                ("ulysses", lambda: attngen.ulysses_attention(ql, kl, vl))):
            out = fn()
            d = out.float() - want.float()
            err = d.abs().max()
            dist.all_reduce(err, op=dist.ReduceOp.MAX)
            row[name + "_maxdiff"] = err.item()
            # relative L2 of (context-parallel - single GPU) over all ranks: the contract's
            # sanity bound (1e-2) between two implementations of the same attention
            sums = torch.stack([(d.double() ** 2).sum(), (want.double() ** 2).sum()])
            dist.all_reduce(sums)
            row[name + "_rel_l2"] = (sums[0] / sums[1]).sqrt().item()
            row[name + "_pass"] = bool(torch.isfinite(err).item()) and row[name + "_rel_l2"] <= 1e-2
            row[name + "_ms"] = time_fn(fn, args.iters)
            if name == "ulysses":
                same = torch.tensor([int(torch.equal(out, want))], device="cuda")
                dist.all_reduce(same, op=dist.ReduceOp.MIN)
                row["ulysses_bitwise"] = bool(same.item())
        rows.append(row)
        if rank == 0:
            print(row, flush=True)
    if rank == 0:
        print("\n| shape | GPUs | single ms | ring ms (x) | ring+SDPA-cuDNN ms | Ulysses ms (x) "
              "| ring vs single: max diff, rel L2 | ring+SDPA rel L2 | Ulysses bitwise | pass |"
              "\n|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            ok = r["ring_pass"] and r["ring_sdpa_pass"] and r["ulysses_bitwise"]
            print(f"| {r['shape']} | {r['gpus']} | {r['single_ms']:.1f} | {r['ring_ms']:.1f} "
                  f"({r['single_ms'] / r['ring_ms']:.2f}x) | {r['ring_sdpa_ms']:.1f} | "
                  f"{r['ulysses_ms']:.1f} ({r['single_ms'] / r['ulysses_ms']:.2f}x) | "
                  f"{r['ring_maxdiff']:.2e}, {r['ring_rel_l2']:.2e} | {r['ring_sdpa_rel_l2']:.2e} | "
                  f"{r['ulysses_bitwise']} | {'PASS' if ok else 'FAIL'} |")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

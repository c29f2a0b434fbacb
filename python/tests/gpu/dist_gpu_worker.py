"""One of two ranks on ONE GPU (gloo; messages staged through host memory): ring and
Ulysses attention with attngen as the local kernel, checked against single-process attngen
on the whole sequence and against fp64 (first 4 heads). Correctness only: the speed run
needs two GPUs and NCCL. usage: dist_gpu_worker.py RANK WORLD PORT"""
import sys
import time

import torch
import torch.distributed as dist

import attngen


def main():
    rank, world, port = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    torch.cuda.set_device(0)
    B, H, S = 1, 40, 8192  # Wan-like heads, a shorter sequence
    g = torch.Generator(device="cuda").manual_seed(5)
    q, k, v = (torch.randn(B, S, H, 128, device="cuda", dtype=torch.bfloat16, generator=g)
               for _ in range(3))
    full, full_lse = attngen.attention(q, k, v, return_lse=True)
    sl = slice(rank * S // world, (rank + 1) * S // world)
    ql, kl, vl = (t[:, sl].contiguous() for t in (q, k, v))
    qh, kh, vh = (t[:, :, :4].transpose(1, 2).double() for t in (q, k, v))
    s = torch.matmul(qh[:, :, sl], kh.transpose(-1, -2)) * 128 ** -0.5
    ref = torch.matmul(s.softmax(-1), vh).transpose(1, 2)
    for name, fn in (("ring", attngen.ring_attention), ("ulysses", attngen.ulysses_attention)):
        t0 = time.time()
        out, lse = fn(ql, kl, vl, None, return_lse=True)
        torch.cuda.synchronize()
        dt = time.time() - t0
        e_single = (out.float() - full[:, sl].float()).abs().max().item()
        e_lse = (lse - full_lse[:, :, sl]).abs().max().item()
        e_ref = (out[:, :, :4].double() - ref).abs().max().item()
        e_ref_single = (full[:, sl, :4].double() - ref).abs().max().item()
        assert e_single < 2 ** -6 and e_lse < 1e-3 and e_ref <= 2 * e_ref_single + 2 ** -8, \
            (name, e_single, e_lse, e_ref, e_ref_single)
        if name == "ulysses":
            assert torch.equal(out, full[:, sl]), "ulysses must equal single-GPU bits"
        print(f"rank {rank} {name} OK ({B},{H},{S},{S}) 2 procs/1 GPU: |out-single| "
              f"{e_single:.2e} |lse-single| {e_lse:.2e} |out-fp64| {e_ref:.2e} "
              f"(single: {e_ref_single:.2e}) {dt:.2f}s", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

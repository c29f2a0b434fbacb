"""One rank of the context-parallel tests (run by test_distributed.py, gloo, CPU tensors).

usage: dist_worker.py RANK WORLD PORT MODE BACKEND
MODE: ring | ulysses | usp (world 4: Ulysses pairs {0,1},{2,3}, ring pairs {0,2},{1,3}).
Every rank builds the same global q, k, v (fixed seed), runs its slice, and checks it
against single-process attngen on the whole sequence and an fp64 reference."""
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conftest import assert_close, rand, reference, tolerance  # noqa: E402
import attngen  # noqa: E402


def main():
    rank, world, port, mode, backend = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                        sys.argv[4], sys.argv[5])
    attngen.set_cpu_backend(backend)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    B, S, H = 1, 64 * world, 4
    for layout in ("bshd", "bhsd"):
        q, k, v = rand(B, S, H, 128, seed=11), rand(B, S, H, 128, seed=12), \
            rand(B, S, H, 128, seed=13)
        full, full_lse = attngen.attention(q, k, v, return_lse=True)
        ref, ref_lse = reference(q, k, v)
        sl = slice(rank * (S // world), (rank + 1) * (S // world))
        ql, kl, vl = (t[:, sl] for t in (q, k, v))
        if layout == "bhsd":
            ql, kl, vl = (t.transpose(1, 2).contiguous() for t in (ql, kl, vl))
        if mode == "ring":
            out, lse = attngen.ring_attention(ql, kl, vl, None, layout=layout, return_lse=True)
        elif mode == "ulysses":
            out, lse = attngen.ulysses_attention(ql, kl, vl, None, layout=layout,
                                                 return_lse=True)
        else:
            groups_u = [dist.new_group([0, 1]), dist.new_group([2, 3])]
            groups_r = [dist.new_group([0, 2]), dist.new_group([1, 3])]
            gu = groups_u[rank // 2]
            gr = groups_r[rank % 2]
            out, lse = attngen.usp_attention(ql, kl, vl, gu, gr, layout=layout,
                                             return_lse=True)
        if layout == "bhsd":
            out = out.transpose(1, 2)
        assert out.dtype == torch.bfloat16 and out.shape == full[:, sl].shape, out.shape
        tol = tolerance(q, k, v, ulps=2)[:, sl]  # parts rounded to bf16, merged, rounded
        assert_close(out, ref[:, sl], tol, f"{mode} {layout} vs exact")
        assert_close(out, full[:, sl].double(), 2 * tol, f"{mode} {layout} vs one call")
        e_lse = (lse.double() - ref_lse[:, :, sl]).abs().max().item()
        assert e_lse < 1e-4, (layout, e_lse)
        if mode == "ulysses":
            # heads are whole on one rank: the same kernel call as single-process attngen
            assert torch.equal(out, full[:, sl]), layout
        e_full = (out.float() - full[:, sl].float()).abs().max().item()
        e_ref = (out.double() - ref[:, sl]).abs().max().item()
        print(f"rank {rank} {mode} {layout} OK: max |out - single| {e_full:.2e}, "
              f"|out - fp64| {e_ref:.2e}, |lse - fp64| {e_lse:.2e}", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

"""One rank of test_sglang_real.test_real_ring: SGLang's own process groups (parallel_state:
init_distributed_environment + initialize_model_parallel with ring_degree = world, NCCL on
cuda:rank) and SGLang's USPAttention with attngen installed, so the layer runs SGLang's
ring_attn (torch's templated ring attention calling AttngenImpl.forward(...,
return_softmax_lse=True) per KV chunk). Each rank holds a 1/world slice of the sequence and
checks its slice of the output against single-process attngen on the whole sequence.

usage: sglang_ring_worker.py RANK WORLD PORT SGLANG_SRC"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("ATTNGEN_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

rank, world, port, src = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.environ["LOCAL_RANK"] = str(rank)  # SGLang's CudaPlatform.get_local_torch_device reads it
torch.cuda.set_device(rank)

import attngen  # noqa: E402
import sglang_real_env as env  # noqa: E402
from conftest import reference, tolerance  # noqa: E402

ns = env.load(src)
assert not ns.outside, ns.outside
ns.ps.init_distributed_environment(world_size=world, rank=rank, local_rank=rank,
                                   distributed_init_method=f"tcp://127.0.0.1:{port}",
                                   backend="nccl")
ns.ps.initialize_model_parallel(sequence_parallel_degree=world, ring_degree=world,
                                ulysses_degree=1)
assert ns.ps.get_ring_parallel_world_size() == world
ns.utils.set_mixed_precision_policy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
from attngen.integrations import sglang as ags  # noqa: E402

ags.install()
Enum = ns.platforms.AttentionBackendEnum
layer = ns.layer.USPAttention(num_heads=2, head_size=128)
assert layer.backend is Enum.ATTNGEN, layer.backend

calls = []
impl = layer.attn_impl
orig = impl.forward


def counted(*a, **k):
    calls.append(bool(k.get("return_softmax_lse")))
    return orig(*a, **k)


impl.forward = counted
g = torch.Generator().manual_seed(3)
S = 256 * world
q, k, v = (torch.randn(1, S, 2, 128, generator=g).to(torch.bfloat16) for _ in range(3))
n = S // world
sl = slice(rank * n, (rank + 1) * n)
dev = torch.device("cuda", rank)
with ns.fc.set_forward_context(current_timestep=0, attn_metadata=None):
    out = layer(*(t[:, sl].contiguous().to(dev) for t in (q, k, v)))
out = (out[0] if isinstance(out, tuple) else out).cpu()
assert calls and all(calls), calls  # every chunk through forward(return_softmax_lse=True)
ref, _ = reference(q, k, v)
tol = tolerance(q, k, v, ulps=2)[:, sl]  # 2 ULPs: the ring merges bf16 partial outputs
err = (out.double() - ref[:, sl]).abs()
print(f"rank {rank}: {len(calls)} chunk calls, max|out - fp64| {err.max().item():.3e}, "
      f"max excess over bound {(err - tol).max().item():.3e}")
assert bool((err <= tol).all()), "ring output beyond the bound"
dense = attngen.attention(q.to(dev), k.to(dev), v.to(dev)).cpu()[:, sl]
print(f"rank {rank} OK: rel L2 vs single-process attngen "
      f"{((out.double() - dense.double()).norm() / dense.double().norm()).item():.3e}")
torch.distributed.barrier()
ns.ps.destroy_model_parallel()
ns.ps.destroy_distributed_environment()

"""Context parallelism over torch.distributed (NCCL / RCCL, or gloo for CPU tensors).

Every rank holds an equal slice of the sequence: q, k, v are [B, S/P, H, D] (the default
layout) or [B, H, S/P, D] (the other; attngen._names.LAYOUTS) on rank r of a group of P.

- ring_attention: the KV slices travel around the ring (batch_isend_irecv to the next rank,
  from the previous one, posted before the local attention of the current slice so the
  transfer overlaps it); the P partial results are merged exactly with their LSEs
  (merge_partials, fp32).
- ulysses_attention: all-to-all turns sequence slices of all heads into the whole sequence
  for H/P heads, local attention, all-to-all back (H must be divisible by P).
- usp_attention: Ulysses over one group, ring over another (USP, e.g. 2 x 4 on 8 GPUs).

No mask is applied (full bidirectional attention, as in video DiTs), so the order in which
sequence slices meet does not matter. `local_attn(q, k, v, scale, layout)` -> (out, lse)
replaces the local kernel (default attngen.attention); bench code passes SDPA there.
With gloo and GPU tensors (e.g. two processes on one GPU, which NCCL refuses) messages are
staged through host memory: correct, not fast.
"""
import torch
import torch.distributed as dist

from . import _names
from ._lib import AttngenError
from .merge import Merger
from .ops import attention


def _local_attngen(rounding):
    def fn(q, k, v, scale, layout):
        return attention(q, k, v, scale=scale, layout=layout, rounding=rounding,
                         return_lse=True)
    return fn


def _global_rank(group, rank):
    if group is None:
        return rank
    if hasattr(dist, "get_global_rank"):
        return dist.get_global_rank(group, rank)
    return dist.distributed_c10d._get_global_rank(group, rank)


def _seq_dim(layout):
    return 1 if layout == _names.SEQ_MAJOR else 2


def _head_dim_index(layout):
    return 2 if layout == _names.SEQ_MAJOR else 1


def ring_attention(q, k, v, group=None, *, scale=None, layout=None, rounding=None,
                   return_lse=False, local_attn=None):
    """Attention of the local q slice over the KV slices of every rank of `group`.
    Returns out (q's shape, q's dtype) or (out, lse fp32 [B, H, S/P])."""
    layout = _names.check_layout(layout)
    if k.shape != v.shape:
        raise AttngenError("BAD_SHAPE", f"k {tuple(k.shape)} and v {tuple(v.shape)} differ")
    if scale is None:
        scale = q.shape[-1] ** -0.5
    local = local_attn or _local_attngen(rounding)
    world = dist.get_world_size(group)
    rank = dist.get_rank(group)
    merger = Merger(layout)
    if world == 1:
        o, l = local(q, k, v, scale, layout)
        merger.add(o, l)
    else:
        nxt = _global_rank(group, (rank + 1) % world)
        prv = _global_rank(group, (rank - 1) % world)
        n = k.numel()
        cur = torch.cat([k.reshape(-1), v.reshape(-1)])  # one message per step
        nbuf = torch.empty_like(cur)
        shape = k.shape
        stage = cur.device.type != "cpu" and dist.get_backend(group) == "gloo"
        for step in range(world):
            reqs = None
            if step + 1 < world:
                if stage:  # gloo and device tensors: through host memory, no overlap
                    send_h, recv_h = cur.cpu(), torch.empty(cur.shape, dtype=cur.dtype)
                    ops = [dist.P2POp(dist.isend, send_h, nxt, group),
                           dist.P2POp(dist.irecv, recv_h, prv, group)]
                else:
                    ops = [dist.P2POp(dist.isend, cur, nxt, group),
                           dist.P2POp(dist.irecv, nbuf, prv, group)]
                reqs = dist.batch_isend_irecv(ops)
            kk = cur[:n].view(shape)
            vv = cur[n:].view(shape)
            o, l = local(q, kk, vv, scale, layout)
            merger.add(o, l)
            if reqs is not None:
                for r in reqs:
                    r.wait()
                if stage:
                    nbuf.copy_(recv_h)
                cur, nbuf = nbuf, cur
    out, lse = merger.result(q.dtype)
    return (out, lse) if return_lse else out


def _all_to_all(x, group):
    """x: [P, ...] contiguous; chunk i goes to rank i; returns [P, ...] with chunk j from
    rank j. On gloo, bf16 travels as bytes (gloo lacks bf16) and, where gloo lacks
    all_to_all (torch 1.13), it is emulated with all_gather (P times the traffic: tests)."""
    gloo = dist.get_backend(group) == "gloo"
    if gloo and x.device.type != "cpu":  # gloo moves host memory: stage (correctness runs)
        return _all_to_all(x.cpu(), group).to(x.device)
    dtype = x.dtype
    if gloo and dtype == torch.bfloat16:
        x = x.view(torch.uint8)
    out = torch.empty_like(x)
    try:
        dist.all_to_all_single(out, x, group=group)
    except RuntimeError:
        if not gloo:
            raise
        rank = dist.get_rank(group)
        gathered = [torch.empty_like(x) for _ in range(dist.get_world_size(group))]
        dist.all_gather(gathered, x, group=group)
        out = torch.stack([g[rank] for g in gathered])
    return out.view(dtype) if out.dtype != dtype else out


def _seq_to_heads(x, group, layout):
    """[B, S/P, H, D] (slices of the sequence) -> [B, S, H/P, D] (slices of the heads)."""
    P = dist.get_world_size(group)
    if layout == _names.HEAD_MAJOR:
        x = x.transpose(1, 2)
    B, Sl, H, D = x.shape
    if H % P:
        raise AttngenError("BAD_SHAPE", f"heads = {H} is not divisible by the Ulysses group "
                                        f"size {P}")
    t = x.reshape(B, Sl, P, H // P, D).permute(2, 0, 1, 3, 4).contiguous()
    t = _all_to_all(t, group)                      # [P(src seq slice), B, Sl, H/P, D]
    t = t.permute(1, 0, 2, 3, 4).reshape(B, P * Sl, H // P, D)
    return t if layout == _names.SEQ_MAJOR else t.transpose(1, 2)


def _heads_to_seq(x, group, layout):
    """[B, S, H/P, D] -> [B, S/P, H, D] (inverse of _seq_to_heads)."""
    P = dist.get_world_size(group)
    if layout == _names.HEAD_MAJOR:
        x = x.transpose(1, 2)
    B, S, Hl, D = x.shape
    t = x.reshape(B, P, S // P, Hl, D).permute(1, 0, 2, 3, 4).contiguous()
    t = _all_to_all(t, group)                      # [P(src head group), B, S/P, H/P, D]
    t = t.permute(1, 2, 0, 3, 4).reshape(B, S // P, P * Hl, D)
    return t if layout == _names.SEQ_MAJOR else t.transpose(1, 2)


def _lse_heads_to_seq(lse, group):
    """lse [B, H/P, S] -> [B, H, S/P]."""
    P = dist.get_world_size(group)
    B, Hl, S = lse.shape
    t = lse.reshape(B, Hl, P, S // P).permute(2, 0, 1, 3).contiguous()
    t = _all_to_all(t, group)                      # [P(src head group), B, H/P, S/P]
    return t.permute(1, 0, 2, 3).reshape(B, P * Hl, S // P)


def ulysses_attention(q, k, v, group=None, *, scale=None, layout=None, rounding=None,
                      return_lse=False, local_attn=None, ring_group=None):
    """All-to-all over heads (DeepSpeed-Ulysses): the local attention sees the whole
    sequence for H/P heads. With ring_group, the local attention is ring_attention over
    that group (USP). Returns out (q's shape) or (out, lse fp32 [B, H, S/P])."""
    layout = _names.check_layout(layout)
    if scale is None:
        scale = q.shape[-1] ** -0.5
    qh = _seq_to_heads(q, group, layout)
    kh = _seq_to_heads(k, group, layout)
    vh = _seq_to_heads(v, group, layout)
    if ring_group is not None:
        o, l = ring_attention(qh, kh, vh, ring_group, scale=scale, layout=layout,
                              rounding=rounding, return_lse=True, local_attn=local_attn)
    else:
        o, l = (local_attn or _local_attngen(rounding))(qh, kh, vh, scale, layout)
    out = _heads_to_seq(o.to(q.dtype), group, layout)
    if not return_lse:
        return out
    return out, _lse_heads_to_seq(l.float(), group)


def usp_attention(q, k, v, ulysses_group, ring_group, **kw):
    """Unified sequence parallelism: Ulysses over ulysses_group, ring over ring_group."""
    return ulysses_attention(q, k, v, ulysses_group, ring_group=ring_group, **kw)

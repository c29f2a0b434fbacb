"""bench/attngen_ctypes.py (bench.py's view of the library) on the cpu backend: it builds
attngen_fwd_args from torch tensors with the layout and rounding codes the library names, and
a call through it matches attngen.attention bitwise."""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench"))
import attngen_ctypes  # noqa: E402

import attngen  # noqa: E402
from attngen import _names  # noqa: E402


@pytest.mark.parametrize("layout", ["bshd", "bhsd"])
@pytest.mark.parametrize("rounding", ["rtne", "rtz"])
def test_args_and_launch(layout, rounding):
    torch.manual_seed(0)
    shape = (1, 9, 2, 128) if layout == "bshd" else (1, 2, 9, 128)
    q, k, v = (torch.randn(shape, dtype=torch.bfloat16) for _ in range(3))
    ag = attngen_ctypes.Attngen(backend="cpu")
    out = torch.empty_like(q)
    a = ag.args(q, k, v, out, layout=layout, rounding=rounding)
    assert _names.names("layout")[a.layout] == layout
    assert _names.names("rounding")[a.rounding] == rounding
    ag.fwd_args(a)
    assert torch.equal(out, attngen.attention(q, k, v, layout=layout, rounding=rounding))


@pytest.mark.parametrize("head_dim", [64, 256])
def test_default_scale_follows_head_dim(head_dim):
    """Without softmax_scale the call uses 1/sqrt(head_dim), as attngen.attention and the
    peers do (the C default is 1/sqrt(128) whatever the head dim)."""
    torch.manual_seed(1)
    q, k, v = (torch.randn(1, 5, 2, head_dim, dtype=torch.bfloat16) for _ in range(3))
    ag = attngen_ctypes.Attngen(backend="cpu")
    out = torch.empty_like(q)
    a = ag.args(q, k, v, out)
    assert abs(a.softmax_scale - head_dim ** -0.5) < 1e-7
    ag.fwd_args(a)
    assert torch.equal(out, attngen.attention(q, k, v))


def test_bad_names():
    q = torch.zeros(1, 4, 1, 128, dtype=torch.bfloat16)
    ag = attngen_ctypes.Attngen(backend="cpu")
    with pytest.raises(attngen.AttngenError, match="bshd"):
        ag.args(q, q, q, torch.empty_like(q), layout="bsdh")


def test_varlen_args_and_launch():
    """bench.py --shapes varlen's argument block (packed q/k/v, cu_seqlens, GQA, causal) runs
    the same call as attngen.varlen_attention."""
    g = torch.Generator().manual_seed(4)
    lens = [7, 33, 1]
    q = torch.randn(sum(lens), 4, 128, generator=g).to(torch.bfloat16)
    k = torch.randn(sum(lens), 2, 128, generator=g).to(torch.bfloat16)
    v = torch.randn(sum(lens), 2, 128, generator=g).to(torch.bfloat16)
    cu = torch.tensor([0, 7, 40, 41], dtype=torch.int32)
    ag = attngen_ctypes.Attngen(backend="cpu")
    out = torch.empty_like(q)
    a = ag.varlen_args(q, k, v, out, cu, cu, 33, 33, rounding="rtz", causal=True)
    assert (a.batch, a.total_q, a.total_kv, a.heads_kv) == (3, 41, 41, 2)
    ag.fwd_args(a)
    want = attngen.varlen_attention(q, k, v, cu, cu, 33, 33, causal=True, rounding="rtz")
    assert torch.equal(out, want)


def test_keypad_args_and_launch():
    """bench.py --shapes keypad's argument block: kv_lengths set on the FwdArgs gives the call
    over the real keys only, bit for bit (the padding keys, here huge, contribute nothing)."""
    g = torch.Generator().manual_seed(5)
    q = torch.randn(1, 40, 2, 128, generator=g).to(torch.bfloat16)
    k = torch.randn(1, 48, 2, 128, generator=g).to(torch.bfloat16)
    v = torch.randn(1, 48, 2, 128, generator=g).to(torch.bfloat16)
    k[:, 37:] = 1e4
    v[:, 37:] = -1e4
    lens = torch.tensor([37], dtype=torch.int32)
    ag = attngen_ctypes.Attngen(backend="cpu")
    out, cut = torch.empty_like(q), torch.empty_like(q)
    a = ag.args(q, k, v, out)
    a.kv_lengths = lens.data_ptr()
    ag.fwd_args(a)
    ag.fwd_args(ag.args(q, k[:, :37].contiguous(), v[:, :37].contiguous(), cut))
    assert torch.equal(out, cut)
    ag.fwd_args(ag.args(q, k, v, cut))  # and the lengths matter
    assert not torch.equal(out, cut)

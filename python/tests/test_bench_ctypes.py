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


def test_bad_names():
    q = torch.zeros(1, 4, 1, 128, dtype=torch.bfloat16)
    ag = attngen_ctypes.Attngen(backend="cpu")
    with pytest.raises(attngen.AttngenError, match="bshd"):
        ag.args(q, q, q, torch.empty_like(q), layout="bsdh")

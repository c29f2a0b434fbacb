"""merge_partials: exact merge of (out, LSE) over KV parts."""
import pytest
import torch

import attngen
from attngen import AttngenError
from conftest import assert_close, rand, reference, tolerance


def _parts(q, k, v, cuts, layout="bshd"):
    sdim = 1 if layout == "bshd" else 2
    bounds = [0] + list(cuts) + [k.shape[sdim]]
    for a, b in zip(bounds[:-1], bounds[1:]):
        yield k.narrow(sdim, a, b - a), v.narrow(sdim, a, b - a)


@pytest.mark.parametrize("layout", ["bshd", "bhsd"])
def test_merge_of_exact_parts_is_exact(layout):
    # fp64 partial results merged == fp64 full attention to fp32 precision
    q, k, v = rand(2, 12, 3, 128, seed=1), rand(2, 50, 3, 128, seed=2), rand(2, 50, 3, 128, seed=3)
    if layout == "bhsd":
        q, k, v = (t.transpose(1, 2).contiguous() for t in (q, k, v))
    outs, lses = [], []
    for kk, vv in _parts(q, k, v, (7, 30, 31), layout):
        o, l = reference(q, kk, vv, layout=layout)
        outs.append(o.float())
        lses.append(l.float())
    out, lse = attngen.merge_partials(outs, lses, layout=layout)
    ref, ref_lse = reference(q, k, v, layout=layout)
    assert out.dtype == torch.float32 and lse.dtype == torch.float32
    assert (out.double() - ref).abs().max().item() < 1e-5
    assert (lse.double() - ref_lse).abs().max().item() < 1e-5


def test_merge_of_attngen_chunks_matches_full(backend):
    q, k, v = rand(1, 16, 2, 128, seed=4), rand(1, 96, 2, 128, seed=5), rand(1, 96, 2, 128, seed=6)
    outs, lses = [], []
    for kk, vv in _parts(q, k, v, (32, 64)):
        o, l = attngen.attention(q, kk.contiguous(), vv.contiguous(), return_lse=True)
        outs.append(o)
        lses.append(l)
    out, lse = attngen.merge_partials(outs, lses)
    assert out.dtype == torch.bfloat16
    ref, ref_lse = reference(q, k, v)
    full, full_lse = attngen.attention(q, k, v, return_lse=True)
    tol = tolerance(q, k, v, ulps=2)  # parts rounded to bf16, merged, rounded again
    assert_close(out, ref, tol, "merged vs exact")
    assert (lse.double() - ref_lse).abs().max().item() < 1e-4
    assert_close(out, full.double(), 2 * tol, "merged vs one call")
    assert (lse - full_lse).abs().max().item() < 1e-4


def test_empty_parts_are_ignored_without_nan():
    o1 = torch.randn(1, 4, 2, 128)
    l1 = torch.randn(1, 2, 4)
    garbage = torch.full_like(o1, float("nan"))
    ninf = torch.full_like(l1, float("-inf"))
    out, lse = attngen.merge_partials([garbage, o1, garbage], [ninf, l1, ninf])
    assert torch.equal(out, o1) and torch.equal(lse, l1)
    # rows empty in every part: O = 0, L = -inf
    out, lse = attngen.merge_partials([garbage, garbage], [ninf, ninf])
    assert torch.equal(out, torch.zeros_like(out)) and torch.isneginf(lse).all()
    # one row empty in part 0 only
    l0 = l1.clone()
    l0[0, 1, 2] = float("-inf")
    o0 = o1.clone()
    o0[0, 2, 1] = float("nan")
    out, lse = attngen.merge_partials([o0, o1], [l0, l1])
    assert not torch.isnan(out).any()
    assert torch.allclose(out[0, 2, 1], o1[0, 2, 1]) and lse[0, 1, 2] == l1[0, 1, 2]


def test_merge_errors():
    o = torch.zeros(1, 4, 2, 128)
    l = torch.zeros(1, 2, 4)
    with pytest.raises(AttngenError) as e:
        attngen.merge_partials([o], [l, l])
    assert e.value.status == "INVALID_ARGUMENT"
    with pytest.raises(AttngenError) as e:
        attngen.merge_partials([o, o[:, :2]], [l, l])
    assert e.value.status == "BAD_SHAPE"
    with pytest.raises(AttngenError) as e:
        attngen.merge_partials([o], [l], layout="x")
    assert e.value.status == "BAD_LAYOUT"


def test_merge_partials_wrong_layout_is_an_attngen_error():
    # outs in bshd [B, S, H, D] read as bhsd: lse [B, H, S] does not fit; this raised torch's
    # raw broadcasting RuntimeError
    outs = [rand(1, 6, 2, 128, seed=i) for i in range(2)]
    lses = [torch.zeros(1, 2, 6) for _ in range(2)]
    with pytest.raises(AttngenError) as e:
        attngen.merge_partials(outs, lses, layout="bhsd")
    assert e.value.status == "BAD_SHAPE" and "layout='bhsd'" in str(e.value)
    with pytest.raises(AttngenError) as e:
        attngen.merge_partials([o[0] for o in outs], lses)
    assert e.value.status == "BAD_SHAPE"
    out, lse = attngen.merge_partials(outs, lses, layout="bshd")
    assert out.shape == outs[0].shape and lse.shape == (1, 2, 6)

"""attngen.flash_attn_interface.flash_attn_func: FlashAttention's signature on attngen (cpu
backend): the same bits as attngen.attention with the mapped arguments, FlashAttention's
layout and causal convention, its return_attn_probs tuple, and refusals by name."""
import pytest
import torch

import attngen
from attngen import AttngenError
from attngen.flash_attn_interface import flash_attn_func


def _refuse_copies(monkeypatch):
    """Makes .contiguous() of a tensor that is not contiguous (a copy) fail the test."""
    orig = torch.Tensor.contiguous

    def guard(self, *args, **kwargs):
        if not self.is_contiguous():
            pytest.fail("an input was copied")
        return orig(self, *args, **kwargs)
    monkeypatch.setattr(torch.Tensor, "contiguous", guard)


def _qkv(B, Sq, Skv, H, seed=3):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, Sq, H, 128, generator=g).to(torch.bfloat16)
    k = torch.randn(B, Skv, H, 128, generator=g).to(torch.bfloat16)
    v = torch.randn(B, Skv, H, 128, generator=g).to(torch.bfloat16)
    return q, k, v


def test_same_bits_as_attention():
    q, k, v = _qkv(2, 9, 21, 2)
    assert torch.equal(flash_attn_func(q, k, v), attngen.attention(q, k, v))
    assert torch.equal(flash_attn_func(q, k, v, softmax_scale=0.3),
                       attngen.attention(q, k, v, scale=0.3))
    assert not torch.equal(flash_attn_func(q, k, v, softmax_scale=0.3), flash_attn_func(q, k, v))
    assert torch.equal(flash_attn_func(q, k, v, causal=True, deterministic=True),
                       attngen.attention(q, k, v, causal=True))


def test_packed_qkv_runs_without_copy(monkeypatch):
    # FlashAttention's qkvpacked layout [B, S, 3, H, D], unbound: read in place
    g = torch.Generator().manual_seed(7)
    qkv = torch.randn(1, 33, 3, 2, 128, generator=g).to(torch.bfloat16)
    q, k, v = qkv.unbind(2)
    want = flash_attn_func(q.contiguous(), k.contiguous(), v.contiguous(), causal=True)
    _refuse_copies(monkeypatch)
    assert torch.equal(flash_attn_func(q, k, v, causal=True), want)


def test_causal_is_bottom_right():
    # Sq < Skv: FlashAttention's query 0 sees keys 0 .. Skv - Sq; the top-left mask would give
    # it key 0 only. With a scale of 0 every visible key weighs the same: query 0's output is
    # the mean of v over the keys it sees.
    q, k, v = _qkv(1, 4, 10, 1)
    out = flash_attn_func(q, k, v, causal=True, softmax_scale=0.0)
    want = v[0, :7, 0].float().mean(0)
    assert (out[0, 0, 0].float() - want).abs().max() < 2 ** -6
    assert (out[0, 0, 0].float() - v[0, 0, 0].float()).abs().max() > 2 ** -4


def test_return_attn_probs():
    q, k, v = _qkv(2, 5, 7, 3)
    out, lse, probs = flash_attn_func(q, k, v, return_attn_probs=True)
    o2, l2 = attngen.attention(q, k, v, return_lse=True)
    assert probs is None and lse.shape == (2, 3, 5) and lse.dtype == torch.float32
    assert torch.equal(out, o2) and torch.equal(lse, l2)


@pytest.mark.parametrize("kw,name", [(dict(dropout_p=0.1), "dropout_p"),
                                     (dict(window_size=(4, 0)), "window_size"),
                                     (dict(softcap=30.0), "softcap"),
                                     (dict(alibi_slopes=torch.ones(2)), "alibi_slopes")])
def test_refusals_name_the_argument(kw, name):
    q, k, v = _qkv(1, 4, 4, 2)
    with pytest.raises(AttngenError) as e:
        flash_attn_func(q, k, v, **kw)
    assert e.value.status == "INVALID_ARGUMENT" and name in str(e.value)
    assert "allowed" in str(e.value)

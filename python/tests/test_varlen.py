"""attngen.varlen_attention and flash_attn_interface.flash_attn_varlen_func on the cpu
backend: a packed batch equals the per-sequence attention() calls bit for bit (0- and 1-row
sequences, sequences without keys, cross lengths, GQA, causal per sequence, seqused_k), LSE
[H, total_q], non-contiguous inputs, and refusals naming the argument."""
import pytest
import torch

import attngen
from attngen import AttngenError
from attngen.flash_attn_interface import flash_attn_varlen_func


def _refuse_copies(monkeypatch):
    """Makes .contiguous() of a tensor that is not contiguous (a copy) fail the test."""
    orig = torch.Tensor.contiguous

    def guard(self, *args, **kwargs):
        if not self.is_contiguous():
            pytest.fail("an input was copied")
        return orig(self, *args, **kwargs)
    monkeypatch.setattr(torch.Tensor, "contiguous", guard)


def _packed(lq, lk, H, Hk, seed=5, D=128):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(sum(lq), H, D, generator=g).to(torch.bfloat16)
    k = torch.randn(sum(lk), Hk, D, generator=g).to(torch.bfloat16)
    v = torch.randn(sum(lk), Hk, D, generator=g).to(torch.bfloat16)
    cq = torch.tensor([0] + list(torch.tensor(lq).cumsum(0)), dtype=torch.int32)
    ck = torch.tensor([0] + list(torch.tensor(lk).cumsum(0)), dtype=torch.int32)
    return q, k, v, cq, ck


CASES = [  # (query lengths, key lengths, H, H_kv)
    ([5, 70, 0, 1, 33], [5, 70, 9, 64, 0], 2, 2),
    ([3, 130, 17], [200, 1, 17], 4, 2),
    ([64, 1], [1, 64], 3, 1),
]


@pytest.mark.parametrize("D", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("lq,lk,H,Hk", CASES)
def test_packed_equals_per_sequence(lq, lk, H, Hk, causal, D):
    q, k, v, cq, ck = _packed(lq, lk, H, Hk, D=D)
    out, lse = attngen.varlen_attention(q, k, v, cq, ck, max(lq), max(lk), causal=causal,
                                        return_lse=True)
    assert out.shape == q.shape and lse.shape == (H, sum(lq)) and lse.dtype == torch.float32
    for b, (nq, nk) in enumerate(zip(lq, lk)):
        if nq == 0:
            continue
        s, t = int(cq[b]), int(ck[b])
        o1, l1 = attngen.attention(q[None, s:s + nq], k[None, t:t + nk], v[None, t:t + nk],
                                   causal=causal, return_lse=True)
        assert torch.equal(out[s:s + nq], o1[0]), b
        assert torch.equal(lse[:, s:s + nq], l1[0]), b
        if nk == 0:
            assert torch.all(out[s:s + nq] == 0) and torch.all(lse[:, s:s + nq] == -float("inf"))


def test_seqused_k_and_rounding_and_scale():
    lq, lk = [7, 40, 2], [30, 50, 9]
    q, k, v, cq, ck = _packed(lq, lk, 2, 2, seed=8)
    used = torch.tensor([12, 1000, 0], dtype=torch.int32)
    out = attngen.varlen_attention(q, k, v, cq, ck, 40, 50, kv_lengths=used, rounding="rtz",
                                   scale=0.3)
    for b in range(3):
        s, t, n = int(cq[b]), int(ck[b]), min(lk[b], int(used[b]))
        o1 = attngen.attention(q[None, s:s + lq[b]], k[None, t:t + n], v[None, t:t + n],
                               rounding="rtz", scale=0.3)
        assert torch.equal(out[s:s + lq[b]], o1[0]), b
    assert torch.all(out[int(cq[2]):] == 0)  # no key used


def test_noncontiguous_inputs_and_flash_interface():
    lq = [9, 20]
    q, k, v, cq, ck = _packed(lq, lq, 4, 4, seed=2)
    want = attngen.varlen_attention(q, k, v, cq, ck, 20, 20, causal=True)
    qt = q.transpose(0, 1).contiguous().transpose(0, 1)  # same values, head-major memory
    assert not qt.is_contiguous()
    assert torch.equal(attngen.varlen_attention(qt, k, v, cq, ck, 20, 20, causal=True), want)
    assert torch.equal(flash_attn_varlen_func(q, k, v, cq, ck, 20, 20, causal=True), want)
    out, lse, probs = flash_attn_varlen_func(q, k, v, cq, ck, 20, 20, softmax_scale=0.2,
                                             return_attn_probs=True)
    o2, l2 = attngen.varlen_attention(q, k, v, cq, ck, 20, 20, scale=0.2, return_lse=True)
    assert probs is None and torch.equal(out, o2) and torch.equal(lse, l2)


@pytest.mark.parametrize("backend", ["cpu", "emu"])
def test_fused_qkv_runs_without_copy(backend, monkeypatch):
    """q, k, v = qkv.unbind(1) of a packed [total, 3, H, D] tensor (FlashAttention's varlen
    qkvpacked), and heads padded 8 apart: read in place through their strides, bit for bit
    the call on contiguous tensors (cpu reference and the gfx942 kernels in the emulator)."""
    lq = [9, 1, 30]
    q0, k0, v0, cq, _ = _packed(lq, lq, 2, 2, seed=4)
    qkv = torch.stack([q0, k0, v0], dim=1)
    q, k, v = qkv.unbind(1)
    padded = torch.zeros(sum(lq), 2, 136, dtype=torch.bfloat16)
    padded[..., :128] = q0
    attngen.set_cpu_backend(backend)
    try:
        want = attngen.varlen_attention(q0, k0, v0, cq, cq, 30, 30, causal=True)
        _refuse_copies(monkeypatch)
        assert torch.equal(attngen.varlen_attention(q, k, v, cq, cq, 30, 30, causal=True), want)
        assert torch.equal(flash_attn_varlen_func(q, k, v, cq, cq, 30, 30, causal=True), want)
        assert torch.equal(attngen.varlen_attention(padded[..., :128], k, v, cq, cq, 30, 30,
                                                    causal=True), want)
    finally:
        monkeypatch.undo()
        attngen.set_cpu_backend("cpu")


@pytest.mark.parametrize("kw,name", [(dict(dropout_p=0.1), "dropout_p"),
                                     (dict(window_size=(4, 0)), "window_size"),
                                     (dict(softcap=30.0), "softcap"),
                                     (dict(alibi_slopes=torch.ones(2)), "alibi_slopes"),
                                     (dict(block_table=torch.zeros(1, 1)), "block_table")])
def test_flash_varlen_refusals_name_the_argument(kw, name):
    q, k, v, cq, ck = _packed([4], [4], 2, 2)
    with pytest.raises(AttngenError) as e:
        flash_attn_varlen_func(q, k, v, cq, ck, 4, 4, **kw)
    assert e.value.status == "INVALID_ARGUMENT" and name in str(e.value)
    assert "flash_attn_varlen_func" in str(e.value)


def test_bad_arguments_name_them():
    q, k, v, cq, ck = _packed([5, 3], [4, 6], 2, 2)
    cases = [
        (dict(cu_seqlens_q=cq.long()), "INVALID_ARGUMENT", "cu_seqlens_q.dtype"),
        (dict(cu_seqlens_k=ck[:2]), "BAD_SHAPE", "cu_seqlens_k.shape"),
        (dict(cu_seqlens_q=torch.tensor([0, 5, 4], dtype=torch.int32)), "INVALID_ARGUMENT",
         "cu_seqlens_q[2] = 4 < cu_seqlens_q[1] = 5"),
        (dict(cu_seqlens_q=torch.tensor([1, 5, 8], dtype=torch.int32)), "INVALID_ARGUMENT",
         "cu_seqlens_q[0] = 1"),
        (dict(cu_seqlens_k=torch.tensor([0, 4, 9], dtype=torch.int32)), "INVALID_ARGUMENT",
         "total_kv = 10"),
        (dict(max_seqlen_q=4), "INVALID_ARGUMENT", "max_seqlen_q = 4"),
        (dict(max_seqlen_k=-1), "INVALID_ARGUMENT", "max_seqlen_k = -1"),
        (dict(q=q[None]), "BAD_SHAPE", "q has 4 dimensions"),
        (dict(k=torch.zeros(10, 3, 128, dtype=torch.bfloat16),
              v=torch.zeros(10, 3, 128, dtype=torch.bfloat16)), "BAD_SHAPE", "3 heads"),
        (dict(v=v.float()), "INVALID_ARGUMENT", "v.dtype"),
    ]
    for kw, status, text in cases:
        args = dict(q=q, k=k, v=v, cu_seqlens_q=cq, cu_seqlens_k=ck, max_seqlen_q=5,
                    max_seqlen_k=6)
        args.update(kw)
        with pytest.raises(AttngenError) as e:
            attngen.varlen_attention(**args)
        assert e.value.status == status and text in str(e.value), (kw.keys(), str(e.value))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("D", [64, 128, 256])
def test_emu_runs_packed_batches(D, causal):
    """The gfx942 kernels in the emulator, every head dim: each sequence bit for bit the
    emulator's attention() on its own rows (a sequence without keys: out 0, LSE -inf), and
    within the contract of the cpu reference's packed call."""
    lq, lk = [5, 3, 2], [4, 6, 0]
    q, k, v, cq, ck = _packed(lq, lk, 2, 1, D=D)
    ref = attngen.varlen_attention(q, k, v, cq, ck, 5, 6, causal=causal)
    attngen.set_cpu_backend("emu")
    try:
        out, lse = attngen.varlen_attention(q, k, v, cq, ck, 5, 6, causal=causal,
                                            return_lse=True)
        diff = (out[:8].float() - ref[:8].float()).abs()
        assert diff.max() <= 2 ** -7 * ref[:8].float().abs().max() + 1e-6
        for b, (nq, nk) in enumerate(zip(lq, lk)):
            s, t = int(cq[b]), int(ck[b])
            o1, l1 = attngen.attention(q[None, s:s + nq], k[None, t:t + nk], v[None, t:t + nk],
                                       causal=causal, return_lse=True)
            assert torch.equal(out[s:s + nq], o1[0]), b
            assert torch.equal(lse[:, s:s + nq], l1[0]), b
        assert torch.all(out[8:] == 0) and torch.all(lse[:, 8:] == -float("inf"))
    finally:
        attngen.set_cpu_backend("cpu")

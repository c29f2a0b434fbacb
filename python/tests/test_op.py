"""attngen.attention on CPU tensors against the real library (cpu and emu backends)."""
import math

import pytest
import torch

import attngen
from attngen import AttngenError, ops
from conftest import assert_close, rand, reference, tolerance


def _qkv(B, Sq, Skv, H, layout, seed=1):
    if layout == "bshd":
        return rand(B, Sq, H, 128, seed=seed), rand(B, Skv, H, 128, seed=seed + 1), \
            rand(B, Skv, H, 128, seed=seed + 2)
    return rand(B, H, Sq, 128, seed=seed), rand(B, H, Skv, 128, seed=seed + 1), \
        rand(B, H, Skv, 128, seed=seed + 2)


@pytest.mark.parametrize("layout", ["bshd", "bhsd"])
def test_layouts_match_reference(backend, layout):
    q, k, v = _qkv(2, 33, 70, 3, layout)
    out, lse = attngen.attention(q, k, v, layout=layout, return_lse=True)
    ref, ref_lse = reference(q, k, v, layout=layout)
    assert out.shape == q.shape and out.dtype == torch.bfloat16
    assert lse.shape == (2, 3, 33) and lse.dtype == torch.float32
    assert_close(out, ref, tolerance(q, k, v, layout=layout), layout)
    assert (lse.double() - ref_lse).abs().max().item() < 1e-4
    assert out.is_contiguous()  # a dense input keeps its own order


def test_layouts_give_identical_bits(backend):
    q, k, v = _qkv(1, 40, 50, 2, "bshd")
    a = attngen.attention(q, k, v, layout="bshd")
    qt, kt, vt = (t.transpose(1, 2).contiguous() for t in (q, k, v))
    b = attngen.attention(qt, kt, vt, layout="bhsd")
    assert torch.equal(a, b.transpose(1, 2))


def test_transposed_views_run_without_copy(backend):
    # SDPA-style: [B, H, S, D] views of dense [B, S, H, D] tensors
    q, k, v = _qkv(1, 24, 40, 2, "bshd", seed=5)
    qv, kv, vv = (t.transpose(1, 2) for t in (q, k, v))
    p, _ = ops._plan_for(qv, kv, vv, 128 ** -0.5, "bhsd", "rtne")
    assert p.mem == "bshd" and not p.copy_q and not p.copy_kv
    out = attngen.attention(qv, kv, vv, layout="bhsd")
    assert out.shape == qv.shape
    assert out.transpose(1, 2).is_contiguous()  # written in q's memory order
    assert torch.equal(out.transpose(1, 2), attngen.attention(q, k, v))


def test_strided_inputs_are_copied_correctly(backend):
    # k, v: every other column of a wider tensor (head_dim not unit-stride) -> copied
    q, _, _ = _qkv(1, 16, 8, 2, "bshd", seed=9)
    big_k = rand(1, 8, 2, 256, seed=10)
    big_v = rand(1, 8, 2, 256, seed=11)
    k, v = big_k[..., ::2], big_v[..., ::2]
    p, _ = ops._plan_for(q, k, v, 128 ** -0.5, "bshd", "rtne")
    assert p.copy_kv
    out = attngen.attention(q, k, v)
    assert torch.equal(out, attngen.attention(q, k.contiguous(), v.contiguous()))
    ref, _ = reference(q, k, v)
    assert_close(out, ref, tolerance(q, k, v), "strided")


def _no_copies(monkeypatch):
    """Makes any copy of q, k or v by the op fail the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("attngen copied an input")
    monkeypatch.setattr(ops, "_to_memory", refuse)


def test_packed_qkv_runs_without_copy(backend, monkeypatch):
    # q, k, v = qkv.unbind(2) of a fused [B, S, 3, H, D] projection: strided views, read in
    # place (args.q_strides ...), bit for bit the call on contiguous copies
    qkv = rand(2, 50, 3, 2, 128, seed=20)
    q, k, v = qkv.unbind(2)
    p, _ = ops._plan_for(q, k, v, 128 ** -0.5, "bshd", "rtne")
    assert not p.copy_q and not p.copy_kv
    want, want_lse = attngen.attention(q.contiguous(), k.contiguous(), v.contiguous(),
                                       return_lse=True)
    _no_copies(monkeypatch)
    out, lse = attngen.attention(q, k, v, return_lse=True)
    assert torch.equal(out, want) and torch.equal(lse, want_lse)
    assert out.is_contiguous()


def test_fused_gqa_projection_and_padded_heads_run_without_copy(backend, monkeypatch):
    # a Llama-style fused projection [B, S, H + 2 H_kv, D] split by heads (grouped-query), and
    # heads padded 8 elements apart; a causal call
    fused = rand(1, 40, 4 + 2 * 2, 128, seed=21)
    q, k, v = fused[:, :, :4], fused[:, :, 4:6], fused[:, :, 6:]
    padded = rand(1, 40, 4, 136, seed=22)[..., :128]
    want_a = attngen.attention(q.contiguous(), k.contiguous(), v.contiguous(), causal=True)
    want_b = attngen.attention(padded.contiguous(), k.contiguous(), v.contiguous())
    _no_copies(monkeypatch)
    assert torch.equal(attngen.attention(q, k, v, causal=True), want_a)
    assert torch.equal(attngen.attention(padded, k, v), want_b)


def test_permuted_kv_and_strided_out(backend, monkeypatch):
    # q dense [B, S, H, D]; k and v [B, S, H, D] views of [B, H, S, D] tensors (a framework's
    # permuted projections): read in place; out given with padded heads: written through its
    # strides, its padding untouched
    q, _, _ = _qkv(2, 30, 20, 2, "bshd", seed=23)
    kt, vt = rand(2, 2, 20, 128, seed=24), rand(2, 2, 20, 128, seed=25)
    k, v = kt.transpose(1, 2), vt.transpose(1, 2)
    want = attngen.attention(q, k.contiguous(), v.contiguous())
    out_buf = torch.full((2, 30, 2, 136), 7.0, dtype=torch.bfloat16)
    _no_copies(monkeypatch)
    p, _ = ops._plan_for(q, k, v, 128 ** -0.5, "bshd", "rtne")
    assert not p.copy_q and not p.copy_kv
    out = attngen.attention(q, k, v, out=out_buf[..., :128])
    assert torch.equal(out, want)
    assert (out_buf[..., 128:] == 7.0).all()


def test_rounding_modes(backend):
    q, k, v = _qkv(1, 32, 64, 2, "bshd", seed=3)
    ref, _ = reference(q, k, v)
    outs = {}
    for mode in ("rtne", "rtna", "rtz"):
        outs[mode] = attngen.attention(q, k, v, rounding=mode)
        assert_close(outs[mode], ref, tolerance(q, k, v, rounding=mode), mode)
    assert not torch.equal(outs["rtne"], outs["rtz"])
    # RTZ truncates O: never larger in magnitude than RTNE's O of the same P... P differs,
    # so compare on average: truncation biases |O| down
    assert outs["rtz"].double().abs().mean() < outs["rtne"].double().abs().mean()


def test_scale(backend):
    q, k, v = _qkv(1, 16, 32, 1, "bshd", seed=4)
    out, lse = attngen.attention(q, k, v, scale=0.02, return_lse=True)
    ref, ref_lse = reference(q, k, v, scale=0.02)
    assert_close(out, ref, tolerance(q, k, v, scale=0.02), "scale")
    assert (lse.double() - ref_lse).abs().max().item() < 1e-4


def test_out_and_lse_arguments(backend):
    q, k, v = _qkv(1, 16, 32, 2, "bshd", seed=6)
    out = torch.full_like(q, 7.0)
    lse = torch.full((1, 2, 16), 7.0)
    o, l = attngen.attention(q, k, v, out=out, lse=lse, return_lse=True)
    assert o is out and l is lse
    want, want_lse = attngen.attention(q, k, v, return_lse=True)
    assert torch.equal(out, want) and torch.equal(lse, want_lse)


def test_emu_tail_split_uses_python_workspace(monkeypatch):
    attngen.set_cpu_backend("emu")
    try:
        tail = "attn_fwd_d128_bshd_rtne_q2_kv96_w8_tail_vt_mfma_gfx942"
        q, k, v = rand(1, 16, 9, 128, seed=1), rand(1, 1000, 9, 128, seed=2), \
            rand(1, 1000, 9, 128, seed=3)
        ch = attngen.explain(q, k, v, variant=tail)
        assert ch["variant"] == tail and ch["num_splits"] > 1 and ch["workspace_bytes"] > 0
        # the workspace torch allocates is the one the kernel writes (V in operand order and
        # the split partials): allocated zeroed here, it must hold data after the call (the
        # test only checked the size before)
        seen = []
        real_launch, real_empty = ops._launch, torch.empty

        def zeroed(*a, **kw):
            return torch.zeros(*a, **kw)

        def spy(*a, **kw):
            ws = real_launch(*a, **kw)
            seen.append(ws)
            return ws
        monkeypatch.setattr(ops, "_launch", spy)
        monkeypatch.setattr(torch, "empty", zeroed)
        out, lse = attngen.attention(q, k, v, return_lse=True, variant=tail)
        monkeypatch.setattr(torch, "empty", real_empty)
        assert len(seen) == 1 and seen[0] is not None
        assert seen[0].numel() >= ch["workspace_bytes"]
        assert int(seen[0].count_nonzero()) > ch["workspace_bytes"] // 4
        ref, ref_lse = reference(q, k, v)
        assert_close(out, ref, tolerance(q, k, v), "tail split")
        assert (lse.double() - ref_lse).abs().max().item() < 1e-4
        with pytest.raises(AttngenError) as e:
            attngen.attention(q, k, v, variant="attn_fwd_nonsense")
        assert e.value.status == "NO_VARIANT"
    finally:
        attngen.set_cpu_backend("cpu")


def test_prepare_and_explain(backend):
    q, k, v = _qkv(1, 16, 32, 2, "bshd", seed=8)
    info = attngen.prepare(q, k, v)
    assert info["loaded"]
    if backend == "cpu":
        assert info["variant"] == "reference"
    else:
        assert info["variant"].startswith("attn_fwd_d128_bshd_rtne_") and \
            info["variant"].endswith("_gfx942")
    # explain and prepare see the call's mask: a causal call's variant is a causal one
    dense = attngen.explain(q, k, v)["variant"]
    causal = attngen.explain(q, k, v, causal=True)["variant"]
    assert attngen.prepare(q, k, v, causal=True)["variant"] == causal
    if backend == "cpu":
        assert dense == causal == "reference"
    else:
        assert "_causal_" in causal and "_causal_" not in dense


def test_empty_kv_gives_zero_and_neg_inf(backend):
    q = rand(1, 8, 2, 128)
    k = torch.empty(1, 0, 2, 128, dtype=torch.bfloat16)
    out, lse = attngen.attention(q, k, k.clone(), return_lse=True)  # k/v data_ptr() is 0
    assert torch.equal(out, torch.zeros_like(out))
    assert torch.isneginf(lse).all()


def test_info_and_context_cache():
    d = attngen.info()
    assert d["attngen"] == d["package"] == attngen.__version__ and "libattngen.so" in d["library"]
    assert d["custom_op"] == attngen.HAS_CUSTOM_OP
    c1 = attngen.get_context("cpu")
    c2 = attngen.get_context(torch.device("cpu"))
    assert c1 is c2  # one cached context per device


# ---- errors: status name + message, output untouched ------------------------------------

def _raises(status, fn, *words):
    with pytest.raises(AttngenError) as ei:
        fn()
    assert ei.value.status == status, str(ei.value)
    for w in words:
        assert w in str(ei.value), str(ei.value)
    return ei.value


def test_error_dtype():
    q, k, v = _qkv(1, 8, 8, 1, "bshd")
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(q.half(), k, v), "q.dtype",
            "torch.bfloat16")
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(q, k.float(), v), "k.dtype")


def test_error_head_dim_comes_from_c():
    q = torch.zeros(1, 8, 1, 96, dtype=torch.bfloat16)
    _raises("UNSUPPORTED_HEAD_DIM", lambda: attngen.attention(q, q.clone(), q.clone()),
            "head_dim = 96", "64, 128, 256")


def _causal_reference(q, k, v):
    """fp64 bottom-right causal attention, BSHD; rows without keys 0."""
    Sq, Skv = q.shape[1], k.shape[1]
    s = torch.einsum("bshd,bthd->bhst", q.double(), k.double()) * q.shape[-1] ** -0.5
    keep = torch.ones(Sq, Skv, dtype=torch.bool).tril(Skv - Sq)
    s = s.masked_fill(~keep, float("-inf"))
    p = torch.nan_to_num(s.softmax(-1), nan=0.0)
    return torch.einsum("bhst,bthd->bshd", p, v.double())


@pytest.mark.parametrize("head_dim", [64, 256])
def test_head_dims_match_reference_on_cpu(head_dim):
    """head_dim 64 and 256 on the cpu backend (the reference): within the fp64 bound, the
    default scale 1/sqrt(head_dim), causal and GQA too."""
    B, Sq, Skv, H = 2, 33, 70, 4
    q = rand(B, Sq, H, head_dim, seed=11)
    k, v = rand(B, Skv, 2, head_dim, seed=12), rand(B, Skv, 2, head_dim, seed=13)
    kr, vr = (t.repeat_interleave(2, dim=2) for t in (k, v))
    assert attngen.get_context(q.device).backend == "cpu"
    out, lse = attngen.attention(q, k, v, return_lse=True)
    assert out.shape == q.shape and lse.shape == (B, H, Sq)
    ref, ref_lse = reference(q, kr, vr, layout="bshd")
    assert_close(out, ref, tolerance(q, kr, vr, layout="bshd"), f"d{head_dim}")
    assert (lse.double() - ref_lse).abs().max().item() < 1e-4
    out = attngen.attention(q, k, v, causal=True)
    err = (out.double() - _causal_reference(q, kr, vr)).abs().max().item()
    assert err < 2 ** -7, err
    # the scale defaults to 1/sqrt(head_dim)
    assert torch.equal(attngen.attention(q, k, v),
                       attngen.attention(q, k, v, scale=head_dim ** -0.5))
    assert not torch.equal(attngen.attention(q, k, v),
                           attngen.attention(q, k, v, scale=128 ** -0.5))


def test_head_dims_on_the_amd_kernels(monkeypatch):
    """The gfx942 kernels (here on the emulator) have head_dim 64, 128 and 256: a head_dim 64
    call (GQA, default scale) runs a d64 kernel within the fp64 bound; a head_dim 256 call
    plans a d256 kernel, a causal one a d256 causal kernel."""
    q = rand(1, 20, 4, 64, seed=3)
    k, v = rand(1, 40, 2, 64, seed=4), rand(1, 40, 2, 64, seed=5)
    emu = type(attngen.get_context(q.device))("emu")
    monkeypatch.setattr(ops, "get_context", lambda device: emu)
    assert ops._make_plan(q, k, v, 0.125, "bshd", "rtne").chosen.startswith("attn_fwd_d64_")
    out, lse = attngen.attention(q, k, v, return_lse=True)
    kr, vr = (t.repeat_interleave(2, dim=2) for t in (k, v))
    ref, ref_lse = reference(q, kr, vr, layout="bshd")
    assert_close(out, ref, tolerance(q, kr, vr, layout="bshd"), "emu d64")
    assert (lse.double() - ref_lse).abs().max().item() < 1e-4
    q = rand(1, 16, 2, 256, seed=3)
    assert ops._make_plan(q, q.clone(), q.clone(), 0.0625, "bshd",
                          "rtne").chosen.startswith("attn_fwd_d256_")
    chosen = ops._make_plan(q, q.clone(), q.clone(), 0.0625, "bshd", "rtne", causal=True).chosen
    assert chosen.startswith("attn_fwd_d256_") and "_causal_" in chosen


def test_error_shapes():
    q, k, v = _qkv(1, 8, 8, 2, "bshd")
    q3 = rand(1, 8, 3, 128, seed=4)  # 3 query heads over 2 KV heads: not a divisor
    _raises("BAD_SHAPE", lambda: attngen.attention(q3, k, v), "heads_kv = 2",
            "divisor of q's heads")
    _raises("BAD_SHAPE", lambda: attngen.attention(q, k, v[:, :4]), "v.shape")
    _raises("BAD_SHAPE", lambda: attngen.attention(q[0], k[0], v[0]), "dimensions")
    _raises("BAD_SHAPE", lambda: attngen.attention(q, k[:1].expand(2, -1, -1, -1).contiguous(),
                                                   v[:1].expand(2, -1, -1, -1).contiguous()),
            "batch")


def test_error_device():
    q, k, v = _qkv(1, 8, 8, 1, "bshd")
    km = torch.empty(k.shape, dtype=torch.bfloat16, device="meta")
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(q, km, v), "one device")
    qm, vm = (torch.empty(t.shape, dtype=torch.bfloat16, device="meta") for t in (q, v))
    _raises("NO_BACKEND", lambda: attngen.attention(qm, km, vm), "meta")


def test_error_names_and_scale():
    q, k, v = _qkv(1, 8, 8, 1, "bshd")
    _raises("BAD_LAYOUT", lambda: attngen.attention(q, k, v, layout="sbhd"), "'bshd', 'bhsd'")
    _raises("BAD_ROUNDING", lambda: attngen.attention(q, k, v, rounding="up"), "rtne")
    _raises("BAD_SCALE", lambda: attngen.attention(q, k, v, scale=math.nan), "scale")
    _raises("INVALID_ARGUMENT", lambda: attngen.set_cpu_backend("gpu"), "'cpu', 'emu'")


def test_error_misaligned_from_c_leaves_out_untouched():
    base = rand(1 * 8 * 1 * 128 + 1, seed=3)
    q = base[1:].view(1, 8, 1, 128)  # 2 bytes off 16-byte alignment, dense
    k, v = rand(1, 8, 1, 128, seed=4), rand(1, 8, 1, 128, seed=5)
    out = torch.full_like(k, 3.0)
    _raises("MISALIGNED", lambda: attngen.attention(q, k, v, out=out), "args.q")
    assert (out == 3.0).all()


def test_error_aliasing_from_c():
    q, k, v = _qkv(1, 8, 8, 1, "bshd")
    _raises("ALIASING", lambda: attngen.attention(q, k, v, out=q), "args.out")


def test_error_out_and_lse_arguments():
    q, k, v = _qkv(1, 8, 8, 2, "bshd")
    _raises("BAD_SHAPE", lambda: attngen.attention(q, k, v, out=q[:, :4].clone()), "out.shape")
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(q, k, v, out=q.float()), "bfloat16")
    _raises("BAD_LAYOUT", lambda: attngen.attention(
        q, k, v, out=torch.empty(1, 8, 2, 256, dtype=torch.bfloat16)[..., ::2]), "unit-stride")
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(
        q, k, v, lse=torch.empty(1, 2, 8, dtype=torch.float64)), "float32")
    _raises("BAD_SHAPE", lambda: attngen.attention(q, k, v, lse=torch.empty(1, 8, 2)), "[B, H, Sq]")


def test_custom_op_guard():
    has = hasattr(torch.library, "custom_op") and hasattr(torch.library, "register_fake")
    assert attngen.HAS_CUSTOM_OP == has
    if has:
        assert hasattr(torch.ops.attngen, "fwd")
        q, k, v = _qkv(1, 16, 16, 1, "bshd")
        o, l = torch.ops.attngen.fwd(q, k, v, 128 ** -0.5, "bshd", "rtne", True)
        assert torch.equal(o, attngen.attention(q, k, v))
        torch.library.opcheck(torch.ops.attngen.fwd.default,
                              (q, k, v, 128 ** -0.5, "bshd", "rtne", True))
    else:
        # torch 1.13: attention is the plain function, nothing registered
        assert not hasattr(torch.ops.attngen, "fwd")


# ---- issue 29: forward only, empty shapes, the plan cache's device key ------------------

def test_requires_grad_is_refused_not_detached():
    q, k, v = _qkv(1, 8, 8, 1, "bshd")
    qg = q.clone().requires_grad_(True)
    e = _raises("INVALID_ARGUMENT", lambda: attngen.attention(qg, k, v), "q.requires_grad",
                "forward only")
    assert "no_grad" in str(e)
    with torch.no_grad():  # inference: allowed, same bits as the detached call
        assert torch.equal(attngen.attention(qg, k, v), attngen.attention(q, k, v))


def test_meta_tensor_after_a_cpu_call_of_the_same_shape():
    # the plan cache keyed on get_device() (-1 for cpu and for meta): a meta k after a cpu
    # call of the same shapes reused the cpu plan and failed with NULL_POINTER "args.k"
    q, k, v = _qkv(1, 8, 8, 1, "bshd", seed=21)
    attngen.attention(q, k, v)
    km = torch.empty(k.shape, dtype=torch.bfloat16, device="meta")
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(q, km, v), "one device")


@pytest.mark.parametrize("shape", [(0, 8, 2), (1, 0, 2), (1, 8, 0)])
def test_empty_batch_heads_or_queries_give_empty_output(backend, shape):
    B, Sq, H = shape
    q = rand(B, Sq, H, 128)
    k, v = rand(B, 5, H, 128, seed=1), rand(B, 5, H, 128, seed=2)
    out, lse = attngen.attention(q, k, v, return_lse=True)
    assert out.shape == q.shape and out.dtype == torch.bfloat16 and out.numel() == 0
    assert lse.shape == (B, H, Sq) and lse.numel() == 0
    assert attngen.explain(q, k, v)["variant"]
    # still validated: head_dim, names
    q96 = torch.zeros(B, Sq, H, 96, dtype=torch.bfloat16)
    _raises("UNSUPPORTED_HEAD_DIM", lambda: attngen.attention(q96, q96.clone(), q96.clone()))
    _raises("BAD_ROUNDING", lambda: attngen.attention(q, k, v, rounding="up"))


def test_cpu_backend_from_environment():
    # ATTNGEN_CPU_BACKEND (README: CPU tensors on the emulator) is read at import; it had no
    # test. A fresh interpreter, so the variable is read as a user's would be.
    import os
    import subprocess
    import sys
    code = ("import torch, attngen; q = torch.zeros(1, 8, 1, 128, dtype=torch.bfloat16); "
            "print(attngen.explain(q, q, q)['variant'])")
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(attngen.__file__)))
    env = dict(os.environ, PYTHONPATH=pkg_root)  # the package this test imported
    for name, want in (("emu", "_gfx942"), ("cpu", "reference")):
        env["ATTNGEN_CPU_BACKEND"] = name
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
        assert out.endswith(want), (name, out)


# ---- per-batch key lengths ----------------------------------------------------------------

def test_kv_lengths_match_sliced_calls(backend):
    """Entry b with kv_lengths[b] = n is, bit for bit, the call of entry b alone on its first
    clamp(n, 0, Skv) keys; masked keys hold NaN/Inf (they contribute nothing); 0 keys give
    out = 0 and LSE = -inf; negative and > Skv values are clamped."""
    B, Sq, Skv, H = 5, 9, 70, 2
    for layout in ("bshd", "bhsd"):
        q, k, v = _qkv(B, Sq, Skv, H, layout, seed=11)
        lens = torch.tensor([0, 1, 33, -4, 999], dtype=torch.int32)
        clamped = [0, 1, 33, 0, Skv]
        k, v = k.clone(), v.clone()
        sd = 1 if layout == "bshd" else 2  # the sequence dimension
        for b, n in enumerate(clamped):
            k.select(0, b).narrow(sd - 1, n, Skv - n).fill_(float("nan"))
            v.select(0, b).narrow(sd - 1, n, Skv - n).fill_(float("inf"))
        out, lse = attngen.attention(q, k, v, layout=layout, return_lse=True, kv_lengths=lens)
        for b, n in enumerate(clamped):
            qb = q[b:b + 1]
            kb, vb = k[b:b + 1].narrow(sd, 0, n), v[b:b + 1].narrow(sd, 0, n)
            ob, lb = attngen.attention(qb, kb, vb, layout=layout, return_lse=True)
            assert torch.equal(out[b:b + 1], ob), (layout, b)
            assert torch.equal(lse[b:b + 1], lb), (layout, b)
            if n == 0:
                assert torch.equal(ob, torch.zeros_like(ob)) and torch.isneginf(lb).all()
            else:
                ref, ref_lse = reference(qb, kb, vb, layout=layout)
                assert_close(ob, ref, tolerance(qb, kb, vb, layout=layout), f"{layout} b={b}")


def test_causal_rows_match_prefix_calls(backend):
    """causal=True (bottom-right aligned): row i of an entry with n keys is, bit for bit, the
    one-row call on its first i + n - Sq + 1 keys; rows that see none (Sq > Skv) give out = 0
    and LSE = -inf; with kv_lengths the alignment follows each entry's length (the gfx942
    causal kernels on emu, the reference on cpu; on emu fewer calls: each row is a launch)."""
    emu = backend == "emu"
    for (Sq, Skv) in ((12, 12), (30, 5)) if emu else ((12, 12), (5, 30), (30, 5)):
        for layout in ("bhsd",) if emu else ("bshd", "bhsd"):
            q, k, v = _qkv(2, Sq, Skv, 2, layout, seed=Sq + Skv)
            lens = torch.tensor([Skv, max(Skv - 3, 0)], dtype=torch.int32)
            for kvl in (None, lens):
                out, lse = attngen.attention(q, k, v, layout=layout, return_lse=True,
                                             causal=True, kv_lengths=kvl)
                sd = 1 if layout == "bshd" else 2
                empty = 0
                for b in range(2):
                    n = Skv if kvl is None else int(kvl[b])
                    for i in range(Sq):
                        keys = min(max(i + n - Sq + 1, 0), n)
                        qi = q[b:b + 1].narrow(sd, i, 1)
                        ki, vi = (t[b:b + 1].narrow(sd, 0, keys) for t in (k, v))
                        oi, li = attngen.attention(qi, ki, vi, layout=layout, return_lse=True)
                        assert torch.equal(out[b:b + 1].narrow(sd, i, 1), oi), (Sq, Skv, b, i)
                        assert torch.equal(lse[b:b + 1, :, i:i + 1], li), (Sq, Skv, b, i)
                        if keys == 0:
                            empty += 1
                            assert torch.equal(oi, torch.zeros_like(oi))
                            assert torch.isneginf(li).all()
                assert (empty > 0) == (Sq > Skv or kvl is not None and Sq > Skv - 3)


def test_kv_lengths_errors():
    q, k, v = _qkv(2, 8, 8, 1, "bshd")
    ok = torch.tensor([3, 8], dtype=torch.int32)
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(q, k, v, kv_lengths=ok.long()),
            "kv_lengths.dtype", "torch.int32")
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(q, k, v, kv_lengths=[3, 8]),
            "kv_lengths")
    _raises("BAD_SHAPE", lambda: attngen.attention(q, k, v, kv_lengths=ok[:1]),
            "kv_lengths.shape", "(2,)")
    _raises("BAD_SHAPE", lambda: attngen.attention(q, k, v, kv_lengths=ok.view(2, 1)),
            "kv_lengths.shape")
    meta = torch.empty(2, dtype=torch.int32, device="meta")
    _raises("INVALID_ARGUMENT", lambda: attngen.attention(q, k, v, kv_lengths=meta),
            "kv_lengths is on meta")
    # a strided view is made contiguous (the library reads int32 [B] densely)
    wide = torch.tensor([3, -1, 8, -1], dtype=torch.int32)[::2]
    assert torch.equal(attngen.attention(q, k, v, kv_lengths=wide),
                       attngen.attention(q, k, v, kv_lengths=ok))


# ---- grouped-query attention ----------------------------------------------------------------

def _repeat_heads(t, g, layout):
    """t with each head repeated g times (query head h -> KV head h // g)."""
    return t.repeat_interleave(g, dim=2 if layout == "bshd" else 1)


@pytest.mark.parametrize("layout", ["bshd", "bhsd"])
def test_gqa_equals_repeated_kv(backend, layout):
    """k and v with fewer heads than q (heads_kv inferred from k): bit for bit the dense call
    on k, v with every KV head repeated H // heads_kv times; LSE too; with key lengths; MQA;
    k/v passed as transposed views (no copy)."""
    B, Sq, Skv = 2, 17, 70
    for H, Hkv in ((4, 2), (3, 1), (6, 3)):
        q = _qkv(B, Sq, Skv, H, layout, seed=21)[0]
        k, v = _qkv(B, Sq, Skv, Hkv, layout, seed=31)[1:]
        g = H // Hkv
        kr, vr = _repeat_heads(k, g, layout), _repeat_heads(v, g, layout)
        out, lse = attngen.attention(q, k, v, layout=layout, return_lse=True)
        want, want_lse = attngen.attention(q, kr, vr, layout=layout, return_lse=True)
        assert torch.equal(out, want) and torch.equal(lse, want_lse), (H, Hkv)
        ref, _ = reference(q, kr, vr, layout=layout)
        assert_close(out, ref, tolerance(q, kr, vr, layout=layout), f"{layout} {H}/{Hkv}")
        lens = torch.tensor([45, 3], dtype=torch.int32)
        out = attngen.attention(q, k, v, layout=layout, kv_lengths=lens)
        assert torch.equal(out, attngen.attention(q, kr, vr, layout=layout, kv_lengths=lens))
    # transposed views of dense tensors in the other order run in place
    q = _qkv(1, 24, 40, 4, "bshd", seed=5)[0]
    k, v = _qkv(1, 24, 40, 2, "bshd", seed=6)[1:]
    qv, kv, vv = (t.transpose(1, 2) for t in (q, k, v))
    p, _ = ops._plan_for(qv, kv, vv, 128 ** -0.5, "bhsd", "rtne")
    assert p.mem == "bshd" and not p.copy_q and not p.copy_kv
    assert torch.equal(attngen.attention(qv, kv, vv, layout="bhsd").transpose(1, 2),
                       attngen.attention(q, k, v))


def test_gqa_errors():
    q = rand(1, 8, 6, 128, seed=1)
    k, v = rand(1, 8, 4, 128, seed=2), rand(1, 8, 4, 128, seed=3)
    _raises("BAD_SHAPE", lambda: attngen.attention(q, k, v), "heads_kv = 4", "divisor")
    # more KV heads than query heads
    _raises("BAD_SHAPE", lambda: attngen.attention(q[:, :, :2], k, v), "heads_kv = 4")
    # k and v must agree with each other
    _raises("BAD_SHAPE", lambda: attngen.attention(q, k[:, :, :2], v[:, :, :3]), "v.shape")

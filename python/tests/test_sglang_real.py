"""attngen's SGLang backend inside the REAL SGLang multimodal_gen source (not interface stubs).

ATTNGEN_SGLANG_SRC names a folder holding SGLang's `sglang` package (the tree of README
"SGLang (multimodal_gen)": python/ of /work/ext/sglang-src, python/sglang/**/*.py of upstream
commit 04eb7280; on a GPU machine python/tests/gpu/sglang_real.sh unpacks its tarball and
runs this file). Without it every test here is skipped, and
so on torch 1.x (the real modules need torch >= 2: torch.nn.attention, SDPA). On torch
2.0-2.6 _dynamo_config_shim lets one import-time compile setting through (see there).

What is real: sglang's attention layers (LocalAttention, USPAttention), the selector
(get_attn_backend), AttentionBackend / AttentionImpl / AttentionMetadata, AttentionBackendEnum
and the platforms package, the forward context, the mixed-precision dtype, SGLang's own SDPA
backend (the reference here) and everything they import inside sglang.multimodal_gen.
What is stubbed (each only when it cannot be imported): the third-party packages in
sglang_real_env._THIRD_PARTY (imported at module level by those files, never called on the attention path)
that are not installed, any third-party package whose import from sglang raises (any
exception; the fixture prints why), those named in ATTNGEN_SGLANG_STUB, and the package
sglang.srt (SGLang's LLM runtime: reached at import time only through multimodal_gen's
quantization and config modules). A stub is an empty module whose attributes are inert
placeholders; it is handed only to importers inside sglang and kept out of sys.modules
where other code could see it (test_sglang_env.py tests these rules on a made-up tree)."""
import importlib
import os
import socket
import subprocess
import sys
import types

import pytest
import torch

import attngen
import sglang_real_env as env
from conftest import assert_close, reference, tolerance

SRC = os.environ.get("ATTNGEN_SGLANG_SRC")

@pytest.fixture(scope="module")
def sgl():
    if not SRC:
        pytest.skip("ATTNGEN_SGLANG_SRC is not set (a folder holding SGLang's sglang package)")
    if not os.path.isdir(os.path.join(SRC, "sglang", "multimodal_gen")):
        pytest.skip(f"ATTNGEN_SGLANG_SRC={SRC} holds no sglang/multimodal_gen")
    if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        pytest.skip(f"torch {torch.__version__}: the real SGLang modules need torch >= 2 "
                    "(scaled_dot_product_attention, torch.nn.attention)")
    ns = env.load(SRC)
    try:
        for m in (ns.layer, ns.selector, ns.ab, ns.sdpa, ns.fc):
            assert m.__file__.startswith(os.path.abspath(SRC)), m.__file__  # the real files
        assert not ns.outside, f"sglang modules not from {SRC}: {ns.outside[:5]}"
        print(f"\nreal sglang modules loaded from {SRC}: {len(ns.real)}; stubbed: {ns.stubbed}")
        for top, why in ns.stub_reasons.items():
            if why != "not installed":
                print(f"  stub {top}: {why}")
        ns.utils.set_mixed_precision_policy(param_dtype=torch.bfloat16,
                                            reduce_dtype=torch.float32)
        from attngen.integrations import sglang as ags
        ns.ags = ags
        yield ns
    finally:
        mod = sys.modules.get("attngen.integrations.sglang")
        if mod is not None:
            mod.uninstall()
        env.unload(ns)
        if mod is not None:
            importlib.reload(mod)


def _rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm()).item()


def _qkv(S=256, H=2, D=128, seed=0):
    g = torch.Generator().manual_seed(seed)
    base = torch.randn(S // 128, H, D, generator=g).repeat_interleave(128, 0)[None]
    q = (0.9 * base + 0.3 * torch.randn(1, S, H, D, generator=g)).to(torch.bfloat16)
    k = (0.9 * base + 0.3 * torch.randn(1, S, H, D, generator=g)).to(torch.bfloat16)
    return q, k, torch.randn(1, S, H, D, generator=g).to(torch.bfloat16)


_DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", _DEVICES)
def test_real_selection_and_forward(sgl, device):
    """cpu: attngen's cpu backend; cuda (where there is a GPU): attngen's GPU kernels, and
    SGLang's SDPA backend on the GPU as the comparison."""
    ags, Enum = sgl.ags, sgl.platforms.AttentionBackendEnum
    assert sgl.utils.get_compute_dtype() == torch.bfloat16  # the dtype the layers select with
    backend = ags.install()
    assert issubclass(backend, sgl.ab.AttentionBackend)
    assert issubclass(backend.get_impl_cls(), sgl.ab.AttentionImpl)
    assert backend.get_enum() is Enum.ATTNGEN and Enum["ATTNGEN"] is Enum.ATTNGEN
    # the selector and the layer module's own binding of it both route through install()
    assert sgl.layer.get_attn_backend is sgl.selector.get_attn_backend
    assert sgl.selector.get_attn_backend.__wrapped__.__module__ == sgl.selector.__name__
    q, k, v = _qkv(S=256, seed=1)
    qd, kd, vd = (t.to(device) for t in (q, k, v))
    scale = 0.07
    # SGLang's own SDPA backend on the same call: the reference implementation
    sdpa_impl = sgl.sdpa.SDPABackend.get_impl_cls()(num_heads=2, head_size=128, causal=False,
                                                    softmax_scale=scale, num_kv_heads=2)
    meta = sgl.ab.AttentionMetadata(current_timestep=0)
    with sgl.fc.set_forward_context(current_timestep=0, attn_metadata=meta):
        ref_sdpa = sdpa_impl.forward(qd, kd, vd, meta).cpu()
        for cls, extra in ((sgl.layer.LocalAttention, {}),
                           (sgl.layer.USPAttention, {"skip_sequence_parallel": True})):
            layer = cls(num_heads=2, head_size=128, softmax_scale=scale, causal=False,
                        supported_attention_backends={Enum.FA, Enum.TORCH_SDPA}, **extra)
            assert type(layer.attn_impl) is backend.get_impl_cls()
            assert layer.backend is Enum.ATTNGEN
            out = layer(qd, kd, vd)
            out = out[0] if isinstance(out, tuple) else out
            assert out.device == qd.device
            assert torch.equal(out, attngen.attention(qd, kd, vd, scale=scale)), cls.__name__
            out = out.cpu()
            ref, _ = reference(q, k, v, scale=scale)
            assert_close(out, ref, tolerance(q, k, v, scale=scale), cls.__name__)
            # against SGLang's SDPA backend: no worse than SDPA's own bf16 error vs fp64
            rel_ag, rel_sdpa = _rel(out, ref), _rel(ref_sdpa, ref)
            print(f"{device} {cls.__name__}: rel L2 vs fp64 attngen {rel_ag:.2e} sdpa {rel_sdpa:.2e}; "
                  f"attngen vs sdpa {_rel(out, ref_sdpa.double()):.2e}")
            assert rel_ag <= 1.25 * rel_sdpa + 1e-3, (cls.__name__, rel_ag, rel_sdpa)
            assert _rel(out, ref_sdpa.double()) < 2e-2
    # the call SGLang's ring_attn makes of the impl (usp.py: attn_metadata=None,
    # return_softmax_lse=True): (out, lse [B, H, Sq]) natural log
    ring_out, lse = layer.attn_impl.forward(qd, kd, vd, attn_metadata=None,
                                            return_softmax_lse=True)
    _, ref_lse = reference(q, k, v, scale=scale)
    assert lse.shape == (1, 2, 256) and (lse.cpu().double() - ref_lse).abs().max() < 1e-4
    assert torch.equal(ring_out, attngen.attention(qd, kd, vd, scale=scale))
    # other head sizes reach SGLang's own selector, which (no server args set here) raises
    with pytest.raises(ValueError) as e:
        sgl.layer.LocalAttention(num_heads=2, head_size=96)
    assert "args is not set" in str(e.value)
    with pytest.raises(attngen.AttngenError) as e:  # refused by name at construction
        sgl.layer.LocalAttention(num_heads=4, head_size=128, num_kv_heads=3)
    assert "num_kv_heads" in str(e.value)
    ags.uninstall()
    assert sgl.layer.get_attn_backend is sgl.selector.get_attn_backend
    assert not hasattr(sgl.selector.get_attn_backend, "__wrapped__")
    with pytest.raises(ValueError) as e:
        sgl.layer.LocalAttention(num_heads=2, head_size=128)
    assert "args is not set" in str(e.value)


@pytest.mark.parametrize("device", _DEVICES)
def test_real_skip_hook(sgl, device):
    """enable_skip inside the real forward context: SGLang passes attn_metadata=None to this
    backend (it builds metadata only for its own sparse backends), so the step and the pass
    come from set_forward_context(current_timestep=step index, forward_batch.is_cfg_negative)
    as the denoising stage sets them. cpu: the cpu backend's reference with the state's
    lists; cuda (where there is a GPU): attngen's skip kernels."""
    ags, Enum = sgl.ags, sgl.platforms.AttentionBackendEnum
    ags.install()
    q, k, v = (t.to(device) for t in _qkv(seed=5))
    dense = attngen.attention(q, k, v)
    # one process: skip_sequence_parallel (a real option) bypasses the uninitialised SP group
    layers = [sgl.layer.USPAttention(num_heads=2, head_size=128, skip_sequence_parallel=True)
              for _ in range(2)]

    def run_request(steps=3):
        outs = []
        for i in range(steps):
            for negative in (False, True):
                batch = types.SimpleNamespace(is_cfg_negative=negative)
                with sgl.fc.set_forward_context(current_timestep=i, attn_metadata=None,
                                                forward_batch=batch):
                    outs.append([layer(q, k, v) for layer in layers])
        return outs

    outs = run_request()  # off unless asked
    assert all(torch.equal(o, dense) for step in outs for o in step)
    ags.enable_skip(threshold_log2=-6.0)
    outs = run_request()
    states = ags.skip_states()
    assert len(states) == 4  # 2 layers x (positive, negative pass)
    for impl in (layer.attn_impl for layer in layers):
        assert sorted(impl.skip_states) == [0, 1]
    assert all(torch.equal(o, dense) for o in outs[0] + outs[1])  # step 0: both passes dense
    assert not any(torch.equal(o, dense) for o in outs[2] + outs[3])  # step 1 skips
    assert all(s.skipped_fraction > 0 for s in states)
    print(f"{device}: skipped fractions at step 1 "
          f"{[round(s.skipped_fraction, 3) for s in states]}")
    outs = run_request()  # the step index restarts at 0: a new request, dense again
    assert all(torch.equal(o, dense) for o in outs[0] + outs[1])
    assert not torch.equal(outs[2][0], dense)
    # requests of one step: the same (step, pass) again is a new request, not a next step
    for _ in range(2):
        outs = run_request(steps=1)
        assert all(torch.equal(o, dense) for o in outs[0] + outs[1])
    ags.reset_skip()
    batch = types.SimpleNamespace(is_cfg_negative=False)
    with sgl.fc.set_forward_context(current_timestep=7, attn_metadata=None,
                                    forward_batch=batch):
        assert torch.equal(layers[0](q, k, v), dense)
    ags.disable_skip()
    assert ags.skip_states() == []
    ags.uninstall()


def test_real_text_encoder_layer(sgl):
    """SGLang's text encoders (Llama, Qwen3, CLIP) build LocalAttention(causal=True) with fewer
    key/value heads through the same selector, so install() hands them attngen too: causal GQA
    runs on attngen (bottom-right mask = SDPA's top-left one when Sq == Skv, as here), the
    same as SGLang's SDPA backend; with skipping on, the encoder stage's calls (a forward
    context without a batch) make no skip state."""
    ags, Enum = sgl.ags, sgl.platforms.AttentionBackendEnum
    ags.install()
    ags.enable_skip()
    g = torch.Generator().manual_seed(11)
    q = torch.randn(2, 96, 4, 128, generator=g).to(torch.bfloat16)
    k, v = (torch.randn(2, 96, 2, 128, generator=g).to(torch.bfloat16) for _ in range(2))
    scale = 128 ** -0.5
    layer = sgl.layer.LocalAttention(num_heads=4, head_size=128, num_kv_heads=2, causal=True,
                                     supported_attention_backends={Enum.FA, Enum.TORCH_SDPA})
    assert layer.backend is Enum.ATTNGEN
    sdpa = sgl.sdpa.SDPABackend.get_impl_cls()(num_heads=4, head_size=128, causal=True,
                                               softmax_scale=scale, num_kv_heads=2)
    with sgl.fc.set_forward_context(current_timestep=0, attn_metadata=None):  # text_encoding.py
        out = layer(q, k, v)
        ref_sdpa = sdpa.forward(q, k, v, None)
        again = layer(q, k, v)  # the negative prompt's call
    assert torch.equal(out, attngen.attention(q, k, v, scale=scale, causal=True))
    assert torch.equal(again, out)
    kr, vr = k.repeat_interleave(2, dim=2), v.repeat_interleave(2, dim=2)
    s = torch.einsum("bshd,bthd->bhst", q.double(), kr.double()) * scale
    s = s.masked_fill(torch.ones(96, 96, dtype=torch.bool).triu(1), float("-inf"))
    ref = torch.einsum("bhst,bthd->bshd", s.softmax(-1), vr.double())
    rel_ag, rel_sdpa = _rel(out, ref), _rel(ref_sdpa, ref)
    print(f"causal GQA: rel L2 vs fp64 attngen {rel_ag:.2e} sdpa {rel_sdpa:.2e}")
    assert rel_ag <= 1.25 * rel_sdpa + 1e-3 and _rel(out, ref_sdpa.double()) < 2e-2
    assert layer.attn_impl.skip_states == {}
    ags.disable_skip()
    ags.uninstall()


def _port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def test_real_ring(sgl):
    """SGLang's ring attention with attngen: two ranks of SGLang's own process groups
    (sglang_ring_worker.py). Needs 2 GPUs: SGLang's CpuPlatform has no
    get_local_torch_device, so its process groups cannot be built on CPU."""
    if torch.cuda.device_count() < 2:
        pytest.skip("needs 2 CUDA devices (SGLang's process groups need its CUDA platform: "
                    "CpuPlatform.get_local_torch_device raises NotImplementedError)")
    port = str(_port())
    env_vars = dict(os.environ, OMP_NUM_THREADS="1")
    worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sglang_ring_worker.py")
    procs = [subprocess.Popen([sys.executable, worker, str(r), "2", port, SRC],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env_vars,
                              text=True) for r in range(2)]
    outs = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=400)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        outs.append((p.returncode, out))
    for r, (rc, out) in enumerate(outs):
        print(out[-1500:])
        assert rc == 0, f"rank {r} exited {rc}:\n{out[-4000:]}"
        assert f"rank {r} OK:" in out, out[-2000:]

"""The framework adapters against stub modules that reproduce each framework's published
interface (the frameworks are not installed here). The stubs are written from the
documented signatures: diffusers' attention_dispatch (AttentionBackendName, the registry's
register(backend, constraints, supports_context_parallel), dispatch by keyword, the
templated context-parallel forward op), SGLang multimodal_gen's AttentionBackend /
AttentionImpl and selector, xfuser's ATTENTION_FUNCTION_REGISTRY, yunchang's
select_flash_attn_impl."""
import enum
import importlib
import inspect
import sys
import types

import pytest
import torch

import attngen
from attngen import AttngenError
from conftest import assert_close, rand, reference, tolerance


def _install(name, **attrs):
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sub = ".".join(parts[:i])
        if sub not in sys.modules:
            sys.modules[sub] = types.ModuleType(sub)
            if i > 1:
                setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], sys.modules[sub])
    mod = sys.modules[name]
    for k, v in attrs.items():
        setattr(mod, k, v)
    return mod


@pytest.fixture
def stubs():
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.split(".")[0] in ("diffusers", "sglang", "xfuser", "yunchang"):
            del sys.modules[name]
    for m in ("diffusers", "sglang", "xdit", "yunchang"):
        mod = sys.modules.get(f"attngen.integrations.{m}")
        if mod is not None:
            importlib.reload(mod)


def _bshd(B=1, S=24, Skv=40, H=2, seed=0):
    return rand(B, S, H, 128, seed=seed), rand(B, Skv, H, 128, seed=seed + 1), \
        rand(B, Skv, H, 128, seed=seed + 2)


# ---- diffusers ---------------------------------------------------------------------------

def _diffusers_stub():
    class AttentionBackendName(str, enum.Enum):
        NATIVE = "native"
        FLASH = "flash"

    class Registry:
        _backends, _constraints, _supported_arg_names = {}, {}, {}
        _supports_context_parallel = set()
        _active_backend = AttentionBackendName.NATIVE

        @classmethod
        def register(cls, backend, constraints=None, supports_context_parallel=False):
            def deco(fn):
                cls._backends[backend] = fn
                cls._constraints[backend] = constraints or []
                cls._supported_arg_names[backend] = set(inspect.signature(fn).parameters)
                if supports_context_parallel:
                    cls._supports_context_parallel.add(backend.value)
                return fn
            return deco

    def _check_device(query, key, value, **kw):
        if not (query.device == key.device == value.device):
            raise ValueError("device")

    def _check_shape(query, key, value, attn_mask=None, **kw):
        if query.shape[-1] != key.shape[-1]:
            raise ValueError("head dim")

    def dispatch_attention_fn(query, key, value, attn_mask=None, dropout_p=0.0,
                              is_causal=False, scale=None, enable_gqa=False,
                              attention_kwargs=None, *, backend=None, parallel_config=None):
        name = AttentionBackendName(backend)
        kw = dict(query=query, key=key, value=value, attn_mask=attn_mask, dropout_p=dropout_p,
                  is_causal=is_causal, scale=scale, enable_gqa=enable_gqa,
                  **(attention_kwargs or {}), _parallel_config=parallel_config)
        for check in Registry._constraints[name]:
            check(**kw)
        kw = {k: v for k, v in kw.items() if k in Registry._supported_arg_names[name]}
        return Registry._backends[name](**kw)

    calls = []

    def _templated_context_parallel_attention(query, key, value, attn_mask, dropout_p,
                                              is_causal, scale, enable_gqa, return_lse, *,
                                              forward_op, backward_op, _parallel_config=None):
        # a 2-step "ring" over two KV halves on one process, merging like diffusers does
        calls.append(_parallel_config)
        half = key.shape[1] // 2
        prev_out = prev_lse = None
        for kk, vv in ((key[:, :half], value[:, :half]), (key[:, half:], value[:, half:])):
            out, lse = forward_op(None, query, kk, vv, attn_mask, dropout_p, is_causal, scale,
                                  enable_gqa, True, _save_ctx=False,
                                  _parallel_config=_parallel_config)
            out, lse = out.float(), lse.float().unsqueeze(-1)
            assert lse.shape == out.shape[:-1] + (1,)  # lse [B, S, H]
            if prev_out is not None:
                out = prev_out - torch.sigmoid(lse - prev_lse) * (prev_out - out)
                lse = prev_lse - torch.nn.functional.logsigmoid(prev_lse - lse)
            prev_out, prev_lse = out, lse
        out = out.to(query.dtype)
        return (out, lse.squeeze(-1)) if return_lse else out

    _install("diffusers.models.attention_dispatch", AttentionBackendName=AttentionBackendName,
             _AttentionBackendRegistry=Registry, _check_device=_check_device,
             _check_shape=_check_shape, dispatch_attention_fn=dispatch_attention_fn,
             _templated_context_parallel_attention=_templated_context_parallel_attention)
    return sys.modules["diffusers.models.attention_dispatch"], calls


def test_diffusers_backend(stubs):
    ad, calls = _diffusers_stub()
    from attngen.integrations import diffusers as agd
    member = agd.register()
    assert member is ad.AttentionBackendName("attngen") and member.value == "attngen"
    assert "attngen" in {x.value for x in ad.AttentionBackendName.__members__.values()}
    assert agd.register() is member  # idempotent
    assert "attngen" in ad._AttentionBackendRegistry._supports_context_parallel
    q, k, v = _bshd()
    out = ad.dispatch_attention_fn(q, k, v, backend="attngen")
    assert torch.equal(out, attngen.attention(q, k, v))
    out, lse = ad.dispatch_attention_fn(q, k, v, backend="attngen",
                                        attention_kwargs={"return_lse": True})
    ref, ref_lse = reference(q, k, v)
    assert lse.shape == (1, 24, 2)  # diffusers' [B, S, H]
    assert (lse.double() - ref_lse.transpose(1, 2)).abs().max() < 1e-4
    # context parallel: the templated op with attngen's forward op
    cfg = object()
    out, lse = ad.dispatch_attention_fn(q, k, v, backend="attngen", parallel_config=cfg,
                                        attention_kwargs={"return_lse": True})
    assert calls == [cfg]
    assert_close(out, ref, tolerance(q, k, v), "diffusers")
    assert (lse.double() - ref_lse.transpose(1, 2)).abs().max() < 1e-4
    # refusals
    for kw, word in ((dict(attn_mask=torch.ones(24, 40, dtype=torch.bool)), "attn_mask"),
                     (dict(attn_mask=torch.zeros(1, 1, 1, 40)), "attn_mask"),
                     (dict(attn_mask=torch.ones(1, 1, 24, 40, dtype=torch.bool)), "attn_mask"),
                     (dict(dropout_p=0.1), "dropout_p"), (dict(is_causal=True), "is_causal")):
        with pytest.raises(AttngenError) as e:
            ad.dispatch_attention_fn(q, k, v, backend="attngen", **kw)
        assert word in str(e.value) and e.value.status == "INVALID_ARGUMENT"
    with pytest.raises(NotImplementedError):
        agd.backward_op(None, out)
    # is_causal with Sq == Skv (SDPA's top-left mask is then attngen's bottom-right one)
    qs = q[:, :, :, :].contiguous()
    ks, vs = k[:, :24].contiguous(), v[:, :24].contiguous()
    out = ad.dispatch_attention_fn(qs, ks, vs, is_causal=True, backend="attngen")
    assert torch.equal(out, attngen.attention(qs, ks, vs, causal=True))
    assert not torch.equal(out, attngen.attention(qs, ks, vs))


def test_diffusers_key_padding_mask(stubs):
    """HunyuanVideo's boolean mask [B, 1, 1, N] (True on a prefix) runs as kv_lengths: the
    same bits as the call of each entry on its unmasked keys; [B, N] too; a mask that is not
    a prefix is refused, not run as another mask; masks with context parallelism refused."""
    ad, calls = _diffusers_stub()
    from attngen.integrations import diffusers as agd
    agd.register()
    B, S, N, H = 3, 24, 40, 2
    q, k, v = _bshd(B, S, N, H, seed=5)
    lens = [40, 17, 0]
    mask = torch.arange(N)[None, :] < torch.tensor(lens)[:, None]
    kvl = agd.mask_to_kv_lengths(mask[:, None, None, :], B, N)
    assert kvl.dtype == torch.int32 and kvl.tolist() == lens
    out = ad.dispatch_attention_fn(q, k, v, attn_mask=mask[:, None, None, :], backend="attngen")
    out2 = ad.dispatch_attention_fn(q, k, v, attn_mask=mask, backend="attngen")
    assert torch.equal(out, out2)
    for b, n in enumerate(lens):
        assert torch.equal(out[b:b + 1], attngen.attention(q[b:b + 1], k[b:b + 1, :n],
                                                           v[b:b + 1, :n]))
    # batch-1 mask broadcasts
    one = ad.dispatch_attention_fn(q, k, v, attn_mask=mask[1:2, None, None, :],
                                   backend="attngen")
    assert torch.equal(one, attngen.attention(q, k[:, :17], v[:, :17]))
    # not a prefix: refused, nothing run as a different mask
    holes = mask.clone()
    holes[0, 5] = False
    with pytest.raises(AttngenError) as e:
        ad.dispatch_attention_fn(q, k, v, attn_mask=holes[:, None, None, :], backend="attngen")
    assert "prefix" in str(e.value) and e.value.status == "INVALID_ARGUMENT"
    with pytest.raises(AttngenError) as e:
        ad.dispatch_attention_fn(q, k, v, attn_mask=mask, backend="attngen",
                                 parallel_config=object())
    assert "context parallelism" in str(e.value)


def test_diffusers_enable_gqa(stubs):
    """enable_gqa=True: key/value with fewer heads than query run in place, the same bits as
    attngen.attention on them (= the dense call on repeated heads); without the flag unequal
    heads are refused by name, as SDPA does; with context parallelism refused."""
    ad, calls = _diffusers_stub()
    from attngen.integrations import diffusers as agd
    agd.register()
    q = rand(2, 24, 4, 128, seed=40)
    k, v = rand(2, 40, 2, 128, seed=41), rand(2, 40, 2, 128, seed=42)
    out = ad.dispatch_attention_fn(q, k, v, enable_gqa=True, backend="attngen")
    kr, vr = k.repeat_interleave(2, dim=2), v.repeat_interleave(2, dim=2)
    assert torch.equal(out, attngen.attention(q, kr, vr))
    ref, _ = reference(q, kr, vr)
    assert_close(out, ref, tolerance(q, kr, vr), "diffusers gqa")
    # with a key-padding mask as well
    mask = torch.arange(40)[None, :] < torch.tensor([40, 9])[:, None]
    out = ad.dispatch_attention_fn(q, k, v, attn_mask=mask, enable_gqa=True, backend="attngen")
    assert torch.equal(out[1:], attngen.attention(q[1:], kr[1:, :9], vr[1:, :9]))
    # equal heads with the flag: the dense call
    qd, kd, vd = _bshd()
    assert torch.equal(ad.dispatch_attention_fn(qd, kd, vd, enable_gqa=True, backend="attngen"),
                       attngen.attention(qd, kd, vd))
    for kw in (dict(), dict(enable_gqa=True, parallel_config=object())):
        with pytest.raises(AttngenError) as e:
            ad.dispatch_attention_fn(q, k, v, backend="attngen", **kw)
        assert "enable_gqa" in str(e.value) and e.value.status == "INVALID_ARGUMENT"
    assert calls == []


def test_diffusers_missing_is_clear(stubs):
    sys.modules["diffusers"] = None  # import fails
    from attngen.integrations import diffusers as agd
    with pytest.raises(AttngenError) as e:
        agd.register()
    assert e.value.status == "NO_BACKEND" and "diffusers" in str(e.value)
    del sys.modules["diffusers"]


# ---- tile skipping across denoising steps (enable_skip) -------------------------------------

def _blocky_bshd(B=1, S=256, H=2, seed=0):
    """q, k, v whose scores are large inside 128-token blocks and small across them."""
    g = torch.Generator().manual_seed(seed)
    base = torch.randn(S // 128, H, 128, generator=g).repeat_interleave(128, 0)[None]
    base = base.expand(B, S, H, 128)
    q = (0.9 * base + 0.3 * torch.randn(B, S, H, 128, generator=g)).to(torch.bfloat16)
    k = (0.9 * base + 0.3 * torch.randn(B, S, H, 128, generator=g)).to(torch.bfloat16)
    return q, k, torch.randn(B, S, H, 128, generator=g).to(torch.bfloat16)


def _fake_pipeline(ad):
    """A transformer of two self-attention modules and one cross-attention module (diffusers'
    Attention: a processor, set_processor) that reach attention through the dispatcher, and
    a pipeline that runs it over 3 steps with classifier-free guidance in two passes."""
    q, k, v = _blocky_bshd()
    text = rand(1, 16, 2, 128, seed=9)

    class Attn(torch.nn.Module):
        def __init__(self, cross):
            super().__init__()
            self.processor, self.cross, self.outs = "proc", cross, []

        def set_processor(self, p):
            self.processor = p

        def forward(self, x):
            kk, vv = (text, text) if self.cross else (k, v)
            out = ad.dispatch_attention_fn(x, kk, vv, backend="attngen")
            self.outs.append(out)
            return x

    class Transformer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = torch.nn.ModuleList([Attn(False), Attn(True), Attn(False)])

        def forward(self, hidden_states, timestep=None):
            for b in self.blocks:
                hidden_states = b(hidden_states)
            return hidden_states

    class Pipeline:
        def __init__(self):
            self.transformer = Transformer()

        def __call__(self, steps=3):
            for t in range(steps, 0, -1):
                for _ in range(2):  # conditional and unconditional passes
                    self.transformer(q, timestep=torch.tensor([float(t)]))

    return Pipeline(), (q, k, v)


def test_diffusers_enable_skip(stubs):
    ad, _ = _diffusers_stub()
    from attngen.integrations import diffusers as agd
    agd.register()
    pipe, (q, k, v) = _fake_pipeline(ad)
    dense = attngen.attention(q, k, v)
    blocks = pipe.transformer.blocks
    pipe()                                          # off unless asked: every call dense
    assert all(torch.equal(o, dense) for o in blocks[0].outs)
    ctl = agd.enable_skip(pipe, threshold_log2=-6.0)
    for b in blocks:
        b.outs.clear()
    pipe()
    # one state per self-attention layer and pass: 2 layers x (cond, uncond)
    assert sorted(ctl.states) == [("blocks.0", 0), ("blocks.0", 1), ("blocks.2", 0),
                                  ("blocks.2", 1)]
    assert ctl.steps == 3 and ctl.prompts == 1
    outs = blocks[0].outs                           # step 1 cond, uncond, step 2 cond, ...
    assert torch.equal(outs[0], dense) and torch.equal(outs[1], dense)
    assert not torch.equal(outs[2], dense)          # step 2 skips what step 1 marked
    assert 0 < ctl.states[("blocks.0", 0)].skipped_fraction < 1
    assert ctl.mean_skipped_fraction() > 0
    assert all(torch.equal(o, attngen.attention(q, *(rand(1, 16, 2, 128, seed=9),) * 2))
               for o in blocks[1].outs)             # cross-attention: dense (self_only)
    for b in blocks:
        b.outs.clear()
    pipe()                                          # a new prompt: the states start afresh
    assert ctl.prompts == 2 and torch.equal(blocks[0].outs[0], dense)
    assert not torch.equal(blocks[0].outs[2], dense)
    agd.disable_skip(pipe)
    assert type(pipe).__name__ == "Pipeline" and "forward" not in vars(pipe.transformer)
    for b in blocks:
        b.outs.clear()
    pipe()
    assert all(torch.equal(o, dense) for o in blocks[0].outs)
    with pytest.raises(AttngenError) as e:
        agd.enable_skip(pipe, threshold_log2=0.5)
    assert "threshold_log2" in str(e.value)


def _sdpa_stand_in(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                   scale=None, enable_gqa=False):
    """torch < 2.0 has no scaled_dot_product_attention: a stand-in that dispatches through
    __torch_function__ as torch's own does (so install_processors' mode sees it)."""
    from torch.overrides import handle_torch_function, has_torch_function
    if has_torch_function((query, key, value)):
        return handle_torch_function(_sdpa_stand_in, (query, key, value), query, key, value,
                                     attn_mask=attn_mask, dropout_p=dropout_p,
                                     is_causal=is_causal, scale=scale, enable_gqa=enable_gqa)
    s = query.float() @ key.float().transpose(-1, -2) * (scale or query.shape[-1] ** -0.5)
    return (s.softmax(-1) @ value.float()).to(query.dtype)


def test_diffusers_enable_skip_routes_processors(stubs, monkeypatch):
    """install_processors' SDPA route takes the running layer's state too (BHSD calls)."""
    if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention",
                            _sdpa_stand_in, raising=False)
    _diffusers_stub()
    from attngen.integrations import diffusers as agd
    q, k, v = _blocky_bshd(seed=4)
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    dense = attngen.attention(q, k, v)

    class Proc:
        def __call__(self, attn, x):
            return torch.nn.functional.scaled_dot_product_attention(qh, kh, vh)

    class Attn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.processor = Proc()

        def set_processor(self, p):
            self.processor = p

        def forward(self, x):
            return self.processor(self, x)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = Attn()

        @property
        def attn_processors(self):
            return {"attn.processor": self.attn.processor}

        def set_attn_processor(self, procs):
            self.attn.processor = procs["attn.processor"]

        def forward(self, x, timestep=None):
            return self.attn(x)

    m = Model()
    stats = agd.install_processors(m)
    ctl = agd.enable_skip(m)
    outs = [m(q, timestep=torch.tensor([float(t)])).transpose(1, 2) for t in (3, 2)]
    assert stats.routed == 2
    assert torch.equal(outs[0], dense) and not torch.equal(outs[1], dense)
    assert ctl.states[("attn", 0)].skipped_fraction > 0
    ctl.reset()
    assert torch.equal(m(q, timestep=torch.tensor([1.0])).transpose(1, 2), dense)


# ---- SGLang multimodal_gen -----------------------------------------------------------------

def _sglang_stub():
    from abc import ABC, abstractmethod
    from dataclasses import dataclass

    class AttentionBackendEnum(enum.Enum):
        TORCH_SDPA = enum.auto()
        FA = enum.auto()

    class AttentionBackend(ABC):
        accept_output_buffer = False

        @staticmethod
        @abstractmethod
        def get_enum():
            raise NotImplementedError

        @staticmethod
        @abstractmethod
        def get_impl_cls():
            raise NotImplementedError

        @classmethod
        def supports_ring_rotation(cls):
            return False

        @staticmethod
        @abstractmethod
        def get_metadata_cls():
            raise NotImplementedError

        @staticmethod
        @abstractmethod
        def get_builder_cls():
            return None

    @dataclass
    class AttentionMetadata:
        current_timestep: int

    class AttentionImpl(ABC):
        @abstractmethod
        def __init__(self, num_heads, head_size, softmax_scale, causal=False,
                     num_kv_heads=None, prefix="", **extra_impl_args):
            raise NotImplementedError

        @abstractmethod
        def forward(self, query, key, value, attn_metadata):
            raise NotImplementedError

        def forward_ring_kv_chunk(self, query, key, value):
            raise NotImplementedError

    class SDPABackend(AttentionBackend):
        pass

    def get_attn_backend(head_size, dtype, supported_attention_backends=None):
        return SDPABackend

    _install("sglang.multimodal_gen.runtime.platforms", AttentionBackendEnum=AttentionBackendEnum)
    _install("sglang.multimodal_gen.runtime.layers.attention.backends.attention_backend",
             AttentionBackend=AttentionBackend, AttentionImpl=AttentionImpl,
             AttentionMetadata=AttentionMetadata)
    sel = _install("sglang.multimodal_gen.runtime.layers.attention.selector",
                   get_attn_backend=get_attn_backend)
    # a layer module that imported the selector function by name
    layer = _install("sglang.multimodal_gen.runtime.layers.attention.layer",
                     get_attn_backend=get_attn_backend)
    return sel, layer, SDPABackend


def test_sglang_backend(stubs):
    sel, layer, sdpa = _sglang_stub()
    from attngen.integrations import sglang as ags
    backend = ags.install()
    from sglang.multimodal_gen.runtime.platforms import AttentionBackendEnum
    assert backend.get_enum() is AttentionBackendEnum.ATTNGEN
    assert backend.supports_ring_rotation() and backend.get_supported_head_sizes() == [64, 128]
    # the selector (and the layer's own binding) now pick attngen for d128 bf16 only
    assert layer.get_attn_backend(128, torch.bfloat16) is backend
    assert sel.get_attn_backend(128, torch.bfloat16, None) is backend
    assert sel.get_attn_backend(64, torch.bfloat16) is backend
    assert sel.get_attn_backend(96, torch.bfloat16) is sdpa
    assert sel.get_attn_backend(128, torch.float16) is sdpa
    impl = backend.get_impl_cls()(num_heads=2, head_size=128, causal=False, softmax_scale=0.05)
    q, k, v = _bshd(seed=3)
    out = impl.forward(q, k, v, backend.get_metadata_cls()(current_timestep=0))
    assert torch.equal(out, attngen.attention(q, k, v, scale=0.05))
    o, lse = impl.forward_ring_kv_chunk(q[0], k[0], v[0])  # packed [T, H, D]
    assert o.shape == q[0].shape and lse.shape == (2, 24)  # lse [H, Tq]
    ref, ref_lse = reference(q, k, v, scale=0.05)
    assert_close(o, ref[0], tolerance(q, k, v, scale=0.05)[0], "sglang")
    assert (lse.double() - ref_lse[0]).abs().max() < 1e-4
    # causal (SGLang's text encoders): attngen's bottom-right mask; GQA: k/v heads in place
    causal = backend.get_impl_cls()(num_heads=2, head_size=128, causal=True, softmax_scale=0.05)
    qs, ks, vs = q, k[:, :24].contiguous(), v[:, :24].contiguous()
    assert torch.equal(causal.forward(qs, ks, vs, None),
                       attngen.attention(qs, ks, vs, scale=0.05, causal=True))
    with pytest.raises(AttngenError):
        causal.forward_ring_kv_chunk(q[0], k[0], v[0])
    gqa = backend.get_impl_cls()(num_heads=2, head_size=128, softmax_scale=0.05, num_kv_heads=1)
    assert torch.equal(gqa.forward(q, k[:, :, :1], v[:, :, :1], None),
                       attngen.attention(q, k[:, :, :1], v[:, :, :1], scale=0.05))
    with pytest.raises(AttngenError) as e:
        backend.get_impl_cls()(num_heads=4, head_size=128, softmax_scale=0.05, num_kv_heads=3)
    assert "num_kv_heads" in str(e.value)
    ags.uninstall()
    assert layer.get_attn_backend(128, torch.bfloat16) is sdpa


def test_sglang_skip(stubs):
    """enable_skip: each layer (impl) keeps a state per pass of a step (current_timestep
    repeated = the unconditional pass), skips from the second step on, starts afresh when
    the timestep goes back (a new request) or on reset_skip; off unless asked."""
    _sglang_stub()
    from attngen.integrations import sglang as ags
    backend = ags.install()
    g = torch.Generator().manual_seed(5)
    base = torch.randn(2, 2, 128, generator=g).repeat_interleave(128, 0)[None]
    q = (0.9 * base + 0.3 * torch.randn(1, 256, 2, 128, generator=g)).to(torch.bfloat16)
    k = (0.9 * base + 0.3 * torch.randn(1, 256, 2, 128, generator=g)).to(torch.bfloat16)
    v = torch.randn(1, 256, 2, 128, generator=g).to(torch.bfloat16)
    dense = attngen.attention(q, k, v)
    impl = backend.get_impl_cls()(num_heads=2, head_size=128, softmax_scale=128 ** -0.5)
    meta = backend.get_metadata_cls()
    assert torch.equal(impl.forward(q, k, v, meta(current_timestep=0)), dense)  # off
    ags.enable_skip(threshold_log2=-6.0)
    outs = [impl.forward(q, k, v, meta(current_timestep=t)) for t in (0, 0, 1, 1)]
    assert torch.equal(outs[0], dense) and torch.equal(outs[1], dense)
    assert not torch.equal(outs[2], dense) and not torch.equal(outs[3], dense)
    states = ags.skip_states()
    assert len(states) == 2 and all(s.skipped_fraction > 0 for s in states)
    assert torch.equal(impl.forward(q, k, v, meta(current_timestep=0)), dense)  # new request
    impl.forward(q, k, v, meta(current_timestep=1))
    ags.reset_skip()
    assert torch.equal(impl.forward(q, k, v, meta(current_timestep=2)), dense)
    cross = impl.forward(q, k[:, :100], v[:, :100], meta(current_timestep=3))
    assert torch.equal(cross, attngen.attention(q, k[:, :100], v[:, :100],
                                                scale=128 ** -0.5))
    ags.disable_skip()
    assert ags.skip_states() == []
    assert torch.equal(impl.forward(q, k, v, meta(current_timestep=4)), dense)
    ags.uninstall()


# ---- xDiT -----------------------------------------------------------------------------------

def test_xdit_registry(stubs):
    class AttentionBackendType(enum.Enum):
        SDPA = "SDPA"
        FLASH = "Flash Attention V2"

    registry = {}

    def sdpa_call(query, key, value, dropout_p, is_causal):
        return "sdpa", None

    registry[AttentionBackendType.SDPA] = sdpa_call
    registry[AttentionBackendType.FLASH] = sdpa_call
    _install("xfuser.core.distributed.attention_backend",
             AttentionBackendType=AttentionBackendType, ATTENTION_FUNCTION_REGISTRY=registry)
    from attngen.integrations import xdit as agx
    member = agx.register(replace=["FLASH"])
    assert AttentionBackendType["ATTNGEN"] is member and AttentionBackendType("attngen") is member
    q, k, v = (t.transpose(1, 2).contiguous() for t in _bshd(seed=5))  # BHSD
    out, lse = registry[member](q, k, v, 0.0, False)
    ref, ref_lse = reference(q, k, v, layout="bhsd")
    assert out.shape == q.shape and lse.shape == (1, 2, 24)
    assert_close(out, ref, tolerance(q, k, v, layout="bhsd"), "xdit")
    assert (lse.double() - ref_lse).abs().max() < 1e-4
    assert registry[AttentionBackendType.FLASH] is agx.attngen_attn_call
    assert registry[AttentionBackendType.SDPA] is sdpa_call
    with pytest.raises(AttngenError):
        registry[member](q, k, v, 0.0, True)
    agx.unregister()
    assert registry[AttentionBackendType.FLASH] is sdpa_call


# ---- yunchang ---------------------------------------------------------------------------------

def test_yunchang_kernel(stubs):
    class AttnType(enum.Enum):
        FA = "fa"
        TORCH = "torch"

    def torch_fwd(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False,
                  window_size=(-1, -1), softcap=None, alibi_slopes=None, return_softmax=False):
        return "torch", None

    def select_flash_attn_impl(impl_type, stage="fwd-bwd"):
        return torch_fwd

    yk = _install("yunchang.kernels", AttnType=AttnType,
                  select_flash_attn_impl=select_flash_attn_impl)
    ring = _install("yunchang.ring.ring_flash_attn", select_flash_attn_impl=select_flash_attn_impl)
    from attngen.integrations import yunchang as agy
    member = agy.install(replace=["FA"])
    assert AttnType("attngen") is member
    fn = ring.select_flash_attn_impl(member, stage="fwd-only")
    assert fn is agy.flash_attn_forward
    assert yk.select_flash_attn_impl(AttnType.FA, "fwd-only") is agy.flash_attn_forward
    assert yk.select_flash_attn_impl(AttnType.TORCH, "fwd-only") is torch_fwd
    q, k, v = _bshd(seed=7)
    out, lse = fn(q, k, v, dropout_p=0.0, softmax_scale=0.06, causal=False,
                  window_size=(-1, -1), softcap=None, alibi_slopes=None, return_softmax=False)
    ref, ref_lse = reference(q, k, v, scale=0.06)
    assert out.shape == q.shape and lse.shape == (1, 2, 24)
    assert_close(out, ref, tolerance(q, k, v, scale=0.06), "yunchang")
    assert (lse.double() - ref_lse).abs().max() < 1e-4
    for kw in (dict(causal=True), dict(window_size=(8, 8)), dict(dropout_p=0.1)):
        with pytest.raises(AttngenError):
            fn(q, k, v, **kw)
    with pytest.raises(AttngenError):
        yk.select_flash_attn_impl(member, "bwd-only")
    agy.uninstall()
    assert ring.select_flash_attn_impl(AttnType.FA, "fwd-only") is torch_fwd

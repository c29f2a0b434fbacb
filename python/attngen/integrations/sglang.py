"""attngen as an SGLang multimodal_gen (sglang diffusion) attention backend.

    import attngen.integrations.sglang as ag_sglang
    ag_sglang.install()      # before the pipeline is built: every layer picks attngen

install() adds AttentionBackendEnum.ATTNGEN and makes the attention selector return
AttngenBackend for head_size 64 or 128 / bfloat16 (other layers keep the selector's choice).
AttngenImpl.forward takes SGLang's [B, S, H, D] tensors, with fewer key/value heads (GQA) and
the causal mask (bottom-right aligned, as SGLang's FlashAttention backend; SGLang's text
encoders build causal GQA layers through the same selector). forward(...,
return_softmax_lse=True) returns (out, lse [B, H, Sq]), as SGLang's ring_attn asks of the
impl; forward_ring_kv_chunk takes packed [T, H, D] tensors and returns (out, lse [H, T]) (the
per-chunk call of newer SGLang's ring attention).
install() patches this process: SGLang builds its pipelines in spawned worker processes, so
it must run in each of them (README "SGLang (multimodal_gen)").

enable_skip(threshold_log2=-6.0) turns on temporal tile skipping (attngen.SkipState): each
attention layer (AttngenImpl) keeps a state per pass of a denoising step across the steps of
a request, for its self-attention calls (as many keys as queries). The step is SGLang's
forward context's current_timestep (the denoising stage's step index, set by
set_forward_context around every transformer call; attn_metadata.current_timestep when no
forward context is set: SGLang passes attn_metadata=None to backends without a metadata
builder, such as this one); calls in a forward context without a batch (the encoder stages)
and causal layers do not skip. The pass is the forward batch's is_cfg_negative (the
classifier-free-guidance negative pass) when the context carries a batch, else a call with
the previous call's step is the next pass. A step lower than the previous one starts a new
request (the states forget their lists), as does a (step, pass) seen again (a request of one
step), and reset_skip(); disable_skip() turns it off. Off unless asked.
"""
import weakref

import torch

from .. import ops
from .. import _names
from .._lib import AttngenError
from ._common import extend_enum, patch_everywhere, refuse

_BASE = "sglang.multimodal_gen.runtime.layers.attention"
_installed = {}
_skip = {"on": False, "threshold_log2": -6.0, "calibrate": False}
_impls = weakref.WeakSet()  # every AttngenImpl made (their skip states)
# the head sizes attngen has kernels of on both GPU targets
HEAD_SIZES = [64, 128]


def _classes():
    try:
        from sglang.multimodal_gen.runtime.layers.attention.backends import attention_backend as ab
        from sglang.multimodal_gen.runtime import platforms
    except ImportError as e:
        raise AttngenError("NO_BACKEND", f"sglang (multimodal_gen) is not installed ({e})") from e
    return ab, platforms


def _build():
    if "backend" in _installed:
        return _installed["backend"]
    ab, platforms = _classes()
    member = extend_enum(platforms.AttentionBackendEnum, "ATTNGEN", "attngen")

    class AttngenImpl(ab.AttentionImpl):
        def __init__(self, num_heads, head_size, causal=False, softmax_scale=None,
                     num_kv_heads=None, prefix="", **extra_impl_args):
            if num_kv_heads not in (None, num_heads) and (
                    not num_kv_heads or num_heads % num_kv_heads):
                refuse("sglang", "num_kv_heads", num_kv_heads, f"a divisor of {num_heads}")
            if extra_impl_args.get("dropout_p", 0.0):
                refuse("sglang", "dropout_p", extra_impl_args["dropout_p"], "0.0")
            self.num_heads = num_heads
            self.head_size = head_size
            self.causal = bool(causal)  # bottom-right aligned, as SGLang's FA backend
            self.softmax_scale = softmax_scale
            self.rounding = extra_impl_args.get("attngen_rounding")
            self.skip_states = {}  # pass of the step -> SkipState
            self.skip_pass, self.skip_t, self.skip_seen = 0, None, set()
            _impls.add(self)

        def forward(self, query, key, value, attn_metadata=None, *, return_softmax_lse=False):
            if return_softmax_lse:  # SGLang's ring_attn adapter: (out, lse [B, H, Sq])
                return ops.attention(query, key, value, scale=self.softmax_scale,
                                     layout=_names.SEQ_MAJOR, rounding=self.rounding,
                                     causal=self.causal, return_lse=True)
            skip = None if self.causal else _skip_state(self, query, key, attn_metadata)
            return ops.attention(query, key, value, scale=self.softmax_scale, layout=_names.SEQ_MAJOR,
                                 rounding=self.rounding, causal=self.causal, skip=skip)

        def forward_ring_kv_chunk(self, query, key, value):
            if self.causal:
                refuse("sglang", "causal (ring attention)", True, "False")
            # packed [T, H, D] -> a batch of one; lse [1, H, T] -> [H, T]
            out, lse = ops.attention(query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0),
                                     scale=self.softmax_scale, layout=_names.SEQ_MAJOR,
                                     rounding=self.rounding, return_lse=True)
            return out.squeeze(0), lse.squeeze(0)

    class AttngenBackend(ab.AttentionBackend):
        accept_output_buffer = False

        @staticmethod
        def get_supported_head_sizes():
            return list(HEAD_SIZES)

        @staticmethod
        def get_enum():
            return member

        @staticmethod
        def get_impl_cls():
            return AttngenImpl

        @staticmethod
        def get_metadata_cls():
            return ab.AttentionMetadata

        @staticmethod
        def get_builder_cls():
            return None

        @classmethod
        def supports_ring_rotation(cls):
            return True

    _installed["backend"] = AttngenBackend
    return AttngenBackend


def _skip_state(impl, query, key, attn_metadata):
    """impl's SkipState for this pass when skipping is on and the call is self-attention
    ([B, S, H, D]) of a denoising step (_step_and_pass)."""
    if not _skip["on"] or query.shape[1] != key.shape[1]:
        return None
    t, negative, denoising = _step_and_pass(attn_metadata)
    if not denoising:
        return None
    if negative is not None:
        p = int(bool(negative))
        # the same (step, pass) again, or an earlier step: a new request
        fresh = t is not None and impl.skip_t is not None and (
            t < impl.skip_t or (t == impl.skip_t and p in impl.skip_seen))
        impl.skip_seen = {p} if fresh or t != impl.skip_t else impl.skip_seen | {p}
        impl.skip_pass = p
    else:
        fresh = t is not None and impl.skip_t is not None and t < impl.skip_t
        if t is not None and impl.skip_t is not None and t == impl.skip_t:
            impl.skip_pass += 1
        else:
            impl.skip_pass = 0
    if fresh:
        for s in impl.skip_states.values():  # the step went back: a new request
            s.reset()
    impl.skip_t = t
    s = impl.skip_states.get(impl.skip_pass)
    if s is None:
        from ..skip import SkipState
        s = impl.skip_states[impl.skip_pass] = SkipState(_skip["threshold_log2"],
                                                         calibrate=_skip["calibrate"])
    return s


def _step_and_pass(attn_metadata):
    """(step, is_cfg_negative or None, denoising) of the running call: SGLang's forward
    context (current_timestep = the denoising step index; forward_batch.is_cfg_negative),
    else attn_metadata.current_timestep. denoising is False for a call in a forward context
    without a batch (SGLang's text / image encoder stages: not a denoising step)."""
    t = getattr(attn_metadata, "current_timestep", None)
    try:
        from sglang.multimodal_gen.runtime.managers import forward_context as fc
    except ImportError:
        return t, None, True
    ctx = getattr(fc, "_forward_context", None)
    if ctx is None:
        return t, None, True
    batch = getattr(ctx, "forward_batch", None)
    if batch is None:
        return t, None, False
    if getattr(ctx, "current_timestep", None) is not None:
        t = ctx.current_timestep
    return t, getattr(batch, "is_cfg_negative", None), True


def enable_skip(threshold_log2=-6.0, calibrate=False):
    """Temporal tile skipping in every attngen layer (see the module's docstring)."""
    from ..skip import _check_threshold
    _skip.update(on=True, threshold_log2=_check_threshold(threshold_log2),
                 calibrate=bool(calibrate))
    for impl in list(_impls):
        impl.skip_states = {}  # made again with these settings


def disable_skip():
    _skip["on"] = False
    for impl in list(_impls):
        impl.skip_states = {}


def reset_skip():
    """A new request: every layer's state forgets its lists."""
    for impl in list(_impls):
        for s in impl.skip_states.values():
            s.reset()
        impl.skip_t, impl.skip_seen = None, set()


def skip_states():
    """The layers' SkipStates (those made so far)."""
    return [s for impl in list(_impls) for s in impl.skip_states.values()]


def backend_class():
    """The AttentionBackend subclass (built against the installed sglang)."""
    return _build()


def install():
    """Routes SGLang's attention selector to attngen for head_size 64 or 128, bfloat16."""
    backend = _build()
    if "selector" in _installed:
        return backend
    try:
        from sglang.multimodal_gen.runtime.layers.attention import selector
    except ImportError as e:
        raise AttngenError("NO_BACKEND", f"sglang's attention selector is missing ({e})") from e
    original = selector.get_attn_backend

    def get_attn_backend(head_size, dtype, *args, **kwargs):
        # a layer that names its backend (newer SGLang: selected_attention_backend=) keeps it
        chosen = kwargs.get("selected_attention_backend")
        if head_size in HEAD_SIZES and dtype == torch.bfloat16 and \
                chosen in (None, backend.get_enum()):
            return backend
        return original(head_size, dtype, *args, **kwargs)

    get_attn_backend.__wrapped__ = original
    patch_everywhere("sglang.multimodal_gen", "get_attn_backend", original, get_attn_backend)
    _installed["selector"] = (selector, original, get_attn_backend)
    return backend


def uninstall():
    if "selector" in _installed:
        selector, original, mine = _installed.pop("selector")
        patch_everywhere("sglang.multimodal_gen", "get_attn_backend", mine, original)

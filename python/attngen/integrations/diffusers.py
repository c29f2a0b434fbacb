"""attngen as a diffusers attention backend (diffusers.models.attention_dispatch).

    import attngen.integrations.diffusers as ag_diffusers
    ag_diffusers.register()                        # adds AttentionBackendName.ATTNGEN
    pipe.transformer.set_attention_backend("attngen")

or `with attention_backend("attngen"):` around a call. The backend takes diffusers' BSHD
tensors, honours scale and return_lse (LSE returned as [B, S, H], diffusers' convention),
refuses dropout_p > 0 with an AttngenError that says so, runs is_causal=True with Sq == Skv
as attngen's causal mask (refused otherwise: SDPA's mask is top-left aligned, attngen's
bottom-right), and runs context parallelism (ring / Ulysses through diffusers'
ParallelConfig) with its forward op returning (out, lse). Forward only: the backward op
raises.

enable_gqa=True (SDPA's grouped-query flag): key and value may have fewer heads than query
(a divisor of them); they are read in place, query head h attending with KV head
h // (H // H_kv) (attngen.attention's grouped-query calls). Without it, key/value heads must
equal query's, as in SDPA (AttngenError naming enable_gqa). Not with context parallelism
(refused by name).

attn_mask: a boolean key-padding mask [B, 1, 1, N] or [B, N] (batch 1 broadcasts; True =
attend) whose True part is a prefix of each row, as HunyuanVideo's, becomes per-batch key
lengths (attngen.attention's kv_lengths) on the mask's device, without a host sync: the
lengths are the row sums, and the prefix rule is checked on the device (on CUDA through
torch._assert_async: a mask that is not a prefix stops the stream with a device-side assert
instead of running as a different mask; on CPU an AttngenError). Any other mask (float /
additive, per-query [B, 1, Sq, N], other shapes) is refused with an AttngenError, as are
masks with context parallelism.
"""
import threading

import torch

from .. import ops
from .. import _names
from .._lib import AttngenError
from ._common import extend_enum, refuse

NAME = "attngen"
_registered = None


_MASK_ALLOWED = "None or a boolean key-padding mask [B, 1, 1, N] or [B, N] (True = attend)"


def _check(query, key, attn_mask, dropout_p, is_causal, enable_gqa, parallel=False):
    if attn_mask is not None and parallel:
        refuse("diffusers", "attn_mask", "a tensor (with context parallelism)", "None")
    if dropout_p:
        refuse("diffusers", "dropout_p", dropout_p, "0.0")
    if is_causal:
        # SDPA's is_causal is top-left aligned, attngen's bottom-right: the same mask only
        # when Sq == Skv (and attn_mask None, as SDPA requires)
        if parallel:
            refuse("diffusers", "is_causal", is_causal, "False (with context parallelism)")
        if attn_mask is not None:
            refuse("diffusers", "is_causal", is_causal, "False when attn_mask is given")
        if query.shape[1] != key.shape[1]:
            refuse("diffusers", "is_causal", f"{is_causal} with Sq = {query.shape[1]} != Skv = "
                   f"{key.shape[1]}",
                   "False, or True with Sq == Skv (SDPA's top-left causal mask equals "
                   "attngen's bottom-right one only there)")
    if enable_gqa and parallel:
        refuse("diffusers", "enable_gqa", "True (with context parallelism)", "False")
    hq, hk = query.shape[2], key.shape[2]  # BSHD
    if hk != hq and not enable_gqa:
        refuse("diffusers", "enable_gqa", f"False with {hq} query heads and {hk} key/value "
               "heads", "True (grouped-query attention) or equal head counts")


def mask_to_kv_lengths(attn_mask, batch, seqlen_kv):
    """int32 [batch] key lengths of a boolean key-padding mask [B, 1, 1, N] or [B, N]
    (N = seqlen_kv, B = batch or 1), computed on the mask's device without a host sync;
    the mask must be True exactly on a prefix of each row (checked on the device, see the
    module's docstring). Other masks: AttngenError."""
    m = attn_mask
    if not isinstance(m, torch.Tensor):
        refuse("diffusers", "attn_mask", type(m).__name__, _MASK_ALLOWED)
    if m.dtype != torch.bool:
        refuse("diffusers", "attn_mask", f"a {m.dtype} mask (additive masks are not key "
               "padding)", _MASK_ALLOWED)
    if m.dim() == 4 and m.shape[1] == 1 and m.shape[2] == 1:
        m = m[:, 0, 0]
    if m.dim() != 2 or m.shape[1] != seqlen_kv or m.shape[0] not in (1, batch):
        refuse("diffusers", "attn_mask", f"a mask of shape {tuple(attn_mask.shape)}",
               _MASK_ALLOWED.replace("N]", f"N] with B = {batch}, N = {seqlen_kv}"))
    lens = m.sum(dim=-1, dtype=torch.int32)
    prefix = torch.arange(seqlen_kv, device=m.device)[None, :] < lens[:, None]
    is_prefix = torch.eq(prefix, m).all()
    if m.device.type == "cpu":
        if not bool(is_prefix):
            refuse("diffusers", "attn_mask", "a boolean mask whose True part is not a prefix "
                   "of every row", _MASK_ALLOWED + " with True exactly on keys 0 .. n_b - 1")
    else:
        torch._assert_async(is_prefix)
    if lens.shape[0] != batch:
        lens = lens.expand(batch)
    return lens.contiguous()


def _run(query, key, value, scale, return_lse, rounding, attn_mask=None, causal=False,
         skip=None):
    kvl = None
    if attn_mask is not None:
        kvl = mask_to_kv_lengths(attn_mask, query.shape[0], key.shape[1])
    if return_lse:
        out, lse = ops.attention(query, key, value, scale=scale, layout=_names.SEQ_MAJOR,
                                 rounding=rounding, return_lse=True, kv_lengths=kvl,
                                 causal=causal, skip=skip)
        return out, lse.transpose(1, 2)  # [B, H, S] -> diffusers' [B, S, H]
    return ops.attention(query, key, value, scale=scale, layout=_names.SEQ_MAJOR,
                         rounding=rounding, kv_lengths=kvl, causal=causal, skip=skip)


def forward_op(ctx, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
               scale=None, enable_gqa=False, return_lse=False, _save_ctx=True,
               _parallel_config=None):
    """diffusers' templated context-parallel forward op: (out, lse [B, S, H])."""
    _check(query, key, attn_mask, dropout_p, is_causal, enable_gqa, parallel=True)
    return _run(query, key, value, scale, return_lse, None)


def backward_op(ctx, grad_out, *args, **kwargs):
    raise NotImplementedError("attngen is forward-only (inference); use another backend to "
                              "train")


def make_backend(rounding=None):
    """The backend function diffusers' dispatcher calls (keyword arguments by name)."""

    def attngen_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                          scale=None, enable_gqa=False, return_lse=False,
                          _parallel_config=None):
        _check(query, key, attn_mask, dropout_p, is_causal, enable_gqa,
               parallel=_parallel_config is not None)
        if _parallel_config is None:  # (enable_skip: the running layer's SkipState)
            return _run(query, key, value, scale, return_lse, rounding, attn_mask,
                        bool(is_causal), _skip_for(query, key, 1))
        from diffusers.models import attention_dispatch as ad
        return ad._templated_context_parallel_attention(
            query, key, value, None, dropout_p, is_causal, scale, False, return_lse,
            forward_op=forward_op, backward_op=backward_op, _parallel_config=_parallel_config)

    return attngen_attention


def register(rounding=None):
    """Registers the backend under AttentionBackendName.ATTNGEN ("attngen") with diffusers'
    registry (checks: same device and dtype, shapes), context parallel supported. Returns
    the enum member. Idempotent."""
    global _registered
    try:
        from diffusers.models import attention_dispatch as ad
    except ImportError as e:
        raise AttngenError("NO_BACKEND", f"diffusers is not installed ({e})") from e
    member = extend_enum(ad.AttentionBackendName, "ATTNGEN", NAME)
    if _registered is not None and member in ad._AttentionBackendRegistry._backends:
        return member
    constraints = [c for c in (getattr(ad, "_check_device", None),
                               getattr(ad, "_check_shape", None)) if c is not None]
    ad._AttentionBackendRegistry.register(member, constraints=constraints,
                                          supports_context_parallel=True)(make_backend(rounding))
    _registered = member
    return member


# ---- processors that call SDPA themselves (SD3's JointAttnProcessor2_0, ...) ----------------

class RouteStats:
    """What the routed processors did: calls sent to attngen, calls left to SDPA (with the
    reason of the last one). One per install_processors call, shared by its processors."""

    def __init__(self):
        self.routed = 0
        self.fallback = 0
        self.last_fallback = None

    def __repr__(self):
        return (f"RouteStats(routed={self.routed}, fallback={self.fallback}, "
                f"last_fallback={self.last_fallback!r})")


def _sdpa_unsupported(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa):
    """Why attngen cannot run this SDPA call (None when it can)."""
    if not all(isinstance(t, torch.Tensor) for t in (query, key, value)):
        return "inputs are not tensors"
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return f"{query.dim()}-dimensional query (attngen: [B, H, S, D])"
    if not (query.dtype == key.dtype == value.dtype == torch.bfloat16):
        return f"dtype {query.dtype} (attngen: torch.bfloat16)"
    if attn_mask is not None:
        return "attn_mask is given"
    if dropout_p:
        return f"dropout_p = {dropout_p}"
    if is_causal and query.shape[2] != key.shape[2]:
        return "is_causal with Sq != Skv (SDPA's mask is top-left aligned)"
    if key.shape[1] != query.shape[1] and not enable_gqa:
        return "key/value heads differ from query's without enable_gqa"
    if query.shape[-1] not in (64, 128, 256):
        return f"head_dim {query.shape[-1]} (attngen: 64, 128, 256)"
    return None


class _SDPAToAttngen(torch.overrides.TorchFunctionMode):
    """Sends torch.nn.functional.scaled_dot_product_attention calls made inside it to
    attngen.attention (BHSD views, read in place) when attngen can run them; the others run
    SDPA itself (counted in stats; with strict an AttngenError naming the reason)."""

    def __init__(self, stats, rounding, strict):
        super().__init__()
        self.stats, self.rounding, self.strict = stats, rounding, strict

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is not torch.nn.functional.scaled_dot_product_attention:
            return func(*args, **kwargs)
        names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale",
                 "enable_gqa")
        a = dict(zip(names, args))
        a.update(kwargs)
        q, k, v = a.get("query"), a.get("key"), a.get("value")
        why = _sdpa_unsupported(q, k, v, a.get("attn_mask"), a.get("dropout_p", 0.0),
                                a.get("is_causal", False), a.get("enable_gqa", False))
        if why is None:
            self.stats.routed += 1
            return ops.attention(q, k, v, scale=a.get("scale"), layout=_names.HEAD_MAJOR,
                                 rounding=self.rounding, causal=bool(a.get("is_causal")),
                                 skip=_skip_for(q, k, 2))
        if self.strict:
            raise AttngenError("INVALID_ARGUMENT", f"scaled_dot_product_attention call not "
                                                   f"routed to attngen: {why}")
        self.stats.fallback += 1
        self.stats.last_fallback = why
        return func(*args, **kwargs)


def _routed_class(cls):
    """A subclass of processor class cls whose __call__ runs cls's under _SDPAToAttngen (the
    signature is cls.__call__'s, through functools.wraps: diffusers' Attention.forward reads
    it to filter keyword arguments)."""
    import functools
    orig = cls.__call__

    @functools.wraps(orig)
    def __call__(self, *args, **kwargs):
        with _SDPAToAttngen(self._attngen_stats, self._attngen_rounding, self._attngen_strict):
            return orig(self, *args, **kwargs)

    return type("Attngen" + cls.__name__, (cls,), {"__call__": __call__})


def install_processors(model, rounding=None, strict=False, classes=None):
    """Routes the attention of processors that call torch's scaled_dot_product_attention
    themselves instead of diffusers' dispatcher (SD3's JointAttnProcessor2_0 and the like,
    which set_attention_backend does not reach) to attngen: every attention processor of
    `model` (a diffusers ModelMixin with attn_processors / set_attn_processor) whose class
    name is in `classes` (default: any) is replaced by a copy whose SDPA calls go to
    attngen.attention when attngen can run them (bf16, no mask, no dropout, head_dim 64 / 128
    / 256, is_causal only with Sq == Skv); the others run SDPA (counted; strict=True raises
    instead). Returns the RouteStats the processors update. uninstall_processors undoes it."""
    stats = RouteStats()
    procs = {}
    for name, p in model.attn_processors.items():
        base = getattr(p, "_attngen_base", None) or type(p)
        if classes is not None and base.__name__ not in classes:
            procs[name] = p
            continue
        import copy
        q = copy.copy(p)
        q.__class__ = _routed_class(base)
        q._attngen_base = base
        q._attngen_stats, q._attngen_rounding, q._attngen_strict = stats, rounding, strict
        procs[name] = q
    model.set_attn_processor(procs)
    return stats


def uninstall_processors(model):
    """Puts back the processors install_processors replaced (their original classes)."""
    procs = {}
    for name, p in model.attn_processors.items():
        base = getattr(p, "_attngen_base", None)
        if base is not None:
            import copy
            p = copy.copy(p)
            p.__class__ = base
            for attr in ("_attngen_base", "_attngen_stats", "_attngen_rounding",
                         "_attngen_strict"):
                p.__dict__.pop(attr, None)
        procs[name] = p
    model.set_attn_processor(procs)


# ---- temporal tile skipping across the denoising steps of a pipeline call ------------------

_skip_tls = threading.local()  # the (controller, layer name) of the attention module running


def _skip_for(query, key, layout_seq_dim):
    """The SkipState of the attention layer running now (None outside enable_skip's hooks,
    and for cross-attention calls when the controller is self_only)."""
    cur = getattr(_skip_tls, "layer", None)
    if cur is None:
        return None
    ctl, name = cur
    if ctl.self_only and query.shape[layout_seq_dim] != key.shape[layout_seq_dim]:
        return None
    return ctl.state(name)


class SkipController:
    """One attngen.SkipState per attention layer (and per transformer pass of a denoising
    step: classifier-free guidance run as two passes keeps two states per layer), made with
    the controller's settings on the layer's first call. enable_skip() makes one."""

    def __init__(self, threshold_log2=-6.0, calibrate=False, self_only=True):
        from ..skip import SkipState, _check_threshold
        self._make = lambda: SkipState(threshold_log2, calibrate=calibrate)
        self.threshold_log2 = _check_threshold(threshold_log2)
        self.calibrate = bool(calibrate)
        self.self_only = bool(self_only)
        self.states = {}        # (layer name, pass) -> SkipState
        self.branch = 0         # this transformer pass's index within its denoising step
        self._last_t = None
        self.steps = 0          # denoising steps seen since the last reset
        self.prompts = 0        # resets (pipeline calls) so far
        self._undo = []

    def state(self, name):
        key = (name, self.branch)
        s = self.states.get(key)
        if s is None:
            s = self.states[key] = self._make()
        return s

    def reset(self):
        """A new prompt: every state forgets its lists (the next step computes every tile)."""
        for s in self.states.values():
            s.reset()
        self.branch, self._last_t, self.steps = 0, None, 0
        self.prompts += 1

    def transformer_pass(self, timestep):
        """Called before each transformer forward: a pass with the timestep of the previous
        one is another branch of the same step (classifier-free guidance in two passes)."""
        t = None
        if isinstance(timestep, torch.Tensor):
            t = tuple(timestep.detach().flatten()[:8].tolist())
        elif timestep is not None:
            t = timestep
        if t is not None and t == self._last_t:
            self.branch += 1
        else:
            self.branch = 0
            self.steps += 1
        self._last_t = t

    def skipped_fractions(self):
        """{(layer, pass): skipped fraction of its last call} (reads every state's counter)."""
        return {k: s.skipped_fraction for k, s in self.states.items()}

    def mean_skipped_fraction(self):
        f = self.skipped_fractions()
        return sum(f.values()) / len(f) if f else 0.0


def _attention_modules(model):
    """diffusers' attention modules of model: those with a processor (Attention and
    AttentionModuleMixin modules)."""
    for name, m in model.named_modules():
        if hasattr(m, "processor") and hasattr(m, "set_processor"):
            yield name, m


def _denoiser(pipe_or_model):
    """The pipeline's transformer (or unet), or the model itself."""
    for attr in ("transformer", "unet"):
        m = getattr(pipe_or_model, attr, None)
        if isinstance(m, torch.nn.Module):
            return m
    return pipe_or_model


def enable_skip(pipe_or_model, threshold_log2=-6.0, calibrate=False, self_only=True):
    """Temporal tile skipping for a diffusers pipeline (or its transformer): every attention
    module of the transformer gets one attngen.SkipState (per transformer pass of a step),
    kept across the denoising steps of a pipeline call and reset when the pipeline is called
    again (a new prompt; with a bare model call reset() on the returned controller).
    Attention reaches attngen through the attngen backend (register() +
    set_attention_backend("attngen")) or install_processors(); the calls of other backends
    are not affected. self_only: skip only calls with as many keys as queries
    (self-attention; cross-attention to text runs dense). calibrate: run dense alongside,
    return the dense output and record the cost (SkipState.calibration). Off unless this is
    called; disable_skip() undoes it. Returns the SkipController."""
    model = _denoiser(pipe_or_model)
    if getattr(model, "_attngen_skip", None) is not None:
        disable_skip(pipe_or_model)
    ctl = SkipController(threshold_log2, calibrate, self_only)
    for name, m in _attention_modules(model):
        def pre(mod, args, _name=name):
            mod._attngen_skip_prev = getattr(_skip_tls, "layer", None)
            _skip_tls.layer = (ctl, _name)

        def post(mod, args, out):
            _skip_tls.layer = getattr(mod, "_attngen_skip_prev", None)

        ctl._undo.append(m.register_forward_pre_hook(pre))
        ctl._undo.append(m.register_forward_hook(post))
    orig_forward = model.forward

    def forward(*args, **kwargs):
        ctl.transformer_pass(kwargs.get("timestep", args[1] if len(args) > 1 else None))
        return orig_forward(*args, **kwargs)

    model.forward = forward
    model._attngen_skip = ctl
    if model is not pipe_or_model:  # a pipeline: each call is a new prompt
        pipe = pipe_or_model
        base = type(pipe)
        orig_call = base.__call__

        def __call__(self, *args, **kwargs):
            ctl.reset()
            return orig_call(self, *args, **kwargs)

        pipe.__class__ = type("AttngenSkip" + base.__name__, (base,), {"__call__": __call__})
        pipe._attngen_skip_base = base
    return ctl


def disable_skip(pipe_or_model):
    """Removes enable_skip's hooks (and frees the states' lists)."""
    model = _denoiser(pipe_or_model)
    ctl = getattr(model, "_attngen_skip", None)
    if ctl is None:
        return
    for h in ctl._undo:
        h.remove()
    model.__dict__.pop("forward", None)
    model._attngen_skip = None
    base = getattr(pipe_or_model, "_attngen_skip_base", None)
    if base is not None:
        pipe_or_model.__class__ = base
        del pipe_or_model._attngen_skip_base
    for s in ctl.states.values():
        s.close()

"""attngen as a yunchang (long-context-attention) kernel.

    import attngen.integrations.yunchang as ag_yunchang
    ag_yunchang.install()    # AttnType.ATTNGEN; LongContextAttention(attn_type=AttnType.ATTNGEN)
    ag_yunchang.install(replace=["FA"])   # or: attn_type FA now runs attngen

yunchang's ring / Ulysses / USP layers call a flash-attn-style forward chosen by
yunchang.kernels.select_flash_attn_impl(impl_type, stage): fn(q, k, v, dropout_p,
softmax_scale, causal, window_size, softcap, alibi_slopes, return_softmax) with BSHD
tensors, returning (out, lse [B, H, S] fp32). install() adds AttnType.ATTNGEN and wraps the
selector so that it (and the types in replace) return flash_attn_forward below for the
forward-only stage; the backward stages raise (attngen is forward-only).
"""
from .. import ops
from .. import _names
from .._lib import AttngenError
from ._common import extend_enum, patch_everywhere, refuse

_state = {}


def flash_attn_forward(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False,
                       window_size=(-1, -1), softcap=None, alibi_slopes=None,
                       return_softmax=False, rounding=None):
    """flash-attn-style forward: BSHD in, (out, lse [B, H, S] fp32)."""
    if dropout_p:
        refuse("yunchang", "dropout_p", dropout_p, "0.0")
    if causal:
        refuse("yunchang", "causal", causal, "False")
    if tuple(window_size) != (-1, -1):
        refuse("yunchang", "window_size", tuple(window_size), "(-1, -1)")
    if softcap:
        refuse("yunchang", "softcap", softcap, "None or 0")
    if alibi_slopes is not None:
        refuse("yunchang", "alibi_slopes", "a tensor", "None")
    return ops.attention(q, k, v, scale=softmax_scale, layout=_names.SEQ_MAJOR, rounding=rounding,
                         return_lse=True)


def install(replace=()):
    """Adds AttnType.ATTNGEN and routes select_flash_attn_impl to attngen for it (and the
    AttnType names in replace). Returns the ATTNGEN member."""
    try:
        import yunchang.kernels as yk
    except ImportError as e:
        raise AttngenError("NO_BACKEND", f"yunchang is not installed ({e})") from e
    member = extend_enum(yk.AttnType, "ATTNGEN", "attngen")
    routed = {member} | {yk.AttnType[n] for n in replace}
    if "original" in _state:
        _state["routed"] |= routed
        return member
    original = yk.select_flash_attn_impl
    _state["original"] = original
    _state["routed"] = routed

    def select_flash_attn_impl(impl_type, stage="fwd-bwd", *args, **kwargs):
        if impl_type in _state["routed"]:
            if stage == "fwd-only":
                return flash_attn_forward
            raise AttngenError("INVALID_ARGUMENT",
                               f"attngen yunchang kernel: stage = {stage!r} is not supported "
                               "(allowed: 'fwd-only'; attngen is forward-only)")
        return original(impl_type, stage, *args, **kwargs)

    _state["mine"] = select_flash_attn_impl
    patch_everywhere("yunchang", "select_flash_attn_impl", original, select_flash_attn_impl)
    return member


def uninstall():
    if "original" in _state:
        patch_everywhere("yunchang", "select_flash_attn_impl", _state["mine"], _state["original"])
        _state.clear()

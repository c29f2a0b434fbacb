"""attngen as an xDiT (xfuser) attention function.

    import attngen.integrations.xdit as ag_xdit
    ag_xdit.register(replace=["FLASH", "FLASH_3"])   # those backend types now run attngen

xfuser keeps ATTENTION_FUNCTION_REGISTRY (xfuser.core.distributed.attention_backend):
AttentionBackendType -> fn(query, key, value, dropout_p, is_causal) with BHSD tensors,
returning (out BHSD, softmax_lse [B, H, S]). register() adds AttentionBackendType.ATTNGEN
and, with replace, points existing types (names) at attngen, so a pipeline configured for
them (xfuser's USP/ring included, which merge with the returned LSE) switches in one line.
"""
from .. import ops
from .. import _names
from .._lib import AttngenError
from ._common import extend_enum, refuse

_originals = {}


def attngen_attn_call(query, key, value, dropout_p=0.0, is_causal=False, *, scale=None,
                      rounding=None):
    """xfuser's attention-function signature: BHSD in, (out BHSD, lse [B, H, S] fp32)."""
    if dropout_p:
        refuse("xDiT", "dropout_p", dropout_p, "0.0")
    if is_causal:
        refuse("xDiT", "is_causal", is_causal, "False")
    return ops.attention(query, key, value, scale=scale, layout=_names.HEAD_MAJOR, rounding=rounding,
                         return_lse=True)


def register(replace=()):
    """Adds AttentionBackendType.ATTNGEN -> attngen; `replace`: names of existing types to
    route to attngen too. Returns the ATTNGEN member."""
    try:
        from xfuser.core.distributed import attention_backend as xab
    except ImportError as e:
        raise AttngenError("NO_BACKEND", f"xfuser (xDiT) is not installed ({e})") from e
    member = extend_enum(xab.AttentionBackendType, "ATTNGEN", "attngen")
    xab.ATTENTION_FUNCTION_REGISTRY[member] = attngen_attn_call
    for name in replace:
        t = xab.AttentionBackendType[name]
        _originals.setdefault(t, xab.ATTENTION_FUNCTION_REGISTRY.get(t))
        xab.ATTENTION_FUNCTION_REGISTRY[t] = attngen_attn_call
    return member


def unregister():
    from xfuser.core.distributed import attention_backend as xab
    for t, fn in _originals.items():
        if fn is None:
            xab.ATTENTION_FUNCTION_REGISTRY.pop(t, None)
        else:
            xab.ATTENTION_FUNCTION_REGISTRY[t] = fn
    _originals.clear()

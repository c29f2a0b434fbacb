"""attngen as a diffusers attention backend (diffusers.models.attention_dispatch).

    import attngen.integrations.diffusers as ag_diffusers
    ag_diffusers.register()                        # adds AttentionBackendName.ATTNGEN
    pipe.transformer.set_attention_backend("attngen")

or `with attention_backend("attngen"):` around a call. The backend takes diffusers' BSHD
tensors, honours scale and return_lse (LSE returned as [B, S, H], diffusers' convention),
refuses attn_mask, dropout_p > 0, is_causal and enable_gqa with an AttngenError that says
so, and runs context parallelism (ring / Ulysses through diffusers' ParallelConfig) with
its forward op returning (out, lse). Forward only: the backward op raises.
"""
from .. import ops
from .. import _names
from .._lib import AttngenError
from ._common import extend_enum, refuse

NAME = "attngen"
_registered = None


def _check(attn_mask, dropout_p, is_causal, enable_gqa):
    if attn_mask is not None:
        refuse("diffusers", "attn_mask", "a tensor", "None")
    if dropout_p:
        refuse("diffusers", "dropout_p", dropout_p, "0.0")
    if is_causal:
        refuse("diffusers", "is_causal", is_causal, "False")
    if enable_gqa:
        refuse("diffusers", "enable_gqa", enable_gqa, "False (repeat k/v heads first)")


def _run(query, key, value, scale, return_lse, rounding):
    if return_lse:
        out, lse = ops.attention(query, key, value, scale=scale, layout=_names.SEQ_MAJOR,
                                 rounding=rounding, return_lse=True)
        return out, lse.transpose(1, 2)  # [B, H, S] -> diffusers' [B, S, H]
    return ops.attention(query, key, value, scale=scale, layout=_names.SEQ_MAJOR, rounding=rounding)


def forward_op(ctx, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
               scale=None, enable_gqa=False, return_lse=False, _save_ctx=True,
               _parallel_config=None):
    """diffusers' templated context-parallel forward op: (out, lse [B, S, H])."""
    _check(attn_mask, dropout_p, is_causal, enable_gqa)
    return _run(query, key, value, scale, return_lse, None)


def backward_op(ctx, grad_out, *args, **kwargs):
    raise NotImplementedError("attngen is forward-only (inference); use another backend to "
                              "train")


def make_backend(rounding=None):
    """The backend function diffusers' dispatcher calls (keyword arguments by name)."""

    def attngen_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                          scale=None, enable_gqa=False, return_lse=False,
                          _parallel_config=None):
        _check(attn_mask, dropout_p, is_causal, enable_gqa)
        if _parallel_config is None:
            return _run(query, key, value, scale, return_lse, rounding)
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

"""attngen.flash_attn_interface: FlashAttention's forward entry point on attngen's kernels, so
that code written against FlashAttention can switch by import:

    from attngen.flash_attn_interface import flash_attn_func   # was: from flash_attn import ...

flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False) with
FlashAttention's conventions: q [B, Sq, H, D], k and v [B, Skv, H_kv, D] (H_kv dividing H:
grouped-query attention where the library has it), bf16, causal bottom-right aligned (the
FlashAttention >= 2.1 convention, which attngen's causal mask is), softmax_scale defaulting to
1/sqrt(D). Returns out [B, Sq, H, D]; with return_attn_probs=True (out, softmax_lse, None):
the LSE [B, H, Sq] in fp32 as FlashAttention returns it, no attention probabilities.

What attngen does not do is refused by name with AttngenError(INVALID_ARGUMENT): dropout_p > 0,
a sliding window (window_size other than (-1, -1), beyond what causal implies), softcap != 0,
alibi_slopes. deterministic is accepted (attngen's kernels are deterministic). Forward only.

flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
alibi_slopes=None, deterministic=False, return_attn_probs=False, block_table=None): the packed
variable-length call (attngen.varlen_attention): q [total_q, H, D], k and v [total_k, H_kv, D],
cu_seqlens int32 [B + 1]; returns out [total_q, H, D], with return_attn_probs=True
(out, softmax_lse [H, total_q] fp32, None). The same arguments are refused, and block_table
(a paged KV cache) too.
"""
from . import ops
from ._lib import AttngenError

__all__ = ["flash_attn_func", "flash_attn_varlen_func"]


def _refuse(name, value, allowed, fn="flash_attn_func"):
    raise AttngenError("INVALID_ARGUMENT", f"{fn}: {name} = {value!r} is not "
                                           f"supported by attngen (allowed: {allowed})")


def _refuse_unsupported(fn, dropout_p, window_size, softcap, alibi_slopes):
    if dropout_p:
        _refuse("dropout_p", dropout_p, "0.0 (inference)", fn)
    if tuple(window_size) != (-1, -1):
        _refuse("window_size", tuple(window_size), "(-1, -1): no sliding window", fn)
    if softcap:
        _refuse("softcap", softcap, "0.0", fn)
    if alibi_slopes is not None:
        _refuse("alibi_slopes", type(alibi_slopes).__name__, "None", fn)


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False,
                    window_size=(-1, -1), softcap=0.0, alibi_slopes=None, deterministic=False,
                    return_attn_probs=False):
    """FlashAttention's flash_attn_func on attngen (see the module docstring)."""
    _refuse_unsupported("flash_attn_func", dropout_p, window_size, softcap, alibi_slopes)
    del deterministic  # attngen is deterministic either way
    if return_attn_probs:
        out, lse = ops.attention(q, k, v, scale=softmax_scale, causal=bool(causal),
                                 return_lse=True)
        return out, lse, None
    return ops.attention(q, k, v, scale=softmax_scale, causal=bool(causal))


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                           dropout_p=0.0, softmax_scale=None, causal=False,
                           window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                           deterministic=False, return_attn_probs=False, block_table=None):
    """FlashAttention's flash_attn_varlen_func on attngen (see the module docstring)."""
    fn = "flash_attn_varlen_func"
    _refuse_unsupported(fn, dropout_p, window_size, softcap, alibi_slopes)
    if block_table is not None:
        _refuse("block_table", type(block_table).__name__, "None (no paged KV cache)", fn)
    del deterministic  # attngen is deterministic either way
    res = ops.varlen_attention(q, k, v, cu_seqlens_q, cu_seqlens_k, int(max_seqlen_q),
                               int(max_seqlen_k), causal=bool(causal), scale=softmax_scale,
                               return_lse=bool(return_attn_probs))
    if return_attn_probs:
        return res[0], res[1], None
    return res

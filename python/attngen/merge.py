"""merge_partials: the exact (out, LSE) merge of attention over disjoint KV parts.

For parts i with outputs O_i (each normalised over its own KV part) and natural-log LSEs L_i:
L = log(sum_i e^{L_i}) and O = sum_i e^{L_i - L} O_i, computed in fp32 with the running
maximum subtracted. A part over no keys has L_i = -inf and weight 0; if every part is
empty, L = -inf and O = 0 (never NaN). This is the merge ring attention uses.
"""
import torch

from . import _names
from ._lib import AttngenError


def _lse_view(lse, layout):
    # lse [B, H, S] -> broadcastable against out in `layout` ([B,S,H,D] or [B,H,S,D])
    return lse.transpose(1, 2).unsqueeze(-1) if layout == _names.SEQ_MAJOR else lse.unsqueeze(-1)


class Merger:
    """Running merge: add(out, lse) one part at a time; result() gives (out, lse)."""

    def __init__(self, layout=None):
        self.layout = _names.check_layout(layout)  # None: the default layout
        self.o = None  # fp32, normalised
        self.l = None  # fp32 [B, H, S]

    def add(self, out, lse):
        o = out.float()
        l = lse.float()
        if self.o is None:
            # an empty first part: O = 0 (its O may hold anything)
            self.o = torch.where(_lse_view(torch.isneginf(l), self.layout), torch.zeros_like(o), o)
            self.l = l.clone()
            return
        m = torch.maximum(self.l, l)
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        w1 = torch.exp(self.l - m)
        w2 = torch.exp(l - m)
        s = w1 + w2
        empty = s == 0
        s_safe = torch.where(empty, torch.ones_like(s), s)
        a1 = _lse_view(w1 / s_safe, self.layout)
        a2 = _lse_view(w2 / s_safe, self.layout)
        # in place on the running fp32 output and the fresh fp32 copy of the part; a part
        # with weight 0 (empty) contributes 0 even if its O holds NaN/Inf
        if o is out:
            o = o.clone()
        o.mul_(a2).masked_fill_(a2 == 0, 0.0)
        self.o.mul_(a1).add_(o)
        self.l = torch.where(empty, torch.full_like(s, float("-inf")), m + torch.log(s_safe))

    def result(self, dtype=None):
        if self.o is None:
            raise AttngenError("INVALID_ARGUMENT", "merge of no parts")
        return (self.o if dtype is None else self.o.to(dtype)), self.l


def merge_partials(outs, lses, *, layout=None, out_dtype=None):
    """Merges attention over KV parts: outs[i] (layout `layout`) with lses[i] fp32 [B, H, S].
    Returns (out, lse): out in out_dtype (default outs[0].dtype), lse fp32 [B, H, S]."""
    outs, lses = list(outs), list(lses)
    if not outs or len(outs) != len(lses):
        raise AttngenError("INVALID_ARGUMENT",
                           f"merge_partials: {len(outs)} outs and {len(lses)} lses "
                           "(need the same number, at least one)")
    layout = _names.check_layout(layout)
    o0, l0 = outs[0], lses[0]
    if not isinstance(o0, torch.Tensor) or not isinstance(l0, torch.Tensor):
        raise AttngenError("INVALID_ARGUMENT", "merge_partials: outs and lses hold tensors")
    if o0.dim() != 4 or l0.dim() != 3:
        raise AttngenError("BAD_SHAPE", f"merge_partials: out {tuple(o0.shape)} and lse "
                                        f"{tuple(l0.shape)} (need out 4-d [{layout.upper()}]"
                                        " and lse [B, H, S])")
    B, x, y, _ = o0.shape
    want = (B, y, x) if layout == _names.SEQ_MAJOR else (B, x, y)
    if tuple(l0.shape) != want:
        raise AttngenError("BAD_SHAPE", f"merge_partials: out {tuple(o0.shape)} read as "
                                        f"[{layout.upper()}] needs lse [B, H, S] = {want}; got "
                                        f"{tuple(l0.shape)} (is layout={layout!r} right?)")
    for i, (o, l) in enumerate(zip(outs, lses)):
        if o.shape != outs[0].shape or l.shape != lses[0].shape:
            raise AttngenError("BAD_SHAPE", f"merge_partials: part {i} has out {tuple(o.shape)}"
                                            f", lse {tuple(l.shape)}; part 0 has "
                                            f"{tuple(outs[0].shape)}, {tuple(lses[0].shape)}")
    m = Merger(layout)
    for o, l in zip(outs, lses):
        m.add(o, l)
    return m.result(out_dtype if out_dtype is not None else outs[0].dtype)

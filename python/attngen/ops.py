"""attngen.attention: the PyTorch op over libattngen.

Layouts. `layout` names the order of the tensors' dimensions as the caller indexes them, by
the library's names (attngen._names.LAYOUTS): the first (the default) is [batch, seq, heads,
head_dim], the second [batch, heads, seq, head_dim]; rounding modes likewise (ROUNDINGS,
the default first). The memory
order the kernel reads is taken from the strides: q, k and v are read in place through their
strides (the library's args.q_strides ...) whenever the last dimension is unit-stride and the
other strides are multiples of 8 elements (16 bytes): a transposed view of a dense tensor
(SDPA's q.transpose(1, 2)), q, k, v = qkv.unbind(2) of a fused [B, S, 3, H, D] projection,
heads padded apart. Any other tensor is copied (on its device) into a dense one. out is
written in q's memory order when q is dense in one, else in the logical order; a given out
may have any strides of that kind.

Streams and devices. The call launches on the current torch stream of q's device, never
synchronizes, and never moves a tensor to another device: tensors on different devices, or
of another dtype than bfloat16, raise AttngenError. CUDA tensors run on the "cuda" backend
("hip" under ROCm torch); CPU tensors on the backend set by set_cpu_backend() or
$ATTNGEN_CPU_BACKEND ("cpu" = the fp32 reference, "emu" = the AMD kernels emulated).

Key lengths. kv_lengths (int32 [B] on q's device) gives each batch entry's number of keys:
keys at or past kv_lengths[b] contribute nothing (a key-padding mask whose True part is a
prefix; FlashAttention-3's seqused_k). The values stay on the device (no host sync); the
kernels clamp each into [0, Skv]. A row whose entry has 0 keys gets out = 0, LSE = -inf.
Calls with kv_lengths run the eager implementation (not the torch.library ops).

torch.library. With torch >= 2.4 the op is registered as torch.ops.attngen.fwd (functional)
and torch.ops.attngen.fwd_out (writes out/lse), with fake implementations, so it traces
under torch.compile(fullgraph=True). Eager calls with plain tensors skip the dispatcher
(same implementation, less overhead). Older torch (e.g. Debian 12's 1.13) has no
torch.library.custom_op: attention() is then a plain function (HAS_CUSTOM_OP is False).

CUDA graphs. The first call of a shape plans it, loads (or JIT-compiles) its variant and
remembers its workspace size; later calls allocate out, lse and the split workspace from
torch's caching allocator (graph-aware), so a call captured after one warm-up call (or
after prepare()) compiles and allocates nothing outside torch.
"""
import math
import os
import threading

import torch

from . import _lib
from . import _names
from ._lib import AttngenError

HAS_CUSTOM_OP = hasattr(torch.library, "custom_op") and hasattr(torch.library, "register_fake")
if os.environ.get("ATTNGEN_NO_CUSTOM_OP") == "1":
    HAS_CUSTOM_OP = False

if hasattr(torch, "compiler") and hasattr(torch.compiler, "is_compiling"):
    _is_compiling = torch.compiler.is_compiling
else:  # torch < 2.3
    def _is_compiling():
        return False

_GPU_BACKEND = "hip" if getattr(torch.version, "hip", None) else "cuda"
_cpu_backend = os.environ.get("ATTNGEN_CPU_BACKEND", "cpu")
_contexts = {}
# The op's plans (_plan_for): what a call's tensors decide before the library sees them
# (dtype, device and shape checks, the memory order read from the strides, copies) plus the
# argument block with the workspace size the library's explain gave. The variant is the
# library's choice (its context remembers its plans). Keyed by the tensors' sizes, strides,
# dtypes and devices, which the library never sees; measured on this package's CPU path
# (emu backend, (1, 8, 128, 128)): a hit costs 1.5-4.5 us per call, a plan made per call
# 36 us (18 us of it the library's explain), against the 10 us per call that
# python/tests/gpu/gpu_check.py allows over the C API.
_plans = {}
_lock = threading.Lock()


def set_cpu_backend(name):
    """Backend for CPU tensors: "cpu" (fp32 reference, default) or "emu" (the AMD kernels' emulator)."""
    global _cpu_backend
    if name not in ("cpu", "emu"):
        raise AttngenError("INVALID_ARGUMENT",
                           f"cpu backend = {name!r} (allowed: 'cpu', 'emu')")
    _cpu_backend = name


def get_context(device):
    """The cached attngen context for a torch device (created on first use, never destroyed
    per call)."""
    device = torch.device(device)
    if device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        key = (_GPU_BACKEND, index)
    elif device.type == "cpu":
        key = (_cpu_backend, 0)
    else:
        raise AttngenError("NO_BACKEND",
                           f"tensors on device type '{device.type}' (allowed: cuda, cpu)")
    ctx = _contexts.get(key)
    if ctx is None:
        with _lock:
            ctx = _contexts.get(key)
            if ctx is None:
                ctx = _lib.Context(key[0], key[1])
                _contexts[key] = ctx
    return ctx


# ---- layouts -----------------------------------------------------------------------------

def _dims(t, layout):
    """(B, S, H, D) of a 4-d tensor in the logical layout."""
    b, x, y, d = t.shape
    return (b, x, y, d) if layout == _names.SEQ_MAJOR else (b, y, x, d)


def _logical_strides(t, layout):
    sb, sx, sy, sd = t.stride()
    return (sb, sx, sy, sd) if layout == _names.SEQ_MAJOR else (sb, sy, sx, sd)  # (B, S, H, D) strides


def _dense_in(t, layout, mem):
    """True if t (logical `layout`) is dense in memory order `mem` (size-1 dims ignored)."""
    B, S, H, D = _dims(t, layout)
    sB, sS, sH, sD = _logical_strides(t, layout)
    if mem == _names.SEQ_MAJOR:
        want = ((B, sB, S * H * D), (S, sS, H * D), (H, sH, D), (D, sD, 1))
    else:
        want = ((B, sB, H * S * D), (S, sS, D), (H, sH, S * D), (D, sD, 1))
    for size, got, exp in want:
        if size != 1 and got != exp:
            return False
    return True


def _memory_layout(t, layout):
    """The memory order t is dense in (q's own, preferring the logical one), or None."""
    other = _names.HEAD_MAJOR if layout == _names.SEQ_MAJOR else _names.SEQ_MAJOR
    if _dense_in(t, layout, layout):
        return layout
    if _dense_in(t, layout, other):
        return other
    return None


def _view_strides(t, layout):
    """(sB, sS, sH) element strides of t (logical `layout`) as the library reads them in place
    (args.q_strides ...), or None when it cannot (a copy is needed): the last dimension
    unit-stride, the others positive multiples of 8 elements (16 bytes); a dimension of size 1
    is never stepped (0)."""
    dims = _dims(t, layout)
    st = _logical_strides(t, layout)
    if dims[3] > 1 and st[3] != 1:
        return None
    out = []
    for n, s in zip(dims[:3], st[:3]):
        if n == 1:
            s = 0
        elif s <= 0 or s % 8:
            return None
        out.append(s)
    return tuple(out)


def _to_memory(t, layout, mem):
    """t (logical `layout`) copied to be dense in memory order `mem`, same logical view."""
    if layout == mem:
        return t.contiguous()
    return t.transpose(1, 2).contiguous().transpose(1, 2)


def _empty_in(logical_shape, layout, mem, like, dtype):
    """An empty tensor with logical `layout` dims, dense in memory order `mem`."""
    B, S, H, D = logical_shape
    if mem == _names.SEQ_MAJOR:
        t = torch.empty((B, S, H, D), dtype=dtype, device=like.device)
        return t if layout == _names.SEQ_MAJOR else t.transpose(1, 2)
    t = torch.empty((B, H, S, D), dtype=dtype, device=like.device)
    return t if layout == _names.HEAD_MAJOR else t.transpose(1, 2)


def _check_names(layout, rounding):
    # (names left as None were replaced by _defaults.) Plain attribute reads of the names
    # module, not _names.check_layout: torch.compile traces this function, and the names()
    # function behind check_layout calls the library through ctypes, which dynamo cannot
    # trace ("Unsupported method call", gpu_check.py compile on torch 2.11).
    if layout not in _names.LAYOUTS:
        raise AttngenError("BAD_LAYOUT", f"layout = {layout!r} (allowed: "
                                         f"{', '.join(map(repr, _names.LAYOUTS))})")
    if rounding not in _names.ROUNDINGS:
        raise AttngenError("BAD_ROUNDING", f"rounding = {rounding!r} (allowed: "
                                           f"{', '.join(map(repr, _names.ROUNDINGS))})")


def _defaults(layout, rounding):
    """The library's defaults for names left as None."""
    return (_names.SEQ_MAJOR if layout is None else layout,
            _names.DEFAULT_ROUNDING if rounding is None else rounding)


def _check_tensors(q, k, v, layout):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise AttngenError("INVALID_ARGUMENT", f"{name} is a {type(t).__name__}, not a tensor")
        if t.dim() != 4:
            raise AttngenError("BAD_SHAPE", f"{name} has {t.dim()} dimensions (allowed: 4, "
                                            f"[{', '.join(layout.upper())}] for layout {layout!r})")
        if t.dtype != torch.bfloat16:
            raise AttngenError("INVALID_ARGUMENT",
                               f"{name}.dtype = {t.dtype} (allowed: torch.bfloat16)")
    if not (q.device == k.device == v.device):
        raise AttngenError("INVALID_ARGUMENT",
                           f"q, k, v are on {q.device}, {k.device}, {v.device}: they must be on "
                           "one device (attngen never copies between devices)")
    Bq, Sq, Hq, Dq = _dims(q, layout)
    Bk, Sk, Hk, Dk = _dims(k, layout)
    if tuple(k.shape) != tuple(v.shape):
        raise AttngenError("BAD_SHAPE", f"k.shape = {tuple(k.shape)} and v.shape = "
                                        f"{tuple(v.shape)} differ")
    if Bk != Bq or Dk != Dq:
        raise AttngenError(
            "BAD_SHAPE",
            f"q [{layout.upper()}] = {tuple(q.shape)} and k = {tuple(k.shape)} disagree on "
            f"{'batch' if Bk != Bq else 'head_dim'} (the kernels need equal batch and head_dim)")
    if Hk != Hq and (Hk < 1 or Hq % Hk != 0):
        raise AttngenError(
            "BAD_SHAPE",
            f"k and v have {Hk} heads and q [{layout.upper()}] = {tuple(q.shape)} has {Hq} "
            f"(heads_kv = {Hk}; allowed: a divisor of q's heads, grouped-query attention: "
            "query head h reads KV head h // (heads // heads_kv))")


def _check_kv_lengths(kv_lengths, q, B):
    """kv_lengths as the contiguous int32 [B] tensor the library reads."""
    if not isinstance(kv_lengths, torch.Tensor):
        raise AttngenError("INVALID_ARGUMENT", f"kv_lengths is a {type(kv_lengths).__name__} "
                                               "(allowed: None or an int32 tensor [B])")
    if kv_lengths.dtype != torch.int32:
        raise AttngenError("INVALID_ARGUMENT",
                           f"kv_lengths.dtype = {kv_lengths.dtype} (allowed: torch.int32)")
    if kv_lengths.device != q.device:
        raise AttngenError("INVALID_ARGUMENT",
                           f"kv_lengths is on {kv_lengths.device} (allowed: q's device "
                           f"{q.device}; attngen never copies between devices)")
    if tuple(kv_lengths.shape) != (B,):
        raise AttngenError("BAD_SHAPE", f"kv_lengths.shape = {tuple(kv_lengths.shape)} "
                                        f"(allowed: ({B},), one length per batch entry)")
    return kv_lengths.contiguous()


class _Plan:
    __slots__ = ("ctx", "template", "mem", "B", "H", "Sq", "Skv", "D", "ws_bytes",
                 "copy_q", "copy_kv", "stream", "variant", "empty", "chosen")


def _make_plan(q, k, v, scale, layout, rounding, variant=None, causal=False, skip=False):
    _check_names(layout, rounding)
    _check_tensors(q, k, v, layout)
    if not math.isfinite(scale):
        raise AttngenError("BAD_SCALE", f"scale = {scale} is not finite")
    ctx = get_context(q.device)
    p = _Plan()
    p.ctx = ctx
    # the layout (the library's variant family and default strides): q's memory order when q
    # is dense, else the logical order; q, k, v are read in place through their strides
    # whenever the library takes them (_view_strides), else copied dense into `mem`
    mem = _memory_layout(q, layout)
    dense_q = mem is not None
    if mem is None:
        mem = layout
    sq = None if dense_q else _view_strides(q, layout)
    p.copy_q = not dense_q and sq is None
    sk, sv = _view_strides(k, layout), _view_strides(v, layout)
    kv_dense = _dense_in(k, layout, mem) and _dense_in(v, layout, mem)
    p.copy_kv = not kv_dense and (sk is None or sv is None)
    p.mem = mem
    p.B, p.Sq, p.H, p.D = _dims(q, layout)
    p.Skv = _dims(k, layout)[1]
    a = ctx.new_args()
    a.batch, a.heads, a.seqlen_q, a.seqlen_kv, a.head_dim = p.B, p.H, p.Sq, p.Skv, p.D
    a.heads_kv = _dims(k, layout)[2]  # grouped-query: fewer KV heads, read in place
    a.layout = _names.layout_code(mem)
    if sq is not None:
        a.q_strides[:] = sq
    if not kv_dense and not p.copy_kv:
        a.k_strides[:] = sk
        a.v_strides[:] = sv
    a.rounding = _names.rounding_code(rounding)
    a.softmax_scale = scale
    a.causal = 1 if causal else 0
    # variant=None: the dispatcher's choice ($ATTNGEN_VARIANT, read by the library when the
    # context is created, forces one); the bytes live in the plan, the template keeps the
    # pointer
    p.variant = variant.encode() if variant else None
    a.variant = p.variant
    p.stream = q.device.type == "cuda"
    # B, H or Sq = 0: an empty output and nothing launched (torch's own ops return empty
    # results for empty inputs); the library, which refuses such shapes, still validates the
    # head_dim, options and variant on a one-row stand-in
    p.empty = p.B * p.H * p.Sq == 0
    if p.empty:
        a.batch, a.heads, a.seqlen_q = max(p.B, 1), max(p.H, 1), max(p.Sq, 1)
    if skip and not p.empty:  # a skip call: the variant that skips, with a state of the shape
        from .skip import SkipState
        probe = SkipState(-6.0)
        a.skip = probe._bind(ctx, a, None)
        try:
            ch = ctx.explain(a)
        finally:
            a.skip = None
            probe.close()
    else:
        ch = ctx.explain(a)  # validates the shape, options and variant without pointers
    p.ws_bytes = 0 if p.empty else ch["workspace_bytes"]
    p.chosen = ch["variant"]  # the variant the dispatcher picked (or the forced one)
    a.workspace_bytes = p.ws_bytes
    p.template = bytes(a)
    return p


def _plan_for(q, k, v, scale, layout, rounding, variant=None, causal=False, skip=False):
    # the key: sizes and strides (a tuple of torch.Size/tuples: concatenating is slower),
    # dtypes, devices (torch.device: get_device() is -1 for both cpu and meta), options, the
    # CPU backend's name for CPU tensors, the forced variant.
    dev = q.device
    key = (q.shape, q.stride(), k.shape, k.stride(), v.shape, v.stride(), q.dtype, k.dtype,
           v.dtype, dev, k.device, v.device, scale, layout, rounding,
           _cpu_backend if dev.type == "cpu" else None, variant, causal, skip)
    p = _plans.get(key)
    if p is None:
        p = _make_plan(q, k, v, scale, layout, rounding, variant, causal, skip)
        _plans[key] = p
    return p, key


def clear_plans():
    """Forgets the planned shapes (their variants stay loaded in the contexts)."""
    _plans.clear()
    _prepared.clear()


try:  # the raw cudaStream_t of the current stream, without building a Stream object
    _raw_stream = torch._C._cuda_getCurrentRawStream
except AttributeError:  # pragma: no cover - older or CPU-only torch
    _raw_stream = None


def _stream_of(p, q):
    if not p.stream:
        return None
    if _raw_stream is not None:
        return _raw_stream(q.get_device())
    return torch.cuda.current_stream(q.device).cuda_stream


def _launch(p, q, k, v, out, lse, first, kv_lengths=None, skip=None, key=None,
            out_strides=None):
    a = _lib.FwdArgs.from_buffer_copy(p.template)
    if out_strides is not None:  # a given out that is not dense in the plan's order
        a.out_strides[:] = out_strides
    if skip is not None:  # the layer's state, (re)made for this plan's shape
        a.skip = skip._bind(p.ctx, a, (id(p.ctx), key))
    if kv_lengths is not None:
        a.kv_lengths = kv_lengths.data_ptr()
    a.q = q.data_ptr()
    a.k = k.data_ptr()
    a.v = v.data_ptr()
    a.out = out.data_ptr()
    if lse is not None:
        a.lse = lse.data_ptr()
    if p.stream:
        a.stream = _stream_of(p, q)
    ws = None
    if p.ws_bytes:
        ws = torch.empty(p.ws_bytes + 16, dtype=torch.uint8, device=q.device)
        addr = ws.data_ptr()
        a.workspace = addr + (-addr) % 16
    if first:
        p.ctx.prepare(a)  # load / JIT the variant before the first launch
    p.ctx.fwd(a)
    if skip is not None:
        skip.calls += 1
    return ws


_prepared = set()


def _check_no_grad(q, k, v):
    """attngen is forward only: an input that requires grad while grad mode is on would get a
    detached output, so it is refused (torch.no_grad(), inference_mode() or detach())."""
    if torch.is_grad_enabled():
        for name, t in (("q", q), ("k", k), ("v", v)):
            if getattr(t, "requires_grad", False):
                raise AttngenError(
                    "INVALID_ARGUMENT",
                    f"{name}.requires_grad is True with grad mode on: attngen is forward only "
                    "(no backward); call it under torch.no_grad() or torch.inference_mode(), "
                    "or pass detached tensors")


def _fwd_impl(q, k, v, scale, layout, rounding, want_lse, out=None, lse=None, variant=None,
              kv_lengths=None, causal=False, skip=None):
    """Eager implementation: (out, lse or None)."""
    _check_no_grad(q, k, v)
    if kv_lengths is not None:
        _check_tensors(q, k, v, layout)
        kv_lengths = _check_kv_lengths(kv_lengths, q, _dims(q, layout)[0])
    if skip is not None:
        from .skip import SkipState
        if not isinstance(skip, SkipState):
            raise AttngenError("INVALID_ARGUMENT", f"skip is a {type(skip).__name__} (allowed: "
                                                   "None or an attngen.SkipState)")
        if skip.calibrate:
            return _fwd_calibrate(q, k, v, scale, layout, rounding, want_lse, out, lse,
                                  variant, kv_lengths, causal, skip)
    p, key = _plan_for(q, k, v, scale, layout, rounding, variant, bool(causal),
                       skip is not None)
    if p.copy_q:
        q = _to_memory(q, layout, p.mem)
    if p.copy_kv:
        k = _to_memory(k, layout, p.mem)
        v = _to_memory(v, layout, p.mem)
    out_strides = None
    if out is None:
        if _memory_layout(q, layout) is None:  # q copied or read through its strides
            out = _empty_in((p.B, p.Sq, p.H, p.D), layout, p.mem, q, torch.bfloat16)
        else:  # q is dense (maybe a transposed view): empty_like keeps its strides
            out = torch.empty_like(q)
    else:
        out_strides = _check_out(out, q, p, layout)
    if want_lse and lse is None:
        lse = torch.empty((p.B, p.H, p.Sq), dtype=torch.float32, device=q.device)
    elif lse is not None:
        _check_lse(lse, q, p)
    if p.empty:
        return out, lse
    if key in _prepared:
        _launch(p, q, k, v, out, lse, False, kv_lengths, skip, key, out_strides)
    else:
        _launch(p, q, k, v, out, lse, True, kv_lengths, skip, key, out_strides)
        _prepared.add(key)
    return out, lse


def _fwd_calibrate(q, k, v, scale, layout, rounding, want_lse, out, lse, variant, kv_lengths,
                   causal, skip):
    """Calibration: the skipping call into scratch tensors, the dense call into the caller's
    (its output is returned), and what skipping cost recorded in skip.calibration."""
    from .skip import record_calibration
    skip.calibrate = False
    try:
        o_skip, _ = _fwd_impl(q, k, v, scale, layout, rounding, False, variant=variant,
                              kv_lengths=kv_lengths, causal=causal, skip=skip)
    finally:
        skip.calibrate = True
    o, l = _fwd_impl(q, k, v, scale, layout, rounding, want_lse, out=out, lse=lse,
                     kv_lengths=kv_lengths, causal=causal)
    record_calibration(skip, o_skip, o)
    return o, l


def _check_out(out, q, p, layout):
    if not isinstance(out, torch.Tensor) or out.dtype != torch.bfloat16 or out.device != q.device:
        raise AttngenError("INVALID_ARGUMENT",
                           f"out must be a bfloat16 tensor on {q.device} (got "
                           f"{getattr(out, 'dtype', type(out))} on {getattr(out, 'device', '-')})")
    """None when out is dense in the plan's memory order, else its strides for the library."""
    if out.dim() != 4 or tuple(_dims(out, layout)) != (p.B, p.Sq, p.H, p.D):
        raise AttngenError("BAD_SHAPE", f"out.shape = {tuple(out.shape)} (need q's shape)")
    if _dense_in(out, layout, p.mem):
        return None
    so = _view_strides(out, layout)
    if so is None:
        raise AttngenError("BAD_LAYOUT", f"out must have a unit-stride last dimension and "
                                         f"other strides that are multiples of 8 elements (or "
                                         f"be dense in q's memory order, {p.mem}); its strides "
                                         f"are {out.stride()}")
    return so


def _check_lse(lse, q, p):
    if not isinstance(lse, torch.Tensor) or lse.dtype != torch.float32 or lse.device != q.device:
        raise AttngenError("INVALID_ARGUMENT", f"lse must be a float32 tensor on {q.device}")
    if tuple(lse.shape) != (p.B, p.H, p.Sq) or not lse.is_contiguous():
        raise AttngenError("BAD_SHAPE", f"lse must be contiguous [B, H, Sq] = "
                                        f"{(p.B, p.H, p.Sq)}; got {tuple(lse.shape)}")


def _fake_outputs(q, k, v, layout, want_lse):
    # the same choice as _fwd_impl: q's own strides when q is dense, else the logical order
    B, Sq, H, D = _dims(q, layout)
    if _memory_layout(q, layout) is not None:
        out = torch.empty_like(q)
    else:
        out = _empty_in((B, Sq, H, D), layout, layout, q, torch.bfloat16)
    lse = q.new_empty((B, H, Sq) if want_lse else (0,), dtype=torch.float32)
    return out, lse


if HAS_CUSTOM_OP:
    from typing import Optional, Tuple

    @torch.library.custom_op("attngen::fwd", mutates_args=())
    def _op_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, layout: str,
                rounding: str, want_lse: bool,
                causal: bool = False) -> Tuple[torch.Tensor, torch.Tensor]:
        out, lse = _fwd_impl(q, k, v, scale, layout, rounding, want_lse, causal=causal)
        if lse is None:
            lse = q.new_empty((0,), dtype=torch.float32)
        return out, lse

    @_op_fwd.register_fake
    def _op_fwd_fake(q, k, v, scale, layout, rounding, want_lse, causal=False):
        return _fake_outputs(q, k, v, layout, want_lse)

    @torch.library.custom_op("attngen::fwd_out", mutates_args=("out", "lse"))
    def _op_fwd_out(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, out: torch.Tensor,
                    lse: Optional[torch.Tensor], scale: float, layout: str,
                    rounding: str, causal: bool = False) -> None:
        _fwd_impl(q, k, v, scale, layout, rounding, lse is not None, out=out, lse=lse,
                  causal=causal)

    @_op_fwd_out.register_fake
    def _op_fwd_out_fake(q, k, v, out, lse, scale, layout, rounding, causal=False):
        return None


def attention(q, k, v, *, scale=None, layout=None, rounding=None, return_lse=False,
              out=None, lse=None, variant=None, kv_lengths=None, causal=False, skip=None):
    """softmax(q k^T * scale) v with attngen's kernels (bf16 in/out; head_dim 64, 128
    or 256 where the backend has kernels of it: README "Head dimension").

    q: [B, Sq, H, D] (layout: the first of attngen._names.LAYOUTS, the default) or
    [B, H, Sq, D] (the second); k, v: the same with Skv. scale defaults to 1/sqrt(D).
    rounding: one of ROUNDINGS (NUMERICS.md; default the first). Returns
    out (q's shape, bf16), or (out, lse) with return_lse=True, lse fp32 [B, H, Sq] natural
    log. out= / lse= write into given tensors (out dense in q's memory order). variant=
    forces a kernel variant by its canonical name (eager calls; JIT-compiled if needed).
    k and v may have fewer heads than q (grouped-query / multi-query attention): heads_kv is
    k's head count, a divisor of q's (else AttngenError BAD_SHAPE naming heads_kv); query
    head h then attends with KV head h // (H // heads_kv), read in place (no repeat, no copy).
    kv_lengths: None, or int32 [B] on q's device: batch entry b uses keys [0, kv_lengths[b])
    only (clamped into [0, Skv]; 0 keys: out = 0, LSE = -inf; eager calls).
    causal: the causal mask, bottom-right aligned (FlashAttention >= 2.1): query i of an
    entry with n keys sees keys j <= i + n - Sq; a row that sees none gets out = 0 and
    LSE = -inf. On the cpu backend and the NVIDIA kernels; the AMD kernels refuse it:
    AttngenError NO_VARIANT naming args.causal.
    skip: None, or an attngen.SkipState (temporal tile skipping, docs/NUMERICS.md "Tile
    skipping"): the call reads the list the state's previous call wrote, skips those tiles
    and writes the next list (eager calls; only kernels that skip run it: AttngenError
    NO_VARIANT naming args.skip otherwise; the cpu backend always skips)."""
    layout, rounding = _defaults(layout, rounding)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    scale = float(scale)
    want = bool(return_lse) or lse is not None
    fast = (not HAS_CUSTOM_OP) or variant is not None or kv_lengths is not None or (
        skip is not None) or (
        type(q) is torch.Tensor and type(k) is torch.Tensor and type(v) is torch.Tensor
        and not _is_compiling())
    if fast:
        o, l = _fwd_impl(q, k, v, scale, layout, rounding, want, out=out, lse=lse,
                         variant=variant, kv_lengths=kv_lengths, causal=causal, skip=skip)
        return (o, l) if return_lse else o
    _check_names(layout, rounding)
    if out is not None:
        if want and lse is None:
            lse = q.new_empty((q.shape[0], q.shape[2] if layout == _names.SEQ_MAJOR else q.shape[1],
                               q.shape[1] if layout == _names.SEQ_MAJOR else q.shape[2]),
                              dtype=torch.float32)
        torch.ops.attngen.fwd_out(q, k, v, out, lse if want else None, scale, layout, rounding,
                                  bool(causal))
        return (out, lse) if return_lse else out
    o, l = torch.ops.attngen.fwd(q, k, v, scale, layout, rounding, want, bool(causal))
    if lse is not None:  # the caller's lse without an out: filled from the functional op
        lse.copy_(l)
        l = lse
    return (o, l) if return_lse else o


def _check_cu(name, cu, q, batch=None):
    """A cu_seqlens tensor as the contiguous int32 [B + 1] tensor the library reads."""
    if not isinstance(cu, torch.Tensor):
        raise AttngenError("INVALID_ARGUMENT", f"{name} is a {type(cu).__name__} (allowed: an "
                                               "int32 tensor [B + 1])")
    if cu.dtype != torch.int32:
        raise AttngenError("INVALID_ARGUMENT", f"{name}.dtype = {cu.dtype} (allowed: torch.int32)")
    if cu.device != q.device:
        raise AttngenError("INVALID_ARGUMENT", f"{name} is on {cu.device} (allowed: q's device "
                                               f"{q.device}; attngen never copies between devices)")
    if cu.dim() != 1 or cu.shape[0] < 2 or (batch is not None and cu.shape[0] != batch + 1):
        want = f"({batch + 1},) like cu_seqlens_q" if batch is not None else "(B + 1,), B >= 1"
        raise AttngenError("BAD_SHAPE", f"{name}.shape = {tuple(cu.shape)} (allowed: {want})")
    return cu.contiguous()


def _check_packed(q, k, v):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise AttngenError("INVALID_ARGUMENT", f"{name} is a {type(t).__name__}, not a tensor")
        if t.dim() != 3:
            raise AttngenError("BAD_SHAPE", f"{name} has {t.dim()} dimensions (allowed: 3, "
                                            "packed [total, H, D] rows)")
        if t.dtype != torch.bfloat16:
            raise AttngenError("INVALID_ARGUMENT",
                               f"{name}.dtype = {t.dtype} (allowed: torch.bfloat16)")
    if not (q.device == k.device == v.device):
        raise AttngenError("INVALID_ARGUMENT",
                           f"q, k, v are on {q.device}, {k.device}, {v.device}: they must be on "
                           "one device (attngen never copies between devices)")
    if tuple(k.shape) != tuple(v.shape):
        raise AttngenError("BAD_SHAPE", f"k.shape = {tuple(k.shape)} and v.shape = "
                                        f"{tuple(v.shape)} differ")
    if k.shape[2] != q.shape[2]:
        raise AttngenError("BAD_SHAPE", f"q.shape = {tuple(q.shape)} and k.shape = "
                                        f"{tuple(k.shape)} disagree on head_dim")
    Hq, Hk = q.shape[1], k.shape[1]
    if Hk != Hq and (Hk < 1 or Hq % Hk != 0):
        raise AttngenError("BAD_SHAPE", f"k and v have {Hk} heads and q has {Hq} (heads_kv = "
                                        f"{Hk}; allowed: a divisor of q's heads)")


def _packed_rows(t):
    """(t, strides): t read in place with its (sS, sH) strides as the library's {0, sS, sH}
    when its last dimension is unit-stride and the others are multiples of 8 elements (rows of
    a fused [total, 3, H, D] qkv, heads padded apart), None for rows of [H, D] packed back to
    back; else a contiguous copy and None."""
    total, H, D = t.shape
    if D <= 1 or t.stride(2) == 1:
        if (t.stride(1) == D or H <= 1) and (total <= 1 or t.stride(0) == H * D):
            return t, None
        st = [0]
        for n, s in ((total, t.stride(0)), (H, t.stride(1))):
            if n == 1:
                s = 0
            elif s <= 0 or s % 8:
                return t.contiguous(), None
            st.append(s)
        return t, tuple(st)
    return t.contiguous(), None


def varlen_attention(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, *,
                     causal=False, scale=None, rounding=None, return_lse=False, variant=None,
                     kv_lengths=None):
    """Packed variable-length attention (FlashAttention's varlen convention).

    q: [total_q, H, D], k and v: [total_k, H_kv, D] (H_kv dividing H: grouped-query), bf16;
    cu_seqlens_q / cu_seqlens_k: int32 [B + 1] on q's device, sequence b's rows are
    [cu[b], cu[b + 1]); max_seqlen_q / max_seqlen_k: the largest lengths (ints). Each sequence
    is computed exactly as attention() on its own rows (causal bottom-right aligned per
    sequence; a sequence without keys gets out = 0, LSE = -inf). Returns out [total_q, H, D]
    bf16 (rows no sequence covers are left as allocated), or (out, lse) with lse fp32
    [H, total_q]. kv_lengths (int32 [B], FlashAttention-3's seqused_k): sequence b uses the
    first min(its key length, kv_lengths[b]) keys. On CPU tensors the cu_seqlens are checked
    fully (attngen_check_cu_seqlens: start 0, non-decreasing, ending at the totals, lengths
    <= the maxima; AttngenError INVALID_ARGUMENT naming the array and index); on a GPU they
    are not read (no host sync): the kernels assume those rules and clamp whatever they hold
    (README). rounding: one of ROUNDINGS (default the first, as attention()). Runs on the cpu
    backend and the NVIDIA kernels; the AMD kernels refuse it (AttngenError NO_VARIANT naming
    args.cu_seqlens_q). Eager only (no torch.ops op)."""
    _check_no_grad(q, k, v)
    _check_packed(q, k, v)
    layout, rounding = _defaults(None, rounding)
    _check_names(layout, rounding)
    cu_seqlens_q = _check_cu("cu_seqlens_q", cu_seqlens_q, q)
    B = cu_seqlens_q.shape[0] - 1
    cu_seqlens_k = _check_cu("cu_seqlens_k", cu_seqlens_k, q, B)
    for name, m in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
        if isinstance(m, bool) or not isinstance(m, int) or m < 0:
            raise AttngenError("INVALID_ARGUMENT", f"{name} = {m!r} (allowed: an int >= 0, the "
                                                   "largest sequence length)")
    if kv_lengths is not None:
        kv_lengths = _check_kv_lengths(kv_lengths, q, B)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    scale = float(scale)
    if not math.isfinite(scale):
        raise AttngenError("BAD_SCALE", f"scale = {scale} is not finite")
    total_q, H, D = q.shape
    total_k, Hk = k.shape[0], k.shape[1]
    ctx = get_context(q.device)
    if q.device.type == "cpu":
        st = ctx.lib.attngen_check_cu_seqlens(cu_seqlens_q.data_ptr(), cu_seqlens_k.data_ptr(),
                                              B, total_q, total_k, max_seqlen_q, max_seqlen_k)
        if st != 0:
            _lib.raise_status(ctx.lib, st, "varlen_attention")
    (q, sq), (k, sk), (v, sv) = _packed_rows(q), _packed_rows(k), _packed_rows(v)
    out = torch.empty((total_q, H, D), dtype=torch.bfloat16, device=q.device)
    lse = (torch.empty((H, total_q), dtype=torch.float32, device=q.device)
           if return_lse else None)
    if total_q == 0 or max_seqlen_q == 0:  # no query row: nothing to compute
        return (out, lse) if return_lse else out
    a = ctx.new_args()
    a.batch, a.heads, a.seqlen_q, a.seqlen_kv, a.head_dim = B, H, max_seqlen_q, max_seqlen_k, D
    a.heads_kv = Hk
    a.total_q, a.total_kv = total_q, total_k
    a.layout = _names.layout_code(layout)
    a.rounding = _names.rounding_code(rounding)
    a.softmax_scale = scale
    a.causal = 1 if causal else 0
    vb = variant.encode() if variant else None
    a.variant = vb
    a.q, a.k, a.v, a.out = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr()
    for field, st in (("q_strides", sq), ("k_strides", sk), ("v_strides", sv)):
        if st is not None:  # a strided view read in place
            getattr(a, field)[:] = st
    a.lse = lse.data_ptr() if lse is not None else None
    a.cu_seqlens_q, a.cu_seqlens_k = cu_seqlens_q.data_ptr(), cu_seqlens_k.data_ptr()
    if kv_lengths is not None:
        a.kv_lengths = kv_lengths.data_ptr()
    if q.device.type == "cuda":
        a.stream = (_raw_stream(q.get_device()) if _raw_stream is not None
                    else torch.cuda.current_stream(q.device).cuda_stream)
    ws_bytes = ctx.explain(a)["workspace_bytes"]
    ws = None
    if ws_bytes:  # (no packed-batch variant splits today; kept general)
        ws = torch.empty(ws_bytes + 16, dtype=torch.uint8, device=q.device)
        addr = ws.data_ptr()
        a.workspace, a.workspace_bytes = addr + (-addr) % 16, ws_bytes
    ctx.prepare(a)
    ctx.fwd(a)
    del ws
    return (out, lse) if return_lse else out


def prepare(q, k, v, *, scale=None, layout=None, rounding=None, variant=None, causal=False):
    """Plans the call attention(q, k, v, ...) would make and loads (or JIT-compiles) its
    variant, without running it: call before capturing a CUDA graph. Returns attngen's
    explanation of the choice (variant, rule, reason, workspace_bytes, ...)."""
    layout, rounding = _defaults(layout, rounding)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    p, key = _plan_for(q, k, v, float(scale), layout, rounding, variant, bool(causal))
    a = _lib.FwdArgs.from_buffer_copy(p.template)
    a.stream = _stream_of(p, q)
    a.workspace_bytes = 0
    if not p.empty:
        p.ctx.prepare(a)
        _prepared.add(key)
    return p.ctx.explain(a)


def explain(q, k, v, *, scale=None, layout=None, rounding=None, variant=None, causal=False):
    """Which variant attention(q, k, v, ...) runs and why (nothing is loaded or run); causal as
    attention's (a causal call runs a causal variant, or a tuning record of causal calls)."""
    layout, rounding = _defaults(layout, rounding)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    p, _ = _plan_for(q, k, v, float(scale), layout, rounding, variant, bool(causal))
    a = _lib.FwdArgs.from_buffer_copy(p.template)
    return p.ctx.explain(a)

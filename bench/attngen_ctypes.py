"""attngen_ctypes.py: a thin ctypes layer over libattngen (runtime/include/attngen.h) for
Python benchmarks: load the library, create a context, run attngen_fwd on torch tensors
(device pointers from data_ptr(), the caller's CUDA stream), ask which variant runs.

The structs below mirror attngen.h field by field; keep them in step with it.
"""
import ctypes
import os

LAYOUTS = {"bshd": 0, "bhsd": 1}
ROUNDINGS = {"rtne": 0, "rtna": 1, "rtz": 2}


class ContextOptions(ctypes.Structure):
    _fields_ = [("backend", ctypes.c_char_p), ("device", ctypes.c_int)]


class FwdArgs(ctypes.Structure):
    _fields_ = [
        ("q", ctypes.c_void_p), ("k", ctypes.c_void_p), ("v", ctypes.c_void_p),
        ("out", ctypes.c_void_p), ("lse", ctypes.c_void_p),
        ("batch", ctypes.c_int), ("heads", ctypes.c_int), ("seqlen_q", ctypes.c_int),
        ("seqlen_kv", ctypes.c_int), ("head_dim", ctypes.c_int),
        ("layout", ctypes.c_int), ("rounding", ctypes.c_int),
        ("softmax_scale", ctypes.c_float),
        ("stream", ctypes.c_void_p),
        ("variant", ctypes.c_char_p),
    ]


class Choice(ctypes.Structure):
    _fields_ = [
        ("variant", ctypes.c_char * 128),
        ("rule", ctypes.c_int),
        ("rule_name", ctypes.c_char_p),
        ("reason", ctypes.c_char * 512),
        ("embedded", ctypes.c_int), ("needs_jit", ctypes.c_int), ("loaded", ctypes.c_int),
        ("grid", ctypes.c_uint * 3),
        ("threads", ctypes.c_int), ("smem_bytes", ctypes.c_int),
        ("num_splits", ctypes.c_int),
        ("workspace_bytes", ctypes.c_size_t),
    ]


class AttngenError(RuntimeError):
    pass


def find_library(path=None):
    """The library path: the argument, else $ATTNGEN_LIB, else the usual build folders."""
    if path:
        return path
    env = os.environ.get("ATTNGEN_LIB")
    if env:
        return env
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for build in ("build", "build-lead", "build-release"):
        candidate = os.path.join(root, build, "libattngen.so")
        if os.path.exists(candidate):
            return candidate
    raise AttngenError("libattngen.so not found: pass --lib PATH or set ATTNGEN_LIB")


class Attngen:
    """One attngen context on one device."""

    def __init__(self, lib_path=None, backend="cuda", device=0):
        self.lib = ctypes.CDLL(find_library(lib_path))
        lib = self.lib
        lib.attngen_create.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                       ctypes.POINTER(ContextOptions)]
        lib.attngen_create.restype = ctypes.c_int
        lib.attngen_destroy.argtypes = [ctypes.c_void_p]
        lib.attngen_destroy.restype = None
        lib.attngen_fwd_args_init.argtypes = [ctypes.POINTER(FwdArgs)]
        lib.attngen_fwd_args_init.restype = None
        lib.attngen_fwd.argtypes = [ctypes.c_void_p, ctypes.POINTER(FwdArgs)]
        lib.attngen_fwd.restype = ctypes.c_int
        lib.attngen_explain.argtypes = [ctypes.c_void_p, ctypes.POINTER(FwdArgs),
                                        ctypes.POINTER(Choice)]
        lib.attngen_explain.restype = ctypes.c_int
        lib.attngen_last_error.argtypes = []
        lib.attngen_last_error.restype = ctypes.c_char_p
        lib.attngen_status_name.argtypes = [ctypes.c_int]
        lib.attngen_status_name.restype = ctypes.c_char_p
        lib.attngen_version.argtypes = []
        lib.attngen_version.restype = ctypes.c_char_p
        self.ctx = ctypes.c_void_p()
        opts = ContextOptions(backend.encode(), device)
        self._check(lib.attngen_create(ctypes.byref(self.ctx), ctypes.byref(opts)),
                    "attngen_create")
        self.version = lib.attngen_version().decode()

    def _check(self, status, what):
        if status != 0:
            name = self.lib.attngen_status_name(status).decode()
            text = self.lib.attngen_last_error().decode()
            raise AttngenError(f"{what}: {name}: {text}")

    def close(self):
        if self.ctx:
            self.lib.attngen_destroy(self.ctx)
            self.ctx = ctypes.c_void_p()

    def args(self, q, k, v, out, layout="bshd", rounding="rtne", softmax_scale=None,
             lse=None, stream=None, variant=None):
        """FwdArgs for torch tensors q, k, v, out (bf16, dense in `layout`)."""
        a = FwdArgs()
        self.lib.attngen_fwd_args_init(ctypes.byref(a))
        if layout == "bshd":
            batch, seqlen_q, heads, head_dim = q.shape
            seqlen_kv = k.shape[1]
        else:
            batch, heads, seqlen_q, head_dim = q.shape
            seqlen_kv = k.shape[2]
        a.q, a.k, a.v, a.out = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr()
        a.lse = lse.data_ptr() if lse is not None else None
        a.batch, a.heads, a.seqlen_q, a.seqlen_kv, a.head_dim = (
            batch, heads, seqlen_q, seqlen_kv, head_dim)
        a.layout = LAYOUTS[layout]
        a.rounding = ROUNDINGS[rounding]
        if softmax_scale is not None:
            a.softmax_scale = softmax_scale
        a.stream = stream
        a.variant = variant.encode() if variant else None
        return a

    def fwd_args(self, a):
        """Launches attngen_fwd with prepared FwdArgs (no synchronization)."""
        self._check(self.lib.attngen_fwd(self.ctx, ctypes.byref(a)), "attngen_fwd")

    def fwd(self, q, k, v, out, **kw):
        """out <- attention(q, k, v) on the current torch stream unless stream= is given."""
        if kw.get("stream") is None:
            import torch
            kw["stream"] = torch.cuda.current_stream().cuda_stream
        self.fwd_args(self.args(q, k, v, out, **kw))

    def explain(self, a):
        """(variant, rule name, reason) that attngen_fwd would use for FwdArgs a."""
        c = Choice()
        self._check(self.lib.attngen_explain(self.ctx, ctypes.byref(a), ctypes.byref(c)),
                    "attngen_explain")
        return (c.variant.decode(), (c.rule_name or b"").decode(), c.reason.decode())

"""ctypes binding of libattngen (runtime/include/attngen.h); no torch needed here.

The structs mirror attngen.h field by field; test_lib.py checks them against the header.
The library is found, in order: $ATTNGEN_LIB, the copy bundled in the package
(attngen/_lib/libattngen.so, with liblua5.4.so.0 beside it when bundled), the build folders
of a source checkout (build/, build-*/), then the system's library path.
"""
import ctypes
import ctypes.util
import glob
import os
import threading


class ContextOptions(ctypes.Structure):
    _fields_ = [("backend", ctypes.c_char_p), ("device", ctypes.c_int)]


class DeviceProps(ctypes.Structure):
    _fields_ = [
        ("backend", ctypes.c_char * 16),
        ("name", ctypes.c_char * 256),
        ("arch", ctypes.c_char * 64),
        ("compute_units", ctypes.c_int),
        ("device", ctypes.c_int),
        ("device_count", ctypes.c_int),
        ("driver_version", ctypes.c_int),
        ("total_memory", ctypes.c_size_t),
        ("target", ctypes.c_char_p),
    ]


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
        ("workspace", ctypes.c_void_p),
        ("workspace_bytes", ctypes.c_size_t),
        ("kv_lengths", ctypes.c_void_p),
        ("causal", ctypes.c_int),
        ("heads_kv", ctypes.c_int),
        ("cu_seqlens_q", ctypes.c_void_p), ("cu_seqlens_k", ctypes.c_void_p),
        ("total_q", ctypes.c_int), ("total_kv", ctypes.c_int),
        ("skip", ctypes.c_void_p),
        # element strides {batch, sequence, head}; all 0 = dense in `layout`
        ("q_strides", ctypes.c_int64 * 3), ("k_strides", ctypes.c_int64 * 3),
        ("v_strides", ctypes.c_int64 * 3), ("out_strides", ctypes.c_int64 * 3),
    ]


class SkipInfo(ctypes.Structure):
    _fields_ = [
        ("batch", ctypes.c_int), ("heads", ctypes.c_int), ("seqlen_q", ctypes.c_int),
        ("seqlen_kv", ctypes.c_int),
        ("block_m", ctypes.c_int), ("block_n", ctypes.c_int),
        ("q_tiles", ctypes.c_int), ("kv_tiles", ctypes.c_int),
        ("words_per_q_tile", ctypes.c_int),
        ("words", ctypes.c_size_t),
        ("threshold_log2", ctypes.c_float),
        ("variant", ctypes.c_char * 128),
        ("calls", ctypes.c_longlong),
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
    """A call attngen refused. `status` is attngen's status name ("BAD_SHAPE", ...)."""

    def __init__(self, status, message):
        self.status = status
        self.message = message
        super().__init__(f"{status}: {message}")


_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


def library_candidates():
    """Where the library is looked for, in order (existing files only, after $ATTNGEN_LIB)."""
    out = []
    env = os.environ.get("ATTNGEN_LIB")
    if env:
        return [env]
    bundled = os.path.join(_PKG_DIR, "_lib", "libattngen.so")
    if os.path.exists(bundled):
        out.append(bundled)
    root = os.path.dirname(os.path.dirname(_PKG_DIR))  # repo root for a source checkout
    for build in ["build"] + sorted(glob.glob(os.path.join(root, "build-*"))):
        cand = os.path.join(root, build, "libattngen.so")
        if os.path.exists(cand):
            out.append(cand)
    sys_lib = ctypes.util.find_library("attngen")
    if sys_lib:
        out.append(sys_lib)
    return out


_lib = None
_lib_path = None
_lib_lock = threading.Lock()


# Entry points a library built before them lacks (bench.py loads older builds side by side).
_OPTIONAL = {"attngen_build_id"}


def build_id(lib):
    """The git commit the library was built from (attngen_build_id), "unknown" if it has none."""
    return lib.attngen_build_id().decode() if hasattr(lib, "attngen_build_id") else "unknown"


def _declare(lib):
    c_int, c_void_p, c_char_p = ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p
    sigs = {
        "attngen_create": (c_int, [ctypes.POINTER(c_void_p), ctypes.POINTER(ContextOptions)]),
        "attngen_destroy": (None, [c_void_p]),
        "attngen_device_info": (c_int, [c_void_p, ctypes.POINTER(DeviceProps)]),
        "attngen_fwd_args_init": (None, [ctypes.POINTER(FwdArgs)]),
        "attngen_fwd": (c_int, [c_void_p, ctypes.POINTER(FwdArgs)]),
        "attngen_prepare": (c_int, [c_void_p, ctypes.POINTER(FwdArgs)]),
        "attngen_explain": (c_int, [c_void_p, ctypes.POINTER(FwdArgs), ctypes.POINTER(Choice)]),
        "attngen_last_error": (c_char_p, []),
        "attngen_status_name": (c_char_p, [c_int]),
        "attngen_status_string": (c_char_p, [c_int]),
        "attngen_version": (c_char_p, []),
        "attngen_build_id": (c_char_p, []),
        "attngen_enum_name": (c_char_p, [c_char_p, c_int]),
        "attngen_synchronize": (c_int, [c_void_p, c_void_p]),
        "attngen_time_fwd": (c_int, [c_void_p, ctypes.POINTER(FwdArgs), c_int,
                                     ctypes.POINTER(ctypes.c_float)]),
        "attngen_check_cu_seqlens": (c_int, [c_void_p, c_void_p, c_int, c_int, c_int, c_int,
                                             c_int]),
        "attngen_skip_state_create": (c_int, [c_void_p, ctypes.POINTER(FwdArgs), c_int, c_int,
                                              ctypes.c_float, ctypes.POINTER(c_void_p)]),
        "attngen_skip_state_destroy": (None, [c_void_p]),
        "attngen_skip_state_reset": (c_int, [c_void_p]),
        "attngen_skip_state_set_threshold": (c_int, [c_void_p, ctypes.c_float]),
        "attngen_skip_state_set_list": (c_int, [c_void_p, c_int, c_void_p]),
        "attngen_skip_state_get_list": (c_int, [c_void_p, c_int, c_void_p]),
        "attngen_skip_state_info": (c_int, [c_void_p, ctypes.POINTER(SkipInfo)]),
        "attngen_skip_state_stats": (c_int, [c_void_p, ctypes.POINTER(ctypes.c_uint64),
                                             ctypes.POINTER(ctypes.c_uint64),
                                             ctypes.POINTER(ctypes.c_double)]),
    }
    for name, (res, args) in sigs.items():
        if name in _OPTIONAL and not hasattr(lib, name):
            continue  # (an older library: build_id() says "unknown")
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


def load(path=None):
    """The loaded library (ctypes.CDLL), loading it on first use."""
    global _lib, _lib_path
    if _lib is not None and path in (None, _lib_path):
        return _lib
    with _lib_lock:
        if _lib is not None and path in (None, _lib_path):
            return _lib
        cands = [path] if path else library_candidates()
        if not cands:
            raise AttngenError(
                "NO_BACKEND",
                "libattngen.so not found: set ATTNGEN_LIB=/path/to/libattngen.so, or install "
                "the package from a tree where build/libattngen.so exists (it is bundled then)")
        errors = []
        for cand in cands:
            lua = os.path.join(os.path.dirname(cand), "liblua5.4.so.0")
            try:
                if os.path.exists(lua):  # bundled beside it: satisfy the dependency first
                    ctypes.CDLL(lua, mode=ctypes.RTLD_GLOBAL)
                lib = ctypes.CDLL(cand)
                _declare(lib)
            except (OSError, AttributeError) as e:
                errors.append(f"{cand}: {e}")
                continue
            _lib, _lib_path = lib, cand
            return lib
        raise AttngenError("NO_BACKEND", "libattngen.so could not be loaded: " + "; ".join(errors))


def library_path():
    load()
    return _lib_path


def raise_status(lib, status, what):
    name = lib.attngen_status_name(status).decode()
    text = lib.attngen_last_error().decode()
    raise AttngenError(name, f"{what}: {text}" if text else what)


class Context:
    """One attngen context (one backend, one device). Created once, kept for the process."""

    def __init__(self, backend, device=0, lib_path=None):
        self.lib = load(lib_path)
        self.backend = backend
        self.device = device
        self.ptr = ctypes.c_void_p()
        opts = ContextOptions(backend.encode(), device)
        st = self.lib.attngen_create(ctypes.byref(self.ptr), ctypes.byref(opts))
        if st != 0:
            raise_status(self.lib, st, f"attngen_create(backend={backend!r}, device={device})")
        props = DeviceProps()
        st = self.lib.attngen_device_info(self.ptr, ctypes.byref(props))
        if st != 0:
            raise_status(self.lib, st, "attngen_device_info")
        self.props = {
            "backend": props.backend.decode(), "name": props.name.decode(),
            "arch": props.arch.decode(), "compute_units": props.compute_units,
            "device": props.device, "device_count": props.device_count,
            "driver_version": props.driver_version, "total_memory": props.total_memory,
            "target": (props.target or b"").decode(),
        }
        self._fwd = self.lib.attngen_fwd
        self.version = self.lib.attngen_version().decode()
        self.build_id = build_id(self.lib)

    def close(self):
        if self.ptr:
            self.lib.attngen_destroy(self.ptr)
            self.ptr = ctypes.c_void_p()

    def new_args(self):
        a = FwdArgs()
        self.lib.attngen_fwd_args_init(ctypes.byref(a))
        return a

    def fwd(self, a):
        """attngen_fwd with prepared FwdArgs (launches on a.stream, never synchronizes)."""
        st = self._fwd(self.ptr, ctypes.byref(a))
        if st != 0:
            raise_status(self.lib, st, "attngen_fwd")

    def prepare(self, a):
        st = self.lib.attngen_prepare(self.ptr, ctypes.byref(a))
        if st != 0:
            raise_status(self.lib, st, "attngen_prepare")

    def explain(self, a):
        c = Choice()
        st = self.lib.attngen_explain(self.ptr, ctypes.byref(a), ctypes.byref(c))
        if st != 0:
            raise_status(self.lib, st, "attngen_explain")
        return {
            "variant": c.variant.decode(), "rule": (c.rule_name or b"").decode(),
            "reason": c.reason.decode(), "embedded": bool(c.embedded),
            "needs_jit": bool(c.needs_jit), "loaded": bool(c.loaded),
            "grid": tuple(c.grid), "threads": c.threads, "smem_bytes": c.smem_bytes,
            "num_splits": c.num_splits, "workspace_bytes": c.workspace_bytes,
        }

    def time_fwd(self, a, iters):
        ms = ctypes.c_float()
        st = self.lib.attngen_time_fwd(self.ptr, ctypes.byref(a), iters, ctypes.byref(ms))
        if st != 0:
            raise_status(self.lib, st, "attngen_time_fwd")
        return ms.value

"""attngen: generated bf16 forward attention (head_dim 64, 128, 256) for PyTorch.

    import attngen
    out = attngen.attention(q, k, v)                      # [B, S, H, D] bf16
    out, lse = attngen.attention(q, k, v, layout=attngen.LAYOUTS[1], return_lse=True)
    out = attngen.varlen_attention(q, k, v, cu_q, cu_k, max_q, max_k)   # packed [T, H, D]

The package loads libattngen.so with ctypes (no compiled extension): the copy bundled at
install time, or $ATTNGEN_LIB. Framework backends: attngen.integrations.{diffusers, sglang,
xdit, yunchang}; context parallelism on torch.distributed: attngen.distributed.
"""
from . import _names
from ._lib import AttngenError, build_id as _lib_build_id, library_path, load as load_library
from .merge import merge_partials, Merger
from .ops import (HAS_CUSTOM_OP, attention, clear_plans, explain, get_context, prepare,
                  set_cpu_backend, varlen_attention)
from .skip import SkipState

__all__ = [
    "AttngenError", "HAS_CUSTOM_OP", "LAYOUTS", "ROUNDINGS", "Merger", "attention", "clear_plans", "explain", "get_context", "info",
    "library_path", "load_library", "merge_partials", "prepare", "ring_attention",
    "set_cpu_backend", "SkipState", "ulysses_attention", "usp_attention", "varlen_attention",
]


def info():
    """A dict: library path, version and build (the git commit it was built from), torch
    version, whether the op is a registered torch.library custom op, and the devices attngen
    sees (cuda/hip when torch has a GPU)."""
    import torch
    lib = load_library()
    d = {
        "attngen": lib.attngen_version().decode(),
        "build": _lib_build_id(lib),
        "package": _package_version(),
        "library": library_path(),
        "torch": torch.__version__,
        "custom_op": HAS_CUSTOM_OP,
        "cpu_backend": __import__("attngen.ops", fromlist=["_cpu_backend"])._cpu_backend,
    }
    devices = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            try:
                devices.append(get_context(torch.device("cuda", i)).props)
            except AttngenError as e:
                devices.append({"device": i, "error": str(e)})
    d["devices"] = devices
    return d


def _package_version():
    """The installed distribution's version (setup.py takes it from attngen.h), else the
    library's: the version is written once, in runtime/include/attngen.h."""
    try:
        from importlib.metadata import PackageNotFoundError, version
        return version("attngen")
    except (ImportError, PackageNotFoundError):
        return _names.VERSION


def __getattr__(name):  # lazy: the library is read and torch.distributed imported when used
    if name == "__version__":
        return _package_version()
    if name in ("LAYOUTS", "ROUNDINGS", "STATUSES"):
        return getattr(_names, name)
    if name in ("ring_attention", "ulysses_attention", "usp_attention", "distributed"):
        import importlib
        distributed = importlib.import_module("attngen.distributed")
        return distributed if name == "distributed" else getattr(distributed, name)
    raise AttributeError(f"module 'attngen' has no attribute {name!r}")

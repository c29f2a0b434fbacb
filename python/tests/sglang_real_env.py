"""Loads the real SGLang multimodal_gen source (a folder holding the `sglang` package) with
the third-party packages it imports but the attention path never calls stubbed: shared by
test_sglang_real.py and sglang_ring_worker.py. A stub is an empty module whose attributes are
inert placeholders, handed only to importers inside sglang, and only for a package that cannot
be imported; sglang.srt (SGLang's LLM runtime, reached at import time through multimodal_gen's
quantization and config modules) is stubbed but for sglang.srt.utils.common and its
module-level imports (_REAL_IN_BOUNDARY: the ring path reads torch_release there)."""
import abc
import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import types

import torch

_THIRD_PARTY = {
    # name: who imports it at module level (none of it runs on the attention path)
    "IPython": "sglang.utils (notebook helpers)",
    "PIL": "pipeline configs, vision utils (image I/O)",
    "addict": "server_args (attention_backend_config type)",
    "aiohttp": "sglang.lang runtime endpoint (HTTP client)",
    "amdsmi": "platforms (ROCm device query)",
    "av": "denoising_av stage (audio/video I/O)",
    "cache_dit": "cache-dit acceleration hooks",
    "cloudpickle": "multimodal_gen.utils (worker pickling)",
    "cv2": "mesh3d utils",
    "diffusers": "pipeline configs, schedulers, loaders (model loading)",
    "einops": "pipeline configs",
    "fastapi": "HTTP entrypoints",
    "flash_attn": "FlashAttention backend (optional FA2 import)",
    "httpx": "HTTP entrypoints",
    "huggingface_hub": "hf download utils",
    "imageio": "vision utils (video I/O)",
    "imageio_ffmpeg": "entrypoint utils (video I/O)",
    "pybase64": "sglang.utils",
    "pydantic": "sglang.utils, entrypoint protocol",
    "psutil": "CUDA platform (host memory query)",
    "pymtml": "platforms (MUSA device query)",
    "runai_model_streamer": "weight loading",
    "safetensors": "weight loading, nunchaku config",
    "scipy": "entrypoint utils (audio I/O)",
    "orjson": "sglang.srt.utils.common (JSON responses)",
    "setproctitle": "process naming",
    "setuptools_scm": "sglang.version",
    "sgl_kernel": "runtime utils (CUDA kernels)",
    "spas_sage_attn": "sparse sage attention backend",
    "starlette": "sglang.srt.utils.common (HTTP middleware)",
    "sphinx": "CUDA platform (doc-build mock detection)",
    "torch_musa": "distributed group coordinator (MUSA)",
    "torchcodec": "sglang.srt.utils.video_decoder (video decoding)",
    "torchvision": "pipeline stages (image transforms)",
    "tqdm": "sglang.lang interpreter, weight loading (progress bars)",
    "transformers": "component loader (text encoders)",
    "trimesh": "mesh3d utils",
    "triton": "kernels of other backends (its runtime is absent: triton-less CPU fallbacks)",
    "uvicorn": "HTTP server",
    "zmq": "runtime utils (IPC)",
}
_BOUNDARY = ("sglang.srt",)
# real inside the boundary: layers/usp.py (ring attention) takes torch_release from
# sglang.srt.utils.common; these are that module and what it imports at module level
_REAL_IN_BOUNDARY = {"sglang.srt", "sglang.srt.utils", "sglang.srt.utils.common",
                     "sglang.srt.environ", "sglang.srt.observability",
                     "sglang.srt.observability.func_timer", "sglang.srt.utils.video_decoder"}


class _Placeholder(abc.ABCMeta):
    """An inert stand-in for any attribute of a stubbed module: usable as a base class,
    a decorator (returns the function), a type annotation, a container that is empty."""

    def __new__(mcs, name, bases=(), ns=None, **kw):
        return super().__new__(mcs, name, bases, dict(ns or {}))

    def __init__(cls, name, bases=(), ns=None, **kw):
        super().__init__(name, bases, dict(ns or {}))

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _placeholder(f"{cls.__name__}.{name}")

    def __call__(cls, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]
        return _placeholder(cls.__name__ + "()")

    def __getitem__(cls, k):
        return cls

    def __or__(cls, o):
        return cls

    __ror__ = __or__

    def __iter__(cls):
        return iter(())

    def __bool__(cls):
        return False

    def __setitem__(cls, k, v):
        pass

    def __contains__(cls, k):
        return False

    def __len__(cls):
        return 0

    def __enter__(cls):
        return cls

    def __exit__(cls, *a):
        return False


def _placeholder(name):
    return _Placeholder(name, (), {})


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if self.__name__ == "triton" and name == "runtime":
            raise AttributeError(name)  # no driver: SGLang's code falls back to "cpu"
        v = _placeholder(f"{self.__name__}.{name}")
        setattr(self, name, v)
        return v


class _Stubber(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self):
        # ATTNGEN_SGLANG_STUB=a,b: stub these third-party packages even where installed (the
        # H200 machine's transformers imports but fails on AutoImageProcessor: no torchcodec)
        forced = {t for t in os.environ.get("ATTNGEN_SGLANG_STUB", "").split(",") if t}
        self.stub_tops = {t for t in _THIRD_PARTY
                          if t in forced or importlib.machinery.PathFinder.find_spec(t) is None}
        self.made = set()

    def find_spec(self, fullname, path, target=None):
        if fullname not in _REAL_IN_BOUNDARY and any(
                fullname == b or fullname.startswith(b + ".") for b in _BOUNDARY):
            self.made.add(fullname)
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        top = fullname.split(".")[0]
        if top not in self.stub_tops:
            return None
        f = sys._getframe(1)
        while f is not None and f.f_code.co_filename.startswith("<frozen"):
            f = f.f_back
        importer = f.f_globals.get("__name__", "") if f is not None else ""
        if importer.startswith("sglang") or top in self.made:
            return self._spec(fullname)
        return None

    def _spec(self, fullname):
        self.made.add(fullname.split(".")[0])
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        m.__version__ = "0.0.0"
        return m

    def exec_module(self, module):
        pass


def _dynamo_config_shim():
    """torch < 2.7 has no torch._dynamo.config.recompile_limit, which SGLang's LoRA layer
    module sets at import (a compile-cache knob, nothing on the attention path): on such a
    torch the setting is accepted and ignored. torch >= 2.7: nothing is changed."""
    cfg = torch._dynamo.config
    if hasattr(cfg, "recompile_limit"):
        return
    cls = type(cfg)
    if getattr(cls, "_attngen_shim", False):
        return
    orig = cls.__setattr__

    def setattr_(self, name, value):
        if self is cfg and name == "recompile_limit":
            return
        orig(self, name, value)

    cls.__setattr__ = setattr_
    cls._attngen_shim = True


def load(src):
    """Puts src on sys.path behind the stubs and imports the attention path. Returns a
    namespace of the real modules and the stubber (for unload)."""
    _dynamo_config_shim()
    before = set(sys.modules)
    stubber = _Stubber()
    sys.meta_path.insert(0, stubber)
    sys.path.insert(0, src)
    ns = types.SimpleNamespace(stubber=stubber, before=before, src=src)
    imp = importlib.import_module
    base = "sglang.multimodal_gen.runtime"
    ns.layer = imp(base + ".layers.attention.layer")
    ns.selector = imp(base + ".layers.attention.selector")
    ns.ab = imp(base + ".layers.attention.backends.attention_backend")
    ns.sdpa = imp(base + ".layers.attention.backends.sdpa")
    ns.fc = imp(base + ".managers.forward_context")
    ns.platforms = imp(base + ".platforms")
    ns.ps = imp(base + ".distributed.parallel_state")
    ns.utils = imp("sglang.multimodal_gen.utils")
    srcabs = os.path.abspath(src)
    ns.real = [m for n, m in list(sys.modules.items())
               if n.split(".")[0] == "sglang" and not isinstance(m, _StubModule)]
    ns.outside = [m.__name__ for m in ns.real  # (namespace packages: their __path__)
                  if not all(p.startswith(srcabs) for p in
                             ([m.__file__] if getattr(m, "__file__", None)
                              else list(getattr(m, "__path__", [""]))))]
    ns.stubbed = sorted(t for t in stubber.made if "." not in t or t in _BOUNDARY)
    return ns


def unload(ns):
    sys.meta_path.remove(ns.stubber)
    sys.path.remove(ns.src)
    for name in set(sys.modules) - ns.before:
        if name.split(".")[0] in {"sglang"} | ns.stubber.made or name in ns.stubber.made:
            del sys.modules[name]

"""Loads the real SGLang multimodal_gen source (a folder holding the `sglang` package) with
the third-party packages it imports but the attention path never calls stubbed: shared by
test_sglang_real.py and sglang_ring_worker.py. A stub is an empty module whose attributes are
inert placeholders, handed only to importers inside sglang, and only for a package that cannot
be imported: not installed, or its import from sglang raised (any exception, e.g. a
RuntimeError from transformers' lazy AutoImageProcessor; load() then stubs it, records the
exception in ns.stub_reasons and imports sglang again), or named in ATTNGEN_SGLANG_STUB.
Stubs do not stay in sys.modules where code outside sglang could see them (a real scipy
probing sys.modules for sphinx, which SGLang's CUDA platform imports, must not find a stub).
sglang.srt (SGLang's LLM runtime, reached at import time through multimodal_gen's
quantization and config modules) is stubbed but for sglang.srt.utils.common and its
module-level imports (_REAL_IN_BOUNDARY: the ring path reads torch_release there).
test_sglang_env.py tests these rules on a made-up tree (any torch)."""
import abc
import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import traceback
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
    """The finder in front of sys.meta_path while SGLang loads. Stubs a third-party top-level
    package (and its submodules) for importers inside sglang when it is in reasons: not
    installed, forced (ATTNGEN_SGLANG_STUB), or added by load() after its import raised (any
    exception: reasons[top] says which). Stubs are kept out of sight of other code: whenever
    a real module is looked up (a real package or an sglang module starting to import, a
    find_spec probe) and at the end of load(), the third-party stubs leave sys.modules (the
    sglang modules that imported them keep their references), so a real package that looks
    into sys.modules (the H200 machine's scipy failed with a stub sphinx there) does not see
    one; real modules of a stubbed package (loaded before load(), or by the attempt that
    failed on it) are set aside while sglang imports and put back after."""

    def __init__(self):
        # ATTNGEN_SGLANG_STUB=a,b: stub these third-party packages even where installed (the
        # H200 machine's transformers imports but fails on AutoImageProcessor: no torchcodec)
        forced = {t for t in os.environ.get("ATTNGEN_SGLANG_STUB", "").split(",") if t}
        self.reasons = {}
        for t in sorted(forced):
            if _stubbable(t):
                self.reasons[t] = "forced (ATTNGEN_SGLANG_STUB)"
        for t in _THIRD_PARTY:
            if t not in self.reasons and importlib.machinery.PathFinder.find_spec(t) is None:
                self.reasons[t] = "not installed"
        self.made = set()      # full names of every stub module created
        self.stashed = {}      # real modules of stubbed packages, set aside during load()
        self.live = set()      # third-party stubs that may be in sys.modules now

    def find_spec(self, fullname, path, target=None):
        if fullname not in _REAL_IN_BOUNDARY and any(
                fullname == b or fullname.startswith(b + ".") for b in _BOUNDARY):
            self.made.add(fullname)
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        top = fullname.split(".")[0]
        if top in self.reasons:
            parent = fullname.rpartition(".")[0]
            if parent and isinstance(sys.modules.get(parent), _StubModule):
                return self._spec(fullname)  # a submodule of a stub: a stub, for anyone
            if _importer().split(".")[0] == "sglang":
                return self._spec(fullname)
        self.hide()  # a real module is about to load: no stub in sight
        return None

    def _spec(self, fullname):
        self.made.add(fullname)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        m = _StubModule(spec.name)
        if spec.name.split(".")[0] != "sglang":
            self.live.add(spec.name)
        m.__path__ = []
        m.__version__ = "0.0.0"
        return m

    def exec_module(self, module):
        pass

    def hide(self):
        """Takes the third-party stubs out of sys.modules (those under sglang stay)."""
        while self.live:
            name = self.live.pop()
            if isinstance(sys.modules.get(name), _StubModule):
                del sys.modules[name]

    def stash(self):
        for name, m in list(sys.modules.items()):
            if name.split(".")[0] in self.reasons and not isinstance(m, _StubModule):
                self.stashed.setdefault(name, m)
                del sys.modules[name]

    def restore(self):
        for name, m in self.stashed.items():
            if not isinstance(sys.modules.get(name), _StubModule):
                sys.modules.setdefault(name, m)
        self.stashed = {}


def _importer():
    """__name__ of the module whose code runs the import, past the import system's frames
    and importlib.import_module's. A probe through importlib.util.find_spec is answered as
    for "importlib.util" (no stubs: `find_spec("flashinfer") is not None` stays the truth)."""
    f = sys._getframe(2)
    while f is not None and f.f_globals.get("__name__") in _IMPORT_SYSTEM:
        f = f.f_back
    return f.f_globals.get("__name__", "") if f is not None else ""


# the import system's modules (frozen: named _frozen_importlib*) and import_module's;
# not importlib.util, frozen too on Python 3.11+ (its find_spec is a probe)
_IMPORT_SYSTEM = {"_frozen_importlib", "_frozen_importlib_external", "importlib",
                  "importlib._bootstrap", "importlib._bootstrap_external"}


_HARNESS = {"torch", "sglang", "attngen", "sglang_real_env", "conftest", "pytest", "_pytest"}


def _stubbable(top):
    """A package the loader may stub: third party (not the stdlib, torch, attngen, sglang or
    this test harness)."""
    return bool(top) and top not in _HARNESS and top not in getattr(
        sys, "stdlib_module_names", ()) and not top.startswith("_")


def _culprit(exc):
    """The third-party package an exception raised while importing sglang comes from: the
    module of the first frame after the innermost sglang frame (importlib's skipped), e.g.
    scipy for `import scipy.stats` failing anywhere inside scipy; for an ImportError raised
    in the sglang frame itself (`from transformers import X` failing, a missing package),
    the module it names. Returns (top, where) or (None, None)."""
    frames = list(traceback.walk_tb(exc.__traceback__))
    inner = [i for i, (f, _) in enumerate(frames)
             if f.f_globals.get("__name__", "").split(".")[0] == "sglang"]
    if inner:
        f, line = frames[inner[-1]]
        via = f"{f.f_globals.get('__name__')}:{line}"
        for f, line in frames[inner[-1] + 1:]:
            name = f.f_globals.get("__name__", "")
            if name in _IMPORT_SYSTEM or name.startswith("importlib."):
                continue
            last, lline = next((g, n) for g, n in reversed(frames)  # where it was raised
                               if g.f_globals.get("__name__") not in _IMPORT_SYSTEM)
            return name.split(".")[0], f"{last.f_globals.get('__name__')}:{lline}, from {via}"
        if isinstance(exc, ImportError) and exc.name:
            return exc.name.split(".")[0], via
    return None, None


def _dynamo_config_shim():
    """torch < 2.7 has no torch._dynamo.config.recompile_limit, which SGLang's LoRA layer
    module sets at import (a compile-cache knob, nothing on the attention path): on such a
    torch the setting is accepted and ignored. torch >= 2.7: nothing is changed."""
    dynamo = getattr(torch, "_dynamo", None)  # (torch 1.x has none: nothing to do)
    if dynamo is None:
        return
    cfg = dynamo.config
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


# the modules load() imports, as attributes of the namespace it returns
_BASE = "sglang.multimodal_gen.runtime"
MODULES = {
    "layer": _BASE + ".layers.attention.layer",
    "selector": _BASE + ".layers.attention.selector",
    "ab": _BASE + ".layers.attention.backends.attention_backend",
    "sdpa": _BASE + ".layers.attention.backends.sdpa",
    "fc": _BASE + ".managers.forward_context",
    "platforms": _BASE + ".platforms",
    "ps": _BASE + ".distributed.parallel_state",
    "utils": "sglang.multimodal_gen.utils",
}
_MAX_RETRIES = 40


def _purge(before):
    """Drops what a failed attempt loaded under sglang, and the stubs. (The real modules of
    the package just added to the stubs are set aside by the next stash(), not dropped: put
    back after load(), they are not imported a second time by anyone.)"""
    for name, m in list(sys.modules.items()):
        if (name not in before and name.split(".")[0] == "sglang") or isinstance(
                m, _StubModule):
            del sys.modules[name]


def load(src, modules=None):
    """Puts src on sys.path behind the stubs and imports the attention path (`modules`, a
    dict attribute -> module name; default MODULES). A third-party package whose import
    raises (any exception, not only ImportError: the H200 machine's transformers fails with
    a RuntimeError on AutoImageProcessor) is added to the stubs, with the exception as its
    reason, and the sglang modules are imported again: ns.stub_reasons says why each stub
    is there. Returns a namespace of the real modules and the stubber (for unload)."""
    _dynamo_config_shim()
    before = set(sys.modules)
    stubber = _Stubber()
    sys.meta_path.insert(0, stubber)
    sys.path.insert(0, src)
    ns = types.SimpleNamespace(stubber=stubber, before=before, src=src, retries=[])
    try:
        for attempt in range(_MAX_RETRIES + 1):
            stubber.stash()
            try:
                for attr, name in (MODULES if modules is None else modules).items():
                    setattr(ns, attr, importlib.import_module(name))
                break
            except Exception as e:
                top, where = _culprit(e)
                if (top is None or top in stubber.reasons or not _stubbable(top)
                        or attempt == _MAX_RETRIES):
                    raise
                msg = " ".join(f"{type(e).__name__}: {e}".split())
                stubber.reasons[top] = (f"{msg[:300]}{'...' if len(msg) > 300 else ''} "
                                        f"(at {where})")
                ns.retries.append(top)
                _purge(before)
    except BaseException:
        stubber.hide()
        stubber.restore()
        unload(ns)
        raise
    stubber.hide()
    stubber.restore()
    srcabs = os.path.abspath(src)
    ns.real = [m for n, m in list(sys.modules.items())
               if n.split(".")[0] == "sglang" and not isinstance(m, _StubModule)]
    ns.outside = [m.__name__ for m in ns.real  # (namespace packages: their __path__)
                  if not all(p.startswith(srcabs) for p in
                             ([m.__file__] if getattr(m, "__file__", None)
                              else list(getattr(m, "__path__", [""]))))]
    tops = {t.split(".")[0] for t in stubber.made} - {"sglang"}
    ns.stubbed = sorted(tops) + [b + ".*" for b in _BOUNDARY if any(
        m.startswith(b + ".") for m in stubber.made)]  # (all under b but _REAL_IN_BOUNDARY)
    ns.stub_reasons = {t: stubber.reasons[t] for t in sorted(tops) if t in stubber.reasons}
    return ns


def unload(ns):
    """Takes the stubber, src and every module load() added (sglang's, the stubs) away."""
    if ns.stubber in sys.meta_path:
        sys.meta_path.remove(ns.stubber)
    if ns.src in sys.path:
        sys.path.remove(ns.src)
    for name, m in list(sys.modules.items()):
        if name not in ns.before and (name.split(".")[0] == "sglang"
                                      or isinstance(m, _StubModule)):
            del sys.modules[name]

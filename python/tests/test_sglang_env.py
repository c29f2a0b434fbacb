"""sglang_real_env's loader on a made-up `sglang` tree and made-up third-party packages
(agx_*), so its stub rules are tested on any torch (test_sglang_real.py needs torch >= 2 and
the real source). The packages model what the H200 machine's environment does: one whose
import raises a RuntimeError, one that imports but fails on one name (transformers on
AutoImageProcessor), one that probes sys.modules for a package SGLang's platform code
imports and that is stubbed (scipy and sphinx), one failing inside a submodule, one missing,
one already imported before the load and forced by ATTNGEN_SGLANG_STUB."""
import sys
import textwrap

import pytest

import sglang_real_env as env

PACKAGES = {
    # a package that cannot be imported (not an ImportError)
    "agx_broken/__init__.py": "raise RuntimeError('metadata of a dependency missing')\n",
    # imports, but one name fails on access (transformers' lazy AutoImageProcessor)
    "agx_tf/__init__.py": """
        def __getattr__(name):
            if name == "AutoImageProcessor":
                raise RuntimeError("Failed to import image_processing_auto: no torchcodec")
            raise AttributeError(name)
        """,
    # a real package that reacts to a stubbed name in sys.modules (scipy and sphinx)
    "agx_scipy/__init__.py": """
        import sys
        saw = sorted(n for n in sys.modules if n.split(".")[0] == "agx_sphinx")
        if saw:
            raise ImportError(f"agx_scipy: sphinx.ext is a stub: {saw}")
        """,
    "agx_scipy/stats.py": "import agx_scipy\nimport json  # a real import inside it\n",
    # fails in a submodule, not an ImportError
    "agx_scipy2/__init__.py": "",
    "agx_scipy2/io.py": "from . import _impl\n",
    "agx_scipy2/_impl.py": "raise ValueError('bad build')\n",
    # installed and imported before the load, forced to a stub
    "agx_pre/__init__.py": "REAL = True\n",
}

SGLANG = {
    "sglang/__init__.py": "",
    "sglang/multimodal_gen/__init__.py": "",
    "sglang/srt/__init__.py": "",  # real, as upstream; below it all is stubbed but utils.common
    # the platform module's doc-build probe, stubbed by force as sphinx is where absent
    "sglang/multimodal_gen/cuda.py": """
        try:
            from agx_sphinx.ext.autodoc.mock import _MockModule
        except ModuleNotFoundError:
            _MockModule = None
        """,
    "sglang/multimodal_gen/sched.py": "import agx_scipy.stats\nimport agx_pre\n",
    "sglang/multimodal_gen/loader.py": """
        from agx_tf import AutoImageProcessor
        import agx_broken
        import agx_missing_pkg
        import agx_scipy2.io
        from sglang.srt.layers import Linear
        """,
    "sglang/multimodal_gen/top.py": """
        from sglang.multimodal_gen import cuda, sched, loader
        import importlib
        import importlib.util
        # probes see what is installed, imports through import_module get the stub
        PROBES = [importlib.util.find_spec(n) is not None for n in ("agx_sphinx", "agx_tf")]
        LATE = importlib.import_module("agx_sphinx.ext")
        def forward(x):
            return x + 1
        """,
    "sglang/multimodal_gen/bug.py": "from sglang.multimodal_gen import top\n1 / 0\n",
}


def _write(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


@pytest.fixture
def tree(tmp_path, monkeypatch):
    _write(tmp_path / "site", PACKAGES)
    _write(tmp_path / "src", SGLANG)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("ATTNGEN_SGLANG_STUB", "agx_sphinx,agx_pre")
    assert "sglang" not in sys.modules
    import agx_pre
    assert agx_pre.REAL
    before_meta, before_path = list(sys.meta_path), list(sys.path)
    yield str(tmp_path / "src")
    assert sys.meta_path == before_meta and sys.path == before_path
    for n in [n for n in sys.modules if n.startswith("agx_")]:
        del sys.modules[n]


def _stubs_outside_sglang():
    return sorted(n for n, m in sys.modules.items()
                  if isinstance(m, env._StubModule) and n.split(".")[0] != "sglang")


def test_failing_imports_are_stubbed_with_reasons(tree):
    ns = env.load(tree, modules={"top": "sglang.multimodal_gen.top"})
    try:
        assert ns.top.forward(1) == 2  # the real module, from the tree
        assert ns.top.PROBES == [False, True] and isinstance(ns.top.LATE, env._StubModule)
        assert ns.top.__file__.startswith(tree) and not ns.outside
        r = ns.stub_reasons
        assert sorted(r) == ["agx_broken", "agx_missing_pkg", "agx_pre", "agx_scipy2",
                             "agx_sphinx", "agx_tf"], r
        assert r["agx_sphinx"] == r["agx_pre"] == "forced (ATTNGEN_SGLANG_STUB)"
        assert "RuntimeError" in r["agx_broken"] and "metadata" in r["agx_broken"]
        assert r["agx_tf"] == ("RuntimeError: Failed to import image_processing_auto: no "
                               "torchcodec (at agx_tf:4, from sglang.multimodal_gen.loader:2)")
        assert r["agx_scipy2"] == ("ValueError: bad build (at agx_scipy2._impl:1, from "
                                   "sglang.multimodal_gen.loader:5)")
        assert r["agx_missing_pkg"] == ("ModuleNotFoundError: No module named "
                                        "'agx_missing_pkg' (at sglang.multimodal_gen.loader:4)")
        assert sorted(ns.retries) == ["agx_broken", "agx_missing_pkg", "agx_scipy2", "agx_tf"]
        assert ns.stubbed == sorted(r) + ["sglang.srt.*"]
        # the sglang modules hold stubs ...
        loader = sys.modules["sglang.multimodal_gen.loader"]
        for name in ("AutoImageProcessor", "agx_broken", "agx_scipy2", "Linear"):
            assert isinstance(getattr(loader, name), (env._Placeholder, env._StubModule)), name
        cuda = sys.modules["sglang.multimodal_gen.cuda"]
        assert isinstance(cuda._MockModule, env._Placeholder)
        assert isinstance(sys.modules["sglang.multimodal_gen.sched"].agx_pre, env._StubModule)
        # ... and nothing outside sglang sees one: the real agx_scipy loaded (it raises on a
        # stub sphinx in sys.modules), agx_pre is the real module again
        assert not _stubs_outside_sglang()
        sched = sys.modules["sglang.multimodal_gen.sched"]
        assert not isinstance(sched.agx_scipy, env._StubModule)
        assert sys.modules["agx_scipy.stats"].__file__.endswith("stats.py")
        assert sys.modules["agx_pre"].REAL is True
        # the failed attempt's real modules are back where they were, not imported again
        assert sys.modules["agx_scipy2"].__file__.endswith("__init__.py")
        assert "agx_scipy2.io" not in sys.modules  # (its import failed)
    finally:
        env.unload(ns)
    assert not [n for n in sys.modules if n.split(".")[0] == "sglang"]
    assert not _stubs_outside_sglang()
    assert sys.modules["agx_pre"].REAL is True


def test_error_in_sglang_code_is_raised(tree):
    """An exception from sglang's own code (or torch, or the stubs) is not a package to
    stub: load() raises it and leaves nothing behind."""
    with pytest.raises(ZeroDivisionError):
        env.load(tree, modules={"bug": "sglang.multimodal_gen.bug"})
    assert not [n for n in sys.modules if n.split(".")[0] == "sglang"]
    assert not _stubs_outside_sglang()
    assert sys.modules["agx_pre"].REAL is True


def test_culprit():
    def fail_in(code, name):
        g = {"__name__": name}
        try:
            exec(compile(code, f"<{name}>", "exec"), g)
        except Exception as e:  # noqa: BLE001
            return e

    e = fail_in("import agx_nowhere_pkg", "sglang.x")
    assert env._culprit(e) == ("agx_nowhere_pkg", "sglang.x:1")
    e = fail_in("1/0", "sglang.x")
    assert env._culprit(e) == (None, None)
    assert env._stubbable("scipy") and env._stubbable("transformers")
    assert not any(env._stubbable(t) for t in ("torch", "sglang", "os", "importlib", "_x"))

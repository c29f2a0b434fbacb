"""setup.py: bundles the built library into the package at build time (no compiler runs).

libattngen.so is taken from $ATTNGEN_LIB, else <repo>/build/libattngen.so; the liblua5.4
it links against is bundled beside it (the loader preloads it), so the wheel also runs where
Lua is not installed. Without a built library the package installs without one and finds
it at run time through $ATTNGEN_LIB.
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _version():
    """ATTNGEN_VERSION_STRING of runtime/include/attngen.h: the version is written there only."""
    header = os.path.join(os.path.dirname(HERE), "runtime", "include", "attngen.h")
    with open(header, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#define ATTNGEN_VERSION_STRING "):
                return line.split('"')[1]
    raise RuntimeError(f"no ATTNGEN_VERSION_STRING in {header}")


def _built_library():
    env = os.environ.get("ATTNGEN_LIB")
    if env:
        return env if os.path.exists(env) else None
    cand = os.path.join(os.path.dirname(HERE), "build", "libattngen.so")
    return cand if os.path.exists(cand) else None


def _lua_of(lib):
    try:
        out = subprocess.run(["ldd", lib], capture_output=True, text=True, check=False).stdout
    except OSError:
        return None
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0].startswith("liblua") and "=>" in parts and len(parts) > 2:
            path = parts[2]
            return path if os.path.exists(path) else None
    return None


class BuildPyWithLib(build_py):
    def run(self):
        super().run()
        lib = _built_library()
        dest = os.path.join(self.build_lib, "attngen", "_lib")
        if not lib:
            self.announce("attngen: no built libattngen.so found (set ATTNGEN_LIB or build "
                          "first); the package will need $ATTNGEN_LIB at run time", level=3)
            return
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(lib, os.path.join(dest, "libattngen.so"))
        lua = _lua_of(lib)
        if lua:
            shutil.copy2(lua, os.path.join(dest, os.path.basename(lua)))
        self.announce(f"attngen: bundled {lib}" + (f" and {lua}" if lua else ""), level=3)


setup(version=_version(), cmdclass={"build_py": BuildPyWithLib})

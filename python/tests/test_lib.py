"""The ctypes binding (attngen/_lib.py) against the C header and the loaded library: the
structs mirror runtime/include/attngen.h field by field (names, order, sizes from a C
compiler when one is present), status names come from the library, library search order."""
import ctypes
import os
import re
import shutil
import subprocess

import pytest

from attngen import _lib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = os.path.join(ROOT, "runtime", "include", "attngen.h")


def _c_fields(struct):
    text = open(HEADER).read()
    body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (struct, struct), text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    names = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        # "const void *q, *k, *v" / "int batch, heads" / "char name[256]" / "unsigned grid[3]"
        first, *rest = decl.split(",")
        names.append(re.search(r"(\w+)\s*(\[\w*\])?$", first.strip()).group(1))
        names += [re.search(r"(\w+)", r.strip().lstrip("*")).group(1) for r in rest]
    return names


@pytest.mark.parametrize("struct,cls", [("attngen_fwd_args", _lib.FwdArgs),
                                        ("attngen_choice", _lib.Choice),
                                        ("attngen_device_props", _lib.DeviceProps),
                                        ("attngen_context_options", _lib.ContextOptions),
                                        ("attngen_skip_info", _lib.SkipInfo)])
def test_struct_fields_match_header(struct, cls):
    assert [f[0] for f in cls._fields_] == _c_fields(struct)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to read sizeof/offsetof")
def test_struct_layout_matches_c(tmp_path):
    structs = {"attngen_fwd_args": _lib.FwdArgs, "attngen_choice": _lib.Choice,
               "attngen_device_props": _lib.DeviceProps, "attngen_skip_info": _lib.SkipInfo}
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "attngen.h"',
             "int main(void) {"]
    for s, cls in structs.items():
        lines.append(f'printf("{s} %zu\\n", sizeof({s}));')
        for f in cls._fields_:
            lines.append(f'printf("{s}.{f[0]} %zu\\n", offsetof({s}, {f[0]}));')
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run(["cc", "-I", os.path.dirname(HEADER), str(src), "-o", str(exe)], check=True)
    got = dict(line.split() for line in subprocess.run([str(exe)], capture_output=True,
                                                      text=True, check=True).stdout.splitlines())
    for s, cls in structs.items():
        assert int(got[s]) == ctypes.sizeof(cls), s
        for f in cls._fields_:
            assert int(got[f"{s}.{f[0]}"]) == getattr(cls, f[0]).offset, (s, f[0])


def test_status_names_from_library():
    lib = _lib.load()
    text = open(HEADER).read()
    text = text[text.index("#define ATTNGEN_STATUS_LIST(X)"):]
    text = text[:text.index("typedef enum attngen_status")]
    names = re.findall(r"X\((\w+), \"", text)
    assert names[0] == "OK" and len(names) > 10
    for i, n in enumerate(names):
        assert lib.attngen_status_name(i).decode() == n


def test_library_search_order(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTNGEN_LIB", "/nowhere/libattngen.so")
    assert _lib.library_candidates() == ["/nowhere/libattngen.so"]
    monkeypatch.delenv("ATTNGEN_LIB")
    cands = _lib.library_candidates()
    assert all(os.path.exists(c) or "/" not in c for c in cands)


def test_context_errors_carry_status():
    with pytest.raises(_lib.AttngenError) as e:
        _lib.Context("opencl", 0)
    assert e.value.status == "INVALID_ARGUMENT" and "opencl" in str(e.value)
    with pytest.raises(_lib.AttngenError) as e:
        _lib.Context("cpu", 7)
    assert e.value.status == "NO_DEVICE"


def _generated_names(axis):
    """The names of one axis in generated/variant_axes.h, in value order."""
    text = open(os.path.join(ROOT, "generated", "variant_axes.h")).read()
    m = re.search(r'#define ATTNGEN__%s_LIST "([^"]*)"' % axis, text)
    return tuple(m.group(1).split(", "))


def test_names_come_from_the_library():
    """The package's names table (_names.py) is the library's (attngen_enum_name), which is
    generated from config.lua; the version is attngen.h's."""
    from attngen import _names
    assert _names.LAYOUTS == _generated_names("LAYOUT")
    assert _names.ROUNDINGS == _generated_names("ROUNDING")
    assert _names.names("target") == _generated_names("TARGET")
    assert _names.names("impl") == _generated_names("IMPL")
    assert _names.SEQ_MAJOR == _names.LAYOUTS[0] and _names.HEAD_MAJOR == _names.LAYOUTS[1]
    assert _names.STATUSES[0] == "OK" and "BAD_SHAPE" in _names.STATUSES
    assert _names.names("no_such_kind") == ()
    version = re.search(r'#define ATTNGEN_VERSION_STRING "([^"]*)"', open(HEADER).read())
    assert _names.VERSION == version.group(1)


def test_names_are_spelled_once():
    """No layout, rounding, target or implementation name is spelled in the package outside
    _names.py (issue 23: they were retyped 74 times in 9 files)."""
    from attngen import _names
    spelled = [n for kind in ("layout", "rounding", "target", "impl") for n in _names.names(kind)]
    pkg = os.path.join(ROOT, "python", "attngen")
    found = []
    for dirpath, _, files in os.walk(pkg):
        for f in files:
            if not f.endswith(".py") or (f == "_names.py" and dirpath == pkg):
                continue
            text = open(os.path.join(dirpath, f)).read()
            for n in spelled:
                for m in re.finditer(r"\b%s\b" % re.escape(n), text):
                    found.append(f"{os.path.relpath(os.path.join(dirpath, f), pkg)}: {n}")
    assert not found, "names spelled outside _names.py: " + ", ".join(found)

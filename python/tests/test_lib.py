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
                                        ("attngen_context_options", _lib.ContextOptions)])
def test_struct_fields_match_header(struct, cls):
    assert [f[0] for f in cls._fields_] == _c_fields(struct)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to read sizeof/offsetof")
def test_struct_layout_matches_c(tmp_path):
    structs = {"attngen_fwd_args": _lib.FwdArgs, "attngen_choice": _lib.Choice,
               "attngen_device_props": _lib.DeviceProps}
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

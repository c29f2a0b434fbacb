"""_names.py: the one table of attngen's names in the package, read from the loaded library
(attngen_enum_name, attngen_version): the layouts, rounding modes, statuses and variant axes
that the C side generates from generator/lua/config.lua, and the version. Nothing else in
the package spells one of them. Read on first use (the library is loaded then), so importing
the package needs no library.

    LAYOUTS, ROUNDINGS     names by their C value (attngen_layout, attngen_rounding)
    SEQ_MAJOR, HEAD_MAJOR  the two layouts: [B, S, H, D] and [B, H, S, D]
    DEFAULT_ROUNDING       the rounding attngen_fwd_args_init sets (value 0)
    VERSION                the library's version
"""
import functools

from ._lib import load


@functools.lru_cache(maxsize=None)
def names(kind):
    """The names of enumeration `kind` ("layout", "rounding", "status", "target", "impl",
    "kv_split", "v_path", "load"), indexed by their C value."""
    lib = load()
    out = []
    while True:
        name = lib.attngen_enum_name(kind.encode(), len(out))
        if not name:
            return tuple(out)
        out.append(name.decode())


_VALUES = {
    "LAYOUTS": lambda: names("layout"),
    "ROUNDINGS": lambda: names("rounding"),
    "STATUSES": lambda: names("status"),
    "SEQ_MAJOR": lambda: names("layout")[0],   # ATTNGEN_LAYOUT_BSHD = 0, the default
    "HEAD_MAJOR": lambda: names("layout")[1],  # ATTNGEN_LAYOUT_BHSD = 1
    "DEFAULT_ROUNDING": lambda: names("rounding")[0],
    "VERSION": lambda: load().attngen_version().decode(),
}


def __getattr__(name):
    if name in _VALUES:
        value = _VALUES[name]()
        globals()[name] = value  # read once: later lookups are plain attributes
        return value
    raise AttributeError(f"module 'attngen._names' has no attribute {name!r}")


def layout_code(layout):
    """The attngen_layout value of a layout name, or None."""
    return names("layout").index(layout) if layout in names("layout") else None


def rounding_code(rounding):
    """The attngen_rounding value of a rounding name, or None."""
    return names("rounding").index(rounding) if rounding in names("rounding") else None


def check_layout(layout):
    """`layout`, or the default one for None; AttngenError BAD_LAYOUT for any other name."""
    if layout is None:
        return names("layout")[0]
    if layout not in names("layout"):
        from ._lib import AttngenError
        raise AttngenError("BAD_LAYOUT", f"layout = {layout!r} (allowed: "
                                         f"{', '.join(map(repr, names('layout')))})")
    return layout

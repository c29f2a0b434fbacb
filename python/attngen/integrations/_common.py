"""Helpers shared by the framework adapters."""
import sys

from .._lib import AttngenError


def extend_enum(enum_cls, name, value):
    """The member `name` of enum_cls, added with `value` if the enum lacks it. Frameworks
    key their backend registries by Enum members and offer no way to add one; this adds a
    real member (found by name, by value and in iteration)."""
    if name in enum_cls.__members__:
        return enum_cls[name]
    base = enum_cls.__mro__[1] if len(enum_cls.__mro__) > 2 else object
    if base in (str, int):
        member = base.__new__(enum_cls, value)
    else:
        member = object.__new__(enum_cls)
    member._name_ = name
    member._value_ = value
    try:
        member.__objclass__ = enum_cls
    except AttributeError:
        pass
    try:
        setattr(enum_cls, name, member)  # enum_cls.NAME
    except AttributeError:
        pass
    enum_cls._member_map_[name] = member
    enum_cls._value2member_map_[value] = member
    enum_cls._member_names_.append(name)
    return member


def refuse(framework, what, value, allowed):
    raise AttngenError("INVALID_ARGUMENT",
                       f"attngen {framework} backend: {what} = {value!r} is not supported "
                       f"(allowed: {allowed}); use another backend for such calls")


def patch_everywhere(module_prefix, attr, original, replacement):
    """Rebinds `attr` in every loaded module under module_prefix that holds `original`
    (modules that did `from x import attr` keep their own binding). Returns the count."""
    n = 0
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == module_prefix or name.startswith(module_prefix + ".")):
            continue
        if getattr(mod, attr, None) is original:
            setattr(mod, attr, replacement)
            n += 1
    return n

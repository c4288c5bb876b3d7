"""The Type layer: the op registry (NNVM-style attribute store).

Every op is registered once by name.  Any module may attach attributes to an
op by name (a shape rule, a kernel per engine, whether it is element-wise, a
gradient, ...) without touching the op's definition, and any pass may read
one attribute across all ops as a table::

    set_attr("exp", "numpy_kernel", np.exp)        # from fgraph/engines/
    kernels = attr_table("numpy_kernel")           # {op name: value}

Attributes are stored column-wise (one dict per attribute name) so a lookup
is one dict access on the hot path.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

from .errors import FgraphError

_MISSING = object()

#: op name -> its docstring (the op's existence)
_OPS: dict[str, str] = {}
#: attribute name -> {op name -> value}
_ATTRS: dict[str, dict[str, Any]] = {}


def register_op(name: str, doc: str = "", **attrs: Any) -> str:
    """Register op ``name`` once, with optional initial attributes."""
    if name in _OPS:
        raise FgraphError(f"op {name!r} is already registered")
    _OPS[name] = doc
    for key, value in attrs.items():
        set_attr(name, key, value)
    return name


def set_attr(op: str, attr: str, value: Any, *, replace: bool = False) -> None:
    """Attach ``attr = value`` to op ``op``; refuses a silent overwrite."""
    if op not in _OPS:
        raise FgraphError(f"cannot set attribute {attr!r}: unknown op {op!r}")
    column = _ATTRS.setdefault(attr, {})
    if op in column and not replace:
        raise FgraphError(f"op {op!r} already has attribute {attr!r}")
    column[op] = value


def get_attr(op: str, attr: str, default: Any = _MISSING) -> Any:
    """Read one attribute of one op."""
    try:
        return _ATTRS[attr][op]
    except KeyError:
        if default is _MISSING:
            raise FgraphError(f"op {op!r} has no attribute {attr!r}") from None
        return default


def attr_table(attr: str) -> Mapping[str, Any]:
    """A read-only live view of one attribute across all ops."""
    return MappingProxyType(_ATTRS.setdefault(attr, {}))


def registered_ops() -> tuple[str, ...]:
    return tuple(_OPS)


def is_registered(op: str) -> bool:
    return op in _OPS

"""The Type layer: the op registry (NNVM-style attribute store).

Every op is registered once by name (through an :class:`fgraph.opdef.OpDef`,
which declares all of an op's facts in one place).  Any module may attach a
*declared* attribute to an op by name (an engine's kernel, a cost) without
touching the op's definition, and any pass may read one attribute across
all ops as a table::

    override("cupy", "exp", cupy_exp)               # an engine's own kernel
    kernels = attr_table("numpy_kernel")            # {op name: value}

Attribute names are declared (:data:`ATTRIBUTES`, :func:`declare_attr`,
:func:`declare_engine`): a misspelt name raises instead of silently making a
new column.  Attributes are stored column-wise (one dict per attribute name)
so a lookup is one dict access on the hot path.

:class:`Refused` is an explicit "this op has none" (no gradient, no route on
an engine, rows that do not stay apart): the op-coverage test accepts it
where an attribute is missing, and the user gets its reason.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, NamedTuple

from .errors import FgraphError

_MISSING = object()

#: op name -> its docstring (the op's existence)
_OPS: dict[str, str] = {}
#: attribute name -> {op name -> value}
_ATTRS: dict[str, dict[str, Any]] = {}
#: attribute name -> what its values are (only declared names may be used)
ATTRIBUTES: dict[str, str] = {}


class Refused:
    """An attribute value saying the op explicitly has none, and why."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self) -> str:
        return f"Refused({self.reason!r})"


def declare_attr(name: str, doc: str) -> str:
    """Declare attribute ``name`` (idempotent): only declared names can be set or read."""
    if ATTRIBUTES.get(name, doc) != doc:
        raise FgraphError(f"attribute {name!r} is already declared as {ATTRIBUTES[name]!r}")
    ATTRIBUTES[name] = doc
    _ATTRS.setdefault(name, {})
    return name


def _declared(attr: str) -> dict[str, Any]:
    try:
        return _ATTRS[attr]
    except KeyError:
        close = sorted(a for a in ATTRIBUTES if a[:4] == attr[:4]) or sorted(ATTRIBUTES)
        raise FgraphError(f"unknown op attribute {attr!r} (declare it with fgraph.registry.declare_attr); "
                          f"declared: {', '.join(close)}") from None


def register_op(name: str, doc: str = "", **attrs: Any) -> str:
    """Register op ``name`` once, with optional initial attributes."""
    if name in _OPS:
        raise FgraphError(f"op {name!r} is already registered")
    for key in attrs:
        _declared(key)
    _OPS[name] = doc
    for key, value in attrs.items():
        set_attr(name, key, value)
    return name


def set_attr(op: str, attr: str, value: Any, *, replace: bool = False) -> None:
    """Attach ``attr = value`` to op ``op``; refuses a silent overwrite."""
    column = _declared(attr)
    if op not in _OPS:
        raise FgraphError(f"cannot set attribute {attr!r}: unknown op {op!r}")
    if op in column and not replace:
        raise FgraphError(f"op {op!r} already has attribute {attr!r}")
    column[op] = value


def get_attr(op: str, attr: str, default: Any = _MISSING) -> Any:
    """Read one attribute of one op."""
    column = _declared(attr)
    try:
        return column[op]
    except KeyError:
        if default is _MISSING:
            raise FgraphError(f"op {op!r} has no attribute {attr!r}") from None
        return default


def attr_table(attr: str) -> Mapping[str, Any]:
    """A read-only live view of one attribute across all ops."""
    return MappingProxyType(_declared(attr))


def registered_ops() -> tuple[str, ...]:
    return tuple(_OPS)


def is_registered(op: str) -> bool:
    return op in _OPS


# ---------------------------------------------------------------- engines' kernels

class KernelAttrs(NamedTuple):
    """The attribute names under which one engine keeps its kernels."""

    engine: str
    kernel: str     # kernel(*inputs, **params) -> result (or Refused)
    out: str        # out_kernel(*inputs, out=..., **params): writes into a planned buffer
    all: str        # kernel_all(*inputs, **params) -> every output of a multi-output op
    workspace: str  # workspace(node) -> bytes of planned scratch the out-kernel takes


_ENGINES: dict[str, KernelAttrs] = {}


def declare_engine(engine: str, kernel: str | None = None) -> KernelAttrs:
    """Declare the kernel attributes of ``engine`` (idempotent); ``kernel``:
    the name of its main attribute (default ``<engine>_kernel``)."""
    got = _ENGINES.get(engine)
    if got is None:
        main = kernel or f"{engine}_kernel"
        got = _ENGINES[engine] = KernelAttrs(engine, main, f"{engine}_out_kernel", f"{engine}_kernel_all",
                                             f"{engine}_workspace")
        declare_attr(got.kernel, f"the {engine} engine's kernel (or Refused: the op cannot run there)")
        declare_attr(got.out, f"the {engine} engine's out-kernel: writes into out=")
        declare_attr(got.all, f"the {engine} engine's kernel computing every output of a multi-output op")
        declare_attr(got.workspace, f"node -> bytes of scratch the {engine} out-kernel takes")
    return got


def kernel_attrs(engine_or_attr: str) -> KernelAttrs:
    """The kernel attribute names of an engine, by its name or its main attribute."""
    got = _ENGINES.get(engine_or_attr)
    if got is None:
        for attrs in _ENGINES.values():
            if attrs.kernel == engine_or_attr:
                return attrs
        raise FgraphError(f"unknown engine {engine_or_attr!r}; declared: {', '.join(_ENGINES)}")
    return got


def override(engine: str, op: str, kernel: Any = None, *, out: Any = None, all: Any = None,
             workspace: Any = None, replace: bool = False) -> None:
    """Give ``op`` its own kernel(s) on ``engine``: the one way every engine
    registers kernels (``kernel`` may be a :class:`Refused`)."""
    names = kernel_attrs(engine)
    for attr, value in ((names.kernel, kernel), (names.out, out), (names.all, all), (names.workspace, workspace)):
        if value is not None:
            set_attr(op, attr, value, replace=replace)


# ---------------------------------------------------------------- the declared attributes

for _name, _doc in {
    "infer": "the shape/dtype rule: rule(inputs, **params) -> (shape, dtype)",
    "grad": "the reverse-mode rule rule(out, inputs, g, **params) -> a cotangent (or None) per input; "
            "or Refused: not differentiable",
    "batch_rule": "micro-batching: rule(node, ctx) -> params at ctx.k rows, or Refused: rows do not stay apart",
    "c_expr": "the element-wise op's C expression, shared by the native CPU and the CUDA generators",
    "elementwise": "True: an element-wise op (broadcasting inputs, one value per output element)",
    "fusable": "True: may join a fused element-wise group",
    "inplace": "'all' (or an input index): the out-kernel may write over that input",
    "may_raise": "True: the kernel may raise on the data (checks, integer division by zero)",
    "nin": "the number of array inputs of an element-wise op",
    "nout": "the number of outputs of a multi-output op",
    "reduction": "True: a reduction over the 'axis' param",
    "scan": "True: a cumulative op along the 'axis' param",
    "view": "True: the result may be a view of input 0",
    "view_strides": "rule(node) -> the view's (offset, strides) in elements of input 0",
    "creation": "True: an array made from params alone (zeros, arange, ...)",
    "leaf": "True: a leaf filled by the engine (placeholder, variable, constant, literal)",
    "stateful": "True: draws from or changes state (random numbers)",
    "cost": "rule(node) -> relative cost, for the optimiser's choices",
}.items():
    declare_attr(_name, _doc)

NUMPY = declare_engine("numpy")
CUPY = declare_engine("cupy")
DASK = declare_engine("dask", kernel="dask_lowering")

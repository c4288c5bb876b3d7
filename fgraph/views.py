"""Views: lazy arrays that share their base's data, with NumPy's semantics.

A lazy array is a handle to an immutable node (``fgraph.tensor.Tensor``).
Arrays that share data share a ``Storage``: the node holding the storage's
current value and a version counter.  A view is a handle with a chain of
*steps* from the storage's node to its own value: template nodes of the
view ops (``slice``, ``transpose``, ``reshape``, ``flip``, ``real``, ...)
replayed on the storage's current node.  Reading a view whose storage
changed since it last looked replays its steps; writing a new value into a
view runs the steps backwards (a region update, the inverse permutation,
a reshape back, a complex value with one part replaced, or, for any other
view, a scatter at the positions the view reads), moves the storage to the
result and bumps its version, so the base and every other live view read
the new value next (anchor: PyTorch's functionalization of views).

What NumPy would return as a view, and that view's strides, flags and
writeability, is decided by NumPy itself: each storage has a *shadow*, a
zero-copy ``as_strided`` array over one element of scratch that stands
for the storage's memory, and every view function runs NumPy's own version
on the shadow (metadata only; no element is ever read).  So ``a.T.reshape(-1)``
is a copy where NumPy copies, ``broadcast_to`` and ``diagonal`` are
read-only, and ``np.shares_memory`` answers exactly as NumPy's does.
"""
from __future__ import annotations

import ctypes

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .errors import also
from .shape import c_strides
from .stack import host_engine
from .symbol import Node, error_at, hold, make_node


def _data_field() -> int | None:
    """Where an ndarray object holds its data address: NumPy's
    ``PyArrayObject`` has ``data`` right after the object's header (what
    ``PyArray_DATA`` reads), checked here against ``ndarray.ctypes.data``;
    None where it is not so (then ``ctypes.data`` is read)."""
    at = object.__basicsize__
    probes = [np.empty(5), np.empty((4, 6))[1:, ::2], np.zeros(()), np.empty(0, np.uint8), np.arange(3.0)[::-1]]
    if all(ctypes.c_void_p.from_address(id(a) + at).value == a.ctypes.data for a in probes):
        return at
    return None


_DATA_FIELD = _data_field()
_WORD = ctypes.c_void_p.from_address


def address(x: np.ndarray) -> int:
    """The data address of ndarray ``x`` (0.2 us; ``x.ctypes.data`` makes a
    ctypes helper object each time: 1.4 us, a native step's or a no-op write's whole glue)."""
    if _DATA_FIELD is None or not isinstance(x, np.ndarray):
        return x.ctypes.data
    return _WORD(id(x) + _DATA_FIELD).value or 0


class Storage:
    """The memory a base array and its views share: its current node, a
    version that every write bumps, and the scratch element shadows point at."""

    __slots__ = ("_node", "_keep", "version", "scratch", "origin", "__weakref__")

    def __init__(self, node: Node):
        self.node = node
        self.origin = node  # what the storage started as (a variable's handle keeps naming its variable)
        self.version = 0
        self.scratch = np.zeros(1, node.dtype)

    @property
    def node(self) -> Node:
        return self._node

    @node.setter
    def node(self, node: Node) -> None:
        # the storage holds what its value is computed from, as a handle does
        self._node = node
        hold(self, node, claim=True)

    def shadow(self, shape: tuple, writeable: bool = True) -> np.ndarray:
        """A C-contiguous stand-in of this storage with ``shape``: metadata only."""
        s = self.scratch
        strides = c_strides(shape, s.itemsize)
        if s.dtype.kind == "O" or s.dtype.fields is not None or s.dtype.subdtype is not None:
            return as_strided(s, shape, strides, writeable=writeable)
        # as_strided's own way (an array interface over the scratch), without its Python around it:
        # 1.0 against 2.7 us, every array that gets a view or a write
        return np.asarray(_Interface({"shape": shape, "strides": strides, "typestr": s.dtype.str,
                                      "data": (address(s), not writeable), "version": 3}, s))


class _Interface:
    """An array interface over memory ``base`` owns (which it keeps alive)."""

    __slots__ = ("__array_interface__", "base")

    def __init__(self, interface: dict, base):
        self.__array_interface__, self.base = interface, base


# ---------------------------------------------------------------- steps

def replay(node: Node, steps: tuple) -> Node:
    """The view's value: each step's template op applied to ``node`` in turn."""
    for tpl in steps:
        node = make_node(tpl.op, (node,) + tpl.inputs[1:], tpl.params)
    return node


def _region(parent: Node, key: tuple, new: Node) -> Node:
    from .ops.writes import region_update  # (a cycle: the ops import tensor, which imports this module)

    return region_update(parent, key, new)


def _axis_key(tpl: Node, parent: Node) -> tuple:
    """The basic key of a ``slice_axis`` template, in the ``slice`` op's form."""
    from .ops.indexing import _norm_slice  # (a cycle: the ops import tensor, which imports this module)

    axis = tpl.param("axis")
    s = _norm_slice(slice(tpl.param("start"), tpl.param("stop"), tpl.param("step")), parent.shape[axis])
    return tuple(s if k == axis else (0, d, 1) for k, d in enumerate(parent.shape))


def _scatter_back(tpl: Node, parent: Node, new: Node) -> Node:
    """Any other view: write ``new`` at the flat positions of ``parent`` that
    the view reads (found by running the view on the positions themselves)."""
    from .tensor import constant_node  # (a cycle: tensor imports this module)

    positions = constant_node(np.arange(parent.size, dtype=np.intp).reshape(parent.shape))
    read = make_node(tpl.op, (positions,) + tpl.inputs[1:], tpl.params)
    where = host_engine().evaluate([read])[0].reshape(-1)
    flat = make_node("reshape", [parent], (("shape", (parent.size,)),))
    value = make_node("reshape", [new], (("shape", (new.size,)),))
    stored = make_node("setitem", [flat, value, constant_node(where)], (("key", None), ("adv", ("a",)),
                                                                          ("front", False)))
    return make_node("reshape", [stored], (("shape", parent.shape),))


def write_back(tpl: Node, parent: Node, new: Node) -> Node:
    """The parent's new value when the view ``tpl`` of it takes value ``new``."""
    op = tpl.op
    if op == "slice":
        return _region(parent, tpl.param("key"), new)
    if op == "slice_axis":
        return _region(parent, _axis_key(tpl, parent), new)
    if op == "transpose":
        inverse = tuple(int(a) for a in np.argsort(tpl.param("axes")))
        return make_node("transpose", [new], (("axes", inverse),))
    if op == "matrix_transpose":
        return make_node("matrix_transpose", [new], tpl.params)
    if op == "reshape":
        return make_node("reshape", [new], (("shape", parent.shape),))
    if op == "flip":
        return make_node("flip", [new], tpl.params)
    if op == "bitcast":
        return make_node("bitcast", [new], (("dtype", parent.dtype),))
    if op in ("real", "imag") and parent.dtype.kind == "c":
        other = make_node("imag" if op == "real" else "real", [parent])
        parts = [new, other] if op == "real" else [other, new]
        return make_node("complex", parts, (("dtype", parent.dtype),))
    if op == "real":  # the real part of a real array is the array
        return new
    return _scatter_back(tpl, parent, new)


# ---------------------------------------------------------------- making views

def chain(result: Node, parent: Node) -> tuple | None:
    """The templates leading from ``parent`` to ``result`` (outermost last),
    or None if ``result`` is not a chain of one-array ops over ``parent``."""
    steps = []
    node = result
    while node is not parent:
        if not node.inputs or any(i.op not in ("constant", "literal") for i in node.inputs[1:]):
            return None
        steps.append(node)
        node = node.inputs[0]
        if len(steps) > 64:
            return None
    return tuple(reversed(steps))


def read_only_error(op: str = "setitem"):
    return error_at(also(ValueError), op, "assignment destination is read-only")

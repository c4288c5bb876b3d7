"""``x[mask]`` kept lazy: a boolean-mask selection whose length (the mask's
count of True) is not needed yet.

NumPy's masked-update idioms read and write through one mask::

    v[fired] = c[fired]
    u[fired] += d[fired]
    pos[low] = -pos[low]

Done literally, ``c[fired]`` evaluates ``fired`` (its count is the
selection's length): the step is cut in two by a fetch, and the count goes
into the graph's shapes, so no two steps share a structure and none is
compiled.  A :class:`Selection` instead holds the full-shaped values and
the mask.  A ufunc of selections of one mask (and of scalars, or arrays
that broadcast along the selected rows' own axes) is a selection again,
computed only where the mask is true (op ``ufunc_where``: NumPy's
``ufunc(..., out=zeros, where=mask)``, so the values and the warnings are
those of NumPy's ``ufunc(c[fired], ...)``).  Stored back through the same
mask it is a ``where``.  The step's shapes stay static.

Anything else (its shape, a reduction, printing, a write through another
mask, a cast) materialises it: ``x[mask]`` as before, from the values
held when the selection was made (NumPy's boolean index is a copy).
Only values with no placeholder or variable below are kept lazy (tracing
raises on a traced mask as before); ``ufunc_where``'s gradient is the
ufunc's own on the selected elements.
"""
from __future__ import annotations

import numpy as np

from ..eager import settle
from ..symbol import Node, make_node
from ..tensor import Tensor, stack_of
from .indexing import getitem

_NODE = Tensor.__dict__["_node"]  # the slot a selection's node goes in once materialised
_SCALARS = (int, float, bool, complex)


class Selection(Tensor):
    """``values[mask]`` not materialised yet (``pending``): ``values`` is a
    handle to the full-shaped values (so they are kept while needed), and
    ``mask`` the mask's node.  Once materialised it is a plain lazy array."""

    __slots__ = ("_values", "_mask")

    def __init__(self, values: Tensor, mask, stack):
        _NODE.__set__(self, None)
        self.stack = stack
        self._storage = self._steps = self._base = self._shadow = None
        self._version = 0
        self._values, self._mask = values, mask

    @property
    def _node(self):
        node = _NODE.__get__(self)
        return node if node is not None else self._materialise()

    @_node.setter
    def _node(self, node):
        _NODE.__set__(self, node)

    @property
    def pending(self) -> bool:
        return self._values is not None

    # what is known without the mask's count
    dtype = property(lambda self: self._values.dtype if self._values is not None else self.node.dtype)
    ndim = property(lambda self: self._values.ndim - self._mask.ndim + 1 if self._values is not None
                    else len(self.node.shape))

    def _materialise(self):
        values, mask = self._values, self._mask
        node = getitem(values, Tensor(mask, self.stack)).node
        self._values = self._mask = None
        _NODE.__set__(self, node)
        settle(self, node)
        return node


def _pending(x) -> bool:
    return type(x) is Selection and x._values is not None


def select(x: Tensor, mask: Tensor) -> Selection | None:
    """``x[mask]`` as a pending selection, or None where it is not one (the
    mask does not lead x's shape exactly, or something below is traced)."""
    m = mask.node
    n = x.node
    if m.shape != n.shape[:m.ndim] or not (m.concrete and n.concrete) or n.size == 0:
        return None
    return Selection(Tensor(n, x.stack), m, x.stack)


def _broadcast_mask(mask, shape: tuple):
    """The mask with length-1 axes for the selected rows' own axes."""
    rest = len(shape) - mask.ndim
    return make_node("reshape", [mask], (("shape", mask.shape + (1,) * rest),)) if rest else mask


def apply_ufunc(name: str, node_of, args: tuple, dtype) -> Selection | None:
    """``name(*args)`` where an argument is a pending selection, as a
    selection of the same mask; None (materialise) for any other mix.
    ``node_of(args, dtype)`` builds the ufunc's full-shaped node, with
    every check NumPy makes."""
    mask = shape = None
    for a in args:
        if _pending(a):
            if mask is None:
                mask, shape = a._mask, a._values.shape
            elif a._mask is not mask or a._values.shape != shape:
                return None
    rest = len(shape) - mask.ndim
    full = []
    for a in args:
        if _pending(a):
            full.append(a._values)
        elif type(a) in _SCALARS:
            full.append(a)
        elif isinstance(a, (Tensor, np.ndarray, np.generic)) and np.ndim(a) <= rest and (
                not isinstance(a, Tensor) or a.node.concrete):
            full.append(a)  # broadcasts along the rows' own axes, never the selected one
        else:
            return None
    r = node_of(full, dtype)  # (a node with no handle: not computed, as a small one would be)
    if type(r) is not Node or r.shape != shape:  # settled at build time, several outputs, or a broadcast that grew
        return None
    st = stack_of(args)
    return Selection(Tensor(only_where(_broadcast_mask(mask, shape), r), st), mask, st)


def only_where(mask, node):
    """Ufunc node ``node`` computed only where ``mask`` holds, zero elsewhere
    (op ``ufunc_where``: NumPy's ``out=zeros, where=mask``)."""
    return make_node("ufunc_where", [mask, *node.inputs],
                     (("ufunc", node.op), ("dtype", node.dtype), ("params", node.params)))


def masked_write(x, key, value):
    """The node of ``x`` after ``x[key] = value`` where ``value`` is a
    pending selection through the same mask ``key``, of x's shape and
    dtype: a ``where``.  None otherwise (materialise)."""
    if not (_pending(value) and isinstance(key, Tensor) and key.node is value._mask):
        return None
    v = value._values.node
    if v.shape != x.shape or v.dtype != x.dtype:
        return None
    return make_node("where", [_broadcast_mask(value._mask, x.shape), v, x])


def update(target: Selection, result) -> bool:
    """``target op= other`` on a pending selection, ``result`` being
    ``op(target, other)``: True when it stays pending (the result, of the
    target's dtype, becomes its values), False to materialise."""
    if not (_pending(result) and result._mask is target._mask and result.dtype == target.dtype):
        return False
    target._values = result._values
    return True


__all__ = ["Selection", "select", "apply_ufunc", "masked_write", "update", "only_where"]

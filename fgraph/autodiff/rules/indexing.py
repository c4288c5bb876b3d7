"""Gradient rules of the indexing ops, written with fgraph.numpy.

Gathers are linear in the array they read: their cotangent is scattered
back with ``scatter_add`` (NumPy's ``add.at``, so an element read several
times gets the sum of its cotangents), whose own rule is the gather again,
so second derivatives work.  Basic indexing (a view) embeds the cotangent
into zeros with forward ops.  ``select`` and ``choose`` route the cotangent
to the choice each element came from.  Index inputs, conditions and the
integer-valued ops (searchsorted, unravel_index, ravel_multi_index) get no
gradient.
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from ...tensor import Tensor
from ...ops.indexing import scatter_add
from ...symbol import make_node
from .. import defgrad
from .movement import embed


def take_along_axis_T(g, ind, shape: tuple, axis):
    """The transpose of ``take_along_axis(arr, ind, axis)`` for ``arr`` of
    ``shape``: ``g`` added into zeros at the positions read.  Along every
    other axis the positions are an ``arange`` of ``arr``'s length there (a
    length-1 axis, broadcast in the gather, is summed)."""
    if axis is None:  # arr was flattened
        size = int(np.prod(shape, dtype=np.int64))
        return fnp.reshape(scatter_add(g, [ind], (size,), ("a",)), shape)
    nd = len(shape)
    idx = [ind if k == axis else np.arange(d, dtype=np.intp).reshape((1,) * k + (d,) + (1,) * (nd - k - 1))
           for k, d in enumerate(shape)]
    return scatter_add(g, idx, shape, ("a",) * nd)


@defgrad("slice")
def _slice(out, ins, g, key):
    (x,) = ins
    # one axis of g per axis of x: drop the new (None) axes, restore the integer-indexed ones as length 1
    shape = tuple(1 if type(e) is int else len(range(*e)) for e in key if e is not None)
    g = fnp.reshape(g, shape)
    axis = 0
    for e in key:
        if e is None:
            continue
        n = x.shape[axis]
        start, step = (e, 1) if type(e) is int else (e[0], e[2])
        if g.shape[axis] != n:  # this axis was really sliced
            g = embed(g, axis, n, start, step)
        elif step < 0:  # the whole axis, reversed
            g = fnp.flip(g, axis)
        axis += 1
    return g,


@defgrad("advanced_index")
def _advanced_index(out, ins, g, key, front):
    x, *idx = ins
    return (scatter_add(g, idx, x.shape, key, front),) + (None,) * len(idx)


@defgrad("scatter_add")
def _scatter_add(out, ins, g, shape, key, front):
    # the transpose of a scatter is the gather (values broadcast to it: the core sums them down)
    values, *idx = ins
    node = make_node("advanced_index", [g.node] + [i.node for i in idx], (("key", key), ("front", front)))
    return (Tensor(node, g.stack),) + (None,) * len(idx)


def _wrapped(ind, n: int, mode: str):
    """The indices a ``mode`` of take/choose actually reads ('raise' allows negatives; add.at does too)."""
    if mode == "wrap":
        return fnp.remainder(ind, n)
    if mode == "clip":
        return fnp.clip(ind, 0, n - 1)
    return ind


@defgrad("take")
def _take(out, ins, g, axis, mode):
    a, ind = ins
    n = a.size if axis is None else a.shape[axis]
    if g.size == 0 or n == 0:
        return None, None
    i = _wrapped(ind, n, mode)
    if axis is None:
        return fnp.reshape(scatter_add(g, [i], (a.size,), ("a",)), a.shape), None
    key = tuple("a" if k == axis else None for k in range(a.ndim))
    return scatter_add(g, [i], a.shape, key), None


@defgrad("take_along_axis")
def _take_along_axis(out, ins, g, axis):
    arr, ind = ins
    if g.size == 0:
        return None, None
    return take_along_axis_T(g, ind, arr.shape, axis), None


@defgrad("select")
def _select(out, ins, g, n):
    # element-wise, the first true condition's choice (else the default) gets the cotangent
    conds = ins[:n]
    grads, taken = [], None
    for c in conds:
        first = c if taken is None else c & ~taken
        grads.append(fnp.where(first, g, 0.0))
        taken = c if taken is None else taken | c
    return (None,) * n + tuple(grads) + (fnp.where(taken, 0.0, g),)


@defgrad("choose")
def _choose(out, ins, g, mode):
    a, *choices = ins
    i = _wrapped(a, len(choices), mode)
    return (None,) + tuple(fnp.where(i == k, g, 0.0) for k in range(len(choices)))


# integer outputs: no cotangent ever reaches them (the core gives none to integer nodes); these rules only
# say so explicitly, for ops that may sit on a path from a float input
for _op in ("searchsorted", "unravel_index", "ravel_multi_index"):
    defgrad(_op)(lambda out, ins, g, **p: (None,) * len(ins))

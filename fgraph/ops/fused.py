"""Ops the optimiser creates: fused element-wise groups, fused multiply-add
and Owl's AdaGrad update.  Users do not call these; passes build them.

A fused node's ``expr`` is a straight-line program over its inputs:
``((op, args, params, dtype), ...)`` where an arg ``a < 0`` is input
``-1 - a`` and ``a >= 0`` is the result of instruction ``a``; the last
instruction is the node's value.  Every instruction has the node's full
shape (smaller subexpressions stay outside the group, computed once).

``fused``'s and ``fused_reduce``'s NumPy kernels are the NumPy engine's
own runtime (the fused strategies), registered from
``engines/numpy_kernels/fused.py``; fma and adagrad carry their reference
kernels here.  Autodiff expands a node back into the
ops it stands for (:func:`expand_node`) before differentiating, so each
declares its gradient as a ``Refused`` saying so.
"""
from __future__ import annotations

import numpy as np

from ..registry import Refused, get_attr
from ..shape import broadcast_shapes, defop, ufunc_dtypes
from .batching import Mixes, _set

#: every op here is expanded back into the ops it stands for before differentiation (autodiff/core.py)
_EXPANDED = Refused("autodiff differentiates the element-wise ops it stands for: it expands the node first "
                    "(fgraph.ops.fused.expand_node)")


def _fused_rule(inputs, expr, shape, sources=()):
    broadcast_shapes(shape, *(i.shape for i in inputs))  # inputs must broadcast to the result
    return shape, expr[-1][3]


def _fused_inplace(node) -> tuple:
    """Inputs a fused kernel may overwrite: chunk by chunk, only its last
    instruction writes the output, after every read of that chunk; so it is
    in-place when that instruction's op is."""
    return tuple(range(len(node.inputs))) if get_attr(node.param("expr")[-1][0], "inplace", None) == "all" else ()


def _fused_may_raise(node) -> bool:
    """A fused group fails on its data when one of its instructions can:
    integer power is the only element-wise op that does."""
    return any(op == "power" and np.dtype(dtype).kind in "iu" for op, _, _, dtype in node.param("expr"))


# (the NumPy kernels of fused and fused_reduce are the NumPy engine's strategy
# runtime: engines/numpy_kernels/fused.py registers them)
defop("fused", _fused_rule, "A group of element-wise ops evaluated by one kernel.", elementwise=True, fusable=True,
      inplace=_fused_inplace, may_raise=_fused_may_raise, grad=_EXPANDED)


def reduce_result(expr, shape, reduce, axis, keepdims, dtype=None):
    """(shape, dtype) of a fused_reduce's value: NumPy's reduction of the
    expression's dtype (probed on one element) over ``axis``."""
    probe = np.ones((1,) * len(shape), expr[-1][3])
    kw = {} if dtype is None else {"dtype": dtype}
    dt = getattr(np, reduce)(probe, axis=axis, keepdims=keepdims, **kw).dtype
    out = tuple(1 if a in axis else d for a, d in enumerate(shape)) if keepdims else \
        tuple(d for a, d in enumerate(shape) if a not in axis)
    return out, dt


def _fused_reduce_rule(inputs, expr, shape, reduce, axis, keepdims, dtype=None, sources=()):
    broadcast_shapes(shape, *(i.shape for i in inputs))
    return reduce_result(expr, shape, reduce, axis, keepdims, dtype)


#: reductions a fused group may end in: row by row over trailing axes they
#: see exactly the values, in the order, that NumPy's own call sees
FUSABLE_REDUCTIONS = ("sum", "prod", "mean", "max", "min", "any", "all")

def _fused_reduce_batch(node, c) -> tuple:
    """Micro-batching: the rows stay apart unless the reduction runs over axis 0."""
    shape = node.param("shape")
    if 0 in node.param("axis"):
        raise Mixes("its reduction runs over the batch axis 0")
    c.aligned(node, range(len(node.inputs)), len(shape))
    return _set(node.params, shape=c.rows(shape))


defop("fused_reduce", _fused_reduce_rule, "An element-wise group ending in a reduction over trailing axes, "
      "evaluated a block of rows at a time (the full-size value is never stored).", may_raise=_fused_may_raise,
      grad=_EXPANDED, batch_rule=_fused_reduce_batch)


class _Aval:
    """An intermediate's abstract value (strong dtype), for chaining dtype rules."""

    weak = False

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, np.dtype(dtype)


def _ufunc(ufunc, *args):
    return _Aval(broadcast_shapes(*(a.shape for a in args)), ufunc_dtypes(ufunc, args)[ufunc.nin])


def _fma_rule(inputs):
    a, b, c = inputs
    r = _ufunc(np.add, _ufunc(np.multiply, a, b), c)
    return r.shape, r.dtype


def _fma(a, b, c):
    return np.add(np.multiply(a, b), c)


def _fma_into(a, b, c, out):
    if np.result_type(a, b) == out.dtype and not _aliases(out, c):
        np.multiply(a, b, out=out)  # the product in out: one temporary fewer
    else:
        np.copyto(out, np.multiply(a, b))
    return np.add(out, c, out=out)


def _aliases(out, x) -> bool:
    return isinstance(x, np.ndarray) and np.shares_memory(out, x)


defop("fma", _fma_rule, "a * b + c with NumPy's two roundings, one temporary fewer.", elementwise=True,
      fusable=True, inplace="all", grad=_EXPANDED, kernel=_fma, out_kernel=_fma_into)


def _adagrad_rule(inputs):
    x, g, cache, lr, eps = inputs
    step = _ufunc(np.divide, _ufunc(np.multiply, lr, g), _ufunc(np.sqrt, _ufunc(np.add, cache, eps)))
    r = _ufunc(np.subtract, x, step)
    return r.shape, r.dtype


def _adagrad(x, g, cache, lr, eps):
    return np.subtract(x, np.divide(np.multiply(lr, g), np.sqrt(np.add(cache, eps))))


def _adagrad_into(x, g, cache, lr, eps, out):
    np.copyto(out, _adagrad(x, g, cache, lr, eps))
    return out


defop("adagrad", _adagrad_rule, "x - lr * g / sqrt(cache + eps) (Owl's fused AdaGrad update).", elementwise=True,
      fusable=True, inplace="all", grad=_EXPANDED, kernel=_adagrad, out_kernel=_adagrad_into)

__all__: list = []


# ---------------------------------------------------------------- expansions

def _instr(ufunc, args, avals):
    """One ufunc instruction and its abstract result."""
    r = _ufunc(ufunc, *avals)
    return (ufunc.__name__, tuple(args), (), r.dtype), r


def expand_fma(inputs):
    """fma(a, b, c) as ufunc instructions: args < 0 are inputs, >= 0 locals."""
    a, b, c = inputs
    i0, ab = _instr(np.multiply, (-1, -2), (a, b))
    i1, _ = _instr(np.add, (0, -3), (ab, c))
    return [i0, i1]


def expand_adagrad(inputs):
    x, g, cache, lr, eps = inputs
    i0, step = _instr(np.multiply, (-4, -2), (lr, g))
    i1, s = _instr(np.add, (-3, -5), (cache, eps))
    i2, root = _instr(np.sqrt, (1,), (s,))
    i3, q = _instr(np.divide, (0, 2), (step, root))
    i4, _ = _instr(np.subtract, (-1, 3), (x, q))
    return [i0, i1, i2, i3, i4]


#: op -> its instructions in a fused expression, for ops that are not one ufunc
EXPANSIONS = {"fma": expand_fma, "adagrad": expand_adagrad}


def expand_node(node, inputs=None):
    """The ops a fused/fma/adagrad/fused_reduce node stands for, rebuilt as
    ordinary nodes on ``inputs`` (default: its own); returns the final node."""
    from ..symbol import make_node

    ins = tuple(node.inputs if inputs is None else inputs)
    if node.op in EXPANSIONS:
        expr = tuple(EXPANSIONS[node.op](ins))
    else:
        expr = node.param("expr")
    made = []
    for op, args, params, _ in expr:
        made.append(make_node(op, [ins[-1 - a] if a < 0 else made[a] for a in args], params))
    value = made[-1]
    if node.op != "fused_reduce":
        return value
    from ..tensor import Tensor
    from . import reduction

    p = node.kwargs
    return getattr(reduction, p["reduce"])(Tensor(value), axis=p["axis"], keepdims=p["keepdims"],
                                           dtype=p["dtype"]).node


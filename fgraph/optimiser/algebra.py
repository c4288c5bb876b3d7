"""Algebraic simplification, written as pattern rules.

Default rules are exact in IEEE floating point, NaN, inf and signed zeros
included: ``x*1``, ``x/1``, ``x**1``, ``x-0``, ``x+(-0.0)``, ``--x``; ``x+0``
only for integers (for floats ``-0.0 + 0.0`` is ``+0.0``).  A rule applies
only when the result keeps the node's shape and dtype (``int / 1`` is a
float, so it stays).  ``FAST_MATH`` rules ignore NaN/inf/-0.0 and run only
with ``optimise(..., fast_math=True)``: ``x*0 -> 0``, ``x-x -> 0``,
``x/x -> 1``, ``x+0.0 -> x``.
"""
from __future__ import annotations

from ..ops.creation import ones, zeros
from ..ops.elementwise import UFUNCS
from ..shape import broadcast_shapes
from ..symbol import make_node
from ..tensor import Tensor
from .pattern import AnyOp, Lit, Op, Rule, Var

x = Var("x")


def _keep_x(m):
    return m.x


def _same(m):
    return m.same_type("x")


def _integer_same(m):
    return m.same_type("x") and m["x"].dtype.kind in "biu"


def _zeros(m):
    return zeros(m.node.shape, m.node.dtype)


def _ones(m):
    return ones(m.node.shape, m.node.dtype)


EXACT = [
    Rule("add_zero_int", Op("add", x, Lit(0), commutative=True), _keep_x, _integer_same),
    Rule("add_negative_zero", Op("add", x, Lit(-0.0), commutative=True), _keep_x, _same),
    Rule("sub_zero", Op("subtract", x, Lit(0)), _keep_x, _same),
    Rule("mul_one", Op("multiply", x, Lit(1), commutative=True), _keep_x, _same),
    Rule("div_one", Op("divide", x, Lit(1)), _keep_x, _same),
    Rule("pow_one", Op("power", x, Lit(1)), _keep_x, _same),
    Rule("double_negation", Op("negative", Op("negative", x)), _keep_x, _same),
    Rule("double_invert", Op("invert", Op("invert", x)), _keep_x, _same),
    Rule("double_not", Op("logical_not", Op("logical_not", x)), _keep_x, _same),
    Rule("positive", Op("positive", x), _keep_x, _same),
    Rule("abs_abs", Op("absolute", Op("absolute", x, as_="inner")), lambda m: Tensor(m["inner"]),
         lambda m: True),
]

FAST_MATH = [
    Rule("mul_zero", Op("multiply", x, Lit(0), commutative=True), _zeros, fast_math=True),
    Rule("sub_self", Op("subtract", x, x), _zeros, fast_math=True),
    Rule("div_self", Op("divide", x, x), _ones, lambda m: m.node.dtype.kind in "fc", fast_math=True),
    Rule("add_zero_float", Op("add", x, Lit(0.0), commutative=True), _keep_x, _same, fast_math=True),
]


# ---------------------------------------------------------------- movement

def _node(op, inputs, **params):
    return make_node(op, inputs, tuple(params.items()))


def _compose_transpose(m):
    axes = tuple(m["inner_axes"][i] for i in m["axes"])
    if axes == tuple(range(len(axes))):
        return m["x"]
    return _node("transpose", [m["x"]], axes=axes)


def _is_identity_perm(m):
    return tuple(m["axes"]) == tuple(range(len(m["axes"])))


def _reshape_of_reshape(m):
    x = m["x"]
    return x if x.shape == m.node.shape else _node("reshape", [x], shape=m.node.shape)


def _unshaped(m):
    """x already has the node's shape: the reshape/broadcast does nothing."""
    return m["x"].shape == m.node.shape


def _slice_entries(key):
    return all(type(e) is tuple for e in key)


def _compose_slices(m):
    """x[k1][k2] as one x[k] (keys of per-axis (start, stop, step) triples)."""
    key = []
    for (s1, _, st1), (s2, e2, st2) in zip(m["k1"], m["k2"]):
        n = len(range(s2, e2, st2))
        start, step = s1 + s2 * st1, st1 * st2
        if n == 0:
            key.append((0, 0, 1))
        elif n == 1:
            key.append((start, start + 1, 1))
        else:
            last = start + (n - 1) * step
            key.append((start, last + (1 if step > 0 else -1), step))
    return _node("slice", [m["x"]], key=tuple(key))


def _binary_ufuncs():
    return sorted(n for n, u in UFUNCS.items() if u.nin == 2 and u.nout == 1)


def _drop_broadcast(position):
    def build(m):
        ins = list(m.node.inputs)
        ins[position] = m["x"]
        return _node(m.node.op, ins, **dict(m.node.params))
    return build


def _consumer_broadcasts_anyway(position):
    def when(m):
        other = m.node.inputs[1 - position]
        try:
            return broadcast_shapes(m["x"].shape, other.shape) == m.node.shape
        except Exception:
            return False
    return when


def _sum_of_broadcast(m):
    x = m["x"]
    total = _node("sum", [x], axis=tuple(range(x.ndim)), dtype=None, keepdims=False)
    return Tensor(total) * (m.node.inputs[0].size // max(x.size, 1))


def _whole_sum_of_broadcast(integer_only):
    def when(m):
        params = dict(m.node.params)
        n = m.node.inputs[0]
        if set(params) - {"axis", "dtype", "keepdims"} or params.get("dtype") is not None:
            return False
        if params.get("keepdims") or tuple(params.get("axis") or ()) != tuple(range(n.ndim)) or not m["x"].size:
            return False
        return m["x"].dtype.kind in ("biu" if integer_only else "biufc")
    return when


y = Var("y")
_B = _binary_ufuncs()
EXACT += [
    Rule("transpose_transpose", Op("transpose", Op("transpose", x, axes=Var("inner_axes")), axes=Var("axes")),
         _compose_transpose),
    Rule("transpose_identity", Op("transpose", x, axes=Var("axes")), _keep_x, _is_identity_perm),
    Rule("reshape_reshape", Op("reshape", Op("reshape", x)), _reshape_of_reshape),
    Rule("reshape_identity", Op("reshape", x), _keep_x, _unshaped),
    Rule("broadcast_identity", Op("broadcast_to", x), _keep_x, _unshaped),
    Rule("broadcast_into_consumer", AnyOp(_B, Op("broadcast_to", x), y), _drop_broadcast(0),
         _consumer_broadcasts_anyway(0)),
    Rule("broadcast_into_consumer", AnyOp(_B, y, Op("broadcast_to", x)), _drop_broadcast(1),
         _consumer_broadcasts_anyway(1)),
    Rule("slice_slice", Op("slice", Op("slice", x, key=Var("k1")), key=Var("k2")), _compose_slices,
         lambda m: _slice_entries(m["k1"]) and _slice_entries(m["k2"]) and len(m["k1"]) == len(m["k2"])),
    Rule("sum_of_broadcast", Op("sum", Op("broadcast_to", x)), _sum_of_broadcast, _whole_sum_of_broadcast(True)),
]
FAST_MATH += [
    Rule("sum_of_broadcast_float", Op("sum", Op("broadcast_to", x)), _sum_of_broadcast,
         _whole_sum_of_broadcast(False), fast_math=True),
]

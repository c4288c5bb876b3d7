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

from ..operator import Tensor
from .pattern import Lit, Op, Rule, Var

x = Var("x")


def _keep_x(m):
    return m.x


def _same(m):
    return m.same_type("x")


def _integer_same(m):
    return m.same_type("x") and m["x"].dtype.kind in "biu"


def _zeros(m):
    from .. import numpy as fnp

    return fnp.zeros(m.node.shape, m.node.dtype)


def _ones(m):
    from .. import numpy as fnp

    return fnp.ones(m.node.shape, m.node.dtype)


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

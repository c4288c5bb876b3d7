"""Reverse-mode differentiation as a graph transform.

``gradients(y, wrt)`` walks the nodes ``y`` depends on in reverse
topological order (iteratively), and asks each op's ``grad`` attribute for
the cotangents of its inputs.  Rules are written with ``fgraph.numpy``, so
gradients are ordinary nodes: they are optimised, fused and memory-planned
like anything else, and differentiating them again works.  Each node's
cotangents are summed once, when the walk reaches it (the SSA property
libnnc relies on).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import DTypeError, FgraphError
from ..tensor import Tensor
from ..symbol import HISTORY_DEPTH, Node, Released, error_at, released_as, topological
from ..registry import Refused, attr_table
# the ops layer's functions themselves (what fgraph.numpy's names wrap), not the namespace above it: op
# families' gradient rules may import this module
from ..ops.creation import ones as _ones
from ..ops.creation import zeros as _zeros
from ..ops.elementwise import real as _real
from ..ops.fused import expand_node
from ..ops.movement import reshape as _reshape
from ..ops.reduction import sum as _sum

# ops the optimiser makes; gradients see the element-wise ops they stand for
_FUSED = ("fused", "fma", "adagrad", "fused_reduce")


def differentiable(dtype) -> bool:
    return np.dtype(dtype).kind == "f"  # complex gradients (conjugation conventions) are not done yet


def sum_to(g: Tensor, shape: tuple) -> Tensor:
    """Undo broadcasting: sum ``g`` down to ``shape``."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + k for k, d in enumerate(shape) if d == 1 and g.shape[lead + k] != 1)
    out = _sum(g, axis=axes) if axes else g
    return _reshape(out, shape) if out.shape != shape else out


def gradients(y: Tensor, wrt: Sequence[Tensor], seed: Tensor | None = None) -> list[Tensor]:
    """d(sum(y * seed)) / d(each of ``wrt``); ``seed`` defaults to ones (y scalar)."""
    st = y.stack
    for w in wrt:
        if not differentiable(w.dtype):
            raise error_at(DTypeError, "grad", f"cannot differentiate with respect to {w.dtype} "
                                               f"{w.node.name or w.node.op}: only floating dtypes have gradients")
    if seed is None:
        if y.size != 1:
            raise error_at(FgraphError, "grad", f"grad needs a scalar output, got shape {y.shape}; use "
                                                "fgraph.vjp for a vector-Jacobian product")
        if not differentiable(y.dtype):
            raise error_at(DTypeError, "grad", f"the output is {y.dtype}: only float outputs have gradients")
        seed = _ones(y.shape, y.dtype)
    root = _expanded(y.node)
    order = topological([root])
    _check_history(order, wrt)
    # a node made on a wrt's value after its history was released reads its Released constant: that is the wrt
    stands = [released_as(w.node) for w in wrt]
    wanted = {id(w.node) for w in wrt} | {id(c) for c in stands if c is not None}
    # which nodes lie on a path from a wrt to y (only those need cotangents)
    reaches: set[int] = set()
    for n in order:
        if id(n) in wanted or any(id(i) in reaches for i in n.inputs):
            reaches.add(id(n))
    rules = attr_table("grad")
    cot: dict[int, list[Tensor]] = {id(root): [seed]}
    done: dict[int, Tensor] = {}
    for n in reversed(order):
        parts = cot.pop(id(n), None)
        if parts is None or id(n) not in reaches:
            continue
        g = parts[0]
        for p in parts[1:]:
            g = g + p
        done[id(n)] = g
        if not n.inputs:
            continue
        rule = rules.get(n.op)
        if rule is None or isinstance(rule, Refused):
            why = f"is not differentiable: {rule.reason}" if rule is not None else "has no gradient rule"
            raise error_at(FgraphError, "grad", f"op {n.op!r} {why} (node made at {n.where[0]}:{n.where[1]})"
                           if n.where else f"op {n.op!r} {why}")
        ins = [Tensor(i, st) for i in n.inputs]
        grads = rule(Tensor(n, st), ins, g, **dict(n.params))
        for i, gi in zip(n.inputs, grads):
            if id(i) in reaches and i.dtype.kind == "c":  # dropping it would be a silent zero
                raise error_at(FgraphError, "grad", f"the path to {n.op!r} passes through complex values "
                                                    f"({i.op} {i.dtype}{list(i.shape)}); gradients are for real "
                                                    "floating dtypes only")
            if gi is None or id(i) not in reaches or not differentiable(i.dtype):
                continue
            gi = sum_to(gi, i.shape)
            if gi.dtype != i.dtype:
                gi = _real(gi) if gi.dtype.kind == "c" and i.dtype.kind != "c" else gi
                gi = gi.astype(i.dtype)
            cot.setdefault(id(i), []).append(gi)
    grads = []
    for w, c in zip(wrt, stands):
        parts = [done[id(n)] for n in (w.node, c) if n is not None and id(n) in done]
        grads.append(parts[0] if len(parts) == 1 else parts[0] + parts[1] if parts else _zeros(w.shape, w.dtype))
    return grads


def _check_history(order: list, wrt: Sequence[Tensor]) -> None:
    """Refuse a gradient that may need released history: a ``Released``
    constant stands for a node that a ``wrt`` made before it may lie below
    (its gradient would be a silent zero)."""
    born = min((w.node.born for w in wrt if w.node.concrete), default=None)
    if born is None:
        return
    for n in order:
        if n.op == "constant" and type(n.params[0][1]) is Released and n.params[0][1].replaced > born:
            where = f" (the array made at {n.where[0]}:{n.where[1]})" if n.where else ""
            raise error_at(FgraphError, "grad", f"the output's history{where} was released after "
                           f"{HISTORY_DEPTH} operations (fgraph.symbol.HISTORY_DEPTH), so the path from an array "
                           "made before it is gone; differentiate a function instead (fgraph.grad(f)), or start "
                           "from fnp.variable(...), whose history is kept whole")


def _expanded(node: Node) -> Node:
    """The node with every fused group below it expanded back into its ops
    (gradients are rules of the ops a fused node stands for)."""
    order = topological([node])
    if not any(n.op in _FUSED for n in order):
        return node
    mapping: dict[int, Node] = {}
    for n in order:
        ins = tuple(mapping.get(id(i), i) for i in n.inputs)
        if n.op in _FUSED:
            mapping[id(n)] = expand_node(n, ins)
        elif any(a is not b for a, b in zip(ins, n.inputs)):
            mapping[id(n)] = n.with_inputs(ins)
    return mapping.get(id(node), node)

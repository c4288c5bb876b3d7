"""Micro-batching rules (fgraph/engines/microbatch.py runs them): which ops
keep the rows of a batch apart, and how their params change at ``k`` rows.

A rule is ``rule(node, ctx) -> the node's params at ctx.k rows``; it raises
:class:`Mixes` (the reason) when the node's rows do not stay apart.  An op
declares its rule as ``OpDef(batch_rule=...)`` in its family file (or
``Refused(reason)``); element-wise ops, reductions and scans need none:
:func:`rule_for` finds the shared rule by their flags.  The shared rules and
:class:`Ctx`, the helpers every rule uses, live here.
"""
from __future__ import annotations

from ..registry import Refused, attr_table, set_attr
from ..symbol import Node


class Mixes(Exception):
    """A node does not keep the batch rows apart (the reason is the message)."""


class Ctx:
    """What a rule sees: the batch size ``B``, the chunk size ``k``, which
    inputs are batched, and ``resize`` (positions of unbatched inputs that
    carry the batch size on the batch axis and must be rebuilt at ``k``
    rows: a rule adds them through :meth:`aligned`)."""

    __slots__ = ("B", "k", "batched", "resize")

    def __init__(self, B: int, k: int, batched: tuple):
        self.B, self.k, self.batched, self.resize = B, k, batched, []

    def aligned(self, node: Node, positions, ndim: int) -> None:
        """The inputs at ``positions`` broadcast against a result of ``ndim``
        dims whose axis 0 is the batch: a batched one must have ``ndim``
        dims (its axis 0 lands on the batch), an unbatched one of ``ndim``
        dims must be 1 long on axis 0 (else it is resized, or refused)."""
        for p in positions:
            x = node.inputs[p]
            if self.batched[p]:
                if x.ndim != ndim:
                    raise Mixes(f"input {p} ({_desc(x)}) is batched but broadcasts to {ndim} dims: its batch "
                                "axis would not stay axis 0")
            elif x.ndim == ndim and x.shape[0] != 1:
                self.resize.append(p)

    def only(self, node: Node, *positions) -> None:
        """Only the inputs at ``positions`` may be batched."""
        for p, b in enumerate(self.batched):
            if b and p not in positions:
                raise Mixes(f"input {p} ({_desc(node.inputs[p])}) is batched: each row of the result would "
                            "depend on every row of it")

    def rows(self, shape: tuple) -> tuple:
        return (self.k,) + tuple(shape[1:])


def _desc(n: Node) -> str:
    return f"{n.op} {n.dtype}{list(n.shape)}"


def _set(params: tuple, **changes) -> tuple:
    return tuple((k, changes.get(k, v)) for k, v in params)


def _broadcasting(node: Node, c: Ctx) -> tuple:
    """Element-wise ops (ufuncs, where, clip, astype, fused groups): every
    operand broadcasts to the result, so its rows stay apart."""
    c.aligned(node, range(len(node.inputs)), node.ndim)
    if node.param("shape") is not None:  # fused: the group's shape is a param
        return _set(node.params, shape=c.rows(node.param("shape")))
    return node.params


def _reduction(node: Node, c: Ctx) -> tuple:
    """sum/mean/max/argmax/average/...: over axes other than 0; a where mask
    or weights broadcast like an element-wise operand."""
    axis = node.param("axis")
    axes = axis if isinstance(axis, tuple) else (axis,)
    if axis is None or 0 in axes:
        raise Mixes("it reduces over the batch axis 0" + (" (axis=None: every axis)" if axis is None else ""))
    c.aligned(node, range(len(node.inputs)), node.inputs[0].ndim)
    return node.params


def _along_axis(node: Node, c: Ctx) -> tuple:
    """cumsum, sort, argsort, partition, repeat, take_along_axis, fft: work along one axis, which must not be 0."""
    axis = node.param("axis")
    if axis is None or axis == 0:
        raise Mixes("it works along the batch axis 0" if axis == 0 else "axis=None flattens the batch")
    c.aligned(node, range(len(node.inputs)), node.inputs[0].ndim)
    return node.params


def stacked_matrices(node: Node, c: Ctx) -> tuple:
    """det, inv, eigh, svd, ...: linear algebra over the trailing two axes of a
    stack of matrices; with three or more dims, axis 0 is a stack axis, and
    each matrix (each row of the batch) is computed on its own."""
    c.only(node, 0)
    if node.inputs[0].ndim < 3:
        raise Mixes(f"it works on the whole matrix {_desc(node.inputs[0])}: the batch axis 0 is one of its axes")
    return node.params


def refuse_batching(ops, reason: str) -> None:
    """``batch_rule = Refused(reason)`` for each of ``ops`` (a family's ops
    whose rows do not stay apart, or are not audited to)."""
    for op in ops:
        set_attr(op, "batch_rule", Refused(reason))


_ELEMENTWISE = attr_table("elementwise")
_REDUCTION = attr_table("reduction")
_SCAN = attr_table("scan")
_RULE = attr_table("batch_rule")


def rule_for(op: str):
    """The op's rule: its own (``batch_rule``; a Refused one is returned as
    it is), else the shared one its flags imply, else None (the op mixes
    rows: not audited)."""
    rule = _RULE.get(op)
    if rule is None:
        if _ELEMENTWISE.get(op):
            return _broadcasting
        if _REDUCTION.get(op):
            return _reduction
        if _SCAN.get(op):
            return _along_axis
    return rule


def register_rules(rules: dict) -> None:
    """``{op: rule}`` as the ops' ``batch_rule`` attributes."""
    for op, rule in rules.items():
        set_attr(op, "batch_rule", rule)

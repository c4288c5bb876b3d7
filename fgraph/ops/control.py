"""Control flow: loops and branches whose bodies are sub-graphs.

A loop or branch is a node whose params hold its body as an immutable
``fgraph.Graph`` over placeholders (libnnc's ``while`` and ``case..of``
sub-graphs).  Bodies are closed: every value a body uses from outside is an
explicit input of the node, fed to one of the body's placeholders, so a
body means the same wherever the node goes.  The public functions that
trace bodies (``fgraph.while_loop``, ``scan``, ``fori_loop``, ``cond``,
``switch``) live in :mod:`fgraph.control`; this module only declares the
ops and their shape rules.

Every op has several results (the carries, the stacked per-step outputs, a
branch's outputs): one node per result, told apart by an ``output`` param,
as ``svd`` does; an engine runs the loop once for all its results
(``<engine>_kernel_all``).

- ``while_loop``: inputs ``carries + cond_consts + body_consts``; params
  ``cond`` (Graph: carries + cond consts -> bool scalar), ``body`` (Graph:
  carries + body consts -> carries), ``n_carry``, ``n_cond``.
- ``scan``: inputs ``carries + xs + consts``; params ``body`` (Graph:
  carries + one row of each x + consts -> carries + ys), ``n_carry``,
  ``n_xs``, ``length``, ``reverse`` (and ``checkpoint``, when given: the
  segment length reverse mode recomputes carries in).  Results: the final
  carries, then each y stacked over the steps (``(length, *y.shape)``).
- ``switch``: inputs ``index + operands + each branch's consts``; params
  ``branches`` (a tuple of Graphs: operands + own consts -> outputs),
  ``n_operands``, ``splits`` (each branch's const count).  The index is
  clamped to the branches, as ``jax.lax.switch`` does.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError
from ..shape import defop
from ..registry import Refused

__all__: list[str] = []  # traced through fgraph.control, not NumPy names

#: the control-flow ops (passes that must not look through them read this)
CONTROL_OPS = ("while_loop", "scan", "switch")


def _check_feeds(op: str, graph, nodes, what: str) -> None:
    """The node's inputs must match the body's placeholders (a pass that
    rebuilt the node with other inputs would run a body on wrong data)."""
    if len(nodes) != len(graph.inputs):
        raise FgraphError(f"{what} takes {len(graph.inputs)} inputs, the {op} node gives it {len(nodes)}")
    for k, (n, p) in enumerate(zip(nodes, graph.inputs)):
        if n.shape != p.shape:
            raise ShapeError(f"{what} input {k} ({p.name}) is {p.dtype}{list(p.shape)}, got {n.dtype}{list(n.shape)}")
        if n.dtype != p.dtype:
            raise DTypeError(f"{what} input {k} ({p.name}) is {p.dtype}{list(p.shape)}, got {n.dtype}{list(n.shape)}")


def _while_rule(inputs, cond, body, n_carry, n_cond, output):
    """while_loop: the carries keep the shapes and dtypes they came in with."""
    _check_feeds("while_loop", cond, inputs[:n_carry] + inputs[n_carry:n_carry + n_cond], "the cond graph")
    _check_feeds("while_loop", body, inputs[:n_carry] + inputs[n_carry + n_cond:], "the body graph")
    out = cond.outputs[0]
    if out.shape != () or out.dtype != np.bool_:
        raise DTypeError(f"the cond graph must give a bool scalar, it gives {out.dtype}{list(out.shape)}")
    n = inputs[output]
    return n.shape, n.dtype


def _scan_rule(inputs, body, n_carry, n_xs, length, reverse, output, checkpoint=None):
    """scan: final carries, then each per-step output stacked on a new axis 0."""
    rows = []
    for x in inputs[n_carry:n_carry + n_xs]:
        if x.ndim == 0 or x.shape[0] != length:
            raise ShapeError(f"each xs array needs a leading axis of the scan length {length}, got "
                             f"{x.dtype}{list(x.shape)}")
        rows.append(_Row(x))
    _check_feeds("scan", body, inputs[:n_carry] + tuple(rows) + inputs[n_carry + n_xs:], "the body graph")
    out = body.outputs[output]
    if output < n_carry:
        return out.shape, out.dtype
    return (length,) + out.shape, out.dtype


class _Row:
    """One row of an xs array, as the body sees it (shape and dtype only)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, x):
        self.shape, self.dtype = x.shape[1:], x.dtype


def _switch_rule(inputs, branches, n_operands, splits, output):
    """switch: the chosen branch's outputs (every branch gives the same shapes and dtypes)."""
    index = inputs[0]
    if index.shape != () or index.dtype.kind not in "iu":
        raise DTypeError(f"the branch index must be an integer scalar, got {index.dtype}{list(index.shape)}")
    operands = inputs[1:1 + n_operands]
    at = 1 + n_operands
    for b, (g, m) in enumerate(zip(branches, splits)):
        _check_feeds("switch", g, operands + inputs[at:at + m], f"branch {b}")
        at += m
    out = branches[0].outputs[output]
    return out.shape, out.dtype


# The kernels run compiled bodies, engine runtime: each engine registers its own
# (fgraph/engines/numpy_kernels/control.py for NumPy).  The gradients of scan and switch
# differentiate their bodies with the autodiff core: fgraph/autodiff/graph_rules.py.
# stateful: never folded by the optimiser, even over constants: a loop may run long (or forever, a while
# whose condition never fails); it runs when the graph does, where an interrupt names the user's run
defop("while_loop", _while_rule, stateful=True,
      grad=Refused("while_loop is forward-differentiable only, as in JAX: its trip count is known only when it "
                   "runs, so reverse mode has no steps to reverse; use fori_loop with Python int bounds, or scan"))
defop("scan", _scan_rule, stateful=True)
defop("switch", _switch_rule, stateful=True)


def bodies(node) -> tuple:
    """The sub-graphs a control-flow node holds (none for other nodes)."""
    if node.op == "while_loop":
        return (node.param("cond"), node.param("body"))
    if node.op == "scan":
        return (node.param("body"),)
    if node.op == "switch":
        return tuple(node.param("branches"))
    return ()

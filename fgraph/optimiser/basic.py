"""Structural passes: dead updates, common subexpressions, constant folding."""
from __future__ import annotations

import warnings

import numpy as np

from ..graph import Graph
from ..tensor import constant_node
from ..symbol import Node
from ..registry import attr_table
from ..stack import host_engine
from .framework import record, rewrite

_LEAVES = ("constant", "literal", "placeholder", "variable")


def dead_updates(graph: Graph) -> Graph:
    """Drop updates that set a variable to itself.

    A Graph value only holds nodes reachable from its outputs and updates,
    so unreachable nodes never exist; what can still be dead is an update
    that does nothing, which would keep its variable's work alive.
    """
    keep = tuple((var, v) for var, v in graph.updates if v is not var)
    if len(keep) == len(graph.updates):
        return graph
    record("dead_update", len(graph.updates) - len(keep))
    return Graph.from_parts(graph.outputs, graph.structure, graph.inputs, keep)


def cse_step():
    """A per-node step: the first structurally equal node seen stands for all."""
    canon: dict = {}

    def merge(node: Node) -> Node:
        if node.op in ("placeholder", "variable"):
            return node
        first = canon.setdefault((node.key, node.shape, node.dtype), node)
        if first is not node:
            record("cse")
        return first

    return merge


def cse(graph: Graph) -> Graph:
    """Common-subexpression merging: structurally equal nodes become one."""
    return rewrite(graph, cse_step())


FOLD_MIN_ELEMENTS = 1024


def fold_constants(graph: Graph) -> Graph:
    """Compute once, at optimise time, every node that depends only on constants.

    Size cap: a fold may not produce more elements than its inputs hold
    together (or FOLD_MIN_ELEMENTS), so folding never inflates a graph by
    materialising a broadcast or a large ``zeros``.  Ops marked ``stateful``
    (random generators) are never folded.
    """
    return rewrite(graph, fold_step())


def fold_step():
    """A per-node step: fold the node if its inputs are all constants.

    Folding runs the host engine's kernels (NumPy's reference kernels),
    read from the registry; the host engine comes through the stack
    (``fgraph.stack.host_engine``: made on first use, it has every op's
    NumPy kernel registered), so the optimiser imports no engine."""
    kernels = attr_table(host_engine().kernel_attr)
    stateful = attr_table("stateful")

    def fold(node: Node) -> Node:
        if node.op in _LEAVES or stateful.get(node.op) or node.op not in kernels:
            return node
        if not all(i.op in ("constant", "literal") for i in node.inputs):
            return node
        budget = max(FOLD_MIN_ELEMENTS, sum(i.size for i in node.inputs))
        if node.size > budget:
            return node
        args = [i.params[0][1].array if i.op == "constant" else i.params[0][1].value for i in node.inputs]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the run would warn the same way; folding must not
                value = np.asarray(kernels[node.op](*args, **dict(node.params)))
        except Exception:
            return node  # leave the error to run time, where it names the node
        if value.shape != node.shape or value.dtype != node.dtype:
            return node
        record(f"fold:{node.op}")
        c = constant_node(value, node.name)
        return c.replace(where=node.where)

    return fold

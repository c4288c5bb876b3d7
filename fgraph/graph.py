"""The Graph layer: an immutable value of outputs, inputs and updates.

A graph holds output nodes (in the structure the user gave: one tensor, a
list/tuple or a dict), its inputs (placeholders and variables, in creation
order), its updates (Owl's iopairs: variable -> new value, applied after each
evaluation).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np

from .errors import DTypeError, FgraphError, ShapeError
from .ops.elementwise import astype
from .tensor import Tensor, lift
from .symbol import Node, error_at, pins_of, topological
from .tree import flatten, unflatten


def _is_leaf(x) -> bool:
    return isinstance(x, (Tensor, Node))


def as_node(x) -> Node:
    if isinstance(x, Node):
        return x
    return lift(x)


def input_node(x) -> Node:
    """An input's node: a placeholder's or variable's handle that writes have
    moved still names its placeholder or variable (the storage remembers it)."""
    node = as_node(x)
    if node.op not in ("placeholder", "variable") and isinstance(x, Tensor) and x._storage is not None \
            and not x._steps and x._storage.origin.op in ("placeholder", "variable"):
        return x._storage.origin
    return node


def leaf_id(node: Node) -> int:
    return node.param("id")


class Graph:
    """An immutable computation graph: ``Graph(outputs, inputs=None, updates=None)``.

    ``outputs``: a tensor, a list/tuple or a dict of tensors (results come
    back in the same structure).  ``inputs``: placeholders and variables, by
    default every one the outputs and updates depend on, in creation order.
    ``updates``: ``{variable: new_value}`` applied after each evaluation.
    """

    __slots__ = ("outputs", "structure", "inputs", "updates", "_hash", "_keep")

    def __init__(self, outputs=None, inputs=None, updates=None):
        if outputs is None:
            leaves, structure = [], None
        else:
            leaves, structure = flatten(outputs, _is_leaf)
        out_nodes = tuple(as_node(x) for x in leaves)
        upd = _updates(updates)
        roots = out_nodes + tuple(v for _, v in upd)
        found = _leaves(roots) + tuple(var for var, _ in upd)
        found = tuple(sorted({id(n): n for n in found}.values(), key=leaf_id))
        if inputs is None:
            ins = found
        else:
            ins = tuple(input_node(x) for x in (inputs if isinstance(inputs, (list, tuple)) else [inputs]))
            for n in ins:
                if n.op not in ("placeholder", "variable"):
                    raise error_at(FgraphError, "Graph", f"input {n} is not a placeholder or variable")
            given = {id(n) for n in ins}
            missing = [n.name for n in found if id(n) not in given and n.op == "placeholder"]
            if missing:
                raise error_at(FgraphError, "Graph", f"the outputs depend on placeholder(s) {missing} "
                                                     "that are not in inputs")
        names = {}
        for n in ins:
            if n.name in names and names[n.name] is not n:
                raise error_at(FgraphError, "Graph", f"two different inputs are named {n.name!r}")
            names[n.name] = n
        self._init(out_nodes, structure, ins, upd)

    def _init(self, outputs, structure, inputs, updates):
        s = object.__setattr__
        s(self, "outputs", outputs)
        s(self, "structure", structure)
        s(self, "inputs", inputs)
        s(self, "updates", updates)
        s(self, "_hash", hash((tuple(n.key for n in outputs), structure, tuple(n.key for n in inputs),
                               tuple((a.key, b.key) for a, b in updates))))
        # what the graph's nodes are computed from (known values, constants'
        # data): kept while the graph is, as a lazy array keeps its own
        s(self, "_keep", tuple([pins_of(n) for n in outputs] + [pins_of(v) for _, v in updates]))

    @classmethod
    def from_parts(cls, outputs, structure, inputs, updates) -> "Graph":
        """Build without validation (for passes that keep a graph's meaning)."""
        g = object.__new__(cls)
        g._init(tuple(outputs), structure, tuple(inputs), tuple(updates))
        return g

    def __setattr__(self, name, value):
        raise AttributeError("Graph is immutable; passes return a new Graph")

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return isinstance(other, Graph) and self._hash == other._hash and self.structure == other.structure

    @property
    def key(self) -> int:
        """Structural hash: equal for structurally equal graphs."""
        return self._hash

    # -- views
    def roots(self) -> tuple[Node, ...]:
        return self.outputs + tuple(v for _, v in self.updates)

    def nodes(self) -> list[Node]:
        """Every node, inputs before users (iterative; no recursion)."""
        return topological(self.roots() + tuple(var for var, _ in self.updates))

    def __len__(self) -> int:
        return len(self.nodes())

    @property
    def num_nodes(self) -> int:
        return len(self)

    @property
    def placeholders(self) -> tuple[Node, ...]:
        return tuple(n for n in self.inputs if n.op == "placeholder")

    @property
    def variables(self) -> tuple[Node, ...]:
        return tuple(n for n in self.inputs if n.op == "variable")

    def unflatten(self, leaves: list) -> Any:
        return None if self.structure is None else unflatten(self.structure, leaves)

    def replace(self, mapping: Mapping[int, Node]) -> "Graph":
        """The graph with nodes swapped by ``mapping`` (id(old) -> new), or self."""
        outs = tuple(mapping.get(id(n), n) for n in self.outputs)
        upd = tuple((var, mapping.get(id(v), v)) for var, v in self.updates)
        if all(a is b for a, b in zip(outs, self.outputs)) and all(a[1] is b[1] for a, b in zip(upd, self.updates)):
            return self
        return Graph.from_parts(outs, self.structure, self.inputs, upd)

    def __str__(self):
        """The listing, one line a node (``fgraph.describe(g)``)."""
        # (the listing sits on top of the layers: imported when first printed, never by this layer's import)
        from .show.listing import describe

        return describe(self)

    def __repr__(self):
        return (f"<fgraph.Graph {len(self.outputs)} output(s), {len(self.inputs)} input(s), "
                f"{len(self.updates)} update(s)>")


def _updates(updates) -> tuple[tuple[Node, Node], ...]:
    if updates is None:
        return ()
    pairs = updates.items() if isinstance(updates, Mapping) else updates
    out = []
    seen = set()
    for var, value in pairs:
        v = input_node(var)
        if v.op != "variable":
            raise error_at(FgraphError, "Graph", f"updates: {v} is not a variable (only variables hold state)")
        if id(v) in seen:
            raise error_at(FgraphError, "Graph", f"updates: variable {v.name!r} is updated twice")
        seen.add(id(v))
        val = as_node(value)
        if val.shape != v.shape:
            raise error_at(ShapeError, "Graph", f"update of {v.name!r}: new value has shape {val.shape}, "
                                                f"the variable {v.shape}")
        if val.dtype != v.dtype:
            if not np.can_cast(val.dtype, v.dtype, "same_kind"):
                raise error_at(DTypeError, "Graph", f"update of {v.name!r}: cannot cast {val.dtype} to {v.dtype}")
            val = astype(Tensor(val), v.dtype).node
        out.append((v, val))
    return tuple(out)


def inline(graph: Graph, args) -> list[Node]:
    """The nodes of ``graph``'s outputs with its inputs replaced by ``args``
    (nodes, in ``graph.inputs`` order): the body's nodes copied in place of
    the loop (a trip count of 1, a gradient's re-run of the body).  Iterative."""
    mapping = {id(p): a for p, a in zip(graph.inputs, args)}
    for n in topological(graph.outputs):
        if id(n) in mapping or not n.inputs:
            continue
        ins = tuple(mapping.get(id(i), i) for i in n.inputs)
        if any(a is not b for a, b in zip(ins, n.inputs)):
            mapping[id(n)] = n.with_inputs(ins)
    return [mapping.get(id(o), o) for o in graph.outputs]


def _leaves(roots: Iterable[Node]) -> tuple[Node, ...]:
    return tuple(n for n in topological(roots) if n.op in ("placeholder", "variable"))

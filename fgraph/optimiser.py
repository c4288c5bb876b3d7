"""The Optimiser layer: pure passes ``Graph -> Graph`` and a pipeline.

A pass never mutates its input and returns the very same object when it
changes nothing; when it changes a part, untouched subgraphs are shared.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from .graph import Graph
from .symbol import Node, topological

Pass = Callable[[Graph], Graph]


def cse(graph: Graph) -> Graph:
    """Common-subexpression elimination: structurally equal nodes become one."""
    canon: dict = {}
    mapping: dict[int, Node] = {}
    changed = False
    for n in graph.nodes():
        ins = tuple(mapping.get(id(i), i) for i in n.inputs)
        same_inputs = all(a is b for a, b in zip(ins, n.inputs))
        node = n if same_inputs else n.replace(inputs=ins)
        if n.op in ("placeholder", "variable"):
            mapping[id(n)] = n
            continue
        first = canon.setdefault(node.key, node)
        if first is not n:
            changed = True
        mapping[id(n)] = first
    return graph.replace(mapping) if changed else graph


DEFAULT_PASSES: tuple[Pass, ...] = (cse,)


@dataclass
class Report:
    """What each pass did: nodes before and after, per pass run."""

    rows: list = field(default_factory=list)

    def __str__(self):
        lines = [f"{'pass':<20}{'before':>10}{'after':>10}"]
        lines += [f"{name:<20}{b:>10}{a:>10}" for name, b, a in self.rows]
        return "\n".join(lines)


def optimise(graph: Graph, passes: Sequence[Pass] | None = None, fast_math: bool = False,
             report: bool = False, max_rounds: int = 10):
    """Run ``passes`` (default: the safe pipeline) to a fixed point.

    Returns the optimised graph, or ``(graph, Report)`` with ``report=True``.
    """
    passes = DEFAULT_PASSES if passes is None else tuple(passes)
    rep = Report()
    g = graph
    for _ in range(max_rounds):
        before_round = g
        for p in passes:
            n_before = len(g) if report else 0
            g2 = p(g)
            if report:
                rep.rows.append((getattr(p, "__name__", str(p)), n_before, len(g2)))
            g = g2
        if g is before_round:
            break
    return (g, rep) if report else g


optimize = optimise

"""Passes, the pipeline that runs them to a fixed point, and the report.

A pass is a function ``Graph -> Graph``: it never mutates its input and
returns the very same object when it changes nothing; when it changes a
part, every untouched subgraph is shared with the input.
"""
from __future__ import annotations

import contextvars
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..graph import Graph
from ..symbol import Node

Pass = Callable[[Graph], Graph]

_report: contextvars.ContextVar = contextvars.ContextVar("fgraph_report", default=None)


@dataclass
class Report:
    """What each pass did: nodes before and after, time, and rules fired."""

    rows: list = field(default_factory=list)
    fired: Counter = field(default_factory=Counter)

    def record(self, rule: str, count: int = 1) -> None:
        self.fired[rule] += count

    @property
    def nodes_before(self) -> int:
        return self.rows[0]["before"] if self.rows else 0

    @property
    def nodes_after(self) -> int:
        return self.rows[-1]["after"] if self.rows else 0

    def __str__(self):
        lines = [f"{'round':>5}  {'pass':<22}{'before':>8}{'after':>8}{'ms':>9}  rules fired"]
        for r in self.rows:
            fired = ", ".join(f"{k} x{v}" for k, v in sorted(r["fired"].items()))
            lines.append(f"{r['round']:>5}  {r['pass']:<22}{r['before']:>8}{r['after']:>8}"
                         f"{1e3 * r['seconds']:>9.2f}  {fired}")
        lines.append(f"total: {self.nodes_before} -> {self.nodes_after} nodes")
        return "\n".join(lines)


def record(rule: str, count: int = 1) -> None:
    """Called by passes: count a rule that fired (no-op without a report)."""
    rep = _report.get()
    if rep is not None:
        rep.record(rule, count)


def run_passes(graph: Graph, passes: Sequence[Pass], report: Report | None, fixed_point: bool,
               max_rounds: int = 10) -> Graph:
    g = graph
    for rnd in range(max_rounds if fixed_point else 1):
        start = g
        for p in passes:
            g = _run_one(p, g, report, rnd)
        if g is start:
            break
    return g


def _run_one(p: Pass, g: Graph, report: Report | None, rnd: int) -> Graph:
    if report is None:
        return p(g)
    before = len(g)
    counter = Counter()
    sub = Report()
    token = _report.set(sub)
    t0 = time.perf_counter()
    try:
        g2 = p(g)
    finally:
        _report.reset(token)
    counter.update(sub.fired)
    report.fired.update(sub.fired)
    report.rows.append({"round": rnd, "pass": getattr(p, "__name__", repr(p)), "before": before,
                        "after": len(g2), "seconds": time.perf_counter() - t0, "fired": counter})
    return g2


def rewrite(graph: Graph, fn: Callable[[Node], Node], origin: dict | None = None) -> Graph:
    """Apply ``fn`` to every node bottom-up (inputs already rewritten).

    ``fn`` returns the node it was given to keep it.  Returns ``graph``
    itself when nothing changed.  If ``origin`` is given, it records
    id(rebuilt node) -> the original node it stands for.
    """
    mapping: dict[int, Node] = {}
    for n in graph.nodes():
        if n.inputs:
            ins = tuple([mapping.get(id(i), i) for i in n.inputs])
            if all(a is b for a, b in zip(ins, n.inputs)):
                node = n
            else:
                node = n.with_inputs(ins)
                if origin is not None:
                    origin[id(node)] = n
        else:
            node = n
        new = fn(node)
        if new is not n:
            mapping[id(n)] = new
    return graph.replace(mapping) if mapping else graph

"""A graph as a picture: DOT text, rendered to SVG or PNG by Graphviz.

Boxes are labelled by op, shape and dtype (leaves: placeholders as
ellipses, variables as 3-D boxes, constants as notes; outputs have a double
border).  A fused node is a cluster of its instructions; a node holding a
Graph in its params (a loop's or a branch's body) is drawn with that graph
as a nested cluster.  Updates are dashed red edges from the new value to
its variable.  Weak Python scalars are written into their user's label.

Large graphs are summarised: a linear chain of single-use ops (each the
only user of the one before, with no other array input) of at least
``chain`` ops becomes one box ("12 ops: add, multiply, ..."), and past
``max_boxes`` boxes the middle of the graph is one note box, so a picture
stays readable; ``fgraph.describe`` lists every node.

DOT is written here, as text: ``.dot`` needs nothing installed.  SVG and
PNG need the ``graphviz`` Python package and Graphviz's ``dot`` program.
"""
from __future__ import annotations

import os
import re

from ..errors import FgraphError
from ..symbol import no_gc
from .listing import (LEAF_OPS, holds_graphs, leaves_first, literal_text, numbering, param_text, sub_graphs,
                      type_text)

#: at most this many boxes are drawn; past it the middle of the graph is elided
MAX_BOXES = 300
#: linear chains of at least this many single-use ops are drawn as one box
CHAIN = 8
FORMATS = ("dot", "svg", "png")

_LEAF_STYLE = {"placeholder": 'shape=ellipse, fillcolor="#dbeafe"',
               "variable": 'shape=box3d, style=filled, fillcolor="#fde68a"',
               "constant": 'shape=note, style=filled, fillcolor="#e5e7eb"'}
_FUSED = ("fused", "fused_reduce")


def draw(x, path: str, max_boxes: int = MAX_BOXES, chain: int | None = CHAIN) -> str:
    """Draw a Graph (or an executable's graph) to ``path``: ``.dot``,
    ``.svg`` or ``.png`` by its suffix.  Returns ``path``.

    ``chain``: collapse linear chains of at least this many single-use ops
    into one box (None: never).  ``max_boxes``: draw at most about this
    many boxes, eliding the middle of the graph.
    """
    fmt = os.path.splitext(str(path))[1].lstrip(".").lower()
    if fmt not in FORMATS:
        raise FgraphError(f"draw: cannot tell the format of {str(path)!r}: give a path ending in "
                          f"{', '.join('.' + f for f in FORMATS)}")
    dot = to_dot(x, max_boxes=max_boxes, chain=chain)
    data = dot.encode() if fmt == "dot" else render(dot, fmt)
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


def render(dot: str, fmt: str) -> bytes:
    """DOT text rendered by Graphviz's ``dot`` (``fmt``: "svg", "png", "json", ...)."""
    try:
        import graphviz
    except ImportError:
        raise FgraphError(f"draw: writing .{fmt} needs the graphviz Python package, which is not installed: "
                          "pip install graphviz (or pip install 'fgraph[draw]'), and Graphviz's dot program "
                          "(apt-get install graphviz, brew install graphviz); a .dot file needs neither") from None
    try:
        return graphviz.Source(dot).pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise FgraphError(f"draw: writing .{fmt} needs Graphviz's dot program, which is not on PATH: "
                          "apt-get install graphviz (or brew install graphviz, or see graphviz.org/download); "
                          "a .dot file needs no Graphviz") from None


def can_render() -> str | None:
    """None when SVG/PNG can be rendered here, else why not (what is missing)."""
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return "the graphviz Python package is not installed (pip install graphviz)"
    import shutil

    if shutil.which("dot") is None:
        return "Graphviz's dot program is not on PATH (apt-get install graphviz)"
    return None


def to_dot(x, max_boxes: int = MAX_BOXES, chain: int | None = CHAIN) -> str:
    """The DOT text of a Graph or of an executable's graph (see the module doc)."""
    from ..graph import Graph

    g = x if isinstance(x, Graph) else getattr(x, "graph", None)
    if not isinstance(g, Graph):
        raise FgraphError(f"draw: cannot draw a {type(x).__name__} (give an fgraph.Graph or an executable from "
                          "fgraph.compile; fgraph.Graph(outputs=t) makes a graph of a lazy array)")
    if int(max_boxes) < 3:
        raise FgraphError(f"draw: max_boxes must be at least 3, got {max_boxes}")
    if chain is not None and int(chain) < 2:
        raise FgraphError(f"draw: chain must be at least 2 (or None), got {chain}")
    out = ["digraph fgraph {",
           '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, labelloc=t, nodesep=0.25, ranksep=0.35];',
           '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize=10, '
           'margin="0.08,0.04", height=0.3];',
           '  edge [color="#64748b", arrowsize=0.6, fontname="Helvetica", fontsize=9];']
    with no_gc():  # (a pass over every node: see no_gc)
        _Drawer(out, int(max_boxes), chain).graph(g, "n", "  ")
    out.append("}")
    return "\n".join(out) + "\n"


def quoted(text: str) -> str:
    """A DOT string: double-quoted, with quotes and backslashes escaped and newlines as ``\\n``."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class _Drawer:
    """Writes one graph's boxes, clusters and edges as DOT lines (sub-graphs
    by a call per nesting level: bodies nest a few levels, never a node's
    depth, so the recursion is shallow)."""

    def __init__(self, out: list, max_boxes: int, chain: int | None):
        self.out, self.max_boxes, self.chain = out, max_boxes, chain
        self.clusters = 0
        self.drawn: dict = {}  # sub-graph key -> the boxes of its outputs

    def graph(self, g, prefix: str, indent: str) -> dict:
        """Draw ``g`` with box names starting ``prefix``; returns id(node) -> the box holding its value."""
        nodes = [n for n in leaves_first(g.nodes()) if n.op != "literal"]
        num = numbering(nodes)
        roots = {id(r) for r in g.roots()}
        outputs = {id(n) for n in g.outputs}
        units = self._units(nodes, roots)
        keep = self._kept(units)
        box: dict[int, str] = {}  # id(node) -> name of the box its value leaves from
        note = f"{prefix}_elided"
        edges: list[tuple[str, str, str]] = []
        elided = 0
        for u, (kind, members) in enumerate(units):
            first = members[0]
            name = f"{prefix}{num[id(first)]}"
            if not keep[u]:
                elided += len(members)
                for m in members:
                    box[id(m)] = note
                for m in members:
                    edges.extend((box.get(id(i), ""), note, "") for i in m.inputs if i.op != "literal")
                continue
            if kind == "chain":
                last = members[-1]
                ops = list(dict.fromkeys(m.op for m in members))
                label = f"{len(members)} ops: {', '.join(ops[:4])}{', ...' if len(ops) > 4 else ''}\n{type_text(last)}"
                self.out.append(f"{indent}{name} [label={quoted(label)}, fillcolor=\"#f1f5f9\", "
                                f"style=\"rounded,filled,dashed\"{_peripheries(last, outputs)}];")
                for m in members:
                    box[id(m)] = name
                edges.extend((box[id(i)], name, "") for i in first.inputs if i.op != "literal")
            elif kind == "fused":
                box[id(first)] = self._fused(first, name, box, edges, indent, outputs)
            else:
                self.out.append(f"{indent}{name} [label={quoted(self._label(first))}"
                                f"{', ' + _LEAF_STYLE[first.op] if first.op in LEAF_OPS else ''}"
                                f"{_peripheries(first, outputs)}];")
                box[id(first)] = name
                edges.extend((box[id(i)], name, "") for i in first.inputs if i.op != "literal")
                for pname, sub in sub_graphs(first):
                    results = self.drawn.get(sub.key)  # a multi-output loop's siblings share one body
                    if results is None:
                        inner = self._sub_graph(sub, pname, f"{name}_{re.sub(r'[^0-9A-Za-z]', '_', pname)}_",
                                                indent)
                        results = self.drawn[sub.key] = [inner[id(o)] for o in sub.outputs if id(o) in inner]
                    edges.extend((r, name, 'style=dotted, label=' + quoted(pname)) for r in dict.fromkeys(results))
        if elided:
            text = f"... {elided:,} more node(s) not drawn\n(fgraph.describe lists every node)"
            self.out.append(f'{indent}{note} [label={quoted(text)}, shape=note, fillcolor="#fef9c3"];')
        for var, value in g.updates:
            if id(value) not in box:  # a Python scalar (written nowhere as a box)
                continue
            edges.append((box[id(value)], box[id(var)], f'style=dashed, color="#dc2626", constraint=false, '
                                                        f'label={quoted(var.name + " <-")}, fontsize=9, '
                                                        f'fontcolor="#dc2626"'))
        seen_elided = set()
        for src, dst, attrs in edges:
            if src == dst == note or not src:
                continue
            if note in (src, dst) and not attrs:  # one edge each way between a box and the elided part
                if (src, dst) in seen_elided:
                    continue
                seen_elided.add((src, dst))
            self.out.append(f"{indent}{src} -> {dst}" + (f" [{attrs}];" if attrs else ";"))
        return box

    # -- the pieces
    def _units(self, nodes, roots) -> list[tuple[str, list]]:
        """The graph as drawing units, in listing order: ("node", [n]),
        ("fused", [n]) or ("chain", [n1, ..., nk])."""
        uses: dict[int, int] = {}
        for n in nodes:
            for i in n.inputs:
                uses[id(i)] = uses.get(id(i), 0) + 1

        def plain(n) -> bool:  # may sit in a chain
            return n.op not in LEAF_OPS and n.op not in _FUSED and not sub_graphs(n)

        def arrays_in(n) -> list:
            return [i for i in n.inputs if i.op != "literal"]

        # next_of[id(a)] = b when a -> b is a chain link
        next_of: dict[int, object] = {}
        linked: set[int] = set()
        if self.chain is not None:
            for b in nodes:
                ins = arrays_in(b)
                if len(ins) == 1 and plain(b):
                    a = ins[0]
                    if plain(a) and uses.get(id(a)) == 1 and id(a) not in roots:
                        next_of[id(a)] = b
                        linked.add(id(b))
        units: list[tuple[str, list]] = []
        taken: set[int] = set()
        for n in nodes:
            if id(n) in taken:
                continue
            if id(n) in next_of and id(n) not in linked:  # a chain starts here
                members = [n]
                while id(members[-1]) in next_of:
                    members.append(next_of[id(members[-1])])
                if len(members) >= self.chain:
                    taken.update(id(m) for m in members)
                    units.append(("chain", members))
                    continue
            units.append(("fused" if n.op in _FUSED else "node", [n]))
        # a chain is listed where its last op is (its members are in topological order, not always adjacent)
        position = {id(n): k for k, n in enumerate(nodes)}
        units.sort(key=lambda u: position[id(u[1][-1])])
        return units

    def _kept(self, units) -> list[bool]:
        """Which units are drawn: all of them within ``max_boxes``, else the
        first and last ones up to about half the budget each."""
        sizes = [len(m[0].param("expr")) + (m[0].op == "fused_reduce") if kind == "fused" else 1
                 for kind, m in units]
        if sum(sizes) <= self.max_boxes:
            return [True] * len(units)
        keep = [False] * len(units)
        budget = (self.max_boxes - 1) // 2
        used = 0
        for k in range(len(units)):
            if used + sizes[k] > budget:
                break
            keep[k], used = True, used + sizes[k]
        used = 0
        for k in range(len(units) - 1, -1, -1):
            if keep[k] or used + sizes[k] > budget:
                break
            keep[k], used = True, used + sizes[k]
        return keep

    def _label(self, n) -> str:
        if n.op in ("placeholder", "variable"):
            head = f"{n.op} {n.name!r}"
        else:
            head = n.op
            lits = [literal_text(i) for i in n.inputs if i.op == "literal"]
            if lits:
                head += " (" + ", ".join(lits) + ")"
            if n.name:
                head += f" {n.name!r}"
        params = [f"{k}={param_text(v)}" for k, v in n.params  # (sub-graphs are drawn as clusters, not named)
                  if n.op not in LEAF_OPS and k not in ("expr", "sources") and not holds_graphs(v)]
        return "\n".join([head] + ([", ".join(params)] if params else []) + [type_text(n)])

    def _fused(self, n, name, box, edges, indent, outputs) -> str:
        """A fused node as a cluster of its instructions; returns the box of its value."""
        expr = n.param("expr")
        self.clusters += 1
        extra = f", then {n.param('reduce')} over axis {n.param('axis')}" if n.op == "fused_reduce" else ""
        label = f"{n.op}: {len(expr)} op(s){extra}" + (f" {n.name!r}" if n.name else "")
        self.out.append(f"{indent}subgraph cluster_{name} {{")
        inner = indent + "  "
        self.out.append(f'{inner}label={quoted(label)}; style="rounded,filled"; fillcolor="#fff7e6"; '
                        f'color="#f59e0b"; fontsize=10;')
        last = len(expr) - 1
        for t, (op, args, params, dt) in enumerate(expr):
            lits = [literal_text(n.inputs[-1 - a]) for a in args if a < 0 and n.inputs[-1 - a].op == "literal"]
            head = op + (" (" + ", ".join(lits) + ")" if lits else "")
            typ = type_text(n) if t == last and n.op == "fused" else str(dt)
            final = _peripheries(n, outputs) if t == last and n.op == "fused" else ""
            self.out.append(f"{inner}{name}_t{t} [label={quoted(head + chr(10) + typ)}{final}];")
            for a in args:
                if a >= 0:
                    edges.append((f"{name}_t{a}", f"{name}_t{t}", ""))
                elif n.inputs[-1 - a].op != "literal":
                    edges.append((box[id(n.inputs[-1 - a])], f"{name}_t{t}", ""))
        value = f"{name}_t{last}"
        if n.op == "fused_reduce":
            self.out.append(f"{inner}{name}_r [label={quoted(n.param('reduce') + chr(10) + type_text(n))}"
                            f"{_peripheries(n, outputs)}];")
            edges.append((value, f"{name}_r", ""))
            value = f"{name}_r"
        self.out.append(f"{indent}}}")
        return value

    def _sub_graph(self, sub, pname: str, prefix: str, indent: str) -> dict:
        self.clusters += 1
        self.out.append(f"{indent}subgraph cluster_{prefix} {{")
        self.out.append(f'{indent}  label={quoted(pname)}; style="rounded,dashed"; color="#6366f1"; fontsize=10;')
        got = self.graph(sub, prefix, indent + "  ")
        self.out.append(f"{indent}}}")
        return got


def _peripheries(n, outputs) -> str:
    return ", peripheries=2, penwidth=1.5" if id(n) in outputs else ""

"""A graph as text, one line a node, in the style of a jaxpr::

    graph: 2 input(s), 1 output(s), 1 update(s), 9 node(s)
      %0 = placeholder 'x' : float32[4,3]
      %1 = variable 'w' : float32[3,2]
      %2 = constant [1, 1] : float32[2]
      %3 = matmul %0 %1 : float32[4,2]
      %4 = fused[shape=(4, 2)] %3 %2 : float32[4,2]
          t0 = add %3 %2 : float32
          t1 = tanh t0 : float32
      ...
    outputs: %8
    updates:
      w <- %12

Leaves (placeholders, variables, constants) come first, then every other
node in topological order, numbered as listed: the same graph always gives
the same text.  Weak Python scalars (literals) are written inline where they
are used.  For a compiled executable the nodes follow its schedule and the
memory plan's choices are marked (arena offsets, in-place writes).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import FgraphError, format_location
from ..graph import Graph
from ..symbol import Const, Node, Scalar, no_gc

LEAF_OPS = ("placeholder", "variable", "constant")
#: params not written inline: leaves' bookkeeping, and a fused node's program (listed below it)
_HIDDEN = {"placeholder": ("name", "id"), "variable": ("name", "id", "value"), "constant": ("value",),
           "fused": ("expr", "sources"), "fused_reduce": ("expr", "sources")}
#: a param value's text is cut past this many characters
_PARAM_CHARS = 48


def describe(x, max_lines: int | None = None, source: bool = False) -> str:
    """The listing of a Graph or a compiled executable (see the module doc).

    ``max_lines``: keep the first and last lines of the body and elide the
    middle.  ``source``: end each line with the user's line that made the node.
    """
    if max_lines is not None and int(max_lines) < 2:
        raise FgraphError(f"describe: max_lines must be at least 2, got {max_lines}")
    with no_gc():  # (a pass over every node: see no_gc)
        if isinstance(x, Graph):
            return graph_listing(x, max_lines, source)
        if isinstance(getattr(x, "graph", None), Graph):
            if hasattr(x, "_program"):
                return executable_listing(x, max_lines, source)
            return graph_listing(x.graph, max_lines, source, title=f"{type(x).__name__} of a graph")
    raise FgraphError(f"describe: cannot describe a {type(x).__name__} (give a lazy array, an fgraph.Graph or "
                      "an executable from fgraph.compile)")


def graph_listing(g, max_lines: int | None = None, source: bool = False, title: str = "graph") -> str:
    nodes = leaves_first(g.nodes())
    return _listing(g, nodes, _head(g, nodes, title), {}, {}, max_lines, source)


def executable_listing(exe, max_lines: int | None = None, source: bool = False) -> str:
    """The executable's nodes in the order its program runs them (leaves
    first), with each node's arena offset and the in-place writes its plan
    chose."""
    prog, plan = exe._program, exe._plan
    nodes = leaves_first(prog.order)
    num = numbering(nodes)
    notes: dict[int, list[str]] = {}
    update_notes: dict[str, str] = {}
    head = f"executable ({exe.engine.name}): {len(prog.instructions)} kernel(s)"
    if plan is not None:
        for k, n in enumerate(plan.order):
            if plan.storage[k]:
                notes.setdefault(id(n), []).append(f"arena +{plan.offset(k):,}")
        pairs = in_place_pairs(plan)
        for out, inp in pairs:
            notes.setdefault(id(plan.order[out]), []).append(f"in place of %{num[id(plan.order[inp])]}")
        for k, (off, size) in plan.workspaces().items():
            notes.setdefault(id(plan.order[k]), []).append(f"workspace {size:,} B at +{off:,}")
        for var in plan.update_in_place.values():
            update_notes[var.name] = "written in place (into a spare of the variable)"
        m = plan.report
        head += (f", arena {m.arena_bytes:,} B (lower bound {m.lower_bound_bytes:,} B), "
                 f"{len(pairs)} in-place pair(s)")
    else:
        head += ", no memory plan (compiled with plan_memory=False)"
    return _listing(exe.graph, nodes, head, notes, update_notes, max_lines, source)


def in_place_pairs(plan) -> list[tuple[int, int]]:
    """The plan's in-place pairs it used, ``(out step, in step)``: those
    whose two values got the same offset (the planner may decline a pair)."""
    offsets = plan.plan.offsets
    return [(o, i) for o, i in plan.pairs if offsets.get(o) == offsets.get(i)]


def leaves_first(order) -> list[Node]:
    """``order`` with the leaves moved to the front (placeholders, then
    variables, then constants, each in their order): still topological."""
    rank = {"placeholder": 0, "variable": 1, "constant": 2}
    leaves = sorted((n for n in order if n.op in rank), key=lambda n: rank[n.op])  # (stable)
    return leaves + [n for n in order if n.op not in rank]


class _Ref:
    """A value printed as its reference (outputs in their structure)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def numbering(nodes) -> dict[int, int]:
    """id(node) -> its number: position among the non-literal nodes."""
    num: dict[int, int] = {}
    for n in nodes:
        if n.op != "literal":
            num[id(n)] = len(num)
    return num


class _Nested:
    """A sub-graph's listing, not yet written, at ``indent`` (see :func:`_expanded`)."""

    __slots__ = ("graph", "indent", "source")

    def __init__(self, graph, indent: str, source: bool):
        self.graph, self.indent, self.source = graph, indent, source


def _expanded(lines: list) -> list[str]:
    """``lines`` with each :class:`_Nested` replaced by its sub-graph's
    listing, which may hold more of them: an explicit stack, so a graph
    nested thousands deep (loops in loops) lists without recursion."""
    out: list[str] = []
    stack = [("", iter(lines))]
    while stack:
        indent, items = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
        elif isinstance(item, _Nested):
            g = item.graph
            stack.append((indent + item.indent, iter(_graph_lines(g, item.source))))
        else:
            out.append(indent + item)
    return out


def _graph_lines(g, source: bool) -> list:
    """A sub-graph's listing lines, its own sub-graphs left as markers."""
    nodes = leaves_first(g.nodes())
    return _lines(g, nodes, _head(g, nodes, "graph"), {}, {}, source)


def _head(g, nodes, title: str) -> str:
    return (f"{title}: {len(g.inputs)} input(s), {len(g.outputs)} output(s), {len(g.updates)} update(s), "
            f"{sum(n.op != 'literal' for n in nodes)} node(s)")


def _listing(g, nodes, head, notes, update_notes, max_lines, source) -> str:
    lines = _expanded(_lines(g, nodes, head, notes, update_notes, source, max_lines))
    return "\n".join(lines)


def _lines(g, nodes, head, notes, update_notes, source, max_lines=None) -> list:
    num = numbering(nodes)

    def ref(n: Node) -> str:
        return literal_text(n) if n.op == "literal" else f"%{num[id(n)]}"

    body: list[str] = []
    shown: dict = {}  # sub-graphs listed so far (a multi-output loop's siblings share one body)
    for n in nodes:
        if n.op == "literal":
            continue
        body.extend(node_lines(n, num[id(n)], ref, notes.get(id(n), ()), source, "  ", shown))
    if max_lines is not None:
        body = _expanded(body)  # (elided as the lines it prints)
    if max_lines is not None and len(body) > max_lines:
        keep = int(max_lines) - 1
        first = keep - keep // 2
        cut = len(body) - keep
        body = body[:first] + [f"  ... {cut:,} line(s) elided (describe without max_lines lists them all) ..."] + \
            body[len(body) - keep // 2:]
    lines = [head] + body
    outs = [_Ref(ref(n)) for n in g.outputs]
    lines.append(f"outputs: {g.unflatten(outs)!r}" if outs else "outputs: none")
    if g.updates:
        lines.append("updates:")
        for var, value in g.updates:
            note = update_notes.get(var.name)
            lines.append(f"  {var.name} <- {ref(value)}" + (f"  # {note}" if note else ""))
    return lines


def node_lines(n: Node, k: int, ref: Callable[[Node], str], notes=(), source: bool = False,
               indent: str = "", shown: dict | None = None) -> list[str]:
    """The line(s) of node ``n`` numbered ``k``: one, and for a fused node
    one more per instruction of its program, indented; a Graph in its
    params (a sub-graph) is listed indented below it too, once: ``shown``
    (graph key -> where it was listed) names it again by reference."""
    if n.op == "placeholder" or n.op == "variable":
        text = f"%{k} = {n.op} {n.name!r}"
    elif n.op == "constant":
        text = f"%{k} = constant {constant_summary(n)}"
    else:
        text = f"%{k} = {n.op}{params_text(n)}"
        if n.inputs:
            text += " " + " ".join(ref(i) for i in n.inputs)
    text += f" : {type_text(n)}"
    comment = list(notes)
    if n.name and n.op not in ("placeholder", "variable"):
        comment.insert(0, repr(n.name))
    if source and n.where is not None:
        comment.append(format_location(n.where))
    if comment:
        text += "  # " + "; ".join(comment)
    lines = [indent + text]
    inner = indent + "      "
    if n.op in ("fused", "fused_reduce"):
        for t, line in enumerate(expr_lines(n.param("expr"), [ref(i) for i in n.inputs])):
            lines.append(inner + line)
        if source:
            where = list(dict.fromkeys(loc for _, _, loc in (n.param("sources") or ())))
            if where:
                lines.append(inner + "# from " + ", ".join(where))
    shown = {} if shown is None else shown
    for name, g in sub_graphs(n):
        if g.key in shown:
            lines.append(inner + f"{name} = {shown[g.key]}  # listed above")
            continue
        shown[g.key] = f"%{k}.{name}"
        lines.append(inner + f"{name} = {{")
        lines.append(_Nested(g, inner + "  ", source))  # listed by _expanded, without recursion
        lines.append(inner + "}")
    return lines


def expr_lines(expr, inputs: list[str]) -> list[str]:
    """A fused program's instructions, ``t3 = add t1 %4 : float32``
    (``inputs``: the fused node's inputs as referenced outside)."""
    out = []
    for t, (op, args, params, dt) in enumerate(expr):
        shown = " ".join(inputs[-1 - a] if a < 0 else f"t{a}" for a in args)
        p = f"[{', '.join(f'{k}={param_text(v)}' for k, v in params)}]" if params else ""
        out.append(f"t{t} = {op}{p} {shown} : {np.dtype(dt)}")
    return out


def holds_graphs(v) -> bool:
    """Whether a param value is a sub-graph, or a tuple of them (listed below its node, not inline)."""
    return isinstance(v, Graph) or (isinstance(v, tuple) and bool(v) and all(isinstance(e, Graph) for e in v))


def sub_graphs(n: Node) -> list[tuple[str, object]]:
    """(name, Graph) for each Graph a node holds in its params (a loop's
    ``body``, a switch's ``branches``: a tuple of them, named ``branches[1]``)."""
    out = []
    for k, v in n.params:
        if isinstance(v, Graph):
            out.append((k, v))
        elif isinstance(v, tuple) and v and all(isinstance(e, Graph) for e in v):
            out.extend((f"{k}[{j}]", e) for j, e in enumerate(v))
    return out


#: dtype -> its name (``str(dtype)`` costs a microsecond: half the time of a line)
_DTYPE_NAMES: dict = {}


def type_text(n: Node) -> str:
    name = _DTYPE_NAMES.get(n.dtype)
    if name is None:
        name = _DTYPE_NAMES[n.dtype] = str(n.dtype)
    return f"{name}[{','.join(map(str, n.shape))}]"


def literal_text(n: Node) -> str:
    v = n.param("value")
    return repr(v.value if isinstance(v, Scalar) else v)


def params_text(n: Node) -> str:
    hidden = _HIDDEN.get(n.op, ())
    shown = [f"{k}={param_text(v)}" for k, v in n.params if k not in hidden and not holds_graphs(v)]
    return f"[{', '.join(shown)}]" if shown else ""


def param_text(v) -> str:
    """A param value in a line: short, and never the data of an array."""
    if isinstance(v, Const):
        return repr(v)
    if isinstance(v, Graph):
        return f"<graph: {len(v.outputs)} output(s)>"
    if isinstance(v, tuple) and v and all(isinstance(e, Graph) for e in v):
        return f"<{len(v)} graphs>"
    if isinstance(v, np.dtype):
        return str(v)
    if isinstance(v, np.ndarray):
        return f"array({v.dtype}{list(v.shape)})"
    text = repr(v)
    return text if len(text) <= _PARAM_CHARS else text[:_PARAM_CHARS - 3] + "..."


def constant_summary(n: Node, values: int = 4) -> str:
    """A constant's first few values, never the whole array (nor a pass over it)."""
    c = n.param("value")
    try:
        arr = c.array
    except FgraphError:  # its data was released with the last array that needed it
        return "<released>"
    flat = arr.reshape(-1)[:values] if arr.flags.c_contiguous else np.asarray(arr.flat[:values])
    text = ", ".join(np.format_float_positional(x, trim="-") if isinstance(x, np.floating) else repr(x.item())
                     for x in flat)
    more = ", ..." if arr.size > values else ""
    return f"[{text}{more}]" if arr.ndim else text

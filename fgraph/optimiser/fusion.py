"""Fusion: pattern fusion (fma, AdaGrad) and element-wise group fusion."""
from __future__ import annotations

import heapq

from ..errors import format_location
from ..graph import Graph
from ..ops.fused import EXPANSIONS, FUSABLE_REDUCTIONS
from ..symbol import Node, make_node
from ..registry import attr_table
from .framework import record, rewrite
from .pattern import Op, Rule, Var, rules_pass

a, b, c, x, g, cache, lr, eps = (Var(n) for n in ("a", "b", "c", "x", "g", "cache", "lr", "eps"))

PATTERN_RULES = [
    Rule("fma", Op("add", Op("multiply", a, b, as_="ab"), c, commutative=True),
         lambda m: make_node("fma", [m["a"], m["b"], m["c"]], name=m.node.name),
         when=lambda m: m.single_use("ab")),
    Rule("adagrad", Op("subtract", x, Op("divide", Op("multiply", lr, g, commutative=True, as_="step"),
                                         Op("sqrt", Op("add", cache, eps, commutative=True, as_="s"), as_="root"),
                                         as_="q")),
         lambda m: make_node("adagrad", [m["x"], m["g"], m["cache"], m["lr"], m["eps"]], name=m.node.name),
         when=lambda m: m.single_use("step", "s", "root", "q")),
]
fuse_patterns = rules_pass(PATTERN_RULES, "fuse_patterns")


#: instructions per fused kernel at most: longer chains become several
#: kernels (past a few dozen ops a group gains nothing more, and its
#: generated code would only grow)
MAX_GROUP = 48


def fuse_elementwise(graph: Graph) -> Graph:
    """Maximal groups of fusable element-wise ops become one ``fused`` node.

    A group grows from a root towards its inputs; a node joins when it is
    fusable, has the root's shape (smaller subexpressions stay outside and
    are computed once) and every one of its users is already in the group
    (and it is not an output), so nothing is computed twice.  (Recomputing
    a cheap shared value, such as ``scores * c`` read by both ``max`` and
    ``exp(s - m)``, in each user was measured: 2% faster on the transformer
    block, but slower on the training step and the element-wise pipeline,
    whose arena doubled, and a row reduction over a fused block is slower
    than NumPy's over a stored array; so values are computed once.)
    """
    fusable = attr_table("fusable")
    order = graph.nodes()
    index = {id(n): k for k, n in enumerate(order)}
    users: dict[int, list[int]] = {}
    for k, n in enumerate(order):
        for i in n.inputs:
            users.setdefault(id(i), []).append(k)
    roots = {id(r) for r in graph.roots()}
    group_of: dict[int, int] = {}  # node index -> group root index
    groups: list[list[int]] = []
    for k in range(len(order) - 1, -1, -1):
        n = order[k]
        if k in group_of or not fusable.get(n.op):
            continue
        members = [k]
        group_of[k] = k
        heap = [-index[id(i)] for i in n.inputs]
        heapq.heapify(heap)
        seen = set()
        while heap and len(members) < MAX_GROUP:  # reverse topological order: users come first
            j = -heapq.heappop(heap)
            if j in seen or j in group_of:
                continue
            seen.add(j)
            cand = order[j]
            if not fusable.get(cand.op) or cand.shape != n.shape or id(cand) in roots:
                continue
            if not all(group_of.get(u) == k for u in users.get(id(cand), ())):
                continue
            group_of[j] = k
            members.append(j)
            for i in cand.inputs:
                heapq.heappush(heap, -index[id(i)])
        if len(members) > 1 or n.op in EXPANSIONS:
            groups.append(sorted(members))
    if not groups:
        return graph
    replaced: dict[int, Node] = {}
    for members in groups:
        replaced[members[-1]] = members
    mapping: dict[int, Node] = {}
    for k, n in enumerate(order):  # rebuild bottom-up so groups see rebuilt inputs
        if k in replaced:
            new = _fused_node([order[j] for j in replaced[k]], mapping)
            record("fuse_elementwise", len(replaced[k]))
        elif n.inputs and any(id(i) in mapping for i in n.inputs):
            new = n.with_inputs(tuple(mapping.get(id(i), i) for i in n.inputs))
        else:
            continue
        mapping[id(n)] = new
    return graph.replace(mapping)


def _fused_node(members: list[Node], mapping: dict) -> Node:
    """One fused node computing ``members[-1]`` from the group's outside inputs."""
    inside = {id(m): None for m in members}
    inputs: list[Node] = []
    input_pos: dict[int, int] = {}
    expr: list = []
    result: dict[int, int] = {}  # member id -> instruction index of its value
    sources = []

    def ref(node: Node) -> int:
        if id(node) in inside:
            return result[id(node)]
        outer = mapping.get(id(node), node)
        if id(outer) not in input_pos:
            input_pos[id(outer)] = len(inputs)
            inputs.append(outer)
        return -1 - input_pos[id(outer)]

    for m in members:
        args = [ref(i) for i in m.inputs]
        if m.op == "fused" or m.op in EXPANSIONS:
            sub = m.param("expr") if m.op == "fused" else tuple(EXPANSIONS[m.op](m.inputs))
            base = len(expr)
            for op, sargs, params, dt in sub:
                expr.append((op, tuple(args[-1 - s] if s < 0 else base + s for s in sargs), params, dt))
            sources.extend(m.param("sources") or ((m.op, m.name, format_location(m.where)),))
        else:
            expr.append((m.op, tuple(args), m.params, m.dtype))
            sources.append((m.op, m.name, format_location(m.where)))
        result[id(m)] = len(expr) - 1
    root = members[-1]
    node = make_node("fused", inputs, (("expr", tuple(expr)), ("shape", root.shape), ("sources", tuple(sources))),
                     name=root.name)
    return node.replace(where=root.where)


def fuse_reductions(graph: Graph) -> Graph:
    """An element-wise group whose only user reduces its trailing axes
    becomes one ``fused_reduce`` node: computed a block of rows at a time
    and reduced at once, so the full-size value is never stored.  Each row
    is reduced by the same NumPy call over the same contiguous values, so
    results are identical."""
    fusable = attr_table("fusable")
    users: dict[int, int] = {}
    for n in graph.nodes():
        for i in n.inputs:
            users[id(i)] = users.get(id(i), 0) + 1
    roots = {id(r) for r in graph.roots()}
    origin: dict[int, Node] = {}

    def single_use(f: Node) -> bool:
        f0 = origin.get(id(f), f)
        return users.get(id(f0)) == 1 and id(f0) not in roots

    def fuse(n: Node) -> Node:
        if n.op not in FUSABLE_REDUCTIONS or len(n.inputs) != 1:
            return n
        f = n.inputs[0]
        params = dict(n.params)
        if set(params) - {"axis", "keepdims", "dtype"} or not fusable.get(f.op) or f.op in EXPANSIONS:
            return n
        axis = tuple(params.get("axis") or ())
        k = f.ndim - len(axis)
        if k < 1 or axis != tuple(range(k, f.ndim)) or not single_use(f):
            return n
        group = f if f.op == "fused" else _fused_node([f], {})
        node = make_node("fused_reduce", group.inputs, (
            ("expr", group.param("expr")), ("shape", f.shape), ("reduce", n.op), ("axis", axis),
            ("keepdims", bool(params.get("keepdims"))), ("dtype", params.get("dtype")),
            ("sources", group.param("sources") + ((n.op, n.name, format_location(n.where)),))), name=n.name)
        if node.shape != n.shape or node.dtype != n.dtype:
            return n
        record("fuse_reduction")
        return node.replace(where=n.where)

    return rewrite(graph, fuse, origin)

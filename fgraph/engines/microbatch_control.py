"""Micro-batching through loops and branches (see :mod:`fgraph.engines.microbatch`).

A loop keeps the batch rows apart when its body does, with the body's
placeholders fed by batched values taken as its batched feeds: the body is
rebuilt at ``k`` rows by the same analysis (nested loops by nesting depth).
Refused, naming the reason: a ``scan`` over batched ``xs`` (it runs over
their axis 0, the batch) or whose stacked ys are used (steps on axis 0, the
batch on axis 1); a ``while_loop`` whose condition reads batched values
(one trip count for every row); a ``switch`` on a batched index; a carry
that gains or loses the batch on the way round.
"""
from __future__ import annotations

from ..errors import FgraphError
from ..graph import Graph
from ..symbol import topological
from ..ops.batching import Ctx, Mixes, _set, register_rules
from .microbatch import rebuild


def _rebuilt(graph: Graph, flags, c: Ctx, what: str, carries: int = 0) -> tuple[Graph, tuple]:
    """``graph`` (a body) rebuilt at ``c.k`` rows, its inputs batched as ``flags``
    say, and which of its outputs are batched."""
    names = []
    for p, f in zip(graph.inputs, flags):
        if f:
            if p.ndim == 0 or p.shape[0] != c.B:
                raise Mixes(f"{what} takes a batched value as {p.dtype}{list(p.shape)}, without the batch on axis 0")
            names.append(p.name)
    if not names:
        return graph, (False,) * len(graph.outputs)
    try:
        split = rebuild(graph, tuple(names), c.B, c.k)
    except FgraphError as e:
        detail = str(e).splitlines()[0].split("; micro-batching needs")[0].removeprefix("micro_batch: ")
        raise Mixes(f"inside {what}: {detail} (made at {str(e).splitlines()[-1].strip().removeprefix('at ')})") \
            from None
    for i in range(carries):
        if split.batched_outputs[i] != bool(flags[i]):
            raise Mixes(f"carry {i} {'loses' if flags[i] else 'gains'} the batch rows on the way round {what}")
    g = split.graph
    # a batched placeholder the outputs do not read was left at B rows: the loop feeds it k
    ins = tuple(p.replace(shape=(c.k,) + p.shape[1:]) if f and p.shape[:1] == (c.B,) else p
                for p, f in zip(g.inputs, flags))
    if any(a is not b for a, b in zip(ins, g.inputs)):
        g = Graph.from_parts(g.outputs, g.structure, ins, ())
    return g, split.batched_outputs


def _reads_batched(graph: Graph, flags) -> bool:
    batched = {id(p) for p, f in zip(graph.inputs, flags) if f}
    return any(id(n) in batched for n in topological(graph.outputs))


def _scan(node, c: Ctx) -> tuple:
    n, nx = node.param("n_carry"), node.param("n_xs")
    if any(c.batched[n:n + nx]):
        raise Mixes("its xs are batched: a scan runs over their axis 0, the batch")
    if node.param("output") >= n:
        raise Mixes("its stacked ys put the steps on axis 0 (the batch would be axis 1)")
    return _set(node.params, body=_rebuilt(node.param("body"), c.batched, c, "the scan's body", n)[0])


def _while(node, c: Ctx) -> tuple:
    n, ncond = node.param("n_carry"), node.param("n_cond")
    cond_flags = c.batched[:n + ncond]
    if _reads_batched(node.param("cond"), cond_flags):
        raise Mixes("its condition reads batched values: the loop has one trip count for every row")
    body_flags = c.batched[:n] + c.batched[n + ncond:]
    return _set(node.params, cond=_rebuilt(node.param("cond"), cond_flags, c, "the condition")[0],
                body=_rebuilt(node.param("body"), body_flags, c, "the loop's body", n)[0])


def _switch(node, c: Ctx) -> tuple:
    if c.batched[0]:
        raise Mixes("its branch index is batched: one branch is taken for every row")
    nops, at, new, kinds = node.param("n_operands"), 1 + node.param("n_operands"), [], set()
    for b, (g, m) in enumerate(zip(node.param("branches"), node.param("splits"))):
        graph, batched = _rebuilt(g, c.batched[1:1 + nops] + c.batched[at:at + m], c, f"branch {b}")
        new.append(graph)
        kinds.add(batched)
        at += m
    if len(kinds) > 1:
        raise Mixes("some branches keep the batch rows in an output that others compute without them")
    return _set(node.params, branches=tuple(new))


register_rules({"scan": _scan, "while_loop": _while, "switch": _switch})

"""The optimiser's pass over loops and branches (fgraph/ops/control.py).

- scans that run the same carries over the same inputs, whatever ys each
  stacks, become one loop (``merge_scans``, also a pass of its own): the
  loop a program computes and the one its gradient saves each step's carry
  with (fgraph/autodiff/graph_rules.py) then run as one forward pass;
- bodies are simplified by the same fixed-point passes (CSE, folding, the
  algebra rules, and this pass: nested loops too, by nesting depth);
- a ``scan`` of trip count 1 is inlined (its body copied in place, the rows
  and stacked outputs taken and made with indexing), one of trip count 0
  becomes its init (and empty ys);
- a ``switch`` on a constant index becomes the branch it picks;
- dead carries and unused outputs are removed: a carry is kept only if a
  result the graph uses, or the ``while_loop``'s condition, depends on it
  (through any number of steps); inputs the smaller body no longer reads go
  too.

Loop-invariant code never reaches a body: tracing a body already makes every
value that does not depend on the loop's own placeholders an input of the
loop, computed once outside (fgraph/control.py).  Pure, like every pass.
"""
from __future__ import annotations

from ..graph import Graph, inline
from ..ops.creation import zeros
from ..ops.movement import expand_dims
from ..tensor import Tensor
from ..symbol import Node, topological
from .framework import record, rewrite


def loops(graph: Graph) -> Graph:
    """Merge scans alike but for their ys, simplify bodies, inline trivial
    loops and branches, remove dead carries."""
    nodes = graph.nodes()
    if not any(n.op in ("scan", "while_loop", "switch") for n in nodes):
        return graph
    merged = _merge_scans(graph, nodes)
    if merged is not graph:  # (then the carries and ys the merged scans' users need are pruned below)
        graph, nodes = merged, merged.nodes()
    used = _used_outputs(nodes)
    simplified: dict = {}
    origin: dict = {}

    def step(node: Node) -> Node:
        if node.op not in ("scan", "while_loop", "switch"):
            return node
        orig = origin.get(id(node), node)
        new = _simplify_bodies(node, simplified)
        if node.op == "scan" and new.param("length") <= 1:
            out = _scan_inlined(new)
            if out is not None:
                record(f"scan_trip_count_{new.param('length')}")
                return out
        if node.op == "switch" and new.inputs[0].op in ("constant", "literal"):
            record("switch_constant_index")
            return _switch_inlined(new)
        if node.op in ("scan", "while_loop"):
            new = _pruned(new, used.get(_group(orig), ()))
        return new

    return rewrite(graph, step, origin)


def merge_scans(graph: Graph) -> Graph:
    """One scan for the scans alike but for their ys: the same inputs, the
    same params (``body`` and ``output`` aside) and bodies whose carry
    results are structurally equal.  Their results become results of one
    scan whose body gives those carries, then every y of theirs once (the
    ones nobody uses are then pruned by ``loops``).  A step's carry does not
    depend on the ys, so each result is the one it was.  (``loops`` does
    this first; a pass of its own for a pipeline that wants only this.)"""
    return _merge_scans(graph, graph.nodes())


def _merge_scans(graph: Graph, nodes) -> Graph:
    scans = [n for n in nodes if n.op == "scan"]
    if len(scans) < 2:
        return graph
    families: dict = {}
    for n in scans:
        key = (tuple(id(i) for i in n.inputs), tuple(p for p in n.params if p[0] not in ("body", "output")))
        families.setdefault(key, {}).setdefault(id(n.param("body")), (n.param("body"), []))[1].append(n)
    plan: dict[int, tuple] = {}  # id(scan result node) -> (merged body, its output number there)
    for fam in families.values():
        if len(fam) < 2:
            continue
        n_carry = next(iter(fam.values()))[1][0].param("n_carry")
        alike: dict = {}  # the carries' keys -> [(body, its outputs over the first body's placeholders, nodes)]
        base = None
        for body, nodes in fam.values():
            if base is None:
                base = body
            outs = body.outputs if body.inputs == base.inputs else tuple(inline(body, list(base.inputs)))
            alike.setdefault(tuple(o.key for o in outs[:n_carry]), []).append((body, outs, nodes))
        for members in alike.values():
            if len({m[0].key for m in members}) < 2:  # (one body: CSE's, not ours)
                continue
            merged, at = _merged_body(members, n_carry, base)
            record("scan_merged", len(members) - 1)
            for (_, _, nodes), where in zip(members, at):
                for node in nodes:
                    plan[id(node)] = (merged, where[node.param("output")])
    if not plan:
        return graph
    origin: dict = {}

    def step(node: Node) -> Node:
        hit = plan.get(id(origin.get(id(node), node)))
        if hit is None:
            return node
        merged, out = hit
        return _with_params(node, {"body": merged, "output": out})

    return rewrite(graph, step, origin)


def _merged_body(members, n_carry: int, base: Graph):
    """The body giving the members' carries, then each distinct y of theirs
    (in the members' order); and for each member, where its outputs went."""
    outputs = list(members[0][1][:n_carry])
    index: dict = {}
    at = []
    for _, outs, _ in members:
        where = list(range(n_carry))
        for o in outs[n_carry:]:
            k = index.get(o.key)
            if k is None:
                k = index[o.key] = len(outputs)
                outputs.append(o)
            where.append(k)
        at.append(where)
    return Graph(outputs=outputs, inputs=list(base.inputs)), at


def _group(node: Node) -> tuple:
    """What the result nodes of one loop share (inputs and params but ``output``)."""
    return (node.op, tuple(id(i) for i in node.inputs), tuple(p for p in node.params if p[0] != "output"))


def _used_outputs(nodes) -> dict:
    used: dict = {}
    for n in nodes:
        if n.op in ("scan", "while_loop"):
            used.setdefault(_group(n), set()).add(n.param("output"))
    return used


def _with_params(node: Node, changes: dict, inputs=None) -> Node:
    params = tuple((k, changes.get(k, v)) for k, v in node.params)
    return node.replace(params=params, inputs=node.inputs if inputs is None else tuple(inputs))


def _simplify_bodies(node: Node, cache: dict) -> Node:
    from . import default_passes, optimise  # (a cycle: the optimiser's package imports this module)

    changes = {}
    for name in ("cond", "body", "branches"):
        value = node.param(name)
        if value is None:
            continue
        graphs = value if name == "branches" else (value,)
        new = []
        for g in graphs:
            if g not in cache:  # (each body once per pass, whichever of the loop's result nodes comes first)
                cache[g] = optimise(g, passes=default_passes()[0])
            new.append(cache[g])
        if any(a is not b for a, b in zip(new, graphs)):
            changes[name] = tuple(new) if name == "branches" else new[0]
    if not changes:
        return node
    record("loop_body_simplified")
    return _with_params(node, changes)


def _scan_inlined(node: Node) -> Node | None:
    """The result of a scan of trip count 0 or 1 without the loop."""
    body, n, k = node.param("body"), node.param("n_carry"), node.param("n_xs")
    out = node.param("output")
    if node.param("length") == 0:
        if out < n:
            return node.inputs[out]
        return zeros(node.shape, node.dtype).node
    rows = [Tensor(x)[0].node for x in node.inputs[n:n + k]]
    res = inline(body, list(node.inputs[:n]) + rows + list(node.inputs[n + k:]))[out]
    if out >= n:
        res = expand_dims(Tensor(res), 0).node
    return res if (res.shape, res.dtype) == (node.shape, node.dtype) else None


def _switch_inlined(node: Node) -> Node:
    branches, nops, splits = node.param("branches"), node.param("n_operands"), node.param("splits")
    idx = node.inputs[0]
    value = int(idx.params[0][1].array if idx.op == "constant" else idx.params[0][1].value)
    b = min(max(value, 0), len(branches) - 1)
    at = 1 + nops + sum(splits[:b])
    return inline(branches[b], list(node.inputs[1:1 + nops]) + list(node.inputs[at:at + splits[b]]))[
        node.param("output")]


def _placeholders_below(graph: Graph) -> list[set]:
    """For each output of ``graph``, the ids of the placeholders it reads."""
    out = []
    for o in graph.outputs:
        out.append({id(n) for n in topological([o]) if n.op == "placeholder"})
    return out


def _pruned(node: Node, used) -> Node:
    """The loop without the carries no used result (nor the condition) needs,
    the ys nobody uses, and the inputs its smaller body no longer reads."""
    body, n = node.param("body"), node.param("n_carry")
    phs = body.inputs
    reads = _placeholders_below(body)
    needed = set(used)
    if node.op == "while_loop":
        cond = node.param("cond")
        (cond_reads,) = _placeholders_below(cond)
        needed |= {i for i in range(n) if id(cond.inputs[i]) in cond_reads}
    while True:  # a needed result needs the carries its body output reads, whose own outputs are then needed
        more = {i for k in needed for i in range(n) if id(phs[i]) in reads[k]}
        if more <= needed:
            break
        needed |= more
    keep_out = sorted(needed)
    if len(keep_out) == len(body.outputs):
        return node
    carries = [i for i in keep_out if i < n]
    live = set().union(*(reads[k] for k in keep_out)) if keep_out else set()
    if node.op == "scan":
        k = node.param("n_xs")
        xs = [n + j for j in range(k) if id(phs[n + j]) in live]
        consts = [j for j in range(n + k, len(phs)) if id(phs[j]) in live]
        new_body = Graph(outputs=[body.outputs[i] for i in keep_out], inputs=[phs[i] for i in carries + xs + consts])
        inputs = [node.inputs[i] for i in carries + xs + consts]
        changes = {"body": new_body, "n_carry": len(carries), "n_xs": len(xs)}
    else:
        ncond = node.param("n_cond")
        cond = node.param("cond")
        cond_live = set().union(*_placeholders_below(cond))
        cconsts = [j for j in range(n, len(cond.inputs)) if id(cond.inputs[j]) in cond_live]
        bconsts = [j for j in range(n, len(phs)) if id(phs[j]) in live]
        new_cond = Graph(outputs=list(cond.outputs), inputs=[cond.inputs[i] for i in carries + cconsts])
        new_body = Graph(outputs=[body.outputs[i] for i in keep_out], inputs=[phs[i] for i in carries + bconsts])
        inputs = ([node.inputs[i] for i in carries] + [node.inputs[j] for j in cconsts]
                  + [node.inputs[ncond + j] for j in bconsts])
        changes = {"cond": new_cond, "body": new_body, "n_carry": len(carries), "n_cond": len(cconsts)}
    changes["output"] = keep_out.index(node.param("output"))
    record("loop_dead_carries", len(body.outputs) - len(keep_out))
    return _with_params(node, changes, inputs)

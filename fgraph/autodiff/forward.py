"""Forward mode (tangents pushed from inputs to outputs), for graphs with loops.

``fgraph.jvp`` transposes the reverse mode, which cannot go through a
``while_loop`` (its trip count is unknown when the gradient is built).  A
graph holding a loop or branch is differentiated forwards instead: each
node's tangent is computed from its inputs' tangents, in topological order.

- ``while_loop``: a ``while_loop`` carrying ``(carries, tangents)`` whose
  body is the body and its own forward-mode tangent (as in JAX);
- ``scan``: a ``scan`` carrying ``(carries, tangents)`` over ``(xs, their
  tangents)``, stacking the ys and their tangents;
- ``switch``: a ``switch`` on the same index over the branches' tangents;
- any other op: its reverse rule transposed locally (the rule is linear in
  the cotangent ``u``, so ``d<rule(u), t>/du`` is ``J t``).
"""
from __future__ import annotations

from .. import numpy as fnp
from ..control import scan, switch, while_loop
from ..errors import FgraphError
from ..graph import inline
from ..tensor import Tensor
from ..symbol import Node, error_at, next_id, topological
from ..registry import attr_table
from .core import _expanded, differentiable, gradients, sum_to

CONTROL = ("while_loop", "scan", "switch")


def has_control(nodes) -> bool:
    """Whether a loop or branch lies below ``nodes`` (their top-level graph)."""
    return any(n.op in CONTROL for n in topological(nodes))


def forward(outs: list[Node], seeds: dict, st) -> list:
    """Tangents of ``outs`` (Tensor, or None where zero) given ``seeds``:
    ``{id(node): tangent Tensor}``.  Iterative over the nodes."""
    outs = [_expanded(o) for o in outs]
    tan = dict(seeds)
    memo: dict = {}
    rules = {"while_loop": _while_jvp, "scan": _scan_jvp, "switch": _switch_jvp}
    for n in topological(outs):
        if id(n) in tan or not n.inputs or not differentiable(n.dtype):
            continue
        ts = [tan.get(id(i)) for i in n.inputs]
        if all(t is None for t in ts):
            continue
        t = rules.get(n.op, _transposed)(n, ts, st, memo)
        if t is not None:
            tan[id(n)] = t
    return [tan.get(id(o)) for o in outs]


def _transposed(n: Node, ts: list, st, memo) -> Tensor | None:
    """Node's tangent ``J t`` from its reverse rule, linearised on a local
    copy of it: its inputs and their tangents are placeholders while the
    rule's graph is built and differentiated, then replaced by the real
    nodes.  So each node costs its rule's size, not the size of the history
    below it (differentiating through that history made the whole pass
    quadratic: a fori_loop and 40 element-wise ops took 0.16 s, 80 never
    finished)."""
    rule = attr_table("grad").get(n.op)
    if rule is None:
        raise error_at(FgraphError, "jvp", f"op {n.op!r} has no gradient rule (node made at "
                                           f"{n.where[0]}:{n.where[1]})" if n.where else f"op {n.op!r} has no rule")
    back: dict[int, Node] = {}  # id(stand-in) -> the real node

    def stand_in(real: Node) -> Node:
        if not real.inputs:  # a leaf has no history to cut
            return real
        p = Node("placeholder", (("name", "jvp_stand_in"), ("id", next_id())), (), real.shape, real.dtype,
                 real.weak, None, None)
        back[id(p)] = real
        return p

    ins = [stand_in(i) for i in n.inputs]
    local = n.with_inputs(tuple(ins))
    back[id(local)] = n
    u = fnp.zeros(n.shape, n.dtype)
    cots = rule(Tensor(local, st), [Tensor(i, st) for i in ins], u, **dict(n.params))
    total = None
    for i, c, t in zip(n.inputs, cots, ts):
        if c is None or t is None or not differentiable(i.dtype):
            continue
        c = sum_to(c, i.shape)
        term = fnp.sum(c * Tensor(stand_in(t.node), st))
        total = term if total is None else total + term
    if total is None:
        return None
    return Tensor(_put_back(gradients(total, [u])[0].node, back), st)


def _put_back(root: Node, back: dict) -> Node:
    """``root`` with each stand-in replaced by its real node (iterative)."""
    mapping = dict(back)
    for m in topological([root]):
        if id(m) in mapping or not m.inputs:
            continue
        new = tuple(mapping.get(id(i), i) for i in m.inputs)
        if any(a is not b for a, b in zip(new, m.inputs)):
            mapping[id(m)] = m.with_inputs(new)
    return mapping.get(id(root), root)


def _zeros_like(x):
    return fnp.zeros(x.shape, x.dtype)


def _memo(memo, n: Node, build):
    """All the tangents of one multi-result node, built once for all its result nodes."""
    key = (n.op, tuple(id(i) for i in n.inputs), tuple(p for p in n.params if p[0] != "output"))
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = build()
    return hit[n.param("output")]


def _seeded(nodes, tangents, fl) -> dict:
    return {id(nodes[i]): t for i, t in zip(fl, tangents)}


def _while_jvp(n: Node, ts: list, st, memo):
    cond, body, nc, ncond = n.param("cond"), n.param("body"), n.param("n_carry"), n.param("n_cond")

    def build():
        carries = [Tensor(i, st) for i in n.inputs[:nc]]
        cconsts = [i for i in n.inputs[nc:nc + ncond]]
        bconsts = list(n.inputs[nc + ncond:])
        kts = ts[nc + ncond:]
        fl = [i for i in range(nc) if differentiable(carries[i].dtype)]
        dc0 = [ts[i] if ts[i] is not None else _zeros_like(carries[i]) for i in fl]

        def cond_fn(state):
            c, _ = state
            return Tensor(inline(cond, [x.node for x in c] + cconsts)[0], st)

        def body_fn(state):
            c, dc = state
            outs = inline(body, [x.node for x in c] + bconsts)
            seeds = _seeded([x.node for x in c], dc, fl)
            seeds.update({id(k): t for k, t in zip(bconsts, kts) if t is not None})
            touts = forward([outs[i] for i in fl], seeds, st)
            return ([Tensor(o, st) for o in outs],
                    [t if t is not None else _zeros_like(carries[i]) for t, i in zip(touts, fl)])

        _, dc = while_loop(cond_fn, body_fn, (carries, dc0))
        return [dc[fl.index(i)] if i in fl else None for i in range(nc)]

    return _memo(memo, n, build)


def _scan_jvp(n: Node, ts: list, st, memo):
    body, nc, nx = n.param("body"), n.param("n_carry"), n.param("n_xs")

    def build():
        carries = [Tensor(i, st) for i in n.inputs[:nc]]
        xs = [Tensor(i, st) for i in n.inputs[nc:nc + nx]]
        consts = list(n.inputs[nc + nx:])
        kts = ts[nc + nx:]
        fl = [i for i in range(nc) if differentiable(carries[i].dtype)]
        fx = [j for j in range(nx) if ts[nc + j] is not None]
        ny = len(body.outputs) - nc
        fy = [j for j in range(ny) if differentiable(body.outputs[nc + j].dtype)]
        dc0 = [ts[i] if ts[i] is not None else _zeros_like(carries[i]) for i in fl]

        def step(state, row):
            c, dc = state
            x, dx = row
            outs = inline(body, [v.node for v in c] + [v.node for v in x] + consts)
            seeds = _seeded([v.node for v in c], dc, fl)
            seeds.update(_seeded([v.node for v in x], dx, fx))
            seeds.update({id(k): t for k, t in zip(consts, kts) if t is not None})
            touts = forward([outs[i] for i in fl] + [outs[nc + j] for j in fy], seeds, st)
            new = [Tensor(o, st) for o in outs]
            zeros = [carries[i] for i in fl] + [new[nc + j] for j in fy]
            touts = [t if t is not None else _zeros_like(z) for t, z in zip(touts, zeros)]
            return (new[:nc], touts[:len(fl)]), (new[nc:], touts[len(fl):])

        (_, dc), (_, dys) = scan(step, (carries, dc0), (xs, [ts[nc + j] for j in fx]), length=n.param("length"),
                                 reverse=n.param("reverse"))
        out = [dc[fl.index(i)] if i in fl else None for i in range(nc)]
        return out + [dys[fy.index(j)] if j in fy else None for j in range(ny)]

    return _memo(memo, n, build)


def _switch_jvp(n: Node, ts: list, st, memo):
    branches, nops, splits = n.param("branches"), n.param("n_operands"), n.param("splits")

    def build():
        rest = list(n.inputs[1:])
        live = [i for i, t in enumerate(ts[1:]) if t is not None]
        fo = [k for k, o in enumerate(branches[0].outputs) if differentiable(o.dtype)]

        def branch_jvp(b):
            def fn(*args):
                vals, tans = args[:len(rest)], args[len(rest):]
                at = nops + sum(splits[:b])
                outs = inline(branches[b], [v.node for v in vals[:nops] + vals[at:at + splits[b]]])
                touts = forward([outs[k] for k in fo], {id(vals[i].node): t for i, t in zip(live, tans)}, st)
                return tuple(t if t is not None else _zeros_like(Tensor(outs[k], st)) for t, k in zip(touts, fo))
            return fn

        res = switch(Tensor(n.inputs[0], st), [branch_jvp(b) for b in range(len(branches))],
                     *[Tensor(r, st) for r in rest], *[ts[1 + i] for i in live])
        return [res[fo.index(k)] if k in fo else None for k in range(len(branches[0].outputs))]

    return _memo(memo, n, build)

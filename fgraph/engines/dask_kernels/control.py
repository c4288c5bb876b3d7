"""Dask lowerings of the control-flow ops (fgraph/ops/control.py).

Dask builds its whole task graph before anything runs, so a loop lowers
only where its trip count is known when the graph is built:

- ``scan`` (and ``fori_loop`` with static bounds): unrolled, one copy of
  the body's lowering a step, over whole (chunked) arrays;
- ``switch`` (and ``cond``): every branch is lowered and the index picks
  the results element-wise (``da.where``): the index is data, not known
  when the graph is built, so every branch is computed;
- ``while_loop``: refused when the graph is compiled (its trip count
  depends on the data), naming the loop and the user's line.
"""
from __future__ import annotations

import dask.array as da

from ...registry import Refused, override

_MEMO_MAX = 64


def _run(ctx, body, args) -> list:
    """The body's results lowered on dask arrays ``args`` (its inputs, in order);
    the body's nodes are ordered and their lowerings looked up once per compile."""
    from ..dask_engine import Lowered  # (the engine imports this package: a cycle at import time)

    bodies = ctx.__dict__.setdefault("_control_bodies", {})
    low = bodies.get(body)
    if low is None:
        low = bodies[body] = Lowered(body.outputs)
    vals = {id(p): a for p, a in zip(body.inputs, args)}
    return low.build(ctx, lambda n: vals[id(n)])


def _memo(ctx, node, args, compute):
    """Every result of one loop, lowered once for all its result nodes."""
    memo = ctx.__dict__.setdefault("_control_memo", {})
    key = (node.op, tuple((k, v) for k, v in node.params if k != "output"), tuple(id(a) for a in args))
    hit = memo.get(key)
    if hit is None or any(a is not b for a, b in zip(hit[0], args)):
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        hit = memo[key] = (args, compute())
    return hit[1][node.param("output")]


def _scan(ctx, node, *args):
    body, n, k = node.param("body"), node.param("n_carry"), node.param("n_xs")
    length, reverse = node.param("length"), node.param("reverse")

    def compute():
        carry, xs, consts = list(args[:n]), args[n:n + k], list(args[n + k:])
        rows: list = [[None] * length for _ in body.outputs[n:]]
        for t in (range(length - 1, -1, -1) if reverse else range(length)):
            out = _run(ctx, body, carry + [x[t] for x in xs] + consts)
            carry = out[:n]
            for r, v in zip(rows, out[n:]):
                r[t] = v
        ys = [da.stack(r) if length else da.zeros((0,) + o.shape, dtype=o.dtype)
              for r, o in zip(rows, body.outputs[n:])]
        return carry + ys

    return _memo(ctx, node, args, compute)


def _switch(ctx, node, index, *args):
    branches, n_ops, splits = node.param("branches"), node.param("n_operands"), node.param("splits")

    def compute():
        outs, at = [], n_ops
        for g, m in zip(branches, splits):
            outs.append(_run(ctx, g, list(args[:n_ops]) + list(args[at:at + m])))
            at += m
        idx = da.clip(index, 0, len(branches) - 1)
        picked = outs[-1]
        for b in range(len(branches) - 2, -1, -1):
            picked = [da.where(idx == b, o, p) for o, p in zip(outs[b], picked)]
        return picked

    return _memo(ctx, node, (index,) + args, compute)


override("dask", "scan", _scan)
override("dask", "switch", _switch)
override("dask", "while_loop", Refused(
    "it builds its whole graph before anything runs, and this loop's trip count depends on the data; use "
    "fori_loop with Python int bounds or scan (a known trip count), or the numpy engine"))

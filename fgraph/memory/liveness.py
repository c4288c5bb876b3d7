"""Lifetimes of buffers over a schedule, and the lower bound they imply.

Step ``k`` is position ``k`` of the schedule.  A buffer is live over the
inclusive steps ``[start, end]``: born at the step of the node that writes
it, dead after the last step that reads it (directly or through a view).
A node's inputs and its output are therefore live together at its step,
which is what makes the lower bound a bound.

Buffers that the caller can still see after the run (graph outputs, update
values, anything ``pinned``) live through step ``n_steps``, one past the
last node: a virtual step for the caller, so that no buffer born during the
run can share their memory and no in-place pair can claim them.

A node may also need scratch memory while its kernel runs (a workspace,
as TVM and TensorFlow call it: a convolution's im2col patches).  libnnc's
allocator treats such scratch as one more tensor: here it is a buffer live
at that node's step only, so it shares memory with every tensor dead then,
counts in the lower bound, and is placed and checked like any other.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, NamedTuple, Sequence

import numpy as np

from ..symbol import Node


@dataclass(frozen=True, slots=True)
class Buffer:
    """One block of arena memory: ``nbytes`` live over steps ``[start, end]``."""

    id: int
    nbytes: int
    start: int
    end: int


class Lifetimes(NamedTuple):
    """What :func:`lifetimes` learned about a schedule.

    ``by_node``: id(node) -> the Buffer holding its value (a view maps to
    the buffer it aliases; leaves and views of leaves are absent).
    ``buffers``: one Buffer per storage node and one per workspace, by
    start step; a value's buffer id is the step of the node that owns it, a
    workspace's is :func:`workspace_id` of its step.  ``pinned``: ids of the
    buffers that live through the caller's step.  ``n_steps``:
    ``len(order)``.  ``workspace``: step -> the Buffer of that node's
    workspace (steps whose node needs none are absent).
    """

    by_node: dict
    buffers: list
    pinned: frozenset
    n_steps: int
    workspace: dict = {}


def workspace_id(step: int, n_steps: int) -> int:
    """The buffer id of the workspace of the node at ``step``: after every
    value's id (those are steps, ``< n_steps``), so the two never clash."""
    return n_steps + 1 + step


def nbytes(node: Node) -> int:
    """``node.nbytes`` without NumPy's per-call overhead (this runs per node)."""
    return math.prod(node.shape) * node.dtype.itemsize


def _no_alias(node: Node):
    return None


def lifetimes(order: Sequence[Node], roots: Iterable[Node], storage: Callable[[Node], bool],
              alias_of: Callable[[Node], Node | None] = _no_alias, pinned: Callable[[Node], bool] | None = None,
              size: Callable[[Node], int] = nbytes, workspace: Callable[[Node], int] | None = None) -> Lifetimes:
    """Each storage node's buffer and its lifetime over ``order``.

    ``storage(n)`` False: ``n`` needs no arena buffer (leaves own their
    memory).  ``alias_of(n)``: the input whose buffer the view ``n`` reads
    (``None`` for a node that writes its own); a view extends the lifetime of
    what it aliases, transitively.  Roots and ``pinned`` nodes (or the
    buffers they view) live through step ``len(order)``.  ``workspace(n)``:
    bytes of scratch ``n``'s kernel needs while it runs (0: none), a buffer
    live at ``n``'s step alone.
    """
    n_steps = len(order)
    base: dict[int, int] = {}  # id(node) -> step of the node owning its buffer, or -1
    last = list(range(n_steps))  # per owner step: the last step reading it (itself if none)
    for k, n in enumerate(order):
        for i in n.inputs:
            b = base[id(i)]
            if b >= 0:
                last[b] = k  # steps only grow: the latest reader wins
        a = alias_of(n)
        if a is not None:
            base[id(n)] = base[id(a)]
        else:
            base[id(n)] = k if storage(n) else -1
    keep = set()
    for n in roots:
        b = base[id(n)]
        if b >= 0:
            keep.add(b)
    for n in order if pinned is not None else ():
        if pinned(n):
            b = base[id(n)]
            if b >= 0:
                keep.add(b)
    bufs: dict[int, Buffer] = {}
    scratch: dict[int, Buffer] = {}
    listed = []
    for k, n in enumerate(order):
        if base[id(n)] == k:
            bufs[k] = Buffer(k, int(size(n)), k, n_steps if k in keep else last[k])
            listed.append(bufs[k])
        w = int(workspace(n)) if workspace is not None else 0
        if w > 0:
            scratch[k] = Buffer(workspace_id(k, n_steps), w, k, k)
            listed.append(scratch[k])
    by_node = {i: bufs[b] for i, b in base.items() if b >= 0}
    return Lifetimes(by_node, listed, frozenset(keep), n_steps, scratch)


def inplace_pairs(order: Sequence[Node], live: Lifetimes,
                  candidates: Callable[[Node], Iterable[int]]) -> list[tuple[int, int]]:
    """Legal ``(out_buffer_id, in_buffer_id)`` pairs for the planner.

    ``candidates(n)``: positions of the inputs that op ``n`` declares it may
    overwrite (a registry attribute).  A pair is kept when the input owns its
    buffer (a view's layout differs from its base's), dies at ``n``'s step,
    is not pinned, has ``n``'s shape and dtype (so element ``i`` of the
    output is exactly element ``i`` of the input: NumPy's ufuncs see the
    same array and need no temporary copy, which any other overlap costs),
    and no other input of ``n`` reads the same buffer through another node
    (a shifted or transposed view would be read after being overwritten).
    At most one pair per output.
    """
    pairs = []
    by_node = live.by_node
    for k, n in enumerate(order):
        out = by_node.get(id(n))
        if out is None or out.start != k:
            continue
        for pos in candidates(n):
            x = n.inputs[pos]
            buf = by_node.get(id(x))
            if (buf is None or buf.end != k or buf.id in live.pinned or buf.nbytes < out.nbytes
                    or x.shape != n.shape or x.dtype != n.dtype):
                continue
            if order[buf.id] is not x:
                continue  # x is a view of the buffer, not its owner
            if any(by_node.get(id(y)) is buf and y is not x for y in n.inputs):
                continue
            pairs.append((out.id, buf.id))
            break
    return pairs


def merge_inplace(buffers: Sequence[Buffer], inplace: Iterable[tuple[int, int]] = ()) -> list[list[Buffer]]:
    """Chains of buffers that in-place pairs make share one region.

    A pair ``(out, in)`` is legal when ``in.end == out.start`` and
    ``out.nbytes <= in.nbytes``; each buffer is the ``in`` of at most one
    legal pair and the ``out`` of at most one (the first in ``inplace``
    order wins; others are ignored), and a buffer in both roles lives more
    than one step (else the chain's ends would be live at one step).  Returns groups (head first, each
    later member born when the previous dies), in ``buffers`` order of their
    heads; a buffer in no pair is a group of one.
    """
    byid = {b.id: b for b in buffers}
    nxt: dict[int, int] = {}
    prv: dict[int, int] = {}
    for o, i in inplace:
        bo, bi = byid.get(o), byid.get(i)
        if (bo is None or bi is None or o == i or o in prv or i in nxt
                or bi.end != bo.start or bo.nbytes > bi.nbytes
                or (i in prv and bi.start == bi.end) or (o in nxt and bo.start == bo.end)):
            continue
        nxt[i] = o
        prv[o] = i
    groups = []
    for b in buffers:
        if b.id in prv:
            continue
        g = [b]
        while g[-1].id in nxt:
            g.append(byid[nxt[g[-1].id]])
        groups.append(g)
    return groups


def lower_bound(buffers: Sequence[Buffer], n_steps: int | None = None, inplace: Iterable[tuple[int, int]] = ()) -> int:
    """The largest total of bytes live at one step: no plan can use less.

    With ``inplace`` pairs, the output of each legal pair (see
    :func:`merge_inplace`) is not counted at the step it shares with its
    input, where it lies inside the input's bytes: the bound for plans that
    may use the pairs.  A sweep over a difference array: O(n + steps).
    """
    if not buffers:
        return 0
    s = np.fromiter((b.start for b in buffers), np.int64, len(buffers))
    e = np.fromiter((b.end for b in buffers), np.int64, len(buffers))
    w = np.fromiter((b.nbytes for b in buffers), np.int64, len(buffers))
    top = max(int(e.max()), n_steps or 0) + 2
    diff = np.zeros(top, dtype=np.int64)
    np.add.at(diff, s, w)
    np.add.at(diff, e + 1, -w)
    for g in merge_inplace(buffers, inplace) if inplace else ():
        for b in g[1:]:  # born inside its predecessor, which dies at this step
            diff[b.start] -= b.nbytes
            diff[b.start + 1] += b.nbytes
    return int(np.cumsum(diff).max())


def no_reuse_bytes(buffers: Sequence[Buffer], alignment: int = 1) -> int:
    """Bytes needed when every buffer gets its own aligned region."""
    a = alignment
    return sum(-(-b.nbytes // a) * a for b in buffers)

"""Execution orders: plain post-order DFS, and a memory-aware greedy order.

Both are iterative (graphs may have a million nodes) and deterministic.
"""
from __future__ import annotations

import heapq
from typing import Callable, Sequence

from ..symbol import Node, topological
from .liveness import nbytes as _nbytes

STRATEGIES = ("dfs", "greedy")


def _always(node: Node) -> bool:
    return True


class _Graph:
    """The needed nodes as integer arrays (DFS positions), for both the
    greedy scheduler and the peak-memory simulation."""

    def __init__(self, roots, size, is_storage, alias_of, pinned, workspace=None):
        dfs = self.dfs = topological(roots)
        n = len(dfs)
        index = {}
        # scratch each node's kernel needs at its step alone
        self.scratch = [int(workspace(node)) for node in dfs] if workspace is not None else None
        base = [-1] * n  # DFS position of the node owning k's buffer, or -1: none
        self.own = own = [0] * n  # bytes node k allocates
        self.pending = pending = [0] * n  # distinct inputs of k
        self.users = users = [[] for _ in range(n)]
        self.reads = reads = [()] * n  # buffers k reads (distinct)
        self.readers = readers = [[] for _ in range(n)]  # per buffer: the nodes that read it
        self.remaining = remaining = [0] * n  # per buffer: its readers
        kept = []
        for k, node in enumerate(dfs):  # inputs come first in DFS order: one pass
            index[id(node)] = k
            a = alias_of(node) if alias_of is not None else None
            if a is not None:
                base[k] = base[index[id(a)]]
            elif is_storage(node):
                base[k] = k
                own[k] = int(size(node))
            if pinned is not None and base[k] >= 0 and pinned(node):
                kept.append(base[k])
            ins = node.inputs
            if not ins:
                continue
            if len(ins) == 1:  # the common case, without building lists
                j = index[id(ins[0])]
                pending[k] = 1
                users[j].append(k)
                b = base[j]
                if b >= 0:
                    reads[k] = (b,)
                    remaining[b] += 1
                    readers[b].append(k)
                continue
            js = list(dict.fromkeys([index[id(i)] for i in ins]))  # distinct, in order
            pending[k] = len(js)
            bs = []
            for j in js:
                users[j].append(k)
                b = base[j]
                if b >= 0 and b not in bs:
                    bs.append(b)
            if bs:
                reads[k] = tuple(bs)
                for b in bs:
                    remaining[b] += 1
                    readers[b].append(k)
        kept.extend(base[index[id(r)]] for r in roots)
        for b in kept:
            if b >= 0:
                remaining[b] = n + 1  # outlives the run: its count never runs out

    def peak(self, order: Sequence[int]) -> int:
        """The lower bound of an order of DFS positions: bytes live at the
        worst step, a node's inputs, output and workspace counted together."""
        own, reads, scratch = self.own, self.reads, self.scratch
        left = list(self.remaining)
        live = peak = 0
        for k in order:
            live += own[k]
            now = live + scratch[k] if scratch is not None else live
            if now > peak:
                peak = now
            for b in reads[k]:
                left[b] -= 1
                if not left[b]:
                    live -= own[b]
            if not left[k] and own[k]:
                live -= own[k]  # nobody reads it: dead at once
        return peak

    def greedy(self) -> list[int]:
        """Memory-aware list scheduling (see :func:`schedule`)."""
        own, reads, readers, users = self.own, self.reads, self.readers, self.users
        remaining = list(self.remaining)
        pending = list(self.pending)
        n = len(own)

        def score(k):
            s = own[k]
            for b in reads[k]:
                if remaining[b] == 1:
                    s -= own[b]
            return s

        heap = [(score(k), k) for k in range(n) if not pending[k]]
        heapq.heapify(heap)
        done = bytearray(n)
        order = []
        push, pop = heapq.heappush, heapq.heappop
        while heap:
            k = pop(heap)[1]
            if done[k]:
                continue  # a stale entry: the node was pushed again with a better score
            done[k] = 1
            order.append(k)
            for b in reads[k]:
                r = remaining[b] - 1
                remaining[b] = r
                if r == 1:  # its last reader would now free it: re-score that reader
                    for u in readers[b]:
                        if not done[u]:
                            break
                    if not pending[u]:
                        push(heap, (score(u), u))
            for u in users[k]:
                p = pending[u] - 1
                pending[u] = p
                if not p:
                    push(heap, (score(u), u))
        return order


def schedule(roots: Sequence[Node], strategy: str = "greedy", size: Callable[[Node], int] = _nbytes,
             is_storage: Callable[[Node], bool] = _always, alias_of: Callable[[Node], Node | None] | None = None,
             pinned: Callable[[Node], bool] | None = None) -> list[Node]:
    """A topological order of every node the roots need.

    ``"dfs"``: post-order DFS from the roots, inputs left to right.
    ``"greedy"``: list scheduling that always runs, among the ready nodes,
    the one that grows live memory least: the bytes it allocates minus the
    bytes of the buffers whose last remaining reader it is.  Ties go to the
    earlier node in DFS order, so the greedy order departs from DFS only
    where memory says so.

    ``is_storage(n)`` False: ``n`` allocates nothing (a leaf owns its
    memory).  ``alias_of(n)``: the input a view reads through (it allocates
    nothing and keeps that buffer alive).  Buffers of roots and ``pinned``
    nodes are never freed.  O(E log V): a heap, where a node whose score
    improves (it became the last reader of a buffer) is pushed again and its
    stale entry skipped.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown schedule strategy {strategy!r}; choose from {STRATEGIES}")
    roots = list(roots)
    if strategy == "dfs":
        return topological(roots)
    g = _Graph(roots, size, is_storage, alias_of, pinned)
    return [g.dfs[k] for k in g.greedy()]


def best_schedule(roots: Sequence[Node], size: Callable[[Node], int] = _nbytes,
                  is_storage: Callable[[Node], bool] = _always,
                  alias_of: Callable[[Node], Node | None] | None = None,
                  pinned: Callable[[Node], bool] | None = None,
                  workspace: Callable[[Node], int] | None = None) -> tuple[list[Node], str]:
    """Both orders; returns the one with the smaller lower bound (DFS on a
    tie: it keeps producers next to consumers) and its strategy name.

    The bound is the same as :func:`~fgraph.memory.liveness.lower_bound`
    over :func:`~fgraph.memory.liveness.lifetimes` would give (with the
    same ``workspace``), simulated on the integer graph both orders share.
    """
    g = _Graph(list(roots), size, is_storage, alias_of, pinned, workspace)
    greedy = g.greedy()
    if g.peak(greedy) < g.peak(range(len(g.dfs))):
        return [g.dfs[k] for k in greedy], "greedy"
    return list(g.dfs), "dfs"

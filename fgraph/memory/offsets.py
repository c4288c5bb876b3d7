"""Offsets into one arena: several planners and :func:`plan`, which keeps the best.

Every planner takes buffers (id, nbytes, live steps) and returns a
:class:`Plan` in which no two buffers live at one step share a byte,
except a legal in-place pair (the output overwrites the input at the step
where the input dies).  In-place pairs are merged first into one group with
the union of their lifetimes (:func:`~fgraph.memory.liveness.merge_inplace`),
so every planner saves the output's memory and gives both the same offset.

Sizes are rounded up to ``alignment`` while planning, so every offset is a
multiple of it; ``arena_bytes`` is the end of the highest buffer.

- :func:`greedy_by_size`: TFLite's offline planner.  Largest first, each at
  the lowest offset (or, ``best_fit``, the tightest gap) that clears every
  placed buffer overlapping it in time.  Partial reuse comes for free: a
  small buffer fits in part of a larger dead one.
- :func:`interference`: libnnc's order (most interference first, size to
  break ties, a larger non-interfering partner put on the same region)
  with offsets instead of an explicit allocation graph.
- :func:`sweep`: an online best-fit allocator run in schedule order, with
  coalescing free blocks; ``keepers_on_top`` stacks the buffers that live
  to the end apart.  O(n log n) whatever the graph: the fallback when the
  offline planners, O(n log n + overlapping pairs), would take too long.
"""
from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

import numpy as np

from .liveness import Buffer, merge_inplace


@dataclass(frozen=True)
class Plan:
    """Where each buffer lives: ``offsets[buffer_id]`` bytes into an arena
    of ``arena_bytes``; ``strategy`` names the planner that made it."""

    offsets: Mapping[int, int]
    arena_bytes: int
    strategy: str
    alignment: int = 64
    stats: Mapping[str, int] = field(default_factory=dict, compare=False)


class _Groups:
    """Buffers merged by in-place pairs, as parallel lists (fast to index)."""

    def __init__(self, buffers: Sequence[Buffer], alignment: int, inplace):
        if alignment < 1:
            raise ValueError("alignment must be a positive number of bytes")
        self.buffers = buffers
        self.alignment = alignment
        self.members = merge_inplace(buffers, inplace)
        a = alignment
        # merged chains shrink (out.nbytes <= in.nbytes), so the head is the largest
        self.size = [-(-g[0].nbytes // a) * a for g in self.members]
        self.start = [g[0].start for g in self.members]
        self.end = [g[-1].end for g in self.members]

    def __len__(self):
        return len(self.members)

    def plan(self, off: list[int], strategy: str, **stats) -> Plan:
        offsets = {}
        arena = 0
        for g, o in zip(self.members, off):
            for b in g:
                offsets[b.id] = o
                if b.nbytes and o + b.nbytes > arena:
                    arena = o + b.nbytes
        return Plan(MappingProxyType(offsets), arena, strategy, self.alignment, MappingProxyType(stats))

    def degrees(self) -> list[int]:
        """How many other groups each group overlaps in time (its degree in
        the interference graph), without building the graph: O(n log n)."""
        if not self.members:
            return []
        s = np.asarray(self.start, dtype=np.int64)
        e = np.asarray(self.end, dtype=np.int64)
        deg = np.searchsorted(np.sort(s), e, "right") - np.searchsorted(np.sort(e), s, "left") - 1
        return deg.tolist()


class _TimeIndex:
    """Placed groups, queried for those overlapping a group in time.

    Time is compressed to the ranks of the distinct start steps (two
    intervals overlap iff the later start lies in the earlier interval, so
    overlap is unchanged).  A group overlapping ``g`` either starts within
    ``g``'s interval (found by scanning ``g``'s compressed range, each slot
    of which holds a start) or started earlier and is live at ``g``'s
    start.  Those are found in ``cover[start]`` for short groups (painted
    over their few slots) and by a stabbing query on a segment tree for
    long ones (stored at O(log n) nodes).  Most tensors are short-lived, so
    most queries never walk the tree.  A query costs the starts in ``g``'s
    lifetime plus the answer (plus O(log n) once long groups exist):
    O(n log n + overlapping pairs) in all.
    """

    SHORT = 64  # compressed slots; longer groups go to the tree

    def __init__(self, groups: _Groups):
        ds = np.unique(np.asarray(groups.start, dtype=np.int64))
        self.cs = np.searchsorted(ds, groups.start, "left").tolist()
        self.ce = (np.searchsorted(ds, groups.end, "right") - 1).tolist()
        t = max(1, len(ds))
        self.width = 1 << (t - 1).bit_length()
        self.tree: list = [None] * (2 * self.width)
        self.at: list = [None] * t  # slot -> groups starting there
        self.cover: list = [None] * t  # slot -> short groups started earlier, live there
        self.longs = 0

    def add(self, g: int) -> None:
        cs, ce = self.cs[g], self.ce[g]
        at = self.at
        if at[cs] is None:
            at[cs] = [g]
        else:
            at[cs].append(g)
        if ce - cs < self.SHORT:
            cover = self.cover
            for t in range(cs + 1, ce + 1):
                if cover[t] is None:
                    cover[t] = [g]
                else:
                    cover[t].append(g)
            return
        self.longs += 1
        tree = self.tree
        lo, hi = cs + self.width, ce + self.width + 1
        while lo < hi:  # the O(log n) canonical nodes covering [cs, ce]
            if lo & 1:
                if tree[lo] is None:
                    tree[lo] = [g]
                else:
                    tree[lo].append(g)
                lo += 1
            if hi & 1:
                hi -= 1
                if tree[hi] is None:
                    tree[hi] = [g]
                else:
                    tree[hi].append(g)
            lo >>= 1
            hi >>= 1

    def overlapping(self, g: int) -> list[int]:
        cs = self.cs
        s = cs[g]
        c = self.cover[s]
        out = [] if c is None else list(c)
        if self.longs:
            tree = self.tree
            i = s + self.width
            while i:
                node = tree[i]
                if node is not None:
                    for h in node:
                        if cs[h] != s:  # started before s (the scan below finds those starting at s)
                            out.append(h)
                i >>= 1
        at = self.at
        for t in range(s, self.ce[g] + 1):
            slot = at[t]
            if slot is not None:
                out.extend(slot)
        return out


def _place(segments: list[tuple[int, int]], need: int, best: bool) -> int:
    """The offset for ``need`` bytes among occupied ``[lo, hi)`` segments:
    the lowest gap that fits, or with ``best`` the tightest; above them all
    when none fits."""
    segments.sort()
    top = 0
    pick, pick_gap = -1, 0
    for lo, hi in segments:
        if lo - top >= need:
            if not best:
                return top
            if pick < 0 or lo - top < pick_gap:
                pick, pick_gap = top, lo - top
        if hi > top:
            top = hi
    return pick if pick >= 0 else top


def _offline(groups: _Groups, order: Iterable[int], best: bool, partner=None) -> list[int]:
    """Place groups in ``order``, each clear of the placed groups it overlaps in time.

    ``partner(g, placed)``: optionally, an unplaced group to try at ``g``'s
    offset right after ``g`` (libnnc's tuple of two tensors sharing a region).
    """
    size = groups.size
    off = [0] * len(groups)
    placed = bytearray(len(groups))
    index = _TimeIndex(groups)

    def taken(g):  # [lo, hi) of the placed groups live with g
        return [(off[h], off[h] + size[h]) for h in index.overlapping(g) if size[h]]

    extent = 0  # the arena so far
    for g in order:
        if placed[g]:
            continue
        if size[g]:
            off[g] = _place(taken(g), size[g], best)
            extent = max(extent, off[g] + size[g])
        placed[g] = 1
        index.add(g)
        p = partner(g, placed) if partner is not None else None
        if p is not None and size[p]:
            # on g's region only while that takes no fresh bytes (libnnc prefers reuse)
            lo, hi = off[g], off[g] + size[p]
            segs = taken(p)
            fits = hi <= extent and all(b <= lo or a >= hi for a, b in segs)
            off[p] = lo if fits else _place(segs, size[p], best)
            extent = max(extent, off[p] + size[p])
            placed[p] = 1
            index.add(p)
    return off


def greedy_by_size(buffers: Sequence[Buffer], alignment: int = 64, inplace=(), best_fit: bool = False) -> Plan:
    """TFLite's greedy-by-size planner: largest buffer first (ties: earlier
    start, then id), each at the lowest aligned offset where it clears every
    placed buffer live at any of its steps; ``best_fit`` takes the tightest
    such gap instead (TFLite's choice).  O(n log n + overlapping pairs)."""
    return _greedy_by_size(_Groups(buffers, alignment, inplace), best_fit)


def _greedy_by_size(gs: _Groups, best_fit: bool = False) -> Plan:
    order = sorted(range(len(gs)), key=lambda g: (-gs.size[g], gs.start[g], g))
    name = "greedy_by_size_best_fit" if best_fit else "greedy_by_size"
    return gs.plan(_offline(gs, order, best_fit), name)


def interference(buffers: Sequence[Buffer], alignment: int = 64, inplace=(), lookahead: int = 8) -> Plan:
    """libnnc's allocation order, with offsets in place of the allocation graph.

    libnnc inserts tensors into an allocation graph (edges: bytes a tensor
    hands on to a later, non-interfering one) in this order: the tensor
    with the most interference-graph edges first, ties by size; it is paired
    with a larger tensor that does not interfere with it, which reuses its
    region; each insertion reuses an existing edge (a region between placed
    tensors) when one fits and takes fresh bytes from the source otherwise.
    Here the degrees come from a sweep (the graph itself is never built),
    a tensor reuses the tightest gap among the placed tensors it interferes
    with, else goes above them (the "fresh bytes"), and its partner (the
    first larger non-interfering tensor within ``lookahead`` places of it
    in the order) goes at the same offset when it fits there without growing
    the arena.  Offsets express every allocation graph the insertion can
    build, and more.
    """
    return _interference(_Groups(buffers, alignment, inplace), lookahead)


def _interference(gs: _Groups, lookahead: int = 8) -> Plan:
    deg = gs.degrees()
    size, start, end = gs.size, gs.start, gs.end
    order = sorted(range(len(gs)), key=lambda g: (-deg[g], -size[g], start[g], g))
    pos = {g: k for k, g in enumerate(order)}

    def partner(g, placed):
        k = pos[g] + 1
        for h in order[k:k + lookahead]:
            if not placed[h] and size[h] > size[g] and (end[h] < start[g] or start[h] > end[g]):
                return h
        return None

    return gs.plan(_offline(gs, order, True, partner), "interference")


def sweep(buffers: Sequence[Buffer], alignment: int = 64, inplace=(), keepers_on_top: bool = False) -> Plan:
    """An online best-fit allocator run over time.

    At each step the buffers that died free their blocks (coalesced with
    free neighbours; a free block at the top of the arena lowers the top),
    then each new buffer, largest first, takes the smallest free block that
    fits, or the top.  With ``keepers_on_top``, buffers that live through
    the last step (outputs, update values) never enter the free list, where
    they would split it for good: they stack downwards from the top of the
    arena, whose height is then the least that clears the other buffers at
    every step.  O(n log n) (the free list is a sorted list; it stays short).
    """
    return _sweep(_Groups(buffers, alignment, inplace), keepers_on_top)


def _sweep(gs: _Groups, keepers_on_top: bool = False) -> Plan:
    size, start, end = gs.size, gs.start, gs.end
    m = len(gs)
    last = max(end, default=0)
    alloc = sorted(range(m), key=lambda g: (start[g], -size[g], g))
    dies = sorted(range(m), key=lambda g: (end[g], g))
    off = [0] * m
    free_at: dict[int, int] = {}  # free block: offset -> size
    free_to: dict[int, int] = {}  # free block: end -> offset
    by_size: list[tuple[int, int]] = []  # free blocks as (size, offset), sorted
    top = 0  # end of the highest live block (of those in the free-list region)
    kept = 0  # bytes stacked at the top so far
    height = 0  # the arena needed so far: max of top + kept
    stacked = []
    d = 0
    for g in alloc:
        s = start[g]
        while d < m and end[dies[d]] < s:
            h = dies[d]
            d += 1
            if not size[h]:
                continue
            lo, hi = off[h], off[h] + size[h]
            if lo in free_to:  # merge with the free block below
                plo = free_to.pop(lo)
                del by_size[bisect_left(by_size, (free_at.pop(plo), plo))]
                lo = plo
            if hi in free_at:  # and the one above
                nsz = free_at.pop(hi)
                del free_to[hi + nsz]
                del by_size[bisect_left(by_size, (nsz, hi))]
                hi += nsz
            if hi == top:
                top = lo
            else:
                free_at[lo] = hi - lo
                free_to[hi] = lo
                insort(by_size, (hi - lo, lo))
        need = size[g]
        if not need:
            continue
        if keepers_on_top and end[g] == last:
            kept += need
            off[g] = kept  # distance below the top, resolved at the end
            stacked.append(g)
        else:
            i = bisect_left(by_size, (need, -1))
            if i < len(by_size):
                bsz, lo = by_size.pop(i)
                del free_at[lo]
                del free_to[lo + bsz]
                if bsz > need:
                    rest = lo + need
                    free_at[rest] = bsz - need
                    free_to[lo + bsz] = rest
                    insort(by_size, (bsz - need, rest))
                off[g] = lo
            else:
                off[g] = top
                top += need
        if top + kept > height:
            height = top + kept
    for g in stacked:
        off[g] = height - off[g]
    return gs.plan(off, "sweep_keepers_on_top" if keepers_on_top else "sweep")


#: name -> planner of merged groups; plan() tries them in this order
STRATEGIES = {"greedy_by_size": _greedy_by_size,
              "greedy_by_size_best_fit": lambda gs: _greedy_by_size(gs, True),
              "interference": _interference,
              "sweep": _sweep,
              "sweep_keepers_on_top": lambda gs: _sweep(gs, True)}
#: up to this many groups + overlapping pairs, plan() runs every planner
ALL_WORK = 100_000
#: above this many overlapping pairs, plan() runs only the O(n log n) sweeps;
#: in between, greedy_by_size and the sweeps.  The offline planners cost
#: O(n log n + pairs): these keep plan() under a second at 1e5 buffers.
MAX_PAIRS = 600_000


def overlapping_pairs(buffers: Sequence[Buffer], alignment: int = 64, inplace=()) -> int:
    """How many pairs of (merged) buffers overlap in time: the edges of the
    interference graph, and the work of the offline planners."""
    return sum(_Groups(buffers, alignment, inplace).degrees()) // 2


def plan(buffers: Sequence[Buffer], alignment: int = 64, inplace=(), strategies: Sequence[str] | None = None) -> Plan:
    """Run the planners and keep the smallest arena (the first listed on a tie).

    ``strategies``: names from :data:`STRATEGIES`.  By default every one
    runs on small inputs; larger ones get greedy_by_size and the sweeps, and
    above :data:`MAX_PAIRS` overlapping pairs only the sweeps (the offline
    planners cost O(pairs), which for deep training graphs grows as n^2).
    ``stats`` of the result maps each tried planner to its arena bytes.
    Deterministic for a given input.
    """
    gs = _Groups(list(buffers), alignment, tuple(inplace))
    pairs = sum(gs.degrees()) // 2
    if strategies is None:
        if len(gs) + pairs <= ALL_WORK:
            strategies = list(STRATEGIES)
        elif pairs <= MAX_PAIRS:
            strategies = ["greedy_by_size", "sweep", "sweep_keepers_on_top"]
        else:
            strategies = ["sweep", "sweep_keepers_on_top"]
    best = None
    stats = {}
    for name in strategies:
        p = STRATEGIES[name](gs)
        stats[name] = p.arena_bytes
        if best is None or p.arena_bytes < best.arena_bytes:
            best = p
    return Plan(best.offsets, best.arena_bytes, best.strategy, best.alignment, MappingProxyType(stats))


def fit_workspaces(buffers: Sequence[Buffer], base: Plan, requests: Iterable[tuple[int, int, int, int]]
                   ) -> tuple[Plan, dict[int, int]]:
    """Place kernel workspaces in the holes of a plan of the other buffers.

    ``requests``: ``(buffer id, step, preferred bytes, least bytes)``, one
    per workspace, each live at its step alone (so workspaces never meet
    each other, and each is placed apart).  At its step a workspace takes
    the tightest free gap of ``base`` (below its arena top) holding its
    preferred size, else the largest gap holding at least its least size,
    cut to the gap; else it goes above the buffers live then with its least
    size, growing the arena.  Kernels whose scratch can shrink (smaller
    chunks) so use memory that the values leave free instead of adding
    their full scratch on top of a plan that fragmentation shaped.

    Returns the plan of ``buffers`` plus the workspaces, and id -> bytes
    granted to each workspace.  O(n log n + sum of buffers live at the
    requested steps).
    """
    a = base.alignment

    def up(x):
        return -(-x // a) * a

    offsets = dict(base.offsets)
    arena = base.arena_bytes
    granted: dict[int, int] = {}
    pending = sorted(buffers, key=lambda b: (b.start, b.id))
    live: list[tuple[int, int, int]] = []  # heap of (end step, offset, aligned bytes)
    i = 0
    for bid, step, want, least in sorted(requests, key=lambda r: (r[1], r[0])):
        while i < len(pending) and pending[i].start <= step:
            b = pending[i]
            i += 1
            if b.nbytes:
                heapq.heappush(live, (b.end, base.offsets[b.id], up(b.nbytes)))
        while live and live[0][0] < step:
            heapq.heappop(live)
        taken = sorted((o, o + s) for _, o, s in live)
        gaps, top = [], 0  # free [lo, hi) at this step, below the arena's aligned top
        for lo, hi in taken:
            if lo - top > 0:
                gaps.append((top, lo - top))
            top = max(top, hi)
        ceiling = arena // a * a
        if ceiling > top:
            gaps.append((top, ceiling - top))
        fits = [g for g in gaps if g[1] >= want]
        if fits:
            lo, _ = min(fits, key=lambda g: (g[1], g[0]))
            size = want
        else:
            room = [g for g in gaps if g[1] >= least]
            if room:
                lo, gap = max(room, key=lambda g: (g[1], -g[0]))
                size = min(want, gap)
            else:
                lo, size = top, least
        offsets[bid] = lo
        granted[bid] = size
        arena = max(arena, lo + size)
    return (Plan(MappingProxyType(offsets), arena, base.strategy + "+workspace_holes", a, base.stats), granted)

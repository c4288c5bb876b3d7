"""Memory planning for a compiled graph: schedule, lifetimes, one arena.

Which node gets what memory:

- leaves (constants, literals, placeholders, variables) own their arrays;
- view ops (attribute ``view``) alias their input: no memory of their own,
  and they extend the lifetime of what they view;
- outputs are computed into fresh arrays each run: the caller keeps them,
  so a later run must never overwrite them;
- variables own one buffer each for the life of the executable; a new
  value is written into it in place when safe, else kept in the arena
  until the run ends and then copied in;
- every other node writes into its slice of one preallocated arena, through
  its ``<engine>_out_kernel`` (or a copy into place when it has none); an op
  whose attribute ``inplace`` allows it writes over an input that dies there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..memory import best_schedule, check_plan, inplace_pairs, lifetimes, lower_bound, no_reuse_bytes, plan, plot_plan
from ..shape import c_strides
from ..symbol import Node, topological
from ..types import attr_table

LEAVES = frozenset(("constant", "literal", "placeholder", "variable"))
ALIGNMENT = 64
#: verify every plan with the independent checker (the test suite turns it on)
CHECK = False


@dataclass
class MemoryReport:
    """``exe.memory``: how the arena compares with the lower bound."""

    arena_bytes: int
    lower_bound_bytes: int
    no_reuse_bytes: int
    lower_bound_inplace_bytes: int
    schedule: str
    strategy: str
    inplace: int
    tried: dict = field(default_factory=dict)
    updates_in_place: int = 0
    updates_copied: int = 0
    _plot_args: tuple = field(default=(), repr=False)

    @property
    def ratio(self) -> float:
        """arena / lower bound, where a node's inputs and output all count at
        its step (in-place reuse can take the arena below it)."""
        return self.arena_bytes / self.lower_bound_bytes if self.lower_bound_bytes else 1.0

    @property
    def ratio_inplace(self) -> float:
        """arena / the lower bound that counts an in-place pair once: the
        physical limit for this schedule and these in-place choices."""
        b = self.lower_bound_inplace_bytes
        return self.arena_bytes / b if b else 1.0

    def __getitem__(self, key):  # dict-style access, as the design shows
        return getattr(self, key)

    def plot(self, path: str) -> str:
        """Draw the plan (tensors as rectangles over time and address); needs matplotlib."""
        buffers, p = self._plot_args
        return plot_plan(buffers, p, path, lower_bound=self.lower_bound_bytes)

    def __str__(self):
        return (f"arena {self.arena_bytes:,} B, lower bound {self.lower_bound_bytes:,} B "
                f"(ratio {self.ratio:.3f}; {self.ratio_inplace:.3f} counting in-place pairs once), "
                f"no reuse {self.no_reuse_bytes:,} B; schedule {self.schedule}, "
                f"offsets by {self.strategy}, {self.inplace} in-place pair(s); "
                f"{self.updates_in_place} update(s) written into their variables, {self.updates_copied} copied")


class ArenaPlan:
    """The order to run nodes in, and where each storage node writes.

    ``updates``: ``(variable node, new value node)`` pairs.  A new value
    whose op may overwrite the variable (attribute ``inplace``) is written
    straight into the variable's buffer when that is safe (see
    :func:`inplace_updates`); the others live in the arena until the end of
    the run, when the engine copies them into their variables.  Neither
    allocates per run.
    """

    def __init__(self, outputs: Sequence[Node], updates: Sequence[tuple[Node, Node]] = ()):
        updates = list(updates)
        roots = list(outputs) + [u for _, u in updates]
        out_ids = {id(n) for n in outputs}
        views = attr_table("view")
        copies = copying_views(roots, {id(r) for r in roots})

        def alias_of(n: Node):
            return n.inputs[0] if views.get(n.op) and n.inputs and id(n) not in copies else None

        inplace = attr_table("inplace")

        def candidates(n: Node):
            spec = inplace.get(n.op)
            if spec is None:
                return ()
            if callable(spec):
                return spec(n)
            return range(len(n.inputs)) if spec == "all" else spec

        direct = _update_candidates(roots, updates, alias_of, candidates)
        while True:
            def storage(n: Node) -> bool:
                return (n.op not in LEAVES and id(n) not in out_ids and id(n) not in direct
                        and not alias_of(n))

            order, sched = best_schedule(roots, is_storage=storage, alias_of=alias_of)
            order, failed = _sink_updates(order, direct, alias_of)
            if not failed:
                break
            direct = {k: v for k, v in direct.items() if k not in failed}  # plan those as copies
        self.order = order
        #: id(value node) -> its variable node, for the updates written in place
        self.update_in_place = {k: var for k, (var, _) in direct.items()}
        live = lifetimes(self.order, roots, storage, alias_of)
        self.storage = [storage(n) for n in self.order]
        pairs = inplace_pairs(self.order, live, candidates)
        self.plan = plan(live.buffers, ALIGNMENT, pairs)
        if CHECK:
            check_plan(live.buffers, self.plan, pairs)
        self.buffers, self.pairs, self.live = live.buffers, pairs, live
        self.report = MemoryReport(
            arena_bytes=self.plan.arena_bytes, lower_bound_bytes=lower_bound(live.buffers, live.n_steps),
            no_reuse_bytes=no_reuse_bytes(live.buffers),
            lower_bound_inplace_bytes=lower_bound(live.buffers, live.n_steps, pairs), schedule=sched, strategy=self.plan.strategy,
            inplace=len(pairs), tried=dict(self.plan.stats), _plot_args=(live.buffers, self.plan),
            updates_in_place=len(direct), updates_copied=len(updates) - len(direct))

    def offset(self, k: int) -> int:
        """Byte offset in the arena of the value of ``order[k]`` (a storage node)."""
        return self.plan.offsets[self.live.by_node[id(self.order[k])].id]


def _alias_roots(nodes: Sequence[Node], alias_of) -> dict[int, Node]:
    """id(node) -> the node owning the memory it reads through views (itself if none)."""
    root: dict[int, Node] = {}
    for n in nodes:
        a = alias_of(n)
        root[id(n)] = root.get(id(a), a) if a is not None else n
    return root


def _update_candidates(roots, updates, alias_of, candidates) -> dict[int, tuple[Node, int]]:
    """Updates that may write their variable's buffer directly, by the graph
    alone: id(value) -> (variable, input position).  The value's op must
    declare that it may overwrite the variable (same shape and dtype), read
    it through no other view, and no other root may see the variable's
    memory (an output or another update of the old value is read after the
    run, when the buffer holds the new one)."""
    order = topological(roots)
    root_of = _alias_roots(order, alias_of)
    seen_by: dict[int, int] = {}  # id(variable) -> how many roots see its memory
    for r in roots:
        owner = root_of[id(r)]
        if owner.op == "variable":
            seen_by[id(owner)] = seen_by.get(id(owner), 0) + 1
    found = {}
    for var, u in updates:
        if u.op in LEAVES or alias_of(u) is not None or seen_by.get(id(var)):
            continue
        for pos in candidates(u):
            x = u.inputs[pos]
            if x is var and x.shape == u.shape and x.dtype == u.dtype:
                if all(y is var or root_of[id(y)] is not var for y in u.inputs):
                    found[id(u)] = (var, pos)
                break
    return found


def _sink_updates(order: list[Node], direct: dict, alias_of) -> tuple[list[Node], set[int]]:
    """Move each in-place update after the last other node reading its
    variable (directly or through a view), and after the last node that can
    raise on its data (attribute ``may_raise``), so a failed run leaves the
    variables as they were.  Returns the new order and the updates that
    still break a rule there (their value is used before that point, or
    two updates each read the other's variable): those must be copies."""
    if not direct:
        return order, set()
    target = {}
    for k, n in enumerate(order):
        if id(n) in direct:
            target[id(n)] = k
    for u, t in _deadlines(order, direct, alias_of).items():
        target[u] = max(target[u], t)
    after: dict[int, list[Node]] = {}
    for n in order:
        if id(n) in target:
            after.setdefault(target[id(n)], []).append(n)
    new = []
    for k, n in enumerate(order):
        if id(n) not in target:
            new.append(n)
        new.extend(after.get(k, ()))
    position = {id(n): k for k, n in enumerate(new)}
    failed = {u for u, t in _deadlines(new, direct, alias_of).items() if t > position[u]}
    failed.update(u for u, k in _first_uses(new, direct).items() if k < position[u])
    return (order if failed else new), failed


def _deadlines(order, direct, alias_of) -> dict[int, int]:
    """id(update) -> the last step that must run before it: the last other
    reader of its variable's old value, or the last node that may raise."""
    may_raise = attr_table("may_raise")
    root_of = _alias_roots(order, alias_of)
    update_of = {id(var): u for u, (var, _) in direct.items()}
    last = dict.fromkeys(direct, -1)
    last_raise = -1
    for k, n in enumerate(order):
        rule = may_raise.get(n.op)
        if rule and (not callable(rule) or rule(n)):
            last_raise = k
        for i in n.inputs:
            u = update_of.get(id(root_of[id(i)]))
            if u is not None and u != id(n):
                last[u] = k
    return {u: max(k, last_raise) for u, k in last.items()}


def _first_uses(order, direct) -> dict[int, int]:
    """id(update) -> the first step using its new value."""
    first: dict[int, int] = {}
    for k, n in enumerate(order):
        for i in n.inputs:
            if id(i) in direct and id(i) not in first:
                first[id(i)] = k
    return first


def copying_views(roots: Sequence[Node], root_ids: set) -> set[int]:
    """Views NumPy would have to copy (a reshape of a transposed buffer):
    known statically by following byte strides from buffers of known layout
    (arena buffers are C-contiguous) through each view op's ``view_strides``.
    Such a view gets an arena buffer and an out-kernel instead of allocating
    on every run.  Layouts it cannot know (feeds, variables, ops without
    ``view_strides``) leave the view aliased: correct either way."""
    views, view_strides = attr_table("view"), attr_table("view_strides")
    layout: dict[int, tuple] = {}
    copies: set[int] = set()
    for n in topological(roots):
        if views.get(n.op) and n.inputs:
            strides, fn = layout.get(id(n.inputs[0])), view_strides.get(n.op)
            if strides is None or fn is None:
                continue
            strides = fn(n, strides)
            if strides is None and id(n) not in root_ids:
                copies.add(id(n))
                strides = c_strides(n.shape, n.dtype.itemsize)
            if strides is not None:
                layout[id(n)] = strides
        elif n.op == "constant":
            layout[id(n)] = n.param("value").array.strides
        elif n.op not in LEAVES and id(n) not in root_ids:
            layout[id(n)] = c_strides(n.shape, n.dtype.itemsize)
    return copies

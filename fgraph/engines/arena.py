"""Memory planning for a compiled graph: schedule, lifetimes, one arena.

Which node gets what memory:

- leaves (constants, literals, placeholders, variables) own their arrays;
- view ops (attribute ``view``) alias their input: no memory of their own,
  and they extend the lifetime of what they view;
- roots (outputs and update values) are computed into fresh arrays each
  run: the caller keeps them, so a later run must never overwrite them;
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
                f"offsets by {self.strategy}, {self.inplace} in-place pair(s)")


class ArenaPlan:
    """The order to run nodes in, and where each storage node writes."""

    def __init__(self, roots: Sequence[Node]):
        views = attr_table("view")
        root_ids = {id(r) for r in roots}
        copies = copying_views(roots, root_ids)

        def alias_of(n: Node):
            return n.inputs[0] if views.get(n.op) and n.inputs and id(n) not in copies else None

        def storage(n: Node) -> bool:
            return n.op not in LEAVES and id(n) not in root_ids and not alias_of(n)

        self.order, sched = best_schedule(roots, is_storage=storage, alias_of=alias_of)
        live = lifetimes(self.order, roots, storage, alias_of)
        self.storage = [storage(n) for n in self.order]
        inplace = attr_table("inplace")

        def candidates(n: Node):
            spec = inplace.get(n.op)
            if spec is None:
                return ()
            if callable(spec):
                return spec(n)
            return range(len(n.inputs)) if spec == "all" else spec

        pairs = inplace_pairs(self.order, live, candidates)
        self.plan = plan(live.buffers, ALIGNMENT, pairs)
        if CHECK:
            check_plan(live.buffers, self.plan, pairs)
        self.buffers, self.pairs, self.live = live.buffers, pairs, live
        self.report = MemoryReport(
            arena_bytes=self.plan.arena_bytes, lower_bound_bytes=lower_bound(live.buffers, live.n_steps),
            no_reuse_bytes=no_reuse_bytes(live.buffers),
            lower_bound_inplace_bytes=lower_bound(live.buffers, live.n_steps, pairs), schedule=sched, strategy=self.plan.strategy,
            inplace=len(pairs), tried=dict(self.plan.stats), _plot_args=(live.buffers, self.plan))

    def offset(self, k: int) -> int:
        """Byte offset in the arena of the value of ``order[k]`` (a storage node)."""
        return self.plan.offsets[self.live.by_node[id(self.order[k])].id]


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

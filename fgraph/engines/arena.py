"""Memory planning for a compiled graph: schedule, lifetimes, one arena.

Which node gets what memory:

- leaves (constants, literals, placeholders, variables) own their arrays;
- view ops (attribute ``view``) alias their input: no memory of their own,
  and they extend the lifetime of what they view;
- outputs are computed into fresh arrays each run: the caller keeps them,
  so a later run must never overwrite them;
- variables own one buffer each for the life of the executable; a new
  value is planned to be written over it in place when safe (the
  executable gives such a node a spare buffer of the variable's size, so
  a failed run changes nothing), else kept in the arena; either way it is
  copied in once the whole run has succeeded;
- every other node writes into its slice of one preallocated arena, through
  its ``<engine>_out_kernel`` (or a copy into place when it has none); an op
  whose attribute ``inplace`` allows it writes over an input that dies there;
- a node whose op declares a workspace for the engine (attribute ``<engine>_workspace``: ``node ->
  bytes`` of scratch its out-kernel needs,
  e.g. a convolution's im2col patches) gets one more arena block, live at
  its step alone, handed to the kernel as ``workspace=`` (a flat ``uint8``
  array): kernel scratch then shares memory with the tensors dead at that
  step instead of being allocated on every call.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Sequence

from ..memory import (Buffer, Lifetimes, Plan, best_schedule, check_plan, fit_workspaces, inplace_pairs, lifetimes,
                      lower_bound, no_reuse_bytes, plan, plot_plan)
from ..errors import also, format_location
from ..shape import c_strides
from ..symbol import Node, error_at, topological
from ..registry import attr_table

LEAVES = frozenset(("constant", "literal", "placeholder", "variable"))
ALIGNMENT = 64
#: verify every plan with the independent checker (the test suite turns it on)
CHECK = False
#: let a workspace that may shrink (a sizer's ``(preferred, least)``) be cut
#: to a hole of the plan when that makes the arena smaller.  A convolution
#: then runs shorter chunks: its values may differ from an unplanned run in
#: the last bits (BLAS sums a smaller product differently); False keeps
#: every workspace whole, and planned runs bitwise equal to unplanned ones.
CUT_WORKSPACES = True
#: the most bytes one run of a graph compiled for the host may need (its
#: arena and its fresh outputs); None: this machine's physical memory.  A
#: plan beyond it is refused when the graph is compiled, naming its largest
#: values, instead of failing in NumPy's allocator (or swapping the machine
#: to a halt)
MAX_RUN_BYTES: int | None = None


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
    #: the largest workspace of one node (scratch in the arena, live at its node's step only)
    workspace_bytes: int = 0
    #: nodes given a workspace
    workspace_nodes: int = 0
    #: of those, how many got less than they prefer (their kernels take shorter chunks)
    workspace_cut: int = 0
    #: ``(label, MemoryReport)`` of each loop or branch body the graph runs: its own arena, planned once and
    #: reused by every iteration (``exe.memory`` fills it in; see fgraph/engines/numpy_kernels/control.py)
    bodies: tuple = ()
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
        buffers, p, scratch = self._plot_args
        return plot_plan(buffers, p, path, lower_bound=self.lower_bound_bytes, workspace=scratch)

    def __str__(self):
        return (f"arena {self.arena_bytes:,} B, lower bound {self.lower_bound_bytes:,} B "
                f"(ratio {self.ratio:.3f}; {self.ratio_inplace:.3f} counting in-place pairs once), "
                f"no reuse {self.no_reuse_bytes:,} B; schedule {self.schedule}, "
                f"offsets by {self.strategy}, {self.inplace} in-place pair(s); "
                f"{self.updates_in_place} update(s) written in place (into a spare of their variable), "
                f"{self.updates_copied} kept in the arena; "
                f"workspace of {self.workspace_nodes} node(s) in the arena ({self.workspace_cut} cut to fit), "
                f"largest {self.workspace_bytes:,} B"
                + "".join(f"; {label}: arena {r.arena_bytes:,} B, lower bound {r.lower_bound_bytes:,} B"
                          for label, r in self.bodies))


class ArenaPlan:
    """The order to run nodes in, and where each storage node writes.

    ``workspace_attr``: the op attribute sizing kernel scratch for this
    engine (``"numpy_workspace"``); ``None``: no workspaces (the kernels
    allocate their own scratch).

    ``updates``: ``(variable node, new value node)`` pairs.  A new value
    whose op may overwrite the variable (attribute ``inplace``) is planned
    to be written over the variable's buffer when that is safe (see
    :func:`inplace_updates`; the executable hands it a spare of the
    variable's size instead, for all-or-nothing steps); the others live in
    the arena.  The engine copies every new value into its variable once
    the run has succeeded.  Neither allocates per run.
    """

    def __init__(self, outputs: Sequence[Node], updates: Sequence[tuple[Node, Node]] = (),
                 workspace_attr: str | None = None):
        updates = list(updates)
        sizers = attr_table(workspace_attr) if workspace_attr else {}
        asked: dict[int, tuple[int, int]] = {}  # id(node) -> (preferred, least) bytes

        def wanted(n: Node) -> tuple[int, int]:
            got = asked.get(id(n))
            if got is None:
                fn = sizers.get(n.op)
                got = _sizes(fn(n)) if fn is not None and n.op not in LEAVES else (0, 0)
                asked[id(n)] = got
            return got

        def workspace(n: Node) -> int:
            return wanted(n)[0]

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

            order, sched = best_schedule(roots, is_storage=storage, alias_of=alias_of,
                                         workspace=workspace if sizers else None)
            order, failed = _sink_updates(order, direct, alias_of)
            if not failed:
                break
            direct = {k: v for k, v in direct.items() if k not in failed}  # plan those as copies
        self.order = order
        #: id(value node) -> its variable node, for the updates written in place
        self.update_in_place = {k: var for k, (var, _) in direct.items()}
        live = lifetimes(self.order, roots, storage, alias_of, workspace=workspace if sizers else None)
        self.storage = [storage(n) for n in self.order]
        pairs = inplace_pairs(self.order, live, candidates)
        self.plan = plan(live.buffers, ALIGNMENT, pairs)
        if CUT_WORKSPACES and any(wanted(self.order[k])[1] < b.nbytes for k, b in live.workspace.items()):
            live, self.plan = _shrink_workspaces(live, self.plan, pairs, wanted, self.order)
        if CHECK:
            check_plan(live.buffers, self.plan, pairs)
        self.buffers, self.pairs, self.live = live.buffers, pairs, live
        self.report = MemoryReport(
            arena_bytes=self.plan.arena_bytes, lower_bound_bytes=lower_bound(live.buffers, live.n_steps),
            no_reuse_bytes=no_reuse_bytes(live.buffers),
            lower_bound_inplace_bytes=lower_bound(live.buffers, live.n_steps, pairs), schedule=sched, strategy=self.plan.strategy,
            inplace=len(pairs), tried=dict(self.plan.stats),
            _plot_args=(live.buffers, self.plan, frozenset(b.id for b in live.workspace.values())),
            updates_in_place=len(direct), updates_copied=len(updates) - len(direct),
            workspace_bytes=max((b.nbytes for b in live.workspace.values()), default=0),
            workspace_nodes=len(live.workspace),
            workspace_cut=sum(b.nbytes < wanted(self.order[k])[0] for k, b in live.workspace.items()))
        if workspace_attr in (None, "numpy_workspace"):  # host memory: a device's arena is its device's to refuse
            _refuse_beyond_memory(self, outputs, alias_of)

    def offset(self, k: int) -> int:
        """Byte offset in the arena of the value of ``order[k]`` (a storage node)."""
        return self.plan.offsets[self.live.by_node[id(self.order[k])].id]

    def workspaces(self) -> dict[int, tuple[int, int]]:
        """step -> (byte offset, bytes) of the workspace of ``order[step]``."""
        return {k: (self.plan.offsets[b.id], b.nbytes) for k, b in self.live.workspace.items()}


def memory_limit() -> int | None:
    """:data:`MAX_RUN_BYTES`, or this machine's physical memory (None where the OS does not say)."""
    if MAX_RUN_BYTES is not None:
        return MAX_RUN_BYTES
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not POSIX
        return None


def format_bytes(n: int) -> str:
    """``3.64 TiB (4,000,000,000,000 B)``: readable, and exact."""
    size, unit = float(n), "B"
    for u in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if size < 1024:
            break
        size, unit = size / 1024, u
    return f"{n:,} B" if unit == "B" else f"{size:.2f} {unit} ({n:,} B)"


def _refuse_beyond_memory(plan: "ArenaPlan", outputs: Sequence[Node], alias_of) -> None:
    """Raise (an FgraphError that is also a MemoryError) when one run needs
    more than :func:`memory_limit`: the arena, allocated at compile time, and
    the outputs, fresh each run.  Checked before anything is allocated."""
    limit = memory_limit()
    fresh = {id(n): n for n in outputs if n.op not in LEAVES and alias_of(n) is None}
    need = plan.plan.arena_bytes + sum(n.nbytes for n in fresh.values())
    if limit is None or need <= limit:
        return
    values = [n for k, n in enumerate(plan.order) if plan.storage[k]] + list(fresh.values())
    largest = sorted(values, key=lambda n: n.nbytes, reverse=True)[:3]
    named = "; ".join(f"{n.op}{f' {n.name!r}' if n.name else ''} {n.shape} {n.dtype}: {format_bytes(n.nbytes)}"
                      f"{' (an output)' if id(n) in fresh else ''}, made at {format_location(n.where)}"
                      for n in largest)
    raise error_at(also(MemoryError), "compile",
                   f"one run of this graph needs {format_bytes(need)} (arena {format_bytes(plan.plan.arena_bytes)}"
                   f", fresh outputs {format_bytes(need - plan.plan.arena_bytes)}), more than the "
                   f"{format_bytes(limit)} this machine has; its largest values: {named}")


def _sizes(asked) -> tuple[int, int]:
    """A workspace sizer's answer, ``bytes`` or ``(preferred, least)``, as a pair."""
    if isinstance(asked, tuple):
        want, least = int(asked[0]), int(asked[1])
        return want, min(want, least)
    return int(asked), int(asked)


def _shrink_workspaces(live: Lifetimes, full: Plan, pairs, wanted, order) -> tuple[Lifetimes, Plan]:
    """The other way to place workspaces that may shrink: plan the values
    alone, then fit each workspace into the holes at its step
    (:func:`fit_workspaces`).  Kept when its arena is smaller than ``full``
    (every workspace planned at its preferred size with the values)."""
    values = [b for b in live.buffers if b.id < live.n_steps]
    requests = [(b.id, k, b.nbytes, wanted(order[k])[1]) for k, b in live.workspace.items()]
    holes, granted = fit_workspaces(values, plan(values, ALIGNMENT, pairs), requests)
    if holes.arena_bytes >= full.arena_bytes:
        return live, full
    scratch = {k: Buffer(b.id, granted[b.id], b.start, b.end) for k, b in live.workspace.items()}
    # same order as lifetimes() lists them: by step, a value before its node's workspace
    buffers = sorted(values + list(scratch.values()), key=lambda b: (b.start, b.id >= live.n_steps))
    stats = dict(full.stats, workspace_holes=holes.arena_bytes)
    return (live._replace(buffers=buffers, workspace=scratch),
            Plan(holes.offsets, holes.arena_bytes, holes.strategy, holes.alignment, stats))


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

"""Memory planning: execution order, buffer lifetimes, offsets in one arena.

Engine-independent: everything here works on nodes and plain buffer
records.  The usual pipeline::

    order, _ = best_schedule(roots, is_storage=..., alias_of=...)
    live = lifetimes(order, roots, storage, alias_of, pinned)
    pairs = inplace_pairs(order, live, candidates)        # optional
    p = plan(live.buffers, alignment=64, inplace=pairs)  # workspaces too (lifetimes(workspace=...))
    check_plan(live.buffers, p, pairs)                     # in tests
    # node n's value: arena[p.offsets[live.by_node[id(n)].id]:][:n.nbytes]
"""
from .check import check_plan
from .liveness import (Buffer, Lifetimes, inplace_pairs, lifetimes, lower_bound, merge_inplace, no_reuse_bytes,
                       workspace_id)
from .offsets import Plan, fit_workspaces, greedy_by_size, interference, overlapping_pairs, plan, sweep
from .picture import plot_plan
from .schedule import best_schedule, schedule

__all__ = ["Buffer", "Lifetimes", "Plan", "best_schedule", "check_plan", "fit_workspaces", "greedy_by_size", "inplace_pairs",
           "interference", "lifetimes", "lower_bound", "merge_inplace", "no_reuse_bytes", "overlapping_pairs",
           "plan", "plot_plan", "schedule", "sweep", "workspace_id"]

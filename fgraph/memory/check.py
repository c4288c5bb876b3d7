"""An independent verifier for memory plans.

Written apart from the planners and sharing no code with them: it sweeps
over time keeping the live buffers sorted by offset.  While no two live
buffers overlap, a new one overlaps some live buffer exactly when it
overlaps its neighbour below or above in that order, so each insertion is
checked against two buffers.  O(n log n + n * live) (list inserts).
"""
from __future__ import annotations

import heapq
from bisect import bisect_left


def check_plan(buffers, plan, inplace=()) -> None:
    """Raise AssertionError unless ``plan`` is a valid placement of ``buffers``.

    Checks that every buffer has an offset that is a non-negative multiple
    of ``plan.alignment`` and fits in ``plan.arena_bytes``, and that no two
    buffers live at a common step share a byte.  The one exception is a
    legal in-place pair ``(out, in)`` from ``inplace`` (``in.end ==
    out.start``, ``out.nbytes <= in.nbytes``, each buffer in at most one
    such role, the first pair listed winning, and a buffer in both roles
    living more than one step) at the same offset: ``out``
    then lies inside ``in`` at the step where ``in`` dies and ``out`` is
    born.  A pair at different offsets gets no exemption.
    """
    offsets = plan.offsets
    align = getattr(plan, "alignment", 1) or 1
    arena = plan.arena_bytes
    byid = {}
    for b in buffers:
        assert b.id not in byid, f"buffer id {b.id} appears twice"
        byid[b.id] = b
        assert b.id in offsets, f"buffer {b.id} has no offset"
        o = offsets[b.id]
        assert b.start <= b.end, f"buffer {b.id} ends (step {b.end}) before it starts (step {b.start})"
        assert b.nbytes >= 0, f"buffer {b.id} has a negative size"
        assert o >= 0, f"buffer {b.id} has a negative offset {o}"
        assert o % align == 0, f"buffer {b.id} at offset {o} is not aligned to {align} bytes"
        assert o + b.nbytes <= arena, f"buffer {b.id} at [{o}, {o + b.nbytes}) overruns the {arena}-byte arena"

    # the step at which each buffer starts to need bytes of its own
    first = {b.id: b.start for b in buffers}
    as_out, as_in = set(), set()
    for out_id, in_id in inplace:
        bo, bi = byid.get(out_id), byid.get(in_id)
        if bo is None or bi is None or out_id == in_id or out_id in as_out or in_id in as_in:
            continue
        if bi.end != bo.start or bo.nbytes > bi.nbytes:
            continue
        if (in_id in as_out and bi.start == bi.end) or (out_id in as_in and bo.start == bo.end):
            continue  # a one-step middle link: the chain's two ends would share its step
        as_out.add(out_id)
        as_in.add(in_id)
        if offsets[out_id] == offsets[in_id]:
            first[out_id] = bo.start + 1  # inside `in` at the shared step, which `in` is checked for

    arrivals = sorted((first[b.id], b.id) for b in buffers if b.nbytes and first[b.id] <= b.end)
    live: list[tuple[int, int, int]] = []  # (offset, end offset, id), sorted
    expiry: list[tuple[int, int, int]] = []  # heap of (last step, offset, id)
    for t, bid in arrivals:
        while expiry and expiry[0][0] < t:
            _, o, old = heapq.heappop(expiry)
            del live[bisect_left(live, (o, o + byid[old].nbytes, old))]
        b = byid[bid]
        lo = offsets[bid]
        item = (lo, lo + b.nbytes, bid)
        k = bisect_left(live, item)
        for j in (k - 1, k):
            if 0 <= j < len(live):
                plo, phi, pid = live[j]
                if plo < item[1] and item[0] < phi:
                    p = byid[pid]
                    raise AssertionError(
                        f"buffers {pid} and {bid} overlap: [{plo}, {phi}) live over steps [{p.start}, {p.end}] "
                        f"and [{lo}, {item[1]}) live over [{b.start}, {b.end}], both at step {t}")
        live.insert(k, item)
        heapq.heappush(expiry, (b.end, lo, bid))

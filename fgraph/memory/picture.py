"""A picture of a memory plan: buffers as rectangles over time and address."""
from __future__ import annotations

from ..errors import FgraphError


def plot_plan(buffers, plan, path: str, title: str | None = None, lower_bound: int | None = None,
              workspace=()) -> str:
    """Draw each buffer as a rectangle (x: its live steps, y: its bytes in
    the arena) and save the figure to ``path`` (any format matplotlib
    knows by the suffix).  Returns ``path``.  ``workspace``: ids of the
    buffers that are kernel scratch, drawn apart (red, hatched).

    matplotlib is an optional extra; without it this raises FgraphError.
    """
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)  # no display needed; keeps a user's backend if set
        import matplotlib.pyplot as plt
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Rectangle
    except ImportError:
        raise FgraphError("plot_plan needs matplotlib, an optional extra: pip install matplotlib") from None

    buffers = list(buffers)
    steps = max((b.end for b in buffers), default=0) + 1
    workspace = frozenset(workspace)
    rects = [Rectangle((b.start, plan.offsets[b.id]), b.end - b.start + 1, b.nbytes) for b in buffers
             if b.nbytes and b.id not in workspace]
    scratch = [Rectangle((b.start, plan.offsets[b.id]), b.end - b.start + 1, b.nbytes) for b in buffers
               if b.nbytes and b.id in workspace]
    fig, ax = plt.subplots(figsize=(10, 5))
    try:
        # colour by size so equal tensors read as one family
        coll = PatchCollection(rects, cmap="viridis", edgecolor="black", linewidth=0.3, alpha=0.85)
        coll.set_array([r.get_height() for r in rects])
        ax.add_collection(coll)
        if scratch:
            ax.add_collection(PatchCollection(scratch, facecolor="red", edgecolor="darkred", hatch="//",
                                              linewidth=0.3, alpha=0.6))
            ax.plot([], [], color="red", linewidth=6, alpha=0.6, label=f"kernel workspace ({len(scratch)})")
        ax.set_xlim(0, steps)
        ax.set_ylim(0, max(plan.arena_bytes, 1) * 1.05)
        ax.axhline(plan.arena_bytes, color="red", linewidth=1, label=f"arena {plan.arena_bytes:,} B")
        if lower_bound is not None:
            ax.axhline(lower_bound, color="gray", linestyle="--", linewidth=1, label=f"lower bound {lower_bound:,} B")
        ax.set_xlabel("step")
        ax.set_ylabel("offset (bytes)")
        ax.set_title(title or f"memory plan ({plan.strategy}), {len(buffers)} buffers")
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.12), ncol=2, frameon=False)  # below: never over the plan
        fig.colorbar(coll, ax=ax, label="buffer bytes")
        fig.savefig(path, dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)
    return path

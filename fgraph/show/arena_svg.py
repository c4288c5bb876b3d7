"""A memory plan as an SVG picture: each buffer a rectangle over its live
steps (x) and its bytes in the arena (y), as ``fgraph.memory.picture`` draws
with matplotlib, but as plain SVG text: no plotting library, and it inlines
into an HTML page."""
from __future__ import annotations

import math
from html import escape

#: at most this many rectangles (the largest buffers): a bigger SVG only slows the page
MAX_RECTS = 4000


def arena_svg(arena_plan, names: dict | None = None, width: int = 920, height: int = 340,
              max_rects: int = MAX_RECTS) -> str:
    """The SVG of ``arena_plan`` (an ``fgraph.engines.arena.ArenaPlan``:
    ``exe._plan``).  ``names``: id(node) -> its name in the listing (``%12``),
    for the rectangles' tooltips.  Workspace (kernel scratch) is red and
    hatched; the arena size and the lower bound are horizontal lines."""
    plan, live, order = arena_plan.plan, arena_plan.live, arena_plan.order
    names = names or {}
    scratch = {b.id for b in live.workspace.values()}
    buffers = [b for b in live.buffers if b.nbytes]
    dropped = 0
    if len(buffers) > max_rects:
        dropped = len(buffers) - max_rects
        buffers = sorted(buffers, key=lambda b: b.nbytes, reverse=True)[:max_rects]
    steps = max(live.n_steps + 1, 1)
    arena = max(plan.arena_bytes, 1)
    lower = arena_plan.report.lower_bound_bytes
    left, right, top, bottom = 78, 16, 26, 44
    pw, ph = width - left - right, height - top - bottom
    top_bytes = max(arena, lower) * 1.05

    def x(step: float) -> float:
        return left + pw * step / steps

    def y(nbytes: float) -> float:
        return top + ph * (1 - nbytes / top_bytes)

    biggest = max((b.nbytes for b in buffers), default=1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="arena" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" font-family="Helvetica, Arial, sans-serif" font-size="11" '
           f'role="img" aria-label="memory plan">',
           '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fecaca"/>'
           '<line x1="0" y1="0" x2="0" y2="6" stroke="#dc2626" stroke-width="2"/></pattern></defs>',
           f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#f8fafc" stroke="#cbd5e1"/>']
    for b in buffers:
        off = plan.offsets.get(b.id, 0)
        x0, x1 = x(b.start), x(b.end + 1)
        y0, y1 = y(off + b.nbytes), y(off)
        if b.id in scratch:
            fill, what = "url(#hatch)", f"workspace of step {b.start}"
        else:
            # colour by size (log scale): buffers of one size read as one family
            t = math.log1p(b.nbytes) / math.log1p(biggest)
            fill = f"hsl({int(220 - 170 * t)}, 65%, {int(72 - 22 * t)}%)"
            n = order[b.id] if b.id < len(order) else None
            what = f"{names.get(id(n), '')} {n.op} {n.dtype}{list(n.shape)}".strip() if n is not None else "buffer"
        tip = f"{what}: {b.nbytes:,} B at +{off:,}, steps {b.start}-{b.end}"
        out.append(f'<rect class="buf" x="{x0:.1f}" y="{y0:.1f}" width="{max(x1 - x0, 0.5):.1f}" '
                   f'height="{max(y1 - y0, 0.5):.1f}" fill="{fill}" stroke="#0f172a" stroke-width="0.3">'
                   f'<title>{escape(tip)}</title></rect>')
    for value, colour, dash, label in ((arena, "#dc2626", "", f"arena {plan.arena_bytes:,} B"),
                                       (lower, "#475569", ' stroke-dasharray="5,3"', f"lower bound {lower:,} B")):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="{colour}" '
                   f'stroke-width="1.2"{dash}/>')
        anchor_y = y(value) - 3 if colour == "#dc2626" else y(value) + 12
        out.append(f'<text x="{left + pw - 4}" y="{anchor_y:.1f}" text-anchor="end" fill="{colour}">'
                   f'{escape(label)}</text>')
    for k in range(6):  # axes: 5 ticks each
        v = top_bytes * k / 5
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#334155">{short_bytes(v)}</text>')
        s = steps * k / 5
        out.append(f'<text x="{x(s):.1f}" y="{top + ph + 15}" text-anchor="middle" fill="#334155">{int(s)}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle" fill="#0f172a">step of the '
               f'schedule (the last: the caller holding the outputs)</text>')
    out.append(f'<text x="14" y="{top + ph / 2}" text-anchor="middle" fill="#0f172a" '
               f'transform="rotate(-90 14 {top + ph / 2})">offset in the arena</text>')
    title = f"{len(buffers):,} buffers, offsets by {plan.strategy}"
    if dropped:
        title += f" ({dropped:,} smaller ones not drawn)"
    out.append(f'<text x="{left}" y="16" fill="#0f172a">{escape(title)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def short_bytes(nbytes: float) -> str:
    """``1.5 MiB``: for axes and tables."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if nbytes < 1024 or unit == "TiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f}"

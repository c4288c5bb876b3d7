"""``fgraph.report(exe, "report.html")``: one self-contained HTML page about
a compiled executable.

Sections: a summary; the graph (an inline SVG drawing when Graphviz is
installed, else the text listing); the optimiser's report; each fusion
group with the code generated for it; the memory plan (an SVG timeline of
the arena, the lower bound, the in-place pairs); and per-node timings once
``exe.profile()`` has run.  Everything is inline (CSS and SVG): the page
fetches nothing and runs no script, so it opens anywhere, offline.
"""
from __future__ import annotations

import re
from html import escape

from ..errors import FgraphError
from .listing import expr_lines, graph_listing, in_place_pairs, leaves_first, numbering, type_text

#: timings table: this many slowest nodes
TOP_NODES = 30
#: the listing in the page is cut to this many lines (the middle elided)
MAX_LISTING_LINES = 3000

_CSS = """
body{font-family:Helvetica,Arial,sans-serif;margin:0;color:#0f172a;background:#f8fafc}
header{background:#1e293b;color:#f8fafc;padding:14px 28px}
header h1{margin:0;font-size:22px} header p{margin:4px 0 0;color:#cbd5e1;font-size:13px}
main{padding:8px 28px 40px;max-width:1200px}
section{background:#fff;border:1px solid #e2e8f0;border-radius:8px;margin:18px 0;padding:10px 18px 16px}
h2{font-size:17px;margin:8px 0 10px;color:#1e293b} h3{font-size:14px;margin:14px 0 6px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin-top:14px}
.card{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:8px 14px;min-width:120px}
.card b{display:block;font-size:18px} .card span{font-size:12px;color:#64748b}
figure{margin:6px 0;overflow:auto;max-height:900px;border:1px solid #f1f5f9}
figure svg{max-width:100%;height:auto}
pre{background:#0f172a;color:#e2e8f0;padding:10px 12px;border-radius:6px;overflow:auto;font-size:12px;
max-height:520px}
table{border-collapse:collapse;font-size:13px;margin:6px 0}
th,td{border-bottom:1px solid #e2e8f0;padding:3px 10px;text-align:left;vertical-align:top}
th{background:#f1f5f9} td.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:inline-block;height:10px;background:#3b82f6;border-radius:2px;vertical-align:middle}
.note{color:#64748b;font-size:13px} details{margin:8px 0} summary{cursor:pointer;font-weight:bold}
"""


def report(x, path: str, optimised_from=None, optimiser_report=None, title: str | None = None,
           max_boxes: int | None = None) -> str:
    """Write the HTML report of ``x`` to ``path``; returns ``path``.

    ``x``: an executable from ``fgraph.compile`` (NumPy or CuPy engine), or
    an ``fgraph.Graph``, which is then optimised (with its report) and
    compiled for NumPy.  The optimiser section shows ``optimiser_report``
    (the ``Report`` of ``fgraph.optimise(g, report=True)``) or, given
    ``optimised_from=g`` (the graph before optimising), the report of
    optimising ``g`` again here.  Timings appear once ``exe.profile()`` ran.
    """
    page = report_html(x, optimised_from=optimised_from, optimiser_report=optimiser_report, title=title,
                       max_boxes=max_boxes)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return str(path)


def report_html(x, optimised_from=None, optimiser_report=None, title: str | None = None,
                max_boxes: int | None = None) -> str:
    """The page :func:`report` writes, as a string."""
    from ..graph import Graph

    note = ""
    if isinstance(x, Graph):  # the user's graph: optimised here (with its report) and compiled
        from ..engines import compile
        from ..optimiser import optimise

        if optimised_from is not None:
            raise FgraphError("report: optimised_from= is for an executable (a graph given is optimised here)")
        g = x
        if optimiser_report is None:
            g, optimiser_report = optimise(x, report=True)
        exe = compile(g)
    else:
        exe = x
        if not hasattr(exe, "_program") or not isinstance(getattr(exe, "graph", None), Graph):
            raise FgraphError(f"report: needs an executable of an array engine (fgraph.compile(g) with engine "
                              f"'numpy' or 'cupy') or an fgraph.Graph, got a {type(x).__name__}")
        if optimiser_report is None and optimised_from is not None:
            from ..optimiser import optimise

            again, optimiser_report = optimise(optimised_from, report=True)
            # compared as listed: the keys also hold the user's lines, and the optimiser's own nodes
            # (an fma) take the line optimise was called from
            if graph_listing(again) != graph_listing(exe.graph):
                note = ("optimising the graph given as optimised_from gives a graph other than the executable's: "
                        "the table below is what optimising it does, not necessarily how this executable was made")
    return _Page(exe, optimiser_report, note, title, max_boxes).html()


class _Page:
    def __init__(self, exe, optimiser_report, optimiser_note, title, max_boxes):
        self.exe, self.rep, self.rep_note = exe, optimiser_report, optimiser_note
        self.title = title or "fgraph report"
        self.max_boxes = max_boxes
        self.nodes = leaves_first(exe._program.order)
        num = numbering(self.nodes)
        self.name = {k: f"%{v}" for k, v in num.items()}

    def html(self) -> str:
        sections = [self.graph_section(), self.optimiser_section(), self.fusion_section(), self.memory_section(),
                    self.timing_section()]
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{escape(self.title)}</title><style>{_CSS}</style></head><body>\n"
                f"<header><h1>{escape(self.title)}</h1><p>{escape(repr(self.exe))}</p></header>\n<main>\n"
                + self.summary() + "\n".join(sections) + "\n</main></body></html>\n")

    # -- sections
    def summary(self) -> str:
        exe, m = self.exe, self.exe.memory
        fused = sum(n.op in ("fused", "fused_reduce") for n in self.nodes)
        cards = [(f"{sum(n.op != 'literal' for n in self.nodes):,}", "nodes"),
                 (f"{len(exe._program.instructions):,}", "kernels"), (f"{fused:,}", "fusion groups")]
        if m is not None:
            cards += [(_bytes(m.arena_bytes), "arena"), (_bytes(m.lower_bound_bytes), "lower bound"),
                      (f"{m.ratio:.2f}", "arena / lower bound")]
        if exe.timings:
            cards.append((f"{1e3 * sum(exe.timings.values()):.3f} ms", "kernel time (profiled)"))
        return '<div class="cards">' + "".join(f'<div class="card"><b>{escape(v)}</b><span>{escape(k)}</span></div>'
                                               for v, k in cards) + "</div>\n"

    def graph_section(self) -> str:
        from .draw import MAX_BOXES, can_render, render, to_dot
        from .listing import describe

        missing = can_render()
        body = []
        if missing is None:
            svg = render(to_dot(self.exe.graph, max_boxes=self.max_boxes or MAX_BOXES), "svg").decode("utf-8")
            body.append(f'<figure id="graph">{inline_svg(svg)}</figure>')
        else:
            body.append(f'<p class="note">No drawing: {escape(missing)}. The listing:</p>')
            body.append(f'<pre id="graph">{escape(describe(self.exe.graph, max_lines=MAX_LISTING_LINES))}</pre>')
        body.append("<details><summary>listing (fgraph.describe(exe): the schedule, arena offsets, in-place "
                    "writes)</summary>"
                    f"<pre id=\"listing\">{escape(describe(self.exe, max_lines=MAX_LISTING_LINES))}</pre></details>")
        return _section("graph", "Graph", "".join(body))

    def optimiser_section(self) -> str:
        rep = self.rep
        if rep is None:
            return _section("optimiser", "Optimiser", '<p class="note">No optimiser report: pass '
                            "<code>optimiser_report=</code> (from <code>fgraph.optimise(g, report=True)</code>) or "
                            "<code>optimised_from=g</code> (the graph before optimising).</p>")
        rows = "".join(
            f"<tr><td class=num>{r['round']}</td><td>{escape(r['pass'])}</td><td class=num>{r['before']:,}</td>"
            f"<td class=num>{r['after']:,}</td><td class=num>{1e3 * r['seconds']:.2f}</td>"
            f"<td>{escape(', '.join(f'{k} x{v}' for k, v in sorted(r['fired'].items())))}</td></tr>"
            for r in rep.rows)
        fired = ", ".join(f"{k} x{v}" for k, v in sorted(rep.fired.items())) or "none"
        note = f'<p class="note">{escape(self.rep_note)}</p>' if self.rep_note else ""
        return _section("optimiser", "Optimiser", note +
                        f"<p>{rep.nodes_before:,} nodes before, {rep.nodes_after:,} after. Rules fired: "
                        f"{escape(fired)}.</p><table id=\"passes\"><tr><th>round</th><th>pass</th><th>before</th>"
                        f"<th>after</th><th>ms</th><th>rules fired</th></tr>{rows}</table>")

    def fusion_section(self) -> str:
        from .kernel_source import fused_source

        groups = [n for n in self.nodes if n.op in ("fused", "fused_reduce")]
        if not groups:
            return _section("fusion", "Fusion groups", '<p class="note">No fusion groups (run '
                            "<code>fgraph.optimise</code> before compiling to fuse element-wise ops).</p>")
        parts = [f"<p>{len(groups)} group(s). Each runs as one kernel: its instructions, the user's lines they "
                 "came from, and the code generated for it.</p>"]
        sources = [fused_source(n) for n in groups]
        # the first group with C code shows its code open (the page's example of what fusion generates)
        first = next((k for k, src in enumerate(sources) if src["c"]), 0)
        for k, (n, src) in enumerate(zip(groups, sources)):
            name = self.name[id(n)]
            ins = [self._ref(i) for i in n.inputs]
            where = ", ".join(dict.fromkeys(loc for _, _, loc in (n.param("sources") or ()) if loc != "<unknown>"))
            origin = f"<p class=note>from {escape(where)}</p>" if where else ""
            t = (self.exe.timings or {}).get(n)
            head = (f"{name} = {n.op}: {len(n.param('expr'))} op(s) : {type_text(n)}"
                    + (f" ({1e3 * t:.3f} ms)" if t is not None else ""))
            code = (f"<p class=note>C: {escape(src['c_note'])}</p><pre class=\"code c\">{escape(src['c'])}</pre>"
                    if src["c"] else f"<p class=note>C: {escape(src['c_note'])}</p>")
            parts.append(f'<div class="group"><h3>{escape(head)}</h3>{origin}'
                         f"<pre>{escape(chr(10).join(expr_lines(n.param('expr'), ins)))}</pre>"
                         f"<details{' open' if k == first else ''}><summary>generated code</summary>{code}"
                         "<p class=note>NumPy (the ufunc chain, into reused buffers):</p>"
                         f"<pre class=\"code numpy\">{escape(src['numpy'])}</pre>"
                         "</details></div>")
        return _section("fusion", "Fusion groups", "".join(parts))

    def memory_section(self) -> str:
        from .arena_svg import arena_svg

        plan = self.exe._plan
        if plan is None:
            return _section("memory", "Memory plan", '<p class="note">No memory plan: compiled with '
                            "plan_memory=False (arrays are allocated as the graph runs).</p>")
        m = plan.report
        rows = [("arena", _bytes(m.arena_bytes)), ("lower bound (largest live set)", _bytes(m.lower_bound_bytes)),
                ("arena / lower bound", f"{m.ratio:.3f} ({m.ratio_inplace:.3f} counting in-place pairs once)"),
                ("without reuse", _bytes(m.no_reuse_bytes)), ("schedule", m.schedule), ("offsets by", m.strategy),
                ("updates written in place", f"{m.updates_in_place} ({m.updates_copied} kept in the arena)"),
                ("kernel workspace", f"{m.workspace_nodes} node(s), largest {_bytes(m.workspace_bytes)}")]
        table = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
        pairs = in_place_pairs(plan)
        pair_rows = "".join(
            f"<tr><td>{escape(self._ref(plan.order[o]))} {escape(plan.order[o].op)}</td><td>overwrites</td>"
            f"<td>{escape(self._ref(plan.order[i]))} {escape(plan.order[i].op)}</td>"
            f"<td>{escape(type_text(plan.order[o]))}</td></tr>" for o, i in pairs)
        pairs_html = (f"<h3>In-place pairs ({len(pairs)})</h3><table id=\"inplace\"><tr><th>value</th><th></th>"
                      f"<th>input that dies there</th><th>type</th></tr>{pair_rows}</table>" if pairs else
                      '<h3>In-place pairs</h3><p class="note">none</p>')
        updates = "".join(f"<li>{escape(plan.update_in_place[id(n)].name)} &lt;- {escape(self._ref(n))}</li>"
                          for n in plan.order if id(n) in plan.update_in_place)
        updates_html = f"<h3>Updates written in place</h3><ul>{updates}</ul>" if updates else ""
        svg = arena_svg(plan, self.name)
        return _section("memory", "Memory plan", f"<table>{table}</table><figure id=\"arena\">{svg}</figure>"
                        f"<p class=note>Each rectangle is a buffer: its live steps across, its bytes in the arena "
                        f"up; hatched red: kernel workspace. Hover for the node.</p>{pairs_html}{updates_html}")

    def timing_section(self) -> str:
        times = self.exe.timings
        if not times:
            return _section("timings", "Timings", '<p class="note">Not profiled: call '
                            "<code>exe.profile(**feeds)</code> before the report to time each kernel.</p>")
        total = sum(times.values()) or 1.0
        top = sorted(times.items(), key=lambda kv: kv[1], reverse=True)[:TOP_NODES]
        most = top[0][1] or 1.0
        rows = "".join(
            f"<tr><td>{escape(self._ref(n))}</td><td>{escape(n.op)}</td><td>{escape(type_text(n))}</td>"
            f"<td class=num>{1e3 * t:.4f}</td><td class=num>{100 * t / total:.1f}%</td>"
            f"<td><span class=bar style=\"width:{max(1, int(240 * t / most))}px\"></span></td></tr>"
            for n, t in top)
        by_op: dict[str, list] = {}
        for n, t in times.items():
            e = by_op.setdefault(n.op, [0, 0.0])
            e[0] += 1
            e[1] += t
        op_rows = "".join(f"<tr><td>{escape(op)}</td><td class=num>{c}</td><td class=num>{1e3 * t:.4f}</td>"
                          f"<td class=num>{100 * t / total:.1f}%</td></tr>"
                          for op, (c, t) in sorted(by_op.items(), key=lambda kv: kv[1][1], reverse=True))
        return _section("timings", "Timings", f"<p>{len(times):,} kernels, {1e3 * total:.3f} ms in all (each node's "
                        "best of the profiled runs).</p><h3>Slowest nodes</h3><table id=\"slowest\"><tr><th>node</th>"
                        "<th>op</th><th>type</th><th>ms</th><th>share</th><th></th></tr>" + rows +
                        "</table><h3>By op</h3><table id=\"by-op\"><tr><th>op</th><th>nodes</th><th>ms</th>"
                        "<th>share</th></tr>" + op_rows + "</table>")

    def _ref(self, n) -> str:
        if n.op == "literal":
            from .listing import literal_text

            return literal_text(n)
        return self.name.get(id(n), "?")


def inline_svg(svg: str) -> str:
    """Graphviz's SVG made fit to inline: no XML prolog, no DOCTYPE (it names
    an external DTD) and no comments."""
    svg = re.sub(r"<\?xml[^>]*\?>", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>", "", svg)
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    return svg.strip()


def _section(ident: str, title: str, body: str) -> str:
    return f'<section id="{ident}-section"><h2>{escape(title)}</h2>{body}</section>'


def _bytes(n: int) -> str:
    from .arena_svg import short_bytes

    return f"{short_bytes(n)} ({n:,} B)" if n >= 1024 else f"{n:,} B"

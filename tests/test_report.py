"""``fgraph.report(exe, path)`` and ``exe.profile()`` (issue 19, item 3).

Oracles: the page is one self-contained HTML file (nothing fetched, no
script) whose sections hold what the executable holds (a row per optimiser
pass, a group per fused node, a rectangle per arena buffer, a row per
in-place pair, timings for the profiled nodes); headless Chromium loads it
with no console message and finds the figures.  Profiling times every
kernel and changes no variable."""
import re
from html.parser import HTMLParser

import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp
from fgraph.show.browser import find_chromium
from fgraph.show.draw import can_render
from fgraph.show.listing import in_place_pairs
from fgraph.show.report import report_html
from show_graphs import snapshot, training_step

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on PATH (apt-get install chromium)")


class _Page(HTMLParser):
    """Tags, ids and external references of a page; checks that tags nest."""

    VOID = {"meta", "br", "img", "hr", "input", "link", "rect", "line", "path", "polygon", "ellipse", "polyline",
            "text", "title", "stop", "use", "image", "circle"}

    def __init__(self, html):
        super().__init__()
        self.tags, self.ids, self.refs, self.stack, self.errors = [], {}, [], [], []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids[a["id"]] = tag
        for k in ("src", "href", "xlink:href", "action"):
            if a.get(k):
                self.refs.append(a[k])
        if tag not in ("meta", "br", "img", "hr", "input", "link"):
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        for k in ("src", "href", "xlink:href"):
            if dict(attrs).get(k):
                self.refs.append(dict(attrs)[k])

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


@pytest.fixture(scope="module")
def made():
    g, feeds = training_step()
    opt, rep = fgraph.optimise(g, report=True)
    exe = fgraph.compile(opt)
    return g, opt, rep, exe, feeds


def test_profile_times_every_kernel_and_changes_no_variable(made):
    _, _, _, exe, feeds = made
    before = exe.snapshot()
    times = exe.profile(runs=3, **feeds)
    prog = exe._program
    assert set(map(id, times)) == {id(prog.order[ins[3]]) for ins in prog.instructions}
    assert all(isinstance(t, float) and t >= 0 for t in times.values())
    assert exe.timings == times and exe.timings is not times  # kept, and the caller's copy is its own
    after = exe.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)  # no commit
    fresh = fgraph.compile(exe.graph)
    assert np.array_equal(exe(**feeds)["loss"], fresh(**feeds)["loss"])  # the arena is still right
    with pytest.raises(fgraph.FgraphError, match="runs must be >= 1"):
        exe.profile(runs=0, **feeds)
    with pytest.raises(fgraph.FgraphError, match="missing feed"):
        exe.profile()


def test_the_page_is_self_contained_and_holds_every_section(made, tmp_path):
    g, opt, rep, exe, feeds = made
    exe.profile(**feeds)
    before = snapshot(exe.graph)
    path = fgraph.report(exe, str(tmp_path / "r.html"), optimiser_report=rep, title="a <test> page")
    html = open(path, encoding="utf-8").read()
    assert snapshot(exe.graph) == before
    page = _Page(html)
    assert not page.errors and page.stack == []  # tags nest and close
    assert page.refs == []  # nothing to fetch
    assert "<script" not in html and "@import" not in html and "url(http" not in html
    assert "<title>a &lt;test&gt; page</title>" in html
    for section in ("graph", "optimiser", "fusion", "memory", "timings"):
        assert page.ids[f"{section}-section"] == "section"
    # the graph: an inline SVG from Graphviz, else the listing
    if can_render() is None:
        assert re.search(r'<figure id="graph"><svg', html) and "<!DOCTYPE svg" not in html
        assert html.count('class="node"') >= sum(n.op != "literal" for n in opt.nodes())
    else:
        assert page.ids["graph"] == "pre"
    assert "%0 = placeholder &#x27;x&#x27;" in html  # the listing (fgraph.describe(exe))
    # the optimiser: a row per pass run
    passes = re.search(r'<table id="passes">(.*?)</table>', html, re.S).group(1)
    assert passes.count("<tr>") == len(rep.rows) + 1
    # fusion groups: one each, with their code
    fused = [n for n in opt.nodes() if n.op in ("fused", "fused_reduce")]
    assert html.count('<div class="group">') == len(fused) > 0
    assert "def chunk(ins, out, bufs):" in html
    # the memory plan: a rectangle per buffer, the in-place pairs, the updates written in place
    plan = exe._plan
    arena = re.search(r'<figure id="arena">(<svg.*?</svg>)</figure>', html, re.S).group(1)
    assert arena.count('class="buf"') == sum(b.nbytes > 0 for b in plan.live.buffers)
    assert f"arena {plan.plan.arena_bytes:,} B" in arena and f"lower bound {plan.report.lower_bound_bytes:,} B" in arena
    pairs = in_place_pairs(plan)
    if pairs:
        assert re.search(r'<table id="inplace">(.*?)</table>', html, re.S).group(1).count("<tr>") == len(pairs) + 1
    assert len(re.findall(r"<li>\w+ &lt;- %\d+</li>", html)) == len(plan.update_in_place)
    # timings: the slowest nodes and every op
    slowest = re.search(r'<table id="slowest">(.*?)</table>', html, re.S).group(1)
    assert slowest.count("<tr>") == min(30, len(exe.timings)) + 1
    by_op = re.search(r'<table id="by-op">(.*?)</table>', html, re.S).group(1)
    assert by_op.count("<tr>") == len({n.op for n in exe.timings}) + 1


def test_native_c_source_is_shown_when_the_expression_has_one(made):
    from fgraph.engines.numpy_kernels import native
    from fgraph.show.kernel_source import fused_source

    if not native.enabled():
        pytest.skip("native kernels are disabled (FGRAPH_NATIVE=0): no C source to show")
    _, opt, _, _, _ = made
    fused = [n for n in opt.nodes() if n.op == "fused"]
    sources = [fused_source(n) for n in fused]
    for n, src in zip(fused, sources):
        assert src["numpy"].startswith("def chunk(") and src["numpy"].count(" = f") == len(n.param("expr"))
        assert src["c"] is None or ("FG_NAME" in src["c"] and "#include" in src["c"])
    assert any(src["c"] for src in sources)  # tanh, add, multiply over float32: native forms exist


def test_a_graph_is_optimised_compiled_and_reported(tmp_path):
    g, _ = training_step()
    html = open(fgraph.report(g, str(tmp_path / "g.html")), encoding="utf-8").read()
    assert "nodes before" in html and 'id="passes"' in html
    assert "Not profiled" in html
    with pytest.raises(fgraph.FgraphError, match="optimised_from= is for an executable"):
        fgraph.report(g, str(tmp_path / "x.html"), optimised_from=g)


def test_optimised_from_reruns_the_optimiser_and_says_when_it_differs(made, tmp_path):
    g, opt, rep, exe, _ = made
    html = report_html(exe, optimised_from=g)
    assert html.count("<tr><td class=num>") == len(rep.rows) and "not necessarily" not in html
    plain = fgraph.compile(g)  # not optimised: optimising g gives another graph
    assert "not necessarily how this executable was made" in report_html(plain, optimised_from=g)
    bare = report_html(plain)
    assert "No optimiser report" in bare and "No fusion groups" in bare
    unplanned = fgraph.compile(opt, plan_memory=False)
    assert "No memory plan" in report_html(unplanned)
    with pytest.raises(fgraph.FgraphError, match="needs an executable"):
        fgraph.report(fnp.ones(3), str(tmp_path / "t.html"))


def test_without_graphviz_the_page_shows_the_listing(made, tmp_path, monkeypatch):
    _, _, rep, exe, _ = made
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot program
    html = report_html(exe, optimiser_report=rep)
    page = _Page(html)
    assert page.ids["graph"] == "pre" and "No drawing:" in html and "%0 = placeholder" in html


@needs_chromium
def test_chromium_loads_the_page_without_console_messages_and_finds_the_figures(made, tmp_path):
    from fgraph.show.browser import load

    _, _, rep, exe, feeds = made
    exe.profile(**feeds)
    path = fgraph.report(exe, str(tmp_path / "r.html"), optimiser_report=rep)
    dom, console = load(path)
    assert console == []
    assert 'id="arena"' in dom and 'class="buf"' in dom and 'id="slowest"' in dom
    if can_render() is None:
        assert re.search(r'<figure id="graph"><svg', dom)
    # the check itself sees console errors: a page that logs one is caught
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>console.error('boom')</script></body></html>")
    _, console = load(str(bad))
    assert any("boom" in line for line in console)


@needs_chromium
def test_the_demo_writes_the_page_and_its_screenshot(tmp_path):
    from fgraph.show.demo import main

    got = main(str(tmp_path))
    assert open(got["png"], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    assert "one training step of a small MLP" in open(got["html"], encoding="utf-8").read()

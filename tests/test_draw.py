"""``fgraph.draw(g, path)``: DOT, SVG and PNG pictures of graphs (issue 19, item 2).

Oracles: Graphviz itself parses the DOT (``dot -Tjson``) and finds exactly
the boxes, clusters and edges the graph implies (one box a node, one per
instruction of a fused node inside one cluster each, one edge per array
input, one dashed edge per update); long chains collapse to one box; the
node limit holds.  Tests that render need the graphviz package and its dot
program and skip, saying which is missing, without them."""
import json
import os
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.show.draw import can_render, render, to_dot
from random_programs import programs
from show_graphs import random_graph, snapshot, training_step

MISSING = can_render()
needs_dot = pytest.mark.skipif(MISSING is not None, reason=f"rendering needs Graphviz: {MISSING}")


def expected(g) -> tuple[int, int, int]:
    """(boxes, clusters, edges) of ``g`` drawn with no chain collapsed and no limit reached."""
    boxes = clusters = edges = 0
    for n in g.nodes():
        if n.op == "literal":
            continue
        if n.op in ("fused", "fused_reduce"):
            clusters += 1
            reduce = n.op == "fused_reduce"
            boxes += len(n.param("expr")) + reduce
            edges += reduce + sum(a >= 0 or n.inputs[-1 - a].op != "literal"
                                  for _, args, _, _ in n.param("expr") for a in args)
        else:
            boxes += 1
            edges += sum(i.op != "literal" for i in n.inputs)
    return boxes, clusters, edges + len(g.updates)


def text_counts(dot: str) -> tuple[int, int, int]:
    """(boxes, clusters, edges) read off the DOT text as written here."""
    return (len(re.findall(r"^\s*n[\w]* \[label=", dot, re.M)), len(re.findall(r"subgraph cluster_", dot)),
            len(re.findall(r" -> ", dot)))


def graphviz_counts(dot: str) -> tuple[int, int, int]:
    """(boxes, clusters, edges) as Graphviz parses and lays out the DOT."""
    got = json.loads(render(dot, "json"))
    objects = got.get("objects", [])
    clusters = [o for o in objects if o["name"].startswith("cluster")]
    return len(objects) - len(clusters), len(clusters), len(got.get("edges", []))


@given(prog=programs())
@settings(max_examples=examples(30))
def test_random_graphs_draw_one_box_per_node_and_one_edge_per_input(prog):
    g, _ = random_graph(prog)
    before = snapshot(g)
    for graph in (g, fgraph.optimise(g)):
        dot = to_dot(graph, chain=None)
        want = expected(graph)
        assert text_counts(dot) == want
        assert to_dot(graph, chain=None) == dot  # deterministic
    assert snapshot(g) == before  # drawing changes nothing


@needs_dot
@given(prog=programs())
@settings(max_examples=examples(10))
def test_graphviz_parses_the_dot_with_the_counts_the_graph_implies(prog):
    g, _ = random_graph(prog)
    opt = fgraph.optimise(g)
    assert graphviz_counts(to_dot(opt, chain=None)) == expected(opt)


@needs_dot
def test_a_training_step_has_fused_clusters_and_dashed_updates():
    g, _ = training_step()
    opt = fgraph.optimise(g)
    dot = to_dot(opt)
    assert graphviz_counts(dot) == expected(opt)
    fused = [n for n in opt.nodes() if n.op in ("fused", "fused_reduce")]
    assert fused and len(re.findall(r"subgraph cluster_", dot)) == len(fused)
    updates = re.findall(r"^\s*(\S+) -> (\S+) \[style=dashed.*label=\"(\w+) <-\"", dot, re.M)
    assert sorted(name for _, _, name in updates) == ["b", "w"]
    for src, dst, name in updates:  # from the new value's box to the variable's box
        assert re.search(rf"^\s*{dst} \[label=\"variable '{name}'", dot, re.M)
    assert "placeholder 'x'\\nfloat32[8,5]" in dot  # labels: op, shape and dtype


def test_long_chains_collapse_to_one_box():
    x = fnp.placeholder((4,), "float32", name="x")
    y = fnp.exp(x)
    for k in range(30):
        y = fnp.sin(y) if k % 2 else y * 1.5
    z = y + x  # two array inputs: the chain ends before it
    g = fgraph.Graph(z)
    dot = to_dot(g, chain=8)
    boxes, clusters, edges = text_counts(dot)
    assert (boxes, clusters) == (3, 0)  # x, the chain of 31 ops (exp, then sin/multiply), the add
    assert '"31 ops: exp, multiply, sin\\nfloat32[4]"' in dot
    assert edges == 3  # x -> chain, chain -> add, x -> add
    assert text_counts(to_dot(g, chain=None))[0] == 33
    short = fgraph.Graph(fnp.sin(fnp.cos(x)))
    assert text_counts(to_dot(short, chain=8))[0] == 3  # shorter than the threshold: drawn op by op


def test_the_node_limit_elides_the_middle_with_a_note():
    x = fnp.placeholder((3,), "float32", name="x")
    ys = [fnp.sin(x + k) for k in range(400)]  # wide: 801 ops, no chain of single-use ops that long
    g = fgraph.Graph(ys)
    dot = to_dot(g, max_boxes=100)
    boxes, _, _ = text_counts(dot)
    assert boxes <= 101
    assert re.search(r"\.\.\. [\d,]+ more node\(s\) not drawn", dot)
    drawn = len(re.findall(r"^\s*n\d+ \[label=", dot, re.M))
    elided = int(re.search(r"\.\.\. ([\d,]+) more", dot).group(1).replace(",", ""))
    assert drawn + elided == sum(n.op != "literal" for n in g.nodes())  # each node drawn or counted in the note
    if MISSING is None:
        assert graphviz_counts(dot)[0] == boxes


@pytest.mark.parametrize("suffix", ["dot", "svg", "png"])
def test_draw_writes_each_format(tmp_path, suffix):
    if suffix != "dot" and MISSING is not None:
        pytest.skip(f"rendering needs Graphviz: {MISSING}")
    g, _ = training_step()
    path = str(tmp_path / f"g.{suffix}")
    assert fgraph.draw(g, path) == path
    data = open(path, "rb").read()
    if suffix == "dot":
        assert data.decode() == to_dot(g)
    elif suffix == "svg":
        root = ET.fromstring(data)
        assert root.tag.endswith("svg") and len(root.findall(".//{http://www.w3.org/2000/svg}g")) > 10
    else:
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_dot_needs_neither_the_package_nor_the_program(tmp_path, monkeypatch):
    g, _ = training_step()
    monkeypatch.setitem(__import__("sys").modules, "graphviz", None)  # as if not installed
    monkeypatch.setenv("PATH", str(tmp_path))  # and no dot program
    fgraph.draw(g, str(tmp_path / "g.dot"))
    assert os.path.getsize(tmp_path / "g.dot") > 100
    with pytest.raises(fgraph.FgraphError, match=r"graphviz Python package.*pip install graphviz"):
        fgraph.draw(g, str(tmp_path / "g.svg"))


def test_a_missing_dot_program_says_how_to_install_it(tmp_path, monkeypatch):
    pytest.importorskip("graphviz", reason="the graphviz Python package is not installed")
    g, _ = training_step()
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(fgraph.FgraphError, match=r"dot program.*apt-get install graphviz"):
        fgraph.draw(g, str(tmp_path / "g.png"))
    assert not os.path.exists(tmp_path / "g.png")


def test_refusals():
    g, _ = training_step()
    with pytest.raises(fgraph.FgraphError, match=r"format of 'g.pdf'.*\.dot, \.svg, \.png"):
        fgraph.draw(g, "g.pdf")
    with pytest.raises(fgraph.FgraphError, match="cannot draw a Tensor"):
        to_dot(fnp.ones(3))
    with pytest.raises(fgraph.FgraphError, match="max_boxes"):
        to_dot(g, max_boxes=1)


def test_an_executable_draws_its_graph():
    g, feeds = training_step()
    exe = fgraph.compile(fgraph.optimise(g))
    assert to_dot(exe) == to_dot(exe.graph)
    exe(**feeds)
    assert np.isfinite(exe.variables["w"]).all()


def test_loops_and_branches_draw_their_bodies_as_clusters_once():
    xs = fnp.placeholder((5, 3), "float32", name="xs")

    def step(c, r):
        c = fnp.tanh(c + r * 2.0)
        return c, c.sum()

    c, ys = fgraph.scan(step, fnp.zeros(3, "float32"), xs)
    out = fgraph.cond(ys.sum() > 0, lambda a: a * 2, lambda a: a - 1, c)
    g = fgraph.Graph([c, ys, out])
    dot = to_dot(g, chain=None)
    names = re.findall(r"subgraph (cluster_\w+) \{", dot)
    assert len(names) == 3  # the scan's body (shared by its two outputs) and the two branches
    start = dot.index("subgraph cluster_")
    body = dot[start:dot.index("\n  }", start)]  # the first cluster, nested in the graph: the body
    assert "placeholder 'scan_in0'" in body and "tanh" in body and "placeholder 'xs'" not in body
    assert len(re.findall(r'style=dotted, label="body"', dot)) == 2 * 2  # each body output feeds each scan node
    assert len(re.findall(r'style=dotted, label="branches\[\d\]"', dot)) == 2
    if MISSING is None:
        boxes, clusters, _ = graphviz_counts(dot)
        assert clusters == 3 and boxes == text_counts(dot)[0]

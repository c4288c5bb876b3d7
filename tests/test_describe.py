"""``fgraph.describe(g)`` / ``print(g)``: a graph's listing, one line a node (issue 19, item 1).

Oracles: every node of the graph is defined by exactly one line, numbered
0, 1, 2, ... in an order where each reference is defined before it is used;
the text is a function of the graph's structure (the same program built
twice lists the same); fused nodes list their instructions; an executable's
listing marks exactly the in-place pairs its memory plan used."""
import re
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.show.listing import in_place_pairs
from random_programs import programs
from show_graphs import defined, random_graph, snapshot, training_step

REF = re.compile(r"%(\d+)")


def _check_listing(g, text):
    """Every non-literal node defined once, numbered in order, each reference defined earlier."""
    nodes = [n for n in g.nodes() if n.op != "literal"]
    lines = defined(text)
    assert [k for k, _ in lines] == list(range(len(nodes)))
    assert sorted(op for _, op in lines) == sorted(n.op for n in nodes)
    seen = set()
    for line in text.splitlines():
        m = re.match(r"^\s*%(\d+) = ", line)
        if m:
            code = line.split("  # ")[0]
            used = {int(r) for r in REF.findall(code[m.end():])}
            assert used <= seen, line  # topological: inputs are listed first
            seen.add(int(m.group(1)))


def test_a_small_graph_lists_exactly():
    x = fnp.placeholder((4, 3), "float32", name="x")
    w = fnp.variable(np.ones((3, 2), "float32"), name="w")
    y = fnp.tanh(x @ w) * 0.5
    g = fgraph.Graph(outputs=[y, y.sum()], updates={w: w + 1})
    assert fgraph.describe(g) == "\n".join([
        "graph: 2 input(s), 2 output(s), 1 update(s), 7 node(s)",
        "  %0 = placeholder 'x' : float32[4,3]",
        "  %1 = variable 'w' : float32[3,2]",
        "  %2 = matmul %0 %1 : float32[4,2]",
        "  %3 = tanh %2 : float32[4,2]",
        "  %4 = multiply %3 0.5 : float32[4,2]",
        "  %5 = sum[axis=(0, 1), keepdims=False, dtype=None] %4 : float32[]",
        "  %6 = add %1 1 : float32[3,2]",
        "outputs: [%4, %5]",
        "updates:",
        "  w <- %6"])
    assert str(g) == fgraph.describe(g)


def test_leaves_come_first_constants_summarised_names_and_sources():
    g, _ = training_step()
    text = fgraph.describe(g, source=True)
    _check_listing(g, text)
    ops = [op for _, op in defined(text)]
    n_leaves = sum(op in ("placeholder", "variable", "constant") for op in ops)
    assert all(op in ("placeholder", "variable", "constant") for op in ops[:n_leaves])
    assert "%0 = placeholder 'x' : float32[8,5]" in text
    assert "constant [0, 1, 2] : float32[3]" in text  # small: its values
    assert "outputs: {'loss': %" in text and re.search(r"^  w <- %\d+$", text, re.M)
    assert __file__.rsplit("/", 1)[-1] not in fgraph.describe(g)  # source lines only when asked
    assert "show_graphs.py:" in text
    big = fgraph.Graph(fnp.asarray(np.arange(10**6, dtype="float64")) + 1)
    assert "constant [0, 1, 2, 3, ...] : float64[1000000]" in fgraph.describe(big)  # never dumped


@given(prog=programs())
@settings(max_examples=examples(40))
def test_random_graphs_list_every_node_once_in_topological_order(prog):
    g, _ = random_graph(prog)
    before = snapshot(g)
    text = fgraph.describe(g)
    _check_listing(g, text)
    assert fgraph.describe(g) == text  # deterministic
    assert snapshot(g) == before  # describing changes nothing
    g2, _ = random_graph(prog)  # the same program again: new nodes, the same text
    assert fgraph.describe(g2) == text


@given(prog=programs())
@settings(max_examples=examples(25))
def test_fused_nodes_list_their_instructions(prog):
    g, _ = random_graph(prog)
    opt = fgraph.optimise(g)
    text = fgraph.describe(opt)
    _check_listing(opt, text)
    lines = text.splitlines()
    fused = [n for n in opt.nodes() if n.op in ("fused", "fused_reduce")]
    inner = [line for line in lines if re.match(r"^ {8}t\d+ = ", line)]
    assert len(inner) == sum(len(n.param("expr")) for n in fused)
    for k, line in enumerate(lines):  # each fused line is followed by its program, t0, t1, ...
        m = re.match(r"^  %\d+ = (fused|fused_reduce)\[", line)
        if m:
            j = k + 1
            while j < len(lines) and lines[j].startswith("        t"):
                assert lines[j].startswith(f"        t{j - k - 1} = ")
                j += 1
            assert j > k + 1


def test_an_executable_lists_its_schedule_and_marks_in_place_writes():
    x = fnp.placeholder((50, 40), "float64", name="x")
    a = fnp.sin(x)
    b = fnp.exp(a)  # may overwrite a (dead after it): an in-place pair
    c = fnp.negative(b)
    exe = fgraph.compile(fgraph.Graph(c.sum(axis=0)))
    plan = exe._plan
    pairs = in_place_pairs(plan)
    assert pairs, "the plan should write exp over sin"
    text = fgraph.describe(exe)
    assert text.startswith("executable (numpy): ") and f"{len(pairs)} in-place pair(s)" in text
    number = {int(k): op for k, op in defined(text)}
    marked = re.findall(r"^  %(\d+) = (\S+).*in place of %(\d+)", text, re.M)
    assert len(marked) == len(pairs)
    want = {(plan.order[o].op, plan.order[i].op) for o, i in pairs}
    assert {(op, number[int(i)]) for _, op, i in marked} == want
    assert re.search(r"arena \+\d", text)  # offsets are shown


def test_an_executable_marks_updates_written_in_place():
    g, feeds = training_step()
    exe = fgraph.compile(fgraph.optimise(g))
    text = fgraph.describe(exe)
    marked = re.findall(r"^  (\w+) <- %\d+  # written in place", text, re.M)
    assert sorted(marked) == sorted(v.name for v in exe._plan.update_in_place.values())
    assert len(re.findall(r"^  \w+ <- %\d+", text, re.M)) == len(g.updates)
    exe(**feeds)
    assert fgraph.describe(exe) == text  # running changes nothing listed


def test_max_lines_elides_the_middle():
    x = fnp.placeholder((3,), "float32", name="x")
    y = x
    for _ in range(50):
        y = fnp.sin(y)
    g = fgraph.Graph(y)
    full = fgraph.describe(g).splitlines()
    short = fgraph.describe(g, max_lines=10).splitlines()
    assert len(short) == 1 + 10 + 1  # header, 10 body lines (one says what was elided), outputs
    assert short[:6] == full[:6] and short[-5:] == full[-5:]
    assert "42 line(s) elided" in short[6]
    with pytest.raises(fgraph.FgraphError, match="max_lines"):
        fgraph.describe(g, max_lines=1)


def test_a_deep_graph_is_listed_without_recursion():
    x = fnp.placeholder((2,), "float32", name="x")
    y = x
    for _ in range(sys.getrecursionlimit() + 2000):
        y = y + 1.0
    g = fgraph.Graph(y)
    text = fgraph.describe(g, max_lines=20)
    assert text.splitlines()[0].endswith(f"{len(g.nodes()) - 1} node(s)")  # (the literal is written inline)


def test_describe_keeps_the_lazy_array_description_and_refuses_other_things():
    x = fnp.placeholder((2, 3), "float32", name="x")
    assert fgraph.describe(x) == "<fgraph.Tensor placeholder 'x' float32[2, 3]>"
    assert fgraph.describe(fnp.sin(x)) == "<fgraph.Tensor sin float32[2, 3]>"
    with pytest.raises(fgraph.FgraphError, match="cannot describe a dict"):
        fgraph.describe({})
    assert repr(fgraph.Graph(x)).startswith("<fgraph.Graph")  # repr stays short


def test_loops_and_branches_list_their_bodies_once():
    xs = fnp.placeholder((5, 3), "float32", name="xs")

    def step(c, r):
        c = fnp.tanh(c + r * 2.0)
        return c, c.sum()

    c, ys = fgraph.scan(step, fnp.zeros(3, "float32"), xs)
    out = fgraph.cond(ys.sum() > 0, lambda a: a * 2, lambda a: a - 1, c)
    g = fgraph.Graph([c, ys, out])
    text = fgraph.describe(g)
    assert text.count("body = {") == 1  # the scan's two outputs share one body: listed once
    assert re.search(r"^ +body = %\d+\.body  # listed above$", text, re.M)
    assert text.count("branches[0] = {") == 1 and text.count("branches[1] = {") == 1
    assert "placeholder 'scan_in0'" in text and "tanh" in text
    top = [line for line in text.splitlines() if re.match(r"^  %\d+ = ", line)]
    assert len(top) == sum(n.op != "literal" for n in g.nodes())

"""Graphs for the describe / draw / report tests: a small training step,
random programs as graphs, and a node that holds a sub-graph."""
import re
import warnings

import numpy as np

import fgraph
import fgraph.numpy as fnp
from fgraph.operator import Tensor
from fgraph.shape import defop
from fgraph.symbol import make_node
from fgraph.types import is_registered
from random_programs import build

#: a test-only op whose params hold a Graph (as a loop's body does): its value has its input's shape and dtype
CALL = "show_test_call"
if not is_registered(CALL):
    defop(CALL, lambda inputs, body: (inputs[0].shape, inputs[0].dtype), "a test op holding a sub-graph")

DEF = re.compile(r"^\s*%(\d+) = (\w+)")


def call(x, body):
    """A node of the test op over ``x`` holding ``body`` (a Graph)."""
    return Tensor(make_node(CALL, [x.node], (("body", body),)), x.stack)


def training_step():
    """(graph, feeds, variables): one SGD step of a small model, with literals, constants and updates."""
    x = fnp.placeholder((8, 5), "float32", name="x")
    w = fnp.variable(np.linspace(-1, 1, 15, dtype="float32").reshape(5, 3), name="w")
    b = fnp.variable(np.zeros(3, "float32"), name="b")
    c = fnp.asarray(np.arange(3, dtype="float32"))
    y = fnp.tanh(x @ w + b) * 0.5 + c
    loss = (y ** 2).mean()
    gw, gb = fgraph.grad(loss, [w, b])
    g = fgraph.Graph(outputs={"loss": loss, "y": y}, updates={w: w - 0.1 * gw, b: b - 0.1 * gb})
    feeds = {"x": np.random.default_rng(1).normal(size=(8, 5)).astype("float32")}
    return g, feeds


def random_graph(prog, tail: int = 6):
    """A Graph of the last ``tail`` values of a random program (from ``random_programs.programs()``)."""
    inputs, steps = prog
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, lazy, phs = build(inputs, steps)
    return fgraph.Graph(lazy[-tail:], inputs=phs), inputs


def defined(text: str) -> list[tuple[int, str]]:
    """(number, op) of each node line of a listing, in order (fused instructions are not node lines)."""
    return [(int(m.group(1)), m.group(2)) for m in map(DEF.match, text.splitlines()) if m]


def snapshot(g):
    """What must not change when a graph is described, drawn or reported."""
    nodes = g.nodes()
    return (g.key, [(n.key, n.op, n.params, n.shape, n.dtype, n.inputs) for n in nodes], dict(g.attrs))

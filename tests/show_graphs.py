"""Graphs for the describe / draw / report tests: a small training step
and random programs as graphs."""
import re
import warnings

import numpy as np

import fgraph
import fgraph.numpy as fnp
from random_programs import build

DEF = re.compile(r"^\s*%(\d+) = (\w+)")


def training_step():
    """(graph, feeds): one SGD step of a small model, with literals, constants and updates."""
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
    return (g.key, [(n.key, n.op, n.params, n.shape, n.dtype, n.inputs) for n in nodes])

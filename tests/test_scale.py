"""A graph of a million nodes builds, hashes, traverses, optimises, runs and
is freed without recursion."""
import gc

import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp
from fgraph.symbol import topological


@pytest.mark.slow  # ~25 s: run by .ci/run's second pass
def test_million_node_chain():
    n = 1_000_000
    x = fnp.placeholder((2,), "float64", name="x")
    y = x
    for _ in range(n // 2):
        y = y * 1.0000001 - 1e-9  # two nodes per step (literals are shared)
    order = topological([y.node])
    assert len(order) == n + 1 + 2
    g = fgraph.Graph(y)
    out = fgraph.compile(g)(x=np.array([1.0, 2.0]))
    want = np.array([1.0, 2.0])
    for _ in range(n // 2):
        want = want * 1.0000001 - 1e-9
    np.testing.assert_array_equal(out, want)
    del g, y, order
    gc.collect()  # freeing a deep chain must not overflow the C stack


@pytest.mark.slow
def test_optimise_a_long_chain():
    n = 100_000
    x = fnp.placeholder((3,), "float64", name="x")
    y = x
    for _ in range(n // 2):
        y = fnp.tanh(y) * 0.999
    g = fgraph.Graph(y)
    g2 = fgraph.optimise(g)
    fused = [m for m in g2.nodes() if m.op == "fused"]
    assert len(fused) >= n // 48 and all(len(f.param("expr")) <= 48 for f in fused)
    v = np.array([0.5, -1.0, 2.0])
    np.testing.assert_array_equal(fgraph.compile(g2)(x=v), fgraph.compile(g)(x=v))

"""A graph of a million nodes builds, hashes, traverses, optimises, runs and
is freed without recursion."""
import gc

import numpy as np

import fgraph
import fgraph.numpy as fnp
from fgraph.symbol import topological


def test_million_node_chain():
    n = 1_000_000
    x = fnp.placeholder((2,), "float64", name="x")
    y = x
    for _ in range(n // 2):
        y = y * 1.0000001 - 1e-9  # two nodes per step (literals are shared)
    order = topological([y.node])
    assert len(order) == n + 1 + 2
    g = fgraph.Graph(y)
    assert fgraph.optimise(g) is g
    out = fgraph.compile(g)(x=np.array([1.0, 2.0]))
    want = np.array([1.0, 2.0])
    for _ in range(n // 2):
        want = want * 1.0000001 - 1e-9
    np.testing.assert_array_equal(out, want)
    del g, y, order
    gc.collect()  # freeing a deep chain must not overflow the C stack

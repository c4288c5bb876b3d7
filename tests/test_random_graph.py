"""Random compositions of dozens of ops, built lazily and eagerly, compared.

Each step applies the same function (written against a namespace ``xp``) to
a NumPy pool and to a lazy pool; at the end the whole lazy pool is compiled
as one graph and must equal NumPy's pool exactly (shape, dtype, values)."""
import warnings

from hypothesis import given

import fgraph
from oracle import assert_same
from random_programs import build, feeds, programs


@given(prog=programs())
def test_random_graphs_match_numpy(prog):
    inputs, steps = prog
    eager, lazy, phs = build(inputs, steps)
    g = fgraph.Graph(lazy, inputs=phs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = fgraph.compile(g)(**feeds(inputs))
    for r, w in zip(results, eager):
        assert_same(r, w)

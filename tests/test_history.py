"""Released history (``fgraph.symbol.HISTORY_DEPTH``): an eager loop holds a
bounded graph, with NumPy's values, aliasing and printing kept, and a
gradient that would need released history says so.

The depth is patched small here (``shallow``), so a few ops release."""
import contextlib
import gc
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import fgraph
import fgraph.numpy as fnp
from fgraph import symbol as _symbol
from fgraph.symbol import Released, topological
from test_views_writes import _program as views_and_writes

BIG = (60, 70)  # above COMPUTE_NOW_ELEMENTS: lazy until fetched


@contextlib.contextmanager
def shallow(depth: int):
    with mock.patch.object(_symbol, "HISTORY_DEPTH", depth):
        yield


def history(t) -> int:
    """How many nodes t's graph holds."""
    return len(topological([t.node]))


@pytest.mark.parametrize("shape", [(7,), BIG])
def test_a_rebinding_loop_holds_a_bounded_graph_and_numpys_values(shape):
    x0 = np.random.default_rng(0).normal(size=shape)
    with shallow(20):
        x, want = fnp.asarray(x0), x0
        sizes = []
        for i in range(300):
            x = x * 0.5 + 1
            want = want * 0.5 + 1
            if i % 7 == 0:
                np.testing.assert_array_equal(np.asarray(x), want)  # a fetch: a big x is known from here
            sizes.append(history(x))
        np.testing.assert_array_equal(np.asarray(x), want)
    assert max(sizes[100:]) <= 2 * 20 + 4  # bounded by the depth (small: x is known at once) ...
    assert max(sizes) < 300  # ... not the 600 ops made


def test_a_loop_of_rolls_is_cut_through_the_views_it_reads():
    """``u = f(roll(u))``: roll reads u through slices (which keep their
    input, as a view's chain must); they are made again on u's value, so the
    chain is cut, not kept to twice the depth."""
    u0 = np.random.default_rng(2).normal(size=BIG)
    with shallow(30):
        u, want = fnp.asarray(u0), u0
        sizes = []
        for i in range(200):
            u = 0.5 * u + 0.25 * (fnp.roll(u, 1, 0) + fnp.roll(u, -1, 1))
            want = 0.5 * want + 0.25 * (np.roll(want, 1, 0) + np.roll(want, -1, 1))
            if i % 2 == 0:
                float(u[0, 0])
            sizes.append(u.node.depth)
        np.testing.assert_array_equal(np.asarray(u), want)
    assert max(sizes) <= 30 + 3 * 6  # the depth, then a window of two steps (6 ops each); not 2 * 30


def test_a_lazy_loop_that_never_fetches_is_computed_once_twice_as_deep():
    x0 = np.random.default_rng(1).normal(size=BIG)
    with shallow(10):
        x, want = fnp.asarray(x0), x0
        sizes = []
        for _ in range(200):
            x = x * 0.5 + 1
            want = want * 0.5 + 1
            sizes.append(history(x))
        assert max(sizes) <= 2 * 2 * 10 + 4
        np.testing.assert_array_equal(np.asarray(x), want)


def test_in_place_writes_through_views_keep_aliasing_across_releases():
    def prog(xp):
        u = xp.zeros((6, 8))
        inner = u[1:-1, 1:-1]  # a view taken before any release
        edge = u[0]
        seen = []
        for i in range(120):
            inner += 1.0
            u[0, i % 8] = i
            edge *= 0.5
            if i % 11 == 0:
                seen.append(float(inner.sum()) + float(edge[3]))
        return xp.asarray(u).copy(), xp.asarray(inner).copy(), seen

    want = prog(np)
    with shallow(8):
        got = prog(fnp)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[2] == want[2]


def test_the_released_graph_is_freed():
    with shallow(16):
        x = fnp.asarray(np.arange(5.0))
        first = x * 2.0
        import weakref
        ref = weakref.ref(first.node)
        x = first
        del first
        for _ in range(100):
            x = x + 1.0
        gc.collect()
        assert ref() is None  # nothing holds the early nodes now
        assert any(n.op == "constant" and isinstance(n.params[0][1], Released) for n in topological([x.node]))
        np.testing.assert_array_equal(np.asarray(x), np.arange(5.0) * 2 + 100)


def test_a_zero_d_accumulator_still_prints_as_numpys_scalar():
    def prog(xp):
        total = xp.zeros(3).sum()  # a NumPy scalar (np.float64), not a 0-d array
        for i in range(50):
            total = total + xp.float64(i)
        return total

    want = prog(np)
    with shallow(5):
        got = prog(fnp)
        assert repr(got) == repr(want) and str(got) == str(want)
        a = fnp.zeros(())  # a 0-d array stays one
        for i in range(50):
            a += 1.0
        assert repr(a) == repr(np.asarray(50.0))


def test_a_gradient_through_released_history_is_refused_not_a_silent_zero():
    with shallow(10):
        x0 = fnp.asarray(np.linspace(0.1, 1.0, 5))
        x = x0
        for _ in range(30):
            x = x * 1.01
        with pytest.raises(fgraph.FgraphError, match="history.*released.*HISTORY_DEPTH"):
            fgraph.grad(x.sum(), x0)
        # an array made after the release is no ancestor of it: its gradient is fine
        w = fnp.asarray(np.arange(5.0))
        np.testing.assert_allclose(np.asarray(fgraph.grad((w * x).sum(), w)), np.asarray(x))
        np.testing.assert_allclose(np.asarray(fgraph.grad((x * x).sum(), x)), 2 * np.asarray(x))


def test_a_gradient_with_respect_to_a_view_made_again_is_refused():
    """A pending view of a deep state is made again on the state's Released
    constant when used: the view's own node is then not in the graph, and
    its gradient would be a silent zero."""
    with shallow(10):
        u = fnp.asarray(np.linspace(0.1, 1.0, 4200).reshape(BIG))
        for _ in range(12):
            u = u * 1.01
        float(u[0, 0])  # u is known; the view below is large, so pending
        v = u[1:]
        y = (v * 2.0).sum()
        with pytest.raises(fgraph.FgraphError, match="history.*released"):
            fgraph.grad(y, v)


def test_a_variables_history_is_kept_whole():
    with shallow(10):
        v = fnp.variable(np.linspace(0.1, 1.0, 5))
        x = v
        for _ in range(40):
            x = x * 1.5
        g = fgraph.grad(x.sum(), v)
        np.testing.assert_allclose(np.asarray(g), np.full(5, 1.5 ** 40))


def test_the_default_depth_keeps_gradients_of_ordinary_programs():
    x0 = fnp.asarray(np.linspace(0.1, 1.0, 5))
    x = x0
    for _ in range(500):
        x = fnp.sin(x) * 0.5 + x0
    assert fgraph.grad(x.sum(), x0) is not None  # 1,500 ops: nothing released


@given(data=st.data())
def test_views_and_writes_match_numpy_with_history_released_every_few_ops(data):
    depth = data.draw(st.integers(1, 4))
    note(f"HISTORY_DEPTH={depth}")
    with shallow(depth):
        views_and_writes(data, fnp.asarray, steps=12)


def test_a_graph_over_released_history_saves_and_loads():
    """Its Released constants save as the constants they are."""
    import io

    with shallow(10):
        x = fnp.asarray(np.linspace(0.1, 1.0, 6))
        for _ in range(30):
            x = x * 1.5 + 0.25
        y = x.sum()
        buf = io.BytesIO()
        fgraph.save(fgraph.Graph(outputs=y), buf)
        loaded = fgraph.load(io.BytesIO(buf.getvalue()))
        assert float(fgraph.compile(loaded)()) == float(y)


def test_nodes_made_on_one_line_share_its_location():
    """A loop's history holds thousands of nodes made on a few lines: they
    share one (file, line) tuple, which errors still name."""
    x = fnp.asarray(np.linspace(0.1, 1.0, 5))
    nodes = []
    for _ in range(3):
        x = x * 0.5 + 1.0
        nodes.append(x.node)
    assert nodes[0].where is nodes[1].where is nodes[2].where
    assert nodes[0].where == (__file__, nodes[0].where[1])
    with pytest.raises(fgraph.FgraphError, match=r"test_history\.py:\d+"):
        fnp.reshape(x, (7,))

"""A while_loop run as one native function (``native/whole_loop.py``): the
same loops written with NumPy are the oracle, compared bit for bit, and
every test checks which way the loop ran."""
import functools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.numpy_kernels import control
from fgraph.engines.numpy_kernels.native import STATS, graph_code, toolchain, whole_loop

from budget import examples

pytestmark = pytest.mark.skipif(toolchain() is None or not whole_loop.enabled(), reason="no C compiler")


@pytest.fixture(autouse=True)
def compile_at_once(monkeypatch):
    """Loops wait for their native code (else their first runs use the programs)."""
    monkeypatch.setattr(control, "native_while", functools.partial(whole_loop.native_while, wait=True))
    monkeypatch.setattr(control, "native_scan", functools.partial(whole_loop.native_scan, wait=True))


def run(cond, body, init, consts=()):
    """``while_loop(cond, body, init)`` compiled, and whether it ran natively."""
    holders = [fnp.placeholder(np.shape(x), np.asarray(x).dtype, name=f"c{k}") for k, x in enumerate(consts)]
    feeds = {f"c{k}": x for k, x in enumerate(consts)}
    out = fgraph.while_loop(lambda s: cond(s, *holders), lambda s: body(s, *holders), init)
    exe = fgraph.compile(fgraph.Graph(list(out)))
    before = STATS["loops"]
    got = exe(**feeds)
    return [np.asarray(g) for g in got], STATS["loops"] > before


def numpy_loop(cond, body, init, consts=()):
    s = tuple(np.asarray(x) for x in init)
    while cond(s, *consts):
        s = tuple(np.asarray(x) for x in body(s, *consts))
    return list(s)


def same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def jacobi_body(xp):
    def sweep(s):
        u, _, k = s
        new = u.copy()
        new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        return new, xp.abs(new - u).max(), k + 1
    return sweep


@pytest.mark.parametrize("n", [3, 17, 64])
def test_jacobi_to_a_tolerance_runs_natively_and_equals_numpy(n):
    u0 = np.zeros((n, n))
    u0[0] = 1.0
    cond = lambda s: (s[1] >= 1e-3) & (s[2] < 5000)  # noqa: E731
    init = (u0, np.float64(np.inf), np.int64(0))
    got, native = run(cond, jacobi_body(fnp), init)
    assert native
    same(got, numpy_loop(cond, jacobi_body(np), init))


@pytest.mark.parametrize("trips", [0, 1, 5])
def test_trip_counts_zero_and_one(trips):
    x0 = np.arange(6.0).reshape(2, 3)
    cond = lambda s: s[1] < trips  # noqa: E731
    body = lambda s: (s[0] * 1.5 - 1.0, s[1] + 1)  # noqa: E731
    got, native = run(cond, body, (x0, np.int64(0)))
    assert native
    same(got, numpy_loop(cond, body, (x0, np.int64(0))))


def test_zero_trips_hands_out_no_input_buffer():
    x0 = np.arange(4.0)
    got, _ = run(lambda s: s[1] < 0, lambda s: (s[0] + 1, s[1] + 1), (x0, np.int64(0)))
    got[0][0] = 99.0
    assert x0[0] == 0.0


def test_constants_views_and_reductions():
    a = np.linspace(-2.0, 3.0, 12).reshape(3, 4)
    w = np.arange(4, dtype=np.int32)

    def cond(s, a, w):
        return (s[2] < 7) & ~(s[0] > 100.0).all()

    def body(s, a, w):
        x, m, k = s
        xp = np if isinstance(x, np.ndarray) else fnp
        y = xp.where(x.T[::-1].T > 0, x * 1.25, x - a)
        return y, m[::-1] + (w * k).sum() + m.max() + (y > 1).any() - (y < -5).all() + (y.min(axis=1) > 0), k + 1

    init = (a, np.arange(3, dtype=np.int64), np.int64(0))
    got, native = run(cond, body, init, consts=(a, w))
    assert native
    same(got, numpy_loop(cond, body, init, consts=(a, w)))


def test_movement_views_index_without_copies():
    def body(s):
        x, k = s
        xp = np if isinstance(x, np.ndarray) else fnp
        t = x.T.reshape(4, 6)[:, ::2]  # (4, 3), read twice below
        r = xp.broadcast_to(x[:, :1], (6, 4)) + xp.expand_dims(x.max(axis=0) > 0, 0) + t.reshape(6, 2).min(1)[:, None]
        return r * 0.5 - xp.transpose(t.reshape(2, 6)).reshape(3, 4).max(0), k + 1
    cond = lambda s: s[1] < 4  # noqa: E731
    init = (np.arange(24.0).reshape(6, 4) % 7 - 3, np.int64(0))
    with np.errstate(all="ignore"):
        want = numpy_loop(cond, body, init)
        got, native = run(cond, body, init)
    assert native
    same(got, want)


def test_integer_and_bool_carries():
    def body(s):
        x, alive, k = s
        nxt = (x * 3 + 1) % 17
        return nxt, alive & (nxt != 0), k + alive.sum()
    cond = lambda s: s[1].any() & (s[2] < 200)  # noqa: E731
    init = (np.arange(1, 9, dtype=np.int64), np.ones(8, bool), np.int64(0))
    got, native = run(cond, body, init)
    same(got, numpy_loop(cond, body, init))


@pytest.mark.parametrize("n", [1, 7, 8, 9, 127, 128, 129, 1000, 4099])
def test_float_sums_add_as_numpy_does(n):
    """NumPy sums floats pairwise: the native sum makes the same additions in the same order."""
    rng = np.random.default_rng(n)
    x0 = rng.normal(size=n) * 10.0 ** rng.integers(-8, 8, size=n)
    x0[::5] = -0.0
    m0 = rng.normal(size=(3, n)).astype(np.float32)
    cond = lambda s: (s[0].sum() < 1e12) & (s[3] < 4)  # noqa: E731

    def body(s):
        x, m, total, k = s
        y = x * 1.5 - 0.25
        return y, m * 0.5, y.sum() + (m * m).sum(axis=-1).sum() + (-y * 0.0).sum() + m.sum(axis=1)[0], k + 1
    init = (x0, m0, np.float64(0), np.int64(0))
    got, native = run(cond, body, init)
    assert native
    same(got, numpy_loop(cond, body, init))
    assert np.signbit(got[2]) == np.signbit(numpy_loop(cond, body, init)[2])


def test_a_float_sum_over_the_first_axis_is_left_to_the_programs():
    """Over another axis than all or the last, NumPy's order is its iterator's."""
    x0 = np.linspace(0.1, 1.0, 50).reshape(5, 10)
    cond = lambda s: s[0].sum(axis=0)[0] < 200.0  # noqa: E731
    body = lambda s: (s[0] * 1.1,)  # noqa: E731
    got, native = run(cond, body, (x0,))
    assert not native
    same(got, numpy_loop(cond, body, (x0,)))


def test_a_float_sum_of_an_input_not_in_c_order_is_left_to_the_programs(monkeypatch):
    """NumPy adds in memory order: handed a Fortran-ordered array to sum,
    the native loop declines (the programs then run NumPy's own sum)."""
    made = []
    monkeypatch.setattr(control, "native_while", lambda *a: made.append(whole_loop.native_while(*a, wait=True)))
    cond = lambda s, w: s[0] < 3  # noqa: E731
    body = lambda s, w: (s[0] + 1, (w * s[0]).sum())  # noqa: E731
    x = np.random.default_rng(2).normal(size=(40, 30)) * 1e3
    got, _ = run(cond, body, (np.int64(0), np.float64(0)), consts=(x,))
    same(got, numpy_loop(cond, body, (np.int64(0), np.float64(0)), consts=(x,)))
    (loop,) = made
    assert loop.run([np.int64(0), np.float64(0)], [x], []) is not None
    assert loop.run([np.int64(0), np.float64(0)], [np.asfortranarray(x)], []) is None


def test_large_bodies_keep_the_threaded_programs():
    x0 = np.ones(graph_code.MAX_VALUES + 1)
    got, native = run(lambda s: s[1] < 2, lambda s: (s[0] * 2.0, s[1] + 1), (x0, np.int64(0)))
    assert not native and got[0][0] == 4.0


def test_floating_point_errors_warn_or_raise_as_numpy_does():
    x0 = np.array([1e300, 1.0])
    cond = lambda s: s[1] < 3  # noqa: E731
    body = lambda s: (s[0] * 1e10, s[1] + 1)  # noqa: E731
    init = (x0, np.int64(0))
    with np.errstate(over="ignore"):
        want = numpy_loop(cond, body, init)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got, native = run(cond, body, init)
    assert not native  # (it ran, raised the flag, and ran again as programs, which warn)
    assert any(issubclass(w.category, RuntimeWarning) and "overflow" in str(w.message) for w in seen)
    same(got, want)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        run(cond, body, init)
    with np.errstate(over="ignore"):
        got, native = run(cond, body, init)
    assert native
    same(got, want)


def test_nan_propagates_through_max_as_in_numpy():
    x0 = np.array([1.0, np.nan, 3.0])
    cond = lambda s: s[1] < 2  # noqa: E731
    body = lambda s: (s[0] + 1, s[1] + 1, s[0].max(), s[0].min())  # noqa: E731
    init = (x0, np.int64(0), np.float64(0), np.float64(0))
    got, native = run(cond, body, init)
    assert native
    same(got, numpy_loop(cond, body, init))


def test_eager_numpy_style_program():
    """A NumPy program, import swapped: the loop's result is fetched and printed each step."""
    def program(xp, loop):
        u = xp.zeros((12, 12))
        u[0] = 1.0
        history = []
        for step in range(3):
            u = loop(u)
            history.append(float(u[5, 5]))
        return history

    def numpy_loop_step(u):
        change = np.inf
        while change >= 1e-3:
            new = u.copy()
            new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
            change, u = np.abs(new - u).max(), new
        return u

    def fgraph_loop_step(u):
        return fgraph.while_loop(lambda s: s[1] >= 1e-3, lambda s: jacobi_body(fnp)(s + (0,))[:2],
                                 (u, np.float64(np.inf)))[0]

    before = STATS["loops"]
    assert program(fnp, fgraph_loop_step) == program(np, numpy_loop_step)
    assert STATS["loops"] >= before + 3


# ---------------------------------------------------------------- scan and fori_loop

def _scan_step(c, x):
    xp = np if isinstance(c, np.ndarray) else fnp
    c = xp.where(c > 2.0, c * 0.5, c + x[::-1])
    return c, ((c * x).max(), c[:1] - x[1:2] / 3.0)


@settings(max_examples=examples(10), deadline=None)
@given(length=st.integers(0, 7), reverse=st.booleans(), width=st.integers(2, 5), seed=st.integers(0, 2 ** 16))
def test_scan_equals_the_numpy_loop(length, reverse, width, seed):
    xs = np.random.default_rng(seed).normal(size=(length, width))
    before = STATS["loops"]
    c, (m, v) = fgraph.scan(_scan_step, np.zeros(width), xs, reverse=reverse)
    got = [np.asarray(a) for a in fgraph.compile(fgraph.Graph([c, m, v]))()]
    assert STATS["loops"] > before
    carry, ms, vs = np.zeros(width), np.empty(length), np.empty((length, 1))
    for t in (reversed(range(length)) if reverse else range(length)):
        carry, (ms[t], vs[t]) = _scan_step(carry, xs[t])
    same(got, [carry, ms, vs])


def test_fori_loop_newton_runs_whole():
    a = np.random.default_rng(1).uniform(0.1, 100.0, 1000)
    x = np.maximum(a, 1.0)
    for _ in range(30):
        x = 0.5 * (x + a / x)
    before = STATS["loops"]
    got = fgraph.fori_loop(0, 30, lambda i, x: 0.5 * (x + a / x), fnp.maximum(fnp.asarray(a), 1.0))
    np.testing.assert_array_equal(np.asarray(got), x)
    assert STATS["loops"] > before


# ---------------------------------------------------------------- random bodies against NumPy

_UNARY = [lambda xp, x: x * 0.5 + 1.0, lambda xp, x: xp.abs(x) - 0.75, lambda xp, x: xp.maximum(x, -x * 2),
          lambda xp, x: x[::-1], lambda xp, x: xp.where(x > 0.5, x - 1.0, x * x), lambda xp, x: -x / 3.0,
          lambda xp, x: xp.sqrt(xp.abs(x)), lambda xp, x: (x > 0).astype(x.dtype) + x]


def _body(ops, shift):
    def body(s):
        x, k = s
        xp = fnp if not isinstance(x, np.ndarray) else np
        y = x
        for op in ops:
            y = _UNARY[op](xp, y)
        if shift and y.shape[0] > 1:
            y = y.copy()
            y[1:] = y[1:] + x[:-1]
        return y, k + 1
    return body


@settings(max_examples=examples(15), deadline=None)
@given(ops=st.lists(st.integers(0, len(_UNARY) - 1), min_size=1, max_size=4), shift=st.booleans(),
       n=st.integers(1, 9), dtype=st.sampled_from([np.float64, np.float32]), trips=st.integers(0, 6),
       seed=st.integers(0, 2 ** 16))
def test_random_bodies_equal_numpy(ops, shift, n, dtype, trips, seed):
    x0 = np.random.default_rng(seed).normal(size=(n, 3)).astype(dtype)
    cond = lambda s: (s[1] < trips) & (s[0].max() < 1e6)  # noqa: E731
    init = (x0, np.int64(0))
    with np.errstate(all="ignore"):
        got, native = run(cond, _body(ops, shift), init)
        want = numpy_loop(cond, _body(ops, shift), init)
    assert native
    same(got, want)


def test_memory_stays_flat_in_the_trip_count():
    import tracemalloc

    u0 = np.zeros((40, 40))
    u0[0] = 1.0
    trips = fnp.placeholder((), np.int64, name="trips")
    out = fgraph.while_loop(lambda s: s[1] < trips,
                            lambda s: (jacobi_body(fnp)((s[0], 0.0, s[1]))[0], s[1] + 1), (u0, np.int64(0)))
    exe = fgraph.compile(fgraph.Graph(list(out)))
    exe(trips=np.int64(1))  # compiled before measuring
    peaks = []
    for n in (10, 2000):
        before = STATS["loops"]
        tracemalloc.start()
        got = exe(trips=np.int64(n))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert STATS["loops"] == before + 1 and int(got[1]) == n
    # a value kept per trip would be 2,000 x 12.8 kB; the two runs peak alike (within a carry)
    assert peaks[1] <= peaks[0] + u0.nbytes, peaks


def test_the_size_limit_measurement_runs_both_ways():
    """``python -m fgraph.bench loops`` sets MAX_VALUES both ways to time a loop natively and as
    programs (it asserts which way each ran); a limit read when the class was made broke it once."""
    from fgraph.bench import loops

    rows = loops.size_limit(quick=True)
    assert [r["values"] for r in rows] == [1 << 12, 1 << 14]
    assert all(r["native_ms"] > 0 and r["programs_ms"] > 0 for r in rows)

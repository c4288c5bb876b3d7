"""A stateless graph compiled for the NumPy engine (``fgraph.jit``,
``fgraph.compile``) runs as one C function once compiled
(``engines/native_executable.py``): compared bit for bit with NumPy on the
same code, checking that the C function did run."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fgraph
import fgraph.numpy as fnp
from fgraph.engines import native_executable
from fgraph.engines.numpy_kernels.native import STATS, settle, toolchain, whole_step

from budget import examples
from test_whole_step import no_step_limit  # noqa: F401  (autouse: the earlier tests may have used up MAX_STEPS)

pytestmark = pytest.mark.skipif(toolchain() is None or not whole_step.enabled(), reason="no C compiler")


def compiled_calls(f, *args):
    """``f(*args)`` called until its graph is compiled whole, then once
    more: (that call's result, how many calls ran the C function)."""
    for _ in range(native_executable.CALLS_BEFORE_COMPILE):
        f(*args)
    settle()
    before = STATS["steps"]
    got = f(*args)
    return got, STATS["steps"] - before


_OPS = [lambda xp, x, y: x * 0.5 + y, lambda xp, x, y: xp.abs(x) - y * y, lambda xp, x, y: xp.maximum(x, -y * 2),
        lambda xp, x, y: x[::-1] + y, lambda xp, x, y: xp.where(x > 0.5, x - 1.0, y), lambda xp, x, y: -x / 3.0,
        lambda xp, x, y: xp.sqrt(xp.abs(x)) + xp.roll(y, 3), lambda xp, x, y: x[1:-1].sum() + y]


@settings(max_examples=examples(5), deadline=None)
@given(ops=st.lists(st.integers(0, len(_OPS) - 1), min_size=1, max_size=4),
       dtype=st.sampled_from([np.float64, np.float32]), n=st.sampled_from([7, 400, 3000]),
       seed=st.integers(0, 2 ** 16))
def test_jit_functions_run_as_one_c_function_and_equal_numpy(ops, dtype, n, seed):
    rng = np.random.default_rng(seed)
    x0, y0 = rng.normal(size=n).astype(dtype), rng.normal(size=n).astype(dtype)

    def program(xp, x, y):
        for op in ops:
            x = _OPS[op](xp, x, y)
        return x, x.max()

    with np.errstate(all="ignore"):
        (got, got_max), native = compiled_calls(fgraph.jit(lambda x, y: program(fnp, x, y)), x0, y0)
        want, want_max = program(np, x0, y0)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype and got_max == want_max
    assert native == 1


def test_results_are_the_callers_own():
    """A result that is a view of a feed is a copy, as the program's are; a
    result held is never overwritten by a later call."""
    f = fgraph.jit(lambda a: (a[1:], a * 2.0))
    a = np.arange(6.0)
    (view, doubled), native = compiled_calls(f, a)
    assert native == 1
    assert not np.shares_memory(view, a)
    np.testing.assert_array_equal(view, a[1:])
    held = [f(a + k) for k in range(4)]
    for k, (v, d) in enumerate(held):
        np.testing.assert_array_equal(v, (a + k)[1:])
        np.testing.assert_array_equal(d, (a + k) * 2.0)


def test_a_graph_with_state_runs_its_program():
    w = fnp.variable(np.ones(5), name="w")
    exe = fgraph.compile(fgraph.Graph(outputs=w * 2.0, updates={w: w + 1.0}))
    before = STATS["steps"]
    for k in range(6):
        np.testing.assert_array_equal(exe(), np.full(5, 2.0 * (k + 1)))
    settle()
    np.testing.assert_array_equal(exe(), np.full(5, 14.0))
    assert STATS["steps"] == before


def test_a_call_numpy_would_warn_on_warns_as_numpy_does():
    """IEEE flags NumPy would warn on: the call runs the program, which
    gives NumPy's warning and values."""
    f = fgraph.jit(lambda a: 2.0 / a + 1.0)
    a = np.array([1.0, 2.0, 3.0])
    _, native = compiled_calls(f, a)
    assert native == 1
    zero = np.array([1.0, 0.0, 3.0])
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        got = f(zero)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(got, 2.0 / zero + 1.0)


def test_a_large_graph_times_the_c_function_against_the_program():
    """Above RACE_ELEMENTS both run on the first calls and the faster is
    kept; either gives NumPy's values."""
    f = fgraph.jit(lambda a: fnp.sqrt(fnp.abs(a - 0.5)) * 3.0 + a)
    a = np.random.default_rng(0).random(native_executable.RACE_ELEMENTS + 5)
    compiled_calls(f, a)
    exe = next(iter(f.cache.values()))
    for k in range(8):
        np.testing.assert_array_equal(f(a + k), np.sqrt(np.abs(a + k - 0.5)) * 3.0 + (a + k))
    assert type(exe._native).__name__ == "Race" and exe._native.winner is not None


def test_feeds_are_checked_as_before_once_the_c_function_runs():
    """Positional NumPy arrays of the placeholders' shapes and dtypes skip
    the feed checks; anything else is checked, and refused, as before."""
    x = fnp.placeholder((4,), "float64", name="x")
    y = fnp.placeholder((4,), "float64", name="y")
    exe = fgraph.compile(fgraph.Graph(outputs=x * y - 1.0, inputs=[x, y]))
    a, b = np.arange(4.0), np.full(4, 2.0)
    _, native = compiled_calls(exe, a, b)
    assert native == 1
    np.testing.assert_array_equal(exe(a, b), a * b - 1.0)
    np.testing.assert_array_equal(exe(y=b, x=a), a * b - 1.0)
    np.testing.assert_array_equal(exe([0.0, 1.0, 2.0, 3.0], b), a * b - 1.0)
    with pytest.raises(fgraph.FgraphError, match="expects shape"):
        exe(np.arange(5.0), b)
    with pytest.raises(fgraph.FgraphError, match="expects dtype"):
        exe(a.astype(np.float32), b)

"""Run-time checks (fgraph/ops/checks.py): NumPy's data checks on lazy
inputs raise NumPy's ValueError where the graph runs, on every engine."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import check

SPECIALS = st.sampled_from([0.0, -1.5, 2.0, np.nan, np.inf, -np.inf])


@settings(max_examples=examples(60))
@given(st.lists(SPECIALS, min_size=0, max_size=6), st.sampled_from(["float32", "float64", "int64", "complex128"]))
def test_asarray_chkfinite(values, dtype):
    with np.errstate(invalid="ignore"):
        a = np.array(values, dtype=np.float64).astype(dtype) if dtype != "int64" else \
            np.nan_to_num(np.array(values)).astype(dtype)
    check(lambda xp, x: xp.asarray_chkfinite(x) * 2, a)  # NumPy's ValueError: an FgraphError here


def test_failed_check_names_the_line_and_changes_no_state():
    v = fnp.variable(np.zeros(3), name="v")
    x = fnp.placeholder((3,), "float64", name="x")
    exe = fgraph.compile(fgraph.Graph(fnp.sum(v), updates={v: v + fnp.asarray_chkfinite(x)}))
    exe(x=np.ones(3))
    with pytest.raises(ValueError, match=r"(?s)asarray_chkfinite: array must not contain infs or NaNs.*test_checks.py"):
        exe(x=np.array([1.0, np.nan, 1.0]))
    np.testing.assert_array_equal(exe.variables["v"], np.ones(3))  # the failed run wrote nothing


def test_engines_micro_batches_and_gradients():
    good, bad = np.ones((6, 2)), np.ones((6, 2))
    bad[4, 1] = np.inf
    d = fgraph.make("dask")
    np.testing.assert_array_equal(np.asarray(d.asarray_chkfinite(d.asarray(good)) + 1), good + 1)
    with pytest.raises(ValueError, match="must not contain infs"):
        np.asarray(d.asarray_chkfinite(d.asarray(bad)) + 1)
    x = fnp.placeholder((6, 2), "float64", name="x")
    exe = fgraph.compile(fgraph.Graph(fnp.asarray_chkfinite(x) * 3), micro_batch=2)
    np.testing.assert_array_equal(exe(x=good), good * 3)
    with pytest.raises(ValueError, match="must not contain infs"):
        exe(x=bad)  # the chunk holding the infinity fails
    g = fgraph.grad(fnp.sum(fnp.asarray_chkfinite(x) ** 2), [x])[0]
    np.testing.assert_array_equal(fgraph.compile(fgraph.Graph(g))(x=good), 2 * good)


def test_known_conditions_are_checked_now():
    from fgraph.ops.checks import checked

    t = fnp.arange(3.0)
    assert checked(t, np.array([True, True]), "f", "never") is t  # nothing to run
    with pytest.raises(fgraph.FgraphError, match="f: always"):
        checked(t, fnp.asarray(np.array([True, False])), "f", "always")
    with pytest.raises(fgraph.DTypeError, match="condition of a check is bool"):
        checked(t, fnp.ones(2) + fnp.placeholder((2,), "float64"), "f", "m")

"""Oracle testing: run one function with NumPy and with fgraph, compare.

Write the computation once, against a namespace argument::

    check(lambda xp, a, b: xp.add(a, b), a, b)

``check`` runs it with ``xp=numpy`` on the arrays, and with
``xp=fgraph.numpy`` twice: on placeholders through ``fgraph.compile`` (the
executable path) and on constants through ``eval`` (the eager-conversion
path).  Shapes and dtypes must be identical; values identical unless a
tolerance is given.  If NumPy raises, fgraph must raise an FgraphError.
"""
from __future__ import annotations

import warnings

import numpy as np

import fgraph
import fgraph.numpy as fnp
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

DTYPES = [np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64")]
FLOAT_DTYPES = [np.dtype("float32"), np.dtype("float64")]


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=5):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def elements(dtype, lo=-100, hi=100):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        return st.integers(max(lo, np.iinfo(dtype).min), min(hi, np.iinfo(dtype).max))
    if dtype.kind == "c":
        return st.complex_numbers(max_magnitude=hi, allow_nan=False, allow_infinity=False,
                                  width=8 * dtype.itemsize)
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False, width=8 * dtype.itemsize)


def arrays(dtype, shape, lo=-100, hi=100):
    return hnp.arrays(np.dtype(dtype), shape, elements=elements(dtype, lo, hi))


@st.composite
def array_of(draw, dtypes=DTYPES, shape=None, lo=-100, hi=100, **shape_kw):
    dt = draw(st.sampled_from(dtypes))
    shp = draw(shapes(**shape_kw)) if shape is None else shape
    return draw(arrays(dt, shp, lo, hi))


def _structure(x):
    if isinstance(x, (list, tuple)):
        return [_structure(e) for e in x]
    return None


def _leaves(x):
    if isinstance(x, (list, tuple)):
        out = []
        for e in x:
            out.extend(_leaves(e))
        return out
    return [x]


def assert_same(got, want, rtol=0.0, atol=0.0, what=""):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}shape {got.shape} != NumPy's {want.shape}"
    assert got.dtype == want.dtype, f"{what}dtype {got.dtype} != NumPy's {want.dtype}"
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(got, want, err_msg=what, strict=True)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def check(fn, *arrays, rtol=0.0, atol=0.0, paths=("compile", "eval")):
    """Compare ``fn(numpy, *arrays)`` with ``fn(fgraph.numpy, *lazy)``; see module doc."""
    arrays = [np.asarray(a) if not np.isscalar(a) else a for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = fn(np, *[a.copy() if isinstance(a, np.ndarray) else a for a in arrays])
        except Exception as numpy_error:  # NumPy refuses: so must we, clearly
            _expect_refusal(fn, arrays, numpy_error)
            return None
        for path in paths:
            got, static = _run(fn, arrays, path)
            for (shape, dtype), w in zip(static, _leaves(want)):  # the rules, not only the kernels
                assert (shape, dtype) == (np.shape(w), np.asarray(w).dtype), \
                    f"[{path}] static {dtype}{list(shape)} != NumPy's {np.asarray(w).dtype}{list(np.shape(w))}"
            if _structure(want) != _structure(got):
                raise AssertionError(f"{path}: structure {_structure(got)} != NumPy's {_structure(want)}")
            for g, w in zip(_leaves(got), _leaves(want)):
                assert_same(g, w, rtol, atol, what=f"[{path}] ")
    return want


def _run(fn, arrays, path):
    if path == "compile":
        phs = [fnp.placeholder(a.shape, a.dtype, name=f"in{i}") if isinstance(a, np.ndarray) else a
               for i, a in enumerate(arrays)]
        out = fn(fnp, *phs)
        leaves = _leaves(out)
        exe = fgraph.compile(fgraph.Graph(list(leaves), inputs=[p for p in phs if isinstance(p, fgraph.Tensor)]))
        feeds = {f"in{i}": a for i, a in enumerate(arrays) if isinstance(a, np.ndarray)}
        results = exe(**feeds)
        return _rebuild(out, iter(results)), _static(leaves)
    lazy = [fnp.asarray(a) if isinstance(a, np.ndarray) else a for a in arrays]
    out = fn(fnp, *lazy)
    leaves = _leaves(out)
    return _rebuild(out, iter(np.asarray(x) for x in leaves)), _static(leaves)


def _static(leaves):
    """What the graph promised before running: each result's shape and dtype."""
    return [(x.shape, x.dtype) if isinstance(x, fgraph.Tensor) else (np.shape(x), np.asarray(x).dtype)
            for x in leaves]


def _rebuild(x, it):
    if isinstance(x, (list, tuple)):
        return [_rebuild(e, it) for e in x]
    return next(it)


def _expect_refusal(fn, arrays, numpy_error):
    lazy = [fnp.asarray(a) if isinstance(a, np.ndarray) else a for a in arrays]
    try:
        out = fn(fnp, *lazy)
        for leaf in _leaves(out):
            np.asarray(leaf)
    except fgraph.FgraphError:
        return
    raise AssertionError(f"NumPy raised {type(numpy_error).__name__}: {numpy_error}; fgraph did not raise")


#: NumPy's quantile methods
METHODS = ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
           "normal_unbiased"]


def axis_arg(draw, a):
    """None, an int, or a tuple of distinct axes (negative too)."""
    if a.ndim == 0:
        return None
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-a.ndim, a.ndim - 1))
    axes = draw(st.lists(st.integers(0, a.ndim - 1), min_size=1, max_size=a.ndim, unique=True))
    return tuple(ax - a.ndim if draw(st.booleans()) else ax for ax in axes)

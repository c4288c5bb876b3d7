"""Sorting gradient rules (sort, partition, the order statistics) against
central finite differences (float64), away from ties and kinks."""
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from gradcheck import check_grad, check_grad2

METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint", "nearest"]


def small(min_dims=1, max_dims=3, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=max_side)


@st.composite
def distinct(draw, shape):
    """Values at least 0.5 apart (no ties for finite differences to straddle)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    size = int(np.prod(shape))
    return (rng.permutation(size) + rng.uniform(0, 0.5, size)).reshape(shape) * 0.5 - size / 4


def axes_of(draw, ndim):
    return draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                          st.lists(st.integers(0, ndim - 1), min_size=1, unique=True).map(tuple)))


@settings(max_examples=examples(30))
@given(data=st.data())
def test_sort(data):
    a = data.draw(distinct(data.draw(small(min_dims=0))))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1))) if a.ndim else None
    kind = data.draw(st.sampled_from([None, "stable", "heapsort"]))
    check_grad(lambda xp, x: xp.sort(x, axis=axis, kind=kind), a)
    # NumPy's sort has no descending=: the reference flips (no ties, so the order is the same)
    check_grad(lambda xp, x: xp.sort(x, axis=axis, descending=True) if xp is fnp
               else np.flip(np.sort(x, axis=axis), axis=0 if axis is None else axis), a)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_partition(data):
    a = data.draw(distinct(data.draw(small())))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1)))
    n = a.size if axis is None else a.shape[axis]
    kth = data.draw(st.one_of(st.integers(-n, n - 1), st.lists(st.integers(0, n - 1), min_size=1, max_size=3)))
    check_grad(lambda xp, x: xp.partition(x, kth, axis=axis), a)


def test_sort_complex_rule():
    """The core passes no cotangent through complex nodes yet, so the rule is called directly:
    a real input's cotangent is the complex one sent back through its sort order."""
    a = np.array([[3.0, -1.0, 2.5], [0.5, 4.0, -2.0]])
    g = np.array([[1 + 2j, 3 - 1j, 5j], [-1 + 0j, 2 + 1j, 4 - 4j]])
    x = fnp.asarray(a)
    out = fnp.sort_complex(x)
    (gx,) = fgraph.get_attr("sort_complex", "grad")(out, [x], fnp.asarray(g))
    want = np.zeros_like(g)
    np.put_along_axis(want, np.argsort(a, axis=-1), g, axis=-1)
    np.testing.assert_array_equal(np.asarray(gx), want)


def test_ties_get_one_cotangent_each():
    """Equal elements: each gets the cotangent of the output position argsort gives it."""
    x = fnp.asarray(np.array([2.0, 1.0, 2.0, 1.0]))
    g = np.asarray(fgraph.grad(fnp.sum(fnp.sort(x, kind="stable") * np.array([1.0, 2.0, 3.0, 4.0])), x))
    np.testing.assert_array_equal(g, [3.0, 1.0, 4.0, 2.0])
    g = np.asarray(fgraph.grad(fnp.median(x), x))
    assert g.sum() == 1.0 and (g >= 0).all()


def smooth_in_q(fn, a, q, h=1e-4):
    """No kink or jump of fn(a, q) within h of q (piecewise linear in q: second differences vanish)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lo, mid, hi = (np.asarray(fn(np, a, q + d)) for d in (-h, 0.0, h))
        near_lo, near_hi = (np.asarray(fn(np, a, q + d)) for d in (-1e-7, 1e-7))
        # a jump whose midpoint is the value at q looks linear at one scale; compare slopes at two
        return (np.allclose(lo - 2 * mid + hi, 0, atol=1e-9) and np.allclose(mid - lo, hi - mid, atol=1e-9)
                and np.allclose((hi - lo) / (2 * h), (near_hi - near_lo) / 2e-7, rtol=1e-3, atol=1e-6))


@settings(max_examples=examples(25))
@given(data=st.data())
def test_quantile_and_percentile(data):
    a = data.draw(distinct(data.draw(small(max_side=4))))
    axis = axes_of(data.draw, a.ndim)
    keepdims = data.draw(st.booleans())
    method = data.draw(st.sampled_from(METHODS))
    name = data.draw(st.sampled_from(["quantile", "percentile"]))
    scale = 100.0 if name == "percentile" else 1.0
    q = data.draw(st.one_of(st.floats(0.02, 0.98), hnp.arrays(np.float64, st.sampled_from([(1,), (3,)]),
                                                                elements=st.floats(0.02, 0.98)))) * scale
    q = np.asarray(q)

    def fn(xp, x, p):
        return getattr(xp, name)(x, p, axis=axis, keepdims=keepdims, method=method)
    assume(smooth_in_q(fn, a, q, 1e-4 * scale))
    check_grad(fn, a, q)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_median(data):
    a = data.draw(distinct(data.draw(small(min_dims=0))))
    axis = axes_of(data.draw, a.ndim) if a.ndim else None
    keepdims = data.draw(st.booleans())
    check_grad(lambda xp, x: xp.median(x, axis=axis, keepdims=keepdims), a)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_nan_versions(data):
    """NaNs are left out of each lane (a lane keeps at least one number here)."""
    a = data.draw(distinct(data.draw(small(min_dims=2, max_dims=2))))
    nan = data.draw(hnp.arrays(np.bool_, a.shape))
    nan[:, 0] = False
    a = np.where(nan, np.nan, a)
    method = data.draw(st.sampled_from(METHODS))
    q = np.asarray(data.draw(st.floats(0.02, 0.98)))

    def fn(xp, x, p):
        return xp.nanquantile(x, p, axis=1, method=method)
    assume(smooth_in_q(fn, a, q))
    check_grad(fn, a, q)
    check_grad(lambda xp, x: xp.nanmedian(x, axis=1, keepdims=True), a)
    check_grad(lambda xp, x: xp.nanpercentile(x, [30.0, 75.0], axis=1, method=method), a)


@pytest.mark.parametrize("keepdims", [False, True])
def test_nan_versions_2d_q_over_several_axes(keepdims):
    """NumPy's nan-forms lay a 2-d q's result over several axes out as
    (q1, kept..., q0): the cotangent is read back in that layout."""
    a = np.random.default_rng(3).permutation(24).reshape(2, 3, 4) / 7.0
    a[0, 0, 1] = np.nan
    q = np.array([[0.13, 0.52, 0.77], [0.31, 0.45, 0.66]])
    check_grad(lambda xp, x, p: xp.nanquantile(x, p, axis=(0, 2), keepdims=keepdims), a, q)


def test_all_nan_lane_gets_no_gradient():
    x = fnp.asarray(np.array([[np.nan, np.nan], [1.0, 3.0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = np.asarray(fgraph.grad(fnp.nansum(fnp.nanmedian(x, axis=1)), x))
    np.testing.assert_array_equal(g, [[0.0, 0.0], [0.5, 0.5]])


@settings(max_examples=examples(25))
@given(data=st.data())
def test_weighted_quantiles(data):
    """Weighted (inverted_cdf) quantiles: the element picked gets the cotangent; weights get none."""
    a = data.draw(distinct(data.draw(small(min_dims=1, max_dims=2))))
    axis = data.draw(st.integers(0, a.ndim - 1))
    name = data.draw(st.sampled_from(["quantile", "nanquantile"]))
    full = data.draw(st.booleans()) or name == "nanquantile"  # NumPy's nanquantile fails on 1-d weights
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    w = rng.uniform(0.5, 2.0, a.shape if full else a.shape[axis])
    q = np.asarray(data.draw(st.floats(0.02, 0.98)))
    if name == "nanquantile":  # some NaNs, never a whole lane
        nan = data.draw(hnp.arrays(np.bool_, a.shape))
        nan[(slice(None),) * axis + (0,)] = False
        a = np.where(nan, np.nan, a)

    def fn(xp, x, p, wt):
        return getattr(xp, name)(x, p, axis=axis, method="inverted_cdf", weights=wt)
    assume(smooth_in_q(lambda xp, x, p: fn(xp, x, p, w), a, q))
    check_grad(fn, a, q, w, argnums=[0, 1])
    x, wl = fnp.asarray(a), fnp.asarray(w)
    assert not np.asarray(fgraph.grad(fnp.sum(fn(fnp, x, q, wl)), wl)).any()


@settings(max_examples=examples(6))
@given(data=st.data())
def test_second_derivatives(data):
    a = data.draw(distinct((3, 4)))
    check_grad2(lambda xp, x: xp.sort(x ** 3, axis=0) * x, a)
    check_grad2(lambda xp, x: xp.partition(x ** 3, 1, axis=1), a)
    check_grad2(lambda xp, x, q: xp.quantile(x ** 3, q, axis=1) * q, a, np.array([0.13, 0.4, 0.77]))
    check_grad2(lambda xp, x: xp.median(x ** 2 * x[:, :1], axis=0), a)


def test_compiled_gradients():
    a = np.random.default_rng(3).normal(size=(3, 5))
    px, pq = fnp.placeholder(a.shape, a.dtype, name="x"), fnp.placeholder((2,), np.float64, name="q")

    def f(x, q):
        return fnp.sum(fnp.quantile(x, q, axis=1) ** 2) + fnp.sum(fnp.sort(x, axis=0)[0] * fnp.median(x))

    gx, gq = fgraph.grad(f(px, pq), [px, pq])
    q = np.array([0.3, 0.81])
    got = fgraph.compile(fgraph.Graph([gx, gq], inputs=[px, pq]))(x=a, q=q)
    cx, cq = fnp.asarray(a), fnp.asarray(q)
    for g, want in zip(got, fgraph.grad(f(cx, cq), [cx, cq])):
        np.testing.assert_allclose(g, np.asarray(want), rtol=1e-12)


def test_integer_outputs_pass_nothing_back():
    a = np.random.default_rng(4).normal(size=6)
    check_grad(lambda xp, x: x * xp.argsort(x) + x[xp.argpartition(x, 2)] * xp.lexsort([x, x ** 2]), a)


def test_empty_arrays():
    x = fnp.asarray(np.zeros((0, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for y in (fnp.sort(x, axis=0), fnp.quantile(x, 0.5, axis=1), fnp.partition(x, 0, axis=1)):
            g = np.asarray(fgraph.grad(fnp.sum(y * 1.0), x))
            assert g.shape == (0, 3)

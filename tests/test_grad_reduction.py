"""Gradients of the reductions and scans against central finite differences.

Inputs are drawn from a seeded normal distribution (distinct values: max/min
stay away from ties); ``where=`` masks and NaNs leave every slice enough
elements for the function to be finite (var/std: more than ``ddof``).
Conventions at non-smooth points (ties, std = 0, zeros in products) are
checked against values worked out by hand.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.registry import attr_table
from gradcheck import check_grad, check_grad2
from oracle import shapes

SMALL = dict(min_dims=0, max_dims=3, min_side=1, max_side=3)  # <= 27 elements


@st.composite
def case(draw, **shape_kw):
    """(array, rng): a normal array of a small random shape."""
    shape = draw(shapes(**{**SMALL, **shape_kw}))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return rng.normal(size=shape), rng


@st.composite
def axes_of(draw, ndim):
    """None, an int (maybe negative) or a tuple of axes (any order, negatives, maybe empty)."""
    kind = draw(st.sampled_from(["none", "int", "tuple"] if ndim else ["none", "tuple"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    perm = draw(st.permutations(range(ndim)))
    return tuple(a - ndim if draw(st.booleans()) else a for a in perm[:draw(st.integers(0, ndim))])


def norm_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


def holes(rng, shape, axes, need, rate=0.35):
    """A bool array, True = taking part, with at least ``need`` per reduced slice
    (slices that would have fewer keep everything)."""
    keep = rng.random(shape) > rate
    cnt = keep.sum(axis=axes, keepdims=True) if axes else keep.astype(int)
    return keep | (cnt < need)


def nan_and_mask(rng, x, axes, need, nan, where):
    """``x`` with NaNs (for nan-ops) and a ``where=`` mask (or None) that
    together leave at least ``need`` ordinary elements in every slice."""
    keep = holes(rng, x.shape, axes, need)
    to_nan = ~keep & (rng.random(x.shape) < 0.5 if where else True) if nan else np.zeros(x.shape, bool)
    return np.where(to_nan, np.nan, x), (keep | to_nan if where else None)


def slice_size(shape, axes):
    return math.prod(shape[a] for a in axes)


# ---------------------------------------------------------------- sum, mean, prod

@pytest.mark.parametrize("name", ["sum", "mean", "prod", "nansum", "nanmean", "nanprod"])
@settings(max_examples=examples(15))
@given(data=st.data())
def test_sum_mean_prod(name, data):
    x, rng = data.draw(case())
    axis = data.draw(axes_of(x.ndim))
    axes = norm_axes(axis, x.ndim)
    kw = {"axis": axis, "keepdims": data.draw(st.booleans())}
    if "mean" not in name and data.draw(st.booleans()):
        kw["initial"] = data.draw(st.sampled_from([0.5, -2.0, 3]))
    if not name.startswith("nan") and x.ndim and data.draw(st.booleans()):
        # a where= mask of a trailing sub-shape (broadcast against the input)
        mask = holes(rng, x.shape, axes, 1)[(0,) * data.draw(st.integers(1, x.ndim))]
        if not np.broadcast_to(mask, x.shape).sum(axis=axes, keepdims=True).all():
            mask = np.ones_like(mask)  # an empty slice (mean: NaN)
        kw["where"] = mask
    else:
        x, mask = nan_and_mask(rng, x, axes, 1, name.startswith("nan"), data.draw(st.booleans()))
        if mask is not None:
            kw["where"] = mask
    if "prod" in name and data.draw(st.booleans()):  # exact zeros: the gradient must not divide by them
        x = np.where(rng.random(x.shape) < 0.3, 0.0, x)
    check_grad(lambda xp, a: getattr(xp, name)(a, **kw), x)


# ---------------------------------------------------------------- var, std

@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
@settings(max_examples=examples(15))
@given(data=st.data())
def test_var_std(name, data):
    x, rng = data.draw(case(min_dims=1, min_side=2))
    axis = data.draw(axes_of(x.ndim).filter(lambda a: slice_size(x.shape, norm_axes(a, x.ndim)) >= 2))
    axes = norm_axes(axis, x.ndim)
    ddof = data.draw(st.sampled_from([0, 1, 0.5]))
    key = data.draw(st.sampled_from(["ddof", "correction"]))
    kw = {"axis": axis, "keepdims": data.draw(st.booleans()), key: ddof}
    x, mask = nan_and_mask(rng, x, axes, 2, name.startswith("nan"), data.draw(st.booleans()))
    if mask is not None:
        kw["where"] = mask
    check_grad(lambda xp, a: getattr(xp, name)(a, **kw), x)


# ---------------------------------------------------------------- max, min, ptp

@pytest.mark.parametrize("name", ["max", "min", "amax", "amin", "nanmax", "nanmin"])
@settings(max_examples=examples(15))
@given(data=st.data())
def test_max_min(name, data):
    x, rng = data.draw(case())
    axis = data.draw(axes_of(x.ndim))
    axes = norm_axes(axis, x.ndim)
    kw = {"axis": axis, "keepdims": data.draw(st.booleans())}
    if name.startswith("nan"):
        x = np.where(holes(rng, x.shape, axes, 1), x, np.nan)
    if data.draw(st.booleans()):  # initial may win a slice (then nothing flows back) or not
        kw["initial"] = data.draw(st.sampled_from([-10.0, 0.25, 10.0]))
        if data.draw(st.booleans()):
            kw["where"] = rng.random(x.shape) > 0.4  # NumPy needs initial= with where=
    check_grad(lambda xp, a: getattr(xp, name)(a, **kw), x)


@settings(max_examples=examples(15))
@given(data=st.data())
def test_ptp(data):
    x, _ = data.draw(case())
    kw = {"axis": data.draw(axes_of(x.ndim)), "keepdims": data.draw(st.booleans())}
    check_grad(lambda xp, a: xp.ptp(a, **kw), x)


def test_max_ties_split_equally():
    x = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 2.0]])
    for op, want in [(fnp.max, [[0, .5, .5, 0], [.25, .25, .25, .25]]),
                     (fnp.min, [[0, 0, 0, 1], [.25, .25, .25, .25]]),
                     (fnp.nanmax, [[0, .5, .5, 0], [.25, .25, .25, .25]])]:
        a = fnp.asarray(x)
        np.testing.assert_allclose(np.asarray(fgraph.grad(fnp.sum(op(a, axis=1)), a)), want)
    a = fnp.asarray(x)
    np.testing.assert_allclose(np.asarray(fgraph.grad(fnp.max(a), a)), [[0, .5, .5, 0], [0, 0, 0, 0]])
    # ptp of a constant slice: max and min shares cancel
    np.testing.assert_allclose(np.asarray(fgraph.grad(fnp.sum(fnp.ptp(a, axis=1)), a)),
                               [[0, .5, .5, -1], [0, 0, 0, 0]])


def test_logsumexp_gives_softmax():
    """A composite: the stabilised log-sum-exp's gradient is the softmax (max's share cancels)."""
    x = np.random.default_rng(8).normal(size=(3, 5))
    a = fnp.asarray(x)
    lse = fnp.max(a, axis=1) + fnp.log(fnp.sum(fnp.exp(a - fnp.max(a, axis=1, keepdims=True)), axis=1))
    c = np.arange(1.0, 4.0)
    want = c[:, None] * np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(fgraph.grad(fnp.sum(lse * c), a)), want, rtol=1e-12)


def test_max_initial_wins_and_all_nan():
    a = fnp.asarray(np.array([[1.0, 2.0], [5.0, 4.0]]))
    g = fgraph.grad(fnp.sum(fnp.max(a, axis=1, initial=3.0)), a)
    np.testing.assert_array_equal(np.asarray(g), [[0, 0], [1, 0]])
    b = fnp.asarray(np.array([[np.nan, np.nan], [np.nan, 4.0]]))
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        g = np.asarray(fgraph.grad(fnp.nansum(fnp.nanmax(b, axis=1)), b))
    np.testing.assert_array_equal(g, [[0, 0], [0, 1]])


# ---------------------------------------------------------------- average

@settings(max_examples=examples(20))
@given(data=st.data())
def test_average(data):
    x, rng = data.draw(case())
    kind = data.draw(st.sampled_from(["none", "same", "axes"] if x.ndim else ["none", "same"]))
    if kind == "axes":  # weights shaped like the reduced axes, in the user's order
        axis = data.draw(axes_of(x.ndim).filter(lambda a: a is not None and a != ()))
        w = rng.uniform(0.5, 2.0, [x.shape[a] for a in norm_axes(axis, x.ndim)])
    else:
        axis = data.draw(axes_of(x.ndim))
        w = rng.uniform(0.5, 2.0, x.shape)
    keepdims = data.draw(st.booleans())
    if data.draw(st.booleans()):  # returned=True: the weight sum gets a gradient too
        def f(xp, a, *wt):
            avg, scl = xp.average(a, axis=axis, weights=wt[0] if wt else None, returned=True, keepdims=keepdims)
            return avg + 0.3 * scl
    else:
        def f(xp, a, *wt):
            return xp.average(a, axis=axis, weights=wt[0] if wt else None, keepdims=keepdims)
    check_grad(f, *((x,) if kind == "none" else (x, w)))


@pytest.mark.parametrize("axis", [(2, 0, 1), (1, 2, 0), (-1, 0), (2, 1)])
def test_average_weights_axis_order(axis):
    """Weights shaped like the reduced axes in the user's order (3-cycles included)."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, 3, 4))
    w = rng.uniform(0.5, 2.0, [x.shape[a] for a in axis])
    check_grad(lambda xp, a, b: xp.average(a, axis=axis, weights=b), x, w)


# ---------------------------------------------------------------- scans

@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
@settings(max_examples=examples(15))
@given(data=st.data())
def test_scans(name, data):
    x, rng = data.draw(case())
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    if name.startswith("nan"):
        x = np.where(rng.random(x.shape) < 0.3, np.nan, x)
    if "prod" in name and data.draw(st.booleans()):  # zeros, even several in one scan
        x = np.where(rng.random(x.shape) < 0.3, 0.0, x)
    check_grad(lambda xp, a: getattr(xp, name)(a, axis=axis), x)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@settings(max_examples=examples(15))
@given(data=st.data())
def test_cumulative(name, data):
    x, rng = data.draw(case())
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1)) if x.ndim > 1 else data.draw(st.sampled_from([None, 0]))
    axis = None if x.ndim == 0 else axis
    if "prod" in name and data.draw(st.booleans()):
        x = np.where(rng.random(x.shape) < 0.3, 0.0, x)
    kw = {"axis": axis, "include_initial": data.draw(st.booleans())}
    check_grad(lambda xp, a: getattr(xp, name)(a, **kw), x)


def test_prod_and_cumprod_zeros_exact():
    """Worked by hand: the gradient of a product is the product of the others."""
    a = fnp.asarray(np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 4.0]]))
    g = np.asarray(fgraph.grad(fnp.sum(fnp.prod(a, axis=1)), a))
    np.testing.assert_array_equal(g, [[0, 6, 0], [0, 0, 0], [8, 4, 2]])
    b = fnp.asarray(np.array([2.0, 0.0, 3.0, 0.0, 7.0]))
    # y = [2, 0, 0, 0, 0]: dy/dx0 = 1; dy/dx1 = 2 + 2*3 (y1, y2); later elements: 0
    np.testing.assert_array_equal(np.asarray(fgraph.grad(fnp.sum(fnp.cumprod(b)), b)), [1, 8, 0, 0, 0])


# ---------------------------------------------------------------- dtypes, empty arrays

@pytest.mark.parametrize("fn", [
    lambda xp, a: xp.sum(a, dtype=np.float64), lambda xp, a: xp.mean(a, axis=0, dtype=np.float64),
    lambda xp, a: xp.var(a, axis=1, dtype=np.float64), lambda xp, a: xp.prod(a, axis=1, dtype=np.float64),
    lambda xp, a: xp.max(a, axis=0), lambda xp, a: xp.cumprod(a, axis=1, dtype=np.float64),
    lambda xp, a: xp.nanstd(a), lambda xp, a: xp.cumsum(a),
])
def test_float32_inputs(fn):
    """float32 inputs get float32 gradients, equal (to float32 precision) to float64's."""
    x = np.random.default_rng(3).normal(size=(3, 4))
    a32, a64 = fnp.asarray(x.astype(np.float32)), fnp.asarray(x)
    g32 = np.asarray(fgraph.grad(fnp.sum(fn(fnp, a32)), a32))
    g64 = np.asarray(fgraph.grad(fnp.sum(fn(fnp, a64)), a64))
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, g64, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "cumsum", "cumprod", "cumulative_prod"])
def test_empty(name):
    x = fnp.asarray(np.zeros((0, 3)))
    g = fgraph.grad(fnp.sum(getattr(fnp, name)(x, axis=1)), x)
    assert np.asarray(g).shape == (0, 3)


def test_integer_outputs():
    """argmax & co. have integer/bool results: nothing flows back, a VJP seeded there gives zeros."""
    x = np.random.default_rng(4).normal(size=(2, 3))
    for name in ["argmax", "argmin", "nanargmax", "nanargmin", "all", "any", "count_nonzero"]:
        out, pullback = fgraph.vjp(lambda a: getattr(fnp, name)(a, axis=1), x)
        np.testing.assert_array_equal(pullback(np.ones_like(out)), [np.zeros((2, 3))])
    # a float path through an index: only the gathered value's path has a gradient
    a = fnp.asarray(x)
    g = fgraph.grad(fnp.sum(a * fnp.argmax(a, axis=1, keepdims=True)), a)
    np.testing.assert_array_equal(np.asarray(g), np.broadcast_to(np.argmax(x, axis=1)[:, None], x.shape))


# ---------------------------------------------------------------- rules only build nodes

FNS = {
    "sum": lambda a, m: fnp.sum(a, axis=1, where=m), "prod": lambda a, m: fnp.prod(a, axis=(0, 1), initial=2.0),
    "nanprod": lambda a, m: fnp.nanprod(a, axis=0, where=m), "mean": lambda a, m: fnp.mean(a, where=m),
    "var": lambda a, m: fnp.var(a, axis=0, ddof=1), "nanstd": lambda a, m: fnp.nanstd(a, axis=1, where=m),
    "max": lambda a, m: fnp.max(a, axis=1, initial=0.0, where=m), "nanmin": lambda a, m: fnp.nanmin(a),
    "ptp": lambda a, m: fnp.ptp(a, axis=0), "average": lambda a, m: fnp.average(a, axis=1, weights=a[0]),
    "cumsum": lambda a, m: fnp.cumsum(a), "nancumprod": lambda a, m: fnp.nancumprod(a, axis=1),
    "cumulative_sum": lambda a, m: fnp.cumulative_sum(a, axis=0, include_initial=True),
}


@pytest.mark.parametrize("name", sorted(FNS))
def test_rules_build_without_evaluating(name):
    """On placeholders (nothing to evaluate) the gradient builds, leaves the
    forward nodes as they were, and compiles to the constant-folded answer."""
    x = np.random.default_rng(5).normal(size=(3, 4))
    m = np.random.default_rng(6).random((3, 4)) > 0.3
    p = fnp.placeholder((3, 4), "float64", name="x")
    y = fnp.sum(FNS[name](p, m) * 1.5)
    before = [(n.op, n.params, n.inputs) for n in _nodes(y)]
    g = fgraph.grad(y, p)
    assert [(n.op, n.params, n.inputs) for n in _nodes(y)] == before
    got = fgraph.compile(fgraph.Graph(outputs=g, inputs=[p]))(x=x)
    c = fnp.asarray(x)
    want = fgraph.grad(fnp.sum(FNS[name](c, m) * 1.5), c)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12, atol=1e-12)


def _nodes(t):
    from fgraph.symbol import topological
    return topological([t.node])


# ---------------------------------------------------------------- second derivatives

def _rules(*ops):
    have = attr_table("grad")
    return pytest.mark.skipif(not all(op in have for op in ops),
                              reason=f"needs the gradient rules of {ops} (other families)")


@settings(max_examples=examples(10))
@given(data=st.data())
@pytest.mark.parametrize("name", ["var", "std", "nanvar", "mean"])
def test_second_order_var_std_mean(name, data):
    x, rng = data.draw(case(min_dims=1, min_side=2))
    axis = data.draw(axes_of(x.ndim).filter(lambda a: slice_size(x.shape, norm_axes(a, x.ndim)) >= 2))
    kw = {"axis": axis}
    if name != "mean":
        kw["ddof"] = data.draw(st.sampled_from([0, 1]))
    if data.draw(st.booleans()):
        kw["where"] = holes(rng, x.shape, norm_axes(axis, x.ndim), 2)
    check_grad2(lambda xp, a: getattr(xp, name)(a, **kw), x)


@settings(max_examples=examples(10))
@given(data=st.data())
def test_second_order_max_times_input(data):
    """max is piecewise linear: its second derivative lives in the product."""
    x, _ = data.draw(case(min_dims=1))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    check_grad2(lambda xp, a: xp.max(a * a * a, axis=axis) * xp.sum(a), x)


@settings(max_examples=examples(10))
@given(data=st.data())
def test_second_order_average_weights(data):
    x, rng = data.draw(case(min_dims=1))
    w = rng.uniform(0.5, 2.0, x.shape)
    axis = data.draw(st.none() | st.integers(0, x.ndim - 1))
    check_grad2(lambda xp, a, b: xp.average(a, axis=axis, weights=b), x, w)


@_rules("flip", "slice", "reshape", "transpose")
@settings(max_examples=examples(10))
@given(data=st.data())
@pytest.mark.parametrize("name", ["prod", "cumprod"])
def test_second_order_products(name, data):
    x, rng = data.draw(case(min_dims=1, max_side=3))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    check_grad2(lambda xp, a: getattr(xp, name)(a, axis=axis), x)

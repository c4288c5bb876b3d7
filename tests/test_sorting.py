"""Oracle tests for sorting: sort/argsort (NumPy kinds, and the Array API's
stable descending order), partition, argpartition, lexsort, sort_complex,
median/percentile/quantile and their nan- versions, and the refusals."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import DTYPES, FLOAT_DTYPES, METHODS, array_of, arrays, axis_arg, check, shapes

SORT_DTYPES = DTYPES + [np.dtype("complex128")]
KINDS = [None, "quicksort", "mergesort", "heapsort", "stable"]


@st.composite
def sortable(draw, dtypes=SORT_DTYPES, min_dims=0, max_dims=3):
    """Arrays with many ties, and for floats NaN, -0.0 and infinities (the hard cases)."""
    dt = draw(st.sampled_from(dtypes))
    shape = draw(shapes(min_dims=min_dims, max_dims=max_dims, max_side=6))
    if dt.kind == "f":
        elems = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.nan, np.inf, -np.inf])
        return draw(hnp.arrays(dt, shape, elements=elems))
    return draw(arrays(dt, shape, -3, 3))


def axis_of(draw, a, allow_none=True):
    choices = list(range(-a.ndim, a.ndim)) + [None] * allow_none
    return draw(st.sampled_from(choices)) if choices else None


# ---------------------------------------------------------------- sort, argsort

@given(a=sortable(), data=st.data())
def test_sort_and_argsort(a, data):
    axis = axis_of(data.draw, a)
    how = data.draw(st.sampled_from([("kind", k) for k in KINDS] + [("stable", True), ("stable", False)]))
    kw = {how[0]: how[1]}
    check(lambda xp, x: xp.sort(x, axis=axis, **kw), a)
    check(lambda xp, x: xp.argsort(x, axis=axis, **kw), a)


def test_sort_defaults_and_zero_d():
    check(lambda xp, x: xp.sort(x), np.array([3, 1, 2]))
    check(lambda xp, x: xp.argsort(x), np.array([3.0, np.nan, 1.0, 1.0]))
    for axis in (-1, 0, 1, None):  # 0-d: NumPy's sort refuses an axis, its argsort ravels
        check(lambda xp, x: xp.sort(x, axis=axis), np.array(2.0))
        check(lambda xp, x: xp.argsort(x, axis=axis), np.array(2.0))


def descending_argsort_oracle(a, axis):
    """The Array API's stable descending order, from Python's sorted (reverse=True keeps ties in order)."""
    if axis is None or a.ndim == 0:
        a, axis = a.reshape(-1), 0
    moved = np.moveaxis(a, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1]) if moved.size else np.zeros((0, moved.shape[-1]), a.dtype)

    def key(v):  # NumPy's order: NaN is the largest (complex: lexicographic)
        if a.dtype.kind == "c":
            return (v.real, v.imag)
        return (1, 0.0) if a.dtype.kind == "f" and np.isnan(v) else (0, v)
    out = np.array([sorted(range(len(r)), key=lambda i: key(r[i]), reverse=True) for r in rows], dtype=np.intp)
    return np.moveaxis(out.reshape(moved.shape), -1, axis)


@given(a=sortable(), data=st.data())
def test_descending_is_stable_descending_order(a, data):
    axis = axis_of(data.draw, a, allow_none=True)
    if a.ndim == 0 and axis is not None:
        axis = None
    stable = data.draw(st.sampled_from([None, True, False]))
    want_idx = descending_argsort_oracle(a, axis)
    got_idx = np.asarray(fnp.argsort(fnp.asarray(a), axis=axis, descending=True, stable=stable))
    np.testing.assert_array_equal(got_idx, want_idx, strict=True)
    flat = a.reshape(-1) if axis is None else a
    want = np.take_along_axis(flat, want_idx, axis=0 if axis is None else axis)
    got = np.asarray(fnp.sort(fnp.asarray(a), axis=axis, descending=True, stable=stable))
    np.testing.assert_array_equal(got, want, strict=True)
    if a.dtype.kind == "f":  # -0.0 and 0.0 tie: their order (the sign bits) must be kept too
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_sort_errors():
    t = fnp.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)sort.*axis 2.*test_sorting\.py"):
        fnp.sort(t, axis=2)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)argsort.*test_sorting\.py"):
        fnp.argsort(t, axis=-3)
    with pytest.raises(fgraph.FgraphError, match="sort"):
        fnp.sort(t, kind="bogus")
    with pytest.raises(fgraph.FgraphError, match="sort"):
        fnp.sort(t, kind="stable", stable=True)   # NumPy refuses both
    with pytest.raises(fgraph.FgraphError, match="structured"):
        fnp.sort(t, order="f0")
    a = t
    t.sort(axis=0)  # in place: the handle moves, aliases see it
    np.testing.assert_array_equal(np.asarray(a), np.sort(np.arange(6.0).reshape(2, 3), axis=0))


def test_numpy_functions_dispatch_lazily():
    a = np.array([[3, 1, 2], [0, 5, 4]])
    t = fnp.asarray(a)
    for fn, kw in [(np.sort, {}), (np.argsort, {"kind": "stable"}), (np.partition, {"kth": 1}),
                   (np.median, {}), (np.percentile, {"q": 30}), (np.lexsort, {})]:
        out = fn(t, **kw)
        assert isinstance(out, fgraph.Tensor), fn.__name__
        np.testing.assert_array_equal(np.asarray(out), fn(a, **kw), strict=True)
    assert isinstance(t.argsort(), fgraph.Tensor)
    check(lambda xp, x: x.argsort(axis=0, kind="stable"), a)


# ---------------------------------------------------------------- partition

@given(a=sortable(min_dims=1), data=st.data())
def test_partition_and_argpartition(a, data):
    axis = axis_of(data.draw, a)
    n = a.size if axis is None else a.shape[axis]
    k = st.integers(-n - 1, n)  # out of range sometimes: NumPy raises, so must we
    kth = data.draw(st.one_of(k, st.lists(k, min_size=1, max_size=3)))
    check(lambda xp, x: xp.partition(x, kth, axis=axis), a)
    check(lambda xp, x: xp.argpartition(x, kth, axis=axis), a)


def test_partition_edge_cases():
    check(lambda xp, x: xp.partition(x, 0, axis=None), np.array(1.5))
    check(lambda xp, x: xp.argpartition(x, 0), np.array(1.5))
    check(lambda xp, x: xp.partition(x, 0), np.array(1.5))           # NumPy: AxisError
    check(lambda xp, x: xp.partition(x, np.array([2, 0])), np.arange(5.0)[::-1].copy())
    t = fnp.asarray(np.arange(4.0))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)partition.*kth\(=4\) out of bounds.*test_sorting\.py"):
        fnp.partition(t, 4)
    with pytest.raises(fgraph.ShapeError, match="Booleans"):
        fnp.partition(t, True)
    with pytest.raises(fgraph.FgraphError, match="partition"):
        fnp.partition(t, 1, kind="quick")


# ---------------------------------------------------------------- lexsort, sort_complex

@given(data=st.data())
def test_lexsort(data):
    shape = data.draw(shapes(max_dims=3, max_side=5))
    k = data.draw(st.integers(1, 3))
    keys = [data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shape, -2, 2)) for _ in range(k)]
    axis = data.draw(st.sampled_from(list(range(-len(shape), len(shape))) or [-1]))
    check(lambda xp, *ks: xp.lexsort(ks, axis=axis), *keys)
    if shape:
        stacked = np.stack(keys)  # a 2-D (or more) array: its rows are the keys
        check(lambda xp, s: xp.lexsort(s, axis=axis), stacked)


def test_lexsort_errors():
    check(lambda xp, a, b: xp.lexsort((a, b)), np.zeros(3), np.zeros(4))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)lexsort.*test_sorting\.py"):
        fnp.lexsort([])


@given(a=array_of(dtypes=SORT_DTYPES + [np.dtype("float32")], max_dims=2))
def test_sort_complex(a):
    check(lambda xp, x: xp.sort_complex(x), a)


# ---------------------------------------------------------------- order statistics


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@settings(max_examples=examples(40))
@given(data=st.data())
def test_median(name, data):
    a = data.draw(sortable(dtypes=DTYPES, max_dims=3) if name == "nanmedian"
                  else array_of(dtypes=DTYPES, max_dims=3, max_side=4))
    axis = axis_arg(data.draw, a)
    keepdims = data.draw(st.booleans())
    check(lambda xp, x: getattr(xp, name)(x, axis=axis, keepdims=keepdims), a)


@pytest.mark.parametrize("name", ["percentile", "quantile", "nanpercentile", "nanquantile"])
@settings(max_examples=examples(40))
@given(data=st.data())
def test_percentile_and_quantile(name, data):
    nan = name.startswith("nan")
    a = data.draw(sortable(dtypes=DTYPES, max_dims=3) if nan else array_of(dtypes=DTYPES, max_dims=3, max_side=4))
    top = 100 if "percentile" in name else 1
    qs = st.floats(0, top)
    q = data.draw(st.one_of(qs, st.integers(0, top), st.just(top * 1.5),  # q out of range: NumPy raises
                            hnp.arrays(data.draw(st.sampled_from(FLOAT_DTYPES)), shapes(max_dims=2, max_side=3),
                                       elements=st.floats(0, top, width=32))))
    axis = axis_arg(data.draw, a)
    # NumPy gives a NaN (nan-forms: all-NaN) slice the input's dtype, a data-dependent
    # dtype; fgraph keeps the usual one (see README), so those inputs are left out here
    if nan:
        assume(not np.isnan(a).all(axis=axis).any())
    elif a.dtype.kind in "fc":
        assume(not np.isnan(a).any())
    method = data.draw(st.sampled_from(METHODS))
    keepdims = data.draw(st.booleans())
    fn = getattr(np, name).__name__

    def f(xp, x, *lazy_q):
        return getattr(xp, fn)(x, lazy_q[0] if lazy_q else q, axis=axis, method=method, keepdims=keepdims)
    if isinstance(q, np.ndarray) and data.draw(st.booleans()):
        check(f, a, q)   # a lazy q
    else:
        check(f, a)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_weighted_quantile(data):
    a = data.draw(arrays(data.draw(st.sampled_from(FLOAT_DTYPES)), shapes(min_dims=1, max_dims=2, min_side=1,
                                                                         max_side=4)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    w_shape = data.draw(st.sampled_from([a.shape, (a.shape[axis],)]))
    w = data.draw(arrays(np.float64, w_shape, 0, 3))
    q = data.draw(st.floats(0, 1))
    check(lambda xp, x, ww: xp.quantile(x, q, axis=axis, method="inverted_cdf", weights=ww), a, w)
    check(lambda xp, x, ww: xp.percentile(x, 100 * q, axis=axis, method="linear", weights=ww), a, w)  # refused


@pytest.mark.parametrize("name", ["nanpercentile", "nanquantile", "percentile"])
@pytest.mark.parametrize("axis", [(0, 1), (0, 2), (1, 2), (), (0, 1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_order_statistics_2d_q_over_several_axes(name, axis, keepdims):
    """NumPy's nan-forms lay a 2-d q's result out as (q1, kept..., q0) when
    they reduce several axes (and keepdims then fills the 1s in among the
    last axes): fgraph's shape, its kernels and the dask blocks follow it."""
    a = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)
    a[0, 0, 0] = np.nan if name.startswith("nan") else 0.0
    q = np.array([[10.0, 50.0, 90.0], [20.0, 30.0, 40.0]]) / (1 if "percentile" in name else 100)
    check(lambda xp, x, qq: getattr(xp, name)(x, qq, axis=axis, method="lower", keepdims=keepdims), a, q)
    # the case hypothesis found: a bool array, q of shape (1, 2)
    check(lambda xp, x: getattr(xp, name)(x, np.zeros((1, 2), np.float32), axis=axis[:2], method="lower"),
          np.zeros((1, 1, 1), bool))


def test_order_statistics_errors():
    t = fnp.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)median.*axis 2.*test_sorting\.py"):
        fnp.median(t, axis=2)
    with pytest.raises(fgraph.FgraphError, match=r"(?s)percentile.*test_sorting\.py"):
        fnp.percentile(t, 50, method="bogus")
    out = np.zeros(())
    assert fnp.median(t, out=out) is out and out == 2.5  # a NumPy out= receives the value
    check(lambda xp, x: xp.percentile(x, 50), np.zeros(0))           # NumPy raises at run time: so do we
    check(lambda xp, x: xp.percentile(x, 50), np.zeros(3, bool))      # NumPy refuses booleans


# ---------------------------------------------------------------- refusals

@pytest.mark.parametrize("name", ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all"])
def test_unique_evaluates_outside_tracing_and_raises_under_it(name):
    t = fnp.asarray(np.array([1, 2, 2]))
    for got in (getattr(fnp, name)(t), getattr(np, name)(t)):   # NumPy's own function dispatches here
        want = getattr(np, name)(np.array([1, 2, 2]))
        assert type(got) is type(want) or isinstance(got, fgraph.Tensor)
        for g, w in zip(got if isinstance(want, tuple) else [got], want if isinstance(want, tuple) else [want]):
            np.testing.assert_array_equal(np.asarray(g), w)
    p = fnp.placeholder((3,), "int64", name="x")
    with pytest.raises(fgraph.ShapeError, match=rf"(?s){name}.*data-dependent.*placeholder 'x'.*size=N.*"
                                                r"test_sorting\.py"):
        getattr(fnp, name)(p)
    with pytest.raises(fgraph.ShapeError, match="data-dependent"):
        getattr(np, name)(p)


@settings(max_examples=examples(40))
@given(array_of(shape=st.integers(1, 12), dtype=st.sampled_from(["int64", "float64"])), st.data())
def test_partition_at_a_position_computed_lazily(x, data):
    # np.partition(a, [mid - 1, mid]) with mid from a lazy length or argmax: known now outside tracing
    k = data.draw(st.integers(0, x.size - 1))
    lk = fnp.arange(x.size)[k]  # a lazy 0-d int
    for want, got in [(np.partition(x, k), fnp.partition(fnp.asarray(x), lk)),
                      (np.partition(x, [0, k]), fnp.partition(fnp.asarray(x), [0, lk])),
                      (np.argpartition(x, k)[k], fnp.argpartition(fnp.asarray(x), lk)[k])]:
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(fgraph.ShapeError, match="kth must be a Python value.*placeholder 'k'"):
        fnp.partition(fnp.asarray(x), fnp.placeholder((), np.int64, name="k"))

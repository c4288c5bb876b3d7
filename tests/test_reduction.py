"""Oracle tests for the reduction family: every function against NumPy.

Values must be bit-identical (the kernels are NumPy's own functions called
with the same arguments); shapes and dtypes identical; where NumPy raises,
fgraph raises an FgraphError (for shape-determined errors: when the node is
made).
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.registry import get_attr
from oracle import DTYPES, shapes
from oracle import check as _oracle_check

OMIT = object()  # "do not pass this keyword"

REDUCE = ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "all", "any", "ptp",
          "count_nonzero", "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"]
ARG = ["argmax", "argmin", "nanargmax", "nanargmin"]
SCAN = ["cumsum", "cumprod", "nancumsum", "nancumprod"]
CUMULATIVE = ["cumulative_sum", "cumulative_prod"]
WITH_WHERE = ["sum", "prod", "mean", "var", "std", "max", "min", "all", "any",
              "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"]
WITH_INITIAL = ["sum", "prod", "max", "min", "amax", "amin", "nansum", "nanprod", "nanmax", "nanmin"]
WITH_DTYPE = ["sum", "prod", "mean", "var", "std", "nansum", "nanprod", "nanmean", "nanvar", "nanstd",
              "cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod"]
VAR_LIKE = ["var", "std", "nanvar", "nanstd"]


def check(fn, *arrays):
    """The oracle, plus: the lazy result's static shape and dtype are NumPy's.

    (The engine returns what the kernel computed, so a wrong shape rule would
    otherwise go unnoticed until memory planning relies on it.)
    """
    want = _oracle_check(fn, *arrays)
    if want is None:  # NumPy refused, and so did fgraph
        return
    lazy = fn(fnp, *[fnp.placeholder(a.shape, a.dtype) if isinstance(a, np.ndarray) else a for a in arrays])
    pairs = zip(lazy, want) if isinstance(want, tuple) else [(lazy, want)]
    for got, w in pairs:
        w = np.asarray(w)
        assert (got.shape, got.dtype) == (w.shape, w.dtype), f"static {got.dtype}{got.shape} != NumPy's {w.dtype}{w.shape}"


# ---------------------------------------------------------------- strategies

def _elements(dtype, lo, hi, nan):
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        return st.integers(lo, hi)
    finite = st.floats(lo, hi, allow_nan=False, allow_infinity=False, width=8 * dtype.itemsize)
    return st.one_of(finite, st.just(float("nan"))) if nan else finite


@st.composite
def data_array(draw, dtypes=DTYPES, nan=False, lo=-100, hi=100, **shape_kw):
    """An array of any of ``dtypes``; NaNs sprinkled into floats when ``nan``."""
    dt = draw(st.sampled_from(dtypes))
    shape = draw(shapes(**shape_kw))
    return draw(hnp.arrays(dt, shape, elements=_elements(dt, lo, hi, nan)))


@st.composite
def reduce_axis(draw, ndim, tuples=True):
    """None, an int (maybe negative), a tuple of axes (any order, negatives), or a bad axis."""
    kinds = ["none", "int", "bad"] + (["tuple", "tuple"] if tuples else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None
    if kind == "int":  # 0-d: NumPy takes 0/-1 for some functions and not for others
        return draw(st.integers(-ndim, ndim - 1)) if ndim else draw(st.sampled_from([0, -1]))
    if kind == "tuple":
        perm = draw(st.permutations(range(ndim)))
        axes = perm[:draw(st.integers(0, ndim))]
        return tuple(a - ndim if draw(st.booleans()) else a for a in axes)
    bad = [ndim, -ndim - 1] + ([(0, -ndim)] if ndim and tuples else [])
    return draw(st.sampled_from(bad))


def _kw(**kwargs):
    return {k: v for k, v in kwargs.items() if v is not OMIT}


KEEPDIMS = st.sampled_from([OMIT, False, True])


def _elements_for(name):
    # products overflow quickly; small factors keep the values interesting
    return (-4, 4) if "prod" in name else (-100, 100)


# ---------------------------------------------------------------- reductions

@pytest.mark.parametrize("name", REDUCE)
@settings(max_examples=examples(30))
@given(data=st.data())
def test_reduce(name, data):
    lo, hi = _elements_for(name)
    a = data.draw(data_array(nan=name.startswith("nan"), lo=lo, hi=hi))
    kw = _kw(axis=data.draw(reduce_axis(a.ndim)), keepdims=data.draw(KEEPDIMS))
    check(lambda xp, x: getattr(xp, name)(x, **kw), a)


@pytest.mark.parametrize("name", [n for n in WITH_DTYPE if n not in SCAN + CUMULATIVE])
@settings(max_examples=examples(20))
@given(data=st.data())
def test_reduce_dtype(name, data):
    lo, hi = _elements_for(name)
    a = data.draw(data_array(nan=name.startswith("nan"), lo=lo, hi=hi, max_dims=3))
    dtype = data.draw(st.sampled_from([None, "bool", "int32", "int64", "float32", "float64", np.float32, float, int]))
    kw = _kw(axis=data.draw(reduce_axis(a.ndim)), keepdims=data.draw(KEEPDIMS))
    check(lambda xp, x: getattr(xp, name)(x, dtype=dtype, **kw), a)


@pytest.mark.parametrize("name", VAR_LIKE)
@settings(max_examples=examples(25))
@given(data=st.data())
def test_var_ddof_correction(name, data):
    a = data.draw(data_array(nan=name.startswith("nan"), max_dims=3))
    amount = data.draw(st.sampled_from([0, 1, 2, 0.5, np.int64(1)]))
    which = data.draw(st.sampled_from(["ddof", "correction", "both"]))
    kw = _kw(axis=data.draw(reduce_axis(a.ndim)), keepdims=data.draw(KEEPDIMS))
    if which == "both":  # NumPy refuses both at once unless ddof is 0
        kw.update(ddof=amount, correction=1)
    else:
        kw[which] = amount
    check(lambda xp, x: getattr(xp, name)(x, **kw), a)


@pytest.mark.parametrize("name", WITH_WHERE)
@settings(max_examples=examples(20))
@given(data=st.data())
def test_reduce_where(name, data):
    lo, hi = _elements_for(name)
    a = data.draw(data_array(nan=name.startswith("nan"), lo=lo, hi=hi, max_dims=3))
    # a mask broadcastable to a (trailing dims kept or set to 1), sometimes not
    mshape = tuple(d if data.draw(st.booleans()) else 1 for d in a.shape[data.draw(st.integers(0, a.ndim)):])
    if data.draw(st.integers(0, 9)) == 0:
        mshape = mshape + (2,)  # does not broadcast
    mask = data.draw(hnp.arrays(np.bool_, mshape))
    kw = _kw(axis=data.draw(reduce_axis(a.ndim)), keepdims=data.draw(KEEPDIMS))
    if name in WITH_INITIAL and data.draw(st.booleans()):
        kw["initial"] = data.draw(st.sampled_from([0, 1, -3, True]))  # max/min without initial raise
    check(lambda xp, x, w: getattr(xp, name)(x, where=w, **kw), a, mask)


@pytest.mark.parametrize("name", WITH_INITIAL)
@settings(max_examples=examples(20))
@given(data=st.data())
def test_reduce_initial(name, data):
    a = data.draw(data_array(nan=name.startswith("nan"), lo=-4, hi=4, max_dims=3))
    initial = data.draw(st.sampled_from([0, 2, -5, 1.5, True, np.float32(2.5), np.int32(-3), None]))
    kw = _kw(axis=data.draw(reduce_axis(a.ndim)), keepdims=data.draw(KEEPDIMS))
    check(lambda xp, x: getattr(xp, name)(x, initial=initial, **kw), a)


@pytest.mark.parametrize("name", ARG)
@settings(max_examples=examples(30))
@given(data=st.data())
def test_arg(name, data):
    a = data.draw(data_array(nan=name.startswith("nan"), lo=-5, hi=5))  # small range: ties
    kw = _kw(axis=data.draw(reduce_axis(a.ndim, tuples=False)), keepdims=data.draw(KEEPDIMS))
    check(lambda xp, x: getattr(xp, name)(x, **kw), a)


@pytest.mark.parametrize("name", SCAN)
@settings(max_examples=examples(30))
@given(data=st.data())
def test_scan(name, data):
    lo, hi = _elements_for(name)
    a = data.draw(data_array(nan=name.startswith("nan"), lo=lo, hi=hi))
    kw = _kw(axis=data.draw(reduce_axis(a.ndim, tuples=False)),
             dtype=data.draw(st.sampled_from([OMIT, None, "int32", "float32", "float64"])))
    check(lambda xp, x: getattr(xp, name)(x, **kw), a)


@pytest.mark.parametrize("name", CUMULATIVE)
@settings(max_examples=examples(40))
@given(data=st.data())
def test_cumulative(name, data):
    lo, hi = _elements_for(name)
    a = data.draw(data_array(lo=lo, hi=hi, max_dims=3))
    kw = _kw(axis=data.draw(st.one_of(st.just(OMIT), reduce_axis(a.ndim, tuples=False))),
             dtype=data.draw(st.sampled_from([OMIT, None, "int64", "float32"])),
             include_initial=data.draw(st.sampled_from([OMIT, False, True])))
    check(lambda xp, x: getattr(xp, name)(x, **kw), a)


@settings(max_examples=examples(60))
@given(data=st.data())
def test_average(data):
    a = data.draw(data_array(max_dims=3))
    axis = data.draw(reduce_axis(a.ndim))
    kw = _kw(axis=axis, keepdims=data.draw(KEEPDIMS), returned=data.draw(st.sampled_from([OMIT, False, True])))
    form = data.draw(st.sampled_from(["none", "full", "along"]))
    if form == "none":
        check(lambda xp, x: xp.average(x, **kw), a)
        return
    if form == "full" or axis is None:
        wshape = a.shape
    else:  # weights along the reduced axes, in the user's order
        axes = axis if isinstance(axis, tuple) else (axis,)
        wshape = tuple(a.shape[ax] if -a.ndim <= ax < a.ndim else 1 for ax in axes)
    wdt = data.draw(st.sampled_from(["int32", "float32", "float64"]))
    # positive weights mostly; zeros sometimes (weights summing to zero raise when run)
    w = data.draw(hnp.arrays(wdt, wshape, elements=st.integers(0 if data.draw(st.booleans()) else 1, 5)))
    check(lambda xp, x, ww: xp.average(x, weights=ww, **kw), a, w)


def test_average_weights_mismatch():
    a = np.ones((2, 3))
    for kw, w in [({"axis": 0}, np.ones(3)), ({}, np.ones(3)), ({"axis": (1, 0)}, np.ones((2, 3)).T.copy())]:
        check(lambda xp, x, ww: xp.average(x, weights=ww, **kw), a, w)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)average.*test_reduction\.py"):
        fnp.average(fnp.asarray(a), axis=0, weights=np.ones(3))


# ---------------------------------------------------------------- size-0, literals, lists

@pytest.mark.parametrize("name", REDUCE + ARG + SCAN + CUMULATIVE + ["average"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4)])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, -1)])
def test_size_zero(name, shape, axis):
    if isinstance(axis, tuple) and name in ARG + SCAN + CUMULATIVE:
        axis = 0
    a = np.zeros(shape, "float32")
    check(lambda xp, x: getattr(xp, name)(x, axis=axis), a)


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin", "ptp", "nanmax", "nanmin", "argmax", "argmin",
                                  "nanargmax", "nanargmin"])
def test_empty_without_identity_raises_at_node_creation(name):
    x = fnp.placeholder((4, 0), "float64")
    getattr(fnp, name)(x, axis=0)  # reduces the length-4 axis: fine
    with pytest.raises(fgraph.ShapeError, match=rf"(?s){name.lstrip('a') if name in ('amax', 'amin') else name}"
                                                r".*\[4, 0\].*test_reduction\.py"):
        getattr(fnp, name)(x, axis=1)


def test_empty_sum_is_zero():
    check(lambda xp, x: xp.sum(x), np.zeros((0, 5), "int32"))
    check(lambda xp, x: xp.prod(x, axis=0), np.zeros((0, 5), "float32"))
    check(lambda xp, x: xp.max(x, initial=-1.5), np.zeros((0, 5), "float32"))


@pytest.mark.parametrize("name", REDUCE + ARG + SCAN + CUMULATIVE + ["average"])
@pytest.mark.parametrize("value", [5, 2.5, True, [1, 4, 2], [[1.5, -2.0], [3.0, 0.5]]])
def test_python_inputs(name, value):
    check(lambda xp: getattr(xp, name)(value))


# ---------------------------------------------------------------- non-contiguous: bit-identical kernels

@pytest.mark.parametrize("name", ["sum", "mean", "var", "std", "nansum", "nanmean", "cumsum", "prod"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kernel_bit_identical_on_views(name, dtype):
    """The normalised axis tuple gives NumPy's summation order, also on strided views."""
    rng = np.random.default_rng(0)
    base = rng.standard_normal((301, 257)).astype(dtype)
    kernel = get_attr(name, "numpy_kernel")
    fn = getattr(np, name)
    for view in (base, base.T, base[::3, 1::2], base[::-1]):
        if name == "cumsum":
            pairs = [({}, {"axis": None, "dtype": None}), ({"axis": 1}, {"axis": 1, "dtype": None})]
        else:
            params = {"keepdims": False, "dtype": None}
            if name in ("var", "std"):
                params["ddof"] = 0
            pairs = [({}, {"axis": (0, 1), **params}), ({"axis": (1, 0)}, {"axis": (0, 1), **params}),
                     ({"axis": 0}, {"axis": (0,), **params}), ({"axis": -1}, {"axis": (1,), **params})]
        for np_kw, params in pairs:
            want = fn(view, **np_kw)
            got = kernel(view, **params)
            np.testing.assert_array_equal(got, want, strict=True)


# ---------------------------------------------------------------- errors

def test_errors_name_op_and_line():
    x = fnp.placeholder((2, 3), "float32")
    with pytest.raises(fgraph.ShapeError, match=r"(?s)sum: .*out of bounds.*float32\[2, 3\].*test_reduction\.py"):
        fnp.sum(x, axis=2)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)mean.*test_reduction\.py"):
        fnp.mean(x, axis=(0, -2))
    with pytest.raises(fgraph.DTypeError, match=r"(?s)argmax.*test_reduction\.py"):
        fnp.argmax(x, axis=(0, 1))
    with pytest.raises(fgraph.DTypeError, match=r"(?s)ptp.*bool.*test_reduction\.py"):
        fnp.ptp(fnp.placeholder((3,), "bool"))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)where.*test_reduction\.py"):
        fnp.sum(x, where=np.ones(4, bool))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)max.*initial.*test_reduction\.py"):
        fnp.max(x, where=np.ones(3, bool))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)var.*ddof.*test_reduction\.py"):
        fnp.var(x, ddof=1, correction=1)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)cumulative_sum.*axis.*test_reduction\.py"):
        fnp.cumulative_sum(x)
    with pytest.raises(fgraph.FgraphError, match=r"(?s)sum.*out=.*test_reduction\.py"):
        fnp.sum(x, out=np.zeros(()))
    with pytest.raises(fgraph.FgraphError, match=r"(?s)var.*mean=.*test_reduction\.py"):
        fnp.var(x, mean=np.zeros((1, 1)))
    with pytest.raises(fgraph.FgraphError, match=r"(?s)initial.*test_reduction\.py"):
        fnp.sum(x, initial=fnp.sum(x))


def test_data_dependent_errors_raise_when_run():
    check(lambda xp, x: xp.nanargmax(x, axis=1), np.array([[1.0, np.nan], [np.nan, np.nan]]))
    check(lambda xp, x, w: xp.average(x, axis=0, weights=w), np.ones((2, 2)), np.array([[1, 0], [-1, 0]]))


# ---------------------------------------------------------------- NumPy protocols and methods

def test_numpy_functions_build_lazy_nodes():
    a = np.arange(24, dtype="float32").reshape(2, 3, 4) - 7
    t = fnp.asarray(a)
    cases = [(np.sum, {"axis": 0}), (np.mean, {"axis": (0, 2)}), (np.var, {"ddof": 1}), (np.std, {}),
             (np.max, {"axis": -1, "keepdims": True}), (np.amin, {}), (np.argmax, {"axis": 1}),
             (np.argmin, {}), (np.cumsum, {"axis": 2}), (np.cumprod, {}), (np.all, {}), (np.any, {"axis": 0}),
             (np.prod, {"axis": 1}), (np.ptp, {}), (np.count_nonzero, {"axis": 0}), (np.average, {"axis": 1}),
             (np.cumulative_sum, {"axis": 0, "include_initial": True}), (np.cumulative_prod, {"axis": 1}),
             (np.nansum, {}), (np.nanprod, {}), (np.nanmean, {"axis": 0}), (np.nanvar, {}), (np.nanstd, {}),
             (np.nanmax, {}), (np.nanmin, {}), (np.nanargmax, {}), (np.nanargmin, {"axis": 0}),
             (np.nancumsum, {}), (np.nancumprod, {"axis": 1})]
    for fn, kw in cases:
        got = fn(t, **kw)
        assert isinstance(got, fnp.Tensor), fn.__name__
        want = fn(a, **kw)
        np.testing.assert_array_equal(np.asarray(got), want, strict=True, err_msg=fn.__name__)


def test_ufunc_reduce_and_accumulate():
    a = np.arange(12, dtype="int32").reshape(3, 4)
    t = fnp.asarray(a)
    for got, want in [(np.add.reduce(t), np.add.reduce(a)), (np.multiply.reduce(t, axis=1), np.multiply.reduce(a, 1)),
                      (np.maximum.reduce(t, axis=None), np.maximum.reduce(a, axis=None)),
                      (np.add.accumulate(t), np.add.accumulate(a))]:
        assert isinstance(got, fnp.Tensor)
        np.testing.assert_array_equal(np.asarray(got), want, strict=True)


def test_tensor_methods():
    a = np.arange(1, 13, dtype="float64").reshape(3, 4) / 3
    t = fnp.asarray(a)
    cases = [(t.sum(), a.sum()), (t.sum(0), a.sum(0)), (t.sum(axis=1, keepdims=True), a.sum(axis=1, keepdims=True)),
             (t.prod(axis=0), a.prod(axis=0)), (t.mean(axis=-1), a.mean(axis=-1)), (t.var(ddof=1), a.var(ddof=1)),
             (t.std(axis=0), a.std(axis=0)), (t.max(), a.max()), (t.min(axis=1), a.min(axis=1)),
             (t.argmax(), a.argmax()), (t.argmin(axis=0), a.argmin(axis=0)), (t.cumsum(), a.cumsum()),
             (t.cumprod(axis=1), a.cumprod(axis=1)), (t.all(), a.all()), (t.any(axis=0), a.any(axis=0)),
             (t.ptp(axis=1), np.ptp(a, axis=1))]
    for got, want in cases:
        assert isinstance(got, fnp.Tensor)
        np.testing.assert_array_equal(np.asarray(got), want, strict=True)


# ---------------------------------------------------------------- graph properties

def test_reduction_attributes():
    for name in REDUCE + ARG + ["average"]:
        op = {"amax": "max", "amin": "min"}.get(name, name)
        assert get_attr(op, "reduction") is True
        assert get_attr(op, "scan", False) is False
    for name in SCAN + CUMULATIVE:
        assert get_attr(name, "scan") is True
        assert get_attr(name, "reduction", False) is False


def test_params_are_normalised():
    x = fnp.placeholder((2, 3, 4), "float32")
    assert fnp.sum(x, axis=-1).node.params == fnp.sum(x, axis=(2,)).node.params
    assert fnp.sum(x).node.params == fnp.sum(x, axis=(2, 0, -2)).node.params
    assert fnp.amax(x, axis=1).node.key == fnp.max(x, axis=-2).node.key
    assert fnp.var(x, ddof=1).node.params == fnp.var(x, correction=1).node.params
    assert fnp.argmax(x, axis=-1).node.params == fnp.argmax(x, axis=2).node.params
    for node in (fnp.sum(x, initial=1.0).node, fnp.mean(x, dtype="float64").node):
        hash(node.params)


def test_huge_shapes_build_without_allocating():
    x = fnp.placeholder((10**6, 10**6), "float64")
    assert fnp.var(x, axis=0).shape == (10**6,)
    assert fnp.cumsum(x, axis=1).shape == (10**6, 10**6)
    e = fnp.placeholder((0, 10**9), "float32")
    assert fnp.max(e, axis=1).shape == (0,)
    with pytest.raises(fgraph.ShapeError):
        fnp.max(e, axis=0)


@pytest.mark.parametrize("call", [
    lambda xp, a, n: xp.max(a, initial=n * 2), lambda xp, a, n: xp.min(a[:0], initial=n),
    lambda xp, a, n: a.sum(axis=0, initial=n), lambda xp, a, n: xp.prod(a, initial=n - 3),
    lambda xp, a, n: xp.max(a, axis=1, where=a > 2, initial=-n)])
def test_initial_from_a_lazy_value_outside_tracing(call):
    # initial=b.min(): a NumPy scalar in NumPy, a lazy 0-d array here, known now outside tracing
    a = np.arange(6.0).reshape(2, 3)
    want = call(np, a, np.arange(5).max())
    got = call(fnp, fnp.asarray(a), fnp.arange(5).max())
    assert got.dtype == want.dtype and got.shape == np.shape(want)
    np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(fgraph.ShapeError, match="initial= must be a Python value.*placeholder 'n'"):
        fnp.max(fnp.asarray(a), initial=fnp.placeholder((), np.float64, name="n"))

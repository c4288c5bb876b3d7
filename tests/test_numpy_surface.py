"""The rest of NumPy's surface a program touches, and the Array API suite's
checks (array-api-tests) on it, against NumPy on random inputs: axis errors,
finfo, fftfreq's dtype, repeat with array counts, pinv with per-matrix
tolerances, unsupported dtypes, module attributes, ``np.emath``,
``sliding_window_view``, iterables, and feeds."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fgraph
import fgraph.numpy as fnp
from oracle import arrays, shapes


def same(got, want):
    """Identical shape, dtype and values (NaNs equal)."""
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- axes out of range: NumPy's AxisError

@given(st.data())
def test_expand_dims_axes_as_numpy(data):
    x = data.draw(arrays("float64", shapes(max_dims=3)))
    n = x.ndim
    axis = data.draw(st.integers(2 * (-n - 1), 2 * n) | st.lists(st.integers(-n - 2, n + 1), min_size=1, max_size=2,
                                                                   unique=True).map(tuple))
    try:
        want = np.expand_dims(x, axis)
    except np.exceptions.AxisError:  # the suite wants an IndexError, NumPy's AxisError is one
        with pytest.raises(np.exceptions.AxisError) as info:
            fnp.expand_dims(fnp.asarray(x), axis)
        assert isinstance(info.value, (IndexError, fgraph.ShapeError))
        return
    except ValueError:  # a repeated axis
        with pytest.raises(fgraph.ShapeError):
            fnp.expand_dims(fnp.asarray(x), axis)
        return
    same(fnp.expand_dims(fnp.asarray(x), axis), want)


def test_axis_errors_are_numpys():
    x = fnp.zeros((2, 3))
    for fn in (lambda: fnp.sum(x, axis=2), lambda: fnp.expand_dims(x, -4), lambda: fnp.moveaxis(x, 0, 5)):
        with pytest.raises(np.exceptions.AxisError) as info:
            fn()
        assert isinstance(info.value, (IndexError, ValueError, fgraph.ShapeError))


# ---------------------------------------------------------------- finfo: NumPy's object, the standard's types

@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128"])
def test_finfo_is_numpys_with_python_floats(name):
    got, want = fnp.finfo(getattr(fnp, name)), np.finfo(np.dtype(name))
    assert isinstance(got, np.finfo) and repr(got) == repr(want) and str(got) == str(want)
    assert got.dtype == want.dtype and got.dtype == np.finfo(np.dtype(name)).dtype  # complex64: float32
    assert type(got.bits) is int
    for attr in ("eps", "max", "min", "smallest_normal", "tiny", "epsneg", "resolution", "smallest_subnormal"):
        g, w = getattr(got, attr), getattr(want, attr)
        if attr in ("eps", "max", "min", "smallest_normal"):
            assert isinstance(g, float), attr  # the Array API's requirement
        assert g == w and str(g) == str(w) and repr(g) == repr(w), attr
        with np.errstate(all="ignore"):  # max * 3, sqrt(min)
            for gr, wr in ((g * 3, w * 3), (1 + g, 1 + w), (-g, -w), (np.float32(2) * g, np.float32(2) * w),
                           (np.sqrt(g), np.sqrt(w))):
                assert type(gr) is type(wr) and str(gr) == str(wr), attr
        a = np.ones(3, np.float32)
        assert (a * g).dtype == (a * w).dtype
        assert (fnp.asarray(a) * g).dtype == (a * w).dtype
    assert fnp.finfo(fnp.ones(2, dtype=getattr(fnp, name))).dtype == want.dtype
    assert np.finfo(np.dtype(name)) is want  # NumPy's own cache untouched


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_iinfo_ints(name):
    got = fnp.iinfo(getattr(fnp, name))
    assert all(type(getattr(got, a)) is int for a in ("bits", "max", "min")) and got.dtype == np.dtype(name)


# ---------------------------------------------------------------- fftfreq/rfftfreq: the Array API's dtype= and device=

@given(st.integers(1, 40), st.floats(0.01, 100), st.sampled_from([None, "float32", "float64"]),
       st.sampled_from([None, "cpu"]))
def test_fftfreq_dtype_and_device(n, d, dtype, device):
    for name in ("fftfreq", "rfftfreq"):
        want = getattr(np.fft, name)(n, d)
        want = want if dtype is None else want.astype(dtype)  # as array-api-compat defines it
        same(getattr(fnp.fft, name)(n, d, dtype=dtype, device=device), want)
        same(getattr(fnp.fft, name)(n, d=d), getattr(np.fft, name)(n, d=d))


def test_fftfreq_refuses_other_dtypes_and_devices():
    with pytest.raises(fgraph.DTypeError):
        fnp.fft.fftfreq(4, dtype=fnp.int32)
    with pytest.raises(fgraph.FgraphError):
        fnp.fft.rfftfreq(4, device="gpu:3")


# ---------------------------------------------------------------- repeat: counts as arrays, lazy ones too

@given(st.data())
def test_repeat_counts_of_every_form(data):
    x = data.draw(arrays(data.draw(st.sampled_from(["bool", "int8", "float32", "float64"])), shapes(max_dims=3)))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    size = x.size if axis is None else x.shape[axis]
    counts = st.integers(0, 4)
    repeats = data.draw(counts | arrays(data.draw(st.sampled_from(["int8", "int32", "int64", "uint8"])),
                                        st.sampled_from([(1,), (size,)]), 0, 4))
    form = data.draw(st.sampled_from(["numpy", "lazy", "computed"]))
    arg = repeats
    if not isinstance(repeats, int) and form != "numpy":
        arg = fnp.asarray(repeats) if form == "lazy" else fnp.asarray(repeats) * 1  # a node, not a constant
    same(fnp.repeat(fnp.asarray(x), arg, axis=axis), np.repeat(x, repeats, axis=axis))
    same(fnp.asarray(x).repeat(arg, axis), x.repeat(repeats, axis))


def test_repeat_refuses_traced_counts():
    r = fnp.placeholder((3,), "int64", name="r")
    with pytest.raises(fgraph.FgraphError, match="placeholder or variable"):
        fnp.repeat(fnp.ones(3), r)


# ---------------------------------------------------------------- pinv: one tolerance per matrix

@given(st.data())
def test_pinv_array_tolerances(data):
    batch = data.draw(shapes(min_dims=1, max_dims=2, min_side=1, max_side=3))
    m, n = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    a = data.draw(arrays(data.draw(st.sampled_from(["float32", "float64"])), batch + (m, n), -4, 4))
    tshape = data.draw(st.sampled_from([batch, batch[1:], (1,) * len(batch)]))
    tol = data.draw(arrays("float64", tshape, 0, 1))
    keyword = data.draw(st.sampled_from(["rtol", "rcond"]))
    as_lazy = data.draw(st.booleans())
    want = np.linalg.pinv(a, **{keyword: tol})
    same(fnp.linalg.pinv(fnp.asarray(a), **{keyword: fnp.asarray(tol) if as_lazy else tol}), want)
    # through a compiled graph: the tolerances fed like the matrices
    pa, pt = fnp.placeholder(a.shape, a.dtype, name="a"), fnp.placeholder(tol.shape, tol.dtype, name="t")
    same(fgraph.compile(fgraph.Graph(fnp.linalg.pinv(pa, **{keyword: pt})))(a=a, t=tol), want)


def test_pinv_tolerances_must_fit_the_batch():
    a = fnp.ones((3, 2, 2))
    with pytest.raises(fgraph.ShapeError):
        fnp.linalg.pinv(a, rtol=np.ones(4))
    with pytest.raises(fgraph.FgraphError):
        fnp.linalg.pinv(a, rcond=np.ones(3), rtol=np.ones(3))


# ---------------------------------------------------------------- dtypes fgraph does not hold: refused, named

@pytest.mark.parametrize("make, kind", [
    (lambda: fnp.arange("2020-01", "2020-03", dtype="datetime64[M]"), "datetime"),
    (lambda: fnp.arange(np.datetime64("2020-01"), np.datetime64("2020-03")), "datetime"),
    (lambda: fnp.arange(3, dtype="m8[D]"), "timedelta"),
    (lambda: fnp.zeros(3, dtype=[("a", "f8")]), "structured"),
    (lambda: fnp.asarray(np.zeros(2, [("a", "i4"), ("b", "f4")])), "structured"),
    (lambda: fnp.array(["a", "b"]), "string"),
    (lambda: fnp.asarray(np.array([b"x"])), "bytes"),
    (lambda: fnp.full(3, "x"), "string"),
    (lambda: fnp.empty(2, dtype="U3"), "string"),
    (lambda: fnp.ones(2, dtype=object), "object"),
    (lambda: fnp.asarray(i for i in range(3)), "object"),  # NumPy: a 0-d object array of the generator
])
def test_unsupported_dtypes_are_named(make, kind):
    with pytest.raises(fgraph.DTypeError, match=f"fgraph does not support {kind} dtypes"):
        make()

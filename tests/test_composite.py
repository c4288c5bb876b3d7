"""Functions composed of other ops (fgraph/ops/composite.py) against NumPy,
on random arrays with NaN, infinities and signed zeros mixed in."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import check

SPECIALS = [0.0, -0.0, 1.0, -1.5, math.nan, math.inf, -math.inf, 1e-9, 3.0, 1e30]
REAL = ["bool", "int8", "uint8", "int64", "float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]


def _values(draw, n):
    return draw(st.lists(st.one_of(st.sampled_from(SPECIALS), st.floats(-1e3, 1e3)), min_size=n, max_size=n))


@st.composite
def special_arrays(draw, dtypes=REAL, shape=None):
    dt = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(st.sampled_from([(), (5,), (2, 4)])) if shape is None else shape
    n = math.prod(shape)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NaN/inf cast to an int: any value is a valid test input
        if dt.kind == "c":
            a = np.array(_values(draw, n)) + 1j * np.array(_values(draw, n))
        else:
            a = np.array(_values(draw, n))
        return a.astype(dt).reshape(shape)


@settings(max_examples=examples(60))
@given(special_arrays(REAL + COMPLEX), special_arrays(REAL + COMPLEX, shape=(5,)),
       st.sampled_from([1e-5, 0.0, 0.5]), st.sampled_from([1e-8, 0.0, 2.0]), st.booleans())
def test_isclose(a, b, rtol, atol, equal_nan):
    if a.shape == (2, 4):
        b = b[:4]
    check(lambda xp, x, y: xp.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan), a, b)
    check(lambda xp, x: xp.isclose(x, 1.0), a)
    check(lambda xp, x: xp.isclose(2, x), a)


def test_isclose_boundary_and_infinities():
    x = np.array([1.0, 3.0, np.inf, -np.inf, np.nan, 0.0, -0.0, 1e300])
    y = np.array([3.0, 1.0, np.inf, np.inf, np.nan, -0.0, 1e-300, np.inf])
    for kw in ({"rtol": 0.0, "atol": 2.0}, {"rtol": 0.5, "atol": 0.0}, {"equal_nan": True}, {}):
        check(lambda xp, a, b: xp.isclose(a, b, **kw), x, y)  # |a - b| == atol exactly counts as close


@settings(max_examples=examples(60))
@given(special_arrays(REAL + COMPLEX, shape=(5,)), st.booleans(), st.integers(0, 4))
def test_allclose_array_equal_array_equiv(a, equal_nan, k):
    b = a.copy()
    b[k] = b[(k + 1) % 5]  # sometimes a change, sometimes not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (lambda xp, x, y: xp.allclose(x, y, equal_nan=equal_nan),
                   lambda xp, x, y: xp.array_equal(x, y, equal_nan=equal_nan),
                   lambda xp, x, y: xp.array_equal(x, x, equal_nan=equal_nan),
                   lambda xp, x, y: xp.array_equiv(x, y[:1]),
                   lambda xp, x, y: xp.array_equiv(x, y)):
            want = fn(np, a, b)
            assert type(want) is bool
            got = fn(fnp, fnp.where(True, a, a), fnp.where(True, b, b))  # computed, known now: NumPy's bool
            assert got is want
            pa, pb = fnp.placeholder(a.shape, a.dtype, name="a"), fnp.placeholder(b.shape, b.dtype, name="b")
            traced = fn(fnp, pa, pb)
            assert isinstance(traced, fgraph.Tensor) and traced.shape == () and traced.dtype == bool  # lazy
            out = fgraph.compile(fgraph.Graph(traced, inputs=[pa, pb]))(a=a, b=b)
            assert bool(out) is want


def test_shape_answers_are_known_now():
    x = fnp.ones((2, 3))
    assert fnp.array_equal(x, fnp.ones((3, 2))) is False and fnp.array_equiv(x, fnp.ones(4)) is False
    assert bool(fnp.array_equiv(x, fnp.ones(3)))
    assert (fnp.ndim(x), fnp.shape(x), fnp.size(x), fnp.size(x, 1)) == (2, (2, 3), 6, 3)
    assert (fnp.ndim([1, 2]), fnp.shape(5.0), fnp.size(np.ones((2, 2)))) == (1, (), 4)
    assert fnp.iscomplexobj(fnp.ones(2, dtype="complex64")) and fnp.isrealobj(x) and not fnp.iscomplexobj(x)
    assert isinstance(np.isclose(x, 1.0), fgraph.Tensor)  # NumPy's own function dispatches to the lazy one


@settings(max_examples=examples(60))
@given(special_arrays(REAL + COMPLEX), st.booleans())
def test_predicates_angle_sinc(a, deg):
    for fn in (lambda xp, x: xp.isreal(x), lambda xp, x: xp.iscomplex(x), lambda xp, x: xp.angle(x, deg=deg),
               lambda xp, x: xp.sinc(x)):
        check(fn, a, rtol=0.0, atol=0.0)
    if a.dtype.kind != "c":
        check(lambda xp, x: xp.isposinf(x), a)
        check(lambda xp, x: xp.isneginf(x), a)


@settings(max_examples=examples(60))
@given(special_arrays(REAL + COMPLEX), st.sampled_from([None, 7.0, -2.5]), st.sampled_from([None, -7.0, 1e10]),
       st.sampled_from([0.0, -1.0, 5.5]))
def test_nan_to_num(a, posinf, neginf, nan):
    check(lambda xp, x: xp.nan_to_num(x), a)
    check(lambda xp, x: xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf), a)
    got, want = np.asarray(fnp.nan_to_num(fnp.asarray(a))), np.nan_to_num(a)
    for part in (np.real, np.imag):  # each part as NumPy's, signed zeros included
        assert np.array_equal(np.signbit(part(got)), np.signbit(part(want)))


def test_refusals_name_the_function():
    with pytest.raises(fgraph.DTypeError, match="isposinf.*ambiguous"):
        fnp.isposinf(fnp.ones(3, dtype="complex128"))


@settings(max_examples=examples(40))
@given(st.lists(st.sampled_from(REAL + COMPLEX), min_size=1, max_size=3))
def test_common_type(dtypes):
    arrays = [np.zeros(2, d) for d in dtypes]
    try:
        want = np.common_type(*arrays)
    except TypeError:
        with pytest.raises(fgraph.errors.DTypeError):
            fnp.common_type(*map(fnp.asarray, arrays))
        return
    assert fnp.common_type(*map(fnp.asarray, arrays)) is want
    assert np.common_type(*map(fnp.asarray, arrays)) is want  # NumPy's function dispatches here

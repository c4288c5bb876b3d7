"""Data-dependent sizes: ``nonzero``, ``argwhere``, ``flatnonzero``, one-argument
``where``, boolean masks, ``compress``, ``extract``, ``unique`` and ``unique_*``,
the set functions, ``trim_zeros``, ``real_if_close`` and ``roots``.

Outside tracing (nothing below is a placeholder or a variable) they evaluate
what decides the size and equal NumPy exactly: shape, dtype, values, order,
tuple or array.  Under tracing (``fgraph.jit``, a graph over placeholders)
they raise naming the op, the placeholder and the user's line, and JAX's
``size=``/``fill_value=`` forms give static shapes, checked under ``jit``
against NumPy's result padded as JAX pads it.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import shapes

# ---------------------------------------------------------------- inputs

DTYPES = [np.dtype(d) for d in ("bool", "int8", "int64", "uint16", "float32", "float64", "complex128")]


def values(dtype, nan=True):
    """Few distinct values (so duplicates and zeros are common), NaN and -0.0 among floats."""
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        return st.integers(0 if dtype.kind == "u" else -3, 3)
    pool = [0.0, -0.0, 1.0, -1.5, 2.0, 1e-300] + ([np.nan] * nan)
    if dtype.kind == "c":
        return st.sampled_from(pool).flatmap(lambda r: st.sampled_from(pool).map(lambda i: complex(r, i)))
    return st.sampled_from(pool)


@st.composite
def array(draw, dtypes=DTYPES, nan=True, **shape_kw):
    dt = draw(st.sampled_from(dtypes))
    shape_kw = {"max_dims": 3, "max_side": 4, **shape_kw}
    return draw(hnp.arrays(dt, shapes(**shape_kw), elements=values(dt, nan)))


def lazy(a):
    """A lazy array that is concrete but not a constant (so evaluating it runs the engine)."""
    t = fnp.asarray(a)
    return fnp.where(True, t, t)


def numpy_or_error(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(np, *args), None
        except Exception as e:  # noqa: BLE001 - the oracle: fgraph must refuse what NumPy refuses
            return None, e


def same(got, want, what=""):
    """got (lazy) equals NumPy's want exactly: the same tuple/named tuple/list structure, arrays as lazy arrays."""
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want), f"{what}{type(got).__name__} != NumPy's {type(want).__name__}"
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{what}[{k}] ")
        return
    assert isinstance(got, fgraph.Tensor), f"{what}{type(got).__name__} is not a lazy array"
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype, \
        f"{what}{got.dtype}{list(got.shape)} != NumPy's {np.asarray(want).dtype}{list(np.shape(want))}"
    np.testing.assert_array_equal(np.asarray(got), want, err_msg=what, strict=True)
    if np.asarray(want).dtype.kind in "fc":  # -0.0 and 0.0 apart, as NumPy has them
        np.testing.assert_array_equal(np.signbit(np.asarray(got).real), np.signbit(np.asarray(want).real))


def eager(fn, *arrays):
    """fn(fgraph.numpy, lazy...) equals fn(numpy, ...), or both refuse (fgraph with an FgraphError of NumPy's class)."""
    want, error = numpy_or_error(fn, *arrays)
    if error is not None:
        with pytest.raises(fgraph.FgraphError) as info:
            fn(fnp, *[lazy(a) for a in arrays])
        assert isinstance(info.value, (ValueError, IndexError, TypeError)) == \
            isinstance(error, (ValueError, IndexError, TypeError)), f"{info.value!r} for NumPy's {error!r}"
        return
    same(fn(fnp, *[lazy(a) for a in arrays]), want)


# ---------------------------------------------------------------- nonzero and friends, eagerly

@given(a=array(max_dims=4))
def test_nonzero_argwhere_flatnonzero_where(a):
    eager(lambda xp, x: xp.nonzero(x), a)
    eager(lambda xp, x: xp.argwhere(x), a)
    eager(lambda xp, x: xp.flatnonzero(x), a)
    eager(lambda xp, x: xp.where(x), a)
    eager(lambda xp, x: x.nonzero(), a)


def test_numpy_functions_dispatch_to_the_lazy_versions():
    a = np.array([[0, 1, 0], [2, 0, 3]])
    for name in ("nonzero", "argwhere", "flatnonzero", "unique", "trim_zeros"):
        same(getattr(np, name)(lazy(a) if name != "trim_zeros" else lazy(a[1])),
             getattr(np, name)(a if name != "trim_zeros" else a[1]))
    same(np.where(lazy(a)), np.where(a))


@st.composite
def masked(draw):
    """An array and a key with a boolean mask (a lazy one, or NumPy's), as NumPy reads them."""
    a = draw(array(min_dims=1, max_dims=3))
    kind = draw(st.sampled_from(["full", "leading", "column", "mixed_int", "ellipsis", "0-d", "mismatch", "two"]))
    bools = lambda shape: draw(hnp.arrays(bool, shape))  # noqa: E731
    if kind == "full":
        return a, (bools(a.shape),)
    if kind == "leading":
        return a, (bools(a.shape[:draw(st.integers(1, a.ndim))]),)
    if kind == "column" and a.ndim >= 2:
        return a, (slice(None), bools(a.shape[1:2]))
    if kind == "mixed_int" and a.ndim >= 2:
        return a, (bools(a.shape[:1]), draw(st.integers(-a.shape[1], a.shape[1] - 1)) if a.shape[1] else 0)
    if kind == "ellipsis":
        return a, (Ellipsis, bools(a.shape[-1:]))
    if kind == "0-d":
        return a, (np.bool_(draw(st.booleans())),)
    if kind == "two" and a.ndim >= 2:
        m = bools(a.shape[:1])
        return a, (m, np.zeros(int(m.sum()), np.intp))   # a mask broadcast with an integer array
    return a, (bools((a.shape[0] + 1,)),)                 # NumPy's IndexError: the lengths differ


@given(case=masked(), lazy_mask=st.booleans())
def test_boolean_mask_reads(case, lazy_mask):
    a, key = case
    lazy_key = tuple(lazy(k) if lazy_mask and isinstance(k, (np.ndarray, np.bool_)) and k.dtype == bool else k
                     for k in key)
    want, error = numpy_or_error(lambda xp, x: x[key], a)
    t = lazy(a)
    if error is not None:
        with pytest.raises(IndexError):
            t[lazy_key]
        return
    got = t[lazy_key]
    same(got, want)
    if any(isinstance(k, np.ndarray) and k.ndim for k in key):  # a stays lazy: a gather of constant indices
        assert got.node.op == "advanced_index"


def test_mask_read_evaluates_only_the_mask():
    x = fnp.placeholder((4,), "float64", name="x")
    mask = fnp.arange(4) % 2 == 0                 # concrete: evaluated
    got = x[mask]                                  # x is not: it stays an input of the gather
    assert got.node.op == "advanced_index" and got.node.inputs[0] is x.node
    exe = fgraph.compile(fgraph.Graph(got))
    np.testing.assert_array_equal(exe(x=np.arange(4.0)), [0.0, 2.0])
    f = fgraph.jit(lambda v: v[np.array([True, False, True])] * 2)   # a NumPy mask under jit: fine
    np.testing.assert_array_equal(f(np.arange(3.0)), [0.0, 4.0])


@st.composite
def compress_case(draw):
    a = draw(array(max_dims=3))
    axis = draw(st.none() | st.integers(-a.ndim - 1, a.ndim) if a.ndim else st.none())
    n = a.size if axis is None else a.shape[axis] if -a.ndim <= axis < a.ndim else 2
    cond = draw(hnp.arrays(draw(st.sampled_from([bool, np.int64])), draw(st.integers(0, n + 1)),
                           elements=st.integers(0, 1)))
    return a, cond, axis


@given(case=compress_case())
def test_compress_and_extract(case):
    a, cond, axis = case
    eager(lambda xp, c, x: xp.compress(c, x, axis=axis), cond, a)
    eager(lambda xp, c, x: xp.extract(c, x), cond, a)
    eager(lambda xp, c, x: xp.extract(c, x), cond.reshape(cond.shape + (1,)), a)   # conditions of any shape


def test_compress_gathers_from_a_lazy_array():
    x = fnp.placeholder((3, 2), "float64", name="x")
    got = fnp.compress(fnp.asarray([True, False, True]), x, axis=0)
    assert got.shape == (2, 2) and not got.node.concrete
    with pytest.raises(fgraph.ShapeError, match="condition must be a 1-d array"):
        fnp.compress(fnp.ones((2, 2), bool), x)


# ---------------------------------------------------------------- unique and sets, eagerly

@given(a=array(max_dims=3), flags=st.tuples(st.booleans(), st.booleans(), st.booleans()),
       equal_nan=st.booleans(), data=st.data())
def test_unique(a, flags, equal_nan, data):
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1) if a.ndim else st.none())
    eager(lambda xp, x: xp.unique(x, *flags, axis=axis, equal_nan=equal_nan), a)
    for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
        eager(lambda xp, x: getattr(xp, name)(x), a)


@given(data=st.data(), assume_unique=st.booleans())
def test_set_functions(data, assume_unique):
    dts = data.draw(st.sampled_from([(np.int64, np.int64), (np.float64, np.float64), (np.int8, np.float32),
                                     (bool, np.int64), (np.float32, np.float32)]))
    a, b = (data.draw(hnp.arrays(np.dtype(dt), shapes(max_dims=2, max_side=5), elements=values(np.dtype(dt))))
            for dt in dts)
    if assume_unique:  # NumPy's answer is defined for unique inputs only
        a, b = np.unique(a), np.unique(b)
    eager(lambda xp, x, y: xp.union1d(x, y), a, b)
    eager(lambda xp, x, y: xp.intersect1d(x, y, assume_unique=assume_unique), a, b)
    eager(lambda xp, x, y: xp.intersect1d(x, y, assume_unique, return_indices=True), a, b)
    eager(lambda xp, x, y: xp.setdiff1d(x, y, assume_unique=assume_unique), a, b)
    eager(lambda xp, x, y: xp.setxor1d(x, y, assume_unique=assume_unique), a, b)
    eager(lambda xp, x, y: xp.isin(x, y), a, b)


@given(a=array(max_dims=3, nan=False), trim=st.sampled_from(["fb", "f", "b", "BF", "x"]), data=st.data())
def test_trim_zeros(a, trim, data):
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1) | st.just(tuple(range(a.ndim)))
                     if a.ndim else st.none())
    eager(lambda xp, x: xp.trim_zeros(x, trim, axis), a)


def test_trim_zeros_of_lists_is_numpys_list_and_of_arrays_a_lazy_slice():
    assert fnp.trim_zeros([0, 1, 2, 0]) == [1, 2] and fnp.trim_zeros((0, 3, 0)) == (3,)
    got = fnp.trim_zeros(lazy(np.array([0, 0, 4, 5, 0])))
    assert got.node.op == "slice"
    same(got, np.array([4, 5]))


@given(a=hnp.arrays(st.sampled_from([np.complex64, np.complex128, np.float64, np.int32]), shapes(max_dims=2),
                    elements=st.sampled_from([0, 2, -2])),
       imag=st.sampled_from([0.0, 1e-20, 1e-14, 1e-3]), tol=st.sampled_from([100, 1e6, 1e-5]))
def test_real_if_close(a, imag, tol):
    if a.dtype.kind == "c":
        a = a + np.asarray(1j * imag, a.dtype)
    eager(lambda xp, x: xp.real_if_close(x, tol=tol), a)


@given(p=hnp.arrays(st.sampled_from([np.int64, np.float64, np.complex128]), st.integers(0, 5),
                   elements=st.sampled_from([0, 1, -2, 3])))
def test_roots(p):
    eager(lambda xp, c: xp.roots(c), p)
    eager(lambda xp, c: xp.roots(c), p.reshape(1, -1))   # NumPy refuses a 2-D polynomial


@given(u=hnp.arrays(st.sampled_from([np.int64, np.float64, np.complex128]), st.integers(0, 5),
                   elements=st.sampled_from([0, 1, -2, 3])),
       v=hnp.arrays(st.sampled_from([np.int64, np.float64]), st.integers(0, 3), elements=st.sampled_from([0, 1, -2])))
def test_poly_and_polydiv(u, v):
    eager(lambda xp, c: xp.poly(c), u)
    eager(lambda xp, c: xp.poly(c), np.outer(u[:2], u[:2]) + np.eye(u[:2].size))  # a square matrix's polynomial
    eager(lambda xp, a, b: xp.polydiv(a, b), u, v)


@given(c=hnp.arrays(st.sampled_from([np.int64, np.float64]), st.integers(1, 5), elements=st.sampled_from([0, 1, -2, 3])),
       x=st.sampled_from([2, -1.5, 0]))
def test_poly1d_of_lazy_coefficients(c, x):
    # np.poly1d(np.polyfit(...)): the coefficients are known now outside tracing; NumPy's own class
    want = np.poly1d(c)
    got = fnp.poly1d(lazy(c))
    assert isinstance(got, np.poly1d) and isinstance(got, fnp.poly1d)
    assert repr(got) == repr(want) and str(got) == str(want) and got.order == want.order
    np.testing.assert_array_equal(got.coeffs, want.coeffs, strict=True)
    assert repr(got(x)) == repr(want(x))  # a NumPy scalar, as NumPy's poly1d gives
    grid = np.linspace(-2, 2, 5)
    same(got(fnp.asarray(grid)), want(grid))  # a lazy array in: a lazy array out
    assert repr(got.deriv()) == repr(want.deriv()) and repr(got * got) == repr(want * want)
    with pytest.raises(fgraph.ShapeError, match="poly1d: c_or_r must be a Python value.*placeholder 'c'"):
        fnp.poly1d(fnp.placeholder(c.shape, c.dtype, name="c"))
    with pytest.raises(ValueError, match="Polynomial must be 1d only"):
        fnp.poly1d(lazy(c.reshape(1, -1)))


def test_real_if_close_of_a_real_array_needs_no_value():
    x = fnp.placeholder((2,), "float64", name="x")
    assert fnp.real_if_close(x).node is x.node


# ---------------------------------------------------------------- under tracing: refused, naming the placeholder

REFUSED = [
    ("nonzero", lambda xp, x: xp.nonzero(x)), ("argwhere", lambda xp, x: xp.argwhere(x)),
    ("flatnonzero", lambda xp, x: xp.flatnonzero(x)), ("where", lambda xp, x: xp.where(x > 0)),
    ("getitem", lambda xp, x: x[x > 0]), ("getitem", lambda xp, x: x[:, x[0] > 0]),
    ("getitem", lambda xp, x: xp.arange(4.0)[xp.sum(x) > 0]),
    ("compress", lambda xp, x: xp.compress(x[0] > 0, x, axis=1)), ("extract", lambda xp, x: xp.extract(x > 0, x)),
    ("unique", lambda xp, x: xp.unique(x)), ("unique_all", lambda xp, x: xp.unique_all(x)),
    ("unique_counts", lambda xp, x: xp.unique_counts(x)), ("unique_inverse", lambda xp, x: xp.unique_inverse(x)),
    ("unique_values", lambda xp, x: xp.unique_values(x)),
    ("union1d", lambda xp, x: xp.union1d(x, [1.0])), ("intersect1d", lambda xp, x: xp.intersect1d([1.0], x)),
    ("setdiff1d", lambda xp, x: xp.setdiff1d(x, x)), ("setxor1d", lambda xp, x: xp.setxor1d(x, [2.0])),
    ("trim_zeros", lambda xp, x: xp.trim_zeros(x)), ("real_if_close", lambda xp, x: xp.real_if_close(x + 0j)),
    ("roots", lambda xp, x: xp.roots(x[0])), ("poly", lambda xp, x: xp.poly(x[0])),
    ("polydiv", lambda xp, x: xp.polydiv(x[0], [1.0, 2.0])),
]


@pytest.mark.parametrize("op,fn", REFUSED, ids=[f"{op}-{i}" for i, (op, _) in enumerate(REFUSED)])
def test_traced_data_dependent_sizes_raise_naming_the_placeholder(op, fn):
    x = fnp.placeholder((2, 4), "float64", name="x")
    with pytest.raises(fgraph.ShapeError, match=rf"(?s){op}: .*data-dependent.*placeholder 'x'.*"
                                                r"test_data_dependent\.py"):
        fn(fnp, x)
    with pytest.raises(fgraph.ShapeError, match=rf"(?s){op}: .*placeholder 'arg0'"):
        fgraph.jit(lambda v: fn(fnp, v))(np.ones((2, 4)))
    w = fnp.variable(np.ones((2, 4)), name="w")
    with pytest.raises(fgraph.ShapeError, match=r"variable 'w'"):
        fn(fnp, w)


def test_the_refusal_offers_the_sized_form():
    x = fnp.placeholder((3,), "float64", name="x")
    for fn in (fnp.nonzero, fnp.unique, fnp.argwhere, fnp.flatnonzero):
        with pytest.raises(fgraph.ShapeError, match="size=N"):
            fn(x)
    with pytest.raises(fgraph.ShapeError, match=r"where\(mask, a, b\).*nonzero\(mask, size=N\)"):
        x[x > 0]


def test_concreteness_is_a_flag_of_each_node():
    c = fnp.arange(3.0)
    x = fnp.placeholder((3,), "float64", name="x")
    w = fnp.variable(np.ones(3), name="w")
    assert c.node.concrete and (c * 2 + 1).node.concrete and fnp.asarray(1.0).node.concrete
    assert not x.node.concrete and not w.node.concrete
    assert not (c + x).node.concrete and not fnp.sum(c * w).node.concrete
    y = c
    for _ in range(20000):  # a long history: the flag is read, never recomputed by a walk
        y = y + 1.0
    assert y.node.concrete
    same(fnp.nonzero(y > 20001.5), np.nonzero(np.arange(3.0) + 20000 > 20001.5))


def test_grad_of_a_function_on_arrays_sees_concrete_masks():
    f = lambda v: fnp.sum(v[v > 0] ** 2)                    # noqa: E731
    np.testing.assert_array_equal(fgraph.grad(f)(np.array([-1.0, 2.0, 3.0])), [0.0, 4.0, 6.0])
    with pytest.raises(fgraph.ShapeError, match="placeholder 'arg0'"):
        fgraph.jit(fgraph.grad(f))(np.array([-1.0, 2.0, 3.0]))


# ---------------------------------------------------------------- JAX's sized forms, under jit

def padded(values, size, fill):
    """NumPy's 1-D result cut or padded to ``size`` with ``fill``, as JAX's size= does."""
    values = np.asarray(values)
    out = np.full(size, fill, dtype=values.dtype)
    k = min(size, values.shape[0])
    out[:k] = values[:k]
    return out


def jitted(fn, *arrays):
    """fn under fgraph.jit (placeholders) and eagerly on lazy constants: both results."""
    got = fgraph.jit(fn)(*arrays)
    return got, fn(*[lazy(a) for a in arrays])


def same_values(got, want):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, f"{got.dtype}{got.shape} != {want.dtype}{want.shape}"
    np.testing.assert_array_equal(got, want)


@settings(max_examples=examples(25))
@given(a=array(min_dims=1, max_dims=3), size=st.integers(0, 8), fill=st.none() | st.integers(-3, 3), data=st.data())
def test_sized_nonzero_argwhere_flatnonzero_where(a, size, fill, data):
    per_dim = data.draw(st.booleans()) and fill is not None
    fill_value = tuple(fill - k for k in range(a.ndim)) if per_dim else fill
    fills = fill_value if per_dim else (0 if fill is None else fill,) * a.ndim
    want = tuple(padded(i, size, f) for i, f in zip(np.nonzero(a), fills))
    for got in jitted(lambda x: fnp.nonzero(x, size=size, fill_value=fill_value), a):
        assert isinstance(got, tuple) and len(got) == a.ndim
        for g, w in zip(got, want):
            same_values(g, w)
    for got in jitted(lambda x: fnp.where(x, size=size, fill_value=fill_value), a):
        for g, w in zip(got, want):
            same_values(g, w)
    for got in jitted(lambda x: fnp.argwhere(x, size=size, fill_value=fill_value), a):
        same_values(got, np.stack(want, axis=1) if want else np.zeros((size, 0), np.intp))
    for got in jitted(lambda x: fnp.flatnonzero(x, size=size, fill_value=fill), a):
        same_values(got, padded(np.flatnonzero(a), size, 0 if fill is None else fill))


@settings(max_examples=examples(25))
@given(case=compress_case(), size=st.integers(0, 6), fill=st.integers(0, 3))
def test_sized_compress_and_extract(case, size, fill):
    a, cond, axis = case
    if axis is not None and not -a.ndim <= axis < a.ndim:
        return
    n = a.size if axis is None else a.shape[axis]
    keep = np.flatnonzero(cond[:n])
    want = np.take(a.ravel() if axis is None else a, keep, axis=0 if axis is None else axis)
    ax = 0 if axis is None else axis % a.ndim
    want = np.moveaxis(want, ax, 0)
    pad = np.full((size,) + want.shape[1:], fill, dtype=a.dtype)
    pad[:min(size, want.shape[0])] = want[:size]
    want = np.moveaxis(pad, 0, ax)
    for got in jitted(lambda c, x: fnp.compress(c, x, axis=axis, size=size, fill_value=fill), cond, a):
        same_values(got, want)
    cut = cond[:a.size]
    want = padded(np.extract(cut, a.ravel()[:cut.size]) if cut.size else a.ravel()[:0], size, fill)
    for got in jitted(lambda c, x: fnp.extract(c, x, size=size, fill_value=fill), cond, a):
        same_values(got, want)


@settings(max_examples=examples(25))
@given(a=array(dtypes=[np.dtype(d) for d in ("int64", "float64", "bool", "float32")], max_dims=2),
       size=st.integers(0, 8), fill=st.none() | st.just(-7), flags=st.tuples(st.booleans(), st.booleans(),
                                                                                st.booleans()))
def test_sized_unique(a, size, fill, flags):
    if a.size == 0 and size and fill is None:
        with pytest.raises(fgraph.ShapeError, match="fill_value"):
            fnp.unique(lazy(a), size=size)
        return
    u, index, inverse, counts = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    default = u[0] if u.size else 0
    want = [padded(u, size, default if fill is None else fill)]
    want += [padded(index, size, index[0] if index.size else 0)] * flags[0]
    want += [inverse.reshape(a.shape)] * flags[1] + [padded(counts, size, 0)] * flags[2]
    for got in jitted(lambda x: fnp.unique(x, *flags, size=size, fill_value=fill), a):
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same_values(g, w)
    if a.size:  # the Array API forms (NaNs distinct, as NumPy's unique_all)
        values, index, inverse, counts = np.unique(a, True, True, True, equal_nan=False)
        for got in jitted(lambda x: fnp.unique_all(x, size=size), a):
            got = type(np.unique_all(a))(*got)   # (jit gives a list for a named tuple)
            same_values(got.values, padded(values, size, values[0]))
            same_values(got.counts, padded(counts, size, 0))
            same_values(got.inverse_indices, inverse.reshape(a.shape))


@settings(max_examples=examples(25))
@given(data=st.data(), size=st.integers(0, 8), fill=st.none() | st.just(-7))
def test_sized_set_functions(data, size, fill):
    dt = np.dtype(data.draw(st.sampled_from([np.int64, np.float64])))
    a, b = (data.draw(hnp.arrays(dt, st.integers(0, 6), elements=values(dt))) for _ in range(2))
    smallest = lambda r: r[0] if r.size else 0                 # noqa: E731
    cases = [("union1d", {}, np.union1d(a, b), smallest), ("intersect1d", {}, np.intersect1d(a, b), smallest),
             ("setdiff1d", {}, np.setdiff1d(a, b), lambda r: 0), ("setxor1d", {}, np.setxor1d(a, b), smallest),
             ("setdiff1d", {"assume_unique": True}, np.setdiff1d(np.unique(a), b, True), lambda r: 0)]
    for name, kw, want, default in cases:
        x = np.unique(a) if kw else a
        want = padded(want, size, default(want) if fill is None else fill)
        for got in jitted(lambda p, q: getattr(fnp, name)(p, q, size=size, fill_value=fill, **kw), x, b):
            same_values(got, want)


def test_size_must_be_a_python_int():
    t = fnp.asarray([1, 0, 2])
    with pytest.raises(fgraph.FgraphError, match="size must be a Python int"):
        fnp.nonzero(t, size=fnp.asarray(2))
    with pytest.raises(fgraph.ShapeError, match="must not be negative"):
        fnp.unique(t, size=-1)
    with pytest.raises(fgraph.FgraphError, match="only with size="):
        fnp.nonzero(t, fill_value=1)
    with pytest.raises(fgraph.ShapeError, match="tuple of length 1"):
        fnp.nonzero(t, size=2, fill_value=(0, 0))
    with pytest.raises(fgraph.ShapeError, match="0d arrays"):
        fnp.nonzero(fnp.asarray(1), size=2)

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


def test_fftfreq_default_dtype_is_the_stacks():
    ns = fgraph.make(dtype="float32")
    for name in ("fftfreq", "rfftfreq"):
        assert getattr(ns.fft, name)(8).dtype == ns.__array_namespace_info__().default_dtypes()["real floating"]
        assert getattr(fnp.fft, name)(8).dtype == np.float64


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
    with np.errstate(all="ignore"):  # a zero tolerance keeps singular values of ~1e-17: NumPy's overflow
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


# ---------------------------------------------------------------- module attributes a program reads

def test_numpy_module_attributes():
    assert fnp.__version__ == np.__version__
    for name in ("busday_count", "datetime_as_string", "nditer", "matrix", "memmap", "info", "frompyfunc"):
        assert getattr(fnp, name) is getattr(np, name)
    for name in ("ma", "char", "strings", "rec", "ctypeslib"):
        assert getattr(fnp, name) is getattr(np, name)
    assert fnp.lib.NumpyVersion is np.lib.NumpyVersion and fnp.lib.scimath is fnp.emath
    with pytest.raises(AttributeError, match="no lazy version of numpy.test"):
        fnp.test
    assert issubclass(fnp.poly1d, np.poly1d)  # NumPy's class, its coefficients evaluated (test_data_dependent)
    # the stack-bound namespaces have them too
    ns = fgraph.make(dtype="float32")
    assert ns.__version__ == np.__version__ and ns.ma is np.ma
    assert ns.emath.sqrt(ns.asarray([-1.0])).dtype == np.complex64
    assert ns.lib.stride_tricks.sliding_window_view(ns.arange(5.0), 2).dtype == np.float32


def test_numpy_polynomial_is_not_passed_through():
    # its classes evaluate a lazy argument and return NumPy's array: refused, not silently eager
    with pytest.raises(AttributeError, match="no lazy version of numpy.polynomial"):
        fnp.polynomial


# ---------------------------------------------------------------- np.emath: complex where the data need it

EMATH_ONE = ["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"]


@given(st.data())
def test_emath_as_numpy(data):
    dtype = data.draw(st.sampled_from(["int8", "int64", "uint8", "float16", "float32", "float64", "complex64"]))
    x = data.draw(arrays(dtype, shapes(max_dims=2), -3, 3))
    form = data.draw(st.sampled_from(["constant", "computed"]))
    lazy_x = fnp.asarray(x) if form == "constant" else fnp.asarray(x) * 1  # a node known without tracing
    x = x if form == "constant" else x * 1  # (x * 1 turns a complex -0j into +0j, on either side of a branch cut)
    with np.errstate(all="ignore"):
        for name in EMATH_ONE:  # NumPy's own kernels after the same conversion: identical values
            same(getattr(fnp.emath, name)(lazy_x), np.asarray(getattr(np.emath, name)(x)))
        n = data.draw(st.sampled_from([2, -2, 10]))
        p = data.draw(st.sampled_from([2, -1, 0.5, np.array([-1])]))
        same(fnp.emath.logn(n, lazy_x), np.asarray(np.emath.logn(n, x)))
        same(fnp.emath.power(lazy_x, p), np.asarray(np.emath.power(x, p)))


def test_emath_under_tracing():
    real = fnp.placeholder((3,), "float64", name="x")
    with pytest.raises(fgraph.DTypeError, match="data-dependent dtype"):
        fnp.emath.sqrt(real)
    # no data needed: complex input, or one that cannot be negative
    c = fnp.placeholder((3,), "complex128", name="c")
    u = fnp.placeholder((3,), "uint8", name="u")
    exe = fgraph.compile(fgraph.Graph([fnp.emath.sqrt(c), fnp.emath.log(u)]))
    cv, uv = np.array([-1 + 0j, 4, 2j]), np.array([1, 2, 3], np.uint8)
    for got, want in zip(exe(c=cv, u=uv), (np.emath.sqrt(cv), np.emath.log(uv))):
        same(got, want)


# ---------------------------------------------------------------- sliding_window_view: lazy windows

@given(st.data())
def test_sliding_window_view_as_numpy(data):
    x = data.draw(arrays(data.draw(st.sampled_from(["bool", "int32", "float64"])), shapes(max_dims=3, max_side=5)))
    if data.draw(st.booleans()) or x.ndim == 0:
        axis = None
        window = tuple(data.draw(st.integers(0, d)) for d in x.shape)
    else:
        axis = tuple(data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=3)))
        window = tuple(data.draw(st.integers(0, 2)) for _ in axis)  # an axis windowed twice must still fit
        try:
            np.lib.stride_tricks.sliding_window_view(x, window, axis)
        except ValueError:
            with pytest.raises(fgraph.ShapeError):
                fnp.lib.stride_tricks.sliding_window_view(fnp.asarray(x), window, axis)
            return
    if len(window) == 1 and data.draw(st.booleans()):
        window = window[0]  # an int window
    want = np.lib.stride_tricks.sliding_window_view(x, window, axis)
    same(fnp.lib.stride_tricks.sliding_window_view(fnp.asarray(x), window, axis), want)


def test_sliding_window_view_in_a_graph_and_its_errors():
    from fgraph.numpy.lib.stride_tricks import sliding_window_view

    a = np.arange(20.0).reshape(4, 5)
    p = fnp.placeholder((4, 5), name="a")
    means = sliding_window_view(p, (2, 3)).mean(axis=(-2, -1))
    same(fgraph.compile(fgraph.Graph(means))(a=a), np.lib.stride_tricks.sliding_window_view(a, (2, 3)).mean((-2, -1)))
    g = fgraph.grad(lambda t: sliding_window_view(t, 3).sum())(np.arange(5.0))
    same(g, np.array([1.0, 2.0, 3.0, 2.0, 1.0]))  # how many windows hold each element
    for bad in (dict(window_shape=6), dict(window_shape=-1), dict(window_shape=(2, 2)),
                dict(window_shape=2, axis=1)):
        with pytest.raises(fgraph.ShapeError):
            sliding_window_view(fnp.arange(5.0), **bad)
    with pytest.raises(fgraph.FgraphError):
        sliding_window_view(fnp.arange(5.0), 2, writeable=True)
    with pytest.raises(fgraph.FgraphError, match="sliding_window_view"):
        fnp.lib.stride_tricks.as_strided(fnp.arange(5.0), (2,), (8,))
    same(fnp.lib.stride_tricks.as_strided(np.arange(5.0), (2, 2), (8, 8)),
         np.lib.stride_tricks.as_strided(np.arange(5.0), (2, 2), (8, 8)))


# ---------------------------------------------------------------- piecewise, vectorize, require, broadcast

@given(st.data())
def test_piecewise_as_numpy(data):
    x = data.draw(arrays(data.draw(st.sampled_from(["int64", "float32", "float64"])), shapes(max_dims=2), -5, 5))
    lazy_x = fnp.asarray(x)
    n = data.draw(st.integers(1, 3))
    cuts = sorted(data.draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)))
    pieces = [lambda v: v * 2, lambda v: v ** 2, 3, lambda v: -v, 0.5]
    funcs = data.draw(st.permutations(pieces)).__getitem__(slice(0, n + data.draw(st.integers(0, 1))))
    want = np.piecewise(x, [x < c for c in cuts], funcs)
    same(fnp.piecewise(lazy_x, [lazy_x < c for c in cuts], funcs), want)


def test_piecewise_forms():
    x = np.linspace(-2.5, 2.5, 6)
    t = fnp.asarray(x)
    same(fnp.piecewise(t, [t < 0, t >= 0], [-1, 1]), np.piecewise(x, [x < 0, x >= 0], [-1, 1]))
    same(fnp.piecewise(t, t > 0, [lambda v: v + 1]), np.piecewise(x, x > 0, [lambda v: v + 1]))
    same(fnp.piecewise(fnp.asarray(3.0), [True], [lambda v: v * 2]),
         np.asarray(np.piecewise(3.0, [True], [lambda v: v * 2])))
    with pytest.raises(fgraph.ShapeError):
        fnp.piecewise(t, [t < 0, t > 0], [1, 2, 3, 4])


def test_vectorize_evaluates_and_returns_lazy():
    def clip_to(u, v):
        return u if u > v else v

    a = np.arange(6.0).reshape(2, 3)
    got = fnp.vectorize(clip_to)(fnp.asarray(a), 2.5)
    assert isinstance(got, fgraph.Tensor)
    same(got, np.vectorize(clip_to)(a, 2.5))
    two = fnp.vectorize(lambda u: (u, -u), otypes=[float, float])(fnp.asarray(a))
    for g, w in zip(two, np.vectorize(lambda u: (u, -u), otypes=[float, float])(a)):
        same(g, w)

    @fnp.vectorize
    def double(u):
        return 2 * u

    same(double(fnp.arange(3)), np.arange(3) * 2)
    same(fnp.vectorize(lambda u: str(u))(fnp.arange(2)), np.array(["0", "1"]))  # strings stay NumPy's
    with pytest.raises(fgraph.FgraphError, match="fgraph.numpy operations"):
        fnp.vectorize(clip_to)(fnp.placeholder((3,), name="p"), 1.0)


def test_require_isfortran_row_stack_broadcast():
    a = np.arange(6.0).reshape(2, 3)
    t = fnp.asarray(a)
    assert fnp.isfortran(t.T) == np.isfortran(a.T) and fnp.isfortran(t) == np.isfortran(a)
    for reqs in (None, "C", ["F"], ["O", "W"], "E"):
        got, want = fnp.require(t.T, "float32", reqs), np.require(a.T, "float32", reqs)
        same(got, want)
        if reqs == "C":  # the layout asked for (a fresh lazy array's layout is C order)
            assert (got.flags.c_contiguous, got.flags.f_contiguous) == (want.flags.c_contiguous,
                                                                        want.flags.f_contiguous)
    with pytest.warns(DeprecationWarning, match="row_stack"):
        same(fnp.row_stack([t, t]), np.vstack([a, a]))
    b, nb = fnp.broadcast(t, fnp.ones((4, 1, 3))), np.broadcast(a, np.ones((4, 1, 3)))
    assert (b.shape, b.nd, b.ndim, b.size, b.numiter, b.index) == (nb.shape, nb.nd, nb.ndim, nb.size, nb.numiter,
                                                                    nb.index)
    assert list(fnp.broadcast(t[0], [1, 2, 3])) == list(np.broadcast(a[0], [1, 2, 3]))
    with pytest.raises(fgraph.ShapeError):
        fnp.broadcast(t, fnp.ones(4))


# ---------------------------------------------------------------- feeds: unused placeholders ignored, typos named

@pytest.mark.parametrize("engine", ["numpy", "dask"])
def test_feeds_of_unused_placeholders_are_ignored(engine):
    if engine == "dask":
        pytest.importorskip("dask")
    x = fnp.placeholder((3,), name="x")
    labels = fnp.placeholder((3,), name="labels")  # made, but the graph's outputs do not use it
    w = fnp.variable(np.arange(3.0), name="w")
    grad_w = fgraph.grad(fnp.sum(w * w), w)  # a gradient that depends on no input
    exe = fgraph.compile(fgraph.Graph([fnp.sum(x * w), grad_w]), engine=engine)
    feeds = dict(x=np.ones(3), labels=np.zeros(3))
    total, g = exe(**feeds)
    assert float(total) == 3.0 and np.array_equal(np.asarray(g), [0.0, 2.0, 4.0])
    with pytest.raises(fgraph.FgraphError, match=r"'lables' names no placeholder \(did you mean 'labels'\?\)"):
        exe(x=np.ones(3), lables=np.zeros(3))
    with pytest.raises(fgraph.FgraphError, match=r"'w' is a variable.*exe.assign"):
        exe(x=np.ones(3), w=np.zeros(3))
    with pytest.raises(fgraph.FgraphError, match="missing feed"):
        exe(labels=np.zeros(3))
    del labels
    import gc

    gc.collect()
    with pytest.raises(fgraph.FgraphError, match="'labels' names no placeholder"):  # none alive has the name
        exe(**feeds)


# ---------------------------------------------------------------- range, generators and other iterables

def test_iterables_as_numpy():
    import array
    import collections

    for data in (range(5), range(2, 9, 3), range(0), collections.deque([1.5, 2.5]), array.array("i", [3, 1])):
        same(fnp.array(data), np.array(data))
        same(fnp.asarray(data), np.asarray(data))
    same(np.asarray(fnp.fromiter((i * i for i in range(4)), float)), np.fromiter((i * i for i in range(4)), float))
    with pytest.raises(TypeError, match=r"np.sum\(generator\) is deprecated"):  # NumPy 2.4 refuses it too
        fnp.sum(i for i in range(3))
    with pytest.raises(fgraph.DTypeError, match="object dtypes.*fromiter"):  # NumPy: a 0-d object array
        fnp.asarray(i for i in range(3))


def test_range_wherever_numpy_takes_an_array():
    same(fnp.sum(range(5)), np.asarray(np.sum(range(5))))
    same(fnp.mean(range(4)), np.asarray(np.mean(range(4))))
    same(fnp.sin(range(3)), np.sin(range(3)))
    same(fnp.concatenate([range(3), range(2)]), np.concatenate([range(3), range(2)]))
    for g, w in zip(fnp.meshgrid(range(3), range(2)), np.meshgrid(range(3), range(2))):
        same(g, w)


# ---------------------------------------------------------------- clip's bounds by either name, broadcast_arrays

@given(st.data())
def test_clip_bounds_by_either_name(data):
    dtype = data.draw(st.sampled_from(["int8", "int64", "float32", "float64"]))
    x = data.draw(arrays(dtype, shapes(max_dims=3)))

    def bound():
        return data.draw(st.none() | st.integers(-50, 50) | arrays(dtype, st.sampled_from([x.shape[1:], (1,) * x.ndim,
                                                                                             x.shape])))
    lo, hi = bound(), bound()
    if lo is not None and hi is not None and np.any(np.asarray(hi) < np.asarray(lo)):
        lo, hi = hi, lo  # min > max is undefined
        if np.any(np.asarray(hi) < np.asarray(lo)):
            return
    want = np.clip(x, min=lo, max=hi)
    same(fnp.clip(fnp.asarray(x), min=lo, max=hi), want)  # the standard's names (NumPy 2's too)
    if lo is not None or hi is not None:
        same(fnp.clip(fnp.asarray(x), lo, hi), want)
        same(fnp.clip(fnp.asarray(x), a_min=lo, a_max=hi), want)
    assert fnp.clip(fnp.asarray(x), min=lo, max=hi).dtype == x.dtype  # the bounds take no part in promotion


def test_broadcast_arrays_is_a_tuple():
    out = fnp.broadcast_arrays(fnp.ones((2, 1)), fnp.ones(3), 1.0)
    assert type(out) is tuple and type(np.broadcast_arrays(np.ones((2, 1)), np.ones(3))) is tuple
    assert [o.shape for o in out] == [(2, 3)] * 3


# ---------------------------------------------------------------- DLPack export of a (read-only, memoised) value

def test_dlpack_export_as_the_standard_asks():
    x = fnp.asarray(np.arange(6.0).reshape(2, 3)) * 2

    class PreVersioned:  # a consumer that knows no max_version (DLPack 0.x): no read-only flag to read
        def __dlpack__(self, stream=None):
            return x.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return x.__dlpack_device__()

    same(np.from_dlpack(PreVersioned()), np.arange(6.0).reshape(2, 3) * 2)
    same(np.from_dlpack(x), np.arange(6.0).reshape(2, 3) * 2)
    capsule = x.__dlpack__(stream=None, max_version=(1, 0), dl_device=x.__dlpack_device__(), copy=None)
    assert type(capsule).__name__ == "PyCapsule"
    with pytest.raises(BufferError):
        x.__dlpack__(copy=False)  # a pre-1.0 export of a read-only value needs a copy

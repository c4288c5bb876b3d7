"""Out-kernels of the reduction family against its plain kernels.

Each test builds a node through the public functions, evaluates its inputs,
and runs the op's ``numpy_kernel`` and ``numpy_out_kernel`` on them: the
out-kernel must return ``out`` itself, holding the kernel's result bit for
bit, and leave its inputs alone.  Scans (which declare ``inplace``) also
run with ``out`` being the input's own memory.  A last test checks with
tracemalloc that the ops claimed allocation-free allocate (almost) nothing.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.bench.timing import peak_bytes
import fgraph.engines.numpy_kernels  # noqa: F401  (attaches the kernels)
from oracle import shapes

DTYPES = [np.dtype(d) for d in ("bool", "int32", "int64", "float16", "float32", "float64", "complex64",
                                "complex128")]
CAST_TO = [None] + DTYPES  # values for dtype=

REDUCE = ["sum", "prod", "mean", "var", "std", "max", "min", "all", "any", "ptp", "nansum", "nanprod",
          "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"]
WITH_WHERE = {"sum", "prod", "mean", "var", "std", "max", "min", "all", "any", "nansum", "nanprod", "nanmean",
              "nanvar", "nanstd", "nanmax", "nanmin"}
WITH_INITIAL = {"sum", "prod", "max", "min", "nansum", "nanprod", "nanmax", "nanmin"}
WITH_DTYPE = {"sum", "prod", "mean", "var", "std", "nansum", "nanprod", "nanmean", "nanvar", "nanstd"}
VAR_LIKE = {"var", "std", "nanvar", "nanstd"}
ARG = ["argmax", "argmin", "nanargmax", "nanargmin"]
SCAN = ["cumsum", "cumprod", "nancumsum", "nancumprod"]


# ---------------------------------------------------------------- running both kernels

def _leaf(node):
    if node.op == "constant":
        return node.param("value").array
    assert node.op == "literal", node.op
    return node.param("value").value


def _fortran(x):
    return np.asfortranarray(x)


def _reversed(x):  # negative strides (and other values: the kernel is rerun on them)
    return x[::-1]


def _strided(x):  # every other element of a larger buffer
    big = np.zeros((2,) + x.shape, x.dtype)
    big[0] = x
    return np.moveaxis(big, 0, -1)[..., 0]


LAYOUTS = [_fortran, _reversed, _strided]


def _variants(args):
    """The inputs as given, and with each array input in other memory layouts
    (the engine hands kernels views: transposed, reversed, strided)."""
    yield args
    for layout in LAYOUTS:
        if any(isinstance(a, np.ndarray) and a.ndim and a.size > 1 for a in args):
            yield [layout(a) if isinstance(a, np.ndarray) and a.ndim else a for a in args]


def _compare(got, want):
    want = np.asarray(want)
    np.testing.assert_array_equal(got, want, strict=True)
    assert got.tobytes() == want.tobytes(), "not bit-identical"


def run_both(t, inplace_check=False):
    """Kernel vs out-kernel of ``t``'s node (and with out = the input's memory)."""
    node = t.node
    kernel = fgraph.attr_table("numpy_kernel")[node.op]
    out_kernel = fgraph.attr_table("numpy_out_kernel")[node.op]
    params = dict(node.params)
    args = [_leaf(i) for i in node.inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ins in _variants(args):
            try:
                want = kernel(*ins, **params)
            except Exception as e:  # a data-dependent error (nanargmax of an all-NaN slice)
                with pytest.raises(type(e)):
                    out_kernel(*ins, out=np.empty(node.shape, node.dtype), **params)
                return
            want = np.asarray(want)
            assert (want.shape, want.dtype) == (node.shape, node.dtype)
            before = [np.copy(x) for x in ins]
            for sentinel in (0, 7):  # an element the out-kernel forgets shows up
                out = np.full(node.shape, sentinel, node.dtype)
                assert out_kernel(*ins, out=out, **params) is out
                _compare(out, want)
            for x, b in zip(ins, before):  # inputs untouched
                np.testing.assert_array_equal(x, b, strict=True)
        spec = fgraph.attr_table("inplace").get(node.op) if inplace_check else None
        if inplace_check:
            x = args[0]
            assert spec is not None
            if (callable(spec) and not spec(node)) or not isinstance(x, np.ndarray):
                return  # not in place for this node (a complex scan)
            if isinstance(x, np.ndarray) and x.shape == node.shape and x.itemsize == node.dtype.itemsize:
                buf = x.copy()  # the planner pairs same shape and item size; the dtype may differ
                out = buf.view(node.dtype)
                assert out_kernel(buf, out=out, **params) is out
                _compare(out, want)


# ---------------------------------------------------------------- strategies

def _elements(dtype, nan):
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        return st.integers(-20, 20)
    width = 8 * dtype.itemsize // (2 if dtype.kind == "c" else 1)
    big = 1000 if width == 16 else 1e6  # mixed magnitudes: the order of a sum shows in its bits
    finite = st.one_of(st.floats(-20, 20, width=width), st.floats(-big, big, width=width))
    real = st.one_of(finite, finite, finite, st.just(float("nan"))) if nan else finite
    if dtype.kind == "c":
        return st.builds(complex, real, real)
    return real


@st.composite
def data(draw, nan=True, **shape_kw):
    dt = draw(st.sampled_from(DTYPES))
    shape = draw(shapes(**shape_kw))
    return draw(hnp.arrays(dt, shape, elements=_elements(dt, nan)))


@st.composite
def reduce_axis(draw, ndim):
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none" or ndim == 0:
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    axes = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    return tuple(a - ndim if draw(st.booleans()) else a for a in axes)


def _build(fn, *args, **kw):
    """The node, or None where fgraph (like NumPy) refuses these arguments."""
    try:
        return fn(*args, **kw)
    except fgraph.FgraphError:
        return None


# ---------------------------------------------------------------- tests

@settings(max_examples=examples(300))
@given(op=st.sampled_from(REDUCE), a=data(), d=st.data())
def test_reduce(op, a, d):
    kw = {"axis": d.draw(reduce_axis(a.ndim)), "keepdims": d.draw(st.booleans())}
    if op in WITH_DTYPE and d.draw(st.booleans()):
        kw["dtype"] = d.draw(st.sampled_from(CAST_TO))
    if op in VAR_LIKE:
        kw["ddof"] = d.draw(st.sampled_from([0, 1, 2]))
    if op in WITH_INITIAL and d.draw(st.booleans()):
        kw["initial"] = d.draw(st.sampled_from([0, 1, -3, 2.5]))
    if op in WITH_WHERE and d.draw(st.booleans()):
        # a mask shaped like the input, broadcasting to it, or a plain bool
        mshape = d.draw(st.sampled_from([a.shape, a.shape[1:], (1,) * a.ndim]))
        kw["where"] = d.draw(st.one_of(st.booleans(), hnp.arrays(bool, mshape)))
    t = _build(getattr(fnp, op), fnp.asarray(a), **kw)
    if t is not None:
        run_both(t)


@pytest.mark.parametrize("op", REDUCE)
def test_reduce_each_op(op):
    """Every reduction, full (0-d out) and keepdims, on a fixed array with a NaN."""
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 5.5
    a[1, 2, 3] = np.nan
    for axis in (None, 0, -1, (0, 2)):
        for keepdims in (False, True):
            run_both(getattr(fnp, op)(fnp.asarray(a), axis=axis, keepdims=keepdims))


ORDER_SENSITIVE = ["sum", "prod", "mean", "var", "std", "max", "min", "ptp", "nansum", "nanprod", "nanmean",
                   "nanvar", "nanstd", "nanmax", "nanmin", "average"]


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
def test_reduce_any_layout(dtype):
    """Inputs in other layouts (views the engine passes): a C ``out`` would make
    NumPy sum in another order than its own output does, so the bits must
    still be the kernel's (mixed magnitudes make the order visible)."""
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((5, 6, 7)) * 10.0 ** rng.integers(-3, 6, (5, 6, 7))).astype(dtype)
    a[0, 0, :3] = [0.0, -0.0, 0.0]
    if dtype == np.complex64:
        a += 1j * a[::-1]
    for op in ORDER_SENSITIVE:
        for axis in (None, 0, 1, 2, (0, 1), (1, 2), (0, 2)):
            run_both(getattr(fnp, op)(fnp.asarray(a), axis=axis))
    for op in SCAN + ["cumulative_sum", "cumulative_prod"]:
        for axis in (0, 1, 2):
            run_both(getattr(fnp, op)(fnp.asarray(a), axis=axis), inplace_check=True)


@settings(max_examples=examples(150))
@given(op=st.sampled_from(ARG), a=data(), d=st.data())
def test_arg(op, a, d):
    axis = d.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1))) if a.ndim else None
    t = _build(getattr(fnp, op), fnp.asarray(a), axis=axis, keepdims=d.draw(st.booleans()))
    if t is not None:
        run_both(t)


@settings(max_examples=examples(100))
@given(a=data(), d=st.data())
def test_count_nonzero(a, d):
    t = _build(fnp.count_nonzero, fnp.asarray(a), axis=d.draw(reduce_axis(a.ndim)), keepdims=d.draw(st.booleans()))
    if t is not None:
        run_both(t)


@settings(max_examples=examples(150))
@given(a=data(nan=False, min_dims=1), d=st.data())
def test_average(a, d):
    axis = d.draw(reduce_axis(a.ndim))
    weights = None
    kind = d.draw(st.sampled_from(["none", "none", "full", "axis"]))
    if kind == "full":
        weights = d.draw(hnp.arrays(np.float64, a.shape, elements=st.floats(0.5, 3)))
    elif kind == "axis" and isinstance(axis, int):
        weights = d.draw(hnp.arrays(np.float64, (a.shape[axis],), elements=st.floats(0.5, 3)))
    kw = {"axis": axis, "keepdims": d.draw(st.booleans())}
    w = None if weights is None else fnp.asarray(weights)
    res = _build(fnp.average, fnp.asarray(a), weights=w, returned=True, **kw)
    if res is None:
        return
    for t in res:  # the average and the sum of weights: one node each
        run_both(t)
    t = _build(fnp.average, fnp.asarray(a), weights=w, **kw)
    run_both(t)


@settings(max_examples=examples(250))
@given(op=st.sampled_from(SCAN), a=data(), d=st.data())
def test_scan(op, a, d):
    axis = d.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1))) if a.ndim else None
    dtype = d.draw(st.sampled_from(CAST_TO))
    t = _build(getattr(fnp, op), fnp.asarray(a), axis=axis, dtype=dtype)
    if t is not None:
        run_both(t, inplace_check=True)


@settings(max_examples=examples(150))
@given(op=st.sampled_from(["cumulative_sum", "cumulative_prod"]), a=data(max_dims=3), d=st.data())
def test_cumulative(op, a, d):
    axis = d.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1))) if a.ndim else None
    kw = {"axis": axis, "dtype": d.draw(st.sampled_from(CAST_TO)), "include_initial": d.draw(st.booleans())}
    t = _build(getattr(fnp, op), fnp.asarray(a), **kw)
    if t is not None:
        run_both(t, inplace_check=True)


@pytest.mark.parametrize("value", [3, 2.5, True, -1 + 2j])
def test_literal_input(value):
    """Python scalars reach the kernels unlifted: 0-d outs, (1,) for scans."""
    for fn in (fnp.sum, fnp.prod, fnp.mean, fnp.var, fnp.max, fnp.all, fnp.argmax, fnp.nanmax, fnp.nansum,
               fnp.count_nonzero, fnp.average, fnp.nanargmin, fnp.nanvar, fnp.ptp):
        t = _build(fn, value)
        if t is not None:
            assert t.node.inputs[0].op == "literal"
            run_both(t)
    for fn in (fnp.cumsum, fnp.cumprod, fnp.nancumsum, fnp.nancumprod, fnp.cumulative_sum):
        run_both(fn(value), inplace_check=True)


def test_nan_scan_long():
    """NaN-scans fix NaNs chunk by chunk: cover several chunks and their seams."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(100_002)  # 7 * 14286
    a[rng.integers(0, a.size, 500)] = np.nan
    a[32767:32770] = np.nan
    for op in ("nancumsum", "nancumprod"):
        for dtype in (None, np.float32, np.complex128, np.int64):
            run_both(getattr(fnp, op)(fnp.asarray(a), dtype=dtype), inplace_check=True)
            run_both(getattr(fnp, op)(fnp.asarray(a.reshape(7, -1, 1)), axis=1, dtype=dtype), inplace_check=True)


def test_nanarg_all_nan_raises_in_both():
    a = np.array([[1.0, np.nan], [np.nan, np.nan]])
    run_both(fnp.nanargmax(fnp.asarray(a), axis=1))  # both raise ValueError


def test_scans_declare_inplace_and_reductions_do_not():
    inplace = fgraph.attr_table("inplace")
    for op in SCAN + ["cumulative_sum", "cumulative_prod"]:
        spec = inplace[op]
        if callable(spec):  # complex scans are not in place (NumPy rounds overlapping complex products differently)
            assert spec(getattr(fnp, op)(fnp.ones(3)).node) == (0,)
            assert spec(getattr(fnp, op)(fnp.ones(3, "complex64")).node) == ()
        else:
            assert spec == (0,)
    for op in REDUCE + ARG + ["count_nonzero", "average"]:
        assert op not in inplace


# ---------------------------------------------------------------- allocation

N = 1_000_000


def _peak(fn) -> int:
    fn()  # warm up (lazy imports, per-thread scratch)
    return peak_bytes(fn)


def _cases():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(N)
    wide = x.reshape(10, N // 10)  # reduce axis 0: a large output
    tall = x.reshape(N // 10, 10)  # reduce axis -1: a large output
    nanx = x.copy()
    nanx[::7] = np.nan
    mask = x > 0
    f32, i32 = x.astype(np.float32), (x * 10).astype(np.int32)
    return [
        fnp.sum(wide, axis=0), fnp.sum(tall, axis=-1), fnp.prod(wide, axis=0), fnp.mean(wide, axis=0),
        fnp.mean(tall, axis=1, keepdims=True), fnp.max(wide, axis=0), fnp.min(tall, axis=1),
        fnp.all(wide, axis=0), fnp.any(tall, axis=1), fnp.sum(wide, axis=0, where=mask.reshape(wide.shape)),
        fnp.nanmax(nanx.reshape(wide.shape), axis=0), fnp.nanmin(nanx.reshape(tall.shape), axis=1),
        fnp.argmax(tall, axis=-1), fnp.argmin(tall, axis=1), fnp.average(wide, axis=0),
        fnp.count_nonzero(mask.reshape(wide.shape), axis=0),
        fnp.cumsum(x), fnp.cumsum(wide, axis=0), fnp.cumprod(tall, axis=1), fnp.cumsum(f32, dtype=np.float64),
        fnp.cumsum(i32), fnp.cumsum(wide.T), fnp.nancumsum(nanx), fnp.nancumprod(nanx.reshape(wide.shape), axis=1),
        fnp.cumulative_sum(x, include_initial=True), fnp.cumulative_prod(wide, axis=1),
    ]


def _full_cases():
    x = np.random.default_rng(2).standard_normal(N)
    return [fnp.sum(x), fnp.prod(x), fnp.mean(x), fnp.max(x), fnp.all(x), fnp.argmax(x), fnp.nanmin(x),
            fnp.count_nonzero(x), fnp.average(x)]


def _out_peak(t, inplace=False) -> int:
    node = t.node
    out_kernel = fgraph.attr_table("numpy_out_kernel")[node.op]
    # writeable copies, as the engine's intermediates are (NumPy's argmax
    # copies a read-only input to get a writeable contiguous one)
    args = [np.array(a) if isinstance(a, np.ndarray) else a for a in (_leaf(i) for i in node.inputs)]
    params = dict(node.params)
    out = args[0] if inplace else np.empty(node.shape, node.dtype)
    if inplace:
        args[0] = out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _peak(lambda: out_kernel(*args, out=out, **params))


def test_allocation_free():
    """Traced peak of each allocation-free out-kernel: far below its output (and input)."""
    for t in _cases():
        nbytes = int(np.prod(t.shape)) * t.dtype.itemsize
        assert nbytes >= 100_000
        peak = _out_peak(t)
        assert peak < nbytes // 8, f"{t.node.op}{t.shape}: traced peak {peak} B for a {nbytes} B output"
    for t in _full_cases():  # a 0-d out: nothing proportional to the 8 MB input
        peak = _out_peak(t)
        assert peak < 100_000, f"{t.node.op}: traced peak {peak} B"


def test_allocation_free_in_place():
    x = np.random.default_rng(3).standard_normal(N)
    x[::5] = np.nan
    for t in (fnp.cumsum(x), fnp.cumprod(x.reshape(1000, 1000), axis=0), fnp.nancumsum(x),
              fnp.cumulative_sum(x.reshape(1000, 1000), axis=1)):
        peak = _out_peak(t, inplace=True)
        assert peak < N, f"{t.node.op}: traced peak {peak} B in place"


def test_engine_runs_them_in_the_arena():
    """Through the engine: NumPy's bits, a scan in place, and a steady-state run
    allocating about nothing beyond its (small) outputs."""
    a = np.random.default_rng(5).standard_normal((1000, 1000))
    x = fnp.placeholder(a.shape, np.float64, name="x")
    c = fnp.cumsum(fnp.exp(x * 0.001), axis=1)  # may overwrite exp's buffer
    outs = [fnp.sum(c, axis=0), fnp.mean(fnp.nancumsum(c - 1.0, axis=0), axis=1), fnp.argmax(c, axis=1),
            fnp.max(fnp.cumprod(c * 0.999, axis=0), axis=1)]
    exe = fgraph.compile(fgraph.Graph(outs, inputs=[x]))
    assert exe.memory.inplace >= 1
    ce = np.cumsum(np.exp(a * 0.001), axis=1)
    want = [np.sum(ce, axis=0), np.mean(np.nancumsum(ce - 1.0, axis=0), axis=1), np.argmax(ce, axis=1),
            np.max(np.cumprod(ce * 0.999, axis=0), axis=1)]
    exe(x=a)
    peak = _peak(lambda: exe(x=a))
    for g, w in zip(exe(x=a), want):
        _compare(np.asarray(g), w)
    assert peak < 1_000_000, f"steady-state run: traced peak {peak} B (each intermediate is 8 MB)"

"""Out-kernels of the creation ops: ``out`` filled without a full-size
temporary, bit-identical to the kernels (NumPy's own functions).  arange's
fill loop and linspace/logspace/geomspace's arithmetic are replayed a chunk
of rows at a time, so they are tested hard: long ranges, every dtype, NumPy
scalars, arrays of ends, every axis, denormal steps, normal and tiny chunks."""
import numpy as np
from hypothesis import assume, given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import DTYPES, array_of, shapes
from test_out_indexing import INPLACE, OUT_KERNEL, assert_small_peak, check_out

ARRAY_DTYPES = DTYPES + [np.dtype(d) for d in ("int8", "uint8", "uint16", "uint64", "float16", "complex64",
                                               "complex128")]
ALL_DTYPES = ARRAY_DTYPES + [np.dtype("longdouble")]  # hypothesis draws no long double data
dtype_or_none = st.one_of(st.none(), st.sampled_from(ALL_DTYPES))
small_shapes = shapes(max_dims=3, max_side=4)


def built(fn):
    """fn() or None where NumPy (so fgraph, when the node is made) refuses the arguments."""
    try:
        return fn()
    except fgraph.FgraphError:
        return None


def check_all(ts, layouts=True):
    for t in ts if isinstance(ts, (list, tuple)) else [ts]:
        if t is not None:
            check_out(t, layouts=layouts)


# ---------------------------------------------------------------- filled

@given(small_shapes, dtype_or_none,
       st.one_of(st.booleans(), st.integers(-300, 300), st.floats(allow_nan=True, width=32),
                 st.complex_numbers(max_magnitude=1e3, width=64), st.builds(np.float32, st.floats(-10, 10, width=32))))
def test_filled(shape, dtype, fill):
    for make in (lambda: fnp.zeros(shape, dtype), lambda: fnp.ones(shape, dtype),
                 lambda: fnp.full(shape, fill, dtype=dtype), lambda: fnp.full_like(np.zeros(shape), fill, dtype=dtype)):
        check_all(built(make))


@given(st.data())
def test_full_array_fill_and_in_place(data):
    shape = data.draw(shapes(max_dims=3, max_side=3))
    fill = data.draw(array_of(shape=data.draw(st.sampled_from([shape, shape[1:], ()])), lo=-50, hi=50))
    dtype = data.draw(dtype_or_none)
    check_all(built(lambda: fnp.full(shape, fnp.asarray(fill) + 0, dtype=dtype)))  # in place when shapes agree


# ---------------------------------------------------------------- arange

finite = st.floats(-1e3, 1e3, allow_subnormal=False)


@st.composite
def arange_args(draw):
    """(start, stop, step) giving up to a few thousand values: Python and NumPy scalars."""
    kind = draw(st.sampled_from(["int", "float", "numpy"]))
    if kind == "int":
        start, step = draw(st.integers(-10**6, 10**6)), draw(st.integers(-50, 50).filter(bool))
    elif kind == "float":
        start, step = draw(finite), draw(st.one_of(finite, st.sampled_from([0.1, 0.3, -0.7, 1 / 3, 1e-3])))
    else:
        start = draw(st.one_of(st.builds(np.float32, st.floats(-1e3, 1e3, width=32)),
                               st.builds(np.int32, st.integers(-1000, 1000)), st.builds(np.float64, finite)))
        step = draw(st.one_of(st.builds(np.float32, st.floats(-3, 3, width=32)), st.integers(-3, 3), finite))
    assume(step != 0)
    stop = start + step * draw(st.floats(0, 3000))
    return start, stop, step


@given(arange_args(), st.sampled_from([None] + ALL_DTYPES))
def test_arange(args, dtype):
    check_all(built(lambda: fnp.arange(*args, dtype=dtype)))


def test_arange_edges():
    for args in [(0, 1, 0.1), (1, 1.3, 0.1), (10, 0, -0.1), (1e-300, 1e-299, 1e-300), (0, 5, np.inf), (2.5,),
                 (True,), (0, 2, 1, bool), (1 + 2j, 50 + 40j, 1 + 1j, complex), (0, 2**63, 2**62), (0, 3, 1, np.uint8),
                 (250, 300, 3, np.uint8), (-5, 300, 7, np.int8), (0, 2**64 - 1, 2**62, np.uint64),
                 (np.float16(0.1), 500, np.float16(0.7), np.float16), (-0.0, 3, 1.0), (0, 1e5, 1.1, np.float32),
                 (np.int64(3), 10, np.float32(0.5), np.int16), (2**24, 2**24 + 100, 1, np.float32)]:
        dtype = args[3] if len(args) == 4 else None
        check_all(built(lambda: fnp.arange(*args[:3], dtype=dtype)))


# ---------------------------------------------------------------- linspace, logspace, geomspace

space_ends = st.one_of(st.integers(-20, 20), st.floats(-1e3, 1e3), st.builds(np.float32, st.floats(-20, 20, width=32)),
                       st.complex_numbers(max_magnitude=20))
space_dtypes = st.sampled_from([None] + [np.dtype(d) for d in ("float16", "float32", "float64", "int32", "int64",
                                                               "uint8", "bool", "complex64", "longdouble")])


@given(space_ends, space_ends, st.integers(0, 400), st.booleans(), space_dtypes)
def test_linspace_scalars(start, stop, num, endpoint, dtype):
    def make():
        samples, step = fnp.linspace(start, stop, num, endpoint=endpoint, retstep=True, dtype=dtype)
        return [samples, step]
    check_all(built(make))


@given(st.data())
def test_linspace_arrays(data):
    dts = [np.dtype(d) for d in ("int32", "int64", "float16", "float32", "float64")]
    a = data.draw(array_of(dtypes=dts, shape=data.draw(shapes(max_dims=2, max_side=3)), lo=-10, hi=10))
    b = data.draw(array_of(dtypes=dts, shape=data.draw(shapes(max_dims=2, max_side=3)), lo=-10, hi=10))
    num, axis = data.draw(st.integers(0, 40)), data.draw(st.integers(-3, 2))
    endpoint, dtype = data.draw(st.booleans()), data.draw(space_dtypes)
    check_all(built(lambda: list(fnp.linspace(a, fnp.asarray(b) + 0, num, endpoint=endpoint, retstep=True,
                                              dtype=dtype, axis=axis))))
    check_all(built(lambda: fnp.linspace(a, 3.5, num, endpoint=endpoint, axis=axis)))


def test_linspace_denormal_and_zero_steps():
    for args in [(0, 5e-324, 10), (0.0, 1e-310, 7), (np.zeros(3), np.full(3, 5e-324), 6), (3.0, 3.0, 5),
                 (np.array([0.0, 1.0]), np.array([5e-324, 2.0]), 4), (-0.0, 0.0, 3), (1.0, np.inf, 4)]:
        check_all(built(lambda: list(fnp.linspace(*args, retstep=True))))


@given(space_ends, space_ends, st.integers(0, 200), st.booleans(),
       st.one_of(st.sampled_from([2, 10.0, 0.5, np.float32(3)]), st.floats(0.5, 4)), space_dtypes)
def test_logspace_scalars(start, stop, num, endpoint, base, dtype):
    assume(abs(complex(start)) < 10 and abs(complex(stop)) < 10)
    check_all(built(lambda: fnp.logspace(start, stop, num, endpoint=endpoint, base=base, dtype=dtype)))


def test_logspace_power_never_in_place():
    """With chunks of 2 rows the last chunk here is one element: NumPy's
    float32 power in place on it takes the scalar loop (5.1857376), not the
    SIMD one of NumPy's logspace (5.185737)."""
    check_all(fnp.logspace(np.float32(0), 2, 3, base=2.2772214597711704))
    check_all(fnp.logspace(np.float32(0), np.float32(2), 3, base=np.float32(2.2772214597711704), axis=0))
    check_all(fnp.geomspace(np.float32(1), np.float32(7.3), 3, endpoint=False))


@given(st.data())
@settings(max_examples=examples(40))
def test_logspace_arrays(data):
    dts = [np.dtype(d) for d in ("int32", "float32", "float64")]
    a = data.draw(array_of(dtypes=dts, shape=data.draw(shapes(max_dims=2, max_side=3)), lo=-3, hi=3))
    b = data.draw(array_of(dtypes=dts, shape=data.draw(shapes(max_dims=2, max_side=3)), lo=-3, hi=3))
    base = data.draw(array_of(dtypes=dts, shape=data.draw(shapes(max_dims=2, max_side=3)), lo=1, hi=4))
    num, axis = data.draw(st.integers(0, 30)), data.draw(st.integers(-3, 2))
    dtype = data.draw(space_dtypes)
    # contiguous inputs only: NumPy's float32 power itself differs by an ulp between a
    # strided base (a scalar loop) and a contiguous one (SIMD), so no kernel can match both
    check_all(built(lambda: fnp.logspace(a, b, num, base=fnp.asarray(base) + 0, axis=axis, dtype=dtype)),
              layouts=False)
    check_all(built(lambda: fnp.logspace(a, b, num, axis=axis)), layouts=False)


nonzero_ends = st.one_of(st.integers(1, 1000), st.integers(-1000, -1), st.floats(0.01, 1e3), st.floats(-1e3, -0.01),
                         st.builds(np.float32, st.floats(0.5, 100, width=32)), st.sampled_from([1j, -2 + 1j, 1 - 1j]))


@given(nonzero_ends, nonzero_ends, st.integers(0, 200), st.booleans(),
       st.sampled_from([None, np.dtype("float32"), np.dtype("complex128"), np.dtype("int64"), np.dtype("float16")]))
def test_geomspace_scalars(start, stop, num, endpoint, dtype):
    check_all(built(lambda: fnp.geomspace(start, stop, num, endpoint=endpoint, dtype=dtype)))


@given(st.data())
@settings(max_examples=examples(40))
def test_geomspace_arrays(data):
    dts = [np.dtype(d) for d in ("int64", "float32", "float64")]
    a = data.draw(array_of(dtypes=dts, shape=data.draw(shapes(max_dims=2, max_side=3)), lo=-50, hi=50))
    b = data.draw(array_of(dtypes=dts, shape=data.draw(shapes(max_dims=2, max_side=3)), lo=1, hi=50))
    num, axis = data.draw(st.integers(0, 30)), data.draw(st.integers(-3, 2))
    check_all(built(lambda: fnp.geomspace(fnp.asarray(a) + 0, b, num, endpoint=data.draw(st.booleans()), axis=axis)))


# ---------------------------------------------------------------- matrices and grids

@given(st.integers(0, 7), st.one_of(st.none(), st.integers(0, 7)), st.integers(-9, 9), dtype_or_none)
def test_eye_tri(n, m, k, dtype):
    check_all([built(lambda: fnp.eye(n, m, k, dtype=dtype)), built(lambda: fnp.tri(n, m, k, dtype=dtype))])


@given(array_of(dtypes=ARRAY_DTYPES, min_dims=1, max_dims=4, max_side=5), st.integers(-7, 7))
def test_tril_triu(a, k):
    x = fnp.asarray(a) + 0 if a.dtype.kind in "iuf" else fnp.asarray(a)  # in place when lazy and 2-D or more
    check_all([built(lambda: fnp.tril(x, k)), built(lambda: fnp.triu(x, k=k)), built(lambda: fnp.tril(a, 10**20))])


@given(st.lists(array_of(dtypes=ARRAY_DTYPES, max_dims=2, max_side=3), min_size=1, max_size=4),
       st.sampled_from(["xy", "ij"]), st.booleans())
def test_meshgrid(arrays, indexing, sparse):
    check_all(fnp.meshgrid(*arrays, indexing=indexing, sparse=sparse))


@given(st.lists(st.integers(0, 4), max_size=4), st.sampled_from([int, np.int32, np.float64, np.uint8]), st.booleans())
@settings(max_examples=examples(30))
def test_indices(dims, dtype, sparse):
    check_all(fnp.indices(dims, dtype=dtype, sparse=sparse))


# ---------------------------------------------------------------- attributes and allocation

def test_out_kernels_and_in_place_attributes():
    for op in ("zeros", "ones", "full", "arange", "linspace", "linspace_step", "logspace", "geomspace", "eye", "tri",
               "tril", "triu", "meshgrid", "indices"):
        assert op in OUT_KERNEL
    assert INPLACE["tril"] == INPLACE["triu"] == INPLACE["meshgrid"] == (0,)
    full = fnp.full((2, 3), fnp.asarray(np.ones(3))).node
    assert INPLACE["full"](full) == (0,) and INPLACE["full"](fnp.full((2, 3), 1.5).node) == ()
    assert "arange" not in INPLACE and "linspace" not in INPLACE


def test_out_kernels_do_not_allocate_the_output():
    """Outputs of 1e6 elements or more (at least 4 MB): filled in place or a chunk of rows at a time."""
    n = 1_000_000
    m = np.random.default_rng(0).standard_normal((1000, 1000))
    grid = np.arange(1000.0)
    for t in [fnp.zeros(n), fnp.ones((1000, 1000), np.int64), fnp.full(n, 2.5), fnp.full((1000, 1000), grid),
              fnp.arange(n, dtype=np.float64), fnp.arange(3, 3 + 2 * n, 2), fnp.arange(0.5, n / 5, 0.1, np.float32),
              fnp.arange(0, n, 1, np.complex128), fnp.arange(2 * n, dtype=np.float16),
              fnp.linspace(0, 1, n), fnp.linspace(np.zeros(1000), np.ones(1000), 1000, axis=1),
              fnp.linspace(0, 100, n, dtype=np.int64), fnp.logspace(0, 2, n), fnp.logspace(0, 2, n, base=grid[3:4]),
              fnp.geomspace(1, 1000, n), fnp.geomspace(-1, -1000, 2 * n, dtype=np.float32),
              fnp.eye(1000), fnp.eye(1000, k=-3), fnp.tri(1000, 1000, 2), fnp.tril(m, -1), fnp.triu(m, 1),
              fnp.tril(m[0]), fnp.meshgrid(grid, grid)[0], fnp.indices((1000, 500))]:
        assert_small_peak(t)

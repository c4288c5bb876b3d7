"""Out-kernels of the sorting ops: bit-identical to the kernels (unstable
kinds, NaN, -0.0 and ties included) on contiguous and strided inputs, with
normal and tiny chunks, in place where declared; and the allocation claims."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import DTYPES, FLOAT_DTYPES, METHODS, arrays, axis_arg, shapes
from test_out_indexing import INPLACE, OUT_KERNEL, assert_small_peak, check_out

SORT_DTYPES = DTYPES + [np.dtype("complex128")]
KINDS = [None, "quicksort", "mergesort", "heapsort", "stable"]


@st.composite
def sortable(draw, dtypes=SORT_DTYPES, min_dims=0, max_dims=3, max_side=6):
    """Arrays with many ties, and for floats NaN, -0.0 and infinities (the hard cases)."""
    dt = draw(st.sampled_from(dtypes))
    shape = draw(shapes(min_dims=min_dims, max_dims=max_dims, max_side=max_side))
    if dt.kind == "f":
        elems = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.nan, -np.nan, np.inf, -np.inf])
        return draw(hnp.arrays(dt, shape, elements=elems))
    if dt.kind == "c":
        part = st.sampled_from([0.0, -0.0, 1.0, -1.0, np.nan])
        return draw(hnp.arrays(dt, shape, elements=st.builds(complex, part, part)))
    return draw(arrays(dt, shape, -3, 3))


def axis_of(draw, a, allow_none=True):
    choices = list(range(-a.ndim, a.ndim)) + [None] * allow_none
    return draw(st.sampled_from(choices)) if choices else None


def built(fn):
    """fn() or None where NumPy (so fgraph, when the node is made) refuses the arguments."""
    try:
        return fn()
    except fgraph.FgraphError:
        return None


# ---------------------------------------------------------------- sort, argsort

@given(a=sortable(), data=st.data())
def test_sort_and_argsort(a, data):
    axis = axis_of(data.draw, a)
    how = data.draw(st.sampled_from([("kind", k) for k in KINDS] + [("stable", True), ("stable", False),
                                                                      ("descending", True)]))
    kw = {how[0]: how[1]}
    for fn in (fnp.sort, fnp.argsort):
        t = built(lambda: fn(fnp.asarray(a), axis=axis, **kw))
        if t is not None:
            check_out(t)


def test_sort_descending_in_place_and_long_lanes():
    """The blockwise reversal on every axis, lanes longer than a chunk, in place."""
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, (5, 40, 3)).astype(np.float64)
    a[a == 0] = -0.0
    for axis in (0, 1, 2, -1, None):
        for descending in (False, True):
            check_out(fnp.sort(fnp.asarray(a), axis=axis, descending=descending))
            check_out(fnp.argsort(fnp.asarray(a), axis=axis, descending=descending))


# ---------------------------------------------------------------- partition

@given(a=sortable(min_dims=1), data=st.data())
def test_partition_and_argpartition(a, data):
    axis = axis_of(data.draw, a)
    n = a.size if axis is None else a.shape[axis]
    k = st.integers(-n, max(n - 1, -n))
    kth = data.draw(st.one_of(k, st.lists(k, min_size=1, max_size=3)))
    for fn in (fnp.partition, fnp.argpartition):
        t = built(lambda: fn(fnp.asarray(a), kth, axis=axis))
        if t is not None:
            check_out(t)


def test_zero_d():
    x = np.array(1.5)
    for t in (fnp.sort(x, axis=None), fnp.argsort(x), fnp.partition(x, 0, axis=None), fnp.argpartition(x, 0)):
        check_out(t)


# ---------------------------------------------------------------- lexsort, sort_complex

@given(data=st.data())
def test_lexsort(data):
    shape = data.draw(shapes(max_dims=3, max_side=5))
    keys = [data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shape, -2, 2))
            for _ in range(data.draw(st.integers(1, 3)))]
    axis = data.draw(st.sampled_from(list(range(-len(shape), len(shape))) or [-1]))
    t = built(lambda: fnp.lexsort([fnp.asarray(k) for k in keys], axis=axis))
    if t is not None:
        check_out(t)


@given(a=sortable(dtypes=SORT_DTYPES + [np.dtype(d) for d in ("float32", "float16", "int8", "uint16",
                                                               "complex64")], min_dims=1, max_dims=2))
def test_sort_complex(a):
    check_out(fnp.sort_complex(fnp.asarray(a)))


# ---------------------------------------------------------------- order statistics


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@settings(max_examples=examples(40))
@given(data=st.data())
def test_median(name, data):
    a = data.draw(sortable(dtypes=DTYPES, max_dims=3, max_side=4))
    axis, keepdims = axis_arg(data.draw, a), data.draw(st.booleans())
    t = built(lambda: getattr(fnp, name)(fnp.asarray(a), axis=axis, keepdims=keepdims))
    if t is not None:
        check_out(t)


@pytest.mark.parametrize("name", ["percentile", "quantile", "nanpercentile", "nanquantile"])
@settings(max_examples=examples(40))
@given(data=st.data())
def test_percentile_and_quantile(name, data):
    a = data.draw(sortable(dtypes=DTYPES, max_dims=3, max_side=4))
    top = 100 if "percentile" in name else 1
    q = data.draw(st.one_of(st.floats(0, top), st.integers(0, top), st.just(top * 1.5),  # NumPy raises for 1.5
                            hnp.arrays(data.draw(st.sampled_from(FLOAT_DTYPES)), shapes(max_dims=2, max_side=3),
                                       elements=st.floats(0, top, width=32))))
    q = fnp.asarray(q) + 0 if isinstance(q, np.ndarray) and data.draw(st.booleans()) else q
    t = built(lambda: getattr(fnp, name)(fnp.asarray(a), q, axis=axis_arg(data.draw, a),
                                         method=data.draw(st.sampled_from(METHODS)),
                                         keepdims=data.draw(st.booleans())))
    if t is not None:
        check_out(t)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_weighted_quantile(data):
    a = data.draw(arrays(data.draw(st.sampled_from(FLOAT_DTYPES)), shapes(min_dims=1, max_dims=2, min_side=1,
                                                                         max_side=4)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    w = data.draw(arrays(np.float64, data.draw(st.sampled_from([a.shape, (a.shape[axis],)])), 0, 3))
    q = data.draw(st.floats(0, 1))
    check_out(fnp.quantile(fnp.asarray(a), q, axis=axis, method="inverted_cdf", weights=fnp.asarray(w)))
    check_out(fnp.nanpercentile(fnp.asarray(a), 100 * q, axis=axis, method="inverted_cdf", weights=w))


# ---------------------------------------------------------------- attributes and allocation

def test_out_kernels_and_in_place_attributes():
    for op in ("sort", "argsort", "partition", "argpartition", "lexsort", "sort_complex", "median", "nanmedian",
               "percentile", "nanpercentile", "quantile", "nanquantile"):
        assert op in OUT_KERNEL
    assert INPLACE["sort"] == INPLACE["partition"] == INPLACE["sort_complex"] == (0,)
    assert not {"argsort", "argpartition", "lexsort", "median", "quantile"} & set(INPLACE)


def test_out_kernels_do_not_allocate_the_output():
    """Outputs of 1e6 elements: sorts run in out itself; the index-valued ops
    on lanes of a few thousand; sort_complex of complex input in out."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1_000_000)
    m = x.reshape(1000, 1000)
    assert_small_peak(fnp.sort(x))
    assert_small_peak(fnp.sort(m, axis=1, kind="stable"))
    assert_small_peak(fnp.sort(m, axis=None))
    assert_small_peak(fnp.sort(m, axis=1, descending=True))
    assert_small_peak(fnp.sort(m, axis=0, descending=True), [m])  # strided lanes: NumPy buffers one lane
    assert_small_peak(fnp.partition(x, 10))
    assert_small_peak(fnp.partition(m, (3, 500), axis=1))
    assert_small_peak(fnp.argsort(m, axis=1))
    assert_small_peak(fnp.argsort(m, axis=0, descending=True))
    assert_small_peak(fnp.argpartition(m, 5, axis=1))
    assert_small_peak(fnp.lexsort([m, -m], axis=1))
    assert_small_peak(fnp.sort_complex(m.astype(np.complex128)))
    assert_small_peak(fnp.sort_complex(rng.integers(0, 9, (1000, 1000))))

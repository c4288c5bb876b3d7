"""Out-kernels of the indexing ops (memory planning): each ``numpy_out_kernel``
writes into a given buffer exactly what the op's ``numpy_kernel`` returns, bit
for bit, on contiguous and strided inputs, with the normal chunk size and a
tiny one (so the piecewise paths run on small arrays); in-place ops also run
with ``out`` being the input's own memory.  A tracemalloc test checks that the
allocation-free claims hold on large arrays.

``check_out`` and ``small_chunks`` are shared with test_out_sorting.py and
test_out_creation.py.
"""
import contextlib
import warnings

import numpy as np
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import fgraph
import fgraph.numpy as fnp
from fgraph.bench.timing import peak_bytes
from fgraph.ops import creation_kernels as k_creation, indexing_kernels as k_indexing
from fgraph.ops import sorting_kernels as k_sorting
from oracle import DTYPES, arrays, shapes

KERNEL = fgraph.attr_table("numpy_kernel")
OUT_KERNEL = fgraph.attr_table("numpy_out_kernel")
INPLACE = fgraph.attr_table("inplace")
INDEX_DTYPES = [np.dtype(d) for d in ("intp", "int32", "uint8")]


# ---------------------------------------------------------------- the shared checker

@contextlib.contextmanager
def small_chunks(n=2):
    """Run the chunked paths with pieces of ``n`` elements (one slab each)."""
    saved = [(m, m.CHUNK) for m in (k_indexing, k_sorting, k_creation)]
    try:
        for m, _ in saved:
            m.CHUNK = n
        yield
    finally:
        for m, c in saved:
            m.CHUNK = c


def _value(node):
    """A node's input as the engine passes it: a constant's array, a literal's Python scalar, else evaluated."""
    if node.op == "constant":
        return node.param("value").array
    if node.op == "literal":
        return node.param("value").value
    return np.asarray(fgraph.Tensor(node).eval())


def strided(x, reverse=False):
    """``x``'s values in a non-contiguous array (every other element of a
    larger buffer, or with negative strides)."""
    if not isinstance(x, np.ndarray) or x.ndim == 0:
        return x
    if reverse:
        v = np.empty_like(x)[tuple(slice(None, None, -1) for _ in x.shape)]
    else:
        v = np.empty(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)[..., ::2]
    v[...] = x
    return v


def _garbage(shape, dtype):
    out = np.empty(shape, dtype)
    out.reshape(-1).view(np.uint8)[:] = 0xA5  # no out-kernel may rely on what out held
    return out


def _bytes(a):
    """The bytes of a's values; x87 long doubles keep 10 of their 16 (the rest is padding)."""
    a = np.ascontiguousarray(a)
    if a.dtype.char in "gG" and np.finfo(np.longdouble).nmant == 63:
        return a.reshape(-1).view(np.uint8).reshape(-1, 16)[:, :10].tobytes()
    return a.tobytes()


def same_bits(got, want):
    """Identical shape, dtype and bytes (so -0.0 and NaN payloads count)."""
    want = np.asarray(want)
    np.testing.assert_array_equal(got, want, strict=True)
    assert _bytes(got) == _bytes(want)


def _run(fn, *args, **kwargs):
    """(result, None) or (None, the exception's type)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                return fn(*args, **kwargs), None
            except Exception as e:  # noqa: BLE001 -- compared with the other kernel's
                return None, type(e)


def check_out(t, args=None, layouts=True):
    """Compare node ``t``'s out-kernel with its kernel on its inputs, bit for bit.

    Both run on the same inputs (contiguous, then strided where ``layouts``),
    the out-kernel with the normal and a tiny chunk size; where the kernel
    raises, the out-kernel must raise the same exception type.  For ops
    declaring ``inplace``, the out-kernel also runs with ``out`` being the
    input's own buffer.  Returns the kernel's result.
    """
    node = t.node if isinstance(t, fgraph.Tensor) else t
    if args is None:
        args = [_value(i) for i in node.inputs]
    params = dict(node.params)
    kernel, out_kernel = KERNEL[node.op], OUT_KERNEL[node.op]
    variants = [args]
    if layouts:
        variants += [[strided(a) for a in args], [strided(a, reverse=True) for a in args]]
    first = None
    for vargs in variants:
        want, err = _run(kernel, *vargs, **params)
        if want is not None:
            want = np.asarray(want)
            assert want.shape == node.shape and want.dtype == node.dtype, (want.shape, want.dtype, node)
        first = want if first is None else first
        for chunks in (None, 2):
            out = _garbage(node.shape, node.dtype)
            with small_chunks(chunks) if chunks else contextlib.nullcontext():
                got, got_err = _run(out_kernel, *vargs, out=out, **params)
            assert got_err == err, f"{node.op}: kernel raised {err}, out-kernel {got_err}"
            if err is None:
                assert got is out, f"{node.op}: the out-kernel must return out itself"
                same_bits(out, want)
    spec = INPLACE.get(node.op, ())
    for i in spec(node) if callable(spec) else spec:
        x = args[i] if i < len(args) else None
        if isinstance(x, np.ndarray) and x.shape == node.shape and x.dtype.itemsize == node.dtype.itemsize \
                and first is not None:
            buf = np.array(x, order="C", copy=True)
            out = buf.view(node.dtype)  # the output's dtype over the input's bytes, as the arena gives it
            got, err = _run(out_kernel, *args[:i], buf, *args[i + 1:], out=out, **params)
            assert err is None and got is out
            same_bits(out, first)
    return first


# ---------------------------------------------------------------- getitem: slice, advanced_index

@st.composite
def keys(draw, shape):
    """A key with ints, slices, index arrays (a few dtypes, broadcastable) and
    None / Ellipsis / 0-d booleans anywhere; returns (key, node inputs made lazy or not)."""
    ndim = len(shape)
    kinds = draw(st.lists(st.sampled_from(["array", "int", "slice", "full"]), min_size=ndim, max_size=ndim))
    n_arrays = kinds.count("array")
    bshapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=max(n_arrays, 1), max_dims=2, max_side=3)).input_shapes
    entries, k = [], 0
    for kind, n in zip(kinds, shape):
        if kind == "array" or kind == "int" and n == 0:
            dt = draw(st.sampled_from(INDEX_DTYPES))
            lo = 0 if dt.kind == "u" else -n
            idx = draw(hnp.arrays(dt, bshapes[k % len(bshapes)], elements=st.integers(lo, max(n - 1, lo))))
            k += 1
            entries.append(fnp.asarray(idx) + 0 if draw(st.booleans()) else idx)  # lazy, or a constant
        elif kind == "int":
            entries.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            entries.append(slice(draw(st.integers(-n - 1, n + 1)), draw(st.integers(-n - 1, n + 1)),
                                 draw(st.sampled_from([1, 2, -1, -2]))))
        else:
            entries.append(slice(None))
    if draw(st.booleans()):  # an Ellipsis standing for some (or no) axes
        cut = draw(st.integers(0, len(entries)))
        entries = entries[:cut] + [Ellipsis] + entries[cut + draw(st.integers(0, len(entries) - cut)):]
    for _ in range(draw(st.integers(0, 2))):
        entries.insert(draw(st.integers(0, len(entries))), draw(st.sampled_from([None, None, True])))
    return tuple(entries)


def _nodes_of(t):
    """The slice / advanced_index nodes a getitem made."""
    node, found = t.node, []
    while node.op in ("slice", "advanced_index"):
        found.append(node)
        node = node.inputs[0]
    return found


@given(a=st.sampled_from(DTYPES).flatmap(lambda dt: arrays(dt, shapes(max_dims=3, max_side=4))), data=st.data())
def test_getitem(a, data):
    key = data.draw(keys(a.shape))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            t = fnp.asarray(a)[key]
        except fgraph.FgraphError:
            return  # NumPy's own refusals are test_indexing.py's business
    for node in _nodes_of(t):
        check_out(node)


def test_advanced_index_paths():
    """The np.take fast path and each piecewise layout, on purpose."""
    x = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)
    i = np.array([[3, -1], [0, 2]], dtype=np.intp)
    j = np.array([1, 4], dtype=np.int32)
    for key in [(i,), (slice(None), i), (1, i), (slice(None), 2, i), (i, slice(None), 0), (0, slice(None), i),
                (i, j), (slice(None), i, j), (i, slice(None), j), (i, None, j), (np.array(2), slice(None)),
                (slice(None), np.array(1), 3), (Ellipsis, i), (True, i)]:
        for node in _nodes_of(fnp.asarray(x)[key]):
            check_out(node)
    t = fnp.asarray(x)[fnp.asarray(i) + 0]
    check_out(t, [x, np.array([[3, 7]])])  # out of range at run time: IndexError from both


# ---------------------------------------------------------------- take, take_along_axis

@given(a=st.sampled_from(DTYPES).flatmap(lambda dt: arrays(dt, shapes(max_dims=3, max_side=4))), data=st.data())
def test_take(a, data):
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1))) if a.ndim else None
    n = a.size if axis is None else a.shape[axis]
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    lo, hi = (-n, n - 1) if mode == "raise" and n else (-2 * n - 2, 2 * n + 2)
    dt = data.draw(st.sampled_from(INDEX_DTYPES + [np.dtype(bool)]))
    lo = 0 if dt.kind in "ub" else lo
    idx = data.draw(hnp.arrays(dt, shapes(max_dims=2, max_side=3),
                               elements=st.integers(lo, hi) if dt != bool else st.booleans()))
    lazy = data.draw(st.booleans())
    t = fnp.take(fnp.asarray(a), fnp.asarray(idx) + 0 if lazy else idx, axis=axis, mode=mode) if lazy or n else None
    if t is not None:
        check_out(t)
        if mode == "raise" and idx.dtype.kind == "i" and idx.size:  # a lazy index out of range
            check_out(t, [a, np.full_like(idx, n)])
    k = data.draw(st.integers(lo, max(hi, lo)))
    check_out(fnp.take(fnp.asarray(a), fnp.asarray(k) + 0, axis=axis, mode=mode))


@given(data=st.data())
def test_take_along_axis(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=4))
    a = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shape))
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    if axis is None:
        ishape, n = (data.draw(st.integers(0, 4)),), a.size
    else:
        ishape = tuple(data.draw(st.sampled_from([d, 1])) if i != axis % len(shape) else data.draw(st.integers(0, 4))
                       for i, d in enumerate(shape))
        n = shape[axis]
    dt = data.draw(st.sampled_from(INDEX_DTYPES[:2]))
    idx = data.draw(hnp.arrays(dt, ishape, elements=st.integers(-n, max(n - 1, -n)) if n else st.just(0)))
    t = fnp.take_along_axis(fnp.asarray(a), fnp.asarray(idx) + 0, axis=axis)
    check_out(t)
    if idx.size:
        check_out(t, [a, np.full_like(idx, n)])  # out of range: both raise


# ---------------------------------------------------------------- select, choose

@given(data=st.data())
def test_select(data):
    k = data.draw(st.integers(1, 3))
    bs = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2 * k + 1, max_dims=3, max_side=3)).input_shapes
    conds = [fnp.asarray(data.draw(arrays(bool, s))) for s in bs[:k]]
    choices = [fnp.asarray(data.draw(arrays(data.draw(st.sampled_from(DTYPES)), s, -5, 5))) if data.draw(st.booleans())
               else data.draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5), st.booleans())) for s in bs[k:2 * k]]
    default = data.draw(st.one_of(st.just(0), st.floats(-5, 5), arrays(data.draw(st.sampled_from(DTYPES)), bs[-1])))
    check_out(fnp.select(conds, choices, default))


@given(data=st.data())
def test_choose(data):
    k = data.draw(st.integers(1, 3))
    bs = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=k + 1, max_dims=3, max_side=3)).input_shapes
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    hi = k - 1 if mode == "raise" else k + 2
    a = data.draw(hnp.arrays(data.draw(st.sampled_from(INDEX_DTYPES[:2])), bs[0], elements=st.integers(-1, hi)))
    dt = data.draw(st.sampled_from(DTYPES))
    same = data.draw(st.booleans())  # all choices of one dtype: the np.choose(out=) path
    choices = [data.draw(arrays(dt if same else data.draw(st.sampled_from(DTYPES)), s, -5, 5))
               if same or data.draw(st.booleans()) else data.draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5)))
               for s in bs[1:]]
    check_out(fnp.choose(a, choices, mode=mode))
    check_out(fnp.choose(fnp.asarray(a) + 0, choices, mode=mode))


# ---------------------------------------------------------------- searchsorted, unravel / ravel

@given(data=st.data())
def test_searchsorted(data):
    dt = data.draw(st.sampled_from(DTYPES))
    a = np.sort(data.draw(arrays(dt, shapes(min_dims=1, max_dims=1, max_side=6), -4, 4)))
    v = data.draw(st.one_of(arrays(data.draw(st.sampled_from(DTYPES)), shapes(max_dims=2, max_side=4), -5, 5),
                            st.integers(-5, 5), st.floats(-5, 5)))
    side = data.draw(st.sampled_from(["left", "right"]))
    check_out(fnp.searchsorted(a, v, side=side))
    u = np.random.default_rng(a.size).permutation(a)
    s = np.argsort(u, kind="stable").astype(data.draw(st.sampled_from(INDEX_DTYPES[:2])))
    check_out(fnp.searchsorted(u, np.asarray(v), side=side, sorter=s))


@given(data=st.data())
def test_unravel_and_ravel_multi_index(data):
    dims = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    size = int(np.prod(dims))
    order = data.draw(st.sampled_from(["C", "F"]))
    dt = data.draw(st.sampled_from([np.dtype(np.intp), np.dtype(np.int32), np.dtype(np.uint64)]))
    idx = data.draw(hnp.arrays(dt, shapes(max_dims=2, max_side=4), elements=st.integers(0, size - 1)))
    for out in fnp.unravel_index(fnp.asarray(idx) + 0, dims, order=order):
        check_out(out)
        if idx.size:
            check_out(out, [np.full_like(idx, size)])  # out of range: both raise
    check_out(fnp.unravel_index(int(idx.reshape(-1)[0]) if idx.size else 0, dims, order=order)[0])
    multi = [data.draw(hnp.arrays(np.int64, data.draw(st.sampled_from([(), (1,), (3,), (2, 3)])),
                                  elements=st.integers(-1, d))) for d in dims]
    mode = data.draw(st.one_of(st.sampled_from(["raise", "wrap", "clip"]),
                               st.tuples(*[st.sampled_from(["raise", "wrap", "clip"])] * len(dims))))
    try:
        t = fnp.ravel_multi_index(tuple(fnp.asarray(m) + 0 for m in multi), dims, mode=mode, order=order)
    except fgraph.FgraphError:
        return  # shapes that do not broadcast
    check_out(t)


# ---------------------------------------------------------------- attributes and allocation

def test_every_indexing_op_has_an_out_kernel_and_in_place_is_declared():
    for op in ("slice", "advanced_index", "take", "take_along_axis", "select", "choose", "searchsorted",
               "unravel_index", "ravel_multi_index"):
        assert op in OUT_KERNEL
    assert INPLACE["unravel_index"] == (0,)
    assert "take" not in INPLACE and "advanced_index" not in INPLACE


def traced_peak(fn, *args, **kwargs):
    """Bytes tracemalloc saw at the peak of one call (after a warm-up call)."""
    fn(*args, **kwargs)
    return peak_bytes(lambda: fn(*args, **kwargs))


def assert_small_peak(t, args=None):
    """The out-kernel's traced peak is well below the size of its output (at
    least 4 MB here): an eighth at most, where the chunked paths stay near
    256 KiB and the others near nothing."""
    node = t.node
    args = [_value(i) for i in node.inputs] if args is None else args
    out = np.empty(node.shape, node.dtype)
    assert out.nbytes >= 4e6
    peak = traced_peak(OUT_KERNEL[node.op], *args, out=out, **dict(node.params))
    assert peak < out.nbytes / 8, f"{node.op}: peak {peak} bytes for an output of {out.nbytes}"


def test_out_kernels_do_not_allocate_the_output():
    """Outputs of 1e6 float64 (8 MB); inputs writeable (np.take copies a
    read-only index) or read-only (then it gets the index in pieces)."""
    rng = np.random.default_rng(0)
    n = 1_000_000
    x = rng.standard_normal(n)
    m = x.reshape(1000, 1000)
    idx = rng.integers(-n, n, n)
    i1, i2 = rng.integers(0, 1000, 1000), rng.integers(-1000, 1000, (1000, 1000))
    frozen = idx.copy()
    frozen.flags.writeable = False
    lazy = fnp.asarray(idx) + 0
    assert_small_peak(fnp.asarray(x)[lazy], [x, idx])                      # np.take into out
    assert_small_peak(fnp.asarray(x)[lazy], [x, frozen])                   # np.take, index in pieces
    assert_small_peak(fnp.asarray(m)[:, fnp.asarray(i1) + 0], [m, i1])     # np.take along axis 1
    assert_small_peak(fnp.asarray(m)[:, fnp.asarray(i1) + 0])              # read-only index: pieces
    assert_small_peak(fnp.asarray(m)[fnp.asarray(i1) + 0], [m.T, i1])      # strided source: pieces
    assert_small_peak(fnp.asarray(m)[fnp.asarray(i2) + 0, 999 - fnp.asarray(i2 % 1000)])  # two index arrays
    assert_small_peak(fnp.take(x, lazy, mode="raise"), [x, idx])
    assert_small_peak(fnp.take(x, lazy, mode="wrap"), [x, frozen])
    assert_small_peak(fnp.take(m, fnp.asarray(i1) + 0, axis=1, mode="clip"), [m.T, i1])
    assert_small_peak(fnp.take_along_axis(m, fnp.asarray(i2) + 0, axis=1))
    assert_small_peak(fnp.take_along_axis(x, lazy, axis=0), [x, idx])
    assert_small_peak(fnp.select([x > 0, x < -1], [x, 2.0 * x], 0.0))
    assert_small_peak(fnp.choose(fnp.asarray(idx % 2) + 0, [x, -x]), [idx % 2, x, -x])
    assert_small_peak(fnp.choose(fnp.asarray((idx % 2).astype(np.int32)) + 0, [x, 1.0]))
    assert_small_peak(fnp.searchsorted(np.sort(x[:1000]), x))
    assert_small_peak(fnp.unravel_index(fnp.asarray(np.abs(idx)) + 0, (1000, 1000))[1])
    assert_small_peak(fnp.ravel_multi_index((fnp.asarray(i2 % 1000) + 0, 7), (1000, 1000)))

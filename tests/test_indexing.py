"""Oracle tests for indexing: ``t[key]`` (basic, advanced, mixed), take,
take_along_axis, select, choose, searchsorted, unravel/ravel_multi_index,
and the refusals (boolean masks, data-dependent shapes, mutation)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.registry import get_attr
from oracle import DTYPES, array_of, arrays, check, shapes

INDEX_DTYPES = [np.dtype(d) for d in ("int64", "int32", "uint8", "int16")]


# ---------------------------------------------------------------- key strategies

def int_entry(n, lo=None, hi=None):
    """An integer index for an axis of length n, as any type NumPy takes as an integer."""
    lo = -n if lo is None else lo
    hi = n - 1 if hi is None else hi
    if hi < lo:
        return st.nothing()
    return st.integers(lo, hi).flatmap(lambda k: st.sampled_from(
        [k, np.int64(k), np.intp(k), np.array(k)] + ([np.int32(k)] if abs(k) < 2**31 else [])))


def slice_entry(n, invalid=False):
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2), st.integers(-n - 2, n + 2).map(np.int64))
    step = st.one_of(st.none(), st.sampled_from([1, 2, 3, -1, -2, -3] + [0] * invalid), st.just(np.int32(-1)))
    return st.builds(slice, bound, bound, step)


@st.composite
def basic_keys(draw, shape, invalid=False):
    """A random basic key: ints, slices (any step), None, Ellipsis, as NumPy reads them.

    With ``invalid``, integers may be out of range and there may be one
    index too many (NumPy raises; fgraph must raise too).
    """
    ndim = len(shape)
    ellipsis = draw(st.booleans())
    n_left = draw(st.integers(0, ndim + int(invalid)))
    n_right = draw(st.integers(0, max(0, ndim - n_left))) if ellipsis else 0
    axes = list(range(n_left)) + list(range(ndim - n_right, ndim))
    entries = []
    for ax in axes:
        n = shape[ax] if ax < ndim else 1
        lo, hi = (-n - 2, n + 1) if invalid else (-n, n - 1)
        entries.append(draw(st.one_of(slice_entry(n, invalid), int_entry(n, lo, hi))))
    if ellipsis:
        entries.insert(n_left, Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        entries.insert(draw(st.integers(0, len(entries))), None)
    if len(entries) == 1 and draw(st.booleans()):
        return entries[0]  # a bare key, not a tuple
    return tuple(entries)


LAZY = object()  # marks an index array passed lazily (a placeholder / a lazy tensor)


@st.composite
def advanced_keys(draw, shape):
    """A random key with integer index arrays on some axes, mixed with ints,
    slices, None, Ellipsis and 0-d booleans, in random positions.

    Returns (entries, lazy arrays): entries hold LAZY where a lazy index goes.
    """
    ndim = len(shape)
    if ndim == 0:
        kinds = []
    else:
        kinds = draw(st.lists(st.sampled_from(["array", "array", "int", "slice"]), min_size=1, max_size=ndim))
        if "array" not in kinds:
            kinds[draw(st.integers(0, len(kinds) - 1))] = "array"
    n_arrays = kinds.count("array")
    bshapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=max(n_arrays, 1), min_dims=0, max_dims=2,
                                                     max_side=3)).input_shapes
    ellipsis_at = draw(st.integers(0, len(kinds))) if draw(st.booleans()) else None
    # the axes each entry refers to: left of the ellipsis from the start, right of it from the end
    right = len(kinds) - ellipsis_at if ellipsis_at is not None else 0
    axes = list(range(len(kinds) - right)) + list(range(ndim - right, ndim))
    entries, lazy, k = [], [], 0
    for kind, ax in zip(kinds, axes):
        n = shape[ax]
        if kind == "slice":
            entries.append(draw(slice_entry(n)))
        elif kind == "int":
            entries.append(draw(int_entry(n)) if n else draw(slice_entry(n)))
        else:
            dt = draw(st.sampled_from(INDEX_DTYPES))
            lo = max(-n, 0 if dt.kind == "u" else -n)
            idx = draw(hnp.arrays(dt, bshapes[k], elements=st.integers(lo, max(n - 1, lo))))
            k += 1
            form = draw(st.sampled_from(["lazy", "numpy", "list"]))
            if form == "lazy":
                entries.append(LAZY)
                lazy.append(idx)
            else:
                entries.append(idx if form == "numpy" else idx.tolist())
    if ellipsis_at is not None:
        entries.insert(ellipsis_at, Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        entries.insert(draw(st.integers(0, len(entries))), draw(st.sampled_from([None, None, True, False])))
    return entries, lazy


def index_with(entries):
    """fn(xp, a, *lazy) -> a[key], the lazy arrays filling the LAZY slots in order."""
    def fn(xp, a, *lazy):
        it = iter(lazy)
        return a[tuple(next(it) if e is LAZY else e for e in entries)]
    return fn


# ---------------------------------------------------------------- getitem: oracle

@given(a=array_of(max_dims=4), data=st.data())
def test_basic_indexing(a, data):
    key = data.draw(basic_keys(a.shape))
    check(lambda xp, x: x[key], a)


@settings(max_examples=examples(40))
@given(a=array_of(max_dims=3), data=st.data())
def test_basic_indexing_invalid_keys_raise_like_numpy(a, data):
    key = data.draw(basic_keys(a.shape, invalid=True))
    check(lambda xp, x: x[key], a)


@given(a=array_of(min_dims=1, max_dims=4), data=st.data())
def test_advanced_indexing(a, data):
    entries, lazy = data.draw(advanced_keys(a.shape))
    check(index_with(entries), a, *lazy)


@settings(max_examples=examples(30))
@given(a=array_of(shape=(3, 4, 5)), data=st.data())
def test_advanced_indexing_out_of_range_and_mismatch(a, data):
    """Index values drawn beyond the axis, shapes that may not broadcast: NumPy's verdict is the oracle."""
    n_arrays = data.draw(st.integers(1, 3))
    entries, lazy = [], []
    for ax in range(3):
        if ax < n_arrays:
            idx = data.draw(hnp.arrays(np.int64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
                                       elements=st.integers(-7, 6)))
            if data.draw(st.booleans()):
                entries.append(LAZY)
                lazy.append(idx)
            else:
                entries.append(idx)
        else:
            entries.append(slice(None))
    check(index_with(entries), a, *lazy)


# NumPy's placement rules, spelled out (hypothesis finds these too; these name them)
PLACEMENT_KEYS = [
    (slice(None), [0, 1], [1, 2]),            # adjacent: the broadcast dims stay in place
    ([0, 1], slice(None), [1, 2]),            # separated by a slice: they go first
    (0, slice(None), [0, 1]),                 # an integer counts as an advanced index
    (slice(None), 0, [0, 1]),                 # ... adjacent to the array here
    ([[0], [2]], Ellipsis, [1, 3]),           # broadcast (2, 1) with (2,) across an ellipsis
    (slice(None), [0, 1], None, [0, 1]),      # None separates too
    ([0, 1], True),                           # a 0-d boolean: a new length-1 axis, indexed
    (True, slice(None), 0),
    (Ellipsis, [[1]], False, slice(None)),
    (np.array(1), slice(None), [0, 2]),       # a 0-d integer array is an integer
    ([], ),                                   # an empty list is an integer index
    ([[], []],),
    (slice(None, None, -1), [2, -1]),         # negative indices wrap, as NumPy
]


@pytest.mark.parametrize("key", PLACEMENT_KEYS, ids=repr)
def test_advanced_placement_rules(key):
    a = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)
    check(lambda xp, x: x[key], a)


def test_lazy_index_tensors_and_lists_of_tensors():
    a = np.arange(12).reshape(3, 4)
    i = np.array([2, 0, 1])
    check(lambda xp, x, k: x[k, 1:], a, i)
    check(lambda xp, x, k: x[k[0]], a, i)                              # a lazy 0-d integer index
    check(lambda xp, x, k: x[:, k[0]], a, i)
    check(lambda xp, x, k: x[k[1], :, None, k[2]], a[..., None], i)
    if hasattr(fnp, "stack"):  # lists holding lazy scalars are stacked (the movement family)
        check(lambda xp, x, k: x[[k[0], k[1]], [k[2], k[2]]], a, i)


def test_zero_d_and_empty_arrays():
    check(lambda xp, x: x[()], np.array(3.5))
    check(lambda xp, x: x[None], np.array(3.5))
    check(lambda xp, x: x[..., None], np.array(3))
    check(lambda xp, x: x[True], np.array(3))
    check(lambda xp, x: x[[0, 0]], np.zeros((1, 0)))
    check(lambda xp, x: x[[]], np.zeros((0, 2)))
    check(lambda xp, x: x[:, [5]], np.zeros((0, 3)))        # NumPy raises: the subspace does not matter
    check(lambda xp, x: x[[], [7]], np.zeros((0, 4)))        # NumPy does not: the broadcast index is empty
    check(lambda xp, x: x[[], 5], np.zeros((3, 4)))          # but an integer is always checked


def test_iteration_and_identity():
    a = np.arange(6).reshape(2, 3)
    t = fnp.asarray(a)
    assert [np.asarray(r).tolist() for r in t] == a.tolist()
    for v in (t[...], t[:], t[:, ::1]):  # new views of t's data, as in NumPy
        assert v is not t and v.base is t and v.node is t.node and np.shares_memory(v, t)


def test_equal_keys_give_equal_nodes():
    t = fnp.placeholder((5, 4), "float32")
    assert t[1:3].node.key == t[1:3:1].node.key == t[-4:-2].node.key
    assert t[::-1].node.key == t[4::-1].node.key == t[10::-1].node.key
    assert t[-1].node.key == t[4].node.key == t[np.int32(4)].node.key
    assert t[0:0].node.key == t[3:1].node.key


@given(a=array_of(min_dims=1, max_dims=3), data=st.data())
def test_basic_indexing_kernel_returns_a_view(a, data):
    key = data.draw(basic_keys(a.shape))
    node = fnp.asarray(a)[key].node
    assert get_attr("slice", "view") is True
    if node.op == "slice":
        out = get_attr("slice", "numpy_kernel")(a, **node.kwargs)
        assert isinstance(out, np.ndarray) and out.base is not None
        assert out.size == 0 or np.shares_memory(out, a)


# ---------------------------------------------------------------- getitem: errors

def test_boolean_masks_evaluate_outside_tracing_and_raise_under_it():
    a = np.arange(6.0)
    t = fnp.asarray(a)
    mask = a > 2
    for key, want in ((mask, a[mask]), (mask.tolist(), a[mask]), (t > 2, a[mask]), ((Ellipsis, mask), a[..., mask]),
                      (fnp.asarray(True), a[True])):
        got = t[key]                                # the mask is evaluated; the result stays lazy
        assert isinstance(got, fgraph.Tensor)
        np.testing.assert_array_equal(np.asarray(got), want)
    p = fnp.placeholder((6,), "float64", name="x")
    for key in (p > 2, (slice(None), p > 2), fnp.sum(p) > 0):
        with pytest.raises(fgraph.ShapeError, match=r"(?s)getitem.*placeholder 'x'.*where\(mask, a, b\).*"
                                                     r"test_indexing\.py"):
            t[key]


def test_out_of_range_integer_raises_at_node_creation():
    t = fnp.placeholder((3, 4), "float64")
    with pytest.raises(fgraph.IndexingError, match=r"(?s)getitem: index 3 is out of bounds for axis 0.*test_indexing\.py"):
        t[3]
    with pytest.raises(IndexError):  # also NumPy's exception type
        t[0, -5]
    with pytest.raises(fgraph.IndexingError, match=r"(?s)index 7 is out of bounds for axis 1.*test_indexing\.py"):
        t[:, [0, 7]]                 # a constant index array: checked when the node is made
    with pytest.raises(fgraph.IndexingError, match="too many indices"):
        t[0, 0, 0]
    with pytest.raises(fgraph.IndexingError, match="single ellipsis"):
        t[..., 0, ...]


def test_lazy_index_out_of_range_raises_at_run_time():
    a = fnp.asarray(np.arange(12.0).reshape(3, 4))
    i = fnp.placeholder((2,), "int64", name="i")
    exe = fgraph.compile(fgraph.Graph(a[i, 1:]))
    np.testing.assert_array_equal(exe(i=np.array([2, -3])), np.arange(12.0).reshape(3, 4)[[2, -3], 1:])
    for bad in ([0, 3], [-4, 0]):
        with pytest.raises(fgraph.FgraphError, match=r"(?s)out of bounds.*test_indexing\.py"):
            exe(i=np.array(bad))
    with pytest.raises(fgraph.FgraphError, match="out of bounds"):
        np.asarray(a[fnp.asarray(np.array([5]))])


def test_invalid_index_types_raise():
    t = fnp.placeholder((3, 4), "float64")
    for key in (1.0, [1.5], "a", (slice(0.5, 2),), fnp.asarray(np.array([1.0]))):
        with pytest.raises(fgraph.FgraphError, match="test_indexing.py"):
            t[key]
    with pytest.raises(fgraph.ShapeError, match="slice bound must be a Python value.*placeholder 'n'"):
        t[: fnp.placeholder((), np.int64, name="n")]
    with pytest.raises(fgraph.ShapeError, match="step cannot be zero|slice step"):
        t[::0]


def test_setitem_on_a_placeholder_moves_its_handle():
    t = fnp.placeholder((3,), "float64", name="t")
    p = t.node
    t[0] = 1.0  # the handle now points at "t with element 0 set"; the placeholder stays an input
    exe = fgraph.compile(fgraph.Graph(t * 2))
    np.testing.assert_array_equal(exe(t=np.array([5.0, 6.0, 7.0])), [2.0, 12.0, 14.0])
    assert t.node.inputs[0] is p


# ---------------------------------------------------------------- take, take_along_axis

@given(a=array_of(max_dims=3), data=st.data())
def test_take(a, data):
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1))) if a.ndim else None
    n = a.size if axis is None else a.shape[axis]
    mode = data.draw(st.sampled_from(["raise", "raise", "wrap", "clip"]))
    if n == 0 and mode == "wrap":
        mode = "clip"  # NumPy's own wrap can loop forever on an empty axis (see the test below)
    lo, hi = (-n, n - 1) if mode == "raise" else (-2 * n - 2, 2 * n + 2)
    if hi < lo:
        lo, hi = 0, 2  # an empty axis: NumPy raises for any index
    dt = data.draw(st.sampled_from(INDEX_DTYPES[:2] + [np.dtype(bool)]))
    idx = data.draw(hnp.arrays(dt, shapes(max_dims=2, max_side=3),
                               elements=st.integers(lo, hi) if dt != bool else st.booleans()))
    form = data.draw(st.sampled_from(["lazy", "numpy", "scalar"]))
    if form == "lazy":
        check(lambda xp, x, i: xp.take(x, i, axis=axis, mode=mode), a, idx)
    elif form == "numpy":
        check(lambda xp, x: xp.take(x, idx, axis=axis, mode=mode), a)
    else:
        k = data.draw(st.integers(lo, hi))
        check(lambda xp, x: xp.take(x, k, axis=axis, mode=mode), a)


def test_take_wrap_from_an_empty_axis():
    # NumPy hangs on np.take(np.zeros((0, 0)), 1, axis=0, mode="wrap"); fgraph gives the empty result
    got = fgraph.compile(fgraph.Graph(fnp.take(fnp.zeros((0, 0)), 1, axis=0, mode="wrap")))()
    np.testing.assert_array_equal(got, np.take(np.zeros((0, 0)), 1, axis=0, mode="clip"))
    with pytest.raises(fgraph.FgraphError, match="empty axes"):  # a non-empty result: NumPy's IndexError
        fgraph.compile(fgraph.Graph(fnp.take(fnp.zeros((3, 0)), np.array([1]), axis=1, mode="wrap")))()


def test_take_errors_and_dispatch():
    a = np.arange(12.0).reshape(3, 4)
    t = fnp.asarray(a)
    out = np.take(t, [0, 2], axis=1)            # NumPy's own function on a lazy array
    assert isinstance(out, fgraph.Tensor) and out.op == "take"
    np.testing.assert_array_equal(np.asarray(out), np.take(a, [0, 2], axis=1))
    assert isinstance(t.take([1]), fgraph.Tensor)
    with pytest.raises(fgraph.IndexingError, match=r"(?s)take: index 4 is out of bounds.*test_indexing\.py"):
        fnp.take(t, [0, 4], axis=1)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)take.*axis 2.*test_indexing\.py"):
        fnp.take(t, [0], axis=2)
    with pytest.raises(fgraph.DTypeError, match="take"):
        fnp.take(t, [0.5])
    i = fnp.placeholder((1,), "int64", name="i")
    exe = fgraph.compile(fgraph.Graph(fnp.take(t, i)))
    with pytest.raises(fgraph.FgraphError, match="out of bounds"):
        exe(i=np.array([12]))
    out = np.zeros(1)
    assert fnp.take(t, [0], out=out) is out and out[0] == 0  # a NumPy out= receives the value


@given(data=st.data())
def test_take_along_axis(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=4))
    a = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shape))
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    if axis is None:
        ishape = (data.draw(st.integers(0, 4)),)
        n = a.size
    else:
        ishape = tuple(data.draw(st.sampled_from([d, 1])) if i != axis % len(shape) else data.draw(st.integers(0, 4))
                       for i, d in enumerate(shape))
        n = shape[axis]
    idx = data.draw(hnp.arrays(np.int64, ishape, elements=st.integers(-n, max(n - 1, -n)) if n else st.just(0)))
    if data.draw(st.booleans()):
        check(lambda xp, x, i: xp.take_along_axis(x, i, axis=axis), a, idx)
    else:
        check(lambda xp, x: xp.take_along_axis(x, idx, axis=axis), a)


def test_take_along_axis_with_argsort_and_errors():
    a = np.array([[3, 1, 2], [0, 5, 4]])
    check(lambda xp, x: xp.take_along_axis(x, xp.argsort(x, axis=1, kind="stable"), axis=1), a)
    check(lambda xp, x: xp.take_along_axis(x, np.array([[0], [7]]), axis=1), a)     # NumPy raises
    with pytest.raises(fgraph.ShapeError, match=r"(?s)take_along_axis.*test_indexing\.py"):
        fnp.take_along_axis(fnp.asarray(a), np.array([0, 1]), axis=1)              # ndim mismatch
    with pytest.raises(fgraph.FgraphError, match="take_along_axis"):
        fnp.take_along_axis(fnp.asarray(a), np.array([[0.0]]), axis=1)


# ---------------------------------------------------------------- select, choose

@given(data=st.data())
def test_select(data):
    k = data.draw(st.integers(1, 3))
    bs = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2 * k + 1, max_dims=3, max_side=3)).input_shapes
    conds = [data.draw(arrays(bool, s)) for s in bs[:k]]
    choices = []
    for s in bs[k:2 * k]:
        if data.draw(st.booleans()):
            choices.append(data.draw(arrays(data.draw(st.sampled_from(DTYPES)), s, -5, 5)))
        else:
            choices.append(data.draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5), st.booleans())))
    default = data.draw(st.one_of(st.just(0), st.floats(-5, 5), arrays(data.draw(st.sampled_from(DTYPES)), bs[-1])))
    arrs = [c for c in conds + choices + [default] if isinstance(c, np.ndarray)]

    def fn(xp, *lazy):
        it = iter(lazy)
        vals = [next(it) if isinstance(c, np.ndarray) else c for c in conds + choices + [default]]
        return xp.select(vals[:k], vals[k:2 * k], vals[-1])
    check(fn, *arrs)


def test_select_errors():
    c = np.array([True, False])
    check(lambda xp, x: xp.select([x], [1, 2]), c)                        # lengths differ: NumPy raises
    check(lambda xp, x: xp.select([x.astype(int)], [1]), c)                # conditions must be boolean
    check(lambda xp, x: xp.select([x], [np.zeros(3)]), c)                   # shapes do not broadcast
    with pytest.raises(fgraph.FgraphError, match=r"(?s)select.*test_indexing\.py"):
        fnp.select([], [])


@given(data=st.data())
def test_choose(data):
    k = data.draw(st.integers(1, 3))
    bs = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=k + 1, max_dims=3, max_side=3)).input_shapes
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    hi = k - 1 if mode == "raise" else k + 2
    a = data.draw(hnp.arrays(data.draw(st.sampled_from(INDEX_DTYPES[:2])), bs[0], elements=st.integers(-1, hi)))
    choices = [data.draw(arrays(data.draw(st.sampled_from(DTYPES)), s, -5, 5)) if data.draw(st.booleans())
               else data.draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5))) for s in bs[1:]]
    arrs = [c for c in choices if isinstance(c, np.ndarray)]

    def fn(xp, idx, *lazy):
        it = iter(lazy)
        return xp.choose(idx, [next(it) if isinstance(c, np.ndarray) else c for c in choices], mode=mode)
    check(fn, a, *arrs)


def test_choose_with_an_array_of_choices():
    check(lambda xp, i, c: xp.choose(i, c), np.array([0, 2, 1]), np.arange(9.0).reshape(3, 3))


# ---------------------------------------------------------------- searchsorted

@given(data=st.data())
def test_searchsorted(data):
    dt = data.draw(st.sampled_from(DTYPES))
    a = np.sort(data.draw(arrays(dt, shapes(min_dims=1, max_dims=1, max_side=6), -4, 4)))
    v = data.draw(st.one_of(arrays(data.draw(st.sampled_from(DTYPES)), shapes(max_dims=2, max_side=3), -5, 5),
                            st.integers(-5, 5), st.floats(-5, 5)))
    side = data.draw(st.sampled_from(["left", "right"]))
    if isinstance(v, np.ndarray):
        check(lambda xp, x, y: xp.searchsorted(x, y, side=side), a, v)
    else:
        check(lambda xp, x: xp.searchsorted(x, v, side=side), a)
    # unsorted a with a sorter (lazy, or a constant)
    u = np.random.default_rng(a.size).permutation(a)
    s = np.argsort(u, kind="stable")
    check(lambda xp, x, y, srt: xp.searchsorted(x, y, side=side, sorter=srt), u, np.asarray(v), s)
    check(lambda xp, x, y: xp.searchsorted(x, y, side=side, sorter=s), u, np.asarray(v))


def test_searchsorted_errors_and_method():
    t = fnp.asarray(np.array([1.0, 2.0, 3.0]))
    assert isinstance(t.searchsorted(2.0), fgraph.Tensor)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)searchsorted.*1-D.*test_indexing\.py"):
        fnp.searchsorted(fnp.asarray(np.zeros((2, 2))), 1.0)
    with pytest.raises(fgraph.FgraphError, match="searchsorted"):
        fnp.searchsorted(t, 1.0, side="middle")
    check(lambda xp, x: xp.searchsorted(x, 2.0, sorter=np.array([0, 5, 1])), np.array([1.0, 2.0, 3.0]))


# ---------------------------------------------------------------- unravel_index, ravel_multi_index

@given(data=st.data())
def test_unravel_and_ravel_multi_index(data):
    dims = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    size = int(np.prod(dims))
    order = data.draw(st.sampled_from(["C", "F"]))
    idx = data.draw(hnp.arrays(np.int64, shapes(max_dims=2, max_side=3), elements=st.integers(0, size)))
    check(lambda xp, i: xp.unravel_index(i, dims, order=order), idx)       # size itself: NumPy raises
    multi = [data.draw(hnp.arrays(np.int64, (2,), elements=st.integers(-1, d))) for d in dims]
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    check(lambda xp, *m: xp.ravel_multi_index(tuple(m), dims, mode=mode, order=order), *multi)


# ---------------------------------------------------------------- refusals

@pytest.mark.parametrize("name,args", [
    ("nonzero", (np.arange(3),)), ("argwhere", (np.arange(3),)), ("flatnonzero", (np.arange(3),)),
    ("extract", (np.arange(3) > 1, np.arange(3))), ("compress", (np.arange(3) > 1, np.arange(3))),
])
def test_data_dependent_shapes_evaluate_outside_tracing_and_raise_under_it(name, args):
    lazy = [fnp.asarray(x) for x in args]
    want = getattr(np, name)(*args)
    for got in (getattr(fnp, name)(*lazy), getattr(np, name)(*lazy)):   # NumPy's own function dispatches here
        for g, w in zip(got if isinstance(want, tuple) else [got], want if isinstance(want, tuple) else [want]):
            assert isinstance(g, fgraph.Tensor)
            np.testing.assert_array_equal(np.asarray(g), w)
    traced = [fnp.placeholder(x.shape, x.dtype, name=f"p{i}") for i, x in enumerate(args)]
    with pytest.raises(fgraph.ShapeError, match=rf"(?s){name}.*data-dependent.*placeholder 'p0'.*size=N"
                                                rf".*test_indexing\.py"):
        getattr(fnp, name)(*traced)
    with pytest.raises(fgraph.ShapeError, match="data-dependent"):
        traced[-1].nonzero()




@settings(max_examples=examples(40))
@given(st.integers(-12, 12), st.integers(-12, 12), st.sampled_from([None, 1, 2, -1, -3]))
def test_slice_bounds_from_lazy_values_outside_tracing(start, stop, step):
    # best[w:] with w taken from an array: a NumPy scalar there, a lazy 0-d array here, known now
    bounds = np.array([start, stop, 0 if step is None else step])
    a, ta = np.arange(10) * 3, fnp.arange(10) * 3
    tb = fnp.asarray(bounds) + 0  # computed, not a constant
    key = slice(bounds[0], bounds[1], None if step is None else bounds[2])
    tkey = slice(tb[0], tb[1], None if step is None else tb[2])
    np.testing.assert_array_equal(np.asarray(ta[tkey]), a[key])
    view = ta[tkey]  # a view, as NumPy's: a write through it reaches the base
    view[...] = -1
    a[key] = -1
    np.testing.assert_array_equal(np.asarray(ta), a)
    ta[tkey] = 5  # and a write with lazy bounds
    a[key] = 5
    np.testing.assert_array_equal(np.asarray(ta), a)


@pytest.mark.parametrize("key", ["a[9]", "a[1.5]", "a[[1, 9]]", "a[0, 0]", "a[1.0:2]", "a[np.array([True, False])]"])
def test_index_errors_are_numpys_builtin_classes_only(key):
    """An index error is an IndexError and not a ValueError (``except
    ValueError`` written first must not catch it); a float slice bound is
    NumPy's TypeError."""
    def classes(a):
        try:
            eval(key, {"a": a, "np": np})
        except Exception as e:  # noqa: BLE001  (compared by class)
            return [c.__name__ for c in (ValueError, IndexError, TypeError) if isinstance(e, c)]
        return None

    assert classes(fnp.arange(5)) == classes(np.arange(5))

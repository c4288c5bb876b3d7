"""Array assembly and rearrangement (fgraph/ops/arrays.py) against NumPy,
and the NumPy names fgraph.numpy passes through."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import DTYPES, array_of, check, shapes

ints = st.integers(-4, 4)


@settings(max_examples=examples(60))
@given(st.data(), ints)
def test_diag_and_diagflat(data, k):
    v = data.draw(array_of(shape=shapes(1, 1, 0, 5)))
    check(lambda xp, x: xp.diag(x, k), v)
    check(lambda xp, x: xp.diagflat(x, k), v)
    m = data.draw(array_of(shape=shapes(2, 2, 0, 5)))
    check(lambda xp, x: xp.diag(x, k), m)
    check(lambda xp, x: xp.diagflat(x, k), m)


def test_diag_refuses_other_ranks():
    check(lambda xp, x: xp.diag(x), np.zeros((2, 2, 2)))
    check(lambda xp, x: xp.diag(x), np.float64(3))


@settings(max_examples=examples(60))
@given(st.data())
def test_append(data):
    a = data.draw(array_of(shape=shapes(0, 3, 0, 4)))
    b = data.draw(array_of(shape=shapes(0, 3, 0, 4)))
    check(lambda xp, x, y: xp.append(x, y), a, b)
    check(lambda xp, x: xp.append(x, 1.5), a)
    check(lambda xp, x: xp.append(x, [7, 8]), a)
    if a.ndim:
        axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
        other = data.draw(array_of(shape=st.just(a.shape[:axis % a.ndim] + (2,) + a.shape[axis % a.ndim + 1:])))
        check(lambda xp, x, y: xp.append(x, y, axis=axis), a, other)
        check(lambda xp, x, y: xp.append(x, y, axis=axis), a, b)  # NumPy's errors for mismatched shapes


def _array_axis_obj(data):
    """An array, an axis (or None: flattened) and positions along it for
    delete/insert: indices, slices, boolean masks, sequences, in and out of range."""
    a = data.draw(array_of(shape=shapes(1, 3, 1, 4)))
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1))
    n = a.size if axis is None else a.shape[axis]
    ix = st.integers(-n - 2, n + 2)
    obj = data.draw(st.one_of(ix, st.lists(ix, max_size=4),
                              st.builds(slice, st.none() | ix, st.none() | ix, st.none() | st.sampled_from([1, 2, -1])),
                              st.lists(st.booleans(), min_size=n, max_size=n)))
    return a, axis, obj


@settings(max_examples=examples(80))
@given(st.data())
def test_delete(data):
    a, axis, obj = _array_axis_obj(data)
    check(lambda xp, x: xp.delete(x, obj, axis=axis), a)


@settings(max_examples=examples(80))
@given(st.data())
def test_insert(data):
    a, axis, obj = _array_axis_obj(data)
    values = data.draw(array_of(shape=shapes(0, 2, 1, 3)))
    with np.errstate(all="ignore"):  # values cast (unsafely) to a's dtype, as NumPy casts them
        check(lambda xp, x, v: xp.insert(x, obj, v, axis=axis), a, values)
        check(lambda xp, x: xp.insert(x, obj, 5, axis=axis), a)


def test_delete_and_insert_need_static_positions():
    a = fnp.arange(5)
    with pytest.raises(fgraph.FgraphError, match="obj must be a Python value.*placeholder 'obj'"):
        fnp.delete(a, fnp.placeholder((1,), np.int64, name="obj"))
    with pytest.raises(fgraph.FgraphError, match="obj must be a Python value.*placeholder 'obj'"):
        fnp.insert(a, fnp.placeholder((), np.int64, name="obj"), 3)


@pytest.mark.parametrize("call", [
    lambda xp, a, k: xp.delete(a, k), lambda xp, a, k: xp.delete(a, xp.stack([k, k - 1])),
    lambda xp, a, k: xp.insert(a, k, -7), lambda xp, a, k: xp.insert(a, [k, 0], [8, 9]),
    lambda xp, a, k: xp.delete(a.reshape(2, 3), k - 1, axis=1)])
def test_delete_and_insert_take_lazy_positions_outside_tracing(call):
    # a position computed from data (k = a.argmax()) is known now, as NumPy's is: an evaluation point
    want = call(np, np.arange(6), np.argmax(np.arange(6) % 3))
    a = fnp.arange(6)
    got = call(fnp, a, fnp.argmax(a % 3))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=examples(60))
@given(st.data())
def test_block(data):
    dt = data.draw(st.sampled_from(DTYPES))
    r, c1, c2 = data.draw(st.integers(1, 3)), data.draw(st.integers(0, 3)), data.draw(st.integers(1, 3))
    a, b = np.ones((r, c1), dt), np.arange(r * c2).reshape(r, c2).astype(dt)
    c, d = np.zeros((2, c1), dt), np.full((2, c2), 3, dt)
    check(lambda xp, a, b, c, d: xp.block([[a, b], [c, d]]), a, b, c, d)
    check(lambda xp, a, b: xp.block([a, b]), a, b)
    v = data.draw(array_of(shape=shapes(1, 1, 1, 4)))
    check(lambda xp, x: xp.block([x, 1, x]), v)
    check(lambda xp, x: xp.block([[x], [x]]), v)
    check(lambda xp, x: xp.block([[[x]]]), v)
    check(lambda xp, x: xp.block(x), v)


def test_block_refusals():
    x = fnp.ones(2)
    for bad, match in (([[x], x], "depths are mismatched"), ([], "empty list"), ((x, x), "tuple")):
        with pytest.raises(fgraph.FgraphError, match=match):
            fnp.block(bad)
        with pytest.raises(ValueError if match != "tuple" else TypeError):
            np.block([[np.ones(2)], np.ones(2)] if match == "depths are mismatched" else
                     ([] if match == "empty list" else (np.ones(2), np.ones(2))))


@settings(max_examples=examples(60))
@given(st.data())
def test_rollaxis(data):
    a = data.draw(array_of(shape=shapes(0, 4, 1, 3)))
    axis = data.draw(st.integers(-a.ndim - 1, a.ndim))
    start = data.draw(st.integers(-a.ndim - 2, a.ndim + 1))
    check(lambda xp, x: xp.rollaxis(x, axis, start), a)


@settings(max_examples=examples(60))
@given(st.data())
def test_resize(data):
    a = data.draw(array_of(shape=shapes(0, 3, 0, 4)))
    new = data.draw(st.one_of(st.integers(-1, 7), st.lists(st.integers(0, 5), max_size=3).map(tuple)))
    check(lambda xp, x: xp.resize(x, new), a)


@settings(max_examples=examples(30))
@given(st.sampled_from([(3,), (2, 4), (2, 3, 2), (0, 2)]), st.sampled_from([float, int, "float32"]))
def test_fromfunction(shape, dtype):
    check(lambda xp: xp.fromfunction(lambda *ix: sum((k + 2) * i for k, i in enumerate(ix)) + 1, shape, dtype=dtype))
    check(lambda xp: xp.fromfunction(lambda i, *rest: xp.sin(i), shape))  # NumPy ufuncs on lazy indices stay lazy


@settings(max_examples=examples(30))
@given(st.data(), st.sampled_from([None, "float32", "int64"]))
def test_asfortranarray(data, dtype):
    a = data.draw(array_of(shape=shapes(0, 3, 0, 3)))
    check(lambda xp, x: xp.asfortranarray(x, dtype=dtype), a)


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (4, 4, 4), (3,), (2, 3, 2)])
@pytest.mark.parametrize("k", [0, 1, -2])
def test_index_helpers_from_shape(shape, k):
    a, t = np.zeros(shape), fnp.zeros(shape)
    for name, args in (("tril_indices_from", (k,)), ("triu_indices_from", (k,)), ("diag_indices_from", ())):
        try:
            want = getattr(np, name)(a, *args)
        except ValueError:
            with pytest.raises(fgraph.FgraphError):
                getattr(fnp, name)(t, *args)
            continue
        got = getattr(fnp, name)(t, *args)
        assert all(isinstance(g, np.ndarray) and np.array_equal(g, w) for g, w in zip(got, want))
        got = getattr(np, name)(t, *args)  # NumPy's function on a lazy array dispatches here
        assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_numpy_dispatches_to_the_lazy_versions():
    for f in (lambda a: np.diag(np.append(a, [1])), lambda a: np.delete(a, 1), lambda a: np.resize(a, (2, 2)),
              lambda a: np.insert(a, 2, 9), lambda a: np.block([a, a]), lambda a: np.rollaxis(a[None], 1)):
        got = f(fnp.arange(6))
        assert isinstance(got, fnp.ndarray)
        assert np.array_equal(np.asarray(got), f(np.arange(6)))


def test_numpy_names_passed_through():
    assert fnp.float16 is np.float16 and fnp.dtype is np.dtype and fnp.floating is np.floating
    assert fnp.issubdtype(fnp.zeros(2, fnp.float16).dtype, fnp.floating)
    assert fnp.isscalar(3.0) and not fnp.isscalar(fnp.ones(()))  # as NumPy: a 0-d array is not a scalar
    x = fnp.asarray([1.0, 0.0])
    with fnp.errstate(divide="raise"), pytest.raises(FloatingPointError):
        np.asarray(fnp.log(x))  # the state where the graph is evaluated applies
    with fnp.errstate(divide="ignore"):
        assert np.asarray(fnp.log(x))[1] == -np.inf
    got = fnp.exp(fnp.random.default_rng(0).normal(size=3))  # NumPy draws join graphs as constants
    assert np.array_equal(np.asarray(got), np.exp(np.random.default_rng(0).normal(size=3)))
    fnp.testing.assert_array_equal(x, [1.0, 0.0])
    assert fnp.s_[1:2] == np.s_[1:2] and list(fnp.ndindex(2, 1)) == [(0, 0), (1, 0)]
    bound = fgraph.make("numpy", "float32")  # other stacks carry them too
    assert bound.float16 is np.float16 and bound.promote_types("f4", "i8") == np.float64


@settings(max_examples=examples(60))
@given(st.data(), st.sampled_from(["big", "little"]))
def test_packbits_and_unpackbits(data, bitorder):
    a = data.draw(array_of([np.dtype(d) for d in ("bool", "int32", "uint8", "int64")], shape=shapes(0, 3, 0, 11)))
    axis = data.draw(st.none() | st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1))
    check(lambda xp, x: xp.packbits(x, axis=axis, bitorder=bitorder), a)
    u = data.draw(array_of([np.dtype("uint8")], shape=shapes(0, 3, 0, 4), lo=0, hi=255))
    axis = data.draw(st.none() | st.integers(-max(u.ndim, 1), max(u.ndim, 1) - 1))
    count = data.draw(st.none() | st.integers(-40, 40))
    if u.size == 0 and count is not None and count > 0:
        # NumPy pads an empty input with uninitialised memory (its documented padding is zeros)
        got = np.asarray(fnp.unpackbits(fnp.asarray(u), axis=axis, count=count, bitorder=bitorder))
        assert got.dtype == np.uint8 and not got.any()
    else:
        check(lambda xp, x: xp.unpackbits(x, axis=axis, count=count, bitorder=bitorder), u)
    check(lambda xp, x: xp.unpackbits(xp.packbits(x, axis=axis, bitorder=bitorder), axis=axis, bitorder=bitorder),
          a)


def test_bits_refusals():
    check(lambda xp, x: xp.packbits(x), np.ones(3))  # floats: NumPy's TypeError, an FgraphError here
    check(lambda xp, x: xp.unpackbits(x), np.ones(3, "int16"))


@settings(max_examples=examples(40))
@given(st.data())
def test_apply_along_and_over_axes(data):
    a = data.draw(array_of([np.dtype("int64"), np.dtype("float64")], shape=shapes(1, 3, 1, 4)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    check(lambda xp, x: xp.apply_along_axis(lambda v: v * 2 + 1, axis, x), a)
    check(lambda xp, x: xp.apply_along_axis(lambda v: (v ** 2).sum(), axis, x), a)
    check(lambda xp, x: xp.apply_along_axis(lambda v, k: xp.outer(v, v) + k, axis, x, 3), a)
    axes = data.draw(st.lists(st.integers(-a.ndim, a.ndim - 1), max_size=3))
    check(lambda xp, x: xp.apply_over_axes(xp.sum, x, axes), a)
    check(lambda xp, x: xp.apply_over_axes(lambda y, ax: xp.cumsum(y, ax), x, axes), a)


@settings(max_examples=examples(40))
@given(st.lists(st.lists(st.integers(-3, 2), min_size=1, max_size=3), min_size=1, max_size=3))
def test_ix(indices):
    a = np.arange(3 ** len(indices)).reshape((3,) * len(indices))
    check(lambda xp, x: x[xp.ix_(*indices)], a)
    check(lambda xp: xp.ix_(*indices))
    check(lambda xp: xp.ix_([True, False, True], [0, 2]))
    with pytest.raises(fgraph.FgraphError, match="boolean"):
        fnp.ix_(fnp.asarray([True, False]))


@settings(max_examples=examples(40))
@given(st.data())
def test_r_and_c_index_tricks(data):
    a = data.draw(array_of(shape=shapes(1, 1, 1, 4)))
    b = data.draw(array_of(shape=st.just(a.shape)))
    m = data.draw(array_of(shape=st.just((2, a.shape[0]))))
    for build in (lambda xp, x, y, z: xp.r_[x, 0, y], lambda xp, x, y, z: xp.r_[-1:1:5j, x, 2.5],
                  lambda xp, x, y, z: xp.r_[0:7:2, y], lambda xp, x, y, z: xp.c_[x, y],
                  lambda xp, x, y, z: xp.c_[z.T, z.T], lambda xp, x, y, z: xp.r_["-1", z, z],
                  lambda xp, x, y, z: xp.r_["0,2", x, y], lambda xp, x, y, z: xp.r_["0,2,0", x, y],
                  lambda xp, x, y, z: xp.r_["1,2,0", x, y], lambda xp, x, y, z: xp.r_[z, x],
                  lambda xp, x, y, z: xp.r_[np.int8(3), x.astype(np.int8)], lambda xp, x, y, z: xp.r_[True, x]):
        check(build, a, b, m)  # NumPy's errors (mismatched shapes) are FgraphErrors here


def test_r_and_c_refusals_and_stacks():
    t = fnp.arange(3)
    for key, match in ((("r", t), "numpy.matrix"), ((t, "0"), "first entry"), (("x,y", t), "unknown special"),
                       ((), "at least one array"), ((slice(0, fnp.placeholder((), np.int64, name="n")),), "slice bound")):
        with pytest.raises(fgraph.FgraphError, match=match):
            fnp.r_[key]
    d = fgraph.make("dask")
    got = d.r_[0:2, d.asarray(np.arange(3.0))]
    assert got.stack.engine == "dask"
    np.testing.assert_array_equal(np.asarray(got), np.r_[0:2, np.arange(3.0)])


@pytest.mark.parametrize("build", [lambda xp, n: xp.r_[0:n - 1, 7], lambda xp, n: xp.c_[0:n - 2, 1:n - 1],
                                   lambda xp, n: xp.r_[-1:1:n * 1j], lambda xp, n: xp.r_[0:n:2.0, n]])
def test_index_tricks_take_lazy_slice_bounds_outside_tracing(build):
    # np.r_[0:n] with n = a.max(): the bounds are known now (they decide the length), as NumPy's are
    want = build(np, np.arange(5).max())
    got = build(fnp, fnp.arange(5).max())
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(fgraph.ShapeError, match="r_: a slice bound must be a Python value.*placeholder 'n'"):
        fnp.r_[0:fnp.placeholder((), np.int64, name="n")]

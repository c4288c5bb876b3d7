"""Oracle tests for the movement family (reshape, transpose, joining,
splitting, flips, padding, ...) against NumPy.

Axes and arguments are drawn a little beyond the valid range on purpose:
where NumPy raises, ``check`` requires fgraph to raise an FgraphError.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.registry import get_attr
from oracle import DTYPES, array_of, arrays, check, shapes

small = dict(max_dims=4, max_side=4)


def axis_for(ndim, extra=1):
    """An axis index, sometimes just out of range (to test the errors)."""
    return st.integers(-ndim - extra, ndim - 1 + extra)


def axes_tuple(ndim, extra=1):
    return st.lists(axis_for(ndim, extra), max_size=ndim + 1).map(tuple)


def mixed_arrays(data, shape_list, dtypes=DTYPES):
    return [data.draw(arrays(data.draw(st.sampled_from(dtypes)), s)) for s in shape_list]


# ---------------------------------------------------------------- reshape family

@given(data=st.data())
def test_reshape(data):
    a = data.draw(array_of(**small))
    n = a.size
    divisors = [d for d in range(1, n + 1) if n % d == 0] or [1]
    d = data.draw(st.sampled_from(divisors))
    good = [a.shape[::-1], (n,), (-1,), (d, -1), (-1, d, 1), (1, d, n // d if n else 0), ()]
    shape = data.draw(st.sampled_from(good) | shapes(max_dims=3, max_side=6))
    order = data.draw(st.sampled_from(["C", "F", "A"]))
    check(lambda xp, x: xp.reshape(x, shape, order=order), a)
    check(lambda xp, x: x.reshape(shape), a)
    if len(shape):
        check(lambda xp, x: x.reshape(*shape), a)


def test_reshape_two_unknowns_and_size_zero():
    check(lambda xp, x: xp.reshape(x, (-1, -1)), np.zeros(6))
    check(lambda xp, x: xp.reshape(x, (-1, 0)), np.zeros((0, 3)))
    check(lambda xp, x: xp.reshape(x, (3, -1)), np.zeros((0, 3)))
    check(lambda xp, x: xp.reshape(x, (-3, 2)), np.zeros(6))
    check(lambda xp, x: xp.reshape(x, 6), np.arange(6))


@given(a=array_of(**small), order=st.sampled_from(["C", "F", "A", "K"]))
def test_ravel_flatten(a, order):
    check(lambda xp, x: xp.ravel(x, order=order), a)
    check(lambda xp, x: x.ravel(), a)
    check(lambda xp, x: x.flatten(), a)
    if order != "K":
        check(lambda xp, x: x.flatten(order), a)


@given(data=st.data())
def test_transpose_permute_dims(data):
    a = data.draw(array_of(**small))
    perm = data.draw(st.permutations(range(a.ndim)))
    perm = tuple(p - a.ndim if data.draw(st.booleans()) else p for p in perm)
    bad = data.draw(axes_tuple(a.ndim))
    for axes in (None, perm, bad):
        check(lambda xp, x: xp.transpose(x, axes), a)
        check(lambda xp, x: xp.permute_dims(x, axes), a)
    check(lambda xp, x: x.T, a)
    check(lambda xp, x: x.transpose(), a)
    check(lambda xp, x: x.transpose(perm), a)
    if a.ndim:
        check(lambda xp, x: x.transpose(*perm), a)


@given(data=st.data())
def test_swapaxes(data):
    a = data.draw(array_of(**small))
    i, j = data.draw(axis_for(a.ndim)), data.draw(axis_for(a.ndim))
    check(lambda xp, x: xp.swapaxes(x, i, j), a)
    check(lambda xp, x: x.swapaxes(i, j), a)


@given(data=st.data())
def test_moveaxis(data):
    a = data.draw(array_of(**small))
    if data.draw(st.booleans()):
        src, dst = data.draw(axis_for(a.ndim)), data.draw(axis_for(a.ndim))
    else:
        k = data.draw(st.integers(0, a.ndim))
        src = tuple(data.draw(st.permutations(range(a.ndim)))[:k])
        dst = tuple(data.draw(st.permutations(range(-a.ndim, 0)))[:data.draw(st.sampled_from([k, k, k + 1]))])
    check(lambda xp, x: xp.moveaxis(x, src, dst), a)


@given(data=st.data())
def test_expand_dims(data):
    a = data.draw(array_of(**small))
    axis = data.draw(axis_for(a.ndim + 1) | axes_tuple(a.ndim + 2, 0))
    check(lambda xp, x: xp.expand_dims(x, axis), a)


@given(data=st.data())
def test_squeeze(data):
    a = data.draw(array_of(max_dims=4, max_side=2))
    ones = [k for k, d in enumerate(a.shape) if d == 1]
    axis = data.draw(st.none() | axis_for(a.ndim) | axes_tuple(a.ndim, 0)
                     | st.lists(st.sampled_from(ones), unique=True).map(tuple) if ones else st.none())
    check(lambda xp, x: xp.squeeze(x, axis), a)
    check(lambda xp, x: x.squeeze(axis), a)
    check(lambda xp, x: x.squeeze(), a)


@given(a=array_of(**small), b=array_of(max_dims=2, max_side=3), c=array_of(max_dims=1))
def test_atleast_nd(a, b, c):
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        check(lambda xp, x: getattr(xp, name)(x), a)
        check(lambda xp, x, y, z: getattr(xp, name)(x, y, z), a, b, c)
        check(lambda xp: getattr(xp, name)(3.5))


# ---------------------------------------------------------------- broadcasting

@given(data=st.data())
def test_broadcast_to(data):
    a = data.draw(array_of(max_dims=3, max_side=3))
    good = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, base_shape=a.shape, max_side=3)).result_shape
    shape = data.draw(st.just(good) | shapes(max_dims=4, max_side=3) | st.integers(0, 3))
    check(lambda xp, x: xp.broadcast_to(x, shape), a)


@given(data=st.data())
def test_broadcast_arrays_and_shapes(data):
    inp = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3))
    shape_list = list(inp.input_shapes)
    if data.draw(st.booleans()):  # sometimes incompatible
        shape_list[0] = data.draw(shapes(max_dims=3, max_side=3))
    arrs = mixed_arrays(data, shape_list)
    check(lambda xp, *xs: xp.broadcast_arrays(*xs), *arrs)
    check(lambda xp: xp.broadcast_shapes(*shape_list))
    try:
        want = np.broadcast_shapes(*shape_list)
    except ValueError:
        with pytest.raises(fgraph.ShapeError, match="broadcast_shapes"):
            fnp.broadcast_shapes(*shape_list)
    else:
        got = fnp.broadcast_shapes(*shape_list)
        assert got == want and type(got) is tuple
        assert isinstance(fnp.broadcast_arrays(*map(fnp.asarray, arrs)), tuple)
    assert fnp.broadcast_shapes(3, (2, 1)) == np.broadcast_shapes(3, (2, 1))


# ---------------------------------------------------------------- joining

def _join_shapes(data, ndim_min=1):
    """Shapes equal except along one axis (sometimes not: error cases)."""
    base = list(data.draw(shapes(min_dims=ndim_min, max_dims=3, max_side=3)))
    ax = data.draw(st.integers(0, len(base) - 1)) if base else 0
    k = data.draw(st.integers(1, 4))
    out = []
    for _ in range(k):
        s = list(base)
        if s:
            s[ax] = data.draw(st.integers(0, 3))
        out.append(tuple(s))
    if data.draw(st.integers(0, 5)) == 0:
        out[-1] = data.draw(shapes(max_dims=3, max_side=3))
    return out, ax


@given(data=st.data())
def test_concatenate_and_concat(data):
    shape_list, ax = _join_shapes(data)
    arrs = mixed_arrays(data, shape_list, DTYPES + [np.dtype("complex64"), np.dtype("complex128")])
    axis = data.draw(st.sampled_from([ax, ax - len(shape_list[0]), None, len(shape_list[0])]))
    dtype = data.draw(st.none() | st.sampled_from(DTYPES))
    casting = data.draw(st.sampled_from(["same_kind", "same_kind", "unsafe", "safe", "no"]))
    check(lambda xp, *xs: xp.concatenate(xs, axis=axis, dtype=dtype, casting=casting), *arrs)
    check(lambda xp, *xs: xp.concatenate(list(xs), axis), *arrs)
    check(lambda xp, *xs: xp.concat(xs, axis=axis), *arrs)


@given(data=st.data())
def test_stack_unstack(data):
    shape = data.draw(shapes(max_dims=3, max_side=3))
    k = data.draw(st.integers(1, 4))
    shape_list = [shape] * k
    if data.draw(st.integers(0, 5)) == 0:
        shape_list[-1] = data.draw(shapes(max_dims=3, max_side=3))
    arrs = mixed_arrays(data, shape_list)
    axis = data.draw(axis_for(len(shape) + 1))
    dtype = data.draw(st.none() | st.sampled_from(DTYPES))
    check(lambda xp, *xs: xp.stack(xs, axis=axis, dtype=dtype), *arrs)
    check(lambda xp, *xs: xp.stack(xs, axis), *arrs)
    check(lambda xp, x: xp.unstack(x, axis=axis), arrs[0])
    check(lambda xp, x: xp.unstack(x), arrs[0])


@given(data=st.data())
def test_hstack_vstack_dstack_column_stack(data):
    name = data.draw(st.sampled_from(["hstack", "vstack", "dstack", "column_stack"]))
    shape = data.draw(shapes(max_dims=3, max_side=3))
    k = data.draw(st.integers(1, 3))
    shape_list = [shape] * k
    if data.draw(st.booleans()):  # vary one axis (valid for some functions only)
        ax = data.draw(st.integers(0, len(shape) - 1)) if shape else 0
        shape_list = [tuple(data.draw(st.integers(0, 3)) if i == ax else d for i, d in enumerate(shape))
                      for _ in range(k)]
    arrs = mixed_arrays(data, shape_list)
    check(lambda xp, *xs: getattr(xp, name)(xs), *arrs)
    if name in ("hstack", "vstack"):
        dtype = data.draw(st.sampled_from(DTYPES))
        check(lambda xp, *xs: getattr(xp, name)(xs, dtype=dtype, casting="unsafe"), *arrs)


def test_python_scalars_are_strong_in_joins():
    # NumPy converts each element to an array first: Python floats become float64
    check(lambda xp, x: xp.stack([x, 1.5]), np.float32(2))
    check(lambda xp, x: xp.concatenate([x, [1.0]]), np.ones(2, np.float32))
    check(lambda xp, x: xp.hstack([x, 1]), np.ones(2, np.int32))
    check(lambda xp, x: xp.diff(x, prepend=0), np.arange(3, dtype=np.int32))
    check(lambda xp, x: xp.concatenate(x), np.arange(6.0).reshape(2, 3))  # iterates the first axis


# ---------------------------------------------------------------- splitting

def _sections(data, n):
    return data.draw(st.integers(0, 5) | st.lists(st.integers(-n - 2, n + 2), max_size=4)
                     | st.lists(st.integers(0, n), max_size=4).map(sorted))


@given(data=st.data())
def test_split_array_split(data):
    a = data.draw(array_of(min_dims=1, **small))
    axis = data.draw(axis_for(a.ndim))
    n = a.shape[axis] if -a.ndim <= axis < a.ndim else 3
    sec = _sections(data, n)
    check(lambda xp, x: xp.array_split(x, sec, axis=axis), a)
    check(lambda xp, x: xp.split(x, sec, axis=axis), a)
    check(lambda xp, x: xp.split(x, np.asarray(sec), axis), a)
    assert isinstance(fnp.split(fnp.asarray(a), [1], axis=-1), list)


@given(data=st.data())
def test_hsplit_vsplit_dsplit(data):
    a = data.draw(array_of(max_dims=4, max_side=4))
    sec = _sections(data, 4)
    for name in ("hsplit", "vsplit", "dsplit"):
        check(lambda xp, x: getattr(xp, name)(x, sec), a)


def test_split_uneven_raises_like_numpy():
    with pytest.raises(ValueError):
        np.split(np.arange(5), 2)
    expect(fgraph.ShapeError, "split", lambda: fnp.split(fnp.asarray(np.arange(5)), 2))


opt_int = st.none() | st.integers(-7, 7)


@given(a=array_of(min_dims=1, **small), data=st.data())
def test_slice_axis_op_matches_python_slicing(a, data):
    """The split primitive on its own, with any slice (negative steps included)."""
    from fgraph.ops.movement import _slice

    axis = data.draw(st.integers(0, a.ndim - 1))
    start, stop = data.draw(opt_int), data.draw(opt_int)
    step = data.draw(st.sampled_from([None, 1, 2, 3, -1, -2, -3]))
    key = (slice(None),) * axis + (slice(start, stop, step),)
    check(lambda xp, x: x[key] if xp is np else _slice(x, axis, start, stop, step), a)


# ---------------------------------------------------------------- repetition

@given(data=st.data())
def test_tile(data):
    a = data.draw(array_of(max_dims=3, max_side=3))
    reps = data.draw(st.integers(0, 3) | st.lists(st.integers(0, 3), max_size=4).map(tuple)
                     | st.lists(st.integers(-1, 2), min_size=1, max_size=3))
    check(lambda xp, x: xp.tile(x, reps), a)


@given(data=st.data())
def test_repeat(data):
    a = data.draw(array_of(**small))
    axis = data.draw(st.none() | axis_for(a.ndim))
    n = a.size if axis is None else a.shape[axis] if -a.ndim <= axis < a.ndim else 2
    reps = data.draw(st.integers(0, 3) | st.lists(st.integers(0, 3), min_size=n, max_size=n)
                     | st.lists(st.integers(-1, 3), max_size=4) | st.just([2]))
    check(lambda xp, x: xp.repeat(x, reps, axis=axis), a)
    check(lambda xp, x: xp.repeat(x, np.asarray(reps, dtype=np.int32), axis), a)
    check(lambda xp, x: x.repeat(reps, axis=axis), a)


def test_repeat_refuses_float_and_lazy_counts():
    a = np.arange(3)
    check(lambda xp, x: xp.repeat(x, 2.0), a)
    check(lambda xp, x: xp.repeat(x, [1.5, 0, 2]), a)
    check(lambda xp, x: xp.repeat(x, np.array([1.0, 0, 2])), a)
    check(lambda xp, x: xp.repeat(x, np.array([1, 0, 2], np.uint64)), a)
    check(lambda xp, x: xp.repeat(x, []), np.zeros(0))
    check(lambda xp, x: xp.repeat(x, [[1, 1, 1]]), a)
    with pytest.raises(fgraph.FgraphError, match="data-dependent"):  # traced counts (lazy known ones evaluate)
        fnp.repeat(fnp.asarray(a), fnp.placeholder((3,), "int64"))


# ---------------------------------------------------------------- flips and rolls

@given(data=st.data())
def test_flip_fliplr_flipud(data):
    a = data.draw(array_of(**small))
    axis = data.draw(st.none() | axis_for(a.ndim) | axes_tuple(a.ndim))
    check(lambda xp, x: xp.flip(x, axis), a)
    check(lambda xp, x: xp.flip(x), a)
    check(lambda xp, x: xp.fliplr(x), a)
    check(lambda xp, x: xp.flipud(x), a)


@given(data=st.data())
def test_roll(data):
    a = data.draw(array_of(**small))
    axis = data.draw(st.none() | axis_for(a.ndim) | axes_tuple(a.ndim))
    shift = data.draw(st.integers(-7, 7) | st.lists(st.integers(-7, 7), min_size=1, max_size=3).map(tuple))
    if isinstance(axis, tuple) and isinstance(shift, tuple) and data.draw(st.booleans()):
        shift = shift[:1] * len(axis)
    check(lambda xp, x: xp.roll(x, shift, axis), a)
    check(lambda xp, x: xp.roll(x, shift), a)


@given(data=st.data())
def test_rot90(data):
    a = data.draw(array_of(max_dims=4, max_side=3))
    k = data.draw(st.integers(-5, 5))
    axes = data.draw(st.sampled_from([(0, 1), (1, 0)]) | st.tuples(axis_for(a.ndim), axis_for(a.ndim))
                     | st.lists(st.integers(0, 2), max_size=3).map(tuple))
    check(lambda xp, x: xp.rot90(x, k, axes), a)
    check(lambda xp, x: xp.rot90(x), a)


# ---------------------------------------------------------------- diff and pad

@given(data=st.data())
def test_diff(data):
    a = data.draw(array_of(max_dims=3, max_side=4, lo=-50, hi=50))
    n = data.draw(st.integers(-1, 4))
    axis = data.draw(axis_for(a.ndim))
    check(lambda xp, x: xp.diff(x, n, axis), a)
    kind = data.draw(st.sampled_from(["scalar", "array", "both"]))
    if a.ndim and -a.ndim <= axis < a.ndim:
        ext = list(a.shape)
        ext[axis] = data.draw(st.integers(0, 2))
        b = data.draw(array_of(shape=tuple(ext), lo=-50, hi=50))
        c = data.draw(array_of(shape=(), lo=-50, hi=50))
        if kind == "scalar":
            check(lambda xp, x, p: xp.diff(x, n, axis, prepend=p), a, c)
            check(lambda xp, x: xp.diff(x, n, axis, append=3), a)
        elif kind == "array":
            check(lambda xp, x, p: xp.diff(x, n, axis, append=p), a, b)
        else:
            check(lambda xp, x, p, q: xp.diff(x, n, axis, prepend=p, append=q), a, b, c)


@given(data=st.data())
def test_pad_constant(data):
    a = data.draw(array_of(max_dims=3, max_side=3))
    width = st.integers(0, 3)
    pad_width = data.draw(width | st.tuples(width, width) | st.tuples(width)
                          | st.lists(st.tuples(width, width), min_size=a.ndim, max_size=a.ndim)
                          | st.lists(st.tuples(width), min_size=a.ndim, max_size=a.ndim) | st.just(-1))
    value = st.integers(-3, 3) | st.floats(-3, 3) | st.booleans()
    values = data.draw(value | st.tuples(value, value)
                       | st.lists(st.tuples(value, value), min_size=a.ndim, max_size=a.ndim))
    check(lambda xp, x: xp.pad(x, pad_width, constant_values=values), a)
    check(lambda xp, x: xp.pad(x, pad_width), a)
    check(lambda xp, x: xp.pad(x, pad_width, "constant", constant_values=np.float32(2.5)), a)


@pytest.mark.parametrize("mode", ["edge", "wrap", "reflect", "symmetric"])
@settings(max_examples=examples(40))
@given(data=st.data())
def test_pad_copy_modes(mode, data):
    """Modes that copy elements, widths beyond the axis included (NumPy then
    repeats the pattern), axis by axis as NumPy pads."""
    a = data.draw(array_of(max_dims=3, min_side=1, max_side=4))
    width = st.integers(0, 9)
    pad_width = data.draw(width | st.tuples(width, width)
                          | st.lists(st.tuples(width, width), min_size=a.ndim, max_size=a.ndim))
    check(lambda xp, x: xp.pad(x, pad_width, mode=mode), a)


@settings(max_examples=examples(60))
@given(st.sampled_from(["maximum", "minimum", "mean", "median", "linear_ramp"]), st.data())
def test_pad_statistic_and_ramp_modes(mode, data):
    """Statistics of the edge values (stat_length of them) and linear ramps, axis by axis as NumPy pads;
    integer arrays round the mean and median half to even, as NumPy does."""
    a = data.draw(array_of(max_dims=3, min_side=0, max_side=4, lo=-50, hi=50))
    width = st.integers(0, 5)
    pad_width = data.draw(width | st.tuples(width, width)
                          | st.lists(st.tuples(width, width), min_size=a.ndim, max_size=a.ndim))
    if mode == "linear_ramp":
        value = st.integers(-3, 3) | st.floats(-3, 3)
        kw = data.draw(st.just({}) | st.builds(lambda v: {"end_values": v}, value | st.tuples(value, value)))
    else:
        length = st.integers(0, 5)
        kw = data.draw(st.just({}) | st.builds(lambda v: {"stat_length": v}, length | st.tuples(length, length)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the mean of no values, NaN cast to an integer
        check(lambda xp, x: xp.pad(x, pad_width, mode=mode, **kw), a)


def test_pad_edge_cases():
    a = np.arange(6, dtype=np.int8).reshape(2, 3)
    check(lambda xp, x: xp.pad(x, 1, constant_values=1000), a)  # NumPy: OverflowError
    check(lambda xp, x: xp.pad(x, 1.0), a)                      # widths must be integers
    check(lambda xp, x: xp.pad(x, np.uint8(1)), a)
    check(lambda xp, x: xp.pad(x, ((1,), (2,))), a)              # (2, 1): one width per axis
    check(lambda xp, x: xp.pad(x, {1: (1, 2)}), a)
    check(lambda xp, x: xp.pad(x, 2, constant_values=np.nan), np.ones(2))
    with pytest.raises(fgraph.FgraphError, match="not supported lazily"):
        fnp.pad(fnp.asarray(a), 1, mode=lambda vector, width, axis, kwargs: None)  # a function mode
    with pytest.raises(fgraph.FgraphError, match="reflect_type='even'"):
        fnp.pad(fnp.asarray(a), 1, mode="reflect", reflect_type="odd")
    with pytest.raises(fgraph.FgraphError, match="unsupported keyword"):
        fnp.pad(fnp.asarray(a), 1, end_values=3)
    with pytest.raises(fgraph.FgraphError, match="unsupported keyword"):
        fnp.pad(fnp.asarray(a), 1, mode="edge", constant_values=3)
    check(lambda xp, x: xp.pad(x, ((1, 0), (0, 0)), mode="wrap"), np.ones((0, 2)))  # NumPy: empty axis refused
    lazy = fnp.pad(fnp.asarray(a), 1, constant_values=fnp.asarray(np.float64(7.9)))
    np.testing.assert_array_equal(np.asarray(lazy), np.pad(a, 1, constant_values=7))


# ---------------------------------------------------------------- NumPy protocol, methods, structure

def test_numpy_functions_on_lazy_tensors_build_nodes():
    t = fnp.asarray(np.arange(6.0).reshape(2, 3))
    u = fnp.placeholder((2, 3), "float32")
    for out, op in [(np.concatenate([t, u]), "concatenate"), (np.transpose(t), "transpose"),
                    (np.reshape(t, (3, 2)), "reshape"), (np.reshape(t, -1), "reshape"),
                    (np.stack([t, u], axis=1), "concatenate"), (np.flip(t), "flip"),
                    (np.broadcast_to(t, (4, 2, 3)), "broadcast_to"), (np.expand_dims(t, 0), "reshape"),
                    (np.moveaxis(t, 0, 1), "transpose"), (np.tile(t, 2), "reshape"),
                    (np.pad(t, 1), "concatenate"), (np.roll(t, 1, 1), "concatenate"),
                    (np.diff(t), "subtract")]:
        assert isinstance(out, fnp.Tensor) and out.op == op, (out, op)
    assert out.dtype == np.float64
    assert np.concatenate([t, u]).dtype == np.float64
    parts = np.split(t, 3, axis=1)
    assert isinstance(parts, list) and all(p.op == "slice_axis" for p in parts)
    a, b = np.broadcast_arrays(t, fnp.asarray(np.ones((4, 1, 1))))
    assert a.shape == b.shape == (4, 2, 3)
    check(lambda xp, x: np.concatenate([x, x], axis=1), np.arange(6.0).reshape(2, 3))


def test_tensor_methods():
    a = np.arange(6, dtype=np.int32)
    check(lambda xp, x: x.reshape(2, 3), a)
    check(lambda xp, x: x.reshape((2, 3)), a)
    check(lambda xp, x: x.reshape(2, 3).T, a)
    check(lambda xp, x: x.reshape(2, 3).transpose(1, 0), a)
    check(lambda xp, x: x.reshape(1, 2, 1, 3).squeeze(), a)
    check(lambda xp, x: x.reshape(2, 3).ravel(), a)
    check(lambda xp, x: x.reshape(2, 3).flatten(), a)
    check(lambda xp, x: x.reshape(2, 3).swapaxes(0, 1), a)
    check(lambda xp, x: x.reshape(2, 3).repeat(2, axis=0), a)
    check(lambda xp, x: x.reshape(2, 3).repeat([1, 0, 2], axis=1), a)


@settings(max_examples=examples(30), deadline=None)
@given(arr=array_of(min_dims=1, max_dims=3), view=st.sampled_from(["as is", "T", "step", "flip"]))
def test_bytes_files_and_the_remaining_methods_are_numpys(arr, view, tmp_path_factory):
    """``tobytes`` in each order (``"A"`` follows the layout, a transposed
    view's is Fortran's), ``tofile`` binary and text, and the methods
    ``argpartition`` and ``choose``, as NumPy's on the same views."""
    def viewed(x):
        return {"as is": x, "T": x.T, "step": x[..., ::2], "flip": x[::-1]}[view]
    a, t = viewed(arr.copy()), viewed(fnp.asarray(arr.copy()))
    for order in ("C", "F", "A"):
        assert t.tobytes(order) == a.tobytes(order), order
    folder = tmp_path_factory.mktemp("tofile")
    for sep in ("", " "):
        a.tofile(folder / "np", sep=sep)
        t.tofile(folder / "fg", sep=sep)
        assert (folder / "np").read_bytes() == (folder / "fg").read_bytes()
    if a.size and a.dtype.kind != "c":
        np.testing.assert_array_equal(np.sort(a, axis=-1)[..., 0], np.take_along_axis(
            a, np.asarray(t.argpartition(0, axis=-1)), axis=-1)[..., 0])
    picks = (np.arange(a.size).reshape(a.shape) % 2)
    np.testing.assert_array_equal(np.asarray(fnp.asarray(picks).choose([t, t * 2])), picks.choose([a, a * 2]))


def test_tobytes_order_a_follows_the_arrays_layout_not_its_values():
    """A step compiled whole writes ``(x * 2 + 1).T`` as a C-ordered value;
    the array is still NumPy's transposed view, so ``tobytes("A")`` is in
    Fortran order, as NumPy's."""
    from fgraph.engines.numpy_kernels.native import settle

    x0 = np.random.default_rng(0).random((40, 30))
    for k in range(10):  # (the structure comes back: compiled whole by the last iterations)
        y = (fnp.asarray(x0 + k) * 2 + 1).T
        assert y.tobytes("A") == ((x0 + k) * 2 + 1).T.tobytes("A"), k
        settle()


def test_view_ops_are_marked_and_primitives_are_few():
    for op in ("reshape", "transpose", "broadcast_to", "flip", "slice_axis"):
        assert get_attr(op, "view") is True
    for op in ("concatenate", "repeat"):
        assert get_attr(op, "view", False) is False
    t = fnp.placeholder((2, 3, 4), "float32")
    # composites become the primitives
    assert fnp.ravel(t).op == fnp.expand_dims(t, 1).op == fnp.squeeze(fnp.expand_dims(t, 0)).op == "reshape"
    assert fnp.swapaxes(t, 0, 2).op == fnp.moveaxis(t, 0, -1).op == fnp.rot90(t).op == "transpose"
    assert fnp.stack([t, t]).op == fnp.hstack([t, t]).op == "concatenate"


def test_equal_calls_make_equal_params():
    t = fnp.placeholder((2, 3, 4), "float32")
    assert t.reshape(-1).node.key == t.reshape(24).node.key
    assert fnp.transpose(t, (-1, 0, 1)).node.key == fnp.transpose(t, (2, 0, 1)).node.key
    assert fnp.flip(t, (-1, 0)).node.key == fnp.flip(t, (0, 2)).node.key
    assert fnp.split(t, [1], axis=-1)[1].node.key == fnp.split(t, [1], axis=2)[1].node.key
    assert fnp.squeeze(t).node is t.node and fnp.transpose(fnp.placeholder((3,))).op == "placeholder"
    # the -1 "past the front" stop of a reversed slice survives as None
    u = fnp.placeholder((5,), "float32")
    r = fnp.array_split(fnp.flip(u), [2])
    assert [p.shape for p in r] == [(2,), (3,)]


# ---------------------------------------------------------------- errors name the op and the user's line

def expect(cls, op, fn):
    """``fn()`` raises ``cls`` naming ``op`` and the line where ``fn`` is written."""
    with pytest.raises(cls) as info:
        fn()
    msg = str(info.value)
    assert msg.startswith(f"{op}:"), msg
    assert f"test_movement.py:{fn.__code__.co_firstlineno}" in msg, msg


def test_errors_name_the_op_and_line():
    t = fnp.placeholder((2, 3), "float32")
    u = fnp.placeholder((2, 4), "float32")
    cases = [
        (fgraph.ShapeError, "reshape", lambda: t.reshape(4, 2)),
        (fgraph.ShapeError, "reshape", lambda: fnp.reshape(t, (-1, -1))),
        (fgraph.ShapeError, "transpose", lambda: fnp.transpose(t, (0, 2))),
        (fgraph.ShapeError, "transpose", lambda: t.transpose(0, 0)),
        (fgraph.ShapeError, "transpose", lambda: np.transpose(t, (1,))),
        (fgraph.ShapeError, "swapaxes", lambda: t.swapaxes(0, 2)),
        (fgraph.ShapeError, "moveaxis", lambda: fnp.moveaxis(t, 0, (0, 1))),
        (fgraph.ShapeError, "squeeze", lambda: fnp.squeeze(t, 0)),
        (fgraph.ShapeError, "squeeze", lambda: t.squeeze(axis=1)),
        (fgraph.ShapeError, "expand_dims", lambda: fnp.expand_dims(t, (0, 0))),
        (fgraph.ShapeError, "concatenate", lambda: fnp.concatenate([t, u])),
        (fgraph.ShapeError, "concatenate", lambda: np.concatenate([t, u], 0)),
        (fgraph.ShapeError, "concatenate", lambda: fnp.concatenate([t, fnp.ravel(t)])),
        (fgraph.ShapeError, "concatenate", lambda: fnp.concatenate([t], axis=2)),
        (fgraph.DTypeError, "concatenate", lambda: fnp.concatenate([t, t], dtype="int32")),
        (fgraph.ShapeError, "concatenate", lambda: fnp.concatenate([t, t], out=fnp.zeros((3, 3)))),
        (fgraph.ShapeError, "stack", lambda: fnp.stack([t, u])),
        (fgraph.ShapeError, "broadcast_to", lambda: fnp.broadcast_to(t, (3, 3))),
        (fgraph.ShapeError, "broadcast_shapes", lambda: fnp.broadcast_shapes((2,), (3,))),
        (fgraph.ShapeError, "broadcast_arrays", lambda: fnp.broadcast_arrays(t, u)),
        (fgraph.ShapeError, "split", lambda: fnp.split(t, 2, axis=1)),
        (fgraph.ShapeError, "array_split", lambda: fnp.array_split(t, 0)),
        (fgraph.ShapeError, "vsplit", lambda: fnp.vsplit(fnp.ravel(t), 1)),
        (fgraph.ShapeError, "repeat", lambda: fnp.repeat(t, [1, 2], axis=1)),
        (fgraph.ShapeError, "flip", lambda: fnp.flip(t, 2)),
        (fgraph.ShapeError, "rot90", lambda: fnp.rot90(t, axes=(1, 1))),
        (fgraph.ShapeError, "diff", lambda: fnp.diff(t, -1)),
        (fgraph.DTypeError, "pad", lambda: fnp.pad(t, 1.5)),
        (fgraph.FgraphError, "pad", lambda: fnp.pad(t, 1, mode="odd_mode")),
        (fgraph.FgraphError, "reshape", lambda: t.reshape(6, order="K")),
    ]
    for cls, op, fn in cases:
        expect(cls, op, fn)


@settings(max_examples=examples(40))
@given(st.lists(st.integers(-9, 9), min_size=1, max_size=2), st.booleans())
def test_roll_by_shifts_taken_from_an_array(shifts, on_axes):
    # np.roll(base, -s) with s from iterating an array: a lazy 0-d (or 1-d) shift, known now outside tracing
    a = np.arange(12).reshape(3, 4)
    s = np.array(shifts)
    ts = fnp.asarray(s) * 1  # computed, not a constant
    if on_axes:
        axes = tuple(range(len(shifts)))
        want, got = np.roll(a, s, axis=axes), fnp.roll(fnp.asarray(a), ts, axis=axes)
    else:
        want, got = np.roll(a, s[0]), fnp.roll(fnp.asarray(a), ts[0])
    np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(fgraph.ShapeError, match="shift must be a Python value.*placeholder 's'"):
        fnp.roll(fnp.asarray(a), fnp.placeholder((), np.int64, name="s"))


@settings(max_examples=examples(30))
@given(st.integers(-5, 6), st.integers(1, 3))
def test_lazy_parameters_of_view_functions_are_read_not_updated(k, sections):
    # np.rot90(m, k=n) with n = a.max(): NumPy's rot90 does `k %= 4` on its argument; the user's lazy n
    # must keep its value, and the result must alias m exactly as NumPy's does
    n = fnp.asarray(np.array([k])) * 1  # computed, not a constant
    nk = n[0]
    m, want_m = fnp.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3)
    for r, w in [(fnp.rot90(m, k=nk), np.rot90(want_m, k=k)), (fnp.rot90(m, nk), np.rot90(want_m, k))]:
        np.testing.assert_array_equal(np.asarray(r), w)
        r[0, 0] = -k - 10  # a write through the view reaches m where NumPy's reaches want_m
        w[0, 0] = -k - 10
        np.testing.assert_array_equal(np.asarray(m), want_m)
    assert int(nk) == k
    s = fnp.asarray(np.array([sections])) * 1
    a, want_a = fnp.arange(6.0), np.arange(6.0)
    if 6 % sections == 0:
        parts, want_parts = fnp.split(a, s[0]), np.split(want_a, sections)
        parts[-1][0], want_parts[-1][0] = -1.0, -1.0
    parts, want_parts = fnp.split(a, [s[0], s[0] + 1]), np.split(want_a, [sections, sections + 1])
    parts[1][0], want_parts[1][0] = -2.0, -2.0
    np.testing.assert_array_equal(np.asarray(a), want_a)
    assert int(s[0]) == sections

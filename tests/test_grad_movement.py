"""Movement gradient rules against central finite differences (float64)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from gradcheck import check_grad, check_grad2
from oracle import arrays


def small(min_dims=0, max_dims=3, min_side=1, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def values(shape):
    return arrays(np.float64, shape, -2, 2)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_reshape(data):
    a = data.draw(values(small()))
    shape = list(data.draw(st.permutations(a.shape)))
    if shape:
        shape[data.draw(st.integers(0, len(shape) - 1))] = -1 if a.size else shape[0]
    order = data.draw(st.sampled_from("CF"))
    check_grad(lambda xp, x: xp.reshape(x, tuple(shape), order=order), a)
    check_grad(lambda xp, x: xp.ravel(x, order=order), a)
    check_grad(lambda xp, x: xp.squeeze(xp.expand_dims(x, 0), 0), a)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_transpose(data):
    a = data.draw(values(small(max_dims=4)))
    perm = data.draw(st.permutations(range(a.ndim)))
    check_grad(lambda xp, x: xp.transpose(x, perm), a)
    check_grad(lambda xp, x: x.T, a)
    if a.ndim >= 2:
        check_grad(lambda xp, x: xp.moveaxis(xp.swapaxes(x, 0, -1), 0, -2), a)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_broadcast_to(data):
    target = data.draw(small(max_side=3))
    shape = data.draw(hnp.broadcastable_shapes(target, max_side=3).filter(
        lambda s: len(s) <= len(target) and np.broadcast_shapes(s, target) == target))
    a = data.draw(values(shape))
    check_grad(lambda xp, x: xp.broadcast_to(x, target), a)
    # the broadcast of an element-wise op goes through the same sum
    b = data.draw(values(target))
    check_grad(lambda xp, x, y: xp.broadcast_arrays(x, y)[0] * y, a, b)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_flip_and_rotations(data):
    a = data.draw(values(small(min_dims=1)))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1),
                               st.lists(st.integers(0, a.ndim - 1), unique=True).map(tuple)))
    check_grad(lambda xp, x: xp.flip(x, axis), a)
    if a.ndim >= 2:
        k = data.draw(st.integers(-3, 3))
        check_grad(lambda xp, x: xp.rot90(x, k), a)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_slice_axis(data):
    """split/array_split/roll/diff/unstack are slice_axis (with concatenate)."""
    a = data.draw(values(small(min_dims=1, max_side=5)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    points = sorted(data.draw(st.lists(st.integers(0, n), max_size=3)))
    for k in range(len(points) + 1):
        check_grad(lambda xp, x: xp.array_split(x, points, axis=axis)[k], a)
    shift = data.draw(st.integers(-6, 6))
    check_grad(lambda xp, x: xp.roll(x, shift, axis=axis), a)
    check_grad(lambda xp, x: xp.roll(x, shift), a)
    if n:
        order = data.draw(st.integers(1, 2))
        check_grad(lambda xp, x: xp.diff(x, n=order, axis=axis), a)
        check_grad(lambda xp, x: xp.unstack(x, axis=axis)[-1], a)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_concatenate(data):
    shape = data.draw(small(min_dims=1))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    ax = axis % len(shape)
    parts = []
    for _ in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[ax] = data.draw(st.integers(1, 3))
        parts.append(data.draw(values(tuple(s))))
    check_grad(lambda xp, *xs: xp.concatenate(xs, axis=axis), *parts)
    same = [data.draw(values(shape)) for _ in range(2)]
    check_grad(lambda xp, x, y: xp.stack([x, y * x], axis=axis), *same)
    check_grad(lambda xp, x, y: xp.hstack([x, y]) ** 2, *same)


def check_empty(fn, *arrays):
    """Size-0 arguments (which the finite-difference oracle cannot iterate):
    every gradient has its argument's shape and dtype, and is zero."""
    lazy = [fnp.asarray(a) for a in arrays]
    y = fnp.sum(fn(fnp, *lazy))
    for x, g in zip(arrays, fgraph.grad(y, lazy)):
        got = np.asarray(g)
        assert got.shape == x.shape and got.dtype == x.dtype
        assert not got.any()


def test_size_zero():
    e = np.zeros((2, 0, 3))
    check_empty(lambda xp, x: xp.reshape(x, (0, 6)), e)
    check_empty(lambda xp, x: xp.transpose(x) * 2.0, e)
    check_empty(lambda xp, x: xp.broadcast_to(x, (4, 2, 0, 3)), e)
    check_empty(lambda xp, x: xp.flip(x, 0)[:, :, 1:], e)
    check_empty(lambda xp, x: xp.repeat(x, [1, 3], axis=0), e)
    check_empty(lambda xp, x: xp.concatenate([x[:, :0], x[:, 3:]], axis=1), np.ones((2, 3)))
    x, y = fnp.asarray(e[:, :, 0]), fnp.asarray(np.ones((2, 3)))
    gx, gy = fgraph.grad(fnp.sum(fnp.concatenate([x, y], axis=1) * 2.0), [x, y])
    assert np.asarray(gx).shape == (2, 0)
    np.testing.assert_array_equal(np.asarray(gy), np.full((2, 3), 2.0))


def test_concatenate_casts_and_skips_integers():
    """A float32 input's cotangent comes back as float32; an integer input gets none."""
    a = fnp.asarray(np.array([1.0, 2.0], np.float32))
    b = fnp.asarray(np.array([3.0], np.float64))
    i = fnp.asarray(np.array([4, 5]))
    y = fnp.sum(fnp.concatenate([a, i, b]) * np.arange(5.0))
    ga, gb = fgraph.grad(y, [a, b])
    assert ga.dtype == np.float32 and gb.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(ga), [0.0, 1.0])
    np.testing.assert_array_equal(np.asarray(gb), [4.0])


@settings(max_examples=examples(25))
@given(data=st.data())
def test_repeat_and_tile(data):
    a = data.draw(values(small(min_dims=1)))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1)))
    n = a.size if axis is None else a.shape[axis]
    counts = data.draw(st.one_of(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    check_grad(lambda xp, x: xp.repeat(x, counts, axis=axis), a)
    reps = data.draw(st.lists(st.integers(0, 2), max_size=3))
    check_grad(lambda xp, x: xp.tile(x, reps), a)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_pad(data):
    a = data.draw(values(small(min_dims=1)))
    widths = [(data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))) for _ in range(a.ndim)]
    check_grad(lambda xp, x: xp.pad(x, widths, constant_values=1.5), a)


@settings(max_examples=examples(8))
@given(data=st.data())
def test_second_derivatives(data):
    a = data.draw(values(small(min_dims=2, max_dims=2, min_side=2, max_side=3)))
    check_grad2(lambda xp, x: xp.reshape(x, (-1,)) ** 3, a)
    check_grad2(lambda xp, x: xp.transpose(x) * xp.flip(x, 0).T, a)
    check_grad2(lambda xp, x: xp.broadcast_to(x ** 2, (2,) + x.shape) * x, a)
    check_grad2(lambda xp, x: xp.concatenate([x ** 2, x[:, ::-2] ** 3], axis=1), a)
    check_grad2(lambda xp, x: xp.repeat(x, [2, 0] + [1] * (x.shape[0] - 2), axis=0) ** 3, a)
    check_grad2(lambda xp, x: xp.roll(x ** 2, 1, axis=1) * x, a)


def test_compiled_gradient_matches():
    """Gradients compile (optimiser, fuser, memory plan) like any graph, on placeholders."""
    a = np.random.default_rng(0).normal(size=(3, 4))
    ph = fnp.placeholder(a.shape, a.dtype, name="x")

    def f(x):
        y = fnp.concatenate([fnp.flip(x, 1), fnp.repeat(x, [1, 2, 0], axis=0)], axis=0)
        return fnp.sum(fnp.roll(y, 2, axis=1)[::2] ** 2) + fnp.sum(fnp.broadcast_to(x, (2, 3, 4)).T)

    g = fgraph.grad(f(ph), ph)
    exe = fgraph.compile(fgraph.Graph([g], inputs=[ph]))
    (got,) = exe(x=a)
    c = fnp.asarray(a)
    np.testing.assert_allclose(got, np.asarray(fgraph.grad(f(c), c)), rtol=1e-12)
    check_grad(lambda xp, x: xp.concatenate([xp.flip(x, 1), xp.repeat(x, [1, 2, 0], axis=0)], axis=0)[::2] ** 2, a)


def test_rules_only_build_nodes():
    """A rule evaluates nothing: gradients of placeholders are lazy, with the input's shape and dtype."""
    x = fnp.placeholder((3, 4), np.float32, name="x")
    y = fnp.sum(fnp.tile(fnp.pad(x, 1)[1:, ::-1], 2) ** 2)
    g = fgraph.grad(y, x)
    assert isinstance(g, fgraph.Tensor) and g.shape == (3, 4) and g.dtype == np.float32
    with pytest.raises(fgraph.FgraphError):
        np.asarray(g)  # a placeholder has no value to evaluate with

"""Indexing gradient rules against central finite differences (float64),
and the ``scatter_add`` op (their transpose) against ``numpy.add.at``."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.ops.indexing import scatter_add
from gradcheck import check_grad, check_grad2
from oracle import arrays, check


def small(min_dims=0, max_dims=3, min_side=1, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def values(shape):
    return arrays(np.float64, shape, -2, 2)


@st.composite
def slices(draw, n):
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    step = draw(st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
    return slice(draw(bound), draw(bound), step)


@st.composite
def mixed_keys(draw, shape):
    """A key mixing slices, integers, new axes, an Ellipsis and integer arrays (repeats included)."""
    key = []
    common = draw(st.sampled_from([(2,), (3,), (2, 1), (1, 3)]))  # index arrays must broadcast together
    cut = draw(st.integers(0, len(shape))) if draw(st.booleans()) else None  # axes from cut on: the Ellipsis
    for n in shape[:cut]:
        if draw(st.booleans()):
            key.append(None)
        kind = draw(st.sampled_from(["slice", "int", "array"]))
        if kind == "slice":
            key.append(draw(slices(n)))
        elif kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
        else:
            ishape = draw(st.sampled_from([(), common]))
            key.append(draw(hnp.arrays(np.intp, ishape, elements=st.integers(-n, n - 1))))
    if cut is not None:
        key += [Ellipsis] + [None] * draw(st.integers(0, 1))
    return tuple(key)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_basic_indexing(data):
    a = data.draw(values(small(max_dims=4)))
    key = data.draw(hnp.basic_indices(a.shape, allow_newaxis=True, allow_ellipsis=True))
    check_grad(lambda xp, x: x[key], a)


@settings(max_examples=examples(25))
@given(data=st.data())
def test_advanced_and_mixed_indexing(data):
    a = data.draw(values(small(min_dims=1, max_dims=3)))
    key = data.draw(mixed_keys(a.shape))
    check_grad(lambda xp, x: x[key], a)
    idx = data.draw(hnp.integer_array_indices(a.shape, result_shape=small(max_dims=2, max_side=3)))
    check_grad(lambda xp, x: x[idx], a)


def test_repeated_indices_accumulate():
    x = fnp.asarray(np.arange(4.0))
    g = fgraph.grad(fnp.sum(x[np.array([1, 1, 3, 1])] * np.array([1.0, 2.0, 3.0, 4.0])), x)
    np.testing.assert_array_equal(np.asarray(g), [0.0, 7.0, 0.0, 3.0])


def test_lazy_index_arrays():
    """Index arrays computed in the graph (argmax, here) get no gradient; the array does."""
    a = np.random.default_rng(0).normal(size=(3, 4))
    check_grad(lambda xp, x: x[xp.arange(3), xp.argmax(x, axis=1)] * x[:, 0], a)
    check_grad(lambda xp, x: xp.take(x, xp.argsort(x[0]), axis=1), a)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_take(data):
    a = data.draw(values(small(max_dims=3)))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1))) if a.ndim else None
    n = a.size if axis is None else a.shape[axis]
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    lo, hi = (-n, n - 1) if mode == "raise" else (-3 * n, 3 * n)
    ind = data.draw(hnp.arrays(np.intp, small(max_dims=2, max_side=3), elements=st.integers(lo, hi)))
    check_grad(lambda xp, x: xp.take(x, ind, axis=axis, mode=mode), a)
    check_grad(lambda xp, x: xp.take(x, int(ind.reshape(-1)[0]), axis=axis, mode=mode), a)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_take_along_axis(data):
    shape = data.draw(small(min_dims=1))
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    if axis is None:
        a = data.draw(values(shape))
        ind = data.draw(hnp.arrays(np.intp, data.draw(small(min_dims=1, max_dims=1)),
                                   elements=st.integers(-a.size, a.size - 1)))
    else:
        ax = axis % len(shape)
        # arr and indices broadcast against each other on the other axes (a length 1 on either side)
        ashape = tuple(d if k == ax or data.draw(st.booleans()) else 1 for k, d in enumerate(shape))
        ishape = tuple(data.draw(st.integers(1, 4)) if k == ax else (d if ashape[k] == 1 or
                       data.draw(st.booleans()) else 1) for k, d in enumerate(shape))
        a = data.draw(values(ashape))
        ind = data.draw(hnp.arrays(np.intp, ishape, elements=st.integers(-ashape[ax], ashape[ax] - 1)))
    check_grad(lambda xp, x: xp.take_along_axis(x, ind, axis=axis), a)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_select(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=5, max_dims=2, max_side=3))
    c1, c2, x, y, d = shapes.input_shapes
    conds = [data.draw(hnp.arrays(np.bool_, s)) for s in (c1, c2)]
    args = [data.draw(values(s)) for s in (x, y, d)]
    check_grad(lambda xp, x, y, d: xp.select(conds, [x, y * x], d), *args)
    check_grad(lambda xp, x: xp.select(conds[:1], [x]), args[0])


@settings(max_examples=examples(30))
@given(data=st.data())
def test_choose(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=4, max_dims=2, max_side=3))
    mode = data.draw(st.sampled_from(["raise", "wrap", "clip"]))
    lo, hi = (0, 2) if mode == "raise" else (-4, 6)
    a = data.draw(hnp.arrays(np.intp, shapes.input_shapes[0], elements=st.integers(lo, hi)))
    cs = [data.draw(values(s)) for s in shapes.input_shapes[1:]]
    check_grad(lambda xp, x, y, z: xp.choose(a, [x, y, z * x], mode=mode), *cs)


def test_integer_valued_ops_have_no_gradient():
    """searchsorted & co. sit on paths from float inputs but pass nothing back."""
    a = np.random.default_rng(1).normal(size=5)
    check_grad(lambda xp, x: x * xp.searchsorted(xp.sort(x), x), a)
    check_grad(lambda xp, x: x * xp.unravel_index(xp.argmax(x), (5,))[0], a)


@settings(max_examples=examples(8))
@given(data=st.data())
def test_second_derivatives(data):
    a = data.draw(values((3, 4)))
    check_grad2(lambda xp, x: (x ** 2)[1:, ::-2][..., None] * x[0, 1], a)
    check_grad2(lambda xp, x: (x ** 3)[np.array([0, 2, 2]), np.array([1, 1, 3])], a)
    check_grad2(lambda xp, x: xp.take(x ** 2, [[5, 5], [0, 11]]) * x[0, 0], a)
    check_grad2(lambda xp, x: xp.take_along_axis(x ** 3, np.array([[3, 0, 0]]), axis=1), a)
    check_grad2(lambda xp, x: xp.choose(np.array([0, 1, 0, 1]), [x ** 2, x * x[0]]), a)


# ---------------------------------------------------------------- scatter_add, the transpose of gathers

def _scatter(shape, key, front=False):
    """fn(xp, values, *indices): numpy.add.at into zeros, or fgraph's scatter_add."""
    def fn(xp, v, *idx):
        if xp is np:
            z = np.zeros(shape, np.asarray(v).dtype)
            it = iter(idx)
            k = [slice(None) if e is None else next(it) if e == "a" else e for e in key]
            if front:
                k.insert(next(p for p, e in enumerate(key) if e is not None) + 1, Ellipsis)
            np.add.at(z, tuple(k), v)
            return z
        return scatter_add(v, idx, shape, key, front)
    return fn


@settings(max_examples=examples(25))
@given(data=st.data())
def test_scatter_add_oracle(data):
    shape = data.draw(small(min_dims=1, max_side=4))
    key = tuple(data.draw(st.sampled_from([None, "a", "i"])) for _ in shape)
    if all(e is None for e in key):
        key = ("a",) + key[1:]
    key = tuple(data.draw(st.integers(0, n - 1)) if e == "i" else e for e, n in zip(key, shape))
    front = data.draw(st.booleans())
    ishape = data.draw(small(max_dims=2, max_side=3))
    idx = [data.draw(hnp.arrays(data.draw(st.sampled_from([np.intp, np.int32])), ishape,
                                elements=st.integers(-n, n - 1)))
           for e, n in zip(key, shape) if e == "a"]
    gathered = np.zeros(shape)[_scatter_key(key, idx, front)].shape
    v = data.draw(arrays(data.draw(st.sampled_from([np.float32, np.float64, np.int64])), gathered, -3, 3))
    check(_scatter(shape, key, front), v, *idx)
    if v.dtype == np.float64 and v.size:
        check_grad(_scatter(shape, key, front), v, *idx)


def _scatter_key(key, idx, front):
    it = iter(idx)
    k = [slice(None) if e is None else next(it) if e == "a" else e for e in key]
    if front:
        k.insert(next(p for p, e in enumerate(key) if e is not None) + 1, Ellipsis)
    return tuple(k)


def test_scatter_add_broadcasts_values_and_checks_shapes():
    i = np.array([0, 2, 0])
    check(_scatter((3, 2), ("a", None)), np.array([1.0, 2.0]), i)  # values broadcast to (3, 2)
    check_grad(_scatter((3, 2), ("a", None)), np.array([1.0, 2.0]), i)
    with pytest.raises(fgraph.ShapeError, match="(?s)scatter_add.*test_grad_indexing.py"):
        scatter_add(fnp.asarray(np.ones(4)), [i], (3,), ("a",))
    with pytest.raises(fgraph.FgraphError, match="scatter_add"):
        scatter_add(fnp.asarray(np.ones(3)), [np.array([0.5, 1.0, 2.0])], (3,), ("a",))
    with pytest.raises(fgraph.FgraphError, match="scatter_add"):
        np.asarray(scatter_add(fnp.asarray(np.ones(3)), [fnp.asarray(np.array([0, 5, 1]))], (3,), ("a",)))


def test_compiled_gradients():
    """Gradients of gathers compile and plan like any graph (placeholders: nothing evaluated early)."""
    rng = np.random.default_rng(2)
    a, i = rng.normal(size=(4, 5)), np.array([[3, 3], [0, 4]])
    px = fnp.placeholder(a.shape, a.dtype, name="x")
    pi = fnp.placeholder(i.shape, i.dtype, name="i")

    def f(x, idx):
        y = x[1:, ::2][idx % 3] * fnp.take(x, idx % 3, axis=0)[..., :3]
        return fnp.sum(fnp.take_along_axis(x, idx[:, :1] + 0, axis=0) ** 2) + fnp.sum(y ** 2)

    g = fgraph.grad(f(px, pi), px)
    (got,) = fgraph.compile(fgraph.Graph([g], inputs=[px, pi]))(x=a, i=i)
    c = fnp.asarray(a)
    np.testing.assert_allclose(got, np.asarray(fgraph.grad(f(c, fnp.asarray(i)), c)), rtol=1e-12)
    check_grad(lambda xp, x: f(x, fnp.asarray(i)) if xp is fnp else _np_f(x, i), a)


def _np_f(x, idx):
    y = x[1:, ::2][idx % 3] * np.take(x, idx % 3, axis=0)[..., :3]
    return np.sum(np.take_along_axis(x, idx[:, :1] + 0, axis=0) ** 2) + np.sum(y ** 2)

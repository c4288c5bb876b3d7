"""Gradients of fgraph.nn against central finite differences (float64),
through ``gradcheck.check_grad``: for every differentiable op and composite,
the finite differences are taken on the NumPy references of test_nn.py (so
neither side uses the kernels being differentiated), on random shapes and
parameters.  Second derivatives (``check_grad2``) for the convolutions, the
pools' linear parts, softmax, layer_norm, sigmoid, gelu and erf.

Inputs stay away from non-smooth points: pooled values are distinct
(a permutation), relu-like inputs are at least 0.1 away from 0.
"""
import math

import numpy as np
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.nn as nn
import fgraph.numpy as fnp
from gradcheck import check_grad, check_grad2
from test_nn import (ref_avg_pool2d, ref_conv2d, ref_conv_transpose2d, ref_erf, ref_max_pool2d, ref_pair,
                     padding_arg, pair_arg)

seeds = st.integers(0, 2**32 - 1)


def rand(seed, *shape):
    return np.random.default_rng(seed).normal(size=shape)


def away_from_zero(seed, *shape):
    v = rand(seed, *shape)
    return np.sign(v + 1e-300) * (0.1 + np.abs(v))


def distinct(seed, *shape):
    """Distinct values, 0.1 apart at least (no ties in a window)."""
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(n).reshape(shape) * 0.1 - n * 0.05


def by(ref, op):
    """fn(xp, ...): the NumPy reference for xp=np, the fgraph op otherwise."""
    return lambda xp, *a: ref(*a) if xp is np else op(*a)


# ---------------------------------------------------------------- convolutions

@st.composite
def conv_geometry(draw, transpose=False):
    groups = draw(st.integers(1, 2))
    cg, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    n, h, w = draw(st.integers(1, 2)), draw(st.integers(2, 4)), draw(st.integers(2, 4))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    kwargs = dict(stride=draw(pair_arg(1, 2)), padding=draw(padding_arg(1)), dilation=draw(pair_arg(1, 2)),
                  groups=groups)
    if transpose:
        kwargs["output_padding"] = draw(pair_arg(0, 1))
        return (n, groups * cg, h, w), (groups * cg, og, kh, kw), groups * og, kwargs
    return (n, groups * cg, h, w), (groups * og, cg, kh, kw), groups * og, kwargs


def _fits(x_shape, w_shape, kw):
    dh, dw = ref_pair(kw["dilation"])
    p = kw["padding"]
    (pt, pb), (pl, pr) = ((p, p), (p, p)) if isinstance(p, int) else \
        (((p[0], p[0]), (p[1], p[1])) if isinstance(p[0], int) else p)
    return (x_shape[2] + pt + pb - dh * (w_shape[2] - 1) - 1 >= 0 and
            x_shape[3] + pl + pr - dw * (w_shape[3] - 1) - 1 >= 0)


@settings(max_examples=examples(30))
@given(geo=conv_geometry(), seed=seeds, bias=st.booleans())
def test_conv2d(geo, seed, bias):
    xs, ws, o, kw = geo
    if not _fits(xs, ws, kw):
        return
    x, w, b = rand(seed, *xs), rand(seed + 1, *ws), rand(seed + 2, o)
    if bias:
        check_grad(lambda xp, x, w, b: ref_conv2d(x, w, b, **kw) if xp is np else nn.conv2d(x, w, b, **kw), x, w, b)
    else:
        check_grad(by(lambda x, w: ref_conv2d(x, w, **kw), lambda x, w: nn.conv2d(x, w, **kw)), x, w)


@settings(max_examples=examples(25))
@given(geo=conv_geometry(transpose=True), seed=seeds)
def test_conv_transpose2d(geo, seed):
    xs, ws, o, kw = geo
    x, w = rand(seed, *xs), rand(seed + 1, *ws)
    try:
        ref_conv_transpose2d(x, w, **kw)
    except ValueError:
        return
    check_grad(by(lambda x, w: ref_conv_transpose2d(x, w, **kw), lambda x, w: nn.conv_transpose2d(x, w, **kw)),
               x, w)


def test_conv2d_second_derivatives():
    """Through conv_transpose2d and conv2d_backward_weight, and their rules."""
    kw = dict(stride=(2, 1), padding=((1, 0), (0, 1)), dilation=(1, 2), groups=2)
    x, w = rand(0, 1, 4, 4, 4), rand(1, 4, 2, 2, 2)
    check_grad2(by(lambda x, w: ref_conv2d(x, w, **kw), lambda x, w: nn.conv2d(x, w, **kw)), x, w)
    kt = dict(stride=2, padding=1, output_padding=(1, 0), groups=1)
    check_grad2(by(lambda x, w: ref_conv_transpose2d(x, w, **kt), lambda x, w: nn.conv_transpose2d(x, w, **kt)),
                rand(2, 1, 2, 3, 3), rand(3, 2, 2, 3, 2))


@settings(max_examples=examples(8))
@given(geo=conv_geometry(), seed=seeds)
def test_conv2d_second_derivatives_random(geo, seed):
    xs, ws, _, kw = geo
    if not _fits(xs, ws, kw):
        return
    check_grad2(by(lambda x, w: ref_conv2d(x, w, **kw), lambda x, w: nn.conv2d(x, w, **kw)),
                rand(seed, 1, *xs[1:]), rand(seed + 1, *ws))


def test_conv_transpose2d_long_output_padding():
    """output_padding >= stride: the gradient crops (and pads x) back."""
    kw = dict(stride=1, output_padding=(2, 1), dilation=2)
    check_grad(by(lambda x, w: ref_conv_transpose2d(x, w, **kw), lambda x, w: nn.conv_transpose2d(x, w, **kw)),
               rand(0, 1, 2, 3, 3), rand(1, 2, 2, 2, 2))


# ---------------------------------------------------------------- pooling

@st.composite
def pool_geometry(draw, dilation=True):
    kwargs = dict(kernel_size=draw(pair_arg(1, 3)), stride=draw(st.one_of(st.none(), pair_arg(1, 2))),
                  padding=draw(padding_arg(1)), ceil_mode=draw(st.booleans()))
    if dilation:
        kwargs["dilation"] = draw(pair_arg(1, 2))
    return (draw(st.integers(1, 2)), 2, draw(st.integers(2, 5)), draw(st.integers(2, 5))), kwargs


@settings(max_examples=examples(30))
@given(geo=pool_geometry(), seed=seeds)
def test_max_pool2d(geo, seed):
    shape, kw = geo
    x = distinct(seed, *shape)
    try:
        if not np.isfinite(ref_max_pool2d(x, **kw)).all():
            return  # a window wholly in the padding: -inf
    except ValueError:
        return
    check_grad(by(lambda x: ref_max_pool2d(x, **kw), lambda x: nn.max_pool2d(x, **kw)), x)


def test_max_pool2d_ties_go_to_the_first():
    x = np.zeros((1, 1, 2, 2))
    g = fgraph.grad(lambda t: fnp.sum(nn.max_pool2d(t, 2)))(x)
    np.testing.assert_array_equal(g, [[[[1.0, 0.0], [0.0, 0.0]]]])


@settings(max_examples=examples(30))
@given(geo=pool_geometry(dilation=False), seed=seeds, count_include_pad=st.booleans())
def test_avg_pool2d(geo, seed, count_include_pad):
    shape, kw = geo
    kw["count_include_pad"] = count_include_pad
    x = rand(seed, *shape)
    try:
        want = ref_avg_pool2d(x, **kw)
    except ValueError:
        return
    if not np.isfinite(want).all():  # a window wholly in the padding with count_include_pad=False
        return
    check_grad(by(lambda x: ref_avg_pool2d(x, **kw), lambda x: nn.avg_pool2d(x, **kw)), x)


def test_pools_second_derivatives():
    """The backward ops are linear in the cotangent: grad of grad goes
    through max_pool2d_select / avg_pool2d (and back)."""
    x = distinct(0, 1, 2, 4, 5)
    kw = dict(kernel_size=(2, 3), stride=(1, 2), padding=((1, 0), (1, 1)), ceil_mode=True)
    check_grad2(lambda xp, x: (ref_max_pool2d(x, **kw) if xp is np else nn.max_pool2d(x, **kw)) ** 2, x)
    ka = dict(kernel_size=2, stride=1, padding=1, count_include_pad=False)
    check_grad2(lambda xp, x: (ref_avg_pool2d(x, **ka) if xp is np else nn.avg_pool2d(x, **ka)) ** 2,
                rand(1, 1, 2, 3, 3))


def test_global_avg_pool2d_and_upsample():
    x = rand(0, 2, 2, 3, 2)
    check_grad(by(lambda x: x.mean(axis=(2, 3), keepdims=True), nn.global_avg_pool2d), x)
    check_grad(by(lambda x: np.repeat(np.repeat(x, 2, axis=2), 3, axis=3), lambda x: nn.upsample_nearest(x, (2, 3))),
               x)


# ---------------------------------------------------------------- activations

def test_activations():
    x = away_from_zero(0, 3, 4)
    check_grad(by(lambda x: np.maximum(x, 0), nn.relu), x)
    check_grad(by(lambda x: np.where(x > 0, x, 0.2 * x), lambda x: nn.leaky_relu(x, 0.2)), x)
    y = rand(1, 3, 4) * 4
    sig = by(lambda x: 1 / (1 + np.exp(-x)), nn.sigmoid)
    check_grad(sig, y)
    check_grad2(sig, y[:2])
    check_grad(sig, np.zeros(3))  # the derivative at 0 is 1/4 on both branches
    for approximate in ("none", "tanh"):
        def ref(x, a=approximate):
            if a == "tanh":
                return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
            return 0.5 * x * (1 + ref_erf(x / math.sqrt(2)))
        f = by(ref, lambda x, a=approximate: nn.gelu(x, approximate=a))
        check_grad(f, y)
        check_grad2(f, y[:2])
    check_grad(by(ref_erf, nn.erf), y)
    check_grad2(by(ref_erf, nn.erf), y[:2])


def test_relu_derivative_at_zero_is_zero():
    g = fgraph.grad(lambda t: fnp.sum(nn.relu(t)))(np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])


def _softmax(x, axis, log=False):
    s = x - x.max(axis=axis, keepdims=True)
    e = np.exp(s)
    return s - np.log(e.sum(axis=axis, keepdims=True)) if log else e / e.sum(axis=axis, keepdims=True)


@settings(max_examples=examples(20))
@given(seed=seeds, shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), log=st.booleans(), data=st.data())
def test_softmax(seed, shape, log, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = rand(seed, *shape) * 3
    op = nn.log_softmax if log else nn.softmax
    check_grad(by(lambda x: _softmax(x, axis, log), lambda x: op(x, axis)), x)


def test_softmax_second_derivatives():
    for log in (False, True):
        op = nn.log_softmax if log else nn.softmax
        check_grad2(by(lambda x: _softmax(x, 1, log), lambda x: op(x, 1)), rand(0, 2, 4))


# ---------------------------------------------------------------- losses, layers

@settings(max_examples=examples(20))
@given(seed=seeds, n=st.integers(1, 3), c=st.integers(2, 4), reduction=st.sampled_from(["mean", "sum", "none"]),
       probs=st.booleans())
def test_cross_entropy(seed, n, c, reduction, probs):
    logits = rand(seed, n, c) * 2
    rng = np.random.default_rng(seed)
    target = rng.random((n, c)) if probs else rng.integers(0, c, n)

    def ref(logits, target):
        logp = _softmax(logits, -1, log=True)
        loss = -(target * logp).sum(-1) if probs else -logp[np.arange(n), target]
        return {"mean": np.mean, "sum": np.sum, "none": lambda t: t}[reduction](loss)
    check_grad(lambda xp, lg, t: ref(lg, t) if xp is np else nn.cross_entropy(lg, t, reduction=reduction),
               logits, target)


def test_batch_norm():
    x = rand(0, 3, 2, 2, 2)
    mean, var, w, b = rand(1, 2), np.abs(rand(2, 2)) + 0.5, rand(3, 2), rand(4, 2)
    bs = (1, 2, 1, 1)

    def inference(x, mean, var, w, b):
        return (x - mean.reshape(bs)) / np.sqrt(var.reshape(bs) + 1e-5) * w.reshape(bs) + b.reshape(bs)
    check_grad(by(inference, lambda *a: nn.batch_norm(a[0], a[1], a[2], a[3], a[4])), x, mean, var, w, b)

    def training(x, w, b):
        m, v = x.mean(axis=(0, 2, 3), keepdims=True), x.var(axis=(0, 2, 3), keepdims=True)
        return (x - m) / np.sqrt(v + 1e-5) * w.reshape(bs) + b.reshape(bs)
    check_grad(by(training, lambda x, w, b: nn.batch_norm(x, mean, var, w, b, training=True)[0]), x, w, b)

    def new_var(x, var):
        return 0.9 * var + 0.1 * x.var(axis=(0, 2, 3), ddof=1)
    check_grad(by(new_var, lambda x, v: nn.batch_norm(x, mean, v, training=True)[2]), x, var)


def _layer_norm(x, w, b, axes):
    y = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + 1e-5)
    return y * w + b


def test_layer_norm():
    x = rand(0, 2, 3, 4)
    w, b = rand(1, 4), rand(2, 4)
    f = by(lambda x, w, b: _layer_norm(x, w, b, -1), lambda x, w, b: nn.layer_norm(x, w, b))
    check_grad(f, x, w, b)
    check_grad2(f, x[:1, :2], w, b)
    w2, b2 = rand(3, 3, 4), rand(4, 3, 4)
    check_grad(by(lambda x, w, b: _layer_norm(x, w, b, (1, 2)), lambda x, w, b: nn.layer_norm(x, w, b, axis=(1, 2))),
               x, w2, b2)


def test_local_response_norm():
    x = rand(0, 2, 4, 2, 1)

    def ref(x, size=3, alpha=0.5, beta=0.75, k=2.0):
        out = np.empty_like(x)
        for c in range(x.shape[1]):
            lo, hi = max(0, c - (size - 1) // 2), min(x.shape[1] - 1, c + size // 2)
            out[:, c] = x[:, c] / (k + alpha / size * (x[:, lo:hi + 1] ** 2).sum(axis=1)) ** beta
        return out
    check_grad(by(ref, lambda x: nn.local_response_norm(x, 3, 0.5, 0.75, 2.0)), x)


def test_linear_embedding_flatten():
    x, w, b = rand(0, 3, 4), rand(1, 4, 2), rand(2, 2)
    check_grad(by(lambda x, w, b: x @ w + b, nn.linear), x, w, b)
    ids = np.array([[0, 2], [2, 2]])  # a repeated id accumulates
    check_grad(lambda xp, i, t: t[i] if xp is np else nn.embedding(i, t), ids, rand(3, 3, 2))
    check_grad(by(lambda x: x.reshape(2, -1), nn.flatten), rand(4, 2, 3, 2))


def test_dropout():
    x = rand(0, 4, 5)
    rate, key = 0.4, 11
    keep = np.random.Generator(np.random.Philox(key=key)).random(x.shape) >= rate
    check_grad(by(lambda x: np.where(keep, x / (1 - rate), 0.0), lambda x: nn.dropout(x, rate, key)), x)


def test_backward_ops_are_transposes():
    """<backward(g), c> == <g, select(c)> (max pool) and <avg(x), g> == <x,
    avg_backward(g)>, and the gradient of each is the other (third derivatives)."""
    from fgraph.ops import nn as ops

    x = distinct(0, 2, 3, 5, 4)
    p = dict(kernel=(2, 3), stride=(2, 1), padding=((1, 0), (0, 1)), dilation=(1, 1), ceil_mode=True)
    y = np.asarray(ops.max_pool2d(x, **p))
    g, c = rand(1, *y.shape), rand(2, *x.shape)
    back, sel = np.asarray(ops.max_pool2d_backward(x, y, g, **p)), np.asarray(ops.max_pool2d_select(x, y, c, **p))
    np.testing.assert_allclose(np.sum(back * c), np.sum(g * sel), rtol=1e-12)
    check_grad(lambda xp, c: np.asarray(ops.max_pool2d_select(x, y, c, **p)) if xp is np
               else ops.max_pool2d_select(x, y, c, **p), c)
    a = dict(kernel=(2, 2), stride=(1, 2), padding=((1, 1), (0, 1)), ceil_mode=True, count_include_pad=False)
    ya = np.asarray(ops.avg_pool2d(x, **a))
    ga = rand(3, *ya.shape)
    np.testing.assert_allclose(np.sum(ya * ga), np.sum(x * np.asarray(ops.avg_pool2d_backward(ga, x.shape[2:], **a))),
                               rtol=1e-12)


def test_no_gradient_where_there_is_none():
    """Empty inputs, integer pools and the random key get no cotangent (zeros)."""
    w = fnp.asarray(rand(0, 2, 3, 1, 1))
    x = fnp.asarray(np.zeros((0, 3, 2, 2)))
    gx, gw = fgraph.grad(fnp.sum(nn.conv2d(x, w)), [x, w])
    assert gx.shape == x.shape and np.asarray(gw).shape == w.shape
    xt = fnp.asarray(np.zeros((0, 2, 2, 2)))
    gx, gw = fgraph.grad(fnp.sum(nn.conv_transpose2d(xt, fnp.asarray(rand(1, 2, 3, 1, 1)))), [xt, w])
    assert gx.shape == xt.shape
    v = fnp.asarray(rand(2, 1, 1, 4, 4))
    pooled = nn.max_pool2d(v.astype(np.int64), 2).astype(np.float64)
    np.testing.assert_array_equal(np.asarray(fgraph.grad(fnp.sum(pooled * v[:, :, :2, :2]), v))[0, 0, 2:], 0.0)
    d = nn.dropout(v, 0.5, fnp.floor(fnp.sum(v) * 0 + 3).astype(np.int64))  # a key computed from v
    np.testing.assert_array_equal(np.asarray(fgraph.grad(fnp.sum(d), v)) * 0.5 != 0, np.asarray(d) != 0)

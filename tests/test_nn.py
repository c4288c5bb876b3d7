"""Oracle tests of fgraph.nn against NumPy references written here,
independently of the kernels: direct loops over output positions (one
``np.einsum`` per window) for the convolutions, a loop over windows for the
pools, the textbook formulas in float64 for the composites, ``math.erf``
for erf.  ``oracle.check`` runs every case compiled (placeholders) and
evaluated (constants); where a reference raises, fgraph must raise an
FgraphError.  Mistakes must raise naming the function and this file.
"""
import math

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.nn as nn
import fgraph.numpy as fnp
from oracle import check

FLOATS = [np.dtype("float32"), np.dtype("float64")]
seeds = st.integers(0, 2**32 - 1)


def rand(seed, shape, dtype=np.float64, scale=1.0):
    return (np.random.default_rng(seed).normal(size=shape) * scale).astype(dtype)


def tol(*dtypes):
    """(rtol, atol) for results computed in float64 by the reference."""
    if any(np.dtype(d) == np.float32 for d in dtypes):
        return dict(rtol=2e-5, atol=2e-5)
    return dict(rtol=1e-11, atol=1e-11)


# ---------------------------------------------------------------- references

def ref_pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def ref_padding(p):
    if isinstance(p, int):
        return ((p, p), (p, p))
    if isinstance(p[0], int):
        return ((p[0], p[0]), (p[1], p[1]))
    return tuple(tuple(q) for q in p)


def ref_conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    (sh, sw), ((pt, pb), (pl, pr)), (dh, dw) = ref_pair(stride), ref_padding(padding), ref_pair(dilation)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    if c != cg * groups or o % groups:
        raise ValueError("channels do not match the groups")
    ho, wo = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1, (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    if ho <= 0 or wo <= 0:
        raise ValueError("empty output")
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for g in range(groups):
        xg, wg = xp[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og].astype(np.float64)
        for i in range(ho):
            for j in range(wo):
                win = xg[:, :, i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw]
                out[:, g * og:(g + 1) * og, i, j] = np.einsum("ncab,ocab->no", win, wg)
    dtypes = [x.dtype, w.dtype]
    if b is not None:
        out += b[None, :, None, None]
        dtypes.append(b.dtype)
    return out.astype(np.result_type(*dtypes))


def ref_conv_transpose2d(x, w, b=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1):
    (sh, sw), ((pt, pb), (pl, pr)), (dh, dw) = ref_pair(stride), ref_padding(padding), ref_pair(dilation)
    oph, opw = ref_pair(output_padding)
    n, c, h, wd = x.shape
    cw, og, kh, kw = w.shape
    if cw != c or c % groups:
        raise ValueError("channels do not match")
    cg, o = c // groups, og * groups
    ho = (h - 1) * sh - pt - pb + dh * (kh - 1) + oph + 1
    wo = (wd - 1) * sw - pl - pr + dw * (kw - 1) + opw + 1
    if ho <= 0 or wo <= 0:
        raise ValueError("empty output")
    full = np.zeros((n, o, max((h - 1) * sh + dh * (kh - 1) + 1, pt + ho),
                     max((wd - 1) * sw + dw * (kw - 1) + 1, pl + wo)))
    for g in range(groups):
        wg = w[g * cg:(g + 1) * cg].astype(np.float64)
        for i in range(h):
            for j in range(wd):
                part = np.einsum("nc,coab->noab", x[:, g * cg:(g + 1) * cg, i, j].astype(np.float64), wg)
                full[:, g * og:(g + 1) * og, i * sh:i * sh + dh * (kh - 1) + 1:dh,
                     j * sw:j * sw + dw * (kw - 1) + 1:dw] += part
    out = full[:, :, pt:pt + ho, pl:pl + wo]
    dtypes = [x.dtype, w.dtype]
    if b is not None:
        out = out + b[None, :, None, None]
        dtypes.append(b.dtype)
    return out.astype(np.result_type(*dtypes))


def ref_pool_size(n, k, s, p0, p1, d, ceil_mode):
    """PyTorch's pooling output length (its pooling_output_shape)."""
    num = n + p0 + p1 - d * (k - 1) - 1
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= n + p0:
        out -= 1
    return out


def ref_max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    (kh, kw) = ref_pair(kernel_size)
    (sh, sw) = (kh, kw) if stride is None else ref_pair(stride)
    ((pt, pb), (pl, pr)), (dh, dw) = ref_padding(padding), ref_pair(dilation)
    n, c, h, wd = x.shape
    ho, wo = ref_pool_size(h, kh, sh, pt, pb, dh, ceil_mode), ref_pool_size(wd, kw, sw, pl, pr, dw, ceil_mode)
    if ho <= 0 or wo <= 0:
        raise ValueError("empty output")
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    bottom = max(pb, (ho - 1) * sh + dh * (kh - 1) + 1 - h - pt)
    right = max(pr, (wo - 1) * sw + dw * (kw - 1) + 1 - wd - pl)
    xp = np.pad(x, ((0, 0), (0, 0), (pt, bottom), (pl, right)), constant_values=low)
    out = np.empty((n, c, ho, wo), x.dtype)
    for i in range(ho):
        for j in range(wo):
            win = xp[:, :, i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw]
            out[:, :, i, j] = win.max(axis=(2, 3)) if win.size else low
    return out


def ref_avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """PyTorch's algorithm: the window clipped to the padded image, then to the image."""
    (kh, kw) = ref_pair(kernel_size)
    (sh, sw) = (kh, kw) if stride is None else ref_pair(stride)
    ((pt, pb), (pl, pr)) = ref_padding(padding)
    n, c, h, wd = x.shape
    ho, wo = ref_pool_size(h, kh, sh, pt, pb, 1, ceil_mode), ref_pool_size(wd, kw, sw, pl, pr, 1, ceil_mode)
    if ho <= 0 or wo <= 0:
        raise ValueError("empty output")
    out = np.empty((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            h0, w0 = i * sh - pt, j * sw - pl
            h1, w1 = min(h0 + kh, h + pb), min(w0 + kw, wd + pr)
            size = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, wd)
            total = x[:, :, h0:h1, w0:w1].astype(np.float64).sum(axis=(2, 3))
            with np.errstate(invalid="ignore", divide="ignore"):
                out[:, :, i, j] = total / (size if count_include_pad else (h1 - h0) * (w1 - w0))
    return out.astype(x.dtype)


def ref_erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(np.asarray(x, np.float64))


# ---------------------------------------------------------------- strategies

def padding_arg(hi=2):
    i = st.integers(0, hi)
    return st.one_of(i, st.tuples(i, i), st.tuples(st.tuples(i, i), st.tuples(i, i)))


def pair_arg(lo, hi):
    return st.one_of(st.integers(lo, hi), st.tuples(st.integers(lo, hi), st.integers(lo, hi)))


@st.composite
def conv_case(draw):
    groups, cg, og = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    n, h, w = draw(st.integers(0, 2)), draw(st.integers(1, 7)), draw(st.integers(1, 7))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dx, dw = draw(st.sampled_from([(np.float32, np.float32), (np.float64, np.float64), (np.float32, np.float64)]))
    seed = draw(seeds)
    x = rand(seed, (n, groups * cg, h, w), dx)
    wt = rand(seed + 1, (groups * og, cg, kh, kw), dw)
    b = rand(seed + 2, (groups * og,), dw) if draw(st.booleans()) else None
    kwargs = dict(stride=draw(pair_arg(1, 3)), padding=draw(padding_arg()), dilation=draw(pair_arg(1, 2)),
                  groups=groups)
    return x, wt, b, kwargs


class small_scratch:
    """Run with another im2col budget (a tiny one chunks images by rows) and,
    optionally, another image size below which images are batched."""

    def __init__(self, nbytes, batch_below=None):
        self.nbytes, self.batch_below = nbytes, batch_below

    def __enter__(self):
        from fgraph.ops import nn_kernels as k

        self.k, self.old = k, (k.SCRATCH_BYTES, k.BATCH_BELOW)
        k.SCRATCH_BYTES = self.nbytes
        if self.batch_below is not None:
            k.BATCH_BELOW = self.batch_below

    def __exit__(self, *exc):
        self.k.SCRATCH_BYTES, self.k.BATCH_BELOW = self.old


# ---------------------------------------------------------------- convolutions

def _conv(xp, x, w, b, **kw):
    if xp is np:
        return ref_conv2d(x, w, b, **kw)
    return nn.conv2d(x, w, b, **kw)


@settings(max_examples=examples(100))
@given(case=conv_case(), scratch=st.sampled_from([None, 64, 4096]), batch_below=st.sampled_from([None, 1]))
def test_conv2d(case, scratch, batch_below):
    x, w, b, kw = case
    args = (x, w) if b is None else (x, w, b)
    with small_scratch(scratch if scratch is not None else 4 << 20, batch_below):
        check(lambda xp, x, w, b=None: _conv(xp, x, w, b, **kw), *args, **tol(x.dtype, w.dtype))


@pytest.mark.parametrize("n,c,o,k,stride,padding,groups", [
    (2, 4, 6, 1, 1, 0, 1),      # 1x1: a plain matmul
    (2, 4, 6, 1, 1, 0, 2),      # grouped 1x1
    (1, 3, 5, 1, 2, 0, 1),      # strided 1x1: im2col of a subsample
    (2, 4, 4, 3, 1, 1, 4),      # depthwise
    (2, 3, 6, 3, 2, 1, 3),      # depthwise with a channel multiplier
    (3, 2, 3, 2, 1, ((0, 1), (1, 0)), 1),
])
@pytest.mark.parametrize("dtype", FLOATS)
def test_conv2d_paths(n, c, o, k, stride, padding, groups, dtype):
    x, w = rand(1, (n, c, 6, 5), dtype), rand(2, (o, c // groups, k, k), dtype)
    for scratch, batch_below in ((32, None), (4 << 20, None), (4 << 20, 1)):
        with small_scratch(scratch, batch_below):
            check(lambda xp, x, w: _conv(xp, x, w, None, stride=stride, padding=padding, groups=groups), x, w,
                  **tol(dtype))


@st.composite
def conv_transpose_case(draw):
    groups, cg, og = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    n, h, w = draw(st.integers(0, 2)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dx = draw(st.sampled_from(FLOATS))
    seed = draw(seeds)
    x = rand(seed, (n, groups * cg, h, w), dx)
    wt = rand(seed + 1, (groups * cg, og, kh, kw), dx)
    b = rand(seed + 2, (groups * og,), dx) if draw(st.booleans()) else None
    kwargs = dict(stride=draw(pair_arg(1, 3)), padding=draw(padding_arg()), output_padding=draw(pair_arg(0, 2)),
                  dilation=draw(pair_arg(1, 2)), groups=groups)
    return x, wt, b, kwargs


@settings(max_examples=examples(80))
@given(case=conv_transpose_case(), scratch=st.sampled_from([None, 64]), batch_below=st.sampled_from([None, 1]))
@example(case=(rand(0, (2, 4, 3, 3)), rand(1, (4, 3, 1, 1)), None, dict(groups=2)), scratch=None,
         batch_below=1)  # 1x1: a plain product
def test_conv_transpose2d(case, scratch, batch_below):
    x, w, b, kw = case

    def f(xp, x, w, b=None):
        return ref_conv_transpose2d(x, w, b, **kw) if xp is np else nn.conv_transpose2d(x, w, b, **kw)
    with small_scratch(scratch if scratch is not None else 4 << 20, batch_below):
        check(f, *((x, w) if b is None else (x, w, b)), **tol(x.dtype))


def test_conv_transpose2d_is_the_adjoint_of_conv2d():
    """<conv2d(x, w), y> == <x, conv_transpose2d(y, w)> (output_padding giving x's size)."""
    x, w = rand(0, (2, 4, 7, 6)), rand(1, (6, 2, 3, 2))
    kw = dict(stride=(2, 3), padding=((1, 0), (0, 1)), dilation=(1, 2), groups=2)
    y = np.asarray(nn.conv2d(x, w, **kw))
    g = rand(2, y.shape)
    h_full = (y.shape[2] - 1) * 2 - 1 + 2 + 1
    w_full = (y.shape[3] - 1) * 3 - 1 + 2 + 1
    back = np.asarray(nn.conv_transpose2d(g, w, output_padding=(7 - h_full, 6 - w_full), **kw))
    assert back.shape == x.shape
    np.testing.assert_allclose(np.sum(y * g), np.sum(x * back), rtol=1e-12)


# ---------------------------------------------------------------- pooling

@st.composite
def pool_case(draw, dtypes, dilation=True):
    n, c, h, w = draw(st.integers(0, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 7)), draw(st.integers(1, 7))
    x = rand(draw(seeds), (n, c, h, w), np.float64, 10)
    dt = draw(st.sampled_from(dtypes))
    x = x.astype(dt)
    kwargs = dict(kernel_size=draw(pair_arg(1, 3)), stride=draw(st.one_of(st.none(), pair_arg(1, 3))),
                  padding=draw(padding_arg(1)), ceil_mode=draw(st.booleans()))
    if dilation:
        kwargs["dilation"] = draw(pair_arg(1, 2))
    return x, kwargs


@settings(max_examples=examples(60))
@given(case=pool_case([np.float32, np.float64, np.int32, np.int64]))
def test_max_pool2d(case):
    x, kw = case
    check(lambda xp, x: ref_max_pool2d(x, **kw) if xp is np else nn.max_pool2d(x, **kw), x)


def test_max_pool2d_nan_propagates():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 1, 1] = np.nan
    got = np.asarray(nn.max_pool2d(x, 2))
    assert np.isnan(got[0, 0, 0, 0]) and not np.isnan(got[0, 0, 1, 1])


@settings(max_examples=examples(60))
@given(case=pool_case(FLOATS, dilation=False), count_include_pad=st.booleans())
def test_avg_pool2d(case, count_include_pad):
    x, kw = case
    kw["count_include_pad"] = count_include_pad

    def f(xp, x):
        return ref_avg_pool2d(x, **kw) if xp is np else nn.avg_pool2d(x, **kw)
    check(f, x, **tol(x.dtype), paths=("compile", "eval"))


def test_global_avg_pool2d():
    x = rand(0, (2, 3, 4, 5), np.float32)
    check(lambda xp, x: x.mean(axis=(2, 3), keepdims=True) if xp is np else nn.global_avg_pool2d(x), x)


@settings(max_examples=examples(20))
@given(seed=seeds, scale=pair_arg(1, 3), dtype=st.sampled_from(FLOATS + [np.dtype(np.int32)]))
def test_upsample_nearest(seed, scale, dtype):
    x = rand(seed, (2, 3, 3, 2), dtype, 5)
    sh, sw = ref_pair(scale)
    check(lambda xp, x: np.repeat(np.repeat(x, sh, axis=2), sw, axis=3) if xp is np
          else nn.upsample_nearest(x, scale), x)


# ---------------------------------------------------------------- activations

@st.composite
def float_array(draw, max_dims=3, scale=5.0, dtypes=FLOATS):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=max_dims)))
    return rand(draw(seeds), shape, draw(st.sampled_from(dtypes)), scale)


@settings(max_examples=examples(30))
@given(x=float_array(dtypes=FLOATS + [np.dtype(np.int32), np.dtype(np.int64)]))
def test_relu(x):
    check(lambda xp, x: np.maximum(x, 0) if xp is np else nn.relu(x), x)


@settings(max_examples=examples(30))
@given(x=float_array(), slope=st.sampled_from([0.01, 0.2, 0.0]))
def test_leaky_relu(x, slope):
    check(lambda xp, x: np.where(x > 0, x, x * slope) if xp is np else nn.leaky_relu(x, slope), x)


@settings(max_examples=examples(30))
@given(x=float_array(scale=50.0))
def test_sigmoid_no_overflow(x):
    def f(xp, x):
        if xp is np:
            with np.errstate(over="ignore"):
                return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)
        return nn.sigmoid(x)
    # a subnormal result (float32 sigmoid below -87) has fewer significant bits: compared to the smallest normal
    check(f, x, rtol=1e-6 if x.dtype == np.float32 else 1e-14, atol=float(np.finfo(x.dtype).tiny))


def test_sigmoid_extremes():
    x = np.array([-1000.0, -745.0, -50.0, 0.0, 50.0, 1000.0, np.inf, -np.inf])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        got = np.asarray(nn.sigmoid(x))
    np.testing.assert_allclose(got, [0.0, np.exp(-745.0), np.exp(-50.0) / (1 + np.exp(-50.0)), 0.5, 1.0, 1.0, 1.0,
                                     0.0], rtol=1e-15)


@settings(max_examples=examples(30))
@given(x=float_array(), approximate=st.sampled_from(["none", "tanh"]))
def test_gelu(x, approximate):
    def f(xp, x):
        if xp is np:
            v = x.astype(np.float64)
            if approximate == "tanh":
                return (0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))).astype(x.dtype)
            return (0.5 * v * (1 + ref_erf(v / math.sqrt(2)))).astype(x.dtype)
        return nn.gelu(x, approximate=approximate)
    check(f, x, **tol(x.dtype))


def test_erf_against_math_erf():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(size=3000) * 3, rng.uniform(-0.5, 0.5, 1000), rng.uniform(-7, 7, 1000),
                        [0.0, -0.0, 0.46875, -0.46875, 4.0, -4.0, 5.9, 6.0, 27.0, 1e-300, -1e-300, 1e300,
                         np.inf, -np.inf]])
    got = np.asarray(nn.erf(x))
    want = ref_erf(x)
    # float64 accurate: within a few ulp of the correctly rounded value
    np.testing.assert_array_max_ulp(got, want, maxulp=4)
    assert np.isnan(np.asarray(nn.erf(np.array([np.nan])))[0])


@settings(max_examples=examples(20))
@given(x=float_array(dtypes=FLOATS + [np.dtype(np.int32), np.dtype(bool)]))
def test_erf_dtypes(x):
    def f(xp, x):
        if xp is np:
            return ref_erf(x).astype(np.sin(np.zeros(1, x.dtype)).dtype)
        return nn.erf(x)
    check(f, x, rtol=1e-6 if x.dtype != np.float64 else 1e-15, atol=0)


@st.composite
def array_and_axis(draw, dtypes=FLOATS, min_side=1):
    shape = tuple(draw(st.lists(st.integers(min_side, 4), min_size=1, max_size=3)))
    x = rand(draw(seeds), shape, draw(st.sampled_from(dtypes)), 5)
    nd = len(shape)
    axis = draw(st.one_of(st.integers(-nd, nd - 1),
                          st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True).map(tuple)))
    return x, axis


@settings(max_examples=examples(40))
@given(case=array_and_axis(), log=st.booleans())
def test_softmax(case, log):
    x, axis = case

    def f(xp, x):
        if xp is np:
            v = x.astype(np.float64)
            s = v - v.max(axis=axis, keepdims=True)
            e = np.exp(s)
            out = s - np.log(e.sum(axis=axis, keepdims=True)) if log else e / e.sum(axis=axis, keepdims=True)
            return out.astype(x.dtype)
        return nn.log_softmax(x, axis) if log else nn.softmax(x, axis)
    check(f, x, **tol(x.dtype))


def test_softmax_large_values():
    x = np.array([[1000.0, 1000.0, -1000.0], [-1e300, 0.0, 1e300]])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        got = np.asarray(nn.softmax(x))
        lg = np.asarray(nn.log_softmax(x))
    np.testing.assert_allclose(got, [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(lg[0, :2], [-math.log(2)] * 2)


# ---------------------------------------------------------------- losses

@settings(max_examples=examples(40))
@given(data=st.data())
def test_cross_entropy(data):
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    nd = len(shape)
    axis = data.draw(st.integers(-nd, nd - 1))
    ax = axis % nd
    dt = data.draw(st.sampled_from(FLOATS))
    seed = data.draw(seeds)
    logits = rand(seed, shape, dt, 3)
    reduction = data.draw(st.sampled_from(["mean", "sum", "none"]))
    if data.draw(st.booleans()):
        target = np.random.default_rng(seed).integers(0, shape[ax], shape[:ax] + shape[ax + 1:])
    else:
        p = np.random.default_rng(seed).random(shape)
        target = (p / p.sum(axis=ax, keepdims=True)).astype(dt)

    def f(xp, logits, target):
        if xp is not np:
            return nn.cross_entropy(logits, target, axis=axis, reduction=reduction)
        v = logits.astype(np.float64)
        s = v - v.max(axis=ax, keepdims=True)
        logp = s - np.log(np.exp(s).sum(axis=ax, keepdims=True))
        if target.dtype.kind == "i":
            loss = -np.squeeze(np.take_along_axis(logp, np.expand_dims(target, ax), axis=ax), axis=ax)
        else:
            loss = -(target * logp).sum(axis=ax)
        out = {"mean": np.mean, "sum": np.sum, "none": lambda t: t}[reduction](loss)
        return np.asarray(out).astype(dt)
    check(f, logits, target, **tol(dt))


# ---------------------------------------------------------------- normalisation

@settings(max_examples=examples(40))
@given(data=st.data())
def test_batch_norm(data):
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=2, max_size=4)))
    c = shape[1]
    dt = data.draw(st.sampled_from(FLOATS))
    seed = data.draw(seeds)
    x = rand(seed, shape, dt, 3)
    mean, var = rand(seed + 1, (c,), dt), np.abs(rand(seed + 2, (c,), dt)) + 0.1
    weight = rand(seed + 3, (c,), dt) if data.draw(st.booleans()) else None
    bias = rand(seed + 4, (c,), dt) if data.draw(st.booleans()) else None
    training = data.draw(st.booleans()) and x.size > c
    momentum, eps = data.draw(st.sampled_from([0.1, 0.5])), data.draw(st.sampled_from([1e-5, 1e-3]))
    bshape = (1, c) + (1,) * (len(shape) - 2)

    def ref(x, mean, var, weight, bias):
        v = x.astype(np.float64)
        if training:
            axes = (0,) + tuple(range(2, v.ndim))
            m, s2 = v.mean(axis=axes), v.var(axis=axes)
            n = v.size // c
        else:
            m, s2 = mean.astype(np.float64), var.astype(np.float64)
        y = (v - m.reshape(bshape)) / np.sqrt(s2.reshape(bshape) + eps)
        if weight is not None:
            y = y * weight.reshape(bshape)
        if bias is not None:
            y = y + bias.reshape(bshape)
        if not training:
            return y.astype(dt)
        return [y.astype(dt), ((1 - momentum) * mean + momentum * m).astype(dt),
                ((1 - momentum) * var + momentum * s2 * n / (n - 1)).astype(dt)]

    def f(xp, x, mean, var, weight=None, bias=None):
        if xp is np:
            return ref(x, mean, var, weight, bias)
        out = nn.batch_norm(x, mean, var, weight, bias, training=training, momentum=momentum, eps=eps)
        return list(out) if training else out
    args = [x, mean, var] + [a for a in (weight, bias) if a is not None]
    if weight is None and bias is not None:
        check(lambda xp, x, mean, var, bias: f(xp, x, mean, var, None, bias), x, mean, var, bias, **tol(dt))
    else:
        check(f, *args, **tol(dt))


@settings(max_examples=examples(40))
@given(case=array_and_axis(), affine=st.booleans(), eps=st.sampled_from([1e-5, 0.1]))
def test_layer_norm(case, affine, eps):
    x, axis = case
    axes = tuple(sorted(a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,))))
    norm_shape = tuple(x.shape[a] for a in axes)
    w, b = rand(1, norm_shape, x.dtype), rand(2, norm_shape, x.dtype)
    keep = tuple(d if k in axes else 1 for k, d in enumerate(x.shape))

    def f(xp, x, w, b):
        if xp is not np:
            return nn.layer_norm(x, w if affine else None, b if affine else None, axis=axis, eps=eps)
        v = x.astype(np.float64)
        y = (v - v.mean(axis=axes, keepdims=True)) / np.sqrt(v.var(axis=axes, keepdims=True) + eps)
        if affine:
            y = y * w.reshape(keep) + b.reshape(keep)
        return y.astype(x.dtype)
    check(f, x, w, b, **tol(x.dtype))


@settings(max_examples=examples(30))
@given(seed=seeds, size=st.integers(1, 6), c=st.integers(1, 5), dt=st.sampled_from(FLOATS),
       params=st.sampled_from([(1e-4, 0.75, 1.0), (0.5, 0.5, 2.0)]))
def test_local_response_norm(seed, size, c, dt, params):
    alpha, beta, k = params
    x = rand(seed, (2, c, 3, 2), dt, 3)

    def f(xp, x):
        if xp is not np:
            return nn.local_response_norm(x, size, alpha, beta, k)
        v = x.astype(np.float64)
        out = np.empty_like(v)
        for ch in range(c):  # ONNX LRN: channels [ch - floor((size-1)/2), ch + ceil((size-1)/2)]
            lo, hi = max(0, ch - (size - 1) // 2), min(c - 1, ch + math.ceil((size - 1) / 2))
            s = (v[:, lo:hi + 1] ** 2).sum(axis=1)
            out[:, ch] = v[:, ch] / (k + alpha / size * s) ** beta
        return out.astype(dt)
    check(f, x, **tol(dt))


# ---------------------------------------------------------------- layers

@settings(max_examples=examples(20))
@given(seed=seeds, lead=st.lists(st.integers(0, 3), max_size=2), bias=st.booleans(), dt=st.sampled_from(FLOATS))
def test_linear(seed, lead, bias, dt):
    x, w, b = rand(seed, tuple(lead) + (4,), dt), rand(seed + 1, (4, 3), dt), rand(seed + 2, (3,), dt)
    if bias:
        check(lambda xp, x, w, b: x @ w + b if xp is np else nn.linear(x, w, b), x, w, b)
    else:
        check(lambda xp, x, w: x @ w if xp is np else nn.linear(x, w), x, w)


@settings(max_examples=examples(20))
@given(seed=seeds, ids_shape=st.lists(st.integers(0, 3), max_size=2), dt=st.sampled_from([np.int32, np.int64]))
def test_embedding(seed, ids_shape, dt):
    table = rand(seed, (5, 3), np.float32)
    ids = np.random.default_rng(seed).integers(0, 5, ids_shape).astype(dt)
    check(lambda xp, ids, table: table[ids] if xp is np else nn.embedding(ids, table), ids, table)


@settings(max_examples=examples(20))
@given(data=st.data())
def test_flatten(data):
    shape = tuple(data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4)))
    nd = len(shape)
    s = data.draw(st.integers(-nd, nd - 1))
    e = data.draw(st.integers(s % nd, nd - 1))
    x = rand(data.draw(seeds), shape, np.float32)
    merged = int(np.prod(shape[s % nd:e + 1]))
    check(lambda xp, x: x.reshape(x.shape[:s % nd] + (merged,) + x.shape[e + 1:]) if xp is np
          else nn.flatten(x, s, e), x)


# ---------------------------------------------------------------- dropout and random numbers

def test_random_uniform_is_philox_keyed():
    for key in (0, 7, 2**40):
        got = np.asarray(nn.random_uniform(key, (3, 4), "float32"))
        want = np.random.Generator(np.random.Philox(key=key)).random((3, 4), dtype=np.float32)
        np.testing.assert_array_equal(got, want, strict=True)
    got = np.asarray(nn.random_uniform(fnp.asarray(np.int64(5)), (6,)))
    np.testing.assert_array_equal(got, np.random.Generator(np.random.Philox(key=5)).random(6), strict=True)


@pytest.mark.parametrize("dt", FLOATS)
def test_dropout(dt):
    x = rand(0, (100, 100), dt) + 10  # no zeros of its own
    rate = 0.3
    y = np.asarray(nn.dropout(x, rate, key=3))
    kept = y != 0
    np.testing.assert_allclose(y[kept], (x * (1 / (1 - rate)))[kept], rtol=0)
    assert abs(kept.mean() - (1 - rate)) < 0.02  # 10^4 draws: 4.4 standard deviations
    assert y.dtype == dt
    np.testing.assert_array_equal(np.asarray(nn.dropout(x, rate, key=3)), y)  # same key, same mask
    assert (np.asarray(nn.dropout(x, rate, key=4)) != y).any()
    # a placeholder key: one compiled graph, a new mask per step
    k = fnp.placeholder((), "int64", name="key")
    exe = fgraph.compile(fgraph.Graph(nn.dropout(fnp.asarray(x), rate, k)))
    np.testing.assert_array_equal(exe(key=np.int64(3)), y)
    assert (exe(key=np.int64(9)) != y).any()
    np.testing.assert_array_equal(np.asarray(nn.dropout(x, rate, 3, training=False)), x)
    np.testing.assert_array_equal(np.asarray(nn.dropout(x, 0.0, 3)), x)
    np.testing.assert_array_equal(np.asarray(nn.dropout(x, 1.0, 3)), np.zeros_like(x))


# ---------------------------------------------------------------- mistakes

def _raises(cls, name, fn):
    with pytest.raises(cls, match=name) as info:
        fn()
    assert "test_nn.py" in str(info.value), str(info.value)


def test_mistakes_name_the_function_and_the_line():
    x = np.zeros((1, 4, 5, 5), np.float32)
    w = np.zeros((6, 2, 3, 3), np.float32)
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, w))  # 4 channels, weight wants 2 (groups=1)
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, w, groups=3))
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x[0], w, groups=2))
    _raises(fgraph.DTypeError, "conv2d", lambda: nn.conv2d(x.astype(int), w, groups=2))
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, w, groups=2, stride=0))
    _raises(fgraph.DTypeError, "conv2d", lambda: nn.conv2d(x, w, groups=2, stride=1.5))
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, w, groups=2, padding=-1))
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, w, groups=2, padding=(1, 2, 3)))
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, w, groups=2, dilation=3))  # kernel too large
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, w, np.zeros(5, np.float32), groups=2))
    _raises(fgraph.ShapeError, "conv_transpose2d", lambda: nn.conv_transpose2d(x, w))
    _raises(fgraph.ShapeError, "max_pool2d", lambda: nn.max_pool2d(x, 0))
    _raises(fgraph.ShapeError, "max_pool2d", lambda: nn.max_pool2d(x, 7))
    _raises(fgraph.DTypeError, "max_pool2d", lambda: nn.max_pool2d(x.astype(bool), 2))
    _raises(fgraph.DTypeError, "avg_pool2d", lambda: nn.avg_pool2d(x.astype(int), 2))
    _raises(fgraph.ShapeError, "global_avg_pool2d", lambda: nn.global_avg_pool2d(x[0]))
    _raises(fgraph.ShapeError, "upsample_nearest", lambda: nn.upsample_nearest(x, 0))
    _raises(fgraph.ShapeError, "batch_norm", lambda: nn.batch_norm(x, np.zeros(3), np.ones(4)))
    _raises(fgraph.ShapeError, "batch_norm", lambda: nn.batch_norm(x[:, :, :1, :1], np.zeros(4), np.ones(4),
                                                                    training=True))
    _raises(fgraph.ShapeError, "layer_norm", lambda: nn.layer_norm(x, np.ones(4)))
    _raises(fgraph.ShapeError, "layer_norm", lambda: nn.layer_norm(x, axis=4))
    _raises(fgraph.FgraphError, "gelu", lambda: nn.gelu(x, approximate="erf"))
    _raises(fgraph.ShapeError, "softmax", lambda: nn.softmax(x, axis=(1, 1)))
    logits = np.zeros((3, 5), np.float32)
    _raises(fgraph.ShapeError, "cross_entropy", lambda: nn.cross_entropy(logits, np.zeros(5, int)))
    _raises(fgraph.ShapeError, "cross_entropy", lambda: nn.cross_entropy(logits, np.zeros((3, 4), np.float32)))
    _raises(fgraph.DTypeError, "cross_entropy", lambda: nn.cross_entropy(logits, np.zeros(3, bool)))
    _raises(fgraph.FgraphError, "cross_entropy", lambda: nn.cross_entropy(logits, np.zeros(3, int), reduction="avg"))
    _raises(fgraph.ShapeError, "dropout", lambda: nn.dropout(x, 1.5, 0))
    _raises(fgraph.DTypeError, "dropout", lambda: nn.dropout(x, 0.5, 0.5))
    _raises(fgraph.DTypeError, "dropout", lambda: nn.dropout(x, 0.5, fnp.asarray(np.zeros(2, int))))
    _raises(fgraph.ShapeError, "linear", lambda: nn.linear(logits, np.zeros((4, 2))))
    _raises(fgraph.ShapeError, "linear", lambda: nn.linear(logits, np.zeros((5, 2)), np.zeros(3)))
    _raises(fgraph.DTypeError, "embedding", lambda: nn.embedding(np.zeros(2), logits))
    _raises(fgraph.FgraphError, "flatten", lambda: nn.flatten(x, 2, 1))
    _raises(fgraph.ShapeError, "local_response_norm", lambda: nn.local_response_norm(x, 0))


def test_namespaces():
    import fgraph.nn

    assert fgraph.nn is nn and "nn" in fgraph.__all__
    assert not hasattr(fnp, "conv2d")  # fgraph.numpy keeps NumPy's names only
    assert set(nn.__all__) >= {"conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d", "global_avg_pool2d",
                               "batch_norm", "layer_norm", "relu", "leaky_relu", "sigmoid", "gelu", "softmax",
                               "log_softmax", "cross_entropy", "dropout", "linear", "embedding", "flatten",
                               "upsample_nearest", "local_response_norm"}


def test_conv_cost_attribute():
    """``cost`` (flops, as matmul's): 2 * outputs * C/groups * kh * kw, for
    the forward and for both gradient ops."""
    x, w = rand(0, (2, 4, 7, 6)), rand(1, (6, 2, 3, 2))
    loss = lambda x, w: fnp.sum(nn.conv2d(x, w, stride=2, padding=1, groups=2) ** 2)  # noqa: E731
    y = nn.conv2d(x, w, stride=2, padding=1, groups=2)
    want = 2 * y.size * 2 * 3 * 2
    costs = fgraph.attr_table("cost")
    assert costs["conv2d"](y.node.inputs, y.node.params) == want
    xs, ws = fnp.asarray(x), fnp.asarray(w)
    gx, gw = fgraph.grad(loss(xs, ws), [xs, ws])
    for t in (gx, gw):
        node = t.node
        while node.op not in ("conv_transpose2d", "conv2d_backward_weight"):
            node = node.inputs[0]
        assert costs[node.op](node.inputs, node.params) == want, node.op


def test_small_network_optimised_and_planned():
    """A conv net (and its gradients) through optimise + the memory-planned
    engine equals the plain graph: fusion and planning keep the values."""
    rng = np.random.default_rng(0)
    x = fnp.placeholder((4, 3, 10, 10), "float32", name="x")
    labels = fnp.placeholder((4,), "int64", name="labels")
    w1 = fnp.variable(rng.normal(size=(8, 3, 3, 3)).astype(np.float32) * 0.3, name="w1")
    gamma, beta = fnp.variable(np.ones(8, np.float32), name="g"), fnp.variable(np.zeros(8, np.float32), name="b")
    w2 = fnp.variable(rng.normal(size=(8 * 5 * 5, 10)).astype(np.float32) * 0.1, name="w2")
    h = nn.conv2d(x, w1, padding=1)
    h, _, _ = nn.batch_norm(h, np.zeros(8, np.float32), np.ones(8, np.float32), gamma, beta, training=True)
    h = nn.max_pool2d(nn.gelu(nn.relu(h) + nn.sigmoid(h)), 2)
    loss = nn.cross_entropy(nn.linear(nn.flatten(h), w2), labels)
    grads = fgraph.grad(loss, [w1, gamma, beta, w2])
    graph = fgraph.Graph([loss] + list(grads))
    feeds = dict(x=rng.normal(size=(4, 3, 10, 10)).astype(np.float32), labels=np.array([1, 2, 3, 4]))
    plain = fgraph.compile(graph, plan_memory=False)(**feeds)
    planned = fgraph.compile(fgraph.optimise(graph))(**feeds)
    for a, b in zip(planned, plain):  # equal today; fusion may reorder float work within a tolerance
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_more_mistakes():
    x = np.zeros((1, 4, 5, 5), np.float32)
    _raises(fgraph.DTypeError, "conv2d", lambda: nn.conv2d(x, np.zeros((4, 4, 1, 1), np.float32), stride=True))
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, np.zeros((4, 4, 1, 1), np.float32),
                                                           padding=((1, 2, 3), (0, 0))))
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, np.zeros((4, 4, 1, 1), np.float32),
                                                           padding=((1, -1), (0, 0))))
    _raises(fgraph.ShapeError, "conv2d", lambda: nn.conv2d(x, np.zeros((4, 4, 1, 1), np.float32), groups=0))
    _raises(fgraph.ShapeError, "conv_transpose2d", lambda: nn.conv_transpose2d(x, np.zeros((4, 1, 1, 1)), groups=3))
    _raises(fgraph.ShapeError, "batch_norm", lambda: nn.batch_norm(x[0, 0, 0], np.zeros(4), np.ones(4)))
    _raises(fgraph.DTypeError, "layer_norm", lambda: nn.layer_norm(x.astype(int)))
    _raises(fgraph.DTypeError, "cross_entropy", lambda: nn.cross_entropy(np.zeros((2, 3), int), np.zeros(2, int)))
    _raises(fgraph.DTypeError, "dropout", lambda: nn.dropout(x, "half", 0))
    _raises(fgraph.ShapeError, "random_uniform", lambda: nn.random_uniform(0, (2, -1)))
    _raises(fgraph.DTypeError, "random_uniform", lambda: nn.random_uniform(0, (2,), "int32"))
    _raises(fgraph.DTypeError, "random_uniform", lambda: nn.random_uniform(fnp.asarray(np.zeros(2, int)), (2,)))
    _raises(fgraph.DTypeError, "erf", lambda: nn.erf(np.zeros(2, complex)))
    _raises(fgraph.ShapeError, "linear", lambda: nn.linear(np.zeros((2, 3)), np.zeros(3)))
    _raises(fgraph.ShapeError, "local_response_norm", lambda: nn.local_response_norm(x[0, 0], 3))
    # the backward ops check what they are given, too
    from fgraph.ops import nn as ops

    pool = dict(kernel=(2, 2), stride=(2, 2), padding=((0, 0), (0, 0)), dilation=(1, 1), ceil_mode=False)
    y = np.zeros((1, 4, 2, 2), np.float32)
    _raises(fgraph.ShapeError, "max_pool2d_backward", lambda: ops.max_pool2d_backward(x, x, y, **pool))
    _raises(fgraph.ShapeError, "max_pool2d_select", lambda: ops.max_pool2d_select(x, y, y, **pool))
    _raises(fgraph.ShapeError, "avg_pool2d_backward",
            lambda: ops.avg_pool2d_backward(x, (5, 5), kernel=(2, 2), stride=(2, 2), padding=((0, 0), (0, 0)),
                                            ceil_mode=False, count_include_pad=True))
    _raises(fgraph.ShapeError, "conv2d_backward_weight",
            lambda: ops.conv2d_backward_weight(x, x, (1, 1), ((0, 0), (0, 0)), (1, 1), 1, (3, 3)))
    _raises(fgraph.ShapeError, "conv2d_backward_weight",
            lambda: ops.conv2d_backward_weight(x, x, (1, 1), ((0, 0), (0, 0)), (1, 1), 3, (1, 1)))

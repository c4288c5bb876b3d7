"""Out-kernels of the nn ops against their plain kernels.

Each test builds a node (through fgraph.nn, or fgraph.ops.nn for the
backward ops), evaluates its inputs, and runs the op's ``numpy_kernel`` and
``numpy_out_kernel``: the out-kernel must return ``out`` itself (handed in
full of garbage), hold the kernel's result bit for bit and leave its inputs
alone; non-contiguous inputs give the same bits as contiguous ones.  ``erf``
(in-place) also runs with ``out`` being its input's memory.  The last tests
check with tracemalloc what each out-kernel allocates: nothing (pools,
random numbers, 1x1 convolutions), or a scratch bounded by
``SCRATCH_BYTES`` whatever the size (im2col convolutions), or masks and a product of the
pooled size (max-pool backward).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.engines.numpy_kernels  # noqa: F401  (attaches the kernels)
import fgraph.nn as nn
from fgraph.bench.timing import peak_bytes
from fgraph.ops import nn_kernels as kernels
from fgraph.ops import nn as ops
from test_nn import conv_case, conv_transpose_case, pool_case, rand, small_scratch

KERNEL = fgraph.attr_table("numpy_kernel")
OUT_KERNEL = fgraph.attr_table("numpy_out_kernel")
FLOATS = [np.dtype("float32"), np.dtype("float64")]
seeds = st.integers(0, 2**32 - 1)


def _value(node):
    if node.op == "constant":
        return node.param("value").array
    if node.op == "literal":
        return node.param("value").value
    return np.asarray(fgraph.Tensor(node))


def run_both(t, inplace=False):
    """Both kernels on ``t``'s node; returns the result."""
    node = t.node
    args = [_value(i) for i in node.inputs]
    before = [np.copy(a) for a in args]
    params = dict(node.params)
    want = KERNEL[node.op](*args, **params)
    assert want.shape == node.shape and want.dtype == node.dtype
    out = np.full(node.shape, 7, node.dtype)  # garbage: every element must be written
    got = OUT_KERNEL[node.op](*args, out=out, **params)
    assert got is out
    np.testing.assert_array_equal(out, want, strict=True)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b, strict=True)  # inputs untouched
    # a non-contiguous first input (a feed may be one) gives the same bits
    if args and np.ndim(args[0]) >= 2:
        a = np.asarray(args[0])
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        strided = wide[..., ::2]
        out2 = np.empty(node.shape, node.dtype)
        OUT_KERNEL[node.op](strided, *args[1:], out=out2, **params)
        np.testing.assert_array_equal(out2, want, strict=True)
    if inplace and node.inputs[0].shape == node.shape and node.inputs[0].dtype == node.dtype:
        buf = np.array(args[0], copy=True)
        assert OUT_KERNEL[node.op](buf, *args[1:], out=buf, **params) is buf
        np.testing.assert_array_equal(buf, want, strict=True)
    return want


# ---------------------------------------------------------------- convolutions

@settings(max_examples=examples(50))
@given(case=conv_case(), scratch=st.sampled_from([64, 4 << 20]), batch_below=st.sampled_from([None, 1]))
def test_conv2d(case, scratch, batch_below):
    x, w, _, kw = case
    try:
        t = nn.conv2d(x, w, **kw)
    except fgraph.ShapeError:
        return
    with small_scratch(scratch, batch_below):
        run_both(t)


@settings(max_examples=examples(40))
@given(case=conv_transpose_case(), scratch=st.sampled_from([64, 4 << 20]), batch_below=st.sampled_from([None, 1]))
def test_conv_transpose2d(case, scratch, batch_below):
    x, w, _, kw = case
    try:
        t = nn.conv_transpose2d(x, w, **kw)
    except fgraph.ShapeError:
        return
    with small_scratch(scratch, batch_below):
        run_both(t)


@settings(max_examples=examples(40))
@given(case=conv_case(), scratch=st.sampled_from([64, 4 << 20]), batch_below=st.sampled_from([None, 1]))
def test_conv2d_backward_weight(case, scratch, batch_below):
    x, w, _, kw = case
    try:
        y = nn.conv2d(x, w, **kw)
    except fgraph.ShapeError:
        return
    n = y.node
    g = rand(3, y.shape, y.dtype)
    t = ops.conv2d_backward_weight(x.astype(y.dtype), g, n.param("stride"), n.param("padding"),
                                   n.param("dilation"), n.param("groups"), w.shape[2:])
    with small_scratch(scratch, batch_below):
        run_both(t)


@pytest.mark.parametrize("k,stride,groups", [(1, 1, 1), (1, 1, 2), (3, 1, 4), (3, 2, 2)])
def test_conv_special_paths(k, stride, groups):
    x, w = rand(0, (2, 4, 5, 6)), rand(1, (8, 4 // groups, k, k))
    pad = k // 2 if stride == 2 else 0
    for batch_below in (None, 1):
        with small_scratch(4 << 20, batch_below):
            run_both(nn.conv2d(x, w, stride=stride, padding=pad, groups=groups))
            run_both(nn.conv_transpose2d(x, rand(2, (4, 2, k, k)), stride=stride, groups=groups))


# ---------------------------------------------------------------- pooling

@settings(max_examples=examples(40))
@given(case=pool_case([np.float32, np.float64, np.int32, np.int64]))
def test_max_pool2d_and_backward(case):
    x, kw = case
    try:
        y = nn.max_pool2d(x, **kw)
    except fgraph.ShapeError:
        return
    run_both(y)
    if x.dtype.kind != "f":
        return
    p = dict(y.node.params)
    yv = np.asarray(y)
    x = np.round(x)  # ties, to exercise first-maximum routing
    yv = KERNEL["max_pool2d"](x, **p)
    run_both(ops.max_pool2d_backward(x, yv, rand(5, yv.shape, x.dtype), **p))
    run_both(ops.max_pool2d_select(x, yv, rand(6, x.shape, x.dtype), **p))


@settings(max_examples=examples(40))
@given(case=pool_case(FLOATS, dilation=False), count_include_pad=st.booleans())
def test_avg_pool2d_and_backward(case, count_include_pad):
    x, kw = case
    try:
        y = nn.avg_pool2d(x, count_include_pad=count_include_pad, **kw)
    except fgraph.ShapeError:
        return
    run_both(y)
    run_both(ops.avg_pool2d_backward(rand(4, y.shape, x.dtype), x.shape[2:], **dict(y.node.params)))


# ---------------------------------------------------------------- element-wise and random

@settings(max_examples=examples(30))
@given(seed=seeds, shape=st.lists(st.integers(0, 5), max_size=3),
       dt=st.sampled_from(FLOATS + [np.dtype(np.float16), np.dtype(np.int32)]))
def test_erf(seed, shape, dt):
    x = (rand(seed, tuple(shape)) * 3).astype(dt)
    run_both(nn.erf(x), inplace=True)


def test_erf_chunks():
    x = rand(0, (3, kernels.ERF_CHUNK + 5)) * 4
    run_both(nn.erf(x), inplace=True)
    run_both(nn.erf(2.5))  # a literal


@settings(max_examples=examples(20))
@given(key=st.integers(0, 2**63 - 1), shape=st.lists(st.integers(0, 4), max_size=3), dt=st.sampled_from(FLOATS))
def test_random_uniform(key, shape, dt):
    run_both(nn.random_uniform(key, tuple(shape), dt))


# ---------------------------------------------------------------- allocations

def _peak(op_tensor):
    node = op_tensor.node
    args = [_value(i) for i in node.inputs]
    out = np.empty(node.shape, node.dtype)
    params = dict(node.params)
    sizer = fgraph.attr_table("numpy_workspace").get(node.op)
    asked = sizer(node) if sizer is not None else 0
    if asked:  # scratch the memory planner would place in the arena
        params["workspace"] = np.empty(asked[0] if isinstance(asked, tuple) else asked, np.uint8)
    OUT_KERNEL[node.op](*args, out=out, **params)  # warm: lazy imports, caches
    return peak_bytes(lambda: OUT_KERNEL[node.op](*args, out=out, **params)), out.nbytes


def test_allocation_free():
    """Pools, random numbers and 1x1 convolutions write straight into ``out``
    and their planned workspace (NumPy's ufunc buffers for strided
    operands, 8192 elements each, and the average pool's divisor of H' x W'
    values are all they allocate: a constant, whatever the batch and
    channels)."""
    x = rand(0, (4, 16, 128, 128))  # 1e6 float64
    cases = [nn.max_pool2d(x, 3, 2, 1), nn.avg_pool2d(x, 2), nn.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
             nn.random_uniform(1, (1000, 1000)), nn.conv2d(x, rand(1, (16, 16, 1, 1))),
             nn.conv_transpose2d(x, rand(2, (16, 16, 1, 1)))]
    for t in cases:
        peak, size = _peak(t)
        assert size >= 2 << 20 and peak < 320 << 10, (t.node.op, peak, size)


def test_bounded_scratch():
    """im2col convolutions and erf allocate a scratch bounded by their budget
    (here 256 KiB), however large the output."""
    x = rand(0, (2, 16, 96, 96))
    budget = 256 << 10
    with small_scratch(budget):
        w = rand(1, (16, 16, 3, 3))
        y = nn.conv2d(x, w, padding=1)
        cases = [y, nn.conv2d(x, rand(2, (32, 1, 3, 3)), padding=1, groups=16),  # depthwise
                 nn.conv_transpose2d(x, rand(3, (16, 8, 3, 3)), stride=2),
                 ops.conv2d_backward_weight(x, np.asarray(y), (1, 1), ((1, 1), (1, 1)), (1, 1), 1, (3, 3))]
        for t in cases:
            peak, size = _peak(t)
            assert peak < 2 * budget + 64 << 10, (t.node.op, peak, size)
    peak, size = _peak(nn.erf(rand(3, (1000, 1000))))
    assert peak < size / 4, ("erf", peak, size)


def test_max_pool_backward_allocates_pooled_sized_temporaries():
    x = rand(0, (4, 16, 128, 128))
    p = dict(kernel=(2, 2), stride=(2, 2), padding=((0, 0), (0, 0)), dilation=(1, 1), ceil_mode=False)
    y = KERNEL["max_pool2d"](x, **p)
    peak, size = _peak(ops.max_pool2d_backward(x, y, rand(1, y.shape), **p))
    assert peak <= 2 * y.size + y.nbytes + (320 << 10), peak  # two masks and a product of the pooled shape


def test_empty_channels_and_batches():
    """No input channels: zeros; no images: an empty result or a zero weight gradient."""
    x0 = np.zeros((2, 0, 4, 4))
    run_both(nn.conv2d(x0, np.zeros((3, 0, 3, 3)), padding=1))
    run_both(nn.conv_transpose2d(x0, np.zeros((0, 3, 2, 2))))
    xn = np.zeros((0, 2, 4, 4))
    run_both(ops.conv2d_backward_weight(xn, np.zeros((0, 3, 2, 2)), (1, 1), ((0, 0), (0, 0)), (1, 1), 1, (3, 3)))
    np.testing.assert_array_equal(np.asarray(nn.conv2d(x0, np.zeros((3, 0, 3, 3)), padding=1)), 0.0)

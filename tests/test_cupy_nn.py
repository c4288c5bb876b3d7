"""The neural-network ops on the CuPy engine.

Always run (no GPU needed):

- every op of ``fgraph/ops/nn.py`` has a CuPy route;
- each nn kernel and out-kernel on a pretend device whose array module
  makes ``DeviceArray``s, an ndarray subclass that, like CuPy's arrays,
  refuses to meet a host (NumPy) array in any operation: a kernel that made
  a host scratch, index or divisor would fail there.  Results must be
  DeviceArrays and hold the NumPy engine's bits;
- nn graphs (convolutions and pools with hypothesis-drawn groups, dilation,
  stride and padding, their gradients, a digits-CNN training step, a
  ResNet-shaped network and ResNet-50 itself) compiled on
  ``CupyEngine(device=NumpyDevice())`` against the NumPy engine, bit for bit.

On a GPU (skipped, with the reason, without CuPy or a visible device): the
same graphs on ``CupyEngine()`` against the NumPy engine (float32 products
through cuBLAS: within 1e-4 of the output's magnitude; pools exactly), and
ResNet-50 at batch 2 end to end.
"""
import ctypes
import shutil
import subprocess
import types

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.nn as nn
import fgraph.numpy as fnp
from fgraph.devices import NumpyDevice, use
from fgraph.devices.cupy_device import unavailable
from fgraph.engines.cupy_engine import CupyEngine
from fgraph.engines.cupy_kernels import COVERAGE, refusal
from fgraph.engines.cupy_kernels.nn import ERF_SOURCE
from fgraph.models import as_constants, as_variables, digits_cnn, digits_cnn_params, resnet50, resnet50_params
from fgraph.models.resnet import P, _bottleneck, _conv_bn, init_params
from fgraph.ops import nn as ops
from fgraph.registry import attr_table
from test_nn import conv_case, pool_case, rand, small_scratch

REASON = unavailable()
gpu = pytest.mark.skipif(REASON is not None, reason=f"the CuPy engine's GPU tests need CuPy and a GPU: {REASON}")

#: the ops whose kernels live in numpy_kernels/nn.py (every op fgraph/ops/nn.py registers)
NN_OPS = sorted(op for op, k in attr_table("numpy_kernel").items()
                if getattr(k, "__module__", "") == "fgraph.ops.nn_kernels")


# ---------------------------------------------------------------- a pretend device

class DeviceArray(np.ndarray):
    """An array of the pretend device.  Like a CuPy array it takes part in
    NumPy's protocols but refuses host arrays: any operation mixing it with
    a plain ndarray (an argument, an ``out=``, a value assigned into it)
    raises TypeError."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        args = [_unwrap(a, ufunc.__name__) for a in inputs]
        if out is not None:
            kwargs["out"] = tuple(_unwrap(o, ufunc.__name__) for o in out)
        result = getattr(ufunc, method)(*args, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types_, args, kwargs):
        name = func.__name__
        return _wrap(func(*_unwrap_all(args, name), **{k: _unwrap_all(v, name) for k, v in kwargs.items()}))

    def __setitem__(self, key, value):
        _unwrap(value, "setitem")
        super().__setitem__(key, value)

    def __array_namespace__(self, api_version=None):
        return XP


def _unwrap(a, where):
    if isinstance(a, DeviceArray):
        return a.view(np.ndarray)
    if isinstance(a, np.ndarray):
        raise TypeError(f"{where}: a host array {a.dtype}{list(a.shape)} meets device arrays")
    return a


def _unwrap_all(a, where):
    if isinstance(a, (list, tuple)):
        return type(a)(_unwrap_all(x, where) for x in a)
    return _unwrap(a, where)


def _wrap(r):
    if isinstance(r, tuple):
        return tuple(_wrap(x) for x in r)
    return r.view(DeviceArray) if isinstance(r, np.ndarray) and not isinstance(r, DeviceArray) else r


class PretendXp(types.ModuleType):
    """The pretend device's array module: NumPy's functions; those that make
    arrays make DeviceArrays; only ``asarray``/``array`` take host arrays (an
    upload).  No ``ElementwiseKernel``: kernels that need one fall back."""

    ndarray = DeviceArray
    MAKERS = {"empty", "zeros", "ones", "full", "arange", "empty_like", "zeros_like", "ones_like", "full_like",
              "ascontiguousarray", "eye"}
    UPLOADS = {"asarray", "array"}

    def __getattr__(self, name):
        f = getattr(np, name)
        if name in self.UPLOADS:
            return lambda *a, **k: _wrap(np.array(a[0], *a[1:], **k) if name == "array" else
                                         np.asarray(_host(a[0]), *a[1:], **k))
        if name in self.MAKERS:
            return lambda *a, **k: _wrap(f(*_unwrap_all(a, name), **k))
        return f  # ufuncs and array functions: the DeviceArray protocols above


def _host(a):
    return a.view(np.ndarray) if isinstance(a, DeviceArray) else a


XP = PretendXp("pretendxp")


class PretendDevice(NumpyDevice):
    """Arenas and arrays of DeviceArrays; transfers copy.  Views into an arena
    (NumpyDevice's) keep its class."""

    name = "pretend"
    xp = XP

    def asarray(self, x, dtype=None):
        return XP.asarray(x, dtype=dtype)

    def to_host(self, x):
        return np.array(_host(x))

    def allocate(self, nbytes):
        return np.empty(max(int(nbytes), 1), np.uint8).view(DeviceArray)


def test_the_pretend_device_refuses_host_arrays():
    d = XP.zeros(3)
    assert type(d) is DeviceArray and type(d + 1) is DeviceArray and type(XP.reshape(d, (3, 1))) is DeviceArray
    for bad in (lambda: d + np.ones(3), lambda: np.matmul(d[:, None], np.ones((1, 2))),
                lambda: np.add(d, d, out=np.empty(3)), lambda: np.copyto(d, np.ones(3)),
                lambda: d.__setitem__(slice(None), np.ones(3)), lambda: XP.empty_like(np.ones(3)) + d):
        with pytest.raises(TypeError, match="host array"):
            bad()


def test_kernel_reshapes_never_copy_silently():
    """The kernels' no-copy reshape (CuPy's reshape has no copy=False) gives
    views, and raises where NumPy's reshape would copy."""
    from fgraph.ops.nn_kernels import _view

    for a in (np.arange(24.0).reshape(4, 6), XP.asarray(np.arange(24.0).reshape(4, 6))):
        v = _view(a[1:3], (3, 4))
        assert type(v) is type(a) and np.shares_memory(_host(v), _host(a))
        with pytest.raises(ValueError, match="copy"):
            _view(a[:, :3], (12,))


# ---------------------------------------------------------------- routes

def test_every_nn_op_has_a_cupy_route():
    assert len(NN_OPS) >= 10 and {"conv2d", "max_pool2d_select", "random_uniform", "erf"} <= set(NN_OPS)
    kernels, outs = attr_table("cupy_kernel"), attr_table("cupy_out_kernel")
    for op in NN_OPS:
        assert COVERAGE[op].how == "cupy", op
        assert op in kernels and op in outs, op


def test_a_cupy_without_matmul_refuses_convolutions():
    x = fnp.placeholder((1, 2, 5, 5), "float32", name="x")
    node = nn.conv2d(x, np.ones((3, 2, 3, 3), "float32")).node
    assert node.op == "conv2d"
    old = types.SimpleNamespace(__name__="cupy", __version__="1.0", ascontiguousarray=1, copyto=1, may_share_memory=1)
    assert refusal(node, old) == "cupy 1.0 has no cupy.matmul"
    assert refusal(node, XP) is None


# ---------------------------------------------------------------- kernels on the pretend device

def _input(node):
    """A node's value on the host (inputs here are constants or literals)."""
    if node.op == "constant":
        return node.param("value").array
    if node.op == "literal":
        return node.param("value").value
    return np.asarray(fgraph.Tensor(node))


def on_the_pretend_device(t):
    """``t``'s op through its CuPy kernel and out-kernel on the pretend
    device, against its NumPy kernel on the host: DeviceArrays, same bits,
    inputs untouched."""
    node = t.node
    host = [_input(i) for i in node.inputs]
    params = dict(node.params)
    want = attr_table("numpy_kernel")[node.op](*host, **params)
    dev = PretendDevice()
    args = [dev.asarray(a) if isinstance(a, np.ndarray) else a for a in host]
    before = [np.array(_host(a)) for a in args]
    with use(dev):
        got = attr_table("cupy_kernel")[node.op](*args, **params)
        out = dev.asarray(np.full(node.shape, 7, node.dtype))  # garbage: every element must be written
        got_out = attr_table("cupy_out_kernel")[node.op](*args, out=out, **params)
        sizer = attr_table("cupy_workspace").get(node.op)
        if sizer is not None:  # scratch carved from a planned workspace of the device's memory
            size = sizer(node)
            size = size[0] if isinstance(size, tuple) else size  # (preferred, least) or bytes
            planned = dev.asarray(np.full(node.shape, 7, node.dtype))
            space = dev.asarray(np.zeros(int(size) + 64, np.uint8))[64:]
            attr_table("cupy_out_kernel")[node.op](*args, out=planned, workspace=space, **params)
            np.testing.assert_array_equal(_host(planned), want, strict=True)
    assert type(got) is DeviceArray and got_out is out
    for g in (got, out):
        np.testing.assert_array_equal(_host(g), want, strict=True)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(_host(a), b, strict=True)
    return want


@settings(max_examples=examples(60))
@given(case=conv_case(), scratch=st.sampled_from([64, 4 << 20]), batch_below=st.sampled_from([None, 1]))
def test_convolution_kernels_on_the_pretend_device(case, scratch, batch_below):
    x, w, _, kw = case
    try:
        y = nn.conv2d(x, w, **kw)
    except fgraph.ShapeError:
        assume(False)
    n = y.node
    p = [n.param(k) for k in ("stride", "padding", "dilation", "groups")]
    g = rand(3, y.shape, y.dtype)
    with small_scratch(scratch, batch_below):
        on_the_pretend_device(y)
        on_the_pretend_device(ops.conv2d_backward_weight(x.astype(y.dtype), g, *p, w.shape[2:]))
        # the input gradient: the transposed convolution (output_padding making x's size)
        out_hw = [(m - 1) * s - p0 - p1 + d * (k - 1) + 1 for m, s, (p0, p1), d, k in
                  zip(y.shape[2:], p[0], p[1], p[2], w.shape[2:])]
        extra = tuple(a - b for a, b in zip(x.shape[2:], out_hw))
        if all(0 <= e < max(s, d) for e, s, d in zip(extra, p[0], p[2])):
            on_the_pretend_device(ops.conv_transpose2d(g, w.astype(y.dtype), p[0], p[1], extra, p[2], p[3]))


@settings(max_examples=examples(60))
@given(case=pool_case([np.float32, np.float64]))
def test_pool_kernels_on_the_pretend_device(case):
    x, kw = case
    x[..., ::2] = np.roll(x, 1, axis=-1)[..., ::2]  # ties: the first maximum takes the gradient
    try:
        y = nn.max_pool2d(x, **kw)
    except fgraph.ShapeError:
        assume(False)
    n = y.node
    params = {k: n.param(k) for k in ("kernel", "stride", "padding", "dilation", "ceil_mode")}
    yv = on_the_pretend_device(y)
    on_the_pretend_device(ops.max_pool2d_backward(x, yv, rand(5, yv.shape, x.dtype), **params))
    on_the_pretend_device(ops.max_pool2d_select(x, yv, rand(6, x.shape, x.dtype), **params))
    akw = dict(kernel_size=kw["kernel_size"], stride=kw["stride"], padding=kw["padding"], ceil_mode=kw["ceil_mode"])
    for include in (True, False):
        try:
            a = nn.avg_pool2d(x, count_include_pad=include, **akw)
        except fgraph.ShapeError:
            assume(False)
        on_the_pretend_device(a)
        an = a.node
        on_the_pretend_device(ops.avg_pool2d_backward(
            rand(7, a.shape, x.dtype), x.shape[2:], kernel=an.param("kernel"), stride=an.param("stride"),
            padding=an.param("padding"), ceil_mode=an.param("ceil_mode"), count_include_pad=include))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
def test_erf_and_random_uniform_on_the_pretend_device(dtype):
    x = (rand(0, (3, 40000)) * 3).astype(dtype)  # > one erf chunk, all three branches of the approximation
    x.flat[:4] = [0, 0.3, -5, 30] if dtype != "bool" else [0, 1, 1, 0]
    if dtype.startswith("float"):
        x.flat[4] = np.nan
    on_the_pretend_device(nn.erf(x))
    on_the_pretend_device(nn.erf(x[0, :7]))
    on_the_pretend_device(nn.erf(np.asarray(x[0, 1])))
    on_the_pretend_device(nn.random_uniform(12345, (3, 5), dtype="float32" if dtype == "bool" else "float64"))
    on_the_pretend_device(ops.random_uniform(fnp.asarray(np.int64(-3)), (4,), "float32"))


@pytest.mark.skipif(shutil.which("g++") is None, reason="compiling the erf kernel's source needs g++")
def test_the_generated_erf_source_compiles_and_matches(tmp_path):
    """The GPU erf kernel's operation, compiled as C++ for each input/output
    type pair (T, O), against the NumPy engine's erf."""
    _, _, operation, _ = ERF_SOURCE
    types_ = [("float", "float", np.float32), ("double", "double", np.float64), ("int", "double", np.int32),
              ("long", "double", np.int64), ("short", "float", np.int16)]
    code = ["#include <cmath>"]
    for i, (t, o, _) in enumerate(types_):
        code.append(f'extern "C" void erf{i}(long n, const {t} *xs, {o} *ys) {{ typedef {t} T; typedef {o} O; '
                    f"for (long i = 0; i < n; ++i) {{ const T x = xs[i]; O y; {operation}; ys[i] = y; }} }}")
    src, so = tmp_path / "erf.cpp", tmp_path / "erf.so"
    src.write_text("\n".join(code))
    subprocess.run(["g++", "-O1", "-fPIC", "-shared", str(src), "-o", str(so)], check=True, capture_output=True)
    lib = ctypes.CDLL(str(so))
    for i, (_, _, dt) in enumerate(types_):
        x = (rand(i, 10000) * 4).astype(dt) if dt().dtype.kind == "f" else np.arange(-6, 7, dtype=dt)
        want = np.asarray(nn.erf(x))
        got = np.empty_like(want)
        getattr(lib, f"erf{i}")(ctypes.c_long(x.size), ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(got.ctypes.data))
        np.testing.assert_allclose(got, want, rtol=1e-15 if want.dtype == np.float64 else 1.2e-7, atol=1e-300)


def _train_graph(x, w, b, stride, padding, dilation, groups, pool):
    """A small conv net's loss and its gradients: conv2d (+bias), ReLU, a
    pool, the mean of squares; gradients with respect to x, w and b."""
    y = nn.relu(nn.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups))
    if pool == "max":
        y = nn.max_pool2d(y, 2, stride=1, padding=1, ceil_mode=True)
    elif pool == "avg":
        y = nn.avg_pool2d(y, 2, stride=1, padding=1, count_include_pad=False)
    loss = fnp.mean(y * y)
    return [loss] + list(fgraph.grad(loss, [x, w, b]))


def _train_case(case, pool):
    """A conv_case as a training graph (conv, pool, loss, gradients) and its feeds."""
    x, w, b, kw = case
    if b is None:
        b = np.zeros(w.shape[0], w.dtype)
    phs = [fnp.placeholder(a.shape, a.dtype, name=k) for a, k in ((x, "x"), (w, "w"), (b, "b"))]
    try:
        g = fgraph.Graph(_train_graph(*phs, kw["stride"], kw["padding"], kw["dilation"], kw["groups"], pool))
    except fgraph.ShapeError:
        assume(False)
    return g, dict(x=x, w=w, b=b)


def test_a_training_graph_on_the_pretend_device():
    """Raw (unfused: the pretend module has no ElementwiseKernel) graphs,
    planned and not, on the pretend device: every output a DeviceArray
    with the NumPy engine's bits."""
    rng = np.random.default_rng(3)
    feeds = {"x": rng.normal(size=(2, 4, 7, 6)).astype("float32"), "w": rng.normal(size=(6, 2, 3, 3)).astype("float32"),
             "b": rng.normal(size=6).astype("float32")}
    phs = {k: fnp.placeholder(v.shape, v.dtype, name=k) for k, v in feeds.items()}
    for pool in ("max", "avg"):
        g = fgraph.Graph(_train_graph(phs["x"], phs["w"], phs["b"], 2, 1, (1, 2), 2, pool))
        want = fgraph.compile(g)(**feeds)
        for plan in (True, False):
            got = CupyEngine(device=PretendDevice()).compile(g, plan_memory=plan)(**feeds)
            for a, b in zip(got, want):
                assert type(a) is DeviceArray
                np.testing.assert_array_equal(_host(a), b, strict=True)


def test_networks_unoptimised_on_the_pretend_device():
    """What the GPU benchmark calls CuPy eager (the unoptimised graph, no
    plan) and the planned raw graph, on the pretend device: a ResNet-shaped
    forward and a digits-CNN Adam step; DeviceArrays, NumPy's bits."""
    params = _small_resnet_params(np.random.default_rng(0))
    x = fnp.placeholder((2, 3, 32, 32), "float32", name="x")
    nets = [(fgraph.Graph(small_resnet(x, as_constants(params))),
             {"x": np.random.default_rng(1).random((2, 3, 32, 32), dtype=np.float32)})]
    g, feeds = _digits_step(16)
    nets.append((g, feeds))
    for g, feeds in nets:
        want = fgraph.compile(g)(**feeds)
        for plan in (False, True):
            exe = CupyEngine(device=PretendDevice()).compile(g, plan_memory=plan)
            got = exe(**feeds)
            assert type(got) is DeviceArray
            np.testing.assert_array_equal(_host(got), want, strict=True)
            assert all(type(v) is DeviceArray for v in exe.variables.values())


# ---------------------------------------------------------------- graphs on the NumPy device

def _same(got, want):
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b, strict=True)


@settings(max_examples=examples(50))
@given(case=conv_case(), pool=st.sampled_from(["max", "avg", None]), optimise=st.booleans())
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning", "ignore:Mean of empty:RuntimeWarning")
def test_conv_nets_and_gradients_on_the_numpy_device(host, case, pool, optimise):
    g, feeds = _train_case(case, pool)
    g = fgraph.optimise(g) if optimise else g
    _same(host.compile(g, to_host=True)(**feeds), fgraph.compile(g)(**feeds))


def _digits_step(batch):
    """The digits CNN's training step (cross-entropy, gradients, Adam
    updates) as a raw graph, and its feeds."""
    x = fnp.placeholder((batch, 1, 8, 8), "float32", name="x")
    y = fnp.placeholder((batch,), "int64", name="y")
    vs = as_variables(digits_cnn_params(0))
    loss = nn.cross_entropy(digits_cnn(x, vs), y)
    ws = list(vs.values())
    rng = np.random.default_rng(0)
    return (fgraph.Graph(loss, updates=fgraph.optim.adam(ws, fgraph.grad(loss, ws), lr=1e-2)),
            dict(x=rng.random((batch, 1, 8, 8), dtype=np.float32), y=rng.integers(0, 10, batch)))


def test_digits_cnn_training_on_the_numpy_device(host):
    g, feeds = _digits_step(16)
    g = fgraph.optimise(g)
    exe, ref = host.compile(g, to_host=True), fgraph.compile(g)
    losses = []
    for _ in range(4):
        got, want = exe(**feeds), ref(**feeds)
        np.testing.assert_array_equal(got, want, strict=True)
        losses.append(float(got))
    assert losses[-1] < losses[0]
    for k in exe.variables:
        np.testing.assert_array_equal(exe.variables[k], ref.variables[k], strict=True)


def _small_resnet_params(rng, width=4):
    """Weights of a ResNet-50-shaped network (stem, one stage of two
    bottlenecks, the first projected with stride 2), ResNet-50's names."""
    shapes = {f"{P}conv1_w_0": (width, 3, 7, 7)}

    def bn(name, c):
        shapes.update({f"{P}{name}_{s}_0": (c,) for s in ("s", "b", "rm", "riv")})

    bn("res_conv1_bn", width)
    cin = width
    for i in range(2):
        for part, (ci, co, k) in (("2a", (cin, width, 1)), ("2b", (width, width, 3)), ("2c", (width, 4 * width, 1))):
            shapes[f"{P}res2_{i}_branch{part}_w_0"] = (co, ci, k, k)
            bn(f"res2_{i}_branch{part}_bn", co)
        if i == 0:
            shapes[f"{P}res2_0_branch1_w_0"] = (4 * width, cin, 1, 1)
            bn("res2_0_branch1_bn", 4 * width)
        cin = 4 * width
    shapes[f"{P}pred_w_0"] = (10, cin)
    shapes[f"{P}pred_b_0"] = (10,)
    return init_params(shapes, rng, np.float32, ("_bn_s_0", "_bn_b_0", "_bn_rm_0", "_bn_riv_0"))


def small_resnet(x, params):
    y = _conv_bn(x, params, "conv1", "res_conv1_bn", stride=2, padding=3)
    y = nn.max_pool2d(y, 3, stride=2, padding=1)
    y = _bottleneck(y, params, "res2_0", 2, project=True)
    y = _bottleneck(y, params, "res2_1", 1, project=False)
    y = nn.avg_pool2d(y, y.shape[2], stride=1)
    y = fnp.reshape(y, (y.shape[0], -1))
    return nn.softmax(y @ fnp.transpose(params[P + "pred_w_0"]) + params[P + "pred_b_0"], axis=1)


def test_resnet_shaped_network_and_its_gradient_on_the_numpy_device(host):
    params = _small_resnet_params(np.random.default_rng(0))
    x = fnp.placeholder((2, 3, 32, 32), "float32", name="x")
    vs = as_variables(params)
    probs = small_resnet(x, vs)
    loss = -fnp.mean(fnp.log(probs[:, 3]))
    ws = list(vs.values())
    g = fgraph.Graph([probs, loss], updates={w: w - 0.1 * d for w, d in zip(ws, fgraph.grad(loss, ws))})
    feeds = {"x": np.random.default_rng(1).random((2, 3, 32, 32), dtype=np.float32)}
    for graph in (g, fgraph.optimise(g)):
        exe, ref = host.compile(graph, to_host=True), fgraph.compile(graph)
        for _ in range(2):
            _same(exe(**feeds), ref(**feeds))


def test_resnet50_on_the_numpy_device(host):
    params = as_constants(resnet50_params(0))
    x = fnp.placeholder((1, 3, 224, 224), "float32", name="x")
    g = fgraph.optimise(fgraph.Graph(resnet50(x, params)))
    images = np.random.default_rng(2).random((1, 3, 224, 224), dtype=np.float32)
    got = host.compile(g, to_host=True)(x=images)
    np.testing.assert_array_equal(got, fgraph.compile(g)(x=images), strict=True)


# ---------------------------------------------------------------- a GPU

def close(got, want, rtol=1e-4):
    """Within ``rtol`` of the output's magnitude (float32 products: cuBLAS
    sums in another order than OpenBLAS)."""
    for a, b in zip(got, want):
        a = np.asarray(a)
        assert a.shape == b.shape and a.dtype == b.dtype
        scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
        err = float(np.max(np.abs(a.astype(np.float64) - b), initial=0.0))
        assert err <= rtol * scale, f"max abs error {err} > {rtol} * {scale}"


@gpu
@settings(max_examples=examples(30), deadline=None)
@given(case=conv_case(), pool=st.sampled_from(["max", "avg", None]), scratch=st.sampled_from([64, 4 << 20]))
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning", "ignore:Mean of empty:RuntimeWarning")
def test_gpu_conv_nets_and_gradients(cuda, case, pool, scratch):
    g, feeds = _train_case(case, pool)
    with small_scratch(scratch):  # 64 bytes: images split by rows, products into strided output views
        for graph in (g, fgraph.optimise(g)):
            close(cuda.compile(graph, to_host=True)(**feeds), fgraph.compile(graph)(**feeds))


@gpu
@settings(max_examples=examples(30), deadline=None)
@given(case=pool_case([np.float32, np.float64, np.int32]))
def test_gpu_pools_are_exact(cuda, case):
    x, kw = case
    ph = fnp.placeholder(x.shape, x.dtype, name="x")
    try:
        outs = [nn.max_pool2d(ph, **kw)]
    except fgraph.ShapeError:
        assume(False)
    if x.dtype.kind == "f":
        kw.pop("dilation", None)
        try:
            outs.append(nn.avg_pool2d(ph, **kw))
        except fgraph.ShapeError:
            pass
        loss = sum(fnp.sum(o * o) for o in outs)
        outs += [fgraph.grad(loss, ph)]
    g = fgraph.Graph(outs)
    got, want = cuda.compile(g, to_host=True)(x), fgraph.compile(g)(x)
    np.testing.assert_array_equal(got[0], want[0], strict=True)  # the maxima: exact
    close(got[1:], want[1:], rtol=1e-6 if x.dtype == np.float64 else 1e-5)


@gpu
def test_gpu_erf_and_random_uniform(cuda):
    x = np.concatenate([np.linspace(-30, 30, 100001), [np.nan, np.inf, -np.inf, 0.0, -0.0]])
    outs = [nn.erf(x), nn.erf(x.astype("float32")), nn.erf(np.arange(-4, 5, dtype="int32")),
            nn.random_uniform(7, (1000,), "float32"), nn.random_uniform(-7, (3, 4))]
    g = fgraph.Graph(outs)
    got, want = cuda.compile(g, to_host=True)(), fgraph.compile(g)()
    np.testing.assert_allclose(got[0], want[0], rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(got[1], want[1], rtol=3e-7, atol=1e-7)  # at most an ulp of float32
    np.testing.assert_allclose(got[2], want[2], rtol=1e-15)
    _same(got[3:], want[3:])  # Philox on the host: the same bits


@gpu
def test_gpu_digits_cnn_training(cuda):
    g, feeds = _digits_step(32)
    for graph, plan in ((fgraph.optimise(g), True), (g, False)):  # planned, and as CuPy eager
        exe, ref = cuda.compile(graph, to_host=True, plan_memory=plan), fgraph.compile(graph)
        for _ in range(5):
            close([exe(**feeds)], [ref(**feeds)], rtol=1e-4)
        close([exe.variables[k] for k in ref.variables], [ref.variables[k] for k in ref.variables], rtol=1e-3)


@gpu
def test_gpu_resnet50_batch_2(cuda):
    import cupy

    params = as_constants(resnet50_params(0))
    x = fnp.placeholder((2, 3, 224, 224), "float32", name="x")
    g = fgraph.optimise(fgraph.Graph(resnet50(x, params)))
    images = np.random.default_rng(2).random((2, 3, 224, 224), dtype=np.float32)
    exe = cuda.compile(g)
    got = exe(x=cupy.asarray(images))
    assert isinstance(got, cupy.ndarray) and got.dtype == np.float32
    want = fgraph.compile(g)(x=images)
    close([cupy.asnumpy(got)], [want], rtol=1e-4)
    np.testing.assert_allclose(cupy.asnumpy(got).sum(axis=1), 1.0, rtol=1e-5)

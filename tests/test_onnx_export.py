"""ONNX export: every exported op run by onnxruntime against fgraph's own
result on random inputs, output structures, variables and updates, the
refusals, the light models and an optimised (fused) graph round-tripped,
and the exporter leaving its input graph as it was."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

onnx = pytest.importorskip("onnx", reason="fgraph.onnx.save needs the onnx package (the 'onnx' extra)")
ort = pytest.importorskip("onnxruntime", reason="the export tests run the models in onnxruntime (a test-only extra)")

import fgraph  # noqa: E402
import fgraph.models.cnn  # noqa: E402
import fgraph.nn as nn  # noqa: E402
import fgraph.numpy as fnp  # noqa: E402
import fgraph.onnx  # noqa: E402
from fgraph.errors import FgraphError  # noqa: E402
from fgraph.onnx import export  # noqa: E402
from fgraph.symbol import known_value  # noqa: E402
from fgraph.tree import flatten  # noqa: E402

F32, F64 = np.dtype("float32"), np.dtype("float64")
FLOATS = st.sampled_from([F32, F64])
THIS = os.path.basename(__file__)


# ---------------------------------------------------------------- helpers

def session(m):
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def tolerance(dtype) -> tuple[float, float]:
    """(rtol, atol relative to the result's scale): a few ulps, as libm and summation orders differ."""
    return (2e-5, 2e-6) if np.dtype(dtype) in (F32, np.dtype("float16")) else (1e-11, 1e-12)


def compare(got, want, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if want.dtype.kind == "f":
        rtol, atol = tolerance(want.dtype)
        finite = want[np.isfinite(want)]
        scale = max(1.0, float(np.abs(finite).max())) if finite.size else 1.0
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check(outputs, feeds=None, opset=export.DEFAULT_OPSET, graph=None):
    """Export ``Graph(outputs)`` (or ``graph``), run it in onnxruntime on
    ``feeds``, compare every output with fgraph's; returns the model."""
    g = graph if graph is not None else fgraph.Graph(outputs=outputs)
    feeds = {k: np.asarray(v) for k, v in (feeds or {}).items()}  # (a 0-d draw is a NumPy scalar)
    want = fgraph.compile(g)(**feeds)
    leaves, _ = flatten(want, lambda v: not isinstance(v, (dict, list, tuple)))
    m = fgraph.onnx.save(g, opset=opset)
    names = [o.name for o in m.graph.output]
    assert names == export._output_names(g)
    used = {i.name for i in m.graph.input}
    got = session(m).run(None, {k: v for k, v in feeds.items() if k in used})
    for name, a, b in zip(names, got, leaves):
        compare(a, b, f"output {name!r} (opset {opset})")
    return m


def rng_of(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


def ops_of(m) -> set[str]:
    return {n.op_type for n in m.graph.node}


# ---------------------------------------------------------------- element-wise

UNARY = {  # name: (function, domain of its input)
    "negative": (fnp.negative, "x"), "positive": (fnp.positive, "x"), "absolute": (fnp.abs, "x"),
    "fabs": (fnp.fabs, "x"), "sqrt": (fnp.sqrt, "p"), "square": (fnp.square, "x"),
    "reciprocal": (fnp.reciprocal, "p"), "exp": (fnp.exp, "x"), "expm1": (fnp.expm1, "x"), "exp2": (fnp.exp2, "x"),
    "log": (fnp.log, "p"), "log1p": (fnp.log1p, "p"), "log2": (fnp.log2, "p"), "log10": (fnp.log10, "p"),
    "sin": (fnp.sin, "x"), "cos": (fnp.cos, "x"), "tan": (fnp.tan, "u"), "arcsin": (fnp.arcsin, "u"),
    "arccos": (fnp.arccos, "u"), "arctan": (fnp.arctan, "x"), "sinh": (fnp.sinh, "x"), "cosh": (fnp.cosh, "x"),
    "tanh": (fnp.tanh, "x"), "arcsinh": (fnp.arcsinh, "x"), "arccosh": (fnp.arccosh, "g"),
    "arctanh": (fnp.arctanh, "u"), "floor": (fnp.floor, "x"), "ceil": (fnp.ceil, "x"), "rint": (fnp.rint, "x"),
    "trunc": (fnp.trunc, "x"), "fix": (fnp.fix, "x"), "sign": (fnp.sign, "x"), "deg2rad": (fnp.deg2rad, "x"),
    "rad2deg": (fnp.rad2deg, "x"), "cbrt": (fnp.cbrt, "x"), "isnan": (fnp.isnan, "s"), "isinf": (fnp.isinf, "s"),
    "isfinite": (fnp.isfinite, "s"), "erf": (nn.erf, "x"), "round2": (lambda v: fnp.round(v, 2), "x"),
    "round-1": (lambda v: fnp.round(v * 10, -1), "x"), "relu": (nn.relu, "x"), "sigmoid": (nn.sigmoid, "x"),
    "gelu": (nn.gelu, "x"), "gelu_tanh": (lambda v: nn.gelu(v, approximate="tanh"), "x"),
    "leaky_relu": (nn.leaky_relu, "x"), "softmax": (nn.softmax, "x"), "log_softmax": (nn.log_softmax, "x"),
    "real": (fnp.real, "x"), "imag": (fnp.imag, "x"), "logical_not": (fnp.logical_not, "x"),
    "relu_nan": (nn.relu, "s"), "relu_left": (lambda v: fnp.maximum(0.0, v), "s"), "sign_nan": (fnp.sign, "s"),
    "clip_nan": (lambda v: fnp.clip(v, -1, 1), "s"), "max_nan": (lambda v: fnp.max(v, axis=-1), "s"),
    "big_fill": (lambda v: v * fnp.ones((17,) + (1,) * v.ndim), "x"),
}
DOMAINS = {"x": (-3, 3), "p": (0.1, 4), "u": (-0.95, 0.95), "g": (1.05, 4), "s": (-3, 3)}
#: exported as ONNX defines them for float64 too (the checker passes), but onnxruntime's CPU kernels
#: for these ONNX ops (Tan, Asin, ..., Erf) take float32 only
ORT_FLOAT32_ONLY = {"tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "erf", "gelu"}


@settings(max_examples=examples(4))
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), dtype=FLOATS, data=st.data())
def test_unary(shape, dtype, data):
    r = rng_of(data)
    feeds = {k: r.uniform(lo, hi, shape).astype(dtype) for k, (lo, hi) in DOMAINS.items()}
    s = feeds["s"].reshape(-1)
    s[: min(3, s.size)] = [np.nan, np.inf, -np.inf][: min(3, s.size)]  # NaN and the infinities
    ph = {k: fnp.placeholder(shape, dtype, name=k) for k in DOMAINS}
    runs = {name: f(ph[dom]) for name, (f, dom) in UNARY.items() if dtype == F32 or name not in ORT_FLOAT32_ONLY}
    check(runs, feeds)
    if dtype == F64:  # valid ONNX (save runs the full checker), which onnxruntime cannot run in float64
        m = fgraph.onnx.save(fgraph.Graph({n: UNARY[n][0](ph[UNARY[n][1]]) for n in sorted(ORT_FLOAT32_ONLY)}))
        assert all(o.type.tensor_type.elem_type == onnx.TensorProto.DOUBLE for o in m.graph.output)


BINARY = {
    "add": fnp.add, "subtract": fnp.subtract, "multiply": fnp.multiply, "divide": fnp.divide,
    "maximum": fnp.maximum, "minimum": fnp.minimum, "fmax": fnp.fmax, "fmin": fnp.fmin, "equal": fnp.equal,
    "not_equal": fnp.not_equal, "less": fnp.less, "less_equal": fnp.less_equal, "greater": fnp.greater,
    "greater_equal": fnp.greater_equal, "hypot": fnp.hypot, "logaddexp": fnp.logaddexp,
    "remainder": fnp.remainder, "fmod": fnp.fmod, "floor_divide": fnp.floor_divide,
    "float_power": lambda a, b: fnp.float_power(fnp.abs(a), b), "power": lambda a, b: fnp.abs(a) ** b,
    "logical_and": fnp.logical_and, "logical_or": fnp.logical_or, "logical_xor": fnp.logical_xor,
    "where": lambda a, b: fnp.where(a > b, a, b), "clip": lambda a, b: fnp.clip(a, -1.0, 1.0),
    "clip_arrays": lambda a, b: fnp.clip(a, b - 1, b + 1), "scalar_ops": lambda a, b: (2.0 * a + 1) / 3 - a ** 2,
    "int_literal": lambda a, b: a * 3 - 1, "bool_max": lambda a, b: fnp.maximum(a > 0, b > 0),
}


@settings(max_examples=examples(5))
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4), dtype=FLOATS,
       data=st.data())
def test_binary_broadcast(shapes, dtype, data):
    r = rng_of(data)
    sa, sb = shapes.input_shapes
    a = r.uniform(-3, 3, sa).astype(dtype)
    b = (r.choice([-1, 1], sb) * r.uniform(0.5, 3, sb)).astype(dtype)  # no zero divisors
    pa, pb = fnp.placeholder(sa, dtype, name="a"), fnp.placeholder(sb, dtype, name="b")
    check({name: f(pa, pb) for name, f in BINARY.items()}, {"a": a, "b": b})


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_arithmetic_and_promotion(dtype):
    r = np.random.default_rng(3)
    a = r.integers(-20, 20, (3, 4)).astype(dtype)
    b = (r.choice([-1, 1], (4,)) * r.integers(1, 6, (4,))).astype(dtype)
    f = r.uniform(-2, 2, (3, 4)).astype(F32)
    pa, pb, pf = fnp.placeholder(a.shape, dtype, name="a"), fnp.placeholder(b.shape, dtype, name="b"), \
        fnp.placeholder(f.shape, F32, name="f")
    outs = {"add": pa + pb, "sub": pa - pb, "mul": pa * pb, "floordiv": pa // pb, "rem": pa % pb,
            "fmod": fnp.fmod(pa, pb), "truediv": pa / pb, "pow": pa ** 2, "abs": abs(pa), "neg": -pa,
            "maximum": fnp.maximum(pa, pb), "minimum": fnp.minimum(pa, pb), "lt": pa < pb, "eq": pa == pb,
            "floor": fnp.floor(pa), "sign": fnp.sign(pa), "recip": fnp.reciprocal(pb),
            "mixed": pa + pf,  # int + float32 -> float64 (NumPy's promotion)
            "to_f32": pf.astype("int32").astype(F32), "to_bool": pa.astype(bool), "from_bool": (pa > 0).astype(dtype),
            "sum": pa.sum(axis=1), "mean": pa.mean(axis=0), "prod": (pb % 3).prod(), "cumsum": fnp.cumsum(pa, axis=0),
            "and": fnp.bitwise_and(pa, pb), "or": fnp.bitwise_or(pa, pb), "xor": fnp.bitwise_xor(pa, pb),
            "invert": fnp.invert(pa), "bool_and": (pa > 0) & (pb > 0), "bool_not": ~(pa > 0),
            "clip": fnp.clip(pa, -5, 5), "where": fnp.where(pa > 0, pa, 0), "argmax": fnp.argmax(pa, axis=1),
            "max": pa.max(axis=0), "min_bool": fnp.min(pa > 0), "all": fnp.all(pa), "take": fnp.take(pb, pa % 4),
            "matmul": pa @ pb, "concat": fnp.concatenate([pa, pf.astype(dtype)]), "flip": pa[::-1, ::2]}
    m = check(outs, {"a": a, "b": b, "f": f})
    assert {"BitwiseAnd", "BitwiseNot"} <= ops_of(m)


# ---------------------------------------------------------------- reductions

@pytest.mark.parametrize("opset", [13, 18])
@settings(max_examples=examples(4))
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), dtype=FLOATS, keep=st.booleans(),
       data=st.data())
def test_reductions(opset, shape, dtype, keep, data):
    r = rng_of(data)
    axes = tuple(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1), label="axes"))
    axis = axes[0]
    x = r.uniform(-2, 2, shape).astype(dtype)
    px = fnp.placeholder(shape, dtype, name="x")
    outs = {"sum": px.sum(axis=axes, keepdims=keep), "prod": px.prod(axis=axes, keepdims=keep),
            "mean": px.mean(axis=axes, keepdims=keep), "max": px.max(axis=axes, keepdims=keep),
            "min": px.min(axis=axes, keepdims=keep), "var": px.var(axis=axes, keepdims=keep),
            "std1": px.std(axis=axes, ddof=1, keepdims=keep) if np.prod([shape[a] for a in axes]) > 1 else px.std(),
            "all": fnp.all(px > -1, axis=axes, keepdims=keep), "any": fnp.any(px > 1, axis=axes, keepdims=keep),
            "sum_all": px.sum(), "sum_none": fnp.sum(px, axis=()), "argmax": fnp.argmax(px, axis=axis, keepdims=keep),
            "argmin": fnp.argmin(px, axis=axis), "argmax_flat": fnp.argmax(px),
            "argmin_flat_keep": fnp.argmin(px, keepdims=True), "cumsum": fnp.cumsum(px, axis=axis),
            "cumsum_flat": fnp.cumsum(px), "sum_where": fnp.sum(px, axis=axes, where=px > 0, initial=1.0),
            "max_where": fnp.max(px, axis=axes, where=px < 1, initial=-5.0), "max_bool": fnp.max(px > 0, axis=axes)}
    m = check(outs, {"x": x}, opset=opset)
    reduce_max = next(n for n in m.graph.node if n.op_type == "ReduceMax")
    assert (len(reduce_max.input) == 2) == (opset >= 18)  # axes: an attribute before 18, an input from 18


# ---------------------------------------------------------------- movement and indexing

@settings(max_examples=examples(4))
@given(dtype=FLOATS, data=st.data())
def test_movement(dtype, data):
    r = rng_of(data)
    x = r.uniform(-2, 2, (2, 3, 4)).astype(dtype)
    v = r.uniform(-2, 2, (4,)).astype(F32)
    px, pv = fnp.placeholder(x.shape, dtype, name="x"), fnp.placeholder(v.shape, F32, name="v")
    outs = {"reshape": px.reshape(6, 4), "transpose": px.transpose(2, 0, 1), "T": px.T,
            "broadcast": fnp.broadcast_to(pv, (3, 4)), "concat_mixed": fnp.concatenate([px[0], pv[None, :]], axis=0),
            "stack": fnp.stack([px, px], axis=1), "squeeze": fnp.squeeze(px[:, :1], 1),
            "expand_dims": fnp.expand_dims(px, (0, 3)), "flip": fnp.flip(px, (0, 2)), "diff": fnp.diff(px, axis=2),
            "repeat": fnp.repeat(px, [1, 0, 2], axis=1), "repeat2": fnp.repeat(px, 2, axis=2),
            "tile": fnp.tile(pv, (2, 2)), "swapaxes": fnp.swapaxes(px, 0, 2), "moveaxis": fnp.moveaxis(px, 0, -1),
            "matrix_transpose": fnp.matrix_transpose(px), "tril": fnp.tril(px, -1), "triu": fnp.triu(px, 1),
            "pad": fnp.pad(px, ((0, 0), (1, 2), (2, 0))), "ravel": fnp.ravel(px)}
    for opset in (13, 18):
        m = check(outs, {"x": x, "v": v}, opset=opset)
        assert ("Trilu" in ops_of(m)) == (opset >= 14)


KEYS = [(1,), (-1, slice(None, None, -1)), (slice(1, None), None, slice(3, 0, -2)), (Ellipsis, 2),
        (0, slice(None), -1), (slice(None, None, -1), slice(None, None, -1), slice(None, None, -1)),
        (None, slice(0, 1), Ellipsis, None), (slice(5, 9),)]


@pytest.mark.parametrize("key", KEYS, ids=str)
def test_basic_indexing(key):
    x = np.arange(24, dtype=F32).reshape(2, 3, 4)
    px = fnp.placeholder(x.shape, F32, name="x")
    check({"y": px[key]}, {"x": x})


def test_gathers():
    r = np.random.default_rng(5)
    x = r.uniform(-1, 1, (3, 4, 5)).astype(F32)
    i = np.array([[0, -1], [2, 1]], np.int64)
    j = np.array([4, 0, 9, -7], np.int32)
    order = np.argsort(x, axis=2)
    px, pi, pj, po = (fnp.placeholder(a.shape, a.dtype, name=n)
                      for a, n in ((x, "x"), (i, "i"), (j, "j"), (order, "o")))
    outs = {"take": fnp.take(px, pi, axis=1), "take_flat": fnp.take(px, pi),
            "wrap": fnp.take(px, pj, axis=2, mode="wrap"),
            "clip": fnp.take(px, pj, axis=1, mode="clip"), "adv_last": px[:, :, pi], "adv_first": px[pi],
            "adv_front": px[1, :, pi], "adv_int_after": px[pi, 2], "adv_sliced": px[1:, ::2, pi],
            "along": fnp.take_along_axis(px, po, axis=2),
            "along_flat": fnp.take_along_axis(px.reshape(-1), po.reshape(-1), axis=None),
            "along_bcast": fnp.take_along_axis(px, po[:1, :, :2], axis=2),
            "select": fnp.select([px > 0.5, px < -0.5], [px, -px], 0.0),
            "embedding": nn.embedding(pi, px.reshape(15, 4))}
    check(outs, {"x": x, "i": i, "j": j, "o": order})


# ---------------------------------------------------------------- products

@pytest.mark.parametrize("dtype", [F32, F64, np.dtype("int64")])
def test_products(dtype):
    r = np.random.default_rng(7)
    data = {"a": (2, 3, 4), "b": (4, 5), "c": (2, 4, 3), "v": (4,), "w": (3,), "m": (3, 4)}
    feeds = {k: (r.uniform(-2, 2, s) if dtype.kind == "f" else r.integers(-3, 4, s)).astype(dtype)
             for k, s in data.items()}
    p = {k: fnp.placeholder(s, dtype, name=k) for k, s in data.items()}
    outs = {"matmul": p["a"] @ p["b"], "batched": p["a"] @ p["c"], "mat_vec": p["a"] @ p["v"],
            "vec_mat": p["v"] @ p["b"],
            "vec_vec": p["v"] @ p["v"], "dot2": fnp.dot(p["m"], p["b"]), "dotN": fnp.dot(p["a"], p["c"]),
            "dot_scalar": fnp.dot(p["v"], 2), "inner": fnp.inner(p["a"], p["m"]), "outer": fnp.outer(p["v"], p["w"]),
            "tensordot": fnp.tensordot(p["a"], p["c"], axes=([1, 2], [2, 1])),
            "einsum": fnp.einsum("bij,jk->bik", p["a"], p["b"]), "einsum_implicit": fnp.einsum("ij,j", p["m"], p["v"]),
            "einsum_ellipsis": fnp.einsum("...ij->...ji", p["a"]), "vecdot": fnp.vecdot(p["a"], p["m"]),
            "linear": nn.linear(p["m"], p["b"], p["b"][0])}
    check(outs, feeds)


# ---------------------------------------------------------------- neural-network ops

@st.composite
def conv_case(draw):
    groups = draw(st.sampled_from([1, 2]))
    c, o = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = draw(st.integers(0, 2))
    hw = (draw(st.integers(5, 7)), draw(st.integers(5, 7)))
    return dict(groups=groups, c=c, o=o, k=k, stride=stride, dilation=dilation, padding=padding, hw=hw)


@settings(max_examples=examples(6))
@given(case=conv_case(), dtype=FLOATS, ceil=st.booleans(), include=st.booleans(), data=st.data())
def test_conv_and_pools(case, dtype, ceil, include, data):
    r = rng_of(data)
    x = r.standard_normal((2, case["c"]) + case["hw"]).astype(dtype)
    w = r.standard_normal((case["o"], case["c"] // case["groups"]) + case["k"]).astype(dtype)
    wt = r.standard_normal((case["c"], case["o"] // case["groups"]) + case["k"]).astype(dtype)
    b = r.standard_normal(case["o"]).astype(dtype)
    px = fnp.placeholder(x.shape, dtype, name="x")
    kw = dict(stride=case["stride"], padding=case["padding"], dilation=case["dilation"], groups=case["groups"])
    pad = min(case["padding"], 1)  # pools pad at most half the kernel
    outs = {"conv": nn.conv2d(px, w, b, **kw), "conv_t": nn.conv_transpose2d(px, wt, b, **kw),
            "max_pool": nn.max_pool2d(px, 3, stride=case["stride"], padding=pad, dilation=case["dilation"],
                                      ceil_mode=ceil),
            "avg_pool": nn.avg_pool2d(px, (3, 2), stride=case["stride"], padding=pad, ceil_mode=ceil,
                                      count_include_pad=include),
            "global_avg": nn.global_avg_pool2d(px)}
    # onnxruntime's Conv, ConvTranspose and AveragePool kernels take float32 only: float64 is checked, not run
    f32_only = {k: outs.pop(k) for k in ("conv", "conv_t", "avg_pool")} if dtype == F64 else {}
    check(outs, {"x": x})
    if f32_only:
        fgraph.onnx.save(fgraph.Graph(f32_only))


def test_normalisations_and_heads():
    r = np.random.default_rng(11)
    x = r.standard_normal((2, 3, 4, 4)).astype(F32)
    c = [r.uniform(0.5, 1.5, 3).astype(F32) for _ in range(4)]
    px = fnp.placeholder(x.shape, F32, name="x")
    outs = {"batch_norm": nn.batch_norm(px, c[0] - 1, c[1], c[2], c[3], training=False),
            "layer_norm": nn.layer_norm(px, np.ones(4, F32), np.zeros(4, F32), axis=-1),
            "lrn": nn.local_response_norm(px, 3), "flatten": nn.flatten(px),
            "upsample": nn.upsample_nearest(px, 2)}
    check(outs, {"x": x})


def test_creation_ops_fold_or_fill():
    px = fnp.placeholder((3, 40), F64, name="x")
    outs = {"zeros": px + fnp.zeros((3, 40)), "ones": px * fnp.ones((40,), "float32"),
            "full": px - fnp.full((3, 40), 2.5),
            "arange": px + fnp.arange(40), "eye": fnp.eye(3, 40, k=2) * px, "linspace": px * fnp.linspace(0, 1, 40),
            "tri": fnp.tri(3, 40) + px, "small": fnp.full((2,), 7, dtype="int32")}
    x = np.random.default_rng(0).standard_normal((3, 40))
    m = check(outs, {"x": x})
    assert "ConstantOfShape" in ops_of(m)  # large fills stay fills, not 3x40 initializers


# ---------------------------------------------------------------- graph structure, variables, updates

def test_output_structures_and_names():
    px = fnp.placeholder((2, 3), F32, name="x")
    x = np.arange(6, dtype=F32).reshape(2, 3)
    y = px * 2
    m = check(y, {"x": x})
    assert [o.name for o in m.graph.output] == ["out0"] and [i.name for i in m.graph.input] == ["x"]
    m = check((y, px, y, 3.5), {"x": x})  # a placeholder, a repeated value and a Python scalar as outputs
    assert [o.name for o in m.graph.output] == ["out0", "out1", "out2", "out3"]
    m = check({"double": y, "parts": [px.sum(), {"max": px.max(axis=0)}], "x": px}, {"x": x})
    assert [o.name for o in m.graph.output] == ["double", "parts.0", "parts.1.max", "x"]
    assert [(d.dim_value) for d in m.graph.output[0].type.tensor_type.shape.dim] == [2, 3]
    v = fnp.variable(np.arange(3.0), name="v")
    m = check({"v": v, "c": fnp.asarray(np.ones((2, 2), F32)), "y": px[:, 0] + v[:2], "x": px}, {"x": x})
    assert [o.name for o in m.graph.output] == ["v", "c", "y", "x"] and [i.name for i in m.graph.input] == ["x"]
    unused = fnp.placeholder((4,), "int64", name="unused")  # every graph input is kept, even one no output reads
    m = check(None, {"x": x, "unused": np.arange(4)}, graph=fgraph.Graph(outputs={"y": y}, inputs=[px, unused]))
    assert [i.name for i in m.graph.input] == ["x", "unused"]


def test_variables_updates_and_current_state():
    rng = np.random.default_rng(2)
    params = {k: fnp.variable(v, name=k) for k, v in fgraph.models.cnn.digits_cnn_params(rng, channels=(4, 6)).items()}
    x = fnp.placeholder((5, 1, 8, 8), F32, name="images")
    labels = fnp.placeholder((5,), "int64", name="labels")
    logits = fgraph.models.cnn.digits_cnn(x, params)
    loss = nn.cross_entropy(logits, labels)
    weights = list(params.values())
    train = fgraph.Graph(outputs={"loss": loss}, updates=fgraph.optim.sgd(weights, fgraph.grad(loss, weights), lr=0.5))
    with pytest.raises(FgraphError, match=r"updates variable\(s\) \['conv1_w'") as e:
        fgraph.onnx.save(train)
    assert "drop_updates=True" in str(e.value)
    images = rng.standard_normal((5, 1, 8, 8)).astype(F32)
    feeds = {"images": images, "labels": rng.integers(0, 10, 5)}
    m = fgraph.onnx.save(train, drop_updates=True)  # the loss at the initial weights
    compare(session(m).run(None, feeds)[0], fgraph.compile(fgraph.Graph(loss))(**feeds), "loss")
    exe = fgraph.compile(train)
    exe.run(steps=3, **feeds)
    infer = fgraph.Graph(outputs={"logits": logits})
    m = fgraph.onnx.save(infer, variables=exe.variables)  # the trained state, not the initial one
    assert {i.name for i in m.graph.initializer} >= set(params)
    trained = fgraph.compile(fgraph.Graph(outputs={"logits": logits}, inputs=[x] + weights))
    want = trained(images=images)  # the graph's own variables still hold the initial weights
    got = session(m).run(None, {"images": images})[0]
    assert not np.allclose(got, want["logits"], atol=1e-3)
    with pytest.raises(FgraphError, match="not variables of the graph"):
        fgraph.onnx.save(infer, variables={"nope": np.zeros(1)})
    with pytest.raises(FgraphError, match=r"variables\['fc_b'\] is float64"):
        fgraph.onnx.save(infer, variables={"fc_b": np.zeros(10)})


def test_digits_cnn_trained_state_matches_fgraph():
    rng = np.random.default_rng(4)
    values = fgraph.models.cnn.digits_cnn_params(rng, channels=(4, 6))
    values = {k: v + rng.normal(0, 0.1, v.shape).astype(F32) for k, v in values.items()}
    params = {k: fnp.variable(v, name=k) for k, v in values.items()}
    x = fnp.placeholder((3, 1, 8, 8), F32, name="images")
    g = fgraph.Graph(outputs={"logits": fgraph.models.cnn.digits_cnn(x, params)})
    images = rng.standard_normal((3, 1, 8, 8)).astype(F32)
    m = check(None, {"images": images}, graph=g)
    m2 = check(None, {"images": images}, graph=fgraph.optimise(g))
    assert {"Conv", "MaxPool", "MatMul"} <= ops_of(m) and {"Conv", "MaxPool"} <= ops_of(m2)


# ---------------------------------------------------------------- refusals

def test_refusals_name_the_op_the_line_and_the_opset():
    px = fnp.placeholder((4,), F32, name="x")
    y = fnp.sort(px)  # the line the error names
    line = sys._getframe().f_lineno - 1
    with pytest.raises(FgraphError) as e:
        fgraph.onnx.save(fgraph.Graph(outputs=y + 1))
    msg = str(e.value)
    assert "'sort'" in msg and f"{THIS}:{line}" in msg and "opset 18" in msg
    pi = fnp.placeholder((4,), "int32", name="i")
    with pytest.raises(FgraphError, match=r"'bitwise_and'.*opset 13: integer bitwise_and needs opset 18"):
        fgraph.onnx.save(fgraph.Graph(pi & 3), opset=13)
    m2 = fnp.placeholder((4, 4), F32, name="m")
    with pytest.raises(FgraphError, match=r"'advanced_index'.*2 index arrays"):
        fgraph.onnx.save(fgraph.Graph(m2[pi, pi]))
    with pytest.raises(FgraphError, match=r"'random_uniform'.*Philox"):
        fgraph.onnx.save(fgraph.Graph(nn.random_uniform(3, (2,), "float32") + px[:2]))
    with pytest.raises(FgraphError, match=r"complex"):
        fgraph.onnx.save(fgraph.Graph(px * 1j))
    with pytest.raises(FgraphError, match=r"'linalg|'inv'|'det'"):
        fgraph.onnx.save(fgraph.Graph(fnp.linalg.det(m2)))
    for bad in (12, 23, "18", True):
        with pytest.raises(FgraphError, match="fgraph writes opsets 13 to 22"):
            fgraph.onnx.save(fgraph.Graph(px + 1), opset=bad)
    with pytest.raises(FgraphError, match=r"output name\(s\) \['x'\] are also placeholder names"):
        fgraph.onnx.save(fgraph.Graph(outputs={"x": px + 1}))
    with pytest.raises(FgraphError, match="no outputs"):
        fgraph.onnx.save(fgraph.Graph(outputs={}))


def test_fused_refusal_names_the_fused_node_line():
    pi = fnp.placeholder((8,), "int64", name="i")
    y = ((pi & 3) + 1) * 2  # fused by the optimiser into one node
    line = sys._getframe().f_lineno - 1
    g = fgraph.optimise(fgraph.Graph(y))
    assert any(n.op == "fused" for n in g.nodes())
    with pytest.raises(FgraphError) as e:
        fgraph.onnx.save(g, opset=13)
    msg = str(e.value)
    assert "'bitwise_and'" in msg and "inside the fused node" in msg and f"{THIS}:{line}" in msg


# ---------------------------------------------------------------- whole models, fused graphs, purity

def test_optimised_graph_with_fused_nodes():
    r = np.random.default_rng(9)
    x, w = r.standard_normal((6, 8)).astype(F32), r.standard_normal((8, 8)).astype(F32)
    px = fnp.placeholder(x.shape, F32, name="x")
    h = fnp.tanh(px @ w) * 0.5 + px  # fma / fused element-wise
    logits = nn.log_softmax(h * h - 1.0, axis=-1)
    g = fgraph.Graph(outputs={"h": h, "logits": logits, "row": fnp.sum(fnp.exp(h) * 2.0 - h, axis=1)})
    opt = fgraph.optimise(g)
    fused = {n.op for n in opt.nodes()} & {"fused", "fused_reduce", "fma"}
    assert len(fused) >= 2, fused
    want = fgraph.compile(g)(x=x)  # the unoptimised graph's results
    m = fgraph.onnx.save(opt)
    got = dict(zip([o.name for o in m.graph.output], session(m).run(None, {"x": x})))
    for k in want:
        compare(got[k], want[k], k)
    assert not any(n.op_type in ("Identity",) for n in m.graph.node)  # outputs name their nodes' values


def light_models():
    test_onnx = pytest.importorskip("test_onnx")
    return test_onnx


@pytest.mark.parametrize("name, opset", [("squeezenet", 13), ("inception_v1", 22), ("tb", 17)])
def test_round_trip_through_onnxruntime(name, opset, tmp_path):
    """import -> optimise -> export: onnxruntime runs the export as it runs the original model."""
    t = light_models()
    if name == "tb":
        m, ids = t.transformer_block(17)
        g, feeds = fgraph.onnx.load(m, batch=2), {"ids": ids}
    else:
        m = t.randomised(t.light(name))
        g = fgraph.onnx.load(m)
        (p,) = g.placeholders
        feeds = {p.name: np.random.default_rng(1).standard_normal(p.shape).astype(F32)}
    want = session(m).run(None, feeds)
    path = tmp_path / "exported.onnx"
    e = fgraph.onnx.save(fgraph.optimise(g), path, opset=opset)
    assert onnx.load(str(path)) == e and e.opset_import[0].version == opset
    got = session(e).run(None, feeds)
    assert [o.name for o in e.graph.output] == [o.name for o in m.graph.output]
    for vi, a, b in zip(m.graph.output, got, want):
        scale = float(np.abs(b).max())
        assert a.shape == b.shape and a.dtype == b.dtype
        assert np.abs(a - b).max() <= 1e-4 * scale + 1e-6, vi.name
    back = fgraph.compile(fgraph.onnx.load(path))(**feeds)  # and fgraph reads its own export
    for vi, b in zip(m.graph.output, want):
        assert np.abs(back[vi.name] - b).max() <= 1e-4 * float(np.abs(b).max()) + 1e-6


def _one_node_cases():
    """(op type, inputs, attributes, opset) of one-node models, inputs as test_onnx.one_node takes them."""
    r = np.random.default_rng(13)

    def f(*shape, lo=-2.0, hi=2.0):
        return r.uniform(lo, hi, shape).astype(F32)

    x, img = f(2, 3, 4), f(1, 4, 6, 6)
    C = light_models().C
    ints = lambda *v: C(np.array(v, np.int64))  # noqa: E731
    return [
        ("Sigmoid", [x], {}, 17), ("LeakyRelu", [x], {"alpha": 0.2}, 17), ("Elu", [x], {}, 17), ("Selu", [x], {}, 17),
        ("HardSigmoid", [x], {}, 17), ("HardSwish", [x], {}, 17), ("Softplus", [x], {}, 17),
        ("Softsign", [x], {}, 17), ("Mish", [x], {}, 18), ("Celu", [x], {}, 17), ("ThresholdedRelu", [x], {}, 17),
        ("Gelu", [x], {"approximate": "tanh"}, 20), ("Reciprocal", [f(3, lo=0.5)], {}, 17),
        ("PRelu", [x, C(f(4))], {}, 17), ("Mod", [x, f(4, lo=0.5)], {"fmod": 1}, 17),
        ("Mod", [np.arange(-6, 6, dtype=np.int64), C(np.int64(4))], {}, 17),
        ("Sum", [x, f(4), f(3, 1)], {}, 17), ("Mean", [x, f(4)], {}, 17), ("Max", [x, f(3, 4)], {}, 17),
        ("Softmax", [x], {"axis": 1}, 17), ("LogSoftmax", [x], {}, 17), ("Softmax", [x], {"axis": 1}, 11),
        ("Gemm", [f(3, 4), C(f(5, 4)), C(f(5))], {"transB": 1, "alpha": 0.5}, 17),
        ("Einsum", [f(2, 3), f(3, 4)], {"equation": "ij,jk->ik"}, 17),
        ("ReduceL2", [x, ints(1)], {"keepdims": 0}, 18), ("ReduceLogSumExp", [x], {"axes": [2]}, 17),
        ("ReduceSumSquare", [x, ints(0, 2)], {}, 18), ("ArgMax", [x], {"axis": 1, "select_last_index": 1}, 17),
        ("CumSum", [x, C(np.int64(2))], {"exclusive": 1, "reverse": 1}, 17),
        ("Flatten", [x], {"axis": 2}, 17), ("Squeeze", [f(2, 1, 3), ints(1)], {}, 17),
        ("Unsqueeze", [x, ints(0, 4)], {}, 17), ("Split", [f(4, 2)], {"axis": 0}, 17),
        ("Slice", [x, ints(2, 1), ints(0, -1), ints(2, 0), ints(-1, 1)], {}, 17),
        ("Gather", [x, C(np.array([[1, -1]], np.int64))], {"axis": 2}, 17),
        ("GatherElements", [x, C(r.integers(0, 3, (2, 2, 4)))], {"axis": 1}, 17),
        ("Expand", [f(3, 1), ints(2, 3, 4)], {}, 17), ("Tile", [x, ints(1, 2, 2)], {}, 17),
        ("Pad", [x, ints(0, 1, 2, 1, 0, 1)], {"mode": "reflect"}, 17),
        ("Pad", [x, ints(1, 0, 1, 0, 2, 0), C(np.float32(3))], {}, 17),
        ("Pad", [x, ints(0, 2, 0, 0, 1, 1)], {"mode": "edge"}, 17), ("Trilu", [x, C(np.int64(1))], {}, 17),
        ("DepthToSpace", [f(1, 8, 2, 3)], {"blocksize": 2, "mode": "CRD"}, 17),
        ("SpaceToDepth", [f(1, 2, 4, 6)], {"blocksize": 2}, 17), ("Range", [C(np.float32(1)), C(np.float32(7)),
                                                                          C(np.float32(1.5))], {}, 17),
        ("Conv", [img, C(f(6, 2, 3, 3)), C(f(6))], {"group": 2, "auto_pad": "SAME_UPPER", "strides": [2, 2]}, 17),
        ("Conv", [f(1, 3, 9), C(f(2, 3, 3))], {"pads": [1, 0]}, 17),
        ("ConvTranspose", [img, C(f(4, 3, 3, 3)), C(f(3))], {"strides": [2, 2], "output_padding": [1, 0]}, 17),
        ("MaxPool", [img], {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}, 17),
        ("AveragePool", [img], {"kernel_shape": [2, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1}, 17),
        ("GlobalAveragePool", [img], {}, 17), ("GlobalMaxPool", [img], {}, 17),
        ("BatchNormalization", [img, C(f(4, lo=0.5)), C(f(4)), C(f(4)), C(f(4, lo=0.5))], {}, 15),
        ("InstanceNormalization", [img, C(f(4)), C(f(4))], {}, 17),
        ("LayerNormalization", [x, C(f(3, 4)), C(f(3, 4))], {"axis": 1}, 17), ("LRN", [img], {"size": 3}, 17),
        ("Resize", [img, C(np.zeros(0, F32)), C(np.array([1, 1, 2, 2], F32))], {"mode": "nearest"}, 17),
        ("IsInf", [np.array([np.inf, -np.inf, 1, np.nan], F32)], {"detect_negative": 0}, 17),
        ("Cast", [x], {"to": onnx.TensorProto.INT32}, 17), ("Dropout", [x], {}, 17),
    ]


def test_one_node_models_round_trip():
    """ONNX op -> fgraph (import) -> ONNX (export): onnxruntime agrees with itself on the original."""
    one_node = light_models().one_node
    for op_type, ins, attrs, opset in _one_node_cases():
        m, feeds = one_node(op_type, ins, attrs, opset, n_out=2 if op_type == "Split" else 1)
        want = session(m).run(None, feeds)
        e = fgraph.onnx.save(fgraph.optimise(fgraph.onnx.load(m)))
        got = session(e).run(None, feeds)
        for k, (a, b) in enumerate(zip(got, want)):
            compare(a, b, f"{op_type} {attrs} output {k}")


def test_export_does_not_change_its_graph():
    px = fnp.placeholder((3, 4), F32, name="x")
    v = fnp.variable(np.ones(4, F32), name="v")
    y = {"a": fnp.tanh(px * v + fnp.arange(4, dtype="float32")), "b": px[::-1, 1:].sum(axis=0) * fnp.linspace(0, 1, 3)}
    for g in (fgraph.Graph(y), fgraph.optimise(fgraph.Graph(y))):
        def state():
            return (g.key, g.structure, g.inputs, g.outputs, g.updates,
                    [(n.key, n.params, n.inputs, known_value(n)) for n in g.nodes()])

        nodes, before = g.nodes(), state()
        fgraph.onnx.save(g)
        fgraph.onnx.save(g, opset=13, variables={"v": np.zeros(4, F32)})
        after = state()
        assert after == before
        assert [a is b for a, b in zip(g.nodes(), nodes)] == [True] * len(nodes)


def test_importing_fgraph_onnx_does_not_import_the_exporter():
    code = "import sys, fgraph.onnx; assert 'fgraph.onnx.export' not in sys.modules and 'onnx' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)

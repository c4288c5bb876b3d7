"""ONNX import: every supported op against onnx's ReferenceEvaluator, the
light model zoo against its shipped outputs, whole networks with random
weights against onnxruntime, and the importer's errors."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

onnx = pytest.importorskip("onnx", reason="fgraph.onnx needs the onnx package (the 'onnx' extra)")

import fgraph  # noqa: E402
import fgraph.onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
F32, F64 = np.dtype("float32"), np.dtype("float64")


# ---------------------------------------------------------------- one-node models

class C:
    """An input given as an initializer (a constant), not a feed."""

    def __init__(self, value):
        self.value = np.asarray(value)


def one_node(op_type, ins, attrs=None, opset=17, n_out=1, domain=""):
    """A model of one node; ``ins``: arrays (graph inputs), C(...) (initializers) or None (left out)."""
    names, vis, inits, feeds = [], [], [], {}
    for k, v in enumerate(ins):
        if v is None:
            names.append("")
            continue
        name = f"in{k}"
        names.append(name)
        if isinstance(v, C):
            inits.append(numpy_helper.from_array(v.value, name))
        else:
            v = np.asarray(v)
            vis.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape))
            feeds[name] = v
    while names and names[-1] == "":
        names.pop()
    outs = [f"out{k}" for k in range(n_out)]
    node = helper.make_node(op_type, names, outs, name=f"the_{op_type.lower()}", domain=domain, **(attrs or {}))
    graph = helper.make_graph([node], "one", vis, [helper.make_empty_tensor_value_info(o) for o in outs], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m, feeds


def reference(m, feeds, convert=None):
    if convert is not None:  # the evaluator's old-opset Softmax/BatchNormalization are wrong (DESIGN.md)
        from onnx import version_converter

        m = version_converter.convert_version(m, convert)
    try:
        return ReferenceEvaluator(m).run(None, feeds)
    except (TypeError, ValueError):  # a few of its kernels fail on 0-d inputs: ask onnxruntime
        return ort_oracle(m, feeds)


def run_fgraph(m, feeds, optimise=False, **load_kw):
    g = fgraph.onnx.load(m, **load_kw)
    if optimise:
        g = fgraph.optimise(g)
    res = fgraph.compile(g)(**feeds)
    return [res[o.name] for o in m.graph.output]


def compare(got, want, rtol=1e-5, atol=1e-6, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}dtype {got.dtype} != {want.dtype}"
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check(op_type, ins, attrs=None, opset=17, n_out=1, rtol=1e-5, atol=1e-6, convert=None, oracle=None):
    """fgraph's import of a one-node model against the reference (or ``oracle(m, feeds)``)."""
    m, feeds = one_node(op_type, ins, attrs, opset, n_out)
    want = oracle(m, feeds) if oracle else reference(m, feeds, convert)
    got = run_fgraph(m, feeds)
    for k, (a, b) in enumerate(zip(got, want)):
        compare(a, b, rtol, atol, f"{op_type} output {k} {attrs}: ")


def rand(data, shape, dtype=F32, lo=-3.0, hi=3.0):
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    r = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return r.random(shape) < 0.5
    if dtype.kind in "iu":
        return r.integers(int(lo), int(hi) + 1, size=shape).astype(dtype)
    return r.uniform(lo, hi, size=shape).astype(dtype)


def small_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def ort_session(m):
    ort = pytest.importorskip("onnxruntime")
    opts = ort.SessionOptions()
    opts.log_severity_level = 3  # errors only
    return ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def ort_oracle(m, feeds):
    return ort_session(m).run(None, feeds)


# ---------------------------------------------------------------- element-wise

UNARY = {  # op: (low, high) of the inputs
    "Abs": (-3, 3), "Neg": (-3, 3), "Sqrt": (0.01, 9), "Exp": (-5, 5), "Log": (0.01, 9), "Tanh": (-4, 4),
    "Sin": (-4, 4), "Cos": (-4, 4), "Tan": (-1.5, 1.5), "Asin": (-0.99, 0.99), "Acos": (-0.99, 0.99),
    "Atan": (-4, 4), "Sinh": (-3, 3), "Cosh": (-3, 3), "Asinh": (-3, 3), "Acosh": (1.01, 4),
    "Atanh": (-0.99, 0.99), "Floor": (-4, 4), "Ceil": (-4, 4), "Sign": (-2, 2), "Reciprocal": (0.1, 3),
    "Relu": (-3, 3), "Sigmoid": (-100, 100), "Softplus": (-100, 100), "Softsign": (-5, 5), "Erf": (-4, 4),
}


@pytest.mark.parametrize("op_type", sorted(UNARY))
@settings(max_examples=examples(6))
@given(data=st.data())
def test_unary(op_type, data):
    shape = data.draw(small_shapes())
    dt = F32 if op_type == "Softsign" and shape == () else data.draw(st.sampled_from([F32, F64]))
    lo, hi = UNARY[op_type]
    x = rand(data, shape, dt, lo, hi)  # (0-d float64 Softsign: both oracles fail)
    check(op_type, [x], opset=data.draw(st.sampled_from([15, 17, 18])))


@settings(max_examples=examples(8))
@given(data=st.data())
def test_round_and_integer_relu(data):
    shape = data.draw(small_shapes())
    x = rand(data, shape, F32, -8, 8).round() / 2  # halves: ties round to even
    check("Round", [x])
    check("Relu", [rand(data, shape, np.int32, -5, 5)], opset=14)


@settings(max_examples=examples(6))
@given(data=st.data())
def test_predicates(data):
    x = rand(data, data.draw(small_shapes()), F32)
    x[x > 2] = np.nan
    x[x < -2] = np.inf
    x[(x > 1) & (x < 1.5)] = -np.inf
    check("IsNaN", [x])
    pos, neg = data.draw(st.integers(0, 1)), data.draw(st.integers(0, 1))
    check("IsInf", [x], {"detect_positive": pos, "detect_negative": neg})
    check("Not", [rand(data, x.shape, bool)])
    check("BitwiseNot", [rand(data, x.shape, np.int32, -50, 50)], opset=18)


ACTIVATIONS = {  # op: attributes drawn at random (name: (low, high))
    "LeakyRelu": {"alpha": (0.0, 0.5)}, "ThresholdedRelu": {"alpha": (-1, 1)}, "Elu": {"alpha": (0.1, 2)},
    "Selu": {"alpha": (0.5, 2), "gamma": (0.5, 2)}, "Celu": {"alpha": (0.2, 2)},
    "HardSigmoid": {"alpha": (0.05, 0.5), "beta": (0.2, 0.8)}, "HardSwish": {}, "Mish": {},
}


@pytest.mark.parametrize("op_type", sorted(ACTIVATIONS))
@settings(max_examples=examples(6))
@given(data=st.data())
def test_activations(op_type, data):
    x = rand(data, data.draw(small_shapes()), F32, -6, 6)
    attrs = {k: float(np.float32(data.draw(st.floats(lo, hi)))) for k, (lo, hi) in ACTIVATIONS[op_type].items()}
    if data.draw(st.booleans()):
        attrs = {}  # the defaults
    check(op_type, [x], attrs, opset=18, rtol=1e-5, atol=1e-6)


@settings(max_examples=examples(8))
@given(data=st.data())
def test_gelu(data):
    x = rand(data, data.draw(small_shapes()), F32, -6, 6)
    approx = data.draw(st.sampled_from(["none", "tanh", None]))
    check("Gelu", [x], {} if approx is None else {"approximate": approx}, opset=20)


BINARY = ["Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]


@pytest.mark.parametrize("op_type", BINARY)
@settings(max_examples=examples(8))
@given(data=st.data())
def test_binary_broadcast(op_type, data):
    sh = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4))
    dt = data.draw(st.sampled_from([F32, F64, np.dtype("int32"), np.dtype("int64")]))
    a = rand(data, sh.input_shapes[0], dt, -9, 9)
    b = rand(data, sh.input_shapes[1], dt, -9, 9)
    if op_type == "Div" and dt.kind == "i":
        b[b == 0] = 3  # C's truncating division (negative operands included)
    if op_type == "Pow":
        a = np.abs(a) + (dt.kind == "f")
        b = (np.abs(b) % 4).astype(dt)
    check(op_type, [a, b], opset=data.draw(st.sampled_from([13, 15, 18])))


@settings(max_examples=examples(8))
@given(data=st.data())
def test_pow_mixed_types_and_mod(data):
    shape = data.draw(small_shapes(max_dims=3))
    base = rand(data, shape, F32, 0.1, 3)
    check("Pow", [base, rand(data, shape, np.int64, 0, 3)], opset=15)  # the result keeps the base's type
    a, b = rand(data, shape, np.int32, -20, 20), rand(data, shape, np.int32, 1, 7)
    b = np.where(rand(data, shape, bool), b, -b)
    check("Mod", [a, b])  # Python's sign (the divisor's)
    check("Mod", [a.astype(F32), b.astype(F32)], {"fmod": 1})  # C's fmod
    check("Mod", [a, b], {"fmod": 1})


@pytest.mark.parametrize("op_type", ["And", "Or", "Xor", "BitwiseAnd", "BitwiseOr", "BitwiseXor"])
@settings(max_examples=examples(5))
@given(data=st.data())
def test_logical_and_bitwise(op_type, data):
    sh = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4))
    dt = bool if op_type in ("And", "Or", "Xor") else np.int32
    check(op_type, [rand(data, sh.input_shapes[0], dt, -99, 99), rand(data, sh.input_shapes[1], dt, -99, 99)],
          opset=18)


@pytest.mark.parametrize("op_type", ["Sum", "Max", "Min", "Mean"])
@settings(max_examples=examples(8))
@given(data=st.data())
def test_variadic(op_type, data):
    k = data.draw(st.integers(1, 4))
    sh = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=k, min_dims=0, max_dims=3, max_side=4))
    check(op_type, [rand(data, s, F32) for s in sh.input_shapes], opset=13)


@settings(max_examples=examples(8))
@given(data=st.data())
def test_where_and_prelu(data):
    sh = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=4))
    c, a, b = (rand(data, s, d) for s, d in zip(sh.input_shapes, (bool, F32, F32)))
    check("Where", [c, a, b])
    x = rand(data, sh.result_shape, F32)
    slope = rand(data, sh.input_shapes[0], F32, 0, 1)  # unidirectional broadcast into x
    check("PRelu", [x, C(slope)])


@settings(max_examples=examples(10))
@given(data=st.data())
def test_clip(data):
    x = rand(data, data.draw(small_shapes()), F32, -5, 5)
    lo, hi = sorted(data.draw(st.lists(st.floats(-4, 4, width=32), min_size=2, max_size=2)))
    which = data.draw(st.sampled_from(["both", "min", "max", "none"]))
    attrs = {k: v for k, v in (("min", lo), ("max", hi)) if which in ("both", k)}
    check("Clip", [x], attrs, opset=9)
    ins = [x, C(np.float32(lo)) if which in ("both", "min") else None,
           C(np.float32(hi)) if which in ("both", "max") else None]
    check("Clip", ins, opset=13)
    xi = rand(data, x.shape, np.int64, -9, 9)
    check("Clip", [xi, C(np.int64(-2)), C(np.int64(3))], opset=13)


# ---------------------------------------------------------------- softmax family

@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax", "Hardmax"])
@settings(max_examples=examples(8))
@given(data=st.data())
def test_softmax_both_semantics(op_type, data):
    shape = data.draw(small_shapes(min_dims=1))
    x = rand(data, shape, F32, -20, 20)
    if op_type == "Hardmax":
        x = x.round()  # ties: the first index wins
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    attrs = {"axis": axis} if data.draw(st.booleans()) else {}
    check(op_type, [x], attrs, opset=13)
    # opset < 13 flattens to 2-D at axis: the evaluator ignores that, onnxruntime does not
    check(op_type, [x], {"axis": axis} if len(shape) < 2 else attrs, opset=11, oracle=ort_oracle)


# ---------------------------------------------------------------- matrix products

@settings(max_examples=examples(15))
@given(data=st.data())
def test_matmul(data):
    sh = data.draw(hnp.mutually_broadcastable_shapes(signature="(m?,n),(n,p?)->(m?,p?)",
                                                     max_dims=2, max_side=4))
    a, b = rand(data, sh.input_shapes[0], F32), rand(data, sh.input_shapes[1], F32)
    check("MatMul", [a, b], rtol=1e-5, atol=1e-5)


@settings(max_examples=examples(20))
@given(data=st.data())
def test_gemm(data):
    m, k, n = (data.draw(st.integers(1, 5)) for _ in range(3))
    ta, tb = data.draw(st.integers(0, 1)), data.draw(st.integers(0, 1))
    a = rand(data, (k, m) if ta else (m, k), F32)
    b = rand(data, (n, k) if tb else (k, n), F32)
    c_shape = data.draw(st.sampled_from([None, (), (n,), (1, n), (m, 1), (m, n)]))
    attrs = {"transA": ta, "transB": tb}
    if data.draw(st.booleans()):
        attrs["alpha"] = data.draw(st.floats(-2, 2, width=32))
    if data.draw(st.booleans()):
        attrs["beta"] = data.draw(st.floats(-2, 2, width=32))
    ins = [a, C(b)] + ([] if c_shape is None else [C(rand(data, c_shape, F32))])
    check("Gemm", ins, attrs, opset=data.draw(st.sampled_from([9, 13])), atol=1e-5)


@pytest.mark.parametrize("eq,shapes", [("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
                                       ("ii->i", [(3, 3)]), ("ij->ji", [(2, 3)]), ("i,i->", [(4,), (4,)]),
                                       ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)])])
def test_einsum(eq, shapes):
    r = np.random.default_rng(0)
    check("Einsum", [r.standard_normal(s).astype(F32) for s in shapes], {"equation": eq}, opset=12, atol=1e-5)


# ---------------------------------------------------------------- reductions

REDUCE = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
          "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"]


@pytest.mark.parametrize("op_type", REDUCE)
@settings(max_examples=examples(10))
@given(data=st.data())
def test_reductions_attr_and_input_axes(op_type, data):
    shape = data.draw(small_shapes(min_dims=1))
    x = rand(data, shape, F32, 0.5, 2) if op_type == "ReduceLogSum" else rand(data, shape, F32, -2, 2)
    nd = len(shape)
    axes = data.draw(st.none() | st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd,
                                          unique_by=lambda a: a % nd))
    keep = data.draw(st.integers(0, 1))
    attrs = {"keepdims": keep}
    check(op_type, [x], attrs if axes is None else {**attrs, "axes": axes}, opset=11, atol=1e-5)  # attribute
    noop = data.draw(st.integers(0, 1))
    ins = [x] if axes is None else [x, C(np.asarray(axes, np.int64))]
    check(op_type, ins, {**attrs, "noop_with_empty_axes": noop}, opset=18, atol=1e-5)


def test_reduce_mean_integer_keeps_its_type():
    check("ReduceMean", [np.arange(12, dtype=np.int32).reshape(3, 4)], {"axes": [1]}, opset=13)


@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
@settings(max_examples=examples(10))
@given(data=st.data())
def test_argmax(op_type, data):
    shape = data.draw(small_shapes(min_dims=1))
    x = rand(data, shape, F32, -2, 2).round()  # ties
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    check(op_type, [x], {"axis": axis, "keepdims": data.draw(st.integers(0, 1)),
                         "select_last_index": data.draw(st.integers(0, 1))}, opset=13)


@settings(max_examples=examples(10))
@given(data=st.data())
def test_cumsum(data):
    shape = data.draw(small_shapes(min_dims=1))
    x = rand(data, shape, data.draw(st.sampled_from([F32, np.dtype("int64")])), -5, 5)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    check("CumSum", [x, C(np.int64(axis))], {"exclusive": data.draw(st.integers(0, 1)),
                                             "reverse": data.draw(st.integers(0, 1))}, opset=14, atol=1e-5)


# ---------------------------------------------------------------- shapes and movement

def test_identity_dropout_shape_size_constants():
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(F32)
    check("Identity", [x])
    check("Dropout", [x], {"ratio": 0.3}, opset=9)
    check("Dropout", [x, C(np.float32(0.5)), C(np.bool_(False))], opset=13, n_out=2)
    check("Shape", [x])
    for start, end in [(1, None), (-2, None), (0, -1), (-10, 10)]:
        check("Shape", [x], {"start": start} if end is None else {"start": start, "end": end}, opset=15)
    check("Size", [x])
    t = numpy_helper.from_array(np.arange(6, dtype=np.int32).reshape(2, 3))
    check("Constant", [], {"value": t})
    check("Constant", [], {"value_float": 1.5})
    check("Constant", [], {"value_floats": [1.5, -2.0]})
    check("Constant", [], {"value_int": 7})
    check("Constant", [], {"value_ints": [1, -2, 3]})
    check("ConstantOfShape", [C(np.array([2, 3], np.int64))])
    check("ConstantOfShape", [C(np.array([4], np.int64))],
          {"value": numpy_helper.from_array(np.array([3], np.int32))})
    check("ConstantOfShape", [C(np.zeros(0, np.int64))],
          {"value": numpy_helper.from_array(np.array([0.5], np.float64))})
    check("EyeLike", [x[0]], {"k": 1})
    check("EyeLike", [x[0]], {"k": -1, "dtype": TensorProto.INT32})


CAST_TO = [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32, TensorProto.INT64, TensorProto.BOOL,
           TensorProto.FLOAT16, TensorProto.UINT8]


@settings(max_examples=examples(10))
@given(data=st.data())
def test_cast(data):
    shape = data.draw(small_shapes())
    x = rand(data, shape, data.draw(st.sampled_from([F32, F64, np.dtype("int32"), np.dtype(bool)])), -5, 5)
    if x.dtype.kind == "f":
        x = x.round(1)
    to = data.draw(st.sampled_from(CAST_TO))
    if to == TensorProto.UINT8:
        x = np.abs(x)
    check("Cast", [x], {"to": to}, opset=13)
    check("CastLike", [x, C(np.zeros(1, helper.tensor_dtype_to_np_dtype(to)))], opset=15)


@settings(max_examples=examples(15))
@given(data=st.data())
def test_reshape_flatten(data):
    shape = data.draw(small_shapes(max_side=3))
    x = rand(data, shape, F32)
    target = list(data.draw(st.permutations(shape)))
    for i in range(len(target)):  # copy some dims with 0 (where they line up) and infer one with -1
        if i < len(shape) and target[i] == shape[i] and data.draw(st.booleans()):
            target[i] = 0
    if target and data.draw(st.booleans()):
        target[data.draw(st.integers(0, len(target) - 1))] = -1
    check("Reshape", [x, C(np.asarray(target, np.int64))], opset=data.draw(st.sampled_from([9, 13, 14])))
    axis = data.draw(st.integers(-len(shape), len(shape)))
    check("Flatten", [x], {"axis": axis}, opset=13)


def test_reshape_allowzero():
    x = np.zeros((0, 3), F32)
    check("Reshape", [x, C(np.array([3, 0], np.int64))], {"allowzero": 1}, opset=14)
    check("Reshape", [x, C(np.array([0, 3], np.int64))], {"allowzero": 0}, opset=14)


@settings(max_examples=examples(15))
@given(data=st.data())
def test_squeeze_unsqueeze(data):
    shape = data.draw(small_shapes(max_side=3))
    x = rand(data, shape, F32)
    ones = [i for i, d in enumerate(shape) if d == 1]
    axes = data.draw(st.lists(st.sampled_from(ones), unique=True)) if ones else []
    axes = [a - len(shape) if data.draw(st.booleans()) else a for a in axes]
    if axes:
        check("Squeeze", [x], {"axes": axes}, opset=11)
        check("Squeeze", [x, C(np.asarray(axes, np.int64))], opset=13)
    else:
        check("Squeeze", [x], opset=13)
    k = data.draw(st.integers(1, 3))
    r = len(shape) + k
    ax = data.draw(st.lists(st.integers(-r, r - 1), min_size=k, max_size=k, unique_by=lambda a: a % r))
    check("Unsqueeze", [x], {"axes": ax}, opset=11, oracle=ort_oracle)  # the evaluator's v11 minds the order
    check("Unsqueeze", [x, C(np.asarray(ax, np.int64))], opset=13)


@settings(max_examples=examples(12))
@given(data=st.data())
def test_transpose_concat_split(data):
    shape = data.draw(small_shapes(min_dims=1, max_side=4))
    x = rand(data, shape, F32)
    perm = data.draw(st.permutations(range(len(shape))))
    check("Transpose", [x], {"perm": list(perm)} if data.draw(st.booleans()) else {})
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    parts = [x]
    for _ in range(data.draw(st.integers(0, 2))):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        parts.append(rand(data, tuple(s), F32))
    check("Concat", parts, {"axis": axis})
    dim = shape[axis]
    cuts = sorted(data.draw(st.lists(st.integers(0, dim), min_size=1, max_size=3)))
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [dim])]
    check("Split", [x], {"axis": axis, "split": sizes}, opset=11, n_out=len(sizes))
    check("Split", [x, C(np.asarray(sizes, np.int64))], {"axis": axis}, opset=13, n_out=len(sizes))
    k = data.draw(st.integers(1, max(1, dim)))
    check("Split", [x], {"axis": axis, "num_outputs": k}, opset=18, n_out=k)


def test_split_equal_by_outputs():
    x = np.arange(12, dtype=F32).reshape(2, 6)
    check("Split", [x], {"axis": 1}, opset=13, n_out=3)


@settings(max_examples=examples(20))
@given(data=st.data())
def test_slice(data):
    shape = data.draw(small_shapes(min_dims=1, max_side=5))
    x = rand(data, shape, F32)
    nd = len(shape)
    axes = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd, unique_by=lambda a: a % nd))
    big = st.sampled_from([2**63 - 1, -(2**63), 2**31 - 1, -(2**31)])
    starts = [data.draw(st.integers(-7, 7) | big) for _ in axes]
    steps = [data.draw(st.sampled_from([1, 2, 3, -1, -2])) for _ in axes]
    # (a huge positive end with a negative step: onnxruntime reads it as "to the start", the spec as empty)
    ends = [data.draw(st.integers(-7, 7) | (big if s > 0 else st.sampled_from([-(2**63), -(2**31)])))
            for s in steps]
    i64 = lambda v: C(np.asarray(v, np.int64))  # noqa: E731
    ins = [x, i64(starts), i64(ends), i64(axes), i64(steps)]
    # negative steps: the evaluator clamps as Python does; the spec (and onnxruntime) clamp starts to [0, dim-1]
    check("Slice", ins, opset=13, oracle=ort_oracle if min(steps) < 0 else None)
    if all(s == 1 for s in steps):
        check("Slice", ins[:4], opset=13)
        pos_axes = [a % nd for a in axes]
        clip = lambda v: [int(np.clip(e, -(2**31), 2**31 - 1)) for e in v]  # noqa: E731
        check("Slice", [x], {"starts": clip(starts), "ends": clip(ends), "axes": pos_axes}, opset=9)


@settings(max_examples=examples(15))
@given(data=st.data())
def test_gather(data):
    shape = data.draw(small_shapes(min_dims=1, max_side=4))
    x = rand(data, shape, F32)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    d = shape[axis]
    ishape = data.draw(small_shapes(max_dims=2))
    idx = rand(data, ishape, np.int64, -d, d - 1)
    check("Gather", [x, C(idx)], {"axis": axis}, opset=13)
    check("Gather", [x, idx.astype(np.int32)], {"axis": axis}, opset=13)  # indices fed at run time
    ishape2 = tuple(min(s, data.draw(st.integers(1, 3))) if i != axis % len(shape) else data.draw(st.integers(1, 3))
                    for i, s in enumerate(shape))
    idx2 = rand(data, ishape2, np.int64, -d, d - 1)
    check("GatherElements", [x, C(idx2)], {"axis": axis}, opset=13)


@settings(max_examples=examples(12))
@given(data=st.data())
def test_expand_tile_range(data):
    sh = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
    x = rand(data, sh.input_shapes[0], F32)
    check("Expand", [x, C(np.asarray(sh.input_shapes[1], np.int64))], opset=13)
    reps = [data.draw(st.integers(0, 3)) for _ in x.shape]
    check("Tile", [x, C(np.asarray(reps, np.int64))], opset=13)
    dt = data.draw(st.sampled_from([np.dtype("int64"), np.dtype("int32"), F32]))
    start, limit = data.draw(st.integers(-5, 5)), data.draw(st.integers(-5, 10))
    delta = data.draw(st.sampled_from([1, 2, 3, -1, -2]))
    check("Range", [C(np.asarray(start, dt)), C(np.asarray(limit, dt)), C(np.asarray(delta, dt))], opset=11)


@settings(max_examples=examples(20))
@given(data=st.data())
def test_pad(data):
    shape = data.draw(small_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
    x = rand(data, shape, F32)
    nd = len(shape)
    mode = data.draw(st.sampled_from(["constant", "reflect", "edge", "wrap"]))
    hi = 1 if mode in ("reflect", "wrap") else 3
    pads = [data.draw(st.integers(0, hi)) for _ in range(2 * nd)]
    if mode == "constant" and data.draw(st.booleans()):
        pads[0] = -1  # a negative pad crops
    value = C(np.float32(data.draw(st.floats(-2, 2, width=32))))
    ins = [x, C(np.asarray(pads, np.int64))] + ([value] if mode == "constant" else [])
    check("Pad", ins, {"mode": mode}, opset=19)
    if mode != "wrap":
        check("Pad", [x], {"mode": mode, "pads": pads, "value": 1.5}, opset=9)
    axes = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd, unique_by=lambda a: a % nd))
    p2 = [data.draw(st.integers(0, hi)) for _ in range(2 * len(axes))]
    check("Pad", [x, C(np.asarray(p2, np.int64)), None, C(np.asarray(axes, np.int64))], {"mode": mode}, opset=19)


@settings(max_examples=examples(10))
@given(data=st.data())
def test_trilu_depth_space(data):
    shape = data.draw(small_shapes(min_dims=2, max_dims=3))
    x = rand(data, shape, F32)
    k = data.draw(st.integers(-3, 3))
    upper = data.draw(st.integers(0, 1))
    check("Trilu", [x, C(np.int64(k))], {"upper": upper}, opset=14)
    check("Trilu", [x], {"upper": upper}, opset=14)
    b = data.draw(st.integers(1, 3))
    n, c, h, w = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)), 2
    y = rand(data, (n, c * b * b, h, w), F32)
    check("DepthToSpace", [y], {"blocksize": b, "mode": data.draw(st.sampled_from(["DCR", "CRD"]))}, opset=13)
    check("SpaceToDepth", [rand(data, (n, c, h * b, w * b), F32)], {"blocksize": b}, opset=13)


# ---------------------------------------------------------------- convolution and pooling

@st.composite
def conv_case(draw, nd=None, transpose=False):
    """(x, w, attrs) of a small random Conv / ConvTranspose."""
    nd = draw(st.sampled_from([1, 2])) if nd is None else nd
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(nd)]
    strides = [draw(st.integers(1, 3)) for _ in range(nd)]
    dil = [draw(st.integers(1, 2)) for _ in range(nd)]
    size = [draw(st.integers((k - 1) * d + 1, 7)) for k, d in zip(kernel, dil)]
    attrs = {"group": groups}
    if draw(st.booleans()):
        attrs["strides"] = strides
    if draw(st.booleans()):
        attrs["dilations"] = dil
    if draw(st.booleans()):
        attrs["kernel_shape"] = kernel
    auto = draw(st.sampled_from(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    if auto != "NOTSET":
        attrs["auto_pad"] = auto
    elif draw(st.booleans()):
        attrs["pads"] = [draw(st.integers(0, k - 1)) for k in kernel * 2]
    if transpose:
        if draw(st.booleans()):
            attrs["output_padding"] = [draw(st.integers(0, min(s, d) - 1)) for s, d in
                                       zip(attrs.get("strides", [1] * nd), attrs.get("dilations", [1] * nd))]
        wshape = (cin, cout // groups, *kernel)
    else:
        wshape = (cout, cin // groups, *kernel)
    n = draw(st.integers(1, 2))
    seed = draw(st.integers(0, 2**32 - 1))
    r = np.random.default_rng(seed)
    x = r.standard_normal((n, cin, *size)).astype(F32)
    w = r.standard_normal(wshape).astype(F32)
    b = r.standard_normal(cout).astype(F32) if draw(st.booleans()) else None
    return x, w, b, attrs


@settings(max_examples=examples(40))
@given(case=conv_case())
def test_conv(case):
    x, w, b, attrs = case
    check("Conv", [x, C(w)] + ([] if b is None else [C(b)]), attrs, opset=11, atol=1e-5, rtol=1e-4)


@settings(max_examples=examples(30))
@given(case=conv_case(nd=2, transpose=True), data=st.data())
def test_conv_transpose(case, data):
    x, w, b, attrs = case
    if attrs.get("auto_pad") in ("SAME_UPPER", "SAME_LOWER"):
        attrs.pop("pads", None)
    elif data.draw(st.booleans()):  # an explicit output shape sets the pads (the spec's split)
        attrs.pop("pads", None)
        attrs.pop("auto_pad", None)
        s, d = attrs.get("strides", [1, 1]), attrs.get("dilations", [1, 1])
        op = attrs.get("output_padding", [0, 0])
        full = [st_ * (n - 1) + o + (k - 1) * dd + 1 for st_, n, o, k, dd in zip(s, x.shape[2:], op, w.shape[2:], d)]
        attrs["output_shape"] = [data.draw(st.integers(max(1, f - 2), f)) for f in full]
    ins = [x, C(w)] + ([] if b is None else [C(b)])
    # the evaluator ignores output_shape with NOTSET and adds group 0's bias to every group: onnxruntime
    # follows the spec there
    oracle = ort_oracle if "output_shape" in attrs or attrs["group"] > 1 else None
    if oracle and attrs.get("auto_pad", "").startswith("SAME"):  # onnxruntime never grows the output there
        s, d = attrs.get("strides", [1, 1]), attrs.get("dilations", [1, 1])
        assume(all((k - 1) * dd + 1 + o >= st_ for k, dd, st_, o in
                   zip(w.shape[2:], d, s, attrs.get("output_padding", [0, 0]))))
    check("ConvTranspose", ins, attrs, opset=11, atol=1e-5, rtol=1e-4, oracle=oracle)


@st.composite
def pool_case(draw, nd=None):
    nd = draw(st.sampled_from([1, 2])) if nd is None else nd
    kernel = [draw(st.integers(1, 3)) for _ in range(nd)]
    attrs = {"kernel_shape": kernel}
    if draw(st.booleans()):
        attrs["strides"] = [draw(st.integers(1, 3)) for _ in range(nd)]
    auto = draw(st.sampled_from(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    if auto != "NOTSET":
        attrs["auto_pad"] = auto
    elif draw(st.booleans()):
        attrs["pads"] = [draw(st.integers(0, k - 1)) for k in kernel * 2]
    if draw(st.booleans()):
        attrs["ceil_mode"] = 1
    size = [draw(st.integers(k, 7)) for k in kernel]
    if auto.startswith("SAME"):  # a negative SAME padding: the evaluator crops, onnxruntime refuses
        s = attrs.get("strides", [1] * nd)
        assume(all((-(-n // st_) - 1) * st_ + k >= n for n, k, st_ in zip(size, kernel, s)))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = r.standard_normal((draw(st.integers(1, 2)), draw(st.integers(1, 3)), *size)).astype(F32)
    return x, attrs


def pool_oracle(x, attrs):
    # the evaluator reads pads wrongly in 1-d pools ([begin, end] swapped) and in 2-d MaxPool with
    # asymmetric pads (as [(h0, h1), (w0, w1)]), and its SAME padding can lose the last window or refuse
    # ceil_mode, and its AveragePool with ceil_mode averages the wrong windows (kernel 3, stride 3 over 7
    # values: the means of x[0:2], x[2:5], x[5:6], as if the extra padding went first): onnxruntime there
    pads = attrs.get("pads", [0, 0, 0, 0])
    auto = attrs.get("auto_pad", "NOTSET")
    if x.ndim == 3 or len(set(pads)) > 1 or auto.startswith("SAME") or attrs.get("ceil_mode"):
        return ort_oracle
    return None


@settings(max_examples=examples(40))
@given(case=pool_case(), data=st.data())
def test_max_pool(case, data):
    x, attrs = case
    if data.draw(st.booleans()) and attrs.get("auto_pad", "NOTSET") == "NOTSET":
        attrs["dilations"] = [data.draw(st.integers(1, 2)) for _ in attrs["kernel_shape"]]
        attrs["pads"] = [0] * 2 * len(attrs["kernel_shape"])
        if any((k - 1) * d + 1 > s for k, d, s in zip(attrs["kernel_shape"], attrs["dilations"], x.shape[2:])):
            return
    check("MaxPool", [x], attrs, opset=12, oracle=pool_oracle(x, attrs))


@settings(max_examples=examples(40))
@given(case=pool_case(), data=st.data())
def test_average_pool(case, data):
    x, attrs = case
    if data.draw(st.booleans()):
        attrs["count_include_pad"] = 1
    check("AveragePool", [x], attrs, opset=11, oracle=pool_oracle(x, attrs))


@settings(max_examples=examples(8))
@given(data=st.data())
def test_global_pools(data):
    shape = data.draw(small_shapes(min_dims=3, max_dims=4, max_side=5))
    x = rand(data, shape, F32)
    oracle = ort_oracle if x.ndim == 3 else None  # the evaluator drops an axis of 1-d global pools
    check("GlobalAveragePool", [x], oracle=oracle)
    check("GlobalMaxPool", [x], oracle=oracle)


# ---------------------------------------------------------------- normalisation

@settings(max_examples=examples(10))
@given(data=st.data())
def test_batch_normalization(data):
    shape = data.draw(small_shapes(min_dims=2, max_dims=4))
    c = shape[1]
    x = rand(data, shape, F32)
    scale, bias, mean = (rand(data, (c,), F32) for _ in range(3))
    var = rand(data, (c,), F32, 0.1, 2)
    eps = float(np.float32(data.draw(st.floats(1e-6, 1e-2))))
    ins = [x, C(scale), C(bias), C(mean), C(var)]
    check("BatchNormalization", ins, {"epsilon": eps}, opset=15, atol=1e-5, rtol=1e-5)
    # opset 9: the evaluator mixes in batch statistics (DESIGN.md); convert to 15 first
    check("BatchNormalization", ins, {"epsilon": eps, "momentum": 0.9}, opset=9, convert=15, atol=1e-5, rtol=1e-5)


@settings(max_examples=examples(8))
@given(data=st.data())
def test_instance_normalization(data):
    shape = data.draw(small_shapes(min_dims=3, max_dims=4, min_side=2))
    x = rand(data, shape, F32)
    c = shape[1]
    check("InstanceNormalization", [x, C(rand(data, (c,), F32)), C(rand(data, (c,), F32))],
          {"epsilon": 1e-3}, atol=1e-5, rtol=1e-4)


@settings(max_examples=examples(12))
@given(data=st.data())
def test_layer_normalization(data):
    shape = data.draw(small_shapes(min_dims=1, max_dims=4, min_side=2))
    x = rand(data, shape, F32)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    norm = shape[axis % len(shape):]
    scale = rand(data, norm, F32)
    bias = C(rand(data, norm, F32)) if data.draw(st.booleans()) else None
    n_out = data.draw(st.sampled_from([1, 3]))
    attrs = {"axis": axis, "epsilon": 1e-4}
    check("LayerNormalization", [x, C(scale)] + ([] if bias is None else [bias]), attrs, opset=17, n_out=n_out,
          atol=1e-5, rtol=1e-4)


@settings(max_examples=examples(10))
@given(data=st.data())
def test_lrn(data):
    shape = data.draw(small_shapes(min_dims=4, max_dims=4, max_side=6))
    x = rand(data, shape, F32)
    attrs = {"size": data.draw(st.integers(1, 6)), "alpha": float(np.float32(data.draw(st.floats(1e-4, 1)))),
             "beta": float(np.float32(data.draw(st.floats(0.5, 1)))), "bias": float(np.float32(data.draw(st.floats(1, 2))))}
    # the evaluator's LRN loops over the batch where it means the channels, and onnxruntime refuses even
    # sizes: the spec's formula, written out here, and onnxruntime for odd sizes
    check("LRN", [x], attrs, opset=13, atol=1e-5, rtol=1e-4, oracle=lrn_oracle)
    if attrs["size"] % 2:
        check("LRN", [x], attrs, opset=13, atol=1e-5, rtol=1e-4, oracle=ort_oracle)


def lrn_oracle(m, feeds):
    a = {at.name: helper.get_attribute_value(at) for at in m.graph.node[0].attribute}
    x = feeds["in0"].astype(F64)
    size, c = a["size"], x.shape[1]
    lo, hi = (size - 1) // 2, size // 2  # floor((size-1)/2) before c, ceil((size-1)/2) after
    sq = np.stack([(x[:, max(0, i - lo):min(c, i + hi + 1)] ** 2).sum(1) for i in range(c)], 1)
    return [(x / (a["bias"] + a["alpha"] / size * sq) ** a["beta"]).astype(F32)]


@settings(max_examples=examples(8))
@given(data=st.data())
def test_upsample_resize_nearest(data):
    shape = data.draw(small_shapes(min_dims=4, max_dims=4, max_side=3))
    x = rand(data, shape, F32)
    scales = np.array([1, 1] + [data.draw(st.integers(1, 3)) for _ in range(2)], np.float32)
    check("Upsample", [x, C(scales)], {"mode": "nearest"}, opset=9)
    ctm = data.draw(st.sampled_from(["half_pixel", "asymmetric"]))
    attrs = {"mode": "nearest", "coordinate_transformation_mode": ctm}
    if ctm == "asymmetric":
        attrs["nearest_mode"] = "floor"
    check("Resize", [x, None, C(scales)], attrs, opset=13)
    sizes = (np.array(shape) * scales).astype(np.int64)
    check("Resize", [x, None, None, C(sizes)], attrs, opset=19)


# ---------------------------------------------------------------- static inputs, options, errors

def two_node_graph(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "g", inputs, [helper.make_empty_tensor_value_info(o) for o in outputs], list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def test_computed_shape_inputs_are_folded():
    # PyTorch's dynamic reshape: Shape -> Gather -> Unsqueeze -> Concat -> Reshape
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(F32)
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
             helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
             helper.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
             helper.make_node("Reshape", ["x", "target"], ["y"], name="the_reshape")]
    inits = [numpy_helper.from_array(np.int64(0), "zero"), numpy_helper.from_array(np.array([0]), "axes0"),
             numpy_helper.from_array(np.array([-1]), "minus1")]
    m = two_node_graph(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)], ["y"], inits)
    compare(run_fgraph(m, {"x": x})[0], reference(m, {"x": x})[0])
    # a shape computed from constants by arithmetic folds too
    nodes = [helper.make_node("Mul", ["half", "two"], ["target"]), helper.make_node("Reshape", ["x", "target"], ["y"])]
    inits = [numpy_helper.from_array(np.array([3, 4, 1]), "half"), numpy_helper.from_array(np.array([2, 1, 1]), "two")]
    m = two_node_graph(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)], ["y"], inits)
    compare(run_fgraph(m, {"x": x})[0], reference(m, {"x": x})[0])


def test_shape_computed_from_values_raises():
    m, _ = one_node("Reshape", [np.zeros((2, 3), F32), np.array([3, 2], np.int64)], opset=13)
    with pytest.raises(fgraph.FgraphError, match=r"(?s)the_reshape.*Reshape, opset 13.*must be known when the model "
                                                 r"is loaded.*\['in1'\]"):
        fgraph.onnx.load(m)


def test_unknown_op_names_op_node_and_opset():
    m, _ = one_node("FancyOp", [np.zeros(3, F32)], opset=15)
    with pytest.raises(fgraph.FgraphError, match=r"(?s)'FancyOp'.*'the_fancyop'.*opset 15.*test_onnx.py"):
        fgraph.onnx.load(m)
    m, _ = one_node("Relu", [np.zeros(3, F32)], opset=15)
    m.graph.node[0].domain = "com.example"
    with pytest.raises(fgraph.FgraphError, match=r"'Relu' of domain 'com.example'"):
        fgraph.onnx.load(m)
    assert "Conv" in fgraph.onnx.supported_ops() and "FancyOp" not in fgraph.onnx.supported_ops()


def test_conversion_errors_name_the_node():
    m, _ = one_node("Reshape", [np.zeros((2, 3), F32), C(np.array([4, 2], np.int64))], opset=13)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)ONNX node 'the_reshape' \(Reshape, opset 13\).*test_onnx.py"):
        fgraph.onnx.load(m)
    m, _ = one_node("MaxPool", [np.zeros((1, 1, 4, 4), F32)], {"kernel_shape": [2, 2]}, n_out=2)
    with pytest.raises(fgraph.FgraphError, match="Indices output of MaxPool"):
        fgraph.onnx.load(m)
    m, _ = one_node("Conv", [np.zeros((1, 1, 4, 4, 4), F32), C(np.zeros((1, 1, 2, 2, 2), F32))])
    with pytest.raises(fgraph.FgraphError, match="3-d convolutions"):
        fgraph.onnx.load(m)
    m, _ = one_node("Resize", [np.zeros((1, 1, 2, 2), F32), None, C(np.array([1, 1, 2, 2], F32))], {"mode": "linear"})
    with pytest.raises(fgraph.FgraphError, match="mode 'linear'"):
        fgraph.onnx.load(m)


def test_inputs_batch_and_shapes():
    vi = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    m = two_node_graph([helper.make_node("Relu", ["x"], ["y"])], [vi], ["y"])
    with pytest.raises(fgraph.FgraphError, match=r"'x' has dynamic dimension\(s\) \['N'\].*batch="):
        fgraph.onnx.load(m)
    g = fgraph.onnx.load(m, batch=5)
    assert g.placeholders[0].shape == (5, 3) and g.placeholders[0].name == "x"
    assert fgraph.onnx.load(m, shapes={"x": (2, None)}).placeholders[0].shape == (2, 3)
    assert fgraph.onnx.load(m, batch=4, shapes={"x": (7, 3)}).placeholders[0].shape == (7, 3)
    with pytest.raises(fgraph.FgraphError, match="not graph inputs"):
        fgraph.onnx.load(m, batch=1, shapes={"y": (1, 3)})
    with pytest.raises(fgraph.FgraphError, match="rank"):
        fgraph.onnx.load(m, shapes={"x": (1, 3, 1)})
    # from bytes and from a file, too
    assert fgraph.onnx.load(m.SerializeToString(), batch=1).placeholders[0].shape == (1, 3)
    with pytest.raises(fgraph.FgraphError, match="cannot read"):
        fgraph.onnx.load("/nonexistent/model.onnx")


def test_initializers_listed_as_inputs_are_constants():
    # IR v3 lists every initializer as a graph input too: it must not become a feed
    w = np.arange(6, dtype=F32).reshape(3, 2)
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3]),
           helper.make_tensor_value_info("w", TensorProto.FLOAT, [3, 2])]
    m = two_node_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], ins, ["y"],
                       [numpy_helper.from_array(w, "w")], opset=9)
    m.ir_version = 3
    g = fgraph.onnx.load(m)
    exe = fgraph.compile(g)
    assert exe.inputs == ["x"]
    x = np.ones((1, 3), F32)
    compare(exe(x)["y"], x @ w)
    # node names carry the ONNX op type and node name
    assert any(n.name == "MatMul mm" for n in g.nodes())


# ---------------------------------------------------------------- the light model zoo

LIGHT_MODELS = ["resnet50", "inception_v1", "inception_v2", "squeezenet", "shufflenet", "densenet121",
                "bvlc_alexnet", "zfnet512", pytest.param("vgg19", marks=pytest.mark.slow)]


def light(name):
    path = os.path.join(LIGHT, f"light_{name}.onnx")
    if not os.path.exists(path):
        pytest.skip(f"{path} is not shipped with this onnx")
    return path


@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_light_models_reproduce_their_outputs(name):
    path = light(name)
    g = fgraph.onnx.load(path)
    exe = fgraph.compile(fgraph.optimise(g))  # memory planned
    assert exe.memory.lower_bound_inplace_bytes <= exe.memory.arena_bytes <= exe.memory.no_reuse_bytes
    (p,) = g.placeholders
    n = int(np.prod(p.shape))
    x = (np.arange(n).reshape(p.shape) / n).astype(F32)
    (out,) = exe(x).values()
    want = numpy_helper.to_array(onnx.load_tensor(os.path.join(LIGHT, f"light_{name}_output_0.pb")))
    compare(out, want, rtol=1e-4, atol=1e-6)


# ---------------------------------------------------------------- whole networks with random weights

def randomised(path, seed=0):
    """The light model with every weight random (replacing its ConstantOfShape fills and float
    initializers), scaled by role so activations stay O(1): He-normal convolution and Gemm weights,
    batch-norm scales and variances near 1, small biases and means.  The logits (the input of a final
    Softmax) become a second output."""
    m = onnx.load(path)
    g = m.graph
    r = np.random.default_rng(seed)
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    users: dict[str, list] = {}
    for node in g.node:
        for k, name in enumerate(node.input):
            users.setdefault(name, []).append((node, k))

    def role(name):
        for node, k in users.get(name, []):
            if node.op_type == "Unsqueeze":  # DenseNet's scale and shift
                return role(node.output[0])
            return node.op_type, k, node
        return None, None, None

    def value(name, shape):
        op, k, node = role(name)
        if (op == "Conv" and k == 1) or (op == "Gemm" and k == 1):
            trans_b = any(a.name == "transB" and a.i for a in node.attribute) if op == "Gemm" else True
            fan_in = int(np.prod(shape[1:])) if trans_b else shape[0]
            return r.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        if op == "BatchNormalization" and k == 1 and any(u.op_type == "Sum" for u, _ in users[node.output[0]]):
            return r.uniform(0.1, 0.3, shape)  # the end of a residual branch: small, so sums stay O(1)
        if (op == "BatchNormalization" and k in (1, 4)) or op == "Mul":
            return r.uniform(0.5, 1.5, shape)
        return r.normal(0.0, 0.1, shape)

    new_inits = []
    for node in list(g.node):
        if node.op_type == "ConstantOfShape":
            shape = tuple(int(d) for d in inits[node.input[0]])
            new_inits.append(numpy_helper.from_array(value(node.output[0], shape).astype(F32), node.output[0]))
            g.node.remove(node)
    used = {name for node in g.node for name in node.input}
    for name, arr in inits.items():
        if name not in used:  # the shapes the fills read
            continue
        if arr.dtype == F32:
            new_inits.append(numpy_helper.from_array(value(name, arr.shape).astype(F32), name))
        else:
            new_inits.append(numpy_helper.from_array(arr, name))
    del g.initializer[:]
    g.initializer.extend(new_inits)
    keep = [vi for vi in g.input if vi.name not in inits]
    del g.input[:]
    g.input.extend(keep)
    m.ir_version = 7  # initializers need not be inputs from IR 4 on
    last = g.node[-1]
    if last.op_type == "Softmax":
        g.output.append(helper.make_empty_tensor_value_info(last.input[0]))
    return m


def against_onnxruntime(m, batch=None, n=1, seed=1):
    sess = ort_session(m)
    g = fgraph.onnx.load(m, batch=batch)
    exe = fgraph.compile(fgraph.optimise(g))
    (p,) = g.placeholders
    x = np.random.default_rng(seed).standard_normal(p.shape).astype(F32)
    got = exe(x)
    errs = {}
    for i in range(p.shape[0]):  # onnxruntime at batch 1, image by image
        want = sess.run(None, {p.name: x[i:i + 1]})
        for vi, w in zip(m.graph.output, want):
            a = got[vi.name][i:i + 1]
            scale = float(np.abs(w).max())
            err = float(np.abs(a - w).max())
            assert a.shape == w.shape and a.dtype == w.dtype
            assert err <= 1e-3 * scale + 1e-6, f"{vi.name}: max abs error {err} at scale {scale}"
            errs[vi.name] = max(errs.get(vi.name, 0.0), err)
    return errs


@pytest.mark.parametrize("name", ["resnet50", "inception_v1", "inception_v2", "squeezenet", "shufflenet",
                                  "densenet121", pytest.param("bvlc_alexnet", marks=pytest.mark.slow),
                                  pytest.param("zfnet512", marks=pytest.mark.slow),
                                  pytest.param("vgg19", marks=pytest.mark.slow)])
def test_random_weights_match_onnxruntime(name):
    against_onnxruntime(randomised(light(name)))


def test_batch_rewrites_hard_coded_reshapes():
    # ShuffleNet's 33 Reshapes hard-code batch 1; load(batch=2) runs both images as onnxruntime does one by one
    against_onnxruntime(randomised(light("shufflenet"), seed=3), batch=2)


def transformer_block(opset=17, batch=2, seq=5, d=8, heads=2, vocab=11):
    """A small encoder block written as a PyTorch export writes it: Gather embedding, LayerNormalization,
    attention with shapes computed by Shape -> Gather -> Concat, a causal mask by Where, Erf-GELU, mean
    pooling and a Gemm head."""
    r = np.random.default_rng(7)
    inits, nodes = [], []

    def init(arr, name):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def weight(*shape):  # scaled by fan-in
        return init((r.standard_normal(shape) / np.sqrt(shape[0])).astype(F32), f"w{len(inits)}")

    def node(op, ins, **attrs):
        out = f"t{len(nodes)}"
        nodes.append(helper.make_node(op, ins, [out], name=f"/block/{op}_{len(nodes)}", **attrs))
        return out

    emb = node("Gather", [weight(vocab, d), "ids"], axis=0)
    x = node("Add", [emb, weight(seq, d)])
    h = node("LayerNormalization", [x, weight(d), weight(d)], axis=-1, epsilon=1e-5)
    shape = node("Shape", [h])
    b = node("Gather", [shape, init(np.int64(0), "i0")], axis=0)
    s = node("Gather", [shape, init(np.int64(1), "i1")], axis=0)
    b1, s1 = node("Unsqueeze", [b, init(np.array([0]), "ax0")]), node("Unsqueeze", [s, "ax0"])
    split_shape = node("Concat", [b1, s1, init(np.array([heads, -1]), "hd")], axis=0)
    qkv = []
    for _ in range(3):
        p = node("MatMul", [h, weight(d, d)])
        qkv.append(node("Transpose", [node("Reshape", [p, split_shape])], perm=[0, 2, 1, 3]))
    q, k, v = qkv
    scores = node("Div", [node("MatMul", [q, node("Transpose", [k], perm=[0, 1, 3, 2])]),
                          init(np.float32(np.sqrt(d // heads)), "scale")])
    mask = init(np.tril(np.ones((seq, seq), bool)), "causal")
    scores = node("Where", [mask, scores, init(np.float32(-1e9), "neg")])
    att = node("MatMul", [node("Softmax", [scores], axis=-1), v])
    merged = node("Reshape", [node("Transpose", [att], perm=[0, 2, 1, 3]),
                              node("Concat", [b1, s1, init(np.array([-1]), "m1")], axis=0)])
    x = node("Add", [x, node("MatMul", [merged, weight(d, d)])])
    u = node("MatMul", [node("LayerNormalization", [x, weight(d)], axis=-1), weight(d, 4 * d)])
    gelu = node("Mul", [node("Mul", [u, node("Add", [node("Erf", [node("Div", [u, init(np.float32(np.sqrt(2)), "r2")])]),
                                                     init(np.float32(1), "one")])]), init(np.float32(0.5), "half")])
    x = node("Add", [x, node("MatMul", [gelu, weight(4 * d, d)])])
    pooled = node("ReduceMean", [x, init(np.array([1]), "ax1")], keepdims=0) if opset >= 18 else \
        node("ReduceMean", [x], axes=[1], keepdims=0)
    logits = node("Gemm", [pooled, weight(3, d), weight(3)], transB=1)
    g = helper.make_graph(nodes, "block", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", seq])],
                          [helper.make_tensor_value_info(logits, TensorProto.FLOAT, ["batch", 3])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    ids = r.integers(0, vocab, (batch, seq)).astype(np.int64)
    return m, ids


@pytest.mark.parametrize("opset", [17, 18, 21])
def test_transformer_block_matches_onnxruntime(opset):
    m, ids = transformer_block(opset)
    want = ort_oracle(m, {"ids": ids})[0]
    got = run_fgraph(m, {"ids": ids}, optimise=True, batch=ids.shape[0])[0]
    compare(got, want, rtol=1e-4, atol=1e-5)
    assert np.abs(want).max() > 0.1  # not a degenerate output

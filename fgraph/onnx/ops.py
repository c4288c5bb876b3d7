"""The ONNX op table: one function per ONNX op type, written with fgraph.numpy.

A converter takes an :class:`OnnxNode` (the node's inputs as lazy arrays,
its attributes, the opset) and returns its outputs: one lazy array or a
tuple.  Element-wise, movement, reduction and matrix ops live here; the
neural-network ops (convolution, pooling, normalisation) in
:mod:`fgraph.onnx.nn_ops`.
"""
from __future__ import annotations

import functools
import math
from typing import Callable

import numpy as np

import fgraph.numpy as fnp

from ..errors import DTypeError, FgraphError, ShapeError
from ..nn import sigmoid  # overflow-free, with the right derivative at 0
from ..tensor import Tensor
from ..symbol import error_at, topological

OPS: dict[str, Callable] = {}
#: creation ops (ConstantOfShape, Range) with more elements than this stay
#: lazy nodes instead of constants folded at load: a 116-byte model asking
#: for a (10**6, 10**6) fill must load at once and allocate only if it runs
FOLD_MAX_ELEMENTS = 1 << 16


def op(*names: str):
    """Register the decorated function as the converter of ONNX ops ``names``."""
    def register(fn):
        for n in names:
            OPS[n] = fn
        return fn
    return register


# ---------------------------------------------------------------- dtypes

_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64,
           9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64, 14: np.complex64,
           15: np.complex128}


def tensor_dtype(code: int, what: str) -> np.dtype:
    """The NumPy dtype of ONNX TensorProto data type ``code``, or FgraphError."""
    try:
        return np.dtype(_DTYPES[code])
    except KeyError:
        import onnx

        name = onnx.TensorProto.DataType.Name(code) if code in onnx.TensorProto.DataType.values() else code
        raise DTypeError(f"{what}: ONNX data type {name} is not supported (fgraph holds bool, integer, "
                         "float16/32/64 and complex tensors)") from None


# ---------------------------------------------------------------- the node a converter sees

class OnnxNode:
    """One ONNX node being converted: its inputs as lazy arrays, attributes, opset."""

    def __init__(self, proto, opset: int, env: dict, rebatch=None):
        self.proto = proto
        self.op_type = proto.op_type
        self.domain = proto.domain or ""
        self.opset = opset
        self.label = proto.name or (proto.output[0] if proto.output else proto.op_type)
        self.outputs = list(proto.output)
        self.rebatch = rebatch  # (model's batch, new batch) when load(batch=) changed it
        self._attrs = None
        ins = []
        for name in proto.input:
            if name == "":
                ins.append(None)  # an optional input left out
            elif name not in env:
                raise error_at(FgraphError, "onnx.load", f"input {name!r} of node {self.label!r} is made by no "
                                                         "earlier node (ONNX graphs are sorted)")
            else:
                ins.append(env[name])
        self.inputs = ins

    @property
    def n_out(self) -> int:
        return len(self.outputs)

    def wants(self, k: int) -> bool:
        """Whether output ``k`` is used (present and named)."""
        return k < len(self.outputs) and self.outputs[k] != ""

    def input(self, k: int) -> Tensor | None:
        return self.inputs[k] if k < len(self.inputs) else None

    def attrs(self) -> dict:
        if self._attrs is None:
            from onnx import helper

            out = {}
            for a in self.proto.attribute:
                if a.ref_attr_name:
                    raise FgraphError(f"attribute {a.name!r} refers to a function attribute; functions are "
                                      "not supported")
                v = helper.get_attribute_value(a)
                if isinstance(v, bytes):
                    v = v.decode()
                elif isinstance(v, list) and v and isinstance(v[0], bytes):
                    v = [s.decode() for s in v]
                out[a.name] = v
            self._attrs = out
        return self._attrs

    def attr(self, name: str, default=None):
        return self.attrs().get(name, default)

    def ints(self, name: str, default=None):
        v = self.attr(name)
        return default if v is None else [int(i) for i in v]

    def static(self, k: int, what: str) -> np.ndarray | None:
        """The value of input ``k``, which must be known at load time.

        Constants are read directly; a subgraph of constants (a shape
        computation) is evaluated with fgraph; one that depends on a graph
        input's values raises FgraphError.
        """
        t = self.input(k)
        if t is None:
            return None
        n = t.node
        if n.op == "constant":
            return n.param("value").array
        if n.op == "literal":
            return np.asarray(n.param("value").value)
        feeds = [x.name for x in topological([n]) if x.op in ("placeholder", "variable")]
        if feeds:
            raise FgraphError(f"input {k} ({what}) must be known when the model is loaded (fgraph shapes are "
                              f"static), but it is computed from the values of graph input(s) "
                              f"{sorted(set(feeds))}")
        return np.asarray(t.eval())

    def static_ints(self, k: int, what: str) -> list[int] | None:
        v = self.static(k, what)
        return None if v is None else [int(i) for i in np.asarray(v).reshape(-1)]

    def axes(self, attr_until: int, k: int = 1, name: str = "axes") -> list[int] | None:
        """Axes given as an attribute before opset ``attr_until``, as input ``k`` from it on."""
        if self.opset < attr_until:
            return self.ints(name)
        return self.static_ints(k, name)


def convert_node(node: OnnxNode, known: set) -> list[tuple[str, Tensor]]:
    """Convert one ONNX node: ``[(output name, lazy array)]``.

    Every fgraph node it makes is labelled ``"<OpType> <node name>"``, and an
    FgraphError raised while converting names the ONNX node.
    """
    fn = OPS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
    where = f"ONNX node {node.label!r} ({node.op_type}, opset {node.opset})"
    if fn is None:
        dom = f" of domain {node.domain!r}" if node.domain not in ("", "ai.onnx") else ""
        raise error_at(FgraphError, "onnx.load", f"ONNX op {node.op_type!r}{dom} (node {node.label!r}, opset "
                                                 f"{node.opset}) is not supported by fgraph.onnx")
    try:
        with np.errstate(all="ignore"):  # folding constants may divide by zero, as the model asks
            res = fn(node)
    except FgraphError as e:
        raise type(e)(f"{where}: {e}") from None
    except (ValueError, IndexError) as e:  # a malformed attribute or static input
        raise error_at(ShapeError, "onnx.load", f"{where}: {e}") from None
    except TypeError as e:
        raise error_at(DTypeError, "onnx.load", f"{where}: {e}") from None
    outs = list(res) if isinstance(res, (tuple, list)) else [res]
    named = [(name, t) for name, t in zip(node.outputs, outs) if name]
    if len(outs) < len([n for n in node.outputs if n]):
        raise error_at(FgraphError, "onnx.load", f"{where}: outputs beyond the first {len(outs)} are not "
                                                 "supported")
    return _label(named, f"{node.op_type} {node.label}", known)


def _label(named, label: str, known: set):
    """Rename the nodes a converter made (those not in ``known``, leaves
    excepted) to ``label``, rebuilding them bottom-up; add them to ``known``."""
    roots = [fnp.asarray(t).node for _, t in named]
    order, seen, stack = [], set(), []
    for r in roots:  # iterative DFS over the new nodes only
        if id(r) in known or id(r) in seen:
            continue
        seen.add(id(r))
        stack.append((r, 0))
        while stack:
            n, i = stack[-1]
            if i < len(n.inputs):
                stack[-1] = (n, i + 1)
                c = n.inputs[i]
                if id(c) not in known and id(c) not in seen and c.inputs:
                    seen.add(id(c))
                    stack.append((c, 0))
            else:
                stack.pop()
                order.append(n)
    new = {}
    for n in order:
        ins = tuple(new.get(id(i), i) for i in n.inputs)
        new[id(n)] = n if n.op in ("placeholder", "variable", "literal") else n.replace(inputs=ins, name=label)
    out = []
    for (name, t), r in zip(named, roots):
        node = new.get(id(r), r)
        known.add(id(node))
        out.append((name, Tensor(node, t.stack if isinstance(t, Tensor) else None)))
    for n in new.values():
        known.add(id(n))
    return out


# ---------------------------------------------------------------- helpers

def _cast(t: Tensor, dtype) -> Tensor:
    return t if t.dtype == dtype else fnp.astype(t, dtype)


def _scalar(value, dtype) -> Tensor:
    """A 0-d constant of ``dtype`` (keeps the result dtype exactly ONNX's)."""
    return fnp.asarray(np.asarray(value, dtype=dtype))


def _shape_array(values) -> Tensor:
    return fnp.asarray(np.asarray(values, dtype=np.int64).reshape(-1))


def _axis(axis: int, ndim: int, what: str = "axis") -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise ShapeError(f"{what} {axis} is out of range for rank {ndim}")
    return axis % ndim if ndim else 0


def _axes(axes, ndim: int) -> tuple[int, ...]:
    out = tuple(sorted({_axis(a, ndim, "axes entry") for a in axes}))
    if len(out) != len(axes):
        raise ShapeError(f"repeated axis in {list(axes)}")
    return out


# ---------------------------------------------------------------- element-wise

_UNARY = {"Abs": fnp.abs, "Neg": fnp.negative, "Sqrt": fnp.sqrt, "Exp": fnp.exp, "Log": fnp.log,
          "Tanh": fnp.tanh, "Sin": fnp.sin, "Cos": fnp.cos, "Tan": fnp.tan, "Asin": fnp.arcsin,
          "Acos": fnp.arccos, "Atan": fnp.arctan, "Sinh": fnp.sinh, "Cosh": fnp.cosh, "Asinh": fnp.arcsinh,
          "Acosh": fnp.arccosh, "Atanh": fnp.arctanh, "Floor": fnp.floor, "Ceil": fnp.ceil,
          "Round": fnp.round, "Sign": fnp.sign, "Not": fnp.logical_not, "IsNaN": fnp.isnan,
          "BitwiseNot": fnp.invert}


@op(*_UNARY)
def unary(n: OnnxNode):
    return _UNARY[n.op_type](n.input(0))


@op("Reciprocal")
def reciprocal(n):
    x = n.input(0)
    return _scalar(1, x.dtype) / x


@op("IsInf")
def isinf(n):
    x = n.input(0)
    pos, neg = n.attr("detect_positive", 1), n.attr("detect_negative", 1)
    if pos and neg:
        return fnp.isinf(x)
    if pos:
        return fnp.logical_and(fnp.isinf(x), x > 0)
    if neg:
        return fnp.logical_and(fnp.isinf(x), x < 0)
    return fnp.zeros(x.shape, bool)


_BINARY = {"Add": fnp.add, "Sub": fnp.subtract, "Mul": fnp.multiply, "Equal": fnp.equal, "Less": fnp.less,
           "Greater": fnp.greater, "LessOrEqual": fnp.less_equal, "GreaterOrEqual": fnp.greater_equal,
           "And": fnp.logical_and, "Or": fnp.logical_or, "Xor": fnp.logical_xor,
           "BitwiseAnd": fnp.bitwise_and, "BitwiseOr": fnp.bitwise_or, "BitwiseXor": fnp.bitwise_xor}


@op(*_BINARY)
def binary(n):
    return _BINARY[n.op_type](n.input(0), n.input(1))


@op("Div")
def div(n):
    a, b = n.input(0), n.input(1)
    if a.dtype.kind in "iu":  # C's division: truncate toward zero
        q = fnp.floor_divide(a, b)
        fix = fnp.logical_and(fnp.remainder(a, b) != 0, fnp.logical_xor(a < 0, b < 0))
        return q + fix.astype(q.dtype)
    return fnp.divide(a, b)


@op("Mod")
def mod(n):
    a, b = n.input(0), n.input(1)
    return fnp.fmod(a, b) if n.attr("fmod", 0) else fnp.remainder(a, b)


@op("Pow")
def pow_(n):
    a, b = n.input(0), n.input(1)
    return _cast(fnp.power(a, b), a.dtype)  # opset 12: the exponent's type may differ; Z is the base's


@op("Sum", "Max", "Min", "Mean")
def variadic(n):
    xs = [x for x in n.inputs if x is not None]
    f = {"Sum": fnp.add, "Mean": fnp.add, "Max": fnp.maximum, "Min": fnp.minimum}[n.op_type]
    out = functools.reduce(f, xs)
    if n.op_type == "Mean":
        out = out / _scalar(len(xs), out.dtype)
    return out


@op("Where")
def where(n):
    return fnp.where(n.input(0), n.input(1), n.input(2))


@op("Clip")
def clip(n):
    x = n.input(0)
    if n.opset < 11:
        lo, hi = n.attr("min"), n.attr("max")
        lo = None if lo is None else _scalar(lo, x.dtype)
        hi = None if hi is None else _scalar(hi, x.dtype)
    else:
        lo, hi = n.input(1), n.input(2)
    y = x
    if lo is not None:
        y = fnp.maximum(y, lo)
    if hi is not None:
        y = fnp.minimum(y, hi)
    return y


# ---------------------------------------------------------------- activations (element-wise composites)

@op("Relu")
def relu(n):
    x = n.input(0)
    return fnp.maximum(x, _scalar(0, x.dtype))


@op("Sigmoid")
def sigmoid_(n):
    return sigmoid(n.input(0))


@op("HardSigmoid")
def hard_sigmoid(n):
    x = n.input(0)
    a, b = n.attr("alpha", 0.2), n.attr("beta", 0.5)
    return fnp.clip(x * _scalar(a, x.dtype) + _scalar(b, x.dtype), _scalar(0, x.dtype), _scalar(1, x.dtype))


@op("HardSwish")
def hard_swish(n):
    x = n.input(0)
    hs = fnp.clip(x * _scalar(1 / 6, x.dtype) + _scalar(0.5, x.dtype), _scalar(0, x.dtype), _scalar(1, x.dtype))
    return x * hs


@op("LeakyRelu")
def leaky_relu(n):
    x = n.input(0)
    return fnp.where(x >= 0, x, x * _scalar(n.attr("alpha", 0.01), x.dtype))


@op("PRelu")
def prelu(n):
    x, slope = n.input(0), n.input(1)
    return fnp.where(x >= 0, x, x * slope)


@op("ThresholdedRelu")
def thresholded_relu(n):
    x = n.input(0)
    return fnp.where(x > _scalar(n.attr("alpha", 1.0), x.dtype), x, _scalar(0, x.dtype))


@op("Elu")
def elu(n):
    x = n.input(0)
    return fnp.where(x > 0, x, _scalar(n.attr("alpha", 1.0), x.dtype) * fnp.expm1(x))


@op("Selu")
def selu(n):
    x = n.input(0)
    a = _scalar(n.attr("alpha", 1.67326319217681884765625), x.dtype)
    g = _scalar(n.attr("gamma", 1.05070102214813232421875), x.dtype)
    return g * fnp.where(x > 0, x, a * fnp.expm1(x))


@op("Celu")
def celu(n):
    x = n.input(0)
    a = _scalar(n.attr("alpha", 1.0), x.dtype)
    return fnp.maximum(x, _scalar(0, x.dtype)) + fnp.minimum(_scalar(0, x.dtype), a * fnp.expm1(x / a))


def softplus(x):
    """log(1 + exp(x)) without overflow."""
    return fnp.logaddexp(x, _scalar(0, x.dtype))


@op("Softplus")
def softplus_(n):
    return softplus(n.input(0))


@op("Softsign")
def softsign(n):
    x = n.input(0)
    return x / (_scalar(1, x.dtype) + fnp.abs(x))


@op("Mish")
def mish(n):
    x = n.input(0)
    return x * fnp.tanh(softplus(x))


def _softmax_axes(n: OnnxNode, x):
    """(2-D shape or None, axis): before opset 13 Softmax coerces its input to 2-D at ``axis``."""
    if n.opset < 13:
        axis = _axis(n.attr("axis", 1), x.ndim)
        rows = math.prod(x.shape[:axis])
        return (rows, math.prod(x.shape[axis:])), 1
    return None, _axis(n.attr("axis", -1), x.ndim)


@op("Softmax", "LogSoftmax")
def softmax(n):
    x = n.input(0)
    shape2, axis = _softmax_axes(n, x)
    y = x if shape2 is None else fnp.reshape(x, shape2)
    z = y - fnp.max(y, axis=axis, keepdims=True)  # exp of non-positive values: no overflow
    if n.op_type == "Softmax":
        e = fnp.exp(z)
        out = e / fnp.sum(e, axis=axis, keepdims=True)
    else:
        out = z - fnp.log(fnp.sum(fnp.exp(z), axis=axis, keepdims=True))
    return out if shape2 is None else fnp.reshape(out, x.shape)


@op("Hardmax")
def hardmax(n):
    x = n.input(0)
    shape2, axis = _softmax_axes(n, x)
    y = x if shape2 is None else fnp.reshape(x, shape2)
    idx = fnp.argmax(y, axis=axis, keepdims=True)
    hot = fnp.arange(y.shape[axis]).reshape((-1,) + (1,) * (y.ndim - 1 - axis)) == idx
    out = hot.astype(x.dtype)
    return out if shape2 is None else fnp.reshape(out, x.shape)


# ---------------------------------------------------------------- matrix products

@op("MatMul")
def matmul(n):
    return fnp.matmul(n.input(0), n.input(1))


@op("Gemm")
def gemm(n):
    a, b, c = n.input(0), n.input(1), n.input(2)
    if n.attr("transA", 0):
        a = fnp.transpose(a)
    if n.attr("transB", 0):
        b = fnp.transpose(b)
    y = fnp.matmul(a, b)
    alpha, beta = n.attr("alpha", 1.0), n.attr("beta", 1.0)
    if alpha != 1.0:
        y = y * _scalar(alpha, y.dtype)
    if c is not None and beta != 0.0:
        y = y + (c if beta == 1.0 else c * _scalar(beta, c.dtype))
    return y


@op("Einsum")
def einsum(n):
    return fnp.einsum(n.attr("equation").replace(" ", ""), *[x for x in n.inputs if x is not None])


# ---------------------------------------------------------------- reductions

_REDUCE = {"ReduceSum": 13, "ReduceMean": 18, "ReduceMax": 18, "ReduceMin": 18, "ReduceProd": 18,
           "ReduceL1": 18, "ReduceL2": 18, "ReduceSumSquare": 18, "ReduceLogSum": 18, "ReduceLogSumExp": 18}


@op(*_REDUCE)
def reduce(n):
    x = n.input(0)
    axes = n.axes(_REDUCE[n.op_type], 1)
    keep = bool(n.attr("keepdims", 1))
    if not axes:  # noop_with_empty_axes: reduce over no axis (ReduceL1 is still abs)
        ax = () if n.attr("noop_with_empty_axes", 0) else None
    else:
        ax = _axes(axes, x.ndim)
    kind = n.op_type[6:]
    if kind == "Sum":
        return fnp.sum(x, axis=ax, keepdims=keep)
    if kind == "Mean":
        return _cast(fnp.mean(x, axis=ax, keepdims=keep), x.dtype)
    if kind == "Max":
        return fnp.max(x, axis=ax, keepdims=keep)
    if kind == "Min":
        return fnp.min(x, axis=ax, keepdims=keep)
    if kind == "Prod":
        return fnp.prod(x, axis=ax, keepdims=keep)
    if kind == "L1":
        return fnp.sum(fnp.abs(x), axis=ax, keepdims=keep)
    if kind == "SumSquare":
        return fnp.sum(x * x, axis=ax, keepdims=keep)
    if kind == "L2":
        return _cast(fnp.sqrt(fnp.sum(x * x, axis=ax, keepdims=keep)), x.dtype)
    if kind == "LogSum":
        return fnp.log(fnp.sum(x, axis=ax, keepdims=keep))
    m = fnp.max(x, axis=ax, keepdims=True)  # LogSumExp, shifted by the max
    m = fnp.where(fnp.isfinite(m), m, _scalar(0, m.dtype))
    s = fnp.log(fnp.sum(fnp.exp(x - m), axis=ax, keepdims=True)) + m
    return s if keep or ax == () else fnp.squeeze(s, axis=tuple(range(x.ndim)) if ax is None else ax)


@op("ArgMax", "ArgMin")
def argmax(n):
    x = n.input(0)
    axis = _axis(n.attr("axis", 0), x.ndim)
    keep = bool(n.attr("keepdims", 1))
    f = fnp.argmax if n.op_type == "ArgMax" else fnp.argmin
    if n.attr("select_last_index", 0):  # the last occurrence: search the reversed axis
        idx = f(fnp.flip(x, axis=axis), axis=axis, keepdims=keep)
        return _scalar(x.shape[axis] - 1, np.int64) - idx
    return f(x, axis=axis, keepdims=keep)


@op("CumSum")
def cumsum(n):
    x = n.input(0)
    axis = _axis(n.static_ints(1, "axis")[0], x.ndim)
    y = fnp.flip(x, axis=axis) if n.attr("reverse", 0) else x
    s = fnp.cumsum(y, axis=axis)
    if n.attr("exclusive", 0):  # shift by one: zero first, drop the total
        zero = fnp.zeros(x.shape[:axis] + (1,) + x.shape[axis + 1:], s.dtype)
        s = fnp.concatenate([zero, _slice_axis(s, axis, 0, x.shape[axis] - 1)], axis=axis)
    return fnp.flip(s, axis=axis) if n.attr("reverse", 0) else s


# ---------------------------------------------------------------- shapes and movement

@op("Identity", "Dropout")
def identity(n):
    x = n.input(0)
    if n.op_type == "Dropout":
        if n.opset >= 12 and n.input(2) is not None and bool(n.static(2, "training_mode")):
            raise FgraphError("training_mode=True: the importer builds inference graphs (Dropout is the identity)")
        if n.wants(1):  # the mask: everything kept
            return x, fnp.ones(x.shape, bool)
    return x


@op("Shape")
def shape(n):
    x = n.input(0)
    start, end = n.attr("start", 0), n.attr("end")
    return _shape_array(x.shape[start:end])


@op("Size")
def size(n):
    return fnp.asarray(np.int64(n.input(0).size))


@op("Constant")
def constant(n):
    a = n.attrs()
    import onnx

    if "value" in a:
        t = a["value"]
        return fnp.asarray(_tensor_value(onnx, t, n.label))
    if "value_float" in a:
        return fnp.asarray(np.float32(a["value_float"]))
    if "value_floats" in a:
        return fnp.asarray(np.asarray(a["value_floats"], np.float32))
    if "value_int" in a:
        return fnp.asarray(np.int64(a["value_int"]))
    if "value_ints" in a:
        return fnp.asarray(np.asarray(a["value_ints"], np.int64))
    raise FgraphError(f"Constant with attribute(s) {sorted(a)} is not supported (strings and sparse tensors)")


def _tensor_value(onnx, t, what) -> np.ndarray:
    tensor_dtype(t.data_type, what)
    return onnx.numpy_helper.to_array(t)


@op("ConstantOfShape")
def constant_of_shape(n):
    shape = tuple(n.static_ints(0, "shape"))
    v = n.attr("value")
    if v is None:
        value = np.zeros((), np.float32)
    else:
        import onnx

        value = _tensor_value(onnx, v, n.label).reshape(-1)
        if value.size != 1:
            raise ShapeError(f"value must hold one element, got {value.size}")
        value = value.reshape(())
    if any(d < 0 for d in shape):
        raise ShapeError(f"negative dimension in shape {list(shape)}")
    if math.prod(shape) > FOLD_MAX_ELEMENTS:  # lazy: a tiny model must not allocate a huge array at load
        return fnp.full(shape, value, dtype=value.dtype)
    # folded: a constant, as an initializer would be (a lazy fill would refill it at every run)
    return fnp.asarray(np.full(shape, value, dtype=value.dtype))


@op("Cast")
def cast(n):
    return _cast(n.input(0), tensor_dtype(n.attr("to"), "Cast to"))


@op("CastLike")
def cast_like(n):
    return _cast(n.input(0), n.input(1).dtype)


@op("Reshape")
def reshape(n):
    x = n.input(0)
    shape = n.static_ints(1, "shape") if n.opset >= 5 else n.ints("shape")
    if n.rebatch and shape and shape[0] == n.rebatch[0] and x.ndim and x.shape[0] == n.rebatch[1]:
        shape[0] = n.rebatch[1]  # a batch size the exporter hard-coded follows load(batch=)
    if not n.attr("allowzero", 0):
        for i, d in enumerate(shape):
            if d == 0:
                if i >= x.ndim:
                    raise ShapeError(f"shape {shape} copies dimension {i} (a 0), but the input has rank {x.ndim}")
                shape[i] = x.shape[i]
    return fnp.reshape(x, tuple(shape))


@op("Flatten")
def flatten(n):
    x = n.input(0)
    axis = n.attr("axis", 1)
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis <= x.ndim:
        raise ShapeError(f"axis {n.attr('axis', 1)} is out of range for rank {x.ndim}")
    return fnp.reshape(x, (math.prod(x.shape[:axis]), math.prod(x.shape[axis:])))


@op("Squeeze")
def squeeze(n):
    x = n.input(0)
    axes = n.axes(13, 1)
    if axes is None:
        return fnp.squeeze(x)
    return fnp.squeeze(x, axis=_axes(axes, x.ndim))


@op("Unsqueeze")
def unsqueeze(n):
    x = n.input(0)
    axes = n.axes(13, 1)
    rank = x.ndim + len(axes)
    axes = _axes(axes, rank)  # relative to the output's rank
    dims = iter(x.shape)
    return fnp.reshape(x, tuple(1 if i in axes else next(dims) for i in range(rank)))


@op("Transpose")
def transpose(n):
    x = n.input(0)
    perm = n.ints("perm")
    return fnp.transpose(x, None if perm is None else tuple(perm))


@op("Concat")
def concat(n):
    xs = [x for x in n.inputs if x is not None]
    return fnp.concatenate(xs, axis=_axis(n.attr("axis"), xs[0].ndim))


def _slice_axis(x, axis: int, start: int, stop, step: int = 1):
    key = [slice(None)] * x.ndim
    key[axis] = slice(start, stop, step)
    return x[tuple(key)]


@op("Split")
def split(n):
    x = n.input(0)
    axis = _axis(n.attr("axis", 0), x.ndim)
    dim = x.shape[axis]
    sizes = n.ints("split") if n.opset < 13 else n.static_ints(1, "split")
    if not sizes:
        parts = n.attr("num_outputs", n.n_out) if n.opset >= 18 else n.n_out
        if n.opset >= 18 and n.attr("num_outputs") is None and n.input(1) is None:
            raise FgraphError("Split needs the split input or the num_outputs attribute")
        chunk = -(-dim // parts)  # the last chunk is smaller when parts do not divide
        sizes = [min(chunk, dim - i * chunk) for i in range(parts)]
    if sum(sizes) != dim or any(s < 0 for s in sizes):
        raise ShapeError(f"split sizes {sizes} do not add up to dimension {dim}")
    outs, start = [], 0
    for s in sizes:
        outs.append(_slice_axis(x, axis, start, start + s))
        start += s
    return tuple(outs)


def _onnx_slice(start: int, end: int, step: int, dim: int) -> slice:
    """ONNX's clamping (which differs from Python's for very negative starts)."""
    if step == 0:
        raise ShapeError("slice step cannot be 0")
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        return slice(start, end, step)
    start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
    return slice(start, None if end < 0 else end, step)


@op("Slice")
def slice_(n):
    x = n.input(0)
    if n.opset < 10:
        starts, ends, axes, steps = n.ints("starts"), n.ints("ends"), n.ints("axes"), None
    else:
        starts, ends = n.static_ints(1, "starts"), n.static_ints(2, "ends")
        axes, steps = n.static_ints(3, "axes"), n.static_ints(4, "steps")
    axes = list(range(len(starts))) if axes is None else [_axis(a, x.ndim) for a in axes]
    steps = [1] * len(starts) if steps is None else steps
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise ShapeError("starts, ends, axes and steps differ in length")
    key = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        key[a] = _onnx_slice(s, e, st, x.shape[a])
    return x[tuple(key)]


def _indices(n: OnnxNode, k: int, dim: int):
    """Index input ``k`` for an axis of length ``dim``: negative entries wrap
    (constants are checked and wrapped now, lazy ones when run)."""
    idx = n.input(k)
    if idx.node.op == "constant":
        v = np.asarray(n.static(k, "indices")).astype(np.int64)
        if v.size and (v.min() < -dim or v.max() >= dim):
            raise ShapeError(f"index out of range [{-dim}, {dim - 1}]: {v.min()}..{v.max()}")
        return fnp.asarray(np.where(v < 0, v + dim, v))
    return fnp.where(idx < 0, idx + _scalar(dim, idx.dtype), idx)


@op("Gather")
def gather(n):
    x = n.input(0)
    axis = _axis(n.attr("axis", 0), x.ndim)
    return fnp.take(x, _indices(n, 1, x.shape[axis]), axis=axis)


@op("GatherElements")
def gather_elements(n):
    x = n.input(0)
    axis = _axis(n.attr("axis", 0), x.ndim)
    idx = _indices(n, 1, x.shape[axis])
    if idx.ndim != x.ndim or any(i > d for a, (i, d) in enumerate(zip(idx.shape, x.shape)) if a != axis):
        raise ShapeError(f"indices of shape {idx.shape} do not fit data of shape {x.shape}")
    # the other axes are read up to the indices' extent (take_along_axis would broadcast)
    key = tuple(slice(None) if a == axis else slice(0, idx.shape[a]) for a in range(x.ndim))
    return fnp.take_along_axis(x[key], idx, axis=axis)


@op("Expand")
def expand(n):
    x = n.input(0)
    shape = tuple(n.static_ints(1, "shape"))
    return fnp.broadcast_to(x, np.broadcast_shapes(x.shape, shape))


@op("Tile")
def tile(n):
    x = n.input(0)
    reps = n.static_ints(1, "repeats")
    if len(reps) != x.ndim:
        raise ShapeError(f"repeats has {len(reps)} entries for a rank-{x.ndim} input")
    return fnp.tile(x, tuple(reps))


@op("Range")
def range_(n):
    start, limit, delta = (n.static(k, w) for k, w in enumerate(("start", "limit", "delta")))
    dt = n.input(0).dtype
    if delta.item() == 0 or not all(math.isfinite(v.item()) for v in (start, limit, delta)):
        raise ShapeError(f"Range needs finite start, limit and a non-zero delta, got {start.item()}, "
                         f"{limit.item()}, {delta.item()}")
    count = max(int(math.ceil((limit.item() - start.item()) / delta.item())), 0)
    if count > FOLD_MAX_ELEMENTS:  # lazy, as ConstantOfShape: the same arithmetic, run only if the graph runs
        return (fnp.asarray(start) + fnp.asarray(delta) * fnp.arange(count, dtype=dt)).astype(dt)
    return fnp.asarray((start + delta * np.arange(count, dtype=dt)).astype(dt))


@op("Pad")
def pad(n):
    x = n.input(0)
    mode = n.attr("mode", "constant")
    if n.opset < 11:
        pads, value = n.ints("pads"), n.attr("value", 0.0)
        axes = None
    else:
        pads = n.static_ints(1, "pads")
        value = n.static(2, "constant_value")
        value = 0 if value is None else np.asarray(value).reshape(-1)[0]
        axes = n.static_ints(3, "axes") if n.opset >= 18 else None
    axes = list(range(x.ndim)) if axes is None else [_axis(a, x.ndim) for a in axes]
    if len(pads) != 2 * len(axes):
        raise ShapeError(f"pads has {len(pads)} entries for {len(axes)} axes")
    width = [(0, 0)] * x.ndim
    for i, a in enumerate(axes):
        width[a] = (pads[i], pads[i + len(axes)])
    # negative pads crop first
    key = tuple(slice(max(-b, 0), x.shape[a] - max(-e, 0)) for a, (b, e) in enumerate(width))
    if any(b < 0 or e < 0 for b, e in width):
        x = x[key]
        width = [(max(b, 0), max(e, 0)) for b, e in width]
    if mode == "constant":
        return fnp.pad(x, width, constant_values=np.asarray(value, x.dtype))
    if mode not in ("reflect", "edge", "wrap"):
        raise FgraphError(f"Pad mode {mode!r} is not supported")
    for a, (b, e) in enumerate(width):
        if b or e:
            x = _pad_axis(x, a, b, e, mode)
    return x


def _pad_axis(x, a: int, b: int, e: int, mode: str):
    d = x.shape[a]
    if mode == "edge":
        parts = [fnp.repeat(_slice_axis(x, a, 0, 1), b, axis=a), x, fnp.repeat(_slice_axis(x, a, d - 1, d), e, axis=a)]
    elif mode == "wrap":
        if b > d or e > d:
            raise ShapeError(f"wrap padding ({b}, {e}) exceeds dimension {d}")
        parts = [_slice_axis(x, a, d - b, d), x, _slice_axis(x, a, 0, e)]
    else:  # reflect, without repeating the edge
        if b >= d or e >= d:
            raise ShapeError(f"reflect padding ({b}, {e}) needs a dimension longer than the padding, got {d}")
        parts = [fnp.flip(_slice_axis(x, a, 1, b + 1), axis=a), x,
                 fnp.flip(_slice_axis(x, a, d - 1 - e, d - 1), axis=a)]
    return fnp.concatenate([p for p in parts if p.shape[a]], axis=a)


@op("Trilu")
def trilu(n):
    x = n.input(0)
    k = n.static_ints(1, "k")
    k = 0 if k is None else k[0]
    return fnp.triu(x, k) if n.attr("upper", 1) else fnp.tril(x, k)


@op("DepthToSpace")
def depth_to_space(n):
    x = n.input(0)
    b = n.attr("blocksize")
    N, C, H, W = x.shape
    c = C // (b * b)
    if n.attr("mode", "DCR") == "DCR":
        y = fnp.transpose(fnp.reshape(x, (N, b, b, c, H, W)), (0, 3, 4, 1, 5, 2))
    else:
        y = fnp.transpose(fnp.reshape(x, (N, c, b, b, H, W)), (0, 1, 4, 2, 5, 3))
    return fnp.reshape(y, (N, c, H * b, W * b))


@op("SpaceToDepth")
def space_to_depth(n):
    x = n.input(0)
    b = n.attr("blocksize")
    N, C, H, W = x.shape
    y = fnp.transpose(fnp.reshape(x, (N, C, H // b, b, W // b, b)), (0, 3, 5, 1, 2, 4))
    return fnp.reshape(y, (N, C * b * b, H // b, W // b))


@op("EyeLike")
def eye_like(n):
    x = n.input(0)
    dt = x.dtype if n.attr("dtype") is None else tensor_dtype(n.attr("dtype"), "dtype")
    return fnp.eye(x.shape[0], x.shape[1], k=n.attr("k", 0), dtype=dt)

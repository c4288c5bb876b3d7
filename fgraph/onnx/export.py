"""ONNX export: ``fgraph.onnx.save(graph, path=None, opset=18) -> onnx.ModelProto``.

The inverse of the importer: every fgraph op that has one is written as
ONNX node(s) by the one rule :data:`RULES` holds for its op name.  Rules
see the fgraph node (op, params, input shapes and dtypes) and emit ONNX
nodes through an :class:`Export`, which names values, makes initializers
and casts.  Inputs are cast to the dtypes NumPy's loop uses (ONNX ops want
equal input types where NumPy promotes), so the ONNX model computes what
fgraph does, in the same dtypes.

Graph pieces: placeholders become graph inputs (their names, shapes and
dtypes), constants and variables initializers (a variable's value as of
now: its initial value, or ``variables=`` such as ``exe.variables``),
outputs graph outputs named by the Graph's structure (dict keys, else
``out0``, ``out1``, ...; nested parts joined by ``.``).  Fused nodes made by
the optimiser are expanded into the ops they stand for.  An op without a
rule (sorting, linear algebra, random numbers, run-time checks, ...), or a
form of one that ONNX cannot express at the opset, raises ``FgraphError``
naming the op, the user's line that made the node and the opset.  Graphs
with updates are training steps: inference export refuses them, naming
the updated variables (``drop_updates=True`` exports the outputs alone).

Every model is checked with ``onnx.checker.check_model(full_check=True)``;
each fgraph value is declared (``value_info``) with fgraph's shape and
dtype, so the checker's shape inference verifies the rules as well.
onnxruntime's CPU kernels for a few ONNX ops (Conv, ConvTranspose,
AveragePool, Tan, the inverse and hyperbolic trigonometric functions, Erf)
take float32 only: a float64 graph using them exports to valid ONNX that
onnxruntime cannot run (the ops are not computed in float32 behind the
user's back).
"""
from __future__ import annotations

import math
import os
from collections import Counter
from typing import Callable, Mapping

import numpy as np

from ..engines.program import order_below
from ..errors import FgraphError, format_location
from ..graph import Graph
from ..shape import ufunc_dtypes
from ..symbol import Node, error_at, topological
from ..tree import LEAF
from . import _onnx as _onnx_package

__all__ = ["save", "to_model", "exportable_ops", "DEFAULT_OPSET", "MIN_OPSET"]

#: opset written by default: reductions take axes as an input (13: ReduceSum
#: only; 18: all of them) and bitwise ops exist from 18 on; onnxruntime
#: releases of the last years all run it
DEFAULT_OPSET = 18
#: the oldest opset written: Squeeze/Unsqueeze/ReduceSum axes as inputs, and
#: the integer types most ops gained by 13
MIN_OPSET = 13

_INT64_MIN = int(np.iinfo(np.int64).min)  # Slice's "past the front" for a negative step


class Refuse(Exception):
    """Raised by a rule: this node has no ONNX form (the reason)."""


#: fgraph op name -> rule(ex, node) -> the ONNX value name of the node's result
RULES: dict[str, Callable[["Export", Node], str]] = {}


def rule(*ops: str):
    """Register the decorated function as the export rule of fgraph ops ``ops``."""
    def register(fn):
        for o in ops:
            RULES[o] = fn
        return fn
    return register


def exportable_ops() -> list[str]:
    """The fgraph op names :func:`save` writes (some only in some forms)."""
    return sorted((set(RULES) - set(_REASONS)) | set(_EXPANDED) | set(_FOLDED) | set(_LEAVES))


def _onnx():
    return _onnx_package("onnx.save", "writing ONNX models")


# ---------------------------------------------------------------- the export state

class Export:
    """What one export builds: ONNX nodes, initializers and value names.

    ``names`` maps an fgraph node (by id; the graph keeps the nodes alive)
    to the name of its ONNX value.  Rules call :meth:`value` for an input's
    name (cast to a dtype), :meth:`op` to add a node and :meth:`const` /
    :meth:`ints` for initializers.
    """

    def __init__(self, onnx, opset: int):
        self.onnx, self.helper, self.numpy_helper = onnx, onnx.helper, onnx.numpy_helper
        self.opset = opset
        self.nodes: list = []
        self.inits: list = []
        self.value_info: list = []
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        self._small: dict = {}  # (dtype, shape, bytes) -> initializer name: small constants are shared
        self._casts: dict = {}  # (value name, dtype) -> the cast's name
        self.declared: set[str] = set()  # values with a shape and dtype on record (inputs, initializers, value_info)
        self.label = "fgraph"  # prefix of the ONNX node names made for the current fgraph node

    # -- names and types
    def fresh(self, base: str) -> str:
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        return name

    def elem_type(self, dtype, what: str) -> int:
        dtype = np.dtype(dtype)
        if dtype.kind not in "biuf":  # complex tensors exist in ONNX, but no op computes on them
            raise Refuse(f"{what} has dtype {dtype}, which ONNX ops do not compute on")
        return self.helper.np_dtype_to_tensor_dtype(dtype)

    def declare(self, name: str, node: Node) -> None:
        """Record fgraph's shape and dtype of value ``name`` (the checker verifies them)."""
        if name in self.declared:
            return
        self.declared.add(name)
        self.value_info.append(self.helper.make_tensor_value_info(name, self.elem_type(node.dtype, "the result"),
                                                                  list(node.shape)))

    # -- initializers
    def const(self, array, base: str = "const") -> str:
        """An initializer holding ``array``; small ones are shared by content."""
        arr = np.asarray(array)
        self.elem_type(arr.dtype, "a constant")
        key = None
        if arr.nbytes <= 1024:
            key = (arr.dtype.str, arr.shape, arr.tobytes())
            hit = self._small.get(key)
            if hit is not None:
                return hit
        name = self.initializer(arr, base)
        if key is not None:
            self._small[key] = name
        return name

    def initializer(self, arr: np.ndarray, base: str) -> str:
        name = self.fresh(base)
        # (not np.ascontiguousarray: it makes a 0-d array 1-d)
        self.inits.append(self.numpy_helper.from_array(arr if arr.flags.c_contiguous else arr.copy(order="C"), name))
        self.declared.add(name)
        return name

    def ints(self, values) -> str:
        """A 1-D int64 initializer (shapes, axes, starts, ...)."""
        return self.const(np.asarray(list(values), np.int64).reshape(-1), "ints")

    def scalar(self, value, dtype) -> str:
        return self.const(np.asarray(value, dtype=dtype), "scalar")

    # -- nodes
    def op(self, op_type: str, inputs, n_out: int = 1, **attrs):
        """Add an ONNX node; returns its output name (a list when ``n_out`` > 1)."""
        outs = [self.fresh(f"{self.label}/{op_type}") for _ in range(n_out)]
        node = self.helper.make_node(op_type, list(inputs), outs, name=self.fresh(f"{self.label}/{op_type}#"),
                                     **{k: v for k, v in attrs.items() if v is not None})
        self.nodes.append(node)
        return outs[0] if n_out == 1 else outs

    def cast(self, name: str, src, dtype) -> str:
        src, dtype = np.dtype(src), np.dtype(dtype)
        if src == dtype:
            return name
        key = (name, dtype.str)
        hit = self._casts.get(key)
        if hit is None:
            hit = self._casts[key] = self.op("Cast", [name], to=self.elem_type(dtype, "a cast's target"))
        return hit

    def value(self, node: Node, dtype=None) -> str:
        """The name of ``node``'s value (already exported), cast to ``dtype``."""
        if node.op == "literal":  # a weak Python scalar: a constant of the dtype it is used in
            v = node.params[0][1].value
            return self.scalar(v, node.dtype if dtype is None else dtype)
        name = self.names[id(node)]
        return name if dtype is None else self.cast(name, node.dtype, dtype)

    def reduce(self, op_type: str, x: str, axes, keepdims: bool) -> str:
        """``op_type`` over ``axes`` (non-empty): axes are an input from opset
        13 for ReduceSum and from 18 for the others, an attribute before."""
        if self.opset >= 18 or op_type == "ReduceSum":
            return self.op(op_type, [x, self.ints(axes)], keepdims=int(keepdims))
        return self.op(op_type, [x], axes=list(axes), keepdims=int(keepdims))

    def fill(self, value, node: Node) -> str:
        """An array of ``node``'s shape and dtype, every element ``value``."""
        fill = np.asarray(value, dtype=node.dtype)
        if node.size <= 16:  # tiny: the constant itself reads better than a fill
            return self.const(np.broadcast_to(fill, node.shape).copy(), "filled")
        return self.op("ConstantOfShape", [self.ints(node.shape)],
                       value=self.numpy_helper.from_array(fill.reshape(1), "value"))

    def reshape(self, x: str, shape) -> str:
        shape = tuple(shape)
        if 0 in shape:  # a 0 entry copies the input's dimension unless allowzero (opset 14)
            if self.opset < 14:
                raise Refuse(f"reshaping to the empty shape {shape} needs opset 14 (Reshape's allowzero)")
            return self.op("Reshape", [x, self.ints(shape)], allowzero=1)
        return self.op("Reshape", [x, self.ints(shape)])


# ---------------------------------------------------------------- element-wise

_UFUNC_OPS = {  # fgraph ufunc -> ONNX op on inputs cast to NumPy's loop dtypes
    "add": "Add", "subtract": "Sub", "multiply": "Mul", "divide": "Div", "power": "Pow",
    "float_power": "Pow", "negative": "Neg", "absolute": "Abs", "fabs": "Abs", "sqrt": "Sqrt", "exp": "Exp",
    "log": "Log", "sin": "Sin", "cos": "Cos", "tan": "Tan", "arcsin": "Asin", "arccos": "Acos", "arctan": "Atan",
    "sinh": "Sinh", "cosh": "Cosh", "tanh": "Tanh", "arcsinh": "Asinh", "arccosh": "Acosh", "arctanh": "Atanh",
    "floor": "Floor", "ceil": "Ceil", "rint": "Round", "sign": "Sign", "maximum": "Max", "minimum": "Min",
    "equal": "Equal", "less": "Less", "less_equal": "LessOrEqual", "greater": "Greater",
    "greater_equal": "GreaterOrEqual", "isnan": "IsNaN", "isinf": "IsInf",
}
_LOGICAL = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor", "logical_not": "Not"}
_BITWISE = {"bitwise_and": ("And", "BitwiseAnd"), "bitwise_or": ("Or", "BitwiseOr"),
            "bitwise_xor": ("Xor", "BitwiseXor"), "invert": ("Not", "BitwiseNot")}
#: integer rounding is the identity (NumPy 2 keeps the integer dtype); ONNX's Floor/Ceil/Round take floats only
_ROUNDING = ("floor", "ceil", "rint", "trunc", "fix")
#: ONNX defines these for float types only (NumPy's loops for them are float loops too, but for float16 kin)
_FLOAT_ONLY = {"floor", "ceil", "rint", "sqrt", "exp", "log", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
               "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "isnan", "isinf"}


def _loop_inputs(ex: Export, node: Node) -> tuple[list[str], list[np.dtype]]:
    """The inputs cast to the loop dtypes NumPy picks for this ufunc node."""
    from ..ops.elementwise import UFUNCS

    loop = ufunc_dtypes(UFUNCS[node.op], node.inputs, node.param("dtype"))
    ins = node.inputs
    return [ex.value(i, dt) for i, dt in zip(ins, loop)], list(loop[:len(ins)])


def _is_zero(node: Node) -> bool:
    if node.op == "literal":
        return node.params[0][1].value == 0
    return node.op == "constant" and node.size == 1 and node.params[0][1].array.reshape(-1)[0] == 0


@rule(*_UFUNC_OPS)
def _ufunc(ex, node):
    (xs, loop) = _loop_inputs(ex, node)
    kind = loop[0].kind
    name = node.op
    if name in _ROUNDING and kind in "biu":
        return xs[0]
    if name in ("maximum", "minimum") and kind == "b":  # ONNX Max/Min take no bools: or / and
        return ex.op("Or" if name == "maximum" else "And", xs)
    if name == "maximum" and kind == "f":  # max(x, 0): Relu, the op consumers recognise (NaN stays NaN in both)
        for k in (0, 1):
            if _is_zero(node.inputs[1 - k]) and node.inputs[k].shape == node.shape:
                return ex.op("Relu", [xs[k]])
    if name == "sign" and kind == "b":
        return xs[0]
    if name in _FLOAT_ONLY:
        _float_only(node, loop[0])
    return ex.op(_UFUNC_OPS[name], xs)


@rule(*_LOGICAL)
def _logical(ex, node):
    return ex.op(_LOGICAL[node.op], [ex.value(i, np.bool_) for i in node.inputs])


@rule(*_BITWISE)
def _bitwise(ex, node):
    xs, loop = _loop_inputs(ex, node)
    boolean, integer = _BITWISE[node.op]
    if loop[0].kind == "b":
        return ex.op(boolean, xs)
    if ex.opset < 18:
        raise Refuse(f"integer {node.op} needs opset 18 ({integer})")
    return ex.op(integer, xs)


@rule("not_equal")
def _not_equal(ex, node):
    xs, _ = _loop_inputs(ex, node)
    return ex.op("Not", [ex.op("Equal", xs)])


@rule("positive", "conjugate")
def _identity(ex, node):
    xs, _ = _loop_inputs(ex, node)
    return xs[0]


@rule("square")
def _square(ex, node):
    (x,), _ = _loop_inputs(ex, node)
    return ex.op("Mul", [x, x])


@rule("reciprocal")
def _reciprocal(ex, node):
    (x,), (dt,) = _loop_inputs(ex, node)
    if dt.kind == "f":
        return ex.op("Reciprocal", [x])
    return ex.op("Div", [ex.scalar(1, dt), x])  # integers: NumPy's 1 // x truncated, as ONNX's Div


def _float_only(node, dt):
    if dt.kind != "f":
        raise Refuse(f"{node.op} of {dt}: ONNX computes it on floats only")


@rule("expm1", "log1p", "exp2", "log2", "log10", "deg2rad", "radians", "rad2deg", "degrees", "cbrt")
def _composed_unary(ex, node):
    (x,), (dt,) = _loop_inputs(ex, node)
    _float_only(node, dt)
    one = ex.scalar(1, dt)
    if node.op == "expm1":
        return ex.op("Sub", [ex.op("Exp", [x]), one])
    if node.op == "log1p":
        return ex.op("Log", [ex.op("Add", [x, one])])
    if node.op == "exp2":
        return ex.op("Pow", [ex.scalar(2, dt), x])
    if node.op in ("log2", "log10"):
        return ex.op("Div", [ex.op("Log", [x]), ex.scalar(math.log(2 if node.op == "log2" else 10), dt)])
    if node.op == "cbrt":  # Pow of a negative base to 1/3 is NaN: the sign goes around it
        root = ex.op("Pow", [ex.op("Abs", [x]), ex.scalar(1 / 3, dt)])
        return ex.op("Mul", [ex.op("Sign", [x]), root])
    factor = math.pi / 180 if node.op in ("deg2rad", "radians") else 180 / math.pi
    return ex.op("Mul", [x, ex.scalar(factor, dt)])


@rule("trunc", "fix")
def _trunc(ex, node):
    if node.op == "fix":
        x, dt = ex.value(node.inputs[0]), node.inputs[0].dtype
        x = ex.cast(x, dt, node.dtype)
        dt = node.dtype
    else:
        (x,), (dt,) = _loop_inputs(ex, node)
    if dt.kind in "biu":
        return x
    neg = ex.op("Less", [x, ex.scalar(0, dt)])
    return ex.op("Where", [neg, ex.op("Ceil", [x]), ex.op("Floor", [x])])


@rule("isfinite")
def _isfinite(ex, node):
    (x,), (dt,) = _loop_inputs(ex, node)
    if dt.kind != "f":  # integers and bools are finite
        return ex.fill(True, node)
    return ex.op("Not", [ex.op("Or", [ex.op("IsNaN", [x]), ex.op("IsInf", [x])])])


@rule("fmax", "fmin")
def _fmax(ex, node):
    (a, b), (dt, _) = _loop_inputs(ex, node)
    m = ex.op("Max" if node.op == "fmax" else "Min", [a, b])
    if dt.kind != "f":
        return m
    # NumPy's fmax/fmin ignore a NaN operand: the other one wins
    return ex.op("Where", [ex.op("IsNaN", [a]), b, ex.op("Where", [ex.op("IsNaN", [b]), a, m])])


@rule("hypot")
def _hypot(ex, node):
    (a, b), (dt, _) = _loop_inputs(ex, node)
    _float_only(node, dt)
    return ex.op("Sqrt", [ex.op("Add", [ex.op("Mul", [a, a]), ex.op("Mul", [b, b])])])


@rule("logaddexp")
def _logaddexp(ex, node):
    (a, b), (dt, _) = _loop_inputs(ex, node)
    _float_only(node, dt)
    # max + log1p(exp(-|a - b|)): no overflow; equal infinities give the infinity, not NaN
    m = ex.op("Max", [a, b])
    d = ex.op("Neg", [ex.op("Abs", [ex.op("Sub", [a, b])])])
    d = ex.op("Where", [ex.op("IsNaN", [d]), ex.scalar(-np.inf, dt), d])
    return ex.op("Add", [m, ex.op("Log", [ex.op("Add", [ex.scalar(1, dt), ex.op("Exp", [d])])])])


def _sign_fix(ex, r, b, dt):
    """Where the remainder ``r`` is non-zero and its sign differs from the divisor ``b``'s (bool)."""
    zero = ex.scalar(0, dt)
    differs = ex.op("Xor", [ex.op("Less", [r, zero]), ex.op("Less", [b, zero])])
    return ex.op("And", [ex.op("Not", [ex.op("Equal", [r, zero])]), differs])


@rule("fmod")
def _fmod(ex, node):
    xs, _ = _loop_inputs(ex, node)
    return ex.op("Mod", xs, fmod=1)  # C's fmod: the dividend's sign


@rule("remainder")
def _remainder(ex, node):
    (a, b), (dt, _) = _loop_inputs(ex, node)
    if dt.kind in "iu":
        return ex.op("Mod", [a, b])  # fmod=0 on integers: the divisor's sign, as Python's %
    _float_only(node, dt)
    r = ex.op("Mod", [a, b], fmod=1)  # NumPy: fmod, moved into the divisor's sign
    return ex.op("Where", [_sign_fix(ex, r, b, dt), ex.op("Add", [r, b]), r])


@rule("floor_divide")
def _floor_divide(ex, node):
    (a, b), (dt, _) = _loop_inputs(ex, node)
    if dt.kind == "b":
        raise Refuse("floor_divide of booleans")
    r = ex.op("Mod", [a, b], fmod=1)
    if dt.kind in "iu":  # Div truncates toward zero: one less where the signs differ and it was inexact
        q = ex.op("Div", [a, b])
        return ex.op("Sub", [q, ex.op("Cast", [_sign_fix(ex, r, b, dt)], to=ex.elem_type(dt, "floor_divide"))])
    # NumPy's npy_divmod: (a - fmod(a, b)) / b, moved down where the signs differ, then rounded to the nearest
    div = ex.op("Div", [ex.op("Sub", [a, r]), b])
    div = ex.op("Sub", [div, ex.op("Cast", [_sign_fix(ex, r, b, dt)], to=ex.elem_type(dt, "floor_divide"))])
    fl = ex.op("Floor", [div])
    up = ex.op("Greater", [ex.op("Sub", [div, fl]), ex.scalar(0.5, dt)])
    q = ex.op("Add", [fl, ex.op("Cast", [up], to=ex.elem_type(dt, "floor_divide"))])
    zero_b = ex.op("Equal", [b, ex.scalar(0, dt)])  # x // 0: NumPy gives a / b (inf or nan)
    return ex.op("Where", [zero_b, ex.op("Div", [a, b]), q])


@rule("where")
def _where(ex, node):
    c, x, y = node.inputs
    return ex.op("Where", [ex.value(c, np.bool_), ex.value(x, node.dtype), ex.value(y, node.dtype)])


@rule("clip")
def _clip(ex, node):
    x, lo, hi = (ex.value(i, node.dtype) for i in node.inputs)
    if node.dtype.kind == "b":
        return ex.op("And", [ex.op("Or", [x, lo]), hi])
    # NumPy's clip is minimum(maximum(x, lo), hi) element-wise (bounds may be arrays; Clip's are scalars)
    return ex.op("Min", [ex.op("Max", [x, lo]), hi])


@rule("astype")
def _astype(ex, node):
    (x,) = node.inputs
    return ex.value(x, node.dtype)


@rule("round")
def _round(ex, node):
    (x,) = node.inputs
    d = node.param("decimals", 0)
    v = ex.value(x, node.dtype)
    if node.dtype.kind in "biu":
        if d >= 0:
            return v
        raise Refuse("round of integers to negative decimals")
    if d == 0:
        return ex.op("Round", [v])  # half to even, as NumPy
    # NumPy: round(x * 10**d) / 10**d (or / and * for negative d), in x's dtype
    f = ex.scalar(10.0 ** abs(d), node.dtype)
    if d > 0:
        return ex.op("Div", [ex.op("Round", [ex.op("Mul", [v, f])]), f])
    return ex.op("Mul", [ex.op("Round", [ex.op("Div", [v, f])]), f])


@rule("real")
def _real(ex, node):
    return ex.value(node.inputs[0], node.dtype)


@rule("imag")
def _imag(ex, node):
    return ex.fill(0, node)  # the imaginary part of a real array


@rule("erf")
def _erf(ex, node):
    if node.dtype.kind != "f":
        raise Refuse(f"erf of {node.dtype}")
    return ex.op("Erf", [ex.value(node.inputs[0], node.dtype)])


# ---------------------------------------------------------------- reductions

_REDUCE = {"sum": "ReduceSum", "prod": "ReduceProd", "mean": "ReduceMean", "max": "ReduceMax",
           "min": "ReduceMin", "all": "ReduceMin", "any": "ReduceMax"}


def _unwrap(value):
    from ..ops.reduction import unwrap

    return unwrap(value)


@rule(*_REDUCE, "var", "std")
def _reduction(ex, node):
    x = node.inputs[0]
    op, axes, keep = node.op, node.param("axis"), bool(node.param("keepdims", False))
    initial = node.param("initial")
    initial = None if initial is None else _unwrap(initial)
    if initial is not None and op not in ("sum", "prod", "max", "min"):
        raise Refuse(f"{op} with initial=")
    if op in ("all", "any"):
        src = np.dtype(np.bool_)
    elif op in ("max", "min"):
        src = x.dtype
    else:  # NumPy accumulates in the result's dtype (int32 sums in int64, integer means in float64)
        src = node.dtype
    v = ex.value(x, src)
    if len(node.inputs) > 1:  # where= mask: masked-out elements become the reduction's neutral value
        if op in ("mean", "var", "std"):
            raise Refuse(f"{op} with where=")
        if op in ("max", "min") and initial is None:
            raise Refuse(f"{op} with where= but no initial=")
        neutral = {"sum": 0, "prod": 1, "all": True, "any": False}.get(op, initial)
        v = ex.op("Where", [ex.value(node.inputs[1], np.bool_), v, ex.scalar(neutral, src)])
    work = np.dtype(np.int32) if src.kind == "b" else src  # ONNX reduces no bools: min/max over 0/1
    v = ex.cast(v, src, work)
    if op in ("var", "std"):
        out = _variance(ex, v, x.shape, axes, keep, node)
    elif axes:
        out = ex.reduce(_REDUCE[op], v, axes, keep)
    else:  # over no axis: the elements themselves
        out = v
    if initial is not None:
        f = {"sum": "Add", "prod": "Mul", "max": "Max", "min": "Min"}[op]
        out = ex.op(f, [out, ex.scalar(initial, work)])
    return ex.cast(out, work, node.dtype)


def _variance(ex, v, shape, axes, keep, node):
    dt = node.dtype
    if not axes:  # over no axis: each element is its own mean
        n = 1
        var = ex.op("Sub", [v, v])
    else:
        n = math.prod(shape[a] for a in axes)
        d = ex.op("Sub", [v, ex.reduce("ReduceMean", v, axes, True)])
        var = ex.reduce("ReduceSum", ex.op("Mul", [d, d]), axes, keep)
    var = ex.op("Div", [var, ex.scalar(n - node.param("ddof", 0), dt)])
    return ex.op("Sqrt", [var]) if node.op == "std" else var


@rule("argmax", "argmin")
def _argmax(ex, node):
    x = node.inputs[0]
    v = ex.value(x)
    if x.dtype.kind == "b":
        v = ex.cast(v, np.bool_, np.int32)
    axis = node.param("axis")
    if axis is None:  # over the flattened array; keepdims then gives a shape of ones (a Reshape)
        v = ex.reshape(v, (x.size,)) if x.ndim != 1 else v
        out, shape = ex.op("ArgMax" if node.op == "argmax" else "ArgMin", [v], axis=0, keepdims=0), ()
    else:  # select_last_index=0: the first occurrence, as NumPy
        keep = bool(node.param("keepdims"))
        out = ex.op("ArgMax" if node.op == "argmax" else "ArgMin", [v], axis=axis, keepdims=int(keep))
        shape = node.shape
    return out if shape == node.shape else ex.reshape(out, node.shape)


@rule("cumsum")
def _cumsum(ex, node):
    x = node.inputs[0]
    v = ex.value(x, node.dtype)
    axis = node.param("axis")
    if axis is None:
        v, axis = ex.reshape(v, (x.size,)), 0
    return ex.op("CumSum", [v, ex.const(np.int64(axis), "axis")])


# ---------------------------------------------------------------- movement

@rule("reshape")
def _reshape(ex, node):
    (x,) = node.inputs
    return ex.value(x) if x.shape == node.shape else ex.reshape(ex.value(x), node.shape)


@rule("transpose")
def _transpose(ex, node):
    perm = list(node.param("axes"))
    v = ex.value(node.inputs[0])
    return v if perm == sorted(perm) else ex.op("Transpose", [v], perm=perm)


@rule("matrix_transpose")
def _matrix_transpose(ex, node):
    n = node.inputs[0].ndim
    perm = list(range(n - 2)) + [n - 1, n - 2]
    return ex.op("Transpose", [ex.value(node.inputs[0])], perm=perm)


@rule("broadcast_to")
def _broadcast_to(ex, node):
    (x,) = node.inputs
    return ex.value(x) if x.shape == node.shape else ex.op("Expand", [ex.value(x), ex.ints(node.shape)])


def _slice(ex, v, starts, ends, axes, steps):
    if not axes:
        return v
    return ex.op("Slice", [v, ex.ints(starts), ex.ints(ends), ex.ints(axes), ex.ints(steps)])


@rule("flip")
def _flip(ex, node):
    axes = list(node.param("axes"))
    n = len(axes)
    return _slice(ex, ex.value(node.inputs[0]), [-1] * n, [_INT64_MIN] * n, axes, [-1] * n)


@rule("slice_axis")
def _slice_axis(ex, node):
    axis, start, stop, step = (node.param(k) for k in ("axis", "start", "stop", "step"))
    stop = _INT64_MIN if stop is None else stop
    return _slice(ex, ex.value(node.inputs[0]), [start], [stop], [axis], [step])


@rule("slice")
def _basic_index(ex, node):
    """Slice over the sliced axes, then one Reshape drops the integer-indexed
    axes and adds the new ones (static shapes make it exact)."""
    (x,) = node.inputs
    starts, ends, axes, steps = [], [], [], []
    axis = 0
    for e in node.param("key"):
        if e is None:
            continue
        n = x.shape[axis]
        if type(e) is tuple:
            start, stop, step = e
            if (start, stop, step) != (0, n, 1):
                # a negative stop in a normalised key means "past the front" (negative steps)
                starts.append(start), ends.append(_INT64_MIN if stop < 0 else stop), steps.append(step)
                axes.append(axis)
        else:
            starts.append(e), ends.append(e + 1), steps.append(1), axes.append(axis)
        axis += 1
    v = _slice(ex, ex.value(x), starts, ends, axes, steps)
    sliced = list(x.shape)
    for a, s, e_, st in zip(axes, starts, ends, steps):
        sliced[a] = len(range(s, -1 if e_ == _INT64_MIN else e_, st))
    return v if tuple(sliced) == node.shape else ex.reshape(v, node.shape)


@rule("concatenate")
def _concatenate(ex, node):
    return ex.op("Concat", [ex.value(i, node.dtype) for i in node.inputs], axis=node.param("axis"))


@rule("repeat")
def _repeat(ex, node):
    axis = node.param("axis")
    n = node.inputs[0].shape[axis]
    index = np.repeat(np.arange(n, dtype=np.int64), node.param("repeats"))  # one gather of a constant index
    return ex.op("Gather", [ex.value(node.inputs[0]), ex.const(index, "repeat_index")], axis=axis)


# ---------------------------------------------------------------- indexing

def _index(ex, node: Node) -> str:
    v = ex.value(node)
    return ex.cast(v, node.dtype, np.int64)


@rule("take")
def _take(ex, node):
    a, ind = node.inputs
    axis, mode = node.param("axis"), node.param("mode")
    v = ex.value(a)
    if axis is None:
        v, axis, dim = ex.reshape(v, (a.size,)), 0, a.size
    else:
        dim = a.shape[axis]
    idx = _index(ex, ind)
    if mode == "wrap":
        idx = ex.op("Mod", [idx, ex.scalar(dim, np.int64)])
    elif mode == "clip":
        idx = ex.op("Max", [ex.op("Min", [idx, ex.scalar(dim - 1, np.int64)]), ex.scalar(0, np.int64)])
    return ex.op("Gather", [v, idx], axis=axis)  # negative indices count from the end, as NumPy's


@rule("take_along_axis")
def _take_along_axis(ex, node):
    a, ind = node.inputs
    axis = node.param("axis")
    v, idx = ex.value(a), _index(ex, ind)
    if axis is None:
        v, axis = ex.reshape(v, (a.size,)), 0
        a_shape = (a.size,)
    else:
        a_shape = a.shape
    # GatherElements does not broadcast: the other axes are expanded to the common shape
    other = node.shape
    want_a = other[:axis] + (a_shape[axis],) + other[axis + 1:]
    if a_shape != want_a:
        v = ex.op("Expand", [v, ex.ints(want_a)])
    if ind.shape != node.shape:
        idx = ex.op("Expand", [idx, ex.ints(node.shape)])
    return ex.op("GatherElements", [v, idx], axis=axis)


@rule("advanced_index")
def _advanced_index(ex, node):
    """Integer entries and one index array: Gathers (an integer drops its
    axis), the array's dimensions moved to the front where NumPy puts them."""
    x, *arrays = node.inputs
    key, front = node.param("key"), node.param("front")
    if len(arrays) != 1:
        raise Refuse(f"advanced indexing with {len(arrays)} index arrays (one is exported: a Gather)")
    positions = [p for p, e in enumerate(key) if e is not None]
    v = ex.value(x)
    dropped = 0
    array_at = None
    for p, e in enumerate(key):
        if e is None:
            continue
        if e == "a":
            array_at = p - dropped
            continue
        v = ex.op("Gather", [v, ex.scalar(e, np.int64)], axis=p - dropped)  # a 0-d index drops the axis
        dropped += 1
    (ind,) = arrays
    v = ex.op("Gather", [v, _index(ex, ind)], axis=array_at)
    in_place = not front and positions == list(range(positions[0], positions[-1] + 1))
    k = ind.ndim
    if not in_place and array_at and k:  # NumPy moves the index dimensions to the front
        rank = len(node.shape)
        perm = list(range(array_at, array_at + k)) + [a for a in range(rank) if not array_at <= a < array_at + k]
        v = ex.op("Transpose", [v], perm=perm)
    return v


@rule("select")
def _select(ex, node):
    n = node.param("n")
    conds, choices, default = node.inputs[:n], node.inputs[n:2 * n], node.inputs[2 * n]
    out = ex.op("Expand", [ex.value(default, node.dtype), ex.ints(node.shape)])
    for c, v in reversed(list(zip(conds, choices))):  # the first true condition wins
        out = ex.op("Where", [ex.value(c, np.bool_), ex.value(v, node.dtype), out])
    return out


# ---------------------------------------------------------------- products

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum(ex, node, equation: str) -> str:
    if node.dtype.kind not in "fiu":
        raise Refuse(f"{node.op} of {node.dtype}")
    return ex.op("Einsum", [ex.value(i, node.dtype) for i in node.inputs], equation=equation)


@rule("matmul")
def _matmul(ex, node):
    a, b = node.inputs
    if node.dtype.kind == "b":
        raise Refuse("matmul of booleans")
    return ex.op("MatMul", [ex.value(a, node.dtype), ex.value(b, node.dtype)])


@rule("dot", "inner")
def _dot(ex, node):
    a, b = node.inputs
    if a.ndim == 0 or b.ndim == 0:
        return ex.op("Mul", [ex.value(a, node.dtype), ex.value(b, node.dtype)])
    if node.op == "dot" and a.ndim <= 2 and b.ndim <= 2:
        return _matmul(ex, node)
    la = _LETTERS[:a.ndim]
    lb = list(_LETTERS[a.ndim:a.ndim + b.ndim])
    k = (0 if b.ndim == 1 else b.ndim - 2) if node.op == "dot" else b.ndim - 1
    lb[k] = la[-1]  # the contracted axis
    lb = "".join(lb)
    return _einsum(ex, node, f"{la},{lb}->{la[:-1]}{lb.replace(la[-1], '')}")


@rule("tensordot")
def _tensordot(ex, node):
    a, b = node.inputs
    axa, axb = node.param("axes")
    la = list(_LETTERS[:a.ndim])
    lb = list(_LETTERS[a.ndim:a.ndim + b.ndim])
    for i, j in zip(axa, axb):
        lb[j] = la[i]
    out = [c for i, c in enumerate(la) if i not in axa] + [c for j, c in enumerate(lb) if j not in axb]
    return _einsum(ex, node, f"{''.join(la)},{''.join(lb)}->{''.join(out)}")


@rule("outer")
def _outer(ex, node):
    a, b = node.inputs
    va = ex.reshape(ex.value(a, node.dtype), (a.size, 1))
    vb = ex.reshape(ex.value(b, node.dtype), (1, b.size))
    return ex.op("Mul", [va, vb])


@rule("vecdot")
def _vecdot(ex, node):
    a, b = node.inputs
    ia, ib = node.param("axes")
    if ia - a.ndim != ib - b.ndim:
        raise Refuse("vecdot over axes at different positions from the end")
    prod = ex.op("Mul", [ex.value(a, node.dtype), ex.value(b, node.dtype)])
    return ex.reduce("ReduceSum", prod, [len(node.shape) + (ia - a.ndim) + 1], False)


@rule("einsum")
def _einsum_rule(ex, node):
    eq = node.param("subscripts").replace(" ", "")
    lhs = eq.split("->")[0].split(",")
    sizes: dict = {}
    for term, inp in zip(lhs, node.inputs):
        head, _, tail = term.partition("...")
        dims = inp.shape[:len(head)] + inp.shape[inp.ndim - len(tail):]
        for c, d in zip(head + tail, dims):
            if sizes.setdefault(c, d) != d:  # NumPy broadcasts a size-1 index; ONNX's Einsum does not
                raise Refuse(f"einsum {eq!r} broadcasts index {c!r} ({sizes[c]} against {d})")
    return _einsum(ex, node, eq)


# ---------------------------------------------------------------- neural-network ops

def _pads(padding) -> list[int]:
    (t, b), (l, r) = padding
    return [t, l, b, r]  # ONNX: all begins, then all ends


@rule("conv2d")
def _conv2d(ex, node):
    x, w = node.inputs
    return ex.op("Conv", [ex.value(x, node.dtype), ex.value(w, node.dtype)], strides=list(node.param("stride")),
                 pads=_pads(node.param("padding")), dilations=list(node.param("dilation")),
                 group=node.param("groups"), kernel_shape=list(w.shape[2:]))


@rule("conv_transpose2d")
def _conv_transpose2d(ex, node):
    x, w = node.inputs
    return ex.op("ConvTranspose", [ex.value(x, node.dtype), ex.value(w, node.dtype)],
                 strides=list(node.param("stride")), pads=_pads(node.param("padding")),
                 output_padding=list(node.param("output_padding")), dilations=list(node.param("dilation")),
                 group=node.param("groups"), kernel_shape=list(w.shape[2:]))


def _ceil_extra(node: Node) -> list[int]:
    """Per spatial axis, the padding past the end that floor-mode pooling
    needs to make fgraph's output size.  fgraph's ceil_mode (PyTorch's) drops
    a last window that would start in the end padding, where ONNX's ceil_mode
    keeps it, so pools are written in floor mode with this much more padding."""
    x = node.inputs[0]
    extra = []
    for size, out, k, s, (p0, p1), d in zip(x.shape[2:], node.shape[2:], node.param("kernel"), node.param("stride"),
                                            node.param("padding"), node.param("dilation", (1, 1))):
        extra.append(max(0, (out - 1) * s + (k - 1) * d + 1 - (size + p0 + p1)))
    return extra


@rule("max_pool2d")
def _max_pool2d(ex, node):
    (x,) = node.inputs
    if x.dtype.kind != "f":
        raise Refuse(f"max_pool2d of {x.dtype} (onnxruntime pools floats)")
    (t, b), (l, r) = node.param("padding")
    eh, ew = _ceil_extra(node)  # padding counts as -inf in both: more of it changes no window's maximum
    return ex.op("MaxPool", [ex.value(x)], kernel_shape=list(node.param("kernel")),
                 strides=list(node.param("stride")), pads=[t, l, b + eh, r + ew],
                 dilations=list(node.param("dilation")))


@rule("avg_pool2d")
def _avg_pool2d(ex, node):
    (x,) = node.inputs
    (t, b), (l, r) = node.param("padding")
    eh, ew = _ceil_extra(node)
    include = bool(node.param("count_include_pad"))
    v = ex.value(x)
    if include and (eh or ew) and (t or b or l or r):
        # the padding counts, the ceil-mode overhang does not: pad with zeros first, then pool with
        # the overhang as padding that is not counted
        v = ex.op("Pad", [v, ex.ints([0, 0, t, l, 0, 0, b, r])])
        (t, b), (l, r), include = (0, 0), (0, 0), False
    elif eh or ew:
        include = False  # the overhang is never counted, and there is no other padding
    return ex.op("AveragePool", [v], kernel_shape=list(node.param("kernel")), strides=list(node.param("stride")),
                 pads=[t, l, b + eh, r + ew], count_include_pad=int(include))


# ---------------------------------------------------------------- creation

@rule("zeros", "ones", "full")
def _fill(ex, node):
    value = {"zeros": 0, "ones": 1}.get(node.op)
    return ex.fill(node.param("fill_value").array if value is None else value, node)


#: creation ops folded into an initializer (computed by fgraph) when every input is a constant
_FOLDED = ("arange", "linspace", "logspace", "geomspace", "linspace_step", "eye", "tri", "indices", "meshgrid")


@rule("tril", "triu")
def _tri_part(ex, node):
    (x,) = node.inputs
    k = node.param("k")
    k = int(getattr(k, "value", k))  # a Scalar param
    if ex.opset >= 14:
        return ex.op("Trilu", [ex.value(x), ex.const(np.int64(k), "k")], upper=int(node.op == "triu"))
    n, m = x.shape[-2:]
    mask = np.tri(n, m, k, dtype=bool) if node.op == "tril" else ~np.tri(n, m, k - 1, dtype=bool)
    return ex.op("Where", [ex.const(mask, "mask"), ex.value(x), ex.scalar(0, x.dtype)])


# ---------------------------------------------------------------- refusals with a reason

_REASONS = {
    "check": "a run-time check raises an error, which an ONNX model cannot (export the graph without it)",
    "random_uniform": "fgraph's Philox stream has no ONNX equivalent (ONNX's RandomUniform draws other numbers)",
    "setitem": "writes are not exported; ScatterND would be needed",
}
for _op, _why in _REASONS.items():
    def _refuse(ex, node, _why=_why):
        raise Refuse(_why)
    RULES[_op] = _refuse


# ---------------------------------------------------------------- the driver

#: ops standing for other ops: exported as what they expand to (optimiser fusions)
_EXPANDED = ("fused", "fused_reduce", "fma", "adagrad")
_LEAVES = ("placeholder", "variable", "constant", "literal")


def _output_names(graph: Graph) -> list[str]:
    """One name per output leaf, in the order of ``graph.outputs``: dict keys,
    else ``out<k>``; nested parts joined by '.'."""
    s = graph.structure
    if s is None:
        return []
    if s == LEAF:
        return ["out0"]
    names: list[str] = []
    stack = [(s, None)]
    while stack:  # depth-first, left to right: the order flatten() gives the leaves
        st, path = stack.pop()
        if st == LEAF:
            names.append(path)
            continue
        kind, meta, kids = st
        keys = [str(k) for k in meta] if kind == "dict" else [str(i) for i in range(len(kids))]
        for key, kid in reversed(list(zip(keys, kids))):
            if path is None:
                sub = key if kind == "dict" else f"out{key}"
            else:
                sub = f"{path}.{key}"
            stack.append((kid, sub))
    dup = sorted(n for n, c in Counter(names).items() if c > 1)
    if dup:
        raise error_at(FgraphError, "onnx.save", f"output names {dup} repeat (dict keys that are equal as strings)")
    return names


def _refusal(node: Node, origin: Node, opset: int, reason: str) -> FgraphError:
    inside = f" (inside the {origin.op} node {origin.name!r})" if origin is not node else ""
    where = format_location(origin.where)
    label = f" {node.name!r}" if node.name and origin is node else ""
    return error_at(FgraphError, "onnx.save", f"fgraph op {node.op!r}{label}{inside} made at {where} cannot be "
                                              f"exported to ONNX opset {opset}: {reason}")


def _new_nodes(root: Node, named: dict) -> list[Node]:
    """The nodes under ``root`` not yet exported, inputs first (iterative)."""
    return [n for n in order_below([root], named) if id(n) not in named]


def _fold(node: Node) -> np.ndarray:
    """A creation node's value, computed by fgraph on a copy (the graph's
    own nodes keep no value the export computed)."""
    from ..engines import compile as compile_graph

    (value,) = compile_graph(Graph(outputs=[node.replace()]))()
    return np.asarray(value)


def to_model(graph, opset: int = DEFAULT_OPSET, *, variables: Mapping | None = None, drop_updates: bool = False,
             name: str | None = None):
    """The ONNX ``ModelProto`` of ``graph`` (see :func:`save`), checked."""
    from .. import __version__ as fgraph_version

    from . import MAX_OPSET

    if not isinstance(graph, Graph):
        graph = Graph(outputs=graph)
    if isinstance(opset, bool) or not isinstance(opset, (int, np.integer)) or not MIN_OPSET <= opset <= MAX_OPSET:
        raise error_at(FgraphError, "onnx.save", f"opset={opset!r}: fgraph writes opsets {MIN_OPSET} to {MAX_OPSET}")
    opset = int(opset)
    if graph.updates and not drop_updates:
        names = [v.name for v, _ in graph.updates]
        raise error_at(FgraphError, "onnx.save", f"the graph updates variable(s) {names}: an ONNX model is an "
                                                 "inference function without state; export Graph(outputs=...) "
                                                 "alone, or pass drop_updates=True to write the outputs with the "
                                                 "variables' current values as constants")
    onnx = _onnx()
    helper = onnx.helper
    ex = Export(onnx, opset)
    state = _variable_values(graph, variables)

    out_names = _output_names(graph)
    if not out_names:
        raise error_at(FgraphError, "onnx.save", "the graph has no outputs: an ONNX model needs at least one")
    # graph inputs: every placeholder (even one no output reads), named as fed
    inputs = []
    for p in graph.placeholders:
        try:
            inputs.append(helper.make_tensor_value_info(p.name, ex.elem_type(p.dtype, f"placeholder {p.name!r}"),
                                                        list(p.shape)))
        except Refuse as e:
            raise _refusal(p, p, opset, str(e)) from None
        ex.names[id(p)] = p.name
        ex.used.add(p.name)
        ex.declared.add(p.name)
    clash = sorted(set(out_names) & ex.used)
    for k, n in enumerate(graph.outputs):  # an output may carry its own placeholder's name
        if out_names[k] in clash and ex.names.get(id(n)) == out_names[k]:
            clash.remove(out_names[k])
    if clash:
        raise error_at(FgraphError, "onnx.save", f"output name(s) {clash} are also placeholder names: rename the "
                                                 "outputs (dict keys) or the placeholders")
    ex.used.update(out_names)
    preset: dict[int, str] = {}  # a computed output's value takes the output's name (no Identity)
    for n, out in zip(graph.outputs, out_names):
        if n.op not in _LEAVES and id(n) not in preset:
            preset[id(n)] = out

    creation = set(_FOLDED)
    keep = []  # nodes made by expansions: alive until the end, so ids stay unique
    pending = [(iter(topological(graph.outputs)), None)]
    while pending:
        it, origin = pending[-1]
        n = next(it, None)
        if n is None:
            pending.pop()
            continue
        if type(n) is tuple:  # (fused node, its expansion's value): the fused node's value is that one
            fused, value = n
            ex.names[id(fused)] = ex.names[id(value)]
            continue
        if id(n) in ex.names or n.op == "literal":  # a literal becomes a constant of the dtype each user needs
            continue
        at = origin if origin is not None else n
        ex.label = (n.name or n.op) if origin is None else f"{origin.name or origin.op}/{n.op}"
        first = len(ex.nodes)
        try:
            if n.op in _EXPANDED:
                from ..ops.fused import expand_node

                value = expand_node(n)
                keep.append(value)
                if id(n) in preset:
                    preset[id(value)] = preset.pop(id(n))
                sub = _new_nodes(value, ex.names)
                pending.append((iter(sub + [(n, value)]), at))
                continue
            out = _leaf(ex, n, state) if n.op in _LEAVES else \
                ex.const(_fold(n), n.op) if n.op in creation and n.concrete else _apply(ex, n)
        except Refuse as e:
            raise _refusal(n, at, opset, str(e)) from None
        ex.names[id(n)] = _bind(ex, out, preset.get(id(n)), first)
        if n.op not in _LEAVES:
            try:
                ex.declare(ex.names[id(n)], n)
            except Refuse as e:
                raise _refusal(n, at, opset, str(e)) from None

    outputs = []
    for n, out in zip(graph.outputs, out_names):
        src = ex.value(n) if n.op == "literal" else ex.names[id(n)]
        if src != out:  # a leaf, or a value that is output twice
            ex.label = out
            ex.nodes.append(helper.make_node("Identity", [src], [out], name=ex.fresh(f"{out}/Identity")))
        outputs.append(helper.make_tensor_value_info(out, ex.elem_type(n.dtype, f"output {out!r}"), list(n.shape)))
    value_info = [vi for vi in ex.value_info if vi.name not in set(out_names)]
    g = helper.make_graph(ex.nodes, name or "fgraph", inputs, outputs, initializer=ex.inits, value_info=value_info)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="fgraph",
                              producer_version=str(fgraph_version))
    model.ir_version = helper.find_min_ir_version_for(list(model.opset_import))
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as e:  # an exporter bug: say so
        raise FgraphError(f"onnx.save: the exported model fails onnx.checker (a bug in fgraph.onnx.export; "
                          f"please report it): {e}") from None
    return model


def _apply(ex: Export, n: Node) -> str:
    fn = RULES.get(n.op)
    if fn is None:
        raise Refuse("fgraph.onnx.export has no rule for this op")
    return fn(ex, n)


def _leaf(ex: Export, n: Node, state: dict) -> str:
    if n.op == "placeholder":  # not a graph input (Graph(inputs=) may leave none out, so not reached)
        raise Refuse("placeholder is not among the graph's inputs")
    arr = state[id(n)] if n.op == "variable" else n.param("value").array
    ex.elem_type(arr.dtype, f"{n.op} {n.name!r}")
    return ex.initializer(arr, n.name or n.op)


def _bind(ex: Export, out: str, preset: str | None, first: int) -> str:
    """Name a node's value: a preset output name is given to the ONNX node
    that made it, when this rule made that node (``ex.nodes[first:]``)."""
    if preset is None or len(ex.nodes) <= first:
        return out
    made = next((m for m in reversed(ex.nodes[first:]) if out in m.output), None)
    if made is None:
        return out
    for m in ex.nodes[first:]:  # the rule's own nodes read it under the new name
        if out in m.input:
            ins = [preset if i == out else i for i in m.input]
            del m.input[:]
            m.input.extend(ins)
    outs = [preset if o == out else o for o in made.output]
    del made.output[:]
    made.output.extend(outs)
    for key, name in list(ex._casts.items()):  # a cast the rule made (astype) is remembered under its name
        if name == out:
            ex._casts[key] = preset
    return preset


def _variable_values(graph: Graph, variables) -> dict[int, np.ndarray]:
    """Each variable's value: ``variables[name]`` when given, else its initial value."""
    given = dict(variables or {})
    out = {}
    for v in graph.variables:
        arr = v.param("value").array if v.name not in given else np.asarray(given.pop(v.name))
        if arr.shape != v.shape or arr.dtype != v.dtype:
            raise error_at(FgraphError, "onnx.save", f"variables[{v.name!r}] is {arr.dtype}{list(arr.shape)}, the "
                                                     f"variable is {v.dtype}{list(v.shape)}")
        out[id(v)] = arr
    if given:
        raise error_at(FgraphError, "onnx.save", f"variables= names {sorted(given)}, which are not variables of "
                                                 "the graph")
    return out


def save(graph, path: str | os.PathLike | None = None, opset: int = DEFAULT_OPSET, *,
         variables: Mapping | None = None, drop_updates: bool = False, name: str | None = None):
    """Export ``graph`` as an ONNX model for inference.

    Parameters
    ----------
    graph : fgraph.Graph (or what ``Graph(outputs=...)`` takes)
        Placeholders become graph inputs, constants and variables
        initializers, outputs graph outputs named by dict key (else out0..).
    path : str or os.PathLike, optional
        Where to write the model; None only returns it.
    opset : int
        The default-domain opset written, 13 to 22 (default 18).
    variables : mapping, optional
        ``{name: array}`` values for the graph's variables (such as
        ``exe.variables``); others keep their initial value.
    drop_updates : bool
        Write the outputs of a graph with updates (default: refuse it).
    name : str, optional
        The ONNX graph's name.

    Returns
    -------
    onnx.ModelProto
        The model, checked with ``onnx.checker.check_model(full_check=True)``.
    """
    model = to_model(graph, opset, variables=variables, drop_updates=drop_updates, name=name)
    if path is not None:
        try:
            _onnx().save_model(model, os.fspath(path))
        except (OSError, ValueError) as e:
            raise error_at(FgraphError, "onnx.save", f"cannot write {os.fspath(path)!r}: {e}") from None
    return model

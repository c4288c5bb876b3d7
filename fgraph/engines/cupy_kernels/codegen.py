"""CUDA source for fused element-wise groups: ``cupy.ElementwiseKernel`` and
``cupy.ReductionKernel`` arguments generated from a fused node's ``expr``.

A fused expression (see ``fgraph.ops.fused``) becomes one device function::

    __device__ __forceinline__ float fg_fused_1a2b3c(const float x0, const double x1) {
      const double t0 = (((double)x0) * x1);
      const float t1 = ((float)tanh(t0));
      return t1;
    }

called by the kernel's operation (``y = fg_fused_1a2b3c(x0, x1)``) or used
as a reduction's map expression.  Typing follows NumPy exactly: every
instruction's operands are cast to the loop dtypes NumPy's ufunc resolution
picks (NEP 50: weak Python literals take the array's type), and the result
is the instruction's dtype.  float32 loops call the ``f`` functions (sinf);
Python literals are inlined as typed constants (bit patterns for inf/nan);
integer division, remainder, shifts and powers follow NumPy's definitions
(helpers in ``PRELUDE``); broadcasting is left to CuPy.  The source uses
only C++ and a few CUDA intrinsics (``__longlong_as_double``, ``__popcll``),
so the tests compile it with g++ (with shims for those) and run it on the
CPU against NumPy.

Complex and float16 groups raise ``Unsupported``: the engine then runs the
group's ops one by one with CuPy's own ufuncs.

``OPS`` is the table op -> CUDA expression; every op whose ``fusable``
attribute is set is in it, or is an expansion (fma, adagrad) or a fused
group itself.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...ops.elementwise import UFUNCS
from ...shape import ufunc_dtypes


class Unsupported(Exception):
    """The expression has no generated kernel (the engine falls back to per-op CuPy calls)."""


#: NumPy dtype -> the C type CuPy uses for it
CTYPES = {np.dtype(k): v for k, v in {
    "bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
    "uint16": "unsigned short", "int32": "int", "uint32": "unsigned int", "int64": "long long",
    "uint64": "unsigned long long", "float32": "float", "float64": "double"}.items()}
F32, F64, BOOL = np.dtype("float32"), np.dtype("float64"), np.dtype("bool")

#: nvrtc options for every generated kernel: a*b+c rounds twice, as in NumPy
OPTIONS = ("--fmad=false",)


# ---------------------------------------------------------------- inputs

@dataclass(frozen=True)
class Input:
    """One input of a fused group: an ``array`` (a kernel parameter) or a
    ``const`` (a literal inlined into the source; ``weak`` under NEP 50)."""

    kind: str
    dtype: np.dtype
    value: object = None
    weak: bool = False

    @property
    def shape(self):  # what ufunc_dtypes' promotion looks at besides dtype and weak
        return ()


def input_of(x) -> Input:
    """The Input for a runtime argument of a fused kernel."""
    t = type(x)
    if t is bool or t is int or t is float:
        return Input("const", np.asarray(x).dtype if t is not int else np.dtype(np.int64), x, True)
    if t is complex:
        raise Unsupported("complex literal")
    return Input("array", np.dtype(x.dtype))


def input_of_node(node) -> Input:
    """The Input for a fused node's input node (its literal values are known)."""
    if node.op == "literal":
        return Input("const", node.dtype, node.param("value").value, bool(node.weak))
    return Input("array", node.dtype)


class _Aval:
    """An abstract operand for NumPy's loop resolution."""

    shape = ()

    def __init__(self, dtype, weak=False):
        self.dtype, self.weak = np.dtype(dtype), weak


# ---------------------------------------------------------------- C fragments

def ctype(dt) -> str:
    dt = np.dtype(dt)
    if dt not in CTYPES:
        raise Unsupported(f"dtype {dt}")
    return CTYPES[dt]


def cast(expr: str, src, dst) -> str:
    """``expr`` (of dtype ``src``) converted as NumPy's casting converts."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return expr
    if dst == BOOL:
        return f"(({expr}) != 0)"
    return f"(({ctype(dst)})({expr}))"


def literal(value, dt) -> str:
    """A Python or NumPy scalar as a constant of dtype ``dt``."""
    dt = np.dtype(dt)
    if dt == BOOL:
        return "true" if value else "false"
    if dt.kind in "iu":
        v = int(value)
        if dt.kind == "i" and v == -2 ** 63:
            return "(-9223372036854775807LL - 1)"
        return f"(({ctype(dt)})({v}{'ULL' if dt.kind == 'u' or v >= 2 ** 63 else 'LL'}))"
    if dt.kind == "f":
        v = float(value)
        if math.isfinite(v):
            text = repr(v)
        else:
            bits = int(np.float64(v).view(np.uint64))
            text = f"__longlong_as_double((long long)0x{bits:016x}ULL)"
        return f"(({ctype(dt)})({text}))"
    raise Unsupported(f"literal of dtype {dt}")


def fcall(name: str, dt, *args) -> str:
    """A C math function of ``dt``: the float form (sinf) for float32."""
    return f"{name}{'f' if np.dtype(dt) == F32 else ''}({', '.join(args)})"


# ---------------------------------------------------------------- the op table
#
# Each entry: (args, ins, out, params) -> C expression, where ``args`` are
# the operands already cast to the loop dtypes ``ins`` and ``out`` is the
# instruction's dtype.

Emit = Callable[[list, tuple, np.dtype, dict], str]
OPS: dict[str, Emit] = {}


def _kind(dt) -> str:
    return np.dtype(dt).kind


def _float_fn(c_name: str) -> Emit:
    return lambda a, ins, out, p: fcall(c_name, ins[0], *a)


def _int_identity_or(c_name: str) -> Emit:
    """floor/ceil/trunc/rint: the identity on integer loops."""
    return lambda a, ins, out, p: a[0] if _kind(ins[0]) in "biu" else fcall(c_name, ins[0], a[0])


def _binop(op: str, bool_op: str | None = None) -> Emit:
    return lambda a, ins, out, p: f"({a[0]} {bool_op if bool_op and ins[0] == BOOL else op} {a[1]})"


def _compare(op: str, helper: str) -> Emit:
    def emit(a, ins, out, p):
        if ins[0] != ins[1]:  # NumPy's exact mixed int64/uint64 loops: C would convert to unsigned
            return f"{helper}({a[0]}, {a[1]})"
        return f"({a[0]} {op} {a[1]})"
    return emit


def _by_kind(ints: str, floats: str, bools: str | None = None) -> Emit:
    """A template by loop kind: {0}, {1} the operands, {f} the 'f' suffix, {T} the C type."""
    def emit(a, ins, out, p):
        k = _kind(ins[0])
        tpl = bools if k == "b" and bools is not None else floats if k == "f" else ints
        return tpl.format(*a, f="f" if ins[0] == F32 else "", T=ctype(ins[0]))
    return emit


def _multi(outputs: tuple) -> Emit:
    """divmod/modf/frexp: the emitter of the selected output."""
    return lambda a, ins, out, p: outputs[p.get("output", 0)](a, ins, out, p)


_floor_divide = _by_kind("fg_floor_divide({0}, {1})", "fg_floor_divide_f({0}, {1})")
_remainder = _by_kind("fg_remainder({0}, {1})", "fg_remainder_f({0}, {1})")

OPS.update({
    "add": _binop("+", "||"),
    "subtract": _binop("-"),
    "multiply": _binop("*", "&&"),
    "divide": _binop("/"),
    "floor_divide": _floor_divide,
    "remainder": _remainder,
    "fmod": _by_kind("fg_fmod({0}, {1})", "fmod{f}({0}, {1})"),
    "divmod": _multi((_floor_divide, _remainder)),
    "power": _by_kind("fg_ipow({0}, {1})", "pow{f}({0}, {1})"),
    "float_power": _float_fn("pow"),
    "negative": lambda a, ins, out, p: f"(-{a[0]})",
    "positive": lambda a, ins, out, p: f"(+{a[0]})",
    "absolute": _by_kind("fg_abs({0})", "fabs{f}({0})", "{0}"),
    "fabs": _float_fn("fabs"),
    "conjugate": lambda a, ins, out, p: a[0],
    "sign": _by_kind("fg_sign({0})", "fg_sign_f({0})"),
    "heaviside": lambda a, ins, out, p: f"fg_heaviside({a[0]}, {a[1]})",
    "rint": _int_identity_or("rint"),
    "floor": _int_identity_or("floor"),
    "ceil": _int_identity_or("ceil"),
    "trunc": _int_identity_or("trunc"),
    "square": lambda a, ins, out, p: f"({a[0]} * {a[0]})",
    "reciprocal": _by_kind("fg_reciprocal({0})", "(({T})1 / {0})"),
    "sqrt": _float_fn("sqrt"), "cbrt": _float_fn("cbrt"),
    "exp": _float_fn("exp"), "exp2": _float_fn("exp2"), "expm1": _float_fn("expm1"),
    "log": _float_fn("log"), "log2": _float_fn("log2"), "log10": _float_fn("log10"), "log1p": _float_fn("log1p"),
    "sin": _float_fn("sin"), "cos": _float_fn("cos"), "tan": _float_fn("tan"),
    "arcsin": _float_fn("asin"), "arccos": _float_fn("acos"), "arctan": _float_fn("atan"),
    "sinh": _float_fn("sinh"), "cosh": _float_fn("cosh"), "tanh": _float_fn("tanh"),
    "arcsinh": _float_fn("asinh"), "arccosh": _float_fn("acosh"), "arctanh": _float_fn("atanh"),
    "arctan2": _float_fn("atan2"), "hypot": _float_fn("hypot"),
    "copysign": _float_fn("copysign"), "nextafter": _float_fn("nextafter"),
    "spacing": lambda a, ins, out, p: f"fg_spacing({a[0]})",
    "ldexp": lambda a, ins, out, p: f"fg_ldexp({a[0]}, {a[1]})",
    "frexp": _multi((lambda a, ins, out, p: f"fg_frexp_mantissa({a[0]})",
                     lambda a, ins, out, p: f"fg_frexp_exponent({a[0]})")),
    "modf": _multi((lambda a, ins, out, p: f"fg_modf_fraction({a[0]})",
                    lambda a, ins, out, p: f"fg_modf_integral({a[0]})")),
    "logaddexp": lambda a, ins, out, p: f"fg_logaddexp({a[0]}, {a[1]})",
    "logaddexp2": lambda a, ins, out, p: f"fg_logaddexp2({a[0]}, {a[1]})",
    # NumPy: x * (pi / 180) with the constant folded in the loop's type
    "deg2rad": _by_kind("", "({0} * (({T})3.14159265358979323846 / ({T})180))"),
    "radians": _by_kind("", "({0} * (({T})3.14159265358979323846 / ({T})180))"),
    "rad2deg": _by_kind("", "({0} * (({T})180 / ({T})3.14159265358979323846))"),
    "degrees": _by_kind("", "({0} * (({T})180 / ({T})3.14159265358979323846))"),
    "gcd": lambda a, ins, out, p: f"fg_gcd({a[0]}, {a[1]})",
    "lcm": lambda a, ins, out, p: f"fg_lcm({a[0]}, {a[1]})",
    "bitwise_and": _binop("&"), "bitwise_or": _binop("|"), "bitwise_xor": _binop("^"),
    "invert": _by_kind("(~{0})", "", "(!{0})"),
    "left_shift": lambda a, ins, out, p: f"fg_left_shift({a[0]}, {a[1]})",
    "right_shift": lambda a, ins, out, p: f"fg_right_shift({a[0]}, {a[1]})",
    "bitwise_count": lambda a, ins, out, p: f"fg_popcount({a[0]})",
    "equal": _compare("==", "fg_eq"), "not_equal": _compare("!=", "fg_ne"),
    "less": _compare("<", "fg_lt"), "less_equal": _compare("<=", "fg_le"),
    "greater": _compare(">", "fg_gt"), "greater_equal": _compare(">=", "fg_ge"),
    "logical_and": lambda a, ins, out, p: f"(({a[0]} != 0) && ({a[1]} != 0))",
    "logical_or": lambda a, ins, out, p: f"(({a[0]} != 0) || ({a[1]} != 0))",
    "logical_xor": lambda a, ins, out, p: f"(({a[0]} != 0) != ({a[1]} != 0))",
    "logical_not": lambda a, ins, out, p: f"(!({a[0]} != 0))",
    "maximum": _by_kind("({0} > {1} ? {0} : {1})", "fg_maximum({0}, {1})"),
    "minimum": _by_kind("({0} < {1} ? {0} : {1})", "fg_minimum({0}, {1})"),
    "fmax": _by_kind("({0} > {1} ? {0} : {1})", "fg_fmax({0}, {1})"),
    "fmin": _by_kind("({0} < {1} ? {0} : {1})", "fg_fmin({0}, {1})"),
    "isnan": _by_kind("false", "isnan({0})", "false"),
    "isinf": _by_kind("false", "isinf({0})", "false"),
    "isfinite": _by_kind("true", "isfinite({0})", "true"),
    "signbit": _by_kind("({0} < 0)", "signbit({0})", "false"),
    # not ufuncs
    "where": lambda a, ins, out, p: f"({a[0]} ? {a[1]} : {a[2]})",
    "clip": _by_kind("fg_clip({0}, {1}, {2})", "fg_clip_f({0}, {1}, {2})"),
    "round": lambda a, ins, out, p: _round(a[0], ins[0], out, p.get("decimals", 0)),
    "fix": _int_identity_or("trunc"),
    "astype": lambda a, ins, out, p: cast(a[0], ins[0], out),  # the cast is the op
    "real": lambda a, ins, out, p: cast(a[0], ins[0], out),
    "imag": lambda a, ins, out, p: literal(0, out),
})


def _round(x: str, dt, out, decimals: int) -> str:
    """np.round: rint(x * 10**d) / 10**d (d < 0: rint(x / 10**-d) * 10**-d), in
    the float type; integers: unchanged for d >= 0, else through float64."""
    if _kind(dt) in "biu":
        if decimals >= 0:
            return x
        f = literal(10.0 ** -decimals, F64)
        return cast(f"(rint((double){x} / {f}) * {f})", F64, out)
    if decimals == 0:
        return fcall("rint", dt, x)
    f = literal(10.0 ** abs(decimals), dt)
    r = fcall("rint", dt, f"({x} * {f})" if decimals > 0 else f"({x} / {f})")
    return f"({r} / {f})" if decimals > 0 else f"({r} * {f})"


#: ops a fused expression never holds as themselves (expanded, or flattened)
EXPANDED = ("fma", "adagrad", "fused")


def loop_types(op: str, params: dict, avals: list, out) -> tuple:
    """The dtypes NumPy computes ``op`` in: (operand dtypes, result dtype)."""
    out = np.dtype(out)
    u = UFUNCS.get(op)
    if u is not None:
        dts = ufunc_dtypes(u, avals, params.get("dtype"))
        return tuple(dts[:u.nin]), dts[u.nin + params.get("output", 0)]
    if op == "where":
        return (BOOL, out, out), out
    if op == "clip":
        dts = ufunc_dtypes(np._core.umath.clip, avals)
        return tuple(dts[:3]), dts[3]
    if op == "fix":
        return (out,), out
    if op in ("round", "astype", "real", "imag"):
        return (avals[0].dtype,), out
    raise Unsupported(f"op {op!r} has no CUDA form")


# ---------------------------------------------------------------- the device function

@dataclass(frozen=True)
class Function:
    """A fused expression as one C++ device function."""

    name: str
    source: str  # the function's definition
    params: tuple  # (Input, C parameter name) for the array inputs, in order
    out: np.dtype


def function(expr: tuple, inputs: list) -> Function:
    """The device function computing ``expr`` over ``inputs`` (Input objects)."""
    for i in inputs:
        ctype(i.dtype)  # Unsupported for complex / float16 inputs
    names, avals, params = [], [], []
    for k, i in enumerate(inputs):
        if i.kind == "array":
            names.append(f"x{k}")
            params.append((i, f"x{k}"))
        else:
            names.append(None)  # a literal: inlined where used, typed by its loop
        avals.append(_Aval(i.dtype, i.weak))
    lines = []
    temps = []  # (C name, dtype) of each instruction's value
    for t, (op, args, p, dt) in enumerate(expr):
        emit = OPS.get(op)
        if emit is None:
            raise Unsupported(f"op {op!r} has no CUDA form")
        p = dict(p)
        dt = np.dtype(dt)
        ctype(dt)
        operands = [avals[-1 - a] if a < 0 else _Aval(temps[a][1]) for a in args]
        ins, res = loop_types(op, p, operands, dt)
        cargs = []
        for a, want in zip(args, ins):
            ctype(want)
            if a < 0:
                i = inputs[-1 - a]
                if i.kind == "const":
                    cargs.append(literal(i.value, want))
                    continue
                cargs.append(cast(names[-1 - a], i.dtype, want))
            else:
                cargs.append(cast(temps[a][0], temps[a][1], want))
        value = emit(cargs, tuple(np.dtype(d) for d in ins), np.dtype(res), p)
        lines.append(f"  const {ctype(dt)} t{t} = {cast(value, res, dt)};")
        temps.append((f"t{t}", dt))
    out = np.dtype(expr[-1][3])
    sig = ", ".join(f"const {ctype(i.dtype)} {n}" for i, n in params)
    body = "\n".join(lines)
    digest = hashlib.sha1(f"{sig}\n{body}".encode()).hexdigest()[:12]
    name = f"fg_fused_{digest}"
    src = f"__device__ __forceinline__ {ctype(out)} {name}({sig}) {{\n{body}\n  return t{len(expr) - 1};\n}}\n"
    return Function(name, src, tuple(params), out)


# ---------------------------------------------------------------- kernels

@dataclass(frozen=True)
class ElementwiseSource:
    """The arguments of ``cupy.ElementwiseKernel``."""

    in_params: str
    out_params: str
    operation: str
    name: str
    preamble: str


def elementwise(expr: tuple, inputs: list) -> ElementwiseSource:
    """``cupy.ElementwiseKernel(in_params, out_params, operation, name,
    preamble=preamble)`` for a fused group; call it with the array inputs
    (in order) and the output array."""
    fn = function(expr, inputs)
    in_params = ", ".join(f"{i.dtype.name} {n}" for i, n in fn.params)
    args = ", ".join(n for _, n in fn.params)
    return ElementwiseSource(in_params, f"{fn.out.name} y", f"y = {fn.name}({args})", fn.name + "_k",
                             PRELUDE + fn.source)


@dataclass(frozen=True)
class ReductionSource:
    """The arguments of ``cupy.ReductionKernel``."""

    in_params: str
    out_params: str
    map_expr: str
    reduce_expr: str
    post_map_expr: str
    identity: str
    reduce_type: str
    name: str
    preamble: str


REDUCTIONS = ("sum", "prod", "mean", "max", "min", "any", "all")


def reduction(expr: tuple, inputs: list, reduce: str, out_dtype, count: int) -> ReductionSource:
    """``cupy.ReductionKernel`` arguments for a fused group reduced by
    ``reduce`` (into ``out_dtype``) over ``count`` elements per output.

    sum/prod accumulate in the result dtype (as NumPy's pairwise loops do;
    GPU order differs); mean divides in double and rounds, as NumPy's
    ``true_divide(sum, intp count)``; max/min propagate NaN."""
    if reduce not in REDUCTIONS:
        raise Unsupported(f"reduction {reduce!r}")
    fn = function(expr, inputs)
    out = np.dtype(out_dtype)
    call = f"{fn.name}({', '.join(n for _, n in fn.params)})"
    red = BOOL if reduce in ("any", "all") else out
    r = ctype(red)
    if reduce in ("any", "all"):
        map_expr = f"({call} != 0)"
    else:
        map_expr = cast(call, fn.out, red)
    if reduce == "sum" or reduce == "mean":
        red_expr, identity = "a + b", literal(0, red)
    elif reduce == "prod":
        red_expr, identity = "a * b", literal(1, red)
    elif reduce in ("any", "all"):
        red_expr, identity = ("a || b", "false") if reduce == "any" else ("a && b", "true")
    else:
        big = reduce == "min"
        if red.kind == "f":
            red_expr = f"fg_{'min' if big else 'max'}_nan(a, b)"
            identity = literal(math.inf if big else -math.inf, red)
        elif red == BOOL:
            red_expr, identity = ("a && b", "true") if big else ("a || b", "false")
        else:
            red_expr = f"(a {'<' if big else '>'} b ? a : b)"
            info = np.iinfo(red)
            identity = literal(info.max if big else info.min, red)
    if reduce == "mean":
        post = f"y = {cast(f'(double)a / (double){count}', F64, out)}"
    else:
        post = f"y = {cast('a', red, out)}"
    in_params = ", ".join(f"{i.dtype.name} {n}" for i, n in fn.params)
    return ReductionSource(in_params, f"{out.name} y", map_expr, red_expr, post, identity, r,
                           f"{fn.name}_{reduce}", PRELUDE + fn.source)


# ---------------------------------------------------------------- helpers used by the table

PRELUDE = r"""
// fgraph: NumPy's definitions of the element-wise ops that C does not have
template <typename T> __device__ __forceinline__ T fg_floor_divide(T a, T b) {
  if (b == 0) return 0;
  if ((T)-1 < 0 && b == (T)-1) return (T)(0 - (unsigned long long)a);  // MIN // -1 wraps, as NumPy
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}
template <typename T> __device__ __forceinline__ T fg_remainder(T a, T b) {
  if (b == 0) return 0;
  if ((T)-1 < 0 && b == (T)-1) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <typename T> __device__ __forceinline__ T fg_fmod(T a, T b) {
  if (b == 0) return 0;
  if ((T)-1 < 0 && b == (T)-1) return 0;
  return a % b;
}
template <typename T> __device__ __forceinline__ T fg_divmod_f(T a, T b, T *mod_out) {
  T mod = fmod(a, b);
  if (!b) { *mod_out = mod; return a / b; }
  T div = (a - mod) / b;
  if (mod) {
    if ((b < 0) != (mod < 0)) { mod += b; div -= (T)1; }
  } else {
    mod = copysign((T)0, b);
  }
  T floordiv;
  if (div) {
    floordiv = floor(div);
    if (div - floordiv > (T)0.5) floordiv += (T)1;
  } else {
    floordiv = copysign((T)0, a / b);
  }
  *mod_out = mod;
  return floordiv;
}
template <typename T> __device__ __forceinline__ T fg_floor_divide_f(T a, T b) {
  T mod;
  return fg_divmod_f(a, b, &mod);
}
template <typename T> __device__ __forceinline__ T fg_remainder_f(T a, T b) {
  if (!b) return fmod(a, b);
  T mod;
  fg_divmod_f(a, b, &mod);
  return mod;
}
template <typename T> __device__ __forceinline__ T fg_ipow(T base, T exp) {
  if (exp < 0) return (base == 1) ? 1 : (base == (T)-1 ? ((exp & 1) ? (T)-1 : 1) : 0);
  T r = 1;
  unsigned long long e = (unsigned long long)exp;
  while (e) {
    if (e & 1) r = (T)(r * base);
    base = (T)(base * base);
    e >>= 1;
  }
  return r;
}
template <typename T> __device__ __forceinline__ T fg_abs(T a) { return a < 0 ? (T)(0 - a) : a; }
template <typename T> __device__ __forceinline__ T fg_sign(T a) { return (T)((a > 0) - (a < 0)); }
template <typename T> __device__ __forceinline__ T fg_sign_f(T a) {
  return a > 0 ? (T)1 : (a < 0 ? (T)-1 : (a == 0 ? (T)0 : a));
}
template <typename T> __device__ __forceinline__ T fg_heaviside(T x, T h0) {
  return x < 0 ? (T)0 : (x > 0 ? (T)1 : (x == 0 ? h0 : x));
}
template <typename T> __device__ __forceinline__ T fg_reciprocal(T a) {
  // 1 / a truncated; 1 / 0 is platform-defined in NumPy (a float inf converted): 0 here
  return (a == 1 || (T)-1 < 0 && a == (T)-1) ? a : (T)0;
}
template <typename T> __device__ __forceinline__ T fg_spacing(T x) {
  if (isinf(x)) return x - x;  // NaN
  if (x == 0) return nextafter((T)0, (T)1);  // the smallest subnormal, for -0.0 too
  return nextafter(x, copysign((T)1 / (T)0, x)) - x;
}
template <typename T, typename I> __device__ __forceinline__ T fg_ldexp(T x, I e) {
  long long k = (long long)e;
  return ldexp(x, (int)(k > 2147483647LL ? 2147483647LL : (k < -2147483647LL - 1 ? -2147483647LL - 1 : k)));
}
template <typename T> __device__ __forceinline__ T fg_frexp_mantissa(T x) {
  int e;
  return isfinite(x) ? frexp(x, &e) : x;
}
template <typename T> __device__ __forceinline__ int fg_frexp_exponent(T x) {
  int e = 0;
  if (isfinite(x)) frexp(x, &e);
  return e;
}
template <typename T> __device__ __forceinline__ T fg_modf_fraction(T x) {
  T i;
  return modf(x, &i);
}
template <typename T> __device__ __forceinline__ T fg_modf_integral(T x) {
  T i;
  modf(x, &i);
  return i;
}
template <typename T> __device__ __forceinline__ T fg_logaddexp(T x, T y) {
  if (x == y) return x + (T)0.693147180559945309417232121458176568;
  T d = x - y;
  if (d > 0) return x + log1p(exp(-d));
  if (d <= 0) return y + log1p(exp(d));
  return d;
}
template <typename T> __device__ __forceinline__ T fg_logaddexp2(T x, T y) {
  if (x == y) return x + (T)1;
  T d = x - y;
  if (d > 0) return x + (T)1.442695040888963407359924681001892137 * log1p(exp2(-d));
  if (d <= 0) return y + (T)1.442695040888963407359924681001892137 * log1p(exp2(d));
  return d;
}
template <typename T> __device__ __forceinline__ T fg_gcd(T a, T b) {
  unsigned long long x = a < 0 ? 0ULL - (unsigned long long)a : (unsigned long long)a;
  unsigned long long y = b < 0 ? 0ULL - (unsigned long long)b : (unsigned long long)b;
  while (y) { unsigned long long t = x % y; x = y; y = t; }
  return (T)x;
}
template <typename T> __device__ __forceinline__ T fg_lcm(T a, T b) {
  // NumPy: on the absolute values, unsigned (so an overflow shows as a negative result)
  unsigned long long x = a < 0 ? 0ULL - (unsigned long long)a : (unsigned long long)a;
  unsigned long long y = b < 0 ? 0ULL - (unsigned long long)b : (unsigned long long)b;
  unsigned long long g = (unsigned long long)fg_gcd(a, b) & (~0ULL >> (64 - 8 * sizeof(T)));
  return g == 0 ? (T)0 : (T)(x / g * y);
}
template <typename T, typename S> __device__ __forceinline__ T fg_left_shift(T a, S b) {
  // NumPy: shifts by the width or more (or negative) give 0
  if (b < 0 || (unsigned long long)b >= sizeof(T) * 8) return 0;
  return (T)((unsigned long long)a << b);
}
template <typename T, typename S> __device__ __forceinline__ T fg_right_shift(T a, S b) {
  if (b < 0 || (unsigned long long)b >= sizeof(T) * 8) return a < 0 ? (T)-1 : (T)0;
  return (T)(a >> b);
}
template <typename T> __device__ __forceinline__ unsigned char fg_popcount(T a) {
  unsigned long long u = a < 0 ? 0ULL - (unsigned long long)(long long)a : (unsigned long long)a;
  return (unsigned char)__popcll(u);
}
// NumPy's exact comparisons of int64 with uint64
__device__ __forceinline__ bool fg_lt(long long a, unsigned long long b) { return a < 0 || (unsigned long long)a < b; }
__device__ __forceinline__ bool fg_lt(unsigned long long a, long long b) { return b >= 0 && a < (unsigned long long)b; }
__device__ __forceinline__ bool fg_eq(long long a, unsigned long long b) { return a >= 0 && (unsigned long long)a == b; }
__device__ __forceinline__ bool fg_eq(unsigned long long a, long long b) { return b >= 0 && a == (unsigned long long)b; }
template <typename A, typename B> __device__ __forceinline__ bool fg_gt(A a, B b) { return fg_lt(b, a); }
template <typename A, typename B> __device__ __forceinline__ bool fg_le(A a, B b) { return !fg_lt(b, a); }
template <typename A, typename B> __device__ __forceinline__ bool fg_ge(A a, B b) { return !fg_lt(a, b); }
template <typename A, typename B> __device__ __forceinline__ bool fg_ne(A a, B b) { return !fg_eq(a, b); }
// NumPy's float maximum/minimum propagate NaN (and give the second operand on ties);
// fmax/fmin ignore it
template <typename T> __device__ __forceinline__ T fg_maximum(T a, T b) { return (a > b || isnan(a)) ? a : b; }
template <typename T> __device__ __forceinline__ T fg_minimum(T a, T b) { return (a < b || isnan(a)) ? a : b; }
template <typename T> __device__ __forceinline__ T fg_fmax(T a, T b) { return (a > b || isnan(b)) ? a : b; }
template <typename T> __device__ __forceinline__ T fg_fmin(T a, T b) { return (a < b || isnan(b)) ? a : b; }
template <typename T> __device__ __forceinline__ T fg_max_nan(T a, T b) { return (a > b || a != a) ? a : b; }
template <typename T> __device__ __forceinline__ T fg_min_nan(T a, T b) { return (a < b || a != a) ? a : b; }
// np.clip: min(max(x, lo), hi), where a NaN on the left wins (_NPY_MAX/_NPY_MIN)
template <typename T> __device__ __forceinline__ T fg_clip(T x, T lo, T hi) {
  T t = x > lo ? x : lo;
  return t < hi ? t : hi;
}
template <typename T> __device__ __forceinline__ T fg_clip_f(T x, T lo, T hi) {
  T t = isnan(x) ? x : (x > lo ? x : lo);
  return isnan(t) ? t : (t < hi ? t : hi);
}
"""

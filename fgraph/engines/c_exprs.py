"""NumPy's element-wise ops written in C once, for both C generators.

The native CPU generator (:mod:`fgraph.engines.numpy_kernels.native`) and
the CUDA generator (:mod:`fgraph.engines.cupy_kernels.codegen`) take each
op's C from this one table (tinygrad's renderer pattern: op -> template),
through :func:`render`.  Where the two targets must spell something
differently, the entry asks its :class:`Target` (a small, dtype-aware hook)
instead of hard-coding it:

- C types: ``uint8_t``/``int32_t``/... on the CPU, CuPy's ``bool``/``int``/...
  on CUDA (``{T}``, :meth:`Target.ctype`);
- booleans: a CPU bool is a ``uint8_t`` 0/1 combined branch-free with
  ``& | ^`` (so loops vectorise), a CUDA bool is ``bool`` with ``&& || !=``
  (:meth:`Target.boolean`, ``AND``/``OR``/``XOR``, :meth:`Target.not_`);
- ordered float comparisons: quiet on the CPU (``__builtin_isless``: a NaN
  operand must not raise FE_INVALID, which the native kernel reports as
  NumPy would), the plain operator on the GPU (no IEEE flags there);
- float classification: comparisons on the CPU (``fabsf(x) == INFINITY``,
  vectorisable, no libm call), the device functions on CUDA (``isinf``);
- math functions: ``sinf`` for float32 loops, ``sin`` for float64 (``{f}``,
  :meth:`Ctx.fn`), on both;
- helpers: NumPy definitions C lacks (``fg_floor_divide``, ...) are in
  :data:`PRELUDE`, the CUDA target's preamble; the CPU target has no
  helpers: there an entry naming one has no C form, and the native kernel
  calls NumPy's own inner loop instead.

The CPU target also renders only the entries it has checked bit for bit
against NumPy's loops (:data:`CPU_EXACT`, by op and loop kind: exact IEEE
operations, integer arithmetic, selections); every other op calls NumPy's
own loop there, which is exact by construction (its SIMD transcendental
functions, for one, differ from libm by a few ULP).  Widening that set is a
separate, measured change.

Entry format (a built-in entry here, or an op's own ``c_expr`` attribute:
``OpDef(..., c_expr=...)`` in its family file, which wins over a built-in
one and needs no import of this module):

- a ``str``: a C expression template.  ``{0}``, ``{1}``, ... are the
  operands, already converted to the loop's input dtypes; ``{T}`` is the C
  type of the loop's result; ``{f}`` is ``"f"`` when the first operand is
  float32 (``"sqrt{f}({0})"`` -> ``sqrtf(x)``), else ``""``.  Example:
  ``c_expr="({0} * {0} * {0})"``.
- a ``dict`` from loop kinds to entries: each key is a string of NumPy
  dtype kinds (``"b"`` bool, ``"i"`` signed, ``"u"`` unsigned, ``"f"``
  float), matched against the first operand's dtype; a kind no key names has
  no C form.  Example: ``{"iu": "({0} >> 1)", "f": "ldexp{f}({0}, -1)"}``.
- a callable ``emit(c, a) -> str | None``: ``a`` the operands' C
  expressions, ``c`` a :class:`Ctx` (``c.target``, ``c.ins`` the loop's input
  dtypes, ``c.out`` its result dtype, ``c.kind``, ``c.params``, ``c.T``,
  ``c.f``, and the hooks ``c.fn(name, *args)``, ``c.boolean(e)``,
  ``c.cast(e, src, dst)``, ``c.literal(v, dt)``, ...).  None: no C form.

The operands of a ufunc arrive in NumPy's loop dtypes (its type resolution,
NEP 50); those of an op that is no ufunc arrive in the op's result dtype.
The rendered expression must compute NumPy's result bit for bit (the CPU
generator compiles without FMA contraction and fast-math; CUDA with
``--fmad=false``).  An expression naming an ``fg_`` helper the target does
not define has no C form there.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable, Mapping

import numpy as np

from ..registry import attr_table

F32, F64, BOOL = np.dtype("float32"), np.dtype("float64"), np.dtype("bool")


class NoForm(Exception):
    """The op (or its dtypes) has no C form on this target."""


# ---------------------------------------------------------------- targets

class Target:
    """What differs between the C dialects (see the module docstring)."""

    name = "?"
    #: C spellings of boolean and, or, xor between 0/1 values
    AND, OR, XOR = "&", "|", "^"
    TRUE, FALSE = "1", "0"
    #: the ``fg_`` helper functions the target's preamble defines
    helpers: frozenset = frozenset()

    def ctype(self, dt) -> str:
        raise NotImplementedError

    def boolean(self, expr: str) -> str:
        """``expr`` (0 or 1, any integer type) as the target's bool."""
        return expr

    def not_(self, x: str) -> str:
        """Logical not of a bool value."""
        raise NotImplementedError

    def ordered(self, sym: str, a: str, b: str) -> str:
        """The float comparison ``a sym b`` (sym one of < <= > >=), false on NaN."""
        return f"({a} {sym} {b})"

    def isnan(self, x: str, dt) -> str:
        return f"isnan({x})"

    def isinf(self, x: str, dt) -> str:
        return f"isinf({x})"

    def isfinite(self, x: str, dt) -> str:
        return f"isfinite({x})"

    def cast(self, expr: str, src, dst) -> str | None:
        """``expr`` (of dtype ``src``) converted as NumPy's unsafe cast; None: no C form."""
        raise NotImplementedError

    def literal(self, value, dt) -> str:
        raise NoForm(f"literal of dtype {dt} on {self.name}")

    def takes(self, op: str, kind: str, declared: bool) -> bool:
        """Whether this target renders ``op``'s entry for loops of ``kind``."""
        return True


_QUIET = {"<": "__builtin_isless", "<=": "__builtin_islessequal", ">": "__builtin_isgreater",
          ">=": "__builtin_isgreaterequal"}


class CpuTarget(Target):
    """The native CPU generator's C (C99, compiled with the system compiler)."""

    name = "cpu"
    CTYPES = {"b1": "uint8_t", "i4": "int32_t", "i8": "int64_t", "f4": "float", "f8": "double"}

    def ctype(self, dt) -> str:
        dt = np.dtype(dt)
        try:
            return self.CTYPES[f"{dt.kind}{dt.itemsize}"]
        except KeyError:
            raise NoForm(f"dtype {dt}") from None

    def boolean(self, expr: str) -> str:
        return f"(uint8_t){expr}"

    def not_(self, x: str) -> str:
        return f"(uint8_t)({x} ^ 1)"

    #: ordered comparisons by the values' bits (``FG_QCMP``, defined by the whole-step prelude) instead of
    #: ``__builtin_isless``: GCC 12 vectorises the builtins as signalling comparisons, so a NaN raises
    #: FE_INVALID; this form is quiet, and twice as slow (``CPU_QUIET``, a whole step's rerun)
    quiet_bits = False

    def ordered(self, sym: str, a: str, b: str) -> str:
        if self.quiet_bits:
            return f"FG_QCMP({a}, {sym}, {b})"
        return f"{_QUIET[sym]}({a}, {b})"

    def isnan(self, x: str, dt) -> str:
        return f"(uint8_t)({x} != {x})"

    def isinf(self, x: str, dt) -> str:
        return f"(uint8_t)({fn_name('fabs', dt)}({x}) == INFINITY)"

    def isfinite(self, x: str, dt) -> str:
        return f"(uint8_t){self.ordered('<', fn_name('fabs', dt) + f'({x})', 'INFINITY')}"

    def cast(self, expr: str, src, dst) -> str | None:
        """NaN and out-of-range float -> int casts are undefined in C: no form."""
        src, dst = np.dtype(src), np.dtype(dst)
        if (src.kind, src.itemsize) == (dst.kind, dst.itemsize):
            return expr
        if dst.kind == "b":
            return f"(uint8_t)({expr} != 0)"
        if src.kind == "f" and dst.kind in "iu":
            return None
        return f"({self.ctype(dst)})({expr})"

    def takes(self, op: str, kind: str, declared: bool) -> bool:
        return declared or kind in CPU_EXACT.get(op, "")


class CudaTarget(Target):
    """The CUDA generator's C++ (nvrtc, through CuPy's kernels)."""

    name = "cuda"
    AND, OR, XOR = "&&", "||", "!="
    TRUE, FALSE = "true", "false"
    #: NumPy dtype -> the C type CuPy uses for it
    CTYPES = {np.dtype(k): v for k, v in {
        "bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
        "uint16": "unsigned short", "int32": "int", "uint32": "unsigned int", "int64": "long long",
        "uint64": "unsigned long long", "float32": "float", "float64": "double"}.items()}

    def ctype(self, dt) -> str:
        dt = np.dtype(dt)
        if dt not in self.CTYPES:
            raise NoForm(f"dtype {dt}")
        return self.CTYPES[dt]

    def not_(self, x: str) -> str:
        return f"(!{x})"

    def cast(self, expr: str, src, dst) -> str:
        src, dst = np.dtype(src), np.dtype(dst)
        if src == dst:
            return expr
        if dst == BOOL:
            return f"(({expr}) != 0)"
        return f"(({self.ctype(dst)})({expr}))"

    def literal(self, value, dt) -> str:
        """A Python or NumPy scalar as a constant of dtype ``dt``."""
        dt = np.dtype(dt)
        if dt == BOOL:
            return "true" if value else "false"
        if dt.kind in "iu":
            v = int(value)
            if dt.kind == "i" and v == -2 ** 63:
                return "(-9223372036854775807LL - 1)"
            return f"(({self.ctype(dt)})({v}{'ULL' if dt.kind == 'u' or v >= 2 ** 63 else 'LL'}))"
        if dt.kind == "f":
            v = float(value)
            if math.isfinite(v):
                text = repr(v)
            else:
                bits = int(np.float64(v).view(np.uint64))
                text = f"__longlong_as_double((long long)0x{bits:016x}ULL)"
            return f"(({self.ctype(dt)})({text}))"
        raise NoForm(f"literal of dtype {dt}")


def fn_name(name: str, dt) -> str:
    """A C math function of ``dt``: the float form (sinf) for float32."""
    return name + ("f" if np.dtype(dt) == F32 else "")


# ---------------------------------------------------------------- rendering one op

class Ctx:
    """What an entry sees when it is rendered (see the module docstring)."""

    __slots__ = ("target", "ins", "out", "params", "kind", "T", "f")

    def __init__(self, target: Target, ins: tuple, out, params: Mapping):
        self.target, self.ins, self.out, self.params = target, ins, np.dtype(out), params
        self.kind = ins[0].kind if ins else self.out.kind
        self.T = target.ctype(self.out)
        self.f = "f" if ins and ins[0] == F32 else ""

    def fn(self, name: str, *args: str) -> str:
        """The math function ``name`` of the first operand's float type."""
        return f"{name}{self.f}({', '.join(args)})"

    def boolean(self, expr: str) -> str:
        return self.target.boolean(expr)

    def cast(self, expr: str, src, dst) -> str:
        got = self.target.cast(expr, src, dst)
        if got is None:
            raise NoForm(f"cast {np.dtype(src)} -> {np.dtype(dst)}")
        return got

    def literal(self, value, dt) -> str:
        return self.target.literal(value, dt)


Emit = Callable[[Ctx, list], "str | None"]
#: the built-in entries (see the module docstring for the format)
BUILTIN: dict[str, Any] = {}
_HELPER = re.compile(r"\b(fg_\w+)\(")


def entry(op: str):
    """``op``'s entry: its own ``c_expr`` attribute, else the built-in one (or None)."""
    got = attr_table("c_expr").get(op)
    return BUILTIN.get(op) if got is None else got


def declared(op: str) -> bool:
    """Whether ``op`` declares its own ``c_expr``."""
    return op in attr_table("c_expr")


def _apply(e, c: Ctx, a: list) -> str | None:
    if isinstance(e, dict):
        for kinds, sub in e.items():
            if c.kind in kinds:
                return _apply(sub, c, a)
        return None
    if isinstance(e, str):
        return e.format(*a, T=c.T, f=c.f)
    return e(c, a)


def render(op: str, target: Target, args: list, ins: tuple, out, params: Mapping | None = None) -> str | None:
    """The C expression computing ``op`` on ``target`` from operand
    expressions ``args`` of the loop dtypes ``ins`` into ``out``; None when
    the op (for these dtypes) has no C form there."""
    e = entry(op)
    if e is None:
        return None
    ins = tuple(np.dtype(d) for d in ins)
    kind = ins[0].kind if ins else np.dtype(out).kind
    if not target.takes(op, kind, e is not BUILTIN.get(op)):
        return None
    try:
        text = _apply(e, Ctx(target, ins, out, params or {}), list(args))
    except NoForm:
        return None
    if text is None or any(h not in target.helpers for h in _HELPER.findall(text)):
        return None
    return text


class Table(Mapping):
    """A live read-only view of every op's entry: the built-in ones and the
    ops' own ``c_expr`` attributes."""

    def __getitem__(self, op):
        e = entry(op)
        if e is None:
            raise KeyError(op)
        return e

    def __iter__(self):
        return iter(dict.fromkeys([*BUILTIN, *attr_table("c_expr")]))

    def __len__(self):
        return sum(1 for _ in self)


TABLE = Table()


# ---------------------------------------------------------------- the built-in entries

def _fn(name: str) -> Emit:
    return lambda c, a: c.fn(name, *a)


def _compare(sym: str, helper: str) -> Emit:
    def emit(c, a):
        if c.ins[0] != c.ins[1]:  # NumPy's exact mixed int64/uint64 loops: C would convert to unsigned
            return f"{helper}({a[0]}, {a[1]})"
        if c.kind == "f" and sym in _QUIET:
            return c.boolean(c.target.ordered(sym, a[0], a[1]))
        return c.boolean(f"({a[0]} {sym} {a[1]})")
    return emit


def _logical(which: str) -> Emit:
    return lambda c, a: c.boolean(f"(({a[0]} != 0) {getattr(c.target, which)} ({a[1]} != 0))")


def _bool_op(which: str) -> Emit:
    return lambda c, a: f"({a[0]} {getattr(c.target, which)} {a[1]})"


def _extremum(big: bool) -> dict:
    # NumPy's maximum/minimum: a NaN in either propagates, and of two equal
    # values (+0.0 and -0.0) the second is returned
    sym = ">" if big else "<"
    return {"b": _bool_op("OR" if big else "AND"),
            "iu": f"({{0}} {sym} {{1}} ? {{0}} : {{1}})",
            "f": lambda c, a: f"((isnan({a[0]}) || {c.target.ordered(sym, a[0], a[1])}) ? {a[0]} : {a[1]})"}


def _float_sign(c, a):
    x, T, t = a[0], c.T, c.target
    return f"({t.ordered('>', x, '0')} ? ({T})1 : ({t.ordered('<', x, '0')} ? ({T})-1 : ({x} == 0 ? ({T})0 : {x})))"


def _multi(outputs: tuple) -> Emit:
    """divmod/modf/frexp: the entry of the selected output."""
    return lambda c, a: _apply(outputs[c.params.get("output", 0)], c, a)


def _round(c, a):
    """np.round: rint(x * 10**d) / 10**d (d < 0: rint(x / 10**-d) * 10**-d), in
    the float type; integers: unchanged for d >= 0, else through float64."""
    x, dt, decimals = a[0], c.ins[0], c.params.get("decimals", 0)
    if dt.kind in "biu":
        if decimals >= 0:
            return x
        f = c.literal(10.0 ** -decimals, F64)
        return c.cast(f"(rint((double){x} / {f}) * {f})", F64, c.out)
    if decimals == 0:
        return c.fn("rint", x)
    f = c.literal(10.0 ** abs(decimals), dt)
    r = c.fn("rint", f"({x} * {f})" if decimals > 0 else f"({x} / {f})")
    return f"({r} / {f})" if decimals > 0 else f"({r} * {f})"


_FLOOR_DIVIDE = {"biu": "fg_floor_divide({0}, {1})", "f": "fg_floor_divide_f({0}, {1})"}
_REMAINDER = {"biu": "fg_remainder({0}, {1})", "f": "fg_remainder_f({0}, {1})"}
_INT_IDENTITY = {"biu": "{0}"}
_PI = "3.14159265358979323846"

BUILTIN.update({
    "add": {"b": _bool_op("OR"), "iuf": "({T})({0} + {1})"},
    "subtract": "({T})({0} - {1})",
    "multiply": {"b": _bool_op("AND"), "iuf": "({T})({0} * {1})"},
    "divide": "({0} / {1})",
    "floor_divide": _FLOOR_DIVIDE,
    "remainder": _REMAINDER,
    "fmod": {"biu": "fg_fmod({0}, {1})", "f": "fmod{f}({0}, {1})"},
    "divmod": _multi((_FLOOR_DIVIDE, _REMAINDER)),
    "power": {"biu": "fg_ipow({0}, {1})", "f": "pow{f}({0}, {1})"},
    "float_power": _fn("pow"),
    "negative": "({T})(-{0})",
    "positive": "{0}",
    "absolute": {"b": "{0}", "iu": "({T})({0} < 0 ? -{0} : {0})", "f": "fabs{f}({0})"},
    "fabs": _fn("fabs"),
    "conjugate": "{0}",
    "sign": {"biu": "({T})(({0} > 0) - ({0} < 0))", "f": _float_sign},
    "heaviside": "fg_heaviside({0}, {1})",
    "rint": {**_INT_IDENTITY, "f": _fn("rint")},
    "floor": {**_INT_IDENTITY, "f": _fn("floor")},
    "ceil": {**_INT_IDENTITY, "f": _fn("ceil")},
    "trunc": {**_INT_IDENTITY, "f": _fn("trunc")},
    "square": "({T})({0} * {0})",
    "reciprocal": {"biu": "fg_reciprocal({0})", "f": "(({T})1 / {0})"},
    "sqrt": _fn("sqrt"), "cbrt": _fn("cbrt"),
    "exp": _fn("exp"), "exp2": _fn("exp2"), "expm1": _fn("expm1"),
    "log": _fn("log"), "log2": _fn("log2"), "log10": _fn("log10"), "log1p": _fn("log1p"),
    "sin": _fn("sin"), "cos": _fn("cos"), "tan": _fn("tan"),
    "arcsin": _fn("asin"), "arccos": _fn("acos"), "arctan": _fn("atan"),
    "sinh": _fn("sinh"), "cosh": _fn("cosh"), "tanh": _fn("tanh"),
    "arcsinh": _fn("asinh"), "arccosh": _fn("acosh"), "arctanh": _fn("atanh"),
    "arctan2": _fn("atan2"), "hypot": _fn("hypot"),
    "copysign": _fn("copysign"), "nextafter": _fn("nextafter"),
    "spacing": "fg_spacing({0})",
    "ldexp": "fg_ldexp({0}, {1})",
    "frexp": _multi(("fg_frexp_mantissa({0})", "fg_frexp_exponent({0})")),
    "modf": _multi(("fg_modf_fraction({0})", "fg_modf_integral({0})")),
    "logaddexp": "fg_logaddexp({0}, {1})",
    "logaddexp2": "fg_logaddexp2({0}, {1})",
    # NumPy: x * (pi / 180) with the constant folded in the loop's type
    "deg2rad": {"f": f"({{0}} * (({{T}}){_PI} / ({{T}})180))"},
    "radians": {"f": f"({{0}} * (({{T}}){_PI} / ({{T}})180))"},
    "rad2deg": {"f": f"({{0}} * (({{T}})180 / ({{T}}){_PI}))"},
    "degrees": {"f": f"({{0}} * (({{T}})180 / ({{T}}){_PI}))"},
    "gcd": "fg_gcd({0}, {1})",
    "lcm": "fg_lcm({0}, {1})",
    "bitwise_and": "({0} & {1})", "bitwise_or": "({0} | {1})", "bitwise_xor": "({0} ^ {1})",
    "invert": {"b": lambda c, a: c.target.not_(a[0]), "iu": "({T})(~{0})"},
    "left_shift": "fg_left_shift({0}, {1})",
    "right_shift": "fg_right_shift({0}, {1})",
    "bitwise_count": "fg_popcount({0})",
    # == and != are quiet in C; ordered compares of floats are made quiet where IEEE flags are read
    "equal": _compare("==", "fg_eq"), "not_equal": _compare("!=", "fg_ne"),
    "less": _compare("<", "fg_lt"), "less_equal": _compare("<=", "fg_le"),
    "greater": _compare(">", "fg_gt"), "greater_equal": _compare(">=", "fg_ge"),
    "logical_and": _logical("AND"), "logical_or": _logical("OR"), "logical_xor": _logical("XOR"),
    "logical_not": lambda c, a: c.boolean(f"({a[0]} == 0)"),
    "maximum": _extremum(True),
    "minimum": _extremum(False),
    "fmax": {"biu": "({0} > {1} ? {0} : {1})", "f": "fg_fmax({0}, {1})"},
    "fmin": {"biu": "({0} < {1} ? {0} : {1})", "f": "fg_fmin({0}, {1})"},
    "isnan": {"biu": lambda c, a: c.target.FALSE, "f": lambda c, a: c.target.isnan(a[0], c.ins[0])},
    "isinf": {"biu": lambda c, a: c.target.FALSE, "f": lambda c, a: c.target.isinf(a[0], c.ins[0])},
    "isfinite": {"biu": lambda c, a: c.target.TRUE, "f": lambda c, a: c.target.isfinite(a[0], c.ins[0])},
    "signbit": {"b": lambda c, a: c.target.FALSE, "iu": "({0} < 0)", "f": "signbit({0})"},
    # not ufuncs
    "where": "({0} ? {1} : {2})",
    "clip": {"biu": "fg_clip({0}, {1}, {2})", "f": "fg_clip_f({0}, {1}, {2})"},
    "round": _round,
    "fix": {**_INT_IDENTITY, "f": _fn("trunc")},
    "astype": lambda c, a: c.cast(a[0], c.ins[0], c.out),  # the cast is the op
    "real": lambda c, a: c.cast(a[0], c.ins[0], c.out),
    "imag": lambda c, a: c.literal(0, c.out),
})

_COMPARE = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
_LOGICAL = ("logical_and", "logical_or", "logical_xor", "logical_not")
#: op -> the loop kinds (first operand) whose entry the native CPU generator
#: inlines: checked bit for bit against NumPy's loops by tests/test_native.py
#: (the CPU generator takes bool, int32/int64 and float32/float64 only);
#: every other op calls NumPy's own loop there
CPU_EXACT: dict[str, str] = {
    **{op: "bif" for op in _COMPARE + _LOGICAL + ("positive", "conjugate", "add", "multiply", "maximum",
                                                  "minimum", "absolute")},
    **{op: "bi" for op in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert")},
    **{op: "if" for op in ("subtract", "negative", "square")},
    "sign": "if",
    **{op: "f" for op in ("divide", "reciprocal", "sqrt", "fabs", "rint", "copysign", "isnan", "isinf", "isfinite",
                          "round")},
    "where": "b",
}

CPU = CpuTarget()
CPU_QUIET = CpuTarget()
CPU_QUIET.quiet_bits = True

# ---------------------------------------------------------------- helpers (the CUDA target's preamble)

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
// NumPy's float fmax/fmin ignore NaN (maximum/minimum, which propagate it, are written inline)
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

CUDA = CudaTarget()
CUDA.helpers = frozenset(re.findall(r"\b(fg_\w+)\(", PRELUDE))

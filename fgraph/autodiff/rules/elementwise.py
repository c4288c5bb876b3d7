"""Gradient rules of the element-wise ops, written with fgraph.numpy."""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from ...ops.elementwise import UFUNCS
from .. import defgrad

LN2, LN10 = float(np.log(2.0)), float(np.log(10.0))


def _unary(op, d):
    """Register ``op`` whose derivative is ``d(out, x)`` (times g)."""
    defgrad(op)(lambda out, ins, g, **p: (g * d(out, ins[0]),))


_unary("negative", lambda o, x: -1.0)
_unary("positive", lambda o, x: 1.0)
_unary("conjugate", lambda o, x: 1.0)
_unary("absolute", lambda o, x: fnp.sign(x))
_unary("fabs", lambda o, x: fnp.sign(x))
_unary("exp", lambda o, x: o)
_unary("exp2", lambda o, x: o * LN2)
_unary("expm1", lambda o, x: o + 1.0)
_unary("log", lambda o, x: 1.0 / x)
_unary("log2", lambda o, x: 1.0 / (x * LN2))
_unary("log10", lambda o, x: 1.0 / (x * LN10))
_unary("log1p", lambda o, x: 1.0 / (x + 1.0))
_unary("sqrt", lambda o, x: 0.5 / o)
_unary("cbrt", lambda o, x: 1.0 / (3.0 * o * o))
_unary("square", lambda o, x: 2.0 * x)
_unary("reciprocal", lambda o, x: -(o * o))
_unary("sin", lambda o, x: fnp.cos(x))
_unary("cos", lambda o, x: -fnp.sin(x))
_unary("tan", lambda o, x: 1.0 + o * o)
_unary("arcsin", lambda o, x: 1.0 / fnp.sqrt(1.0 - x * x))
_unary("arccos", lambda o, x: -1.0 / fnp.sqrt(1.0 - x * x))
_unary("arctan", lambda o, x: 1.0 / (1.0 + x * x))
_unary("sinh", lambda o, x: fnp.cosh(x))
_unary("cosh", lambda o, x: fnp.sinh(x))
_unary("tanh", lambda o, x: 1.0 - o * o)
_unary("arcsinh", lambda o, x: 1.0 / fnp.sqrt(x * x + 1.0))
_unary("arccosh", lambda o, x: 1.0 / fnp.sqrt(x * x - 1.0))
_unary("arctanh", lambda o, x: 1.0 / (1.0 - x * x))
_unary("deg2rad", lambda o, x: np.pi / 180.0)
_unary("radians", lambda o, x: np.pi / 180.0)
_unary("rad2deg", lambda o, x: 180.0 / np.pi)
_unary("degrees", lambda o, x: 180.0 / np.pi)


@defgrad("add")
def _add(out, ins, g):
    return g, g


@defgrad("subtract")
def _subtract(out, ins, g):
    return g, -g


@defgrad("multiply")
def _multiply(out, ins, g):
    a, b = ins
    return g * b, g * a


@defgrad("divide")
def _divide(out, ins, g, dtype=None):
    a, b = ins
    return g / b, -g * out / b


@defgrad("power", "float_power")
def _power(out, ins, g, dtype=None):
    a, b = ins
    # a Python exponent stays a Python scalar (x ** 2 -> 2 * x ** 1): a 0-d
    # int64 array would promote float32 to float64 under NEP 50
    bm1 = b.node.param("value").value - 1 if b.node.op == "literal" else b - 1
    da = g * b * fnp.power(a, bm1)
    # d/db a**b = a**b log(a); 0 where a == 0 (the limit from the right)
    db = fnp.where(a == 0, 0.0, g * out * fnp.log(fnp.where(a == 0, 1.0, a)))
    return da, db


@defgrad("maximum", "fmax")
def _maximum(out, ins, g):
    a, b = ins
    first = a >= b  # ties go to the first argument
    return fnp.where(first, g, 0.0), fnp.where(first, 0.0, g)


@defgrad("minimum", "fmin")
def _minimum(out, ins, g):
    a, b = ins
    first = a <= b
    return fnp.where(first, g, 0.0), fnp.where(first, 0.0, g)


@defgrad("arctan2")
def _arctan2(out, ins, g):
    a, b = ins
    r = a * a + b * b
    return g * b / r, -g * a / r


@defgrad("hypot")
def _hypot(out, ins, g):
    a, b = ins
    return g * a / out, g * b / out


@defgrad("logaddexp")
def _logaddexp(out, ins, g):
    a, b = ins
    return g * fnp.exp(a - out), g * fnp.exp(b - out)


@defgrad("logaddexp2")
def _logaddexp2(out, ins, g):
    a, b = ins
    return g * fnp.exp2(a - out), g * fnp.exp2(b - out)


@defgrad("copysign")
def _copysign(out, ins, g):
    a, b = ins
    return g * fnp.sign(a) * fnp.where(fnp.signbit(b), -1.0, 1.0), None


@defgrad("remainder")
def _remainder(out, ins, g):
    a, b = ins
    return g, -g * fnp.floor_divide(a, b)


@defgrad("fmod")
def _fmod(out, ins, g):
    a, b = ins
    return g, -g * fnp.trunc(a / b)


@defgrad("ldexp")
def _ldexp(out, ins, g):
    a, n = ins
    return g * fnp.exp2(n.astype(out.dtype)), None


@defgrad("modf")
def _modf(out, ins, g, output, dtype=None):
    return (g if output == 0 else None),


@defgrad("divmod")
def _divmod(out, ins, g, output, dtype=None):
    a, b = ins
    return (None, None) if output == 0 else (g, -g * fnp.floor_divide(a, b))


# piecewise constant (or boolean/integer valued): no gradient flows
_ZERO = ["floor", "ceil", "trunc", "rint", "sign", "signbit", "spacing", "nextafter", "heaviside", "floor_divide",
         "frexp", "isnan", "isinf", "isfinite", "equal", "not_equal", "less", "less_equal", "greater",
         "greater_equal", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
         "bitwise_xor", "invert", "left_shift", "right_shift", "gcd", "lcm", "bitwise_count", "round", "fix"]
for _op in _ZERO:
    defgrad(_op)(lambda out, ins, g, **p: (None,) * len(ins))


@defgrad("where")
def _where(out, ins, g):
    c, x, y = ins
    return None, fnp.where(c, g, 0.0), fnp.where(c, 0.0, g)


@defgrad("clip")
def _clip(out, ins, g):
    a, lo, hi = ins
    inside = (a >= lo) & (a <= hi)
    return fnp.where(inside, g, 0.0), fnp.where(a < lo, g, 0.0), fnp.where(a > hi, g, 0.0)


@defgrad("astype")
def _astype(out, ins, g, dtype, casting="unsafe"):
    return g,


@defgrad("real")
def _real(out, ins, g):
    return g,


@defgrad("imag")
def _imag(out, ins, g):
    return None,


_MISSING = sorted(set(UFUNCS) - set(_ZERO) - {
    "negative", "positive", "conjugate", "absolute", "fabs", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "sqrt", "cbrt", "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh",
    "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "radians", "rad2deg", "degrees", "add", "subtract",
    "multiply", "divide", "power", "float_power", "maximum", "fmax", "minimum", "fmin", "arctan2", "hypot",
    "logaddexp", "logaddexp2", "copysign", "remainder", "fmod", "ldexp", "modf", "divmod"})
assert not _MISSING, f"element-wise ops without a gradient rule: {_MISSING}"

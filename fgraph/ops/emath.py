"""``numpy.emath`` (``numpy.lib.scimath``) on lazy arrays: ``sqrt``, ``log``,
``log2``, ``log10``, ``logn``, ``power``, ``arccos``, ``arcsin`` and
``arctanh`` that return complex results where the real ones would be NaN.

NumPy decides from the data: a real input with a value out of the real
domain (a negative one for ``sqrt`` and the logarithms, one of magnitude
above 1 for ``arccos``/``arcsin``/``arctanh``) is converted to complex
first, otherwise the result stays real.  A lazy array's dtype cannot wait
for its data, so the condition is evaluated when the function is called
(an evaluation point, as ``bool(t)`` is) for a lazy array known without
tracing: the result is then NumPy's, dtype included.  Under tracing (a
placeholder or variable below) it raises, as JAX raises on a data-dependent
dtype; a complex input (or an unsigned or boolean one, which cannot leave
the domain of ``sqrt`` and the logarithms) needs no data and works there.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError
from ..tensor import Tensor
from ..symbol import error_at
from .building import known_value, lazy, namespace

__all__: list[str] = []  # nothing in the main namespace: fgraph.numpy.emath holds EMATH_ALL
EMATH_ALL = ["sqrt", "log", "log2", "logn", "log10", "power", "arccos", "arcsin", "arctanh"]

#: NumPy's _tocomplex: these go to complex64, every other real dtype to complex128
_TO_COMPLEX64 = {np.dtype(t) for t in (np.single, np.byte, np.short, np.ubyte, np.ushort, np.csingle)}


def _decided(op: str, x: Tensor, condition) -> bool:
    """Whether NumPy's data condition ``condition(xp, x)`` holds for ``x``:
    evaluated now outside tracing."""
    known = known_value(x)
    if known is not None:  # a constant: NumPy answers on its data
        return bool(condition(np, known))
    if not x.node.concrete:
        raise error_at(DTypeError, f"emath.{op}", f"numpy.emath.{op} returns a complex array only when the data "
                                                  "leaves the real domain: a data-dependent dtype, which a traced "
                                                  "array cannot decide; pass a complex array "
                                                  "(x.astype(complex)), or fgraph.numpy." + op + " for real results")
    return bool(condition(namespace(), x).eval())


def _to_complex(x: Tensor) -> Tensor:
    return x.astype(np.complex64 if x.dtype in _TO_COMPLEX64 else np.complex128)


def _fix_real_lt_zero(op: str, x) -> Tensor:
    """NumPy's _fix_real_lt_zero: complex if any real value is negative."""
    x = lazy(x)
    if x.dtype.kind in "cub":  # complex already; or never negative
        return x
    return _to_complex(x) if _decided(op, x, lambda xp, t: xp.any(t < 0)) else x


def _fix_int_lt_zero(op: str, x) -> Tensor:
    """NumPy's _fix_int_lt_zero: float if any value is negative (an integer power)."""
    x = lazy(x)
    if x.dtype.kind in "fcub":
        return x
    return x * 1.0 if _decided(op, x, lambda xp, t: xp.any(t < 0)) else x


def _fix_real_abs_gt_1(op: str, x) -> Tensor:
    """NumPy's _fix_real_abs_gt_1: complex if any real value has magnitude above 1."""
    x = lazy(x)
    if x.dtype.kind in "cb":  # complex already; or 0 and 1 only
        return x
    return _to_complex(x) if _decided(op, x, lambda xp, t: xp.any(xp.abs(t) > 1)) else x


def sqrt(x):
    """Lazy ``numpy.emath.sqrt``: complex where a real input has negative values."""
    return namespace().sqrt(_fix_real_lt_zero("sqrt", x))


def log(x):
    """Lazy ``numpy.emath.log``: complex where a real input has negative values."""
    return namespace().log(_fix_real_lt_zero("log", x))


def log10(x):
    """Lazy ``numpy.emath.log10``: complex where a real input has negative values."""
    return namespace().log10(_fix_real_lt_zero("log10", x))


def log2(x):
    """Lazy ``numpy.emath.log2``: complex where a real input has negative values."""
    return namespace().log2(_fix_real_lt_zero("log2", x))


def logn(n, x):
    """Lazy ``numpy.emath.logn``: the base-``n`` logarithm, log(x) / log(n)."""
    fnp = namespace()
    x = _fix_real_lt_zero("logn", x)
    n = _fix_real_lt_zero("logn", n)
    return fnp.log(x) / fnp.log(n)


def power(x, p):
    """Lazy ``numpy.emath.power``: complex where a real base has negative
    values, float where an integer exponent does."""
    return namespace().power(_fix_real_lt_zero("power", x), _fix_int_lt_zero("power", p))


def arccos(x):
    """Lazy ``numpy.emath.arccos``: complex where a real input leaves [-1, 1]."""
    return namespace().arccos(_fix_real_abs_gt_1("arccos", x))


def arcsin(x):
    """Lazy ``numpy.emath.arcsin``: complex where a real input leaves [-1, 1]."""
    return namespace().arcsin(_fix_real_abs_gt_1("arcsin", x))


def arctanh(x):
    """Lazy ``numpy.emath.arctanh``: complex where a real input leaves [-1, 1]."""
    return namespace().arctanh(_fix_real_abs_gt_1("arctanh", x))

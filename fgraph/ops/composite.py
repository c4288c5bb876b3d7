"""NumPy functions that are compositions of other ops (no op or kernel of
their own): closeness and equality tests, infinity and type predicates,
``nan_to_num``, ``angle``, ``sinc``, and the answers known from shapes and
dtypes alone (``ndim``/``shape``/``size``, ``common_type``,
``min_scalar_type``, ``einsum_path``).

Each follows NumPy's own definition step by step, so values and dtypes are
NumPy's.  Where NumPy returns a Python ``bool`` computed from the data
(``allclose``, ``array_equal``, ``array_equiv``), the lazy version returns a
0-d bool array: ``bool(t)`` or ``if t:`` evaluates it.  Answers that follow
from shapes or dtypes alone stay Python values, as in NumPy.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..errors import DTypeError, FgraphError
from ..tensor import Tensor
from ..symbol import error_at, refuse_out
from .building import lazy as _lazy
from .building import namespace as _np

__all__ = ["isclose", "allclose", "array_equal", "array_equiv", "isposinf", "isneginf", "isreal", "iscomplex",
           "isrealobj", "iscomplexobj", "common_type", "min_scalar_type", "einsum_path", "nan_to_num", "angle", "sinc",
           "ndim", "shape", "size"]


def _is_python_scalar(x) -> bool:
    return isinstance(x, (int, float, complex))


def _warn_invalid_tolerances(atol, rtol) -> None:
    """NumPy's check of the tolerances, for concrete ones (a lazy tolerance
    would have to be evaluated: it is not checked)."""
    if isinstance(atol, Tensor) or isinstance(rtol, Tensor):
        return
    if np.all(np.isfinite(atol)) and np.all(np.isfinite(rtol)):
        return
    mode = np.geterr()["invalid"]
    msg = f"One of rtol or atol is not valid, atol: {atol}, rtol: {rtol}"
    if mode == "warn":
        warnings.warn(msg, RuntimeWarning, stacklevel=3)
    elif mode == "raise":
        raise FloatingPointError(msg)
    elif mode == "print":
        print(msg)


def isclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """Lazy ``numpy.isclose``: ``|a - b| <= atol + rtol * |b|`` where ``b`` is
    finite, or ``a == b``; NaNs equal when ``equal_nan``."""
    fnp = _np()
    x = a if _is_python_scalar(a) else _lazy(a)
    y = b
    if not _is_python_scalar(y):  # an inexact y, as NumPy makes it (abs(MIN_INT) would overflow)
        y = _lazy(y)
        if y.dtype.kind != "m":
            y = y.astype(np.result_type(y.dtype, 1.0))
    elif isinstance(y, int):
        y = float(y)
    _warn_invalid_tolerances(atol, rtol)
    finite = fnp.isfinite(y)
    # x - y only where y is finite (elsewhere the term is masked anyway): the
    # same result without the inf - inf that NumPy computes under errstate
    gap = fnp.abs(x - fnp.where(finite, y, 0))
    result = fnp.less_equal(gap, atol + rtol * fnp.abs(y)) & finite | (fnp.equal(x, y))
    if equal_nan:
        result = result | fnp.isnan(x) & fnp.isnan(y)
    return result


def _python_bool(t):
    """NumPy's answer for ``allclose`` and friends is a Python ``bool``: outside
    tracing it is known now (an evaluation point, as ``bool(t)`` is; a program
    prints it, stores it in JSON, returns it); under tracing, the lazy 0-d
    bool array."""
    return bool(t) if t.node.concrete else t


def allclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """``numpy.allclose``: a Python bool outside tracing, else a lazy 0-d bool array."""
    return _python_bool(_np().all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def _cannot_hold_nan(dtype) -> bool:
    return np.dtype(dtype).kind not in "fcmM"


def array_equal(a1, a2, equal_nan=False):
    """``numpy.array_equal``: ``False`` when the shapes differ (known now),
    else a Python bool outside tracing and a lazy 0-d bool array under it."""
    fnp = _np()
    a1, a2 = _lazy(a1), _lazy(a2)
    if a1.shape != a2.shape:
        return False
    same = fnp.equal(a1, a2)
    if equal_nan and not (_cannot_hold_nan(a1.dtype) and _cannot_hold_nan(a2.dtype)):
        same = same | fnp.isnan(a1) & fnp.isnan(a2)  # NaNs at the same places count as equal
    return _python_bool(fnp.all(same))


def array_equiv(a1, a2):
    """``numpy.array_equiv``: ``False`` when the shapes do not broadcast
    (known now), else a Python bool outside tracing and a lazy 0-d bool
    array under it."""
    fnp = _np()
    a1, a2 = _lazy(a1), _lazy(a2)
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return _python_bool(fnp.all(fnp.equal(a1, a2)))


def _signed_infinity(x, negative: bool, op: str):
    fnp = _np()
    x = _lazy(x)
    if x.dtype.kind == "c":  # NumPy: signbit has no complex loop
        raise error_at(DTypeError, op, f"This operation is not supported for {x.dtype} values because it "
                                       "would be ambiguous.")
    sign = fnp.signbit(x)
    return fnp.logical_and(fnp.isinf(x), sign if negative else ~sign)


def isposinf(x, out=None):
    """Lazy ``numpy.isposinf``."""
    refuse_out("isposinf", out)
    return _signed_infinity(x, False, "isposinf")


def isneginf(x, out=None):
    """Lazy ``numpy.isneginf``."""
    refuse_out("isneginf", out)
    return _signed_infinity(x, True, "isneginf")


def isreal(x):
    """Lazy ``numpy.isreal``: ``imag(x) == 0``."""
    fnp = _np()
    return fnp.imag(_lazy(x)) == 0


def iscomplex(x):
    """Lazy ``numpy.iscomplex``: a nonzero imaginary part (all False for real dtypes)."""
    fnp = _np()
    x = _lazy(x)
    if x.dtype.kind == "c":
        return fnp.imag(x) != 0
    return fnp.zeros(x.shape, bool)


def iscomplexobj(x) -> bool:
    """``numpy.iscomplexobj``: the dtype is complex (a Python bool, known now)."""
    dtype = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
    return issubclass(np.dtype(dtype).type, np.complexfloating)


def isrealobj(x) -> bool:
    """``numpy.isrealobj``: the dtype is not complex (a Python bool, known now)."""
    return not iscomplexobj(x)


def common_type(*arrays):
    """``numpy.common_type``: the scalar type NumPy picks for the arrays'
    dtypes (known now: dtypes are static)."""
    dummies = []
    for a in arrays:
        dt = a.dtype if isinstance(a, Tensor) else np.asarray(a).dtype
        dummies.append(np.empty(0, dt))
    try:
        return np.common_type(*dummies)
    except TypeError as e:
        raise error_at(DTypeError, "common_type", str(e)) from None


def min_scalar_type(a):
    """``numpy.min_scalar_type``: an array's own dtype (NumPy's rule for
    arrays of rank >= 1); a lazy 0-d value's answer would depend on it."""
    if isinstance(a, Tensor):
        if a.ndim == 0:
            raise error_at(FgraphError, "min_scalar_type", "the answer for a 0-d array depends on its value: "
                                                           "evaluate it first with numpy.asarray")
        return a.dtype
    return np.min_scalar_type(a)


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """``numpy.einsum_path``: NumPy's contraction order, from the operands'
    shapes alone (lazy operands stand as zero-cost shaped placeholders)."""
    def stand_in(x):
        return np.broadcast_to(np.zeros((), x.dtype), x.shape) if isinstance(x, Tensor) else x
    try:
        return np.einsum_path(subscripts, *map(stand_in, operands), optimize=optimize, einsum_call=einsum_call)
    except (ValueError, TypeError) as e:
        raise error_at(FgraphError, "einsum_path", str(e)) from None


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Lazy ``numpy.nan_to_num``: NaN becomes ``nan``, +inf ``posinf`` and
    -inf ``neginf`` (by default the dtype's largest and smallest finite
    values), in each part of a complex value; other dtypes are returned as
    they are."""
    fnp = _np()
    x = _lazy(x)
    if x.dtype.kind not in "fc":
        return x
    if x.dtype.kind == "c":  # NumPy fixes the real and imaginary parts in place, each alike
        from .elementwise import make_complex

        parts = [nan_to_num(p, copy, nan, posinf, neginf) for p in (fnp.real(x), fnp.imag(x))]
        return make_complex(*parts)
    info = np.finfo(x.dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    # NumPy copies each replacement into x (casting to its dtype) where its mask holds
    fill = [(fnp.isnan(x), nan), (isposinf(x), hi), (isneginf(x), lo)]
    out = x
    for mask, value in fill:
        out = fnp.where(mask, fnp.asarray(value).astype(x.dtype), out)
    return out


def angle(z, deg=False):
    """Lazy ``numpy.angle``: ``arctan2(imag, real)``, in degrees when ``deg``."""
    fnp = _np()
    z = _lazy(z)
    if z.dtype.kind == "c":
        a = fnp.arctan2(fnp.imag(z), fnp.real(z))
    else:
        a = fnp.arctan2(0, z)
    if deg:
        a = a * (180 / math.pi)  # NumPy's a *= 180/pi: a Python float keeps a's dtype
    return a


def sinc(x):
    """Lazy ``numpy.sinc``: ``sin(pi x) / (pi x)``, 1 at 0 (NumPy's eps trick)."""
    fnp = _np()
    x = math.pi * _lazy(x)
    eps = np.finfo(x.dtype).eps if x.dtype.kind == "f" else 1e-20
    y = fnp.where(x != 0, x, eps)
    return fnp.sin(y) / y


def ndim(a) -> int:
    """``numpy.ndim`` (known from the shape)."""
    return a.ndim if isinstance(a, Tensor) else np.ndim(a)


def shape(a) -> tuple:
    """``numpy.shape`` (known from the graph)."""
    return a.shape if isinstance(a, Tensor) else np.shape(a)


def size(a, axis=None) -> int:
    """``numpy.size`` (known from the shape)."""
    if not isinstance(a, Tensor):
        return np.size(a, axis)
    if axis is None:
        return math.prod(a.shape)
    return a.shape[axis]

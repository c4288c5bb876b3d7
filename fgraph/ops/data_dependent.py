"""NumPy functions whose result's shape or dtype depends on the data, composed
of other ops: the set functions (``intersect1d``, ``union1d``,
``setdiff1d``, ``setxor1d``), ``trim_zeros``, ``real_if_close`` and
``roots`` (``nonzero`` and masks live in ``indexing``, ``unique`` in
``sorting``).

Outside tracing (the arguments depend on no placeholder or variable) what
decides the result is evaluated, an evaluation point as printing is, and
the result is NumPy's: constants for the set functions and ``roots``, a
lazy slice or view of the argument for ``trim_zeros`` and
``real_if_close``.  Under
tracing they raise, naming the placeholder; the set functions take JAX's
``size=`` (and ``fill_value=``) instead: the first ``size`` sorted values,
padded, built from a stable argsort.
"""
from __future__ import annotations

import numpy as np

from ..errors import FgraphError, also
from ..tensor import Tensor, lift, stack_of
from ..symbol import error_at
from .building import namespace, python_value
from .indexing import SIZE_HINT, _sized_nonzero, concrete_value, constant_node, static_size

__all__ = ["intersect1d", "union1d", "setdiff1d", "setxor1d", "trim_zeros", "real_if_close", "roots", "poly",
           "polydiv", "poly1d"]

_INTP = np.dtype(np.intp)


def _values(op: str, why: str, *args):
    """The evaluated arguments (or the tracing refusal) and their stack."""
    st = stack_of(args)
    return [concrete_value(lift(a, st), st, op, why, SIZE_HINT) for a in args], st


def _numpy(op: str, fn, *args, **kwargs):
    """NumPy's own ``fn``; its errors become FgraphErrors (of NumPy's class too) at the user's line."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError, IndexError) as e:
        raise error_at(also(type(e)), op, str(e)) from None


def _constants(result, st):
    if isinstance(result, tuple):
        return tuple(Tensor(constant_node(r), st) for r in result)
    return Tensor(constant_node(result), st)


def _flat(x, st, dtype=None):
    t = namespace().ravel(Tensor(lift(x, st), st))
    return t if dtype is None or t.dtype == dtype else t.astype(dtype)


def _sorted_distinct(c, keep, size: int, fill_value, op: str, origin=None, zero_fill: bool = False):
    """JAX's sized set result: the first ``size`` sorted distinct values of
    1-D ``c`` where ``keep`` (a function of the value), padded with
    ``fill_value`` (default: the smallest value kept, or 0 when
    ``zero_fill`` or nothing is kept).  NaNs count as one value, or as one
    per ``origin`` (the input each element came from) where NumPy keeps the
    NaN of each input (``setxor1d``)."""
    fnp = namespace()
    n = c.shape[0]
    dtype = c.dtype
    if n == 0 or size == 0:
        return fnp.full(size, 0 if fill_value is None else fill_value, dtype=dtype)
    perm = fnp.argsort(c, kind="stable")
    s, k = c[perm], keep[perm]
    new = s[1:] != s[:-1]
    if dtype.kind in "fc":
        nan = fnp.isnan(s)
        both = nan[1:] & nan[:-1]
        new = new & ~both
        if origin is not None:
            o = origin[perm]
            new = new | (both & (o[1:] != o[:-1]))
    first = fnp.concatenate([fnp.ones(1, bool), new]) & k
    (ind,) = _sized_nonzero(first.node, c.stack, size, None, op)
    values = s[ind]
    count = fnp.count_nonzero(first)
    zero = fnp.zeros((), dtype)
    if fill_value is None:
        fill = zero if zero_fill else fnp.where(count > 0, values[0], zero)
    else:
        fill = fnp.asarray(fill_value).astype(dtype)
    return fnp.where(fnp.arange(size) < count, values, fill)


def _common(ar1, ar2, st):
    return np.result_type(lift(ar1, st).dtype, lift(ar2, st).dtype)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """``numpy.union1d``: the sorted distinct values of both arrays.  Outside
    tracing the arrays are evaluated; ``size=`` (JAX) gives a static length,
    padded with ``fill_value`` (default: the smallest value)."""
    if size is None:
        (a, b), st = _values("union1d", "numpy.union1d returns one element per distinct value", ar1, ar2)
        return _constants(_numpy("union1d", np.union1d, a, b), st)
    st = stack_of((ar1, ar2))
    c = namespace().concatenate([_flat(ar1, st), _flat(ar2, st)])
    return _sorted_distinct(c, namespace().ones(c.shape, bool), static_size(size, "union1d"), fill_value, "union1d")


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None, fill_value=None):
    """``numpy.intersect1d``: the sorted values in both arrays (with
    ``return_indices``, their first positions in each).  Outside tracing the
    arrays are evaluated; ``size=`` (JAX; not with ``return_indices``) gives
    a static length, padded with ``fill_value`` (default: the smallest
    value)."""
    if size is None:
        (a, b), st = _values("intersect1d", "numpy.intersect1d returns one element per common value", ar1, ar2)
        return _constants(_numpy("intersect1d", np.intersect1d, a, b, assume_unique, return_indices), st)
    if return_indices:
        raise error_at(FgraphError, "intersect1d", "return_indices=True with size= is not supported; evaluate "
                                                   "outside tracing instead")
    st = stack_of((ar1, ar2))
    dtype = _common(ar1, ar2, st)
    c = _flat(ar1, st, dtype)
    return _sorted_distinct(c, namespace().isin(c, _flat(ar2, st, dtype)), static_size(size, "intersect1d"),
                            fill_value, "intersect1d")


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """``numpy.setdiff1d``: the sorted distinct values of ``ar1`` not in
    ``ar2`` (``assume_unique``: ``ar1``'s values in their order).  Outside
    tracing the arrays are evaluated; ``size=`` (JAX) gives a static length,
    padded with ``fill_value`` (default 0, as JAX)."""
    if size is None:
        (a, b), st = _values("setdiff1d", "numpy.setdiff1d returns one element per value left", ar1, ar2)
        return _constants(_numpy("setdiff1d", np.setdiff1d, a, b, assume_unique), st)
    fnp, st, size = namespace(), stack_of((ar1, ar2)), static_size(size, "setdiff1d")
    c = _flat(ar1, st)
    keep = fnp.isin(c, _flat(ar2, st), invert=True)
    if not assume_unique:
        return _sorted_distinct(c, keep, size, fill_value, "setdiff1d", zero_fill=True)
    fill = fnp.asarray(0 if fill_value is None else fill_value).astype(c.dtype)
    if c.shape[0] == 0:
        return fnp.full(size, fill, dtype=c.dtype)
    (ind,) = _sized_nonzero(keep.node, st, size, None, "setdiff1d")
    return fnp.where(fnp.arange(size) < fnp.count_nonzero(keep), c[ind], fill)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """``numpy.setxor1d``: the sorted values in exactly one of the arrays
    (a NaN of each array counts once each, as in NumPy).  Outside tracing
    the arrays are evaluated; ``size=`` (JAX) gives a static length, padded
    with ``fill_value`` (default: the smallest value)."""
    if size is None:
        (a, b), st = _values("setxor1d", "numpy.setxor1d returns one element per value in just one array", ar1, ar2)
        return _constants(_numpy("setxor1d", np.setxor1d, a, b, assume_unique), st)
    fnp, st = namespace(), stack_of((ar1, ar2))
    dtype = _common(ar1, ar2, st)
    a, b = _flat(ar1, st, dtype), _flat(ar2, st, dtype)
    c = fnp.concatenate([a, b])
    keep = fnp.isin(c, a) ^ fnp.isin(c, b)
    if dtype.kind in "fc":
        keep = keep | fnp.isnan(c)
    origin = fnp.concatenate([fnp.zeros(a.shape, bool), fnp.ones(b.shape, bool)])
    return _sorted_distinct(c, keep, static_size(size, "setxor1d"), fill_value, "setxor1d", origin=origin)


def trim_zeros(filt, trim="fb", axis=None):
    """``numpy.trim_zeros``: ``filt`` without its leading and/or trailing
    zeros (along ``axis``; all axes by default).  Outside tracing ``filt``
    is evaluated to find the bounds, and the result is a lazy slice of it; a
    list or tuple gives NumPy's own result (a list or tuple)."""
    if isinstance(filt, (list, tuple)) and not any(isinstance(e, Tensor) for e in filt):
        return _numpy("trim_zeros", np.trim_zeros, filt, trim, axis)
    st = stack_of((filt,))
    node = lift(filt, st)
    t = filt if isinstance(filt, Tensor) else Tensor(node, st)
    if not isinstance(trim, str) or trim.lower() not in ("fb", "bf", "f", "b"):
        raise error_at(also(ValueError), "trim_zeros", f"unexpected character(s) in `trim`: {trim!r}")
    trim = trim.lower()
    axes = tuple(range(node.ndim)) if axis is None else \
        _numpy("trim_zeros", np.lib.array_utils.normalize_axis_tuple, axis, node.ndim, "axis")
    if not axes:
        return t
    value = concrete_value(node, st, "trim_zeros", "numpy.trim_zeros keeps what lies between the first and last "
                                                   "non-zero elements", "slice with static bounds instead")
    nz = np.argwhere(value)
    if nz.size == 0:
        start, stop = [0] * node.ndim, [0] * node.ndim
    else:
        start = nz.min(axis=0).tolist() if "f" in trim else [None] * node.ndim
        stop = (nz.max(axis=0) + 1).tolist() if "b" in trim else [None] * node.ndim
    key = tuple(slice(start[ax], stop[ax]) if ax in axes else slice(None) for ax in range(node.ndim))
    return t[key]


def real_if_close(a, tol=100):
    """``numpy.real_if_close``: the real part when every imaginary part is
    within ``tol`` machine epsilons of zero, else ``a``.  A complex ``a`` is
    evaluated (the result's dtype depends on its values); any other ``a``
    is returned as it is, under tracing too."""
    fnp = namespace()
    t = a if isinstance(a, Tensor) else fnp.asarray(a)
    if t.dtype.kind != "c":
        return t
    if tol > 1:
        tol = np.finfo(t.dtype).eps * tol
    value = concrete_value(t.node, t.stack, "real_if_close", "numpy.real_if_close returns a real or a complex "
                                                             "array depending on the values",
                           "use fgraph.numpy.real(a) when the result should be real", what="dtype")
    return fnp.real(t) if np.all(np.absolute(value.imag) < tol) else t


def roots(p):
    """``numpy.roots``: the roots of the polynomial with coefficients ``p``.
    Their number (leading and trailing zeros are trimmed) and their dtype
    (real or complex) depend on the values, so ``p`` is evaluated outside
    tracing and NumPy's roots come back as a constant."""
    st = stack_of((p,))
    value = concrete_value(lift(p, st), st, "roots", "numpy.roots returns one root per degree of the polynomial "
                                                     "once its zeros are trimmed", "evaluate the coefficients first")
    return Tensor(constant_node(_numpy("roots", np.roots, value)), st)


def poly(seq_of_zeros):
    """``numpy.poly``: the coefficients of the polynomial with the given roots
    (or a square matrix's characteristic polynomial).  NumPy returns them
    real when the complex roots pair up as conjugates: a dtype decided by
    the values, so the roots are evaluated outside tracing (as ``roots``)."""
    (value,), st = _values("poly", "numpy.poly returns real coefficients when the complex roots pair up as "
                                   "conjugates, else complex ones", seq_of_zeros)
    return _constants(_numpy("poly", np.poly, value), st)


def polydiv(u, v):
    """``numpy.polydiv``: quotient and remainder of polynomial division.  NumPy
    trims the remainder's leading (near-)zeros: a length decided by the
    values, so both are evaluated outside tracing and NumPy's own results
    come back as constants."""
    (uv, vv), st = _values("polydiv", "numpy.polydiv trims the remainder's leading zeros", u, v)
    return _constants(_numpy("polydiv", np.polydiv, uv, vv), st)


class poly1d(np.poly1d):
    """``numpy.poly1d``, NumPy's own class: its coefficients are trimmed of
    leading zeros, a length decided by the values, so lazy coefficients
    (``np.poly1d(np.polyfit(x, y, 2))``) are evaluated outside tracing (an
    evaluation point) and refused under tracing.  Calling it on a lazy array
    gives a lazy array (NumPy's ``polyval`` dispatches here); on a number,
    NumPy's scalar, as NumPy's poly1d does."""

    def __init__(self, c_or_r, r=False, variable=None):
        c_or_r = python_value(c_or_r, "poly1d", "c_or_r", "poly1d trims the coefficients' leading zeros")
        try:
            super().__init__(c_or_r, r=r, variable=variable)
        except (ValueError, TypeError) as e:
            raise error_at(also(type(e)), "poly1d", str(e)) from None

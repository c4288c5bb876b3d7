"""NumPy's signal and polynomial functions: ``convolve``/``correlate``, the
``poly*`` helpers, ``polyfit``, ``vander``, ``trapezoid``, ``gradient``,
``ediff1d``, ``unwrap``, the window functions and ``i0``.

``convolve``/``correlate`` are one op, ``correlate``, whose kernel is
NumPy's own (its values bit for bit, at its speed); its gradient is that of
the same sums written with other ops (``composite_correlate``: a product of
sliding windows, built a bounded block of outputs at a time).  The others
compose other ops, each following NumPy's own definition step by step, so
dtypes are NumPy's and values are NumPy's bit for bit wherever the same
operations run in the same order (``polyfit`` runs NumPy's own ``lstsq``).
Arguments that decide a shape (``mode``, ``m``, ``axis``, ``edge_order``,
``N``, the window length ``M``) must be Python values.  Where NumPy
branches on the data, the lazy version computes both branches and selects
(``gradient`` with coordinates) or cannot follow (``polymul`` does not trim
the leading zeros of a lazy polynomial: the length would depend on them).
"""
from __future__ import annotations

import functools
import operator
import warnings

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError
from .batching import refuse_batching
from ..tensor import Tensor, lift, stack_of
from ..shape import defop
from ..symbol import error_at, make_node
from .building import axis_index, lazy, namespace, python_value
from .linalg import inv, lstsq

try:
    from numpy.exceptions import RankWarning as _RankWarning
except ImportError:  # NumPy 1.x
    _RankWarning = np.RankWarning

try:  # NumPy's module holding i0's Chebyshev coefficient tables
    from numpy.lib import _function_base_impl as _impl
except ImportError:  # NumPy 1.x
    from numpy.lib import function_base as _impl

__all__ = ["convolve", "correlate", "polyval", "polyfit", "polyadd", "polysub", "polymul", "polyder", "polyint",
           "vander", "trapezoid", "gradient", "ediff1d", "unwrap", "hamming", "hanning", "blackman", "bartlett",
           "kaiser", "i0"]


def _known_now(x) -> bool:
    """Whether lazy ``x`` is a constant, its value known now."""
    return x.node.op in ("constant", "literal")


def _cut(x, axis: int, start, stop):
    """``x[..., start:stop, ...]`` along ``axis``."""
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return x[tuple(index)]


# ---------------------------------------------------------------- convolve, correlate

_MODES = {"valid": 0, "same": 1, "full": 2}


def _mode(mode, op: str) -> int:
    """NumPy's mode converter: one of the three names, or the integers 0, 1, 2."""
    python_value(mode, op, "mode")
    if isinstance(mode, str):
        if mode not in _MODES:
            raise error_at(FgraphError, op, f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
        return _MODES[mode]
    if isinstance(mode, (bool, np.bool_)):
        raise error_at(DTypeError, op, "convolve/correlate mode not understood")
    try:
        index = operator.index(mode)
    except TypeError:
        raise error_at(DTypeError, op, "convolve/correlate mode not understood") from None
    if index not in (0, 1, 2):
        raise error_at(FgraphError, op, "integer convolve/correlate mode must be 0, 1, or 2")
    return index


def _correlate_rule(inputs, kind, mode):
    a, v = inputs
    n1, n2 = a.shape[0], v.shape[0]
    length = {0: max(n1, n2) - min(n1, n2) + 1, 1: max(n1, n2), 2: n1 + n2 - 1}[mode]
    return (length,), _sliding_dtype(kind, a.dtype, v.dtype)


@functools.lru_cache(maxsize=None)
def _sliding_dtype(kind: str, a: np.dtype, v: np.dtype) -> np.dtype:
    try:
        return getattr(np, kind)(np.ones(1, a), np.ones(1, v)).dtype  # NumPy's own, asked of NumPy
    except TypeError as e:
        raise DTypeError(str(e)) from None


def _correlate_kernel(a, v, kind, mode):
    """``numpy.correlate`` or ``numpy.convolve`` itself (NumPy's values bit for bit, at its speed)."""
    return getattr(np, kind)(a, v, mode=("valid", "same", "full")[mode])


# (its gradient rule differentiates composite_correlate, so it needs the autodiff core: it is
# registered from fgraph/autodiff/graph_rules.py, a layer above)
defop("correlate", _correlate_rule, "numpy.correlate or numpy.convolve (param kind) of two 1-D arrays; mode "
                                    "0 valid, 1 same, 2 full", kernel=_correlate_kernel)


#: products per block of outputs in the composite convolve/correlate (the window matrix of
#: a block: its memory stays bounded however long the signal)
WINDOW_VALUES = 1 << 22


def _slide(a, v, mode: int, op: str, conjugate: bool):
    """NumPy's ``_pyarray_correlate``: ``out[k] = sum_j a[k - n_left + j] * v[j]``, the
    longer array sliding under the shorter (the output reversed when they swap)."""
    fnp = namespace()
    for x, which in ((a, "first"), (v, "second")):
        if x.ndim != 1:
            raise error_at(ShapeError, op, f"the {which} argument must be 1-D, got shape {x.shape}")
        if x.shape[0] == 0:
            raise error_at(ShapeError, op, f"{which} array argument cannot be empty")
    dtype = np.result_type(a.dtype, v.dtype)
    # NumPy's half dot product multiplies and sums in float32, rounding once at the end
    work = np.dtype(np.float32) if dtype == np.float16 else dtype
    a, v = a.astype(work) if a.dtype != work else a, v.astype(work) if v.dtype != work else v
    if conjugate and dtype.kind == "c":
        v = fnp.conj(v)
    inverted = a.shape[0] < v.shape[0]
    if inverted:
        a, v = v, a
    n1, n = a.shape[0], v.shape[0]
    n_left, length = {0: (0, n1 - n + 1), 1: (n // 2, n1), 2: (n - 1, n1 + n - 1)}[mode]
    rows = length if length * n <= WINDOW_VALUES else max(1, WINDOW_VALUES // n)
    pieces = []
    for start in range(0, length, rows):  # blocks of outputs: the window matrix stays bounded
        stop = min(length, start + rows)
        if rows == length:  # one block: its indices are a constant
            index = np.arange(start, stop)[:, None] - n_left + np.arange(n)[None, :]
            safe = np.where((index >= 0) & (index < n1), index, 0)
        else:  # many: each block's indices computed where the graph runs, not stored in it
            index = fnp.arange(start - n_left, stop - n_left)[:, None] + fnp.arange(n)[None, :]
            safe = fnp.clip(index, 0, n1 - 1)
        terms = fnp.take(a, safe) * v  # one row of products per output
        if start - n_left < 0 or stop - 1 - n_left + n - 1 >= n1:
            # masked, not zero-padded: 0 * inf would be NaN where NumPy has no term
            inside = (index >= 0) & (index < n1)
            terms = fnp.where(inside, terms, False if dtype.kind == "b" else 0)
        if dtype.kind == "b":  # NumPy's bool dot product is an OR of ANDs
            pieces.append(fnp.any(terms, axis=-1))
        else:
            pieces.append(fnp.sum(terms, axis=-1, dtype=work))
    out = pieces[0] if len(pieces) == 1 else fnp.concatenate(pieces)
    if work != dtype:
        out = out.astype(dtype)
    return out[::-1] if inverted else out


def _sliding(kind: str, a, v, mode, op: str):
    """The ``correlate`` op: NumPy's own ``numpy.<kind>`` on 1-D arrays."""
    mode = _mode(mode, op)
    for x, which in ((a, "first"), (v, "second")):
        if x.ndim != 1:
            raise error_at(ShapeError, op, f"the {which} argument must be 1-D, got shape {x.shape}")
        if x.shape[0] == 0:
            raise error_at(ShapeError, op, f"{which} array argument cannot be empty")
    st = stack_of((a, v))
    return Tensor(make_node("correlate", [lift(a, st), lift(v, st)], (("kind", kind), ("mode", mode))), st)


def composite_correlate(kind: str, a, v, mode: int):
    """``numpy.<kind>`` (correlate or convolve) as other ops, for gradients."""
    if kind == "correlate":
        return _slide(a, v, mode, kind, conjugate=True)
    if a.shape[0] < v.shape[0]:
        a, v = v, a
    return _slide(a, v[::-1], mode, kind, conjugate=False)


def correlate(a, v, mode="valid"):
    """Lazy ``numpy.correlate`` of 1-D arrays (the second conjugated when complex)."""
    return _sliding("correlate", lazy(a), lazy(v), mode, "correlate")


def convolve(a, v, mode="full"):
    """Lazy ``numpy.convolve`` of 1-D arrays (0-d ones count as length 1)."""
    fnp = namespace()
    a, v = fnp.atleast_1d(lazy(a)), fnp.atleast_1d(lazy(v))
    for x, name in ((a, "a"), (v, "v")):
        if x.ndim == 1 and x.shape[0] == 0:
            raise error_at(ShapeError, "convolve", f"{name} cannot be empty")
    return _sliding("convolve", a, v, mode, "convolve")


def polyval(p, x):
    """Lazy ``numpy.polyval`` by Horner's rule (one step per coefficient: ``len(p)`` is static)."""
    fnp = namespace()
    p, x = lazy(p), lazy(x)
    if p.ndim == 0:
        raise error_at(DTypeError, "polyval", "iteration over a 0-d array: p must have at least one dimension")
    y = fnp.zeros_like(x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


def _poly_pair(a1, a2):
    fnp = namespace()
    a1, a2 = fnp.atleast_1d(lazy(a1)), fnp.atleast_1d(lazy(a2))
    diff = len(a2) - len(a1)
    if diff > 0:
        a1 = fnp.concatenate((fnp.zeros(diff, a1.dtype), a1))
    elif diff < 0:
        a2 = fnp.concatenate((fnp.zeros(-diff, a2.dtype), a2))
    return a1, a2


def polyadd(a1, a2):
    """Lazy ``numpy.polyadd`` (coefficient arrays, highest power first)."""
    a1, a2 = _poly_pair(a1, a2)
    return a1 + a2


def polysub(a1, a2):
    """Lazy ``numpy.polysub`` (coefficient arrays, highest power first)."""
    a1, a2 = _poly_pair(a1, a2)
    return a1 - a2


def _poly1d_coeffs(a, op: str):
    """``poly1d(a).coeffs``: leading zeros trimmed when ``a`` is concrete; a lazy
    array keeps them (how many there are is known only from the values)."""
    fnp = namespace()
    if not isinstance(a, Tensor):
        a = np.atleast_1d(a)
        if a.ndim == 1:
            a = np.trim_zeros(a, trim="f")
    a = fnp.atleast_1d(lazy(a))
    if a.ndim > 1:
        raise error_at(ShapeError, op, "Polynomial must be 1d only.")
    if a.shape[0] == 0:
        return fnp.zeros(1, a.dtype)
    return a


def polymul(a1, a2):
    """Lazy ``numpy.polymul``; leading zeros of a lazy factor are kept (NumPy trims
    them, so its result is shorter by their number)."""
    return convolve(_poly1d_coeffs(a1, "polymul"), _poly1d_coeffs(a2, "polymul"))


def _order(m, op: str, what: str, other: str) -> int:
    python_value(m, op, "m")
    m = int(m)
    if m < 0:
        raise error_at(FgraphError, op, f"Order of {what} must be positive (see {other})")
    return m


def polyder(p, m=1):
    """Lazy ``numpy.polyder`` (``m`` a Python int)."""
    fnp = namespace()
    m = _order(m, "polyder", "derivative", "polyint")
    p = lazy(p)
    for step in range(m + 1):  # NumPy forms the next derivative at m == 0 too (and may fail there)
        if p.ndim == 0:
            raise error_at(DTypeError, "polyder", "len() of unsized object: p must have at least one dimension")
        n = len(p) - 1
        y = p[:-1] * fnp.arange(n, 0, -1)
        if step < m:
            p = y
    return p


def polyint(p, m=1, k=None):
    """Lazy ``numpy.polyint`` (``m`` a Python int; ``k`` constants, concrete or lazy)."""
    fnp = namespace()
    m = _order(m, "polyint", "integral", "polyder")
    if k is None:
        k = np.zeros(m, float)
    k = fnp.atleast_1d(k) if isinstance(k, Tensor) else np.atleast_1d(k)
    if len(k) == 1 and m > 1:
        k = k[0] * (fnp.ones(m, float) if isinstance(k, Tensor) else np.ones(m, float))
    if len(k) < m:
        raise error_at(FgraphError, "polyint", "k must be a scalar or a rank-1 array of length 1 or >m.")
    p = lazy(p)
    for i in range(m):
        if p.ndim == 0:
            raise error_at(DTypeError, "polyint", "len() of unsized object: p must have at least one dimension")
        constant = fnp.reshape(k[i], (1,)) if isinstance(k, Tensor) else fnp.asarray(np.asarray([k[i]]))
        p = fnp.concatenate((p / fnp.arange(len(p), 0, -1), constant))
    return p


def vander(x, N=None, increasing=False):
    """Lazy ``numpy.vander``: the powers by a cumulative product along each row (``N`` a Python int)."""
    fnp = namespace()
    x = lazy(x)
    if x.ndim != 1:
        raise error_at(ShapeError, "vander", "x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else python_value(N, "vander", "N")
    try:
        n = operator.index(n)
    except TypeError:
        raise error_at(DTypeError, "vander", f"N must be an integer, got {type(n).__name__}") from None
    if n < 0:
        raise error_at(ShapeError, "vander", "negative dimensions are not allowed")
    dtype = np.promote_types(x.dtype, int)
    rows = x.shape[0]
    columns = [fnp.ones((rows, min(n, 1)), dtype)]
    if n > 1:
        repeated = fnp.broadcast_to(x.astype(dtype)[:, None], (rows, n - 1))
        columns.append(fnp.cumprod(repeated, axis=1))  # NumPy's multiply.accumulate, in order
    v = fnp.concatenate(columns, axis=1)
    return v if increasing else v[:, ::-1]


def _inplace(target, value, op: str):
    """NumPy's ``target op= value``: the result cast back to ``target``'s dtype under 'same_kind'."""
    if not np.can_cast(value.dtype, target.dtype, "same_kind"):
        raise error_at(DTypeError, op, f"Cannot cast ufunc output from dtype('{value.dtype}') to "
                                       f"dtype('{target.dtype}') with casting rule 'same_kind'")
    return value.astype(target.dtype) if value.dtype != target.dtype else value


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Lazy ``numpy.polyfit`` (``deg``, ``rcond``, ``full``, ``cov`` Python values), through
    ``linalg.lstsq``: NumPy's values.  The rank is known only when the graph runs, so
    ``RankWarning`` is given, and ``full=True``'s residuals are NumPy's empty array for a
    deficient rank, only when x, y and w are not lazy; lazily, residuals of a deficient
    rank raise where the graph runs (their shape would change)."""
    fnp = namespace()
    op = "polyfit"
    for value, name in ((deg, "deg"), (rcond, "rcond"), (full, "full"), (cov, "cov")):
        python_value(value, op, name, "it decides the result's shape or is checked now")
    known = all(v is None or not isinstance(v, Tensor) or _known_now(v) for v in (x, y, w))
    order = int(deg) + 1
    x = lazy(x) + 0.0
    y = lazy(y) + 0.0
    if deg < 0:
        raise error_at(FgraphError, op, "expected deg >= 0")
    if x.ndim != 1:
        raise error_at(DTypeError, op, "expected 1D vector for x")
    if x.shape[0] == 0:
        raise error_at(DTypeError, op, "expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise error_at(DTypeError, op, "expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise error_at(DTypeError, op, "expected x and y to have same length")
    if rcond is None:
        rcond = len(x) * np.finfo(x.dtype).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = lazy(w) + 0.0
        if w.ndim != 1:
            raise error_at(DTypeError, op, "expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise error_at(DTypeError, op, "expected w and y to have the same length")
        lhs = _inplace(lhs, lhs * w[:, None], op)
        rhs = _inplace(rhs, rhs * (w[:, None] if rhs.ndim == 2 else w), op)
    scale = fnp.sqrt((lhs * lhs).sum(axis=0))
    lhs = _inplace(lhs, lhs / scale, op)

    # numpy.linalg.lstsq itself (fgraph's op: its values bit for bit); float16 refused as NumPy refuses
    for a in (lhs, rhs):
        if a.dtype.kind in "fc" and a.dtype.name not in ("float32", "float64", "complex64", "complex128"):
            raise error_at(DTypeError, op, f"array type {a.dtype.name} is unsupported in linalg")
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    m, n = lhs.shape
    rank_now = int(np.asarray(rank)) if known else None
    if rank_now is not None and rank_now != n and m > n:  # NumPy's empty residuals, known now
        resids = fnp.zeros(0, resids.dtype)
    c = (c.T / scale).T

    if rank_now is not None and rank_now != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", _RankWarning, stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    vbase = inv(fnp.dot(lhs.T, lhs))
    vbase = _inplace(vbase, vbase / fnp.outer(scale, scale), op)
    if cov == "unscaled":
        fac = 1
    else:
        if len(x) <= order:
            raise error_at(FgraphError, op, "the number of data points must exceed order to scale the "
                                            "covariance matrix")
        fac = resids / (len(x) - order)
    if y.ndim == 1:
        return c, vbase * fac
    return c, vbase[:, :, None] * fac


# ---------------------------------------------------------------- calculus

def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Lazy ``numpy.trapezoid`` (``axis`` a Python int)."""
    fnp = namespace()
    y = lazy(y)
    nd = y.ndim
    axis = axis_index(axis, nd, "trapezoid")
    if x is None:
        d = dx
    else:
        x = lazy(x)
        if x.ndim == 1:
            d = fnp.diff(x)
            shape = [1] * nd
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = fnp.diff(x, axis=axis)
    return (d * (_cut(y, axis, 1, None) + _cut(y, axis, None, -1)) / 2.0).sum(axis)


def _spacing(distances, length: int, op: str):
    """One axis's spacing as NumPy reads it: a scalar (a Python number stays a weak
    scalar), or coordinates as ``(uniform, first difference, differences)`` where
    ``uniform`` is a Python bool for concrete coordinates, a lazy 0-d bool else."""
    fnp = namespace()
    is_lazy = isinstance(distances, Tensor)
    if (distances.ndim if is_lazy else np.ndim(distances)) == 0:
        return distances if isinstance(distances, (bool, int, float, complex)) else lazy(distances)
    distances = distances if is_lazy else np.asanyarray(distances)
    if distances.ndim != 1:
        raise error_at(ShapeError, op, "distances must be either scalars or 1d")
    if distances.shape[0] != length:
        raise error_at(ShapeError, op, "when 1d, distances must match the length of the corresponding dimension")
    if length < 2:
        raise error_at(ShapeError, op, "coordinates need at least 2 values (NumPy: index 0 is out of bounds)")
    if np.issubdtype(distances.dtype, np.integer):
        distances = distances.astype(np.float64)
    if is_lazy:
        diffx = fnp.diff(distances)
        return fnp.all(diffx == diffx[0]), diffx[0], diffx
    diffx = np.diff(distances)
    uniform = bool((diffx == diffx[0]).all())
    return uniform, fnp.asarray(diffx[0]), fnp.asarray(diffx)


def _uniform_parts(f, axis, h, edge_order):
    """First edge, interior and last edge for a scalar spacing ``h`` (NumPy's formulas)."""
    interior = (_cut(f, axis, 2, None) - _cut(f, axis, None, -2)) / (2. * h)
    f0, f1, f2 = _cut(f, axis, 0, 1), _cut(f, axis, 1, 2), _cut(f, axis, 2, 3)
    fl3, fl2, fl1 = _cut(f, axis, -3, -2), _cut(f, axis, -2, -1), _cut(f, axis, -1, None)
    if edge_order == 1:
        return (f1 - f0) / h, interior, (fl1 - fl2) / h
    a, b, c = -1.5 / h, 2. / h, -0.5 / h
    first = a * f0 + b * f1 + c * f2
    a, b, c = 0.5 / h, -2. / h, 1.5 / h
    return first, interior, a * fl3 + b * fl2 + c * fl1


def _nonuniform_parts(f, axis, d, edge_order):
    """First edge, interior and last edge for coordinate differences ``d`` (NumPy's formulas)."""
    dx1, dx2 = d[0:-1], d[1:]
    a = -(dx2) / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    shape = [1] * f.ndim
    shape[axis] = -1
    a, b, c = a.reshape(shape), b.reshape(shape), c.reshape(shape)
    interior = a * _cut(f, axis, None, -2) + b * _cut(f, axis, 1, -1) + c * _cut(f, axis, 2, None)
    f0, f1, f2 = _cut(f, axis, 0, 1), _cut(f, axis, 1, 2), _cut(f, axis, 2, 3)
    fl3, fl2, fl1 = _cut(f, axis, -3, -2), _cut(f, axis, -2, -1), _cut(f, axis, -1, None)
    if edge_order == 1:
        return (f1 - f0) / d[0], interior, (fl1 - fl2) / d[-1]
    dx1, dx2 = d[0], d[1]
    a = -(2. * dx1 + dx2) / (dx1 * (dx1 + dx2))
    b = (dx1 + dx2) / (dx1 * dx2)
    c = - dx1 / (dx2 * (dx1 + dx2))
    first = a * f0 + b * f1 + c * f2
    dx1, dx2 = d[-2], d[-1]
    a = (dx2) / (dx1 * (dx1 + dx2))
    b = - (dx2 + dx1) / (dx1 * dx2)
    c = (2. * dx2 + dx1) / (dx2 * (dx1 + dx2))
    return first, interior, a * fl3 + b * fl2 + c * fl1


def gradient(f, *varargs, axis=None, edge_order=1):
    """Lazy ``numpy.gradient``; with lazy coordinates, whether they are evenly
    spaced is known only from the values, so both of NumPy's formulas are
    built and one is selected per run."""
    fnp = namespace()
    f = lazy(f)
    N = f.ndim
    if axis is None:
        axes = tuple(range(N))
    else:
        python_value(axis, "gradient", "axis")
        axes = tuple(axis_index(ax, N, "gradient") for ax in (axis if isinstance(axis, (tuple, list)) else (axis,)))
        if len(set(axes)) != len(axes):
            raise error_at(ShapeError, "gradient", f"repeated axis in {axis}")
    edge_order = python_value(edge_order, "gradient", "edge_order")
    n = len(varargs)
    if n == 0:
        dx = [1.0] * len(axes)
    elif n == 1 and (varargs[0].ndim if isinstance(varargs[0], Tensor) else np.ndim(varargs[0])) == 0:
        dx = list(varargs) * len(axes)
    elif n == len(axes):
        dx = list(varargs)
    else:
        raise error_at(DTypeError, "gradient", "invalid number of arguments")
    dx = [_spacing(d, f.shape[ax], "gradient") for d, ax in zip(dx, axes)]
    if edge_order > 2:
        raise error_at(FgraphError, "gradient", "'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":  # NumPy: to float64 first, so differences do not wrap
            f = f.astype(np.float64)
        otype = np.dtype(np.float64)
    outvals = []
    for ax, ax_dx in zip(axes, dx):
        if f.shape[ax] < edge_order + 1 or (edge_order != 1 and f.shape[ax] < 3):
            raise error_at(ShapeError, "gradient", "Shape of array too small to calculate a numerical gradient, "
                                                   "at least (edge_order + 1) elements are required.")
        if not isinstance(ax_dx, tuple):
            parts = _uniform_parts(f, ax, ax_dx, edge_order)
        elif not isinstance(ax_dx[0], Tensor):  # concrete coordinates: NumPy's branch, taken now
            parts = (_uniform_parts(f, ax, ax_dx[1], edge_order) if ax_dx[0] else
                     _nonuniform_parts(f, ax, ax_dx[2], edge_order))
        else:
            if f.dtype == bool:  # NumPy refuses bool f only on the evenly spaced branch: known only at run time
                raise error_at(DTypeError, "gradient", "a bool array with lazy coordinates is not supported: "
                                                       "NumPy subtracts bools (an error) only if the coordinates "
                                                       "are evenly spaced; pass them as a concrete array")
            uniform = _uniform_parts(f, ax, ax_dx[1], edge_order)
            other = _nonuniform_parts(f, ax, ax_dx[2], edge_order)
            parts = [fnp.where(ax_dx[0], u, o) for u, o in zip(uniform, other)]
        parts = [p.astype(otype) if p.dtype != otype else p for p in parts]  # NumPy assigns into otype
        outvals.append(fnp.concatenate(parts, axis=ax))
    if len(axes) == 1:
        return outvals[0]
    return tuple(outvals)


def _pad_values(values, dtype, op: str, name: str):
    if values is None:
        return None
    values = values if isinstance(values, Tensor) else np.asanyarray(values)
    if not np.can_cast(values.dtype, dtype, casting="same_kind"):
        raise error_at(DTypeError, op, f"dtype of `{name}` must be compatible with input `ary` under the "
                                       "`same_kind` rule.")
    return lazy(values).ravel().astype(dtype)


def ediff1d(ary, to_end=None, to_begin=None):
    """Lazy ``numpy.ediff1d``: differences of the flattened array, with values before and after."""
    fnp = namespace()
    ary = lazy(ary).ravel()
    if to_begin is None and to_end is None:
        return ary[1:] - ary[:-1]
    begin = _pad_values(to_begin, ary.dtype, "ediff1d", "to_begin")
    end = _pad_values(to_end, ary.dtype, "ediff1d", "to_end")
    parts = [p for p in (begin, ary[1:] - ary[:-1], end) if p is not None]
    return fnp.concatenate(parts)


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """Lazy ``numpy.unwrap`` (``axis`` and ``period`` Python values; ``discont`` may be lazy)."""
    fnp = namespace()
    p = lazy(p)
    axis = axis_index(axis, p.ndim, "unwrap")
    python_value(period, "unwrap", "period", "NumPy branches on its value")
    dd = fnp.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = np.result_type(dd.dtype, period)
    if np.issubdtype(dtype, np.integer):
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high = period / 2
        boundary_ambiguous = True
    interval_low = -interval_high
    ddmod = fnp.mod(dd - interval_low, period) + interval_low
    if boundary_ambiguous:
        # NumPy: where |dd| == period/2 the line above made ddmod -period/2; give it dd's sign
        high = fnp.asarray(np.asarray(interval_high).astype(ddmod.dtype))
        ddmod = fnp.where((ddmod == interval_low) & (dd > 0), high, ddmod)
    ph_correct = ddmod - dd
    ph_correct = fnp.where(abs(dd) < discont, fnp.zeros((), ph_correct.dtype), ph_correct)
    up = p.astype(dtype) if p.dtype != dtype else p
    rest = _cut(p, axis, 1, None) + ph_correct.cumsum(axis)
    return fnp.concatenate((_cut(up, axis, None, 1), rest.astype(dtype)), axis=axis)


# ---------------------------------------------------------------- windows, i0

def _window_length(op: str, *values):
    """NumPy's ``np.array([0.0, M, ...])``: the values as one (at least float64) dtype."""
    for value, name in zip(values, ("M", "beta")):
        python_value(value, op, name, "window functions take numbers")
    try:
        array = np.array((0.0,) + values)
        small = array[1] < 1
    except (TypeError, ValueError) as e:
        raise error_at(DTypeError, op, str(e)) from None
    return array, small


def _window(op: str, M, formula):
    fnp = namespace()
    values, small = _window_length(op, M)
    M = values[1]
    if small:
        return fnp.zeros(0, values.dtype)
    if M == 1:
        return fnp.ones(1, values.dtype)
    return formula(fnp.arange(1 - M, M, 2), M)


def hamming(M):
    """Lazy ``numpy.hamming`` window (``M`` a Python number)."""
    cos, pi = namespace().cos, np.pi
    return _window("hamming", M, lambda n, M: 0.54 + 0.46 * cos(pi * n / (M - 1)))


def hanning(M):
    """Lazy ``numpy.hanning`` window (``M`` a Python number)."""
    cos, pi = namespace().cos, np.pi
    return _window("hanning", M, lambda n, M: 0.5 + 0.5 * cos(pi * n / (M - 1)))


def blackman(M):
    """Lazy ``numpy.blackman`` window (``M`` a Python number)."""
    cos, pi = namespace().cos, np.pi
    return _window("blackman", M,
                   lambda n, M: 0.42 + 0.5 * cos(pi * n / (M - 1)) + 0.08 * cos(2.0 * pi * n / (M - 1)))


def bartlett(M):
    """Lazy ``numpy.bartlett`` window (``M`` a Python number)."""
    fnp = namespace()
    return _window("bartlett", M,
                   lambda n, M: fnp.where(fnp.less_equal(n, 0), 1 + n / (M - 1), 1 - n / (M - 1)))


def kaiser(M, beta):
    """Lazy ``numpy.kaiser`` window (``M`` and ``beta`` Python numbers)."""
    fnp = namespace()
    values, _ = _window_length("kaiser", M, beta)
    M, beta = values[1], values[2]
    if M == 1:
        return fnp.ones(1, values.dtype)
    n = fnp.arange(0, M)
    alpha = (M - 1) / 2.0
    return i0(beta * fnp.sqrt(1 - ((n - alpha) / alpha)**2.0)) / i0(fnp.asarray(beta))


def _chbevl(x, vals):
    b0 = vals[0]
    b1 = 0.0
    for i in range(1, len(vals)):
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + vals[i]
    return 0.5 * (b0 - b2)


def i0(x):
    """Lazy ``numpy.i0``: both of NumPy's Chebyshev series, one selected per element."""
    fnp = namespace()
    x = lazy(x)
    if x.dtype.kind == "c":
        raise error_at(DTypeError, "i0", "i0 not supported for complex values")
    if x.dtype.kind != "f":
        x = x.astype(float)
    x = fnp.abs(x)
    small = x <= 8.0
    # each series on safe stand-ins where the other is chosen (no overflow or 0-division warnings)
    xa = fnp.where(small, x, 0.0)
    xb = fnp.where(small, 16.0, x)
    below = fnp.exp(xa) * _chbevl(xa / 2.0 - 2, _impl._i0A)
    above = fnp.exp(xb) * _chbevl(32.0 / xb - 2.0, _impl._i0B) / fnp.sqrt(xb)
    return fnp.where(small, below, above)

refuse_batching(("correlate",), "a correlation slides over the whole (1-d) signal: its rows mix")

"""NumPy's statistics and binning functions as compositions of other ops (no
op or kernel of their own): ``cov``, ``corrcoef``, ``digitize``, ``interp``,
``isin``, ``histogram_bin_edges``, ``histogram``, ``histogramdd`` and
``histogram2d``.

Each follows NumPy's own definition step by step, so dtypes are NumPy's and
values are NumPy's bit for bit where the same operations run in the same
order.  Output shapes are static: arguments that decide them (``bins`` as an
int, ``rowvar``) and the ones NumPy checks before computing (``range``,
``ddof``, ``period``) must be Python values.  Checks NumPy makes on the data
(monotonic bins, non-negative weights, a finite autodetected range) are made
now on concrete arrays, and on lazy ones where the graph runs (a ``check``
node, ``ops/checks.py``): NumPy's ValueError either way.  Counting and membership sort and binary-search
(O((n + m) log n) time, O(n + m) memory); nothing builds an n x m matrix.
"""
from __future__ import annotations

import builtins
import operator
import warnings

import numpy as np

from ..errors import FgraphError, also
from ..tensor import Tensor
from ..symbol import error_at
from .checks import checked
from .building import known_value, lazy, namespace, python_value
from .elementwise import make_complex
from .indexing import scatter_add

__all__ = ["cov", "corrcoef", "digitize", "interp", "isin", "bincount", "histogram_bin_edges", "histogram",
           "histogramdd", "histogram2d"]

_INTP = np.dtype(np.intp)
_range = builtins.range  # ``range`` is an argument name below, as in NumPy


def _refuse(fn: str, msg: str):
    return error_at(FgraphError, fn, msg)  # the location is the first frame outside fgraph


def _assign(target_dtype, value, fn: str):
    """NumPy's in-place ``x op= y``: the result cast back to ``x``'s dtype under 'same_kind'."""
    if not np.can_cast(value.dtype, target_dtype, "same_kind"):
        raise _refuse(fn, f"Cannot cast ufunc output from dtype('{value.dtype}') to dtype('{target_dtype}') "
                          "with casting rule 'same_kind'")
    return value if value.dtype == target_dtype else value.astype(target_dtype)


def _complex(re, im, dtype):
    """The complex array with parts ``re`` and ``im``, exactly, in ``dtype``."""
    c = make_complex(re, im)
    return c if c.dtype == dtype else c.astype(dtype)


# ---------------------------------------------------------------- cov, corrcoef

def _ndmin2(x, dtype):
    x = x.astype(dtype)
    return x.reshape((1,) * (2 - x.ndim) + x.shape) if x.ndim < 2 else x


def _concrete_weights(w, X, fn: str, what: str, integer: bool):
    """NumPy's checks of ``fweights``/``aweights`` (the data checks only when concrete)."""
    known = known_value(w)
    if known is not None:
        known = known.astype(float)
        if integer and not np.all(known == np.around(known)):
            raise _refuse(fn, "fweights must be integer")
    wl = lazy(w).astype(np.float64)
    if wl.ndim > 1:
        raise _refuse(fn, f"cannot handle multidimensional {what}")
    if wl.ndim == 0:
        raise _refuse(fn, f"{what} must be 1-D, got a scalar")
    if wl.shape[0] != X.shape[1]:
        raise _refuse(fn, f"incompatible numbers of samples and {what}")
    if known is not None and np.any(known < 0):
        raise _refuse(fn, f"{what} cannot be negative")
    if known is None:  # checked where the graph runs
        fnp = namespace()
        if integer:
            wl = checked(wl, wl == fnp.around(wl), fn, "fweights must be integer")
        wl = checked(wl, ~(wl < 0), fn, f"{what} cannot be negative")
    return wl


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """Lazy ``numpy.cov``; negative or non-integer lazy weights are not checked, and
    the "degrees of freedom <= 0" warning is given only when it is known now."""
    fnp = namespace()
    fn = "cov"
    rowvar = python_value(rowvar, fn, "rowvar", "it decides the output shape")
    bias = python_value(bias, fn, "bias", "it decides ddof")
    ddof = python_value(ddof, fn, "ddof", "it is checked now")
    if ddof is not None and ddof != int(ddof):
        raise _refuse(fn, "ddof must be integer")
    m = lazy(m)
    if m.ndim > 2:
        raise _refuse(fn, "m has more than 2 dimensions")
    if y is not None:
        y = lazy(y)
        if y.ndim > 2:
            raise _refuse(fn, "y has more than 2 dimensions")
    if dtype is None:
        dtype = np.result_type(m.dtype, np.float64) if y is None else np.result_type(m.dtype, y.dtype, np.float64)
    dtype = np.dtype(dtype)
    X = _ndmin2(m, dtype)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return fnp.zeros((0, 0), np.float64)
    if y is not None:
        Y = _ndmin2(y, dtype)
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = fnp.concatenate((X, Y), axis=0)
    if ddof is None:
        ddof = 1 if bias == 0 else 0

    w = None
    if fweights is not None:
        w = _concrete_weights(fweights, X, fn, "fweights", integer=True)
    if aweights is not None:
        aweights = _concrete_weights(aweights, X, fn, "aweights", integer=False)
        w = aweights if w is None else w * aweights

    avg, w_sum = fnp.average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        fact = X.shape[1] - ddof
        if fact <= 0:
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
            fact = 0.0
        with np.errstate(divide="ignore"):
            scale = fnp.asarray(np.true_divide(1, fact))
    else:
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            # NumPy uses Python's builtin sum here: a left-to-right sum, as cumsum's last element
            wa = w * aweights
            total = fnp.cumsum(wa)[-1] if wa.shape[0] else 0
            fact = w_sum - ddof * total / w_sum
        # NumPy sets fact = 0.0 (a float, even when fact was complex) where fact <= 0,
        # so its scale is a real infinity there, not 1 / (0+0j)
        scale = fnp.where(fact <= 0, np.inf, fnp.true_divide(1, fact))

    X = _assign(X.dtype, X - avg[:, None], fn)
    X_T = X.T if w is None else (X * w).T
    if X_T.dtype.kind == "c":
        X_T = fnp.conj(X_T)
    c = fnp.dot(X, X_T)
    c = _assign(c.dtype, c * scale, fn)
    return fnp.squeeze(c)


def corrcoef(x, y=None, rowvar=True, bias=np._NoValue, ddof=np._NoValue, *, dtype=None):
    """Lazy ``numpy.corrcoef``: ``cov`` scaled by the standard deviations, clipped to [-1, 1]."""
    fnp = namespace()
    if bias is not np._NoValue or ddof is not np._NoValue:
        warnings.warn("bias and ddof have no effect and are deprecated", DeprecationWarning, stacklevel=2)
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim != 2:
        return c / c  # a single variable: NaN for NaN, inf or 0, else 1
    stddev = fnp.sqrt(fnp.real(fnp.diagonal(c)))
    c = _assign(c.dtype, c / stddev[:, None], "corrcoef")
    c = _assign(c.dtype, c / stddev[None, :], "corrcoef")
    if c.dtype.kind != "c":
        return fnp.clip(c, -1, 1)
    re, im = fnp.real(c), fnp.imag(c)
    out = (fnp.abs(re) > 1) | (fnp.abs(im) > 1)  # rebuild only where a part is clipped
    return fnp.where(out, _complex(fnp.clip(re, -1, 1), fnp.clip(im, -1, 1), c.dtype), c)


# ---------------------------------------------------------------- digitize

def _monotonicity(xp, b):
    """NumPy's ``_monotonicity`` (1 increasing, -1 decreasing, 0 neither) on
    float64 ``b``, written for ``xp`` = numpy (concrete bins) or fgraph (lazy)."""
    n = b.shape[0]
    if n < 2:
        return 1
    differ = b[1:] != b[0]  # skip the leading run equal to b[0]
    i = 1 + xp.argmax(differ)
    rising = b[0] < xp.take(b, xp.minimum(i, n - 1))
    later = xp.arange(n - 1) >= i  # the pairs (k, k + 1) after the first change
    breaks_up = xp.any((b[:-1] > b[1:]) & later)
    breaks_down = xp.any((b[:-1] < b[1:]) & later)
    mono = xp.where(rising, xp.where(breaks_up, 0, 1), xp.where(breaks_down, 0, -1))
    return xp.where(xp.any(differ), mono, 1)


def digitize(x, bins, right=False):
    """Lazy ``numpy.digitize``; lazy bins that are not monotonic raise where the graph runs."""
    fnp = namespace()
    x = lazy(x)
    right = python_value(right, "digitize", "right", "it picks the search side")
    if x.dtype.kind == "c":
        raise _refuse("digitize", "x may not be complex")
    known = known_value(bins)
    b = lazy(bins)
    if b.ndim != 1:
        raise _refuse("digitize", f"bins must be 1-D, got shape {b.shape}")
    if b.dtype.kind == "c":
        raise _refuse("digitize", f"bins of dtype {b.dtype} cannot be ordered as float64")
    side = "left" if right else "right"  # backwards because the arguments are swapped
    n = b.shape[0]
    if known is not None:
        mono = int(_monotonicity(np, known.astype(np.float64)))
        if mono == 0:
            raise _refuse("digitize", "bins must be monotonically increasing or decreasing")
        if mono == -1:
            return n - fnp.searchsorted(fnp.flip(b), x, side=side)
        return fnp.searchsorted(b, x, side=side)
    mono = _monotonicity(fnp, b.astype(np.float64))
    b = checked(b, mono != 0, "digitize", "bins must be monotonically increasing or decreasing")
    return fnp.where(mono == -1, n - fnp.searchsorted(fnp.flip(b), x, side=side), fnp.searchsorted(b, x, side=side))


# ---------------------------------------------------------------- interp

def _interp_part(x, x0, x1, y0, y1, slope):
    """One real part between two sample points, as NumPy's ``compiled_interp``."""
    fnp = namespace()
    r = slope * (x - x0) + y0
    r2 = slope * (x - x1) + y1  # if we get NaN in one direction, NumPy tries the other
    r2 = fnp.where(fnp.isnan(r2) & (y0 == y1), y0, r2)
    r = fnp.where(fnp.isnan(r), r2, r)
    return fnp.where(x0 == x, y0, r)  # avoids a non-finite interpolation


def interp(x, xp, fp, left=None, right=None, period=None):
    """Lazy ``numpy.interp`` (real or complex ``fp``); ``xp`` is assumed increasing, as NumPy does."""
    fnp = namespace()
    fn = "interp"
    period = python_value(period, fn, "period", "it is checked now")
    fp = lazy(fp)
    complex_fp = fp.dtype.kind == "c"
    input_dtype = np.dtype(np.complex128 if complex_fp else np.float64)
    x, xp = lazy(x), lazy(xp)
    for name, v in (("x", x), ("xp", xp)):
        if v.dtype.kind == "c":
            raise _refuse(fn, f"{name} may not be complex (it is cast to float64)")
    x, xp, fp = x.astype(np.float64), xp.astype(np.float64), fp.astype(input_dtype)
    if xp.ndim != 1 or fp.ndim != 1:
        raise _refuse(fn, "Data points must be 1-D sequences")
    if xp.shape[0] != fp.shape[0]:
        raise _refuse(fn, "fp and xp are not of the same length")
    if xp.shape[0] == 0:
        raise _refuse(fn, "array of sample points is empty")
    if period is not None:
        if period == 0:
            raise _refuse(fn, "period must be a non-zero value")
        period = abs(period)
        left = right = None
        x = x % period
        xp = xp % period
        order = fnp.argsort(xp)
        xp, fp = fnp.take(xp, order), fnp.take(fp, order)
        xp = fnp.concatenate((xp[-1:] - period, xp, xp[0:1] + period))
        fp = fnp.concatenate((fp[-1:], fp, fp[0:1]))
    bounds = []
    for name, v in (("left", left), ("right", right)):
        if v is not None:
            if np.ndim(v) != 0:
                raise _refuse(fn, f"{name} must be a scalar, got shape {np.shape(v)}")
            if not complex_fp and (v.dtype.kind == "c" if isinstance(v, Tensor) else np.iscomplexobj(v)):
                raise _refuse(fn, f"{name} must be real for real fp")
            v = lazy(v).astype(input_dtype)
        bounds.append(v)
    left, right = bounds
    n = xp.shape[0]
    lval = fp[0] if left is None else left
    rval = fp[-1] if right is None else right
    if n == 1:  # NumPy's special case, without its NaN check on x
        return fnp.where(x < xp[0], lval, fnp.where(x > xp[0], rval, fp[0]))
    j = fnp.searchsorted(xp, x, side="right") - 1  # the last xp[j] <= x, as NumPy's binary search
    j = fnp.where(x > xp[-1], n, j)
    jc = fnp.clip(j, 0, n - 2)
    x0, x1 = fnp.take(xp, jc), fnp.take(xp, jc + 1)
    y0, y1 = fnp.take(fp, jc), fnp.take(fp, jc + 1)
    if complex_fp:
        inv_dx = 1.0 / (x1 - x0)
        parts = [_interp_part(x, x0, x1, part(y0), part(y1), (part(y1) - part(y0)) * inv_dx)
                 for part in (fnp.real, fnp.imag)]
        inner = _complex(parts[0], parts[1], input_dtype)
        nan_value = _complex(x, fnp.zeros(x.shape, np.float64), input_dtype)
    else:
        inner = _interp_part(x, x0, x1, y0, y1, (y1 - y0) / (x1 - x0))
        nan_value = x
    out = fnp.where(j == -1, lval, fnp.where(j == n, rval, fnp.where(j == n - 1, fp[-1], inner)))
    return fnp.where(fnp.isnan(x), nan_value, out)


# ---------------------------------------------------------------- isin

def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Lazy ``numpy.isin`` by sorting ``test_elements`` and binary search; ``assume_unique``
    is accepted and the result is always the true membership (NumPy's, for unique inputs)."""
    fnp = namespace()
    fn = "isin"
    invert = python_value(invert, fn, "invert", "it is a flag")
    if kind not in (None, "sort", "table"):
        raise _refuse(fn, f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    e, t = lazy(element), fnp.ravel(lazy(test_elements))
    if kind == "table" and not all(v.dtype.kind in "uib" for v in (e, t)):
        raise _refuse(fn, "The 'table' method is only supported for boolean or integer arrays. "
                          "Please select 'sort' or None for kind.")
    common = np.result_type(e.dtype, t.dtype)  # the dtype NumPy's concatenation compares in
    m = t.shape[0]
    if m == 0:
        found = fnp.zeros(e.shape, bool)
    else:
        ts = fnp.sort(t.astype(common))
        ev = e.astype(common)
        i = fnp.searchsorted(ts, ev, side="left")  # the first ts[i] >= ev: equal iff present
        found = fnp.take(ts, fnp.minimum(i, m - 1)) == ev
    return ~found if invert else found


# ---------------------------------------------------------------- bincount

def bincount(x, weights=None, minlength=0):
    """Lazy ``numpy.bincount`` with ``minlength``: a static length.  NumPy
    lengthens the result to ``max(x) + 1``; a lazy count cannot, so a value
    at or past ``minlength`` raises where the graph runs (known values now),
    as a negative one does in NumPy.  Without ``minlength``, ``x`` is
    evaluated outside tracing (its maximum is the length, as in NumPy) and
    refused under tracing."""
    fnp = namespace()
    fn = "bincount"
    minlength = python_value(minlength, fn, "minlength", "it decides the result's length")
    x = lazy(x)
    if x.ndim != 1:
        raise _refuse(fn, f"x must be 1-D, not {x.ndim}-d {tuple(x.shape)}")
    if not np.can_cast(x.dtype, np.intp, "safe"):
        raise _refuse(fn, f"Cannot cast array data from dtype('{x.dtype}') to dtype('int64') according to the "
                          "rule 'safe'")
    if minlength is None or minlength < 0:
        raise _refuse(fn, "'minlength' must not be negative")
    known = known_value(x)
    if known is None and minlength == 0 and x.node.concrete:  # np.bincount(r.ravel()): max(x) + 1 bins,
        known = np.asarray(x.eval())                          # known now outside tracing (an evaluation point)
    length = minlength
    if known is not None and known.size:
        if known.min() < 0:
            raise _refuse(fn, "'list' argument must have no negative elements")
        length = max(minlength, int(known.max()) + 1)  # known now: NumPy's own length
    elif known is None:
        if length == 0:
            raise _refuse(fn, "the result's length (max(x) + 1) depends on the data: give minlength, the "
                              "number of bins")
        x = checked(x, x >= 0, fn, "'list' argument must have no negative elements")
        x = checked(x, x < length, fn, f"a value >= minlength ({length}) would lengthen the result, "
                                       "whose length is static here")
    if x.shape[0] == 0:  # NumPy returns before it reads the weights: intp zeros
        return fnp.zeros(length, np.intp)
    idx = x.astype(np.intp)
    if weights is None:
        return scatter_add(fnp.ones(x.shape, np.intp), [idx], (length,), ("a",))
    weights = lazy(weights)
    if weights.shape != x.shape:
        raise _refuse(fn, "The weights and list don't have the same length.")
    if not np.can_cast(weights.dtype, np.float64, "safe"):
        raise _refuse(fn, f"Cannot cast array data from dtype('{weights.dtype}') to dtype('float64') according "
                          "to the rule 'safe'")
    return _bincount(idx, weights, length)


# ---------------------------------------------------------------- histogram

def _unsigned_subtract(a, b):
    """NumPy's ``_unsigned_subtract`` on concrete values (``a >= b``)."""
    dt = np.result_type(a, b)
    if dt.kind == "i":
        return np.subtract(np.asarray(a, dtype=dt), np.asarray(b, dtype=dt), casting="unsafe",
                           dtype=np.dtype(f"u{dt.itemsize}"))
    return np.subtract(a, b, dtype=dt)


def _ravel_and_check_weights(a, weights, fn):
    a = lazy(a)
    if a.dtype == np.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {np.uint8} for compatibility.", RuntimeWarning,
                      stacklevel=3)
        a = a.astype(np.uint8)
    if weights is not None:
        weights = lazy(weights)
        if weights.shape != a.shape:
            raise _refuse(fn, "weights should have the same shape as a.")
        weights = namespace().ravel(weights)
    return namespace().ravel(a), weights


class _Edges:
    """The bin edges, with NumPy's uniform-bin parameters when ``bins`` is an int."""

    def __init__(self, edges, first=None, last=None, n=None, denom=None):
        self.edges, self.first, self.last, self.n, self.denom = edges, first, last, n, denom


def _get_bin_edges(a, bins, range, weights, fn) -> _Edges:
    """NumPy's ``_get_bin_edges``: from the range (known now), or lazily from the data's min and max."""
    fnp = namespace()
    if isinstance(bins, str):
        if not a.node.concrete:
            raise _refuse(fn, f"bins={bins!r}: the number of bins would depend on the data, which a lazy "
                              "array's shape cannot; pass an int or an array of edges")
        # outside tracing the data is known now (an evaluation point): NumPy's estimator gives the
        # count, and NumPy then makes the edges as for that many equal bins, as below
        range = python_value(range, fn, "range", "it is checked now and sets the bin type")
        w = None if weights is None else np.zeros(weights.shape, weights.dtype)  # NumPy refuses any weights
        try:
            bins = len(np.histogram_bin_edges(np.asarray(a.eval()), bins, range, w)) - 1
        except (ValueError, TypeError, MemoryError) as e:  # (MemoryError: a vast count, as NumPy's)
            raise error_at(also(MemoryError if isinstance(e, MemoryError) else type(e)), fn, str(e)) from None
    if isinstance(bins, Tensor) and bins.ndim == 0:
        python_value(bins, fn, "bins", "as a count it decides the output shape")
    range = python_value(range, fn, "range", "it is checked now and sets the bin type")
    if np.ndim(bins) == 1:
        edges = known_value(bins)
        if edges is not None:
            if np.any(edges[:-1] > edges[1:]):
                raise _refuse(fn, "`bins` must increase monotonically, when an array")
            return _Edges(lazy(bins))
        b = lazy(bins)
        return _Edges(checked(b, ~(b[:-1] > b[1:]), fn, "`bins` must increase monotonically, when an array"))
    if np.ndim(bins) != 0:
        raise _refuse(fn, "`bins` must be 1d, when an array")
    try:
        n = operator.index(bins)
    except TypeError:
        raise _refuse(fn, "`bins` must be an integer, a string, or an array") from None
    if n < 1:
        raise _refuse(fn, "`bins` must be positive, when an integer")

    if range is not None or a.shape[0] == 0:
        if range is not None:
            first, last = range
            if first > last:
                raise _refuse(fn, "max must be larger than min in range parameter.")
            if not (np.isfinite(first) and np.isfinite(last)):
                raise _refuse(fn, f"supplied range of [{first}, {last}] is not finite")
        else:
            first, last = 0, 1  # an empty array: NumPy's default range
        if first == last:
            first, last = first - 0.5, last + 0.5
        bin_type = np.result_type(first, last, np.empty(0, a.dtype))
        if bin_type.kind in "iub":
            bin_type = np.result_type(bin_type, float)
        edges = np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
        if np.any(edges[:-1] >= edges[1:]):
            raise _refuse(fn, f"Too many bins for data range. Cannot create {n} finite-sized bins.")
        return _Edges(fnp.asarray(edges), first, last, n, fnp.asarray(np.asarray(_unsigned_subtract(last, first))))

    # range from the data: NumPy raises when it is not finite (checked where the graph
    # runs; every value below depends on the checked ends).  Its "too many bins" check is not made.
    lo, hi = fnp.min(a), fnp.max(a)
    bin_type = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    finite = fnp.isfinite(lo) & fnp.isfinite(hi)
    lo, hi = (checked(v, finite, fn, "the autodetected range of the data is not finite") for v in (lo, hi))
    same = lo == hi
    if a.dtype.kind in "iu":
        # NumPy's edges are integers then, or float64 after the +-0.5; denominator in unsigned integers
        lo_e = fnp.where(same, lo - 0.5, lo.astype(np.float64))
        hi_e = fnp.where(same, hi + 0.5, hi.astype(np.float64))
        ut = np.dtype(f"u{a.dtype.itemsize}")
        denom = fnp.where(same, hi_e - lo_e, (hi.astype(ut) - lo.astype(ut)).astype(np.float64))
    else:
        lo_e = fnp.where(same, lo - 0.5, lo)
        hi_e = fnp.where(same, hi + 0.5, hi)
        denom = hi_e - lo_e
    edges = fnp.linspace(lo_e, hi_e, n + 1, endpoint=True, dtype=bin_type)
    return _Edges(edges, lo_e, hi_e, n, denom)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """Lazy ``numpy.histogram_bin_edges`` (``bins`` an int or 1-D edges; the string
    estimators are refused)."""
    a, weights = _ravel_and_check_weights(a, weights, "histogram_bin_edges")
    return _get_bin_edges(a, bins, range, weights, "histogram_bin_edges").edges


def _search_sorted_inclusive(a, v):
    """``searchsorted``, the last edge on the right: the last bin is closed."""
    fnp = namespace()
    return fnp.concatenate((fnp.searchsorted(a, v[:-1], side="left"), fnp.searchsorted(a, v[-1:], side="right")))


#: NumPy's histogram counts its data in blocks of this many values
BLOCK = 65536


def _bincount(idx, weights, length: int):
    """``numpy.bincount(idx, weights, minlength=length)`` for indices below
    ``length``: the weights, as float64, added to their bins in data order
    (``numpy.add.at``), as bincount adds them: the same float64 sums."""
    return scatter_add(weights.astype(np.float64), [idx], (length,), ("a",))


def _blocked_bincount(idx, weights, length: int, ntype):
    """NumPy's ``n += bincount(block).astype(ntype)`` over blocks of
    ``BLOCK`` values (complex weights: each part alike), in order."""
    fnp = namespace()

    def count(w, dtype, cast_first: bool):
        nblocks = -(-idx.shape[0] // BLOCK)
        if nblocks <= 1:
            return _bincount(idx, w, length).astype(dtype)
        block = fnp.arange(idx.shape[0], dtype=np.intp) // BLOCK
        per_block = scatter_add(w.astype(np.float64), [block, idx], (nblocks, length), ("a", "a"))
        if cast_first:  # n += b.astype(ntype): n = 0 + b0, then + b1, ... in ntype
            return fnp.cumsum(per_block.astype(dtype), axis=0)[-1]
        n = per_block[0].astype(dtype)  # n.real += b: each sum in float64, then stored in the part's dtype
        for b in range(1, nblocks):
            n = (n.astype(np.float64) + per_block[b]).astype(dtype)
        return n

    if ntype.kind != "c":
        return count(weights, ntype, True)
    part = np.empty(0, ntype).real.dtype
    return make_complex(count(fnp.real(weights), part, False), count(fnp.imag(weights), part, False))


def _uniform_counts(a, weights, eb: _Edges, ntype):
    """NumPy's equal-bins path: bin indices by arithmetic, corrected by one
    against the edges, then counted: by sorting them, or, weighted, by
    NumPy's bincount sums (``scatter_add``)."""
    fnp = namespace()
    n, edges = eb.n, eb.edges
    keep = (a >= eb.first) & (a <= eb.last)
    tmp = a.astype(edges.dtype)
    f = ((tmp - eb.first) / eb.denom) * n
    f = fnp.where(keep, f, 0).astype(f.dtype)  # dropped values (NaN, inf too) take a valid index, replaced below
    idx = f.astype(np.intp)
    idx = fnp.where(idx == n, idx - 1, idx)
    idx = idx - (tmp < fnp.take(edges, idx)).astype(np.intp)
    idx = idx + ((tmp >= fnp.take(edges, idx + 1)) & (idx != n - 1)).astype(np.intp)
    idx = fnp.where(keep, idx, n)  # a bin past the last: not counted
    targets = fnp.arange(n + 1, dtype=np.intp)
    if weights is None:
        return fnp.diff(fnp.searchsorted(fnp.sort(idx), targets, side="left"))
    return _blocked_bincount(idx, weights, n + 1, ntype)[:n]  # (bin n: the values dropped)


def _cumulative_counts(a, weights, edges, ntype, fn):
    """NumPy's path for array bins: sort, search every edge, difference."""
    fnp = namespace()
    if edges.shape[0] == 0 or a.shape[0] == 0:  # NumPy's loop over blocks of the data does not run
        return fnp.diff(fnp.zeros(edges.shape, ntype))
    if weights is None:
        return fnp.diff(_search_sorted_inclusive(fnp.sort(a), edges).astype(ntype))
    order = fnp.argsort(a)
    sa, sw = fnp.take(a, order), fnp.take(weights, order)
    cw = fnp.concatenate((fnp.zeros(1, ntype), fnp.cumsum(sw)))
    cum = fnp.zeros(edges.shape, ntype) + fnp.take(cw, _search_sorted_inclusive(sa, edges))
    return fnp.diff(_assign(ntype, cum, fn))


def histogram(a, bins=10, range=None, density=None, weights=None):
    """Lazy ``numpy.histogram``: ``(counts, edges)``; ``bins`` an int or 1-D edges (the string
    estimators are refused).  With ``range=None`` the edges come from the data's min and max
    lazily; NaN or infinity in the data raises NumPy's ValueError where the graph runs."""
    fnp = namespace()
    fn = "histogram"
    density = python_value(density, fn, "density", "it is a flag")
    a, weights = _ravel_and_check_weights(a, weights, fn)
    eb = _get_bin_edges(a, bins, range, weights, fn)
    ntype = _INTP if weights is None else weights.dtype
    if eb.n is not None and ntype.kind in "biufc":
        counts = _uniform_counts(a, weights, eb, ntype)
    else:
        counts = _cumulative_counts(a, weights, eb.edges, ntype, fn)
    if density:
        db = fnp.diff(eb.edges).astype(np.float64)
        return counts / db / fnp.sum(counts), eb.edges
    return counts, eb.edges


# ---------------------------------------------------------------- histogramdd, histogram2d

def _sample_2d(sample, fn):
    """NumPy's ``(N, D)`` sample (an array as it is when 2-D, else ``atleast_2d(sample).T``),
    lazy, and its value when known now (else None)."""
    fnp = namespace()
    if isinstance(sample, (list, tuple)) and any(isinstance(v, Tensor) for v in sample):
        s, known = fnp.stack([lazy(v) for v in sample]), None  # NumPy's np.array of equal-shaped parts
    else:
        known = known_value(sample)
        s = lazy(sample) if isinstance(sample, Tensor) else lazy(known)
    if not (isinstance(sample, (Tensor, np.ndarray)) and s.ndim == 2):
        s = fnp.atleast_2d(s).T
        known = None if known is None else np.atleast_2d(known).T
    if s.ndim != 2:
        raise _refuse(fn, "the sample must be an (N, D) array or a sequence of D 1-D arrays, got shape "
                          f"{s.shape[::-1]}")
    return s, known


def _dd_edges(column, known, bins, range, i, fn):
    """NumPy's edges for one dimension: ``linspace`` over the range (known now) or over the
    data's min and max (lazy: a range that is not finite raises where the graph runs)."""
    fnp = namespace()
    if np.ndim(bins) == 0:
        python_value(bins, fn, f"bins[{i}]", "as a count it decides the output shape")
        if bins < 1:
            raise _refuse(fn, f"`bins[{i}]` must be positive, when an integer")
        try:
            n = operator.index(bins)
        except TypeError:
            raise _refuse(fn, f"`bins[{i}]` must be an integer, when a scalar") from None
        if range is not None:
            first, last = python_value(range, fn, f"range[{i}]", "it is checked now")
            if first > last:
                raise _refuse(fn, "max must be larger than min in range parameter.")
            if not (np.isfinite(first) and np.isfinite(last)):
                raise _refuse(fn, f"supplied range of [{first}, {last}] is not finite")
        elif column.shape[0] == 0:
            first, last = 0, 1
        else:
            if known is not None and not np.all(np.isfinite([known.min(), known.max()])):
                raise _refuse(fn, f"autodetected range of [{known.min()}, {known.max()}] is not finite")
            lo, hi = fnp.min(column), fnp.max(column)
            if lo.dtype.kind not in "fc":  # NumPy's linspace multiplies by 1.0 first
                lo, hi = lo.astype(np.float64), hi.astype(np.float64)
            same, finite = lo == hi, fnp.isfinite(lo) & fnp.isfinite(hi)
            lo, hi = (checked(v, finite, fn, "the autodetected range of the data is not finite") for v in (lo, hi))
            lo = fnp.where(same, lo - 0.5, lo).astype(lo.dtype)
            hi = fnp.where(same, hi + 0.5, hi).astype(hi.dtype)
            return fnp.linspace(lo, hi, n + 1, dtype=lo.dtype)
        if first == last:
            first, last = first - 0.5, last + 0.5
        return fnp.asarray(np.linspace(first, last, n + 1))
    if np.ndim(bins) == 1:
        given = known_value(bins)
        if given is not None and np.any(given[:-1] > given[1:]):
            raise _refuse(fn, f"`bins[{i}]` must be monotonically increasing, when an array")
        edges = lazy(bins)
        if edges.shape[0] == 0:
            raise _refuse(fn, f"`bins[{i}]` is empty: NumPy indexes its last edge (index -1 is out of bounds)")
        if given is None:
            edges = checked(edges, ~(edges[:-1] > edges[1:]), fn,
                            f"`bins[{i}]` must be monotonically increasing, when an array")
        return edges
    raise _refuse(fn, f"`bins[{i}]` must be a scalar or 1d array")


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """Lazy ``numpy.histogramdd``: ``(hist, edges)``, ``hist`` float64.  ``bins`` an int, a
    sequence of ints or of 1-D edges.  NumPy's checks of lazy data (increasing edges, a
    finite range found from the data) raise its ValueError where the graph runs."""
    fnp = namespace()
    fn = "histogramdd"
    density = python_value(density, fn, "density", "it is a flag")
    range = python_value(range, fn, "range", "it is checked now")
    sample, known = _sample_2d(sample, fn)
    N, D = sample.shape
    if isinstance(bins, Tensor) and bins.ndim == 0:
        python_value(bins, fn, "bins", "as a count it decides the output shape")
    try:
        if len(bins) != D:
            raise _refuse(fn, "The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = D * [bins]
    if range is None:
        range = (None,) * D
    elif len(range) != D:
        raise _refuse(fn, "range argument must have one entry per dimension")
    if D == 0:
        raise _refuse(fn, "the sample has no dimensions (NumPy: object of too small depth)")
    edges = [_dd_edges(sample[:, i], None if known is None else known[:, i], bins[i], range[i], i, fn)
             for i in _range(D)]
    core = tuple(e.shape[0] - 1 for e in edges)  # the bins without NumPy's two outliers per dimension

    # NumPy's bin numbers (searchsorted, the last edge moved into the last bin), then one
    # flat index of the core bins; a point outside any dimension's edges goes past the end
    total = int(np.prod(core))
    flat = fnp.zeros(N, np.intp)
    inside = fnp.ones(N, bool)
    for i in _range(D):
        column = sample[:, i]
        k = fnp.searchsorted(edges[i], column, side="right")
        k = k - (column == edges[i][-1]).astype(np.intp)
        inside = inside & (k >= 1) & (k <= core[i])
        flat = flat * core[i] + (k - 1)
    flat = fnp.where(inside, flat, total)
    targets = fnp.arange(total + 1, dtype=np.intp)
    if weights is None:
        hist = fnp.diff(fnp.searchsorted(fnp.sort(flat), targets, side="left")).astype(np.float64)
    else:
        weights = lazy(weights)
        if weights.ndim != 1 or weights.shape[0] != N:
            raise _refuse(fn, f"weights must be 1-D with one weight per sample point ({N}), got shape "
                              f"{weights.shape} (NumPy's bincount: the weights and list don't have the same length)")
        if not np.can_cast(weights.dtype, np.float64, "safe"):
            raise _refuse(fn, f"Cannot cast array data from dtype('{weights.dtype}') to dtype('float64') "
                              "according to the rule 'safe'")
        hist = _bincount(flat, weights, total + 1)[:total]  # NumPy's one bincount (bin total: outliers)
    hist = hist.reshape(core)
    if density:
        s = hist.sum()
        for i in _range(D):
            shape = [1] * D
            shape[i] = core[i]
            hist = hist / fnp.diff(edges[i]).reshape(shape)
        hist = hist / s
    return hist, edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """Lazy ``numpy.histogram2d``: ``(hist, xedges, yedges)``, NumPy's wrapper over ``histogramdd``."""
    fn = "histogram2d"
    x, y = lazy(x), lazy(y)
    if x.ndim == 0 or y.ndim == 0:
        raise _refuse(fn, "len() of unsized object: x and y must be sequences")
    if x.shape[0] != y.shape[0]:
        raise _refuse(fn, "x and y must have the same length.")
    if isinstance(bins, Tensor) and bins.ndim == 0:
        python_value(bins, fn, "bins", "as a count it decides the output shape")
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in {1, 2}:
        bins = [bins, bins]  # one array of edges for both
    hist, edges = histogramdd([x, y], bins, range, density, weights)  # its errors name histogramdd, as NumPy's
    return hist, edges[0], edges[1]

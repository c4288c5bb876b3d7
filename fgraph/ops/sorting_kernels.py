"""The reference NumPy kernels of the sorting ops (``ops/sorting.py`` declares
them): NumPy itself, with the user's ``kind``."""
import math

import numpy as np

#: the out-kernels' pieces hold about this many elements (tests make it tiny)
CHUNK = 1 << 14

_ORDER_STATS = {name: getattr(np, name) for name in
                ("median", "nanmedian", "percentile", "nanpercentile", "quantile", "nanquantile")}


def order_stat_call(name, a, q, weights, axis, keepdims, method):
    """Call NumPy's ``name`` with normalised params (shared by the rule and the kernel)."""
    fn = _ORDER_STATS[name]
    ax = axis if axis is None or len(axis) != 1 else axis[0]
    if "median" in name:
        return fn(a, axis=ax, keepdims=keepdims)
    kw = {} if weights is None else {"weights": weights}
    return fn(a, q, axis=ax, keepdims=keepdims, method=method, **kw)

from .indexing_kernels import into, pieces  # noqa: E402  (the indexing family's piece helpers)


def _flat(x, axis):
    """(array, axis) with axis=None meaning the flattened array, as NumPy."""
    x = np.asarray(x)
    return (x.reshape(-1), 0) if axis is None else (x, axis)


def sort(x, axis, kind, stable, descending):
    x, axis = _flat(x, axis)
    if not descending:
        return np.sort(x, axis=axis, kind=kind, stable=stable)
    # stable descending (Array API): sort the reversed array stably, reverse back
    return np.flip(np.sort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def argsort(x, axis, kind, stable, descending):
    x = np.asarray(x)
    if not descending:
        return np.argsort(x, axis=axis, kind=kind, stable=stable)
    x, axis = (x.reshape(-1), 0) if axis is None or x.ndim == 0 else (x, axis)
    idx = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (x.shape[axis] - 1) - np.flip(idx, axis)


def partition(x, kth, axis, kind):
    return np.partition(x, kth, axis=axis, kind=kind)


def argpartition(x, kth, axis, kind):
    return np.argpartition(x, kth, axis=axis, kind=kind)


def lexsort(*keys, axis):
    return np.lexsort(keys, axis=axis)


def order_stat(name):
    """The kernel of order statistic ``name`` (median, quantile, ...): NumPy's own."""
    def kernel(a, *rest, axis, keepdims, method=None, weighted=False):
        q = rest[0] if rest else None
        r = order_stat_call(name, a, q, rest[1] if weighted else None, axis, keepdims, method)
        a = np.asarray(a)
        if a.dtype.kind in "fc" and np.isnan(a).any():
            # NumPy returns a NaN slice's (nan-functions: an all-NaN slice's) value
            # in the input's dtype: a data-dependent dtype; the graph keeps the one
            # every other input gets
            usual = order_stat_call(name, np.zeros(1, a.dtype), q, None, None, False, method)
            r = np.asarray(r).astype(np.asarray(usual).dtype, copy=False)
        return r
    return kernel


# ---------------------------------------------------------------- out-kernels
#
# sort and partition copy into ``out`` and sort it in place, which is what
# np.sort / np.partition do with their own copy.  The index-valued ops have no
# ``out=`` in NumPy: they run on pieces cut along an axis they do not sort, so
# temporaries stay near CHUNK elements (a whole lane at least).


def _reverse(a, axis):
    """Reverse C-contiguous ``a`` along ``axis`` in place, swapping blocks of
    about CHUNK elements (np.copyto(a, np.flip(a)) would copy all of it)."""
    n = a.shape[axis]
    h = n // 2
    if h == 0 or a.size == 0:
        return
    pre, post = math.prod(a.shape[:axis]), math.prod(a.shape[axis + 1:])
    v = a.reshape(pre, n, post)
    bq = min(post, CHUNK)
    bi = min(h, max(1, CHUNK // bq))
    bp = min(pre, max(1, CHUNK // (bq * bi)))
    for p in range(0, pre, bp):
        for q in range(0, post, bq):
            for i in range(0, h, bi):
                j = min(i + bi, h)
                lo = v[p:p + bp, i:j, q:q + bq]
                hi = v[p:p + bp, n - j:n - i, q:q + bq][:, ::-1]
                keep = lo.copy()
                np.copyto(lo, hi)
                np.copyto(hi, keep)


def sort_out(x, out, axis, kind, stable, descending):
    x = np.asarray(x)
    ax = 0 if axis is None else axis  # axis=None: out is the flattened array
    if np.may_share_memory(out, x):  # in place: out is x's own buffer
        if descending:
            _reverse(out, ax)
    else:
        np.copyto(out.reshape(x.shape), np.flip(x, axis) if descending else x)  # flip(x, None) flips all axes
    if not descending:
        out.sort(axis=ax, kind=kind, stable=stable)
        return out
    # stable descending: a stable sort of the reversed lanes, reversed back
    out.sort(axis=ax, kind="stable")
    _reverse(out, ax)
    return out


def partition_out(x, out, kth, axis, kind):
    x = np.asarray(x)
    if not np.may_share_memory(out, x):
        np.copyto(out.reshape(x.shape), x)  # axis=None: np.partition partitions the flattened copy
    out.partition(kth, axis=-1 if axis is None else axis, kind=kind)
    return out


def _lanes(kernel):
    """Out-form of an index-valued sort-like ``kernel(x, axis=, ...)``: pieces
    of x cut along an axis the sort does not cross, so each lane is sorted whole."""
    def run(x, out, axis, **params):
        x = np.asarray(x)
        if axis is None or x.ndim < 2:
            return into(out, kernel(x, axis=axis, **params))
        k = 1 if axis == 0 else 0
        lead = (slice(None),) * k
        return pieces(out, lambda s: kernel(x[lead + (s,)], axis=axis, **params), axis=k)
    return run


argsort_out = _lanes(argsort)
argpartition_out = _lanes(argpartition)


def lexsort_out(*keys, out, axis):
    xs = [np.asarray(k) for k in keys]
    if axis is None or xs[0].ndim < 2:
        return into(out, np.lexsort(keys, axis=axis))
    k = 1 if axis == 0 else 0
    lead = (slice(None),) * k
    return pieces(out, lambda s: np.lexsort([x[lead + (s,)] for x in xs], axis=axis), axis=k)


def sort_complex_out(a, out):
    """np.sort_complex: sort a copy, then cast to complex."""
    a = np.asarray(a)
    if a.dtype.kind in "biuc":
        # complex, or integers: equal values are identical after the cast, so
        # casting first and sorting as complex gives the same array
        if not np.may_share_memory(out, a):
            np.copyto(out, a)
        out.sort()
    elif out.real.dtype == a.dtype:
        # floats keeping their type (float64, longdouble): NumPy's float sort on
        # out's real parts, so -0.0/0.0 and NaNs land where NumPy puts them
        out.imag.fill(0)
        np.copyto(out.real, a)
        out.real.sort()
    else:  # float16/float32 widen; their sort order of -0.0/0.0 is their own
        into(out, np.sort_complex(a))
    return out


def order_stat_out(name):
    """NumPy's own ``out=`` (its result is written there; NumPy still copies
    the input it partitions, as the plain kernel does)."""
    fn = _ORDER_STATS[name]

    def kernel(a, *rest, out, axis, keepdims, method=None, weighted=False):
        ax = axis if axis is None or len(axis) != 1 else axis[0]
        if "median" in name:
            fn(a, axis=ax, keepdims=keepdims, out=out)
        else:
            kw = {"weights": rest[1]} if weighted else {}
            fn(a, rest[0], axis=ax, keepdims=keepdims, method=method, out=out, **kw)
        return out
    return kernel



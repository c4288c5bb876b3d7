"""Gradient rules of the sorting ops, written with fgraph.numpy.

``sort`` and ``partition`` permute their input: the cotangent goes back
through the permutation their ``arg`` twin computes with the same
parameters (NumPy's argpartition arranges exactly as partition does), as
the transpose of ``take_along_axis``.  Among equal elements the gradient
goes to the one that permutation put there (each tied element gets one
output's cotangent), which is a valid subgradient.

The order statistics (median, percentile, quantile and their nan-
versions) are, lane by lane, ``(1 - gamma) * s[prev] + gamma * s[next]``
of the sorted lane ``s``: the cotangent goes to the two elements read, with
those weights, computed as NumPy computes them for every ``method``
(nan- versions: per lane, with the NaNs left out; an all-NaN lane gets
none).  ``q`` has a gradient for the continuous methods (linear, hazen,
weibull, median_unbiased, normal_unbiased, interpolated_inverted_cdf):
``(s[next] - s[prev])`` times the virtual index' slope, and 0 where the
index is clamped to an end; the discontinuous methods and weighted
quantiles (inverted_cdf) are piecewise constant in ``q`` and in the
weights: they get none.

argsort, argpartition and lexsort have integer outputs: no gradient.
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from ...ops.sorting import _ORDER_STATS, order_stat_layout
from .. import defgrad
from ...ops.indexing import take_along_axis_T


@defgrad("sort")
def _sort(out, ins, g, axis, kind, stable, descending):
    (x,) = ins
    idx = fnp.argsort(x, axis=axis, kind=kind, stable=stable, descending=descending)
    return take_along_axis_T(g, idx, x.shape, axis),


@defgrad("partition")
def _partition(out, ins, g, kth, axis, kind):
    (x,) = ins
    idx = fnp.argpartition(x, kth, axis=axis, kind=kind)
    return take_along_axis_T(g, idx, x.shape, axis),


@defgrad("sort_complex")
def _sort_complex(out, ins, g):
    # only a real input can be differentiated: its sort order is argsort's (the core keeps the real part)
    (x,) = ins
    return take_along_axis_T(g, fnp.argsort(x, axis=-1), x.shape, x.ndim - 1),


for _op in ("argsort", "argpartition", "lexsort"):
    defgrad(_op)(lambda out, ins, g, **p: (None,) * len(ins))


# ---------------------------------------------------------------- order statistics

#: the continuous methods: (alpha, beta) of Hyndman & Fan's virtual index (linear: (n - 1) * q, NumPy's form)
_CONTINUOUS = {"linear": None, "interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}


def _positions(f, n, method):
    """``(prev, next, gamma, slope, interior)``: the sorted positions NumPy's
    ``method`` reads for quantile ``f`` of ``n`` values and the weight of
    ``next``; for the continuous methods also d(virtual index)/df and where
    the index is not clamped to an end (else None)."""
    nm1 = n - 1
    if method in ("lower", "higher", "nearest", "inverted_cdf", "closest_observation"):  # one position
        if method in ("lower", "higher", "nearest"):
            i = {"lower": fnp.floor, "higher": fnp.ceil, "nearest": fnp.rint}[method](nm1 * f)
        else:
            v = n * f - 1 if method == "inverted_cdf" else n * f - 1 - 0.5
            p = fnp.floor(v)
            at_p = (v - p == 0) if method == "inverted_cdf" else (v - p == 0) & (fnp.remainder(p, 2) == 1)
            i = fnp.maximum(fnp.where(at_p, p, p + 1), 0)
        return i, i, None, None, None
    slope = None
    if method in _CONTINUOUS:
        ab = _CONTINUOUS[method]
        if ab is None:
            vi, slope = nm1 * f, nm1
        else:
            a, b = ab
            vi, slope = n * f + (a + f * (1 - a - b)) - 1, n + (1 - a - b)
    elif method == "midpoint":
        v = nm1 * f
        vi = 0.5 * (fnp.floor(v) + fnp.ceil(v))
    elif method == "averaged_inverted_cdf":
        vi = n * f - 1
    else:
        raise ValueError(f"unknown quantile method {method!r}")
    lo = fnp.floor(vi)
    above, below = vi >= nm1, vi < 0
    prev = fnp.where(above, nm1, fnp.where(below, 0, lo))
    nxt = fnp.where(above, nm1, fnp.where(below, 0, lo + 1))
    if method == "midpoint":
        gamma = fnp.where(fnp.remainder(vi, 1) == 0, 0.0, 0.5)
    elif method == "averaged_inverted_cdf":
        gamma = fnp.where(vi - lo == 0, 0.5, 1.0)
    else:
        gamma = vi - lo
    return prev, nxt, gamma, slope, ~above & ~below


def _weighted_position(f, n, ws, lq):
    """inverted_cdf with weights ``ws`` (sorted with the lanes): the first
    position whose normalised cumulative weight reaches ``f``, as NumPy's
    searchsorted on the cdf (leading zero weights skipped)."""
    cdf = fnp.cumsum(ws.astype(np.float64), axis=-1)
    cdf = cdf / cdf[..., -1:]
    if f.dtype.kind == "f":
        cdf = cdf.astype(f.dtype)
    cdf = fnp.where(cdf == 0, -1.0, cdf)
    cdf = fnp.reshape(cdf, (1,) * lq + cdf.shape)
    below = fnp.sum(cdf < fnp.expand_dims(f, -1), axis=-1)  # qs + rest
    return fnp.minimum(below, n - 1)


def _order_stat_rule(name: str):
    nan = name.startswith("nan")
    has_q = "median" not in name
    scale = 100.0 if "percentile" in name else 1.0

    def rule(out, ins, g, axis, keepdims, method="linear", weighted=False):
        x = ins[0]
        if x.size == 0 or g.size == 0:
            return (None,) * len(ins)
        # lanes: the reduced axes moved last and merged, shape rest + (N,)
        axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
        others = tuple(k for k in range(x.ndim) if k not in axes)
        rest, red = tuple(x.shape[k] for k in others), tuple(x.shape[k] for k in axes)
        N = int(np.prod(red, dtype=np.int64))
        perm = others + axes
        xt = fnp.reshape(fnp.transpose(x, perm), rest + (N,))
        if has_q:
            q = ins[1]
            f = q / scale if scale != 1.0 else q
        else:
            q, f = None, fnp.asarray(np.float64(0.5))  # the median is the linear 0.5-quantile
        qs = tuple(f.shape)
        lq, lr = len(qs), len(rest)
        f = fnp.reshape(f, qs + (1,) * lr)
        idx = fnp.argsort(xt, axis=-1)
        bshape = (1,) * lq + rest + (N,)
        idx_b = fnp.reshape(idx, bshape)
        # g in NumPy's layout (a nan-form's own, for a 2-d q and several axes)
        # back to q's axes, then the kept ones
        layout = [k for k in order_stat_layout(name, x.ndim, axis, lq, keepdims, weighted) if k is not None]
        if layout != sorted(layout):
            plain = qs + rest
            g = fnp.transpose(fnp.reshape(g, tuple(plain[k] for k in layout)),
                              tuple(int(k) for k in np.argsort(layout)))
        ge = fnp.reshape(g, qs + rest)
        if nan:
            n = fnp.reshape(fnp.sum(~fnp.isnan(xt), axis=-1), (1,) * lq + rest)  # NaNs sort last
            ge = fnp.where(n > 0, ge, 0.0)
        else:
            n = N
        if weighted:
            w = ins[2]
            wt = fnp.reshape(fnp.transpose(w, perm), rest + (N,)) if w.shape == x.shape else w
            ws = fnp.take_along_axis(wt, idx, axis=-1) if w.shape == x.shape else fnp.take(wt, idx)
            if nan:
                ws = fnp.where(fnp.isnan(fnp.take_along_axis(xt, idx, axis=-1)), 0.0, ws)
            prev = nxt = _weighted_position(f, n, ws, lq)
            gamma = slope = interior = None
        else:
            prev, nxt, gamma, slope, interior = _positions(f, n, method)

        def read(pos):  # each position's index in the lane (shape qs + rest + (1,))
            return fnp.take_along_axis(idx_b, fnp.expand_dims(pos.astype(np.intp), -1), axis=-1)

        def back(values, pos):
            return take_along_axis_T(fnp.expand_dims(values, -1), read(pos), bshape, lq + lr)

        if gamma is None:
            gl = back(ge, prev)
        else:
            gl = back(ge * (1.0 - gamma), prev) + back(ge * gamma, nxt)
        gx = fnp.transpose(fnp.reshape(gl, rest + red), tuple(int(k) for k in np.argsort(perm)))
        grads = [gx] + [None] * (len(ins) - 1)
        if q is not None and slope is not None:
            s_b = fnp.reshape(fnp.sort(xt, axis=-1), bshape)

            def value(pos):
                return fnp.take_along_axis(s_b, fnp.expand_dims(pos.astype(np.intp), -1), axis=-1)[..., 0]

            dq = fnp.where(interior, ge * (value(nxt) - value(prev)) * slope, 0.0) / scale
            grads[1] = fnp.sum(dq, axis=tuple(range(lq, lq + lr))) if lr else dq
        return tuple(grads)
    return rule


for _name in _ORDER_STATS:
    defgrad(_name)(_order_stat_rule(_name))

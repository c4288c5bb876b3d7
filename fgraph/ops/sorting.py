"""Sorting ops: sort, argsort (with the Array API's ``descending`` and
``stable``), partition, argpartition, lexsort, sort_complex, and the order
statistics median, percentile, quantile and their nan- versions, and
``unique`` with the Array API's ``unique_*``.

Kernels call NumPy with the same ``kind`` the user passed, so results are
bit-identical to NumPy's (unstable kinds included).  ``descending=True``
follows the Array API: a stable descending order (equal elements keep their
order).  ``unique`` and friends have data-dependent shapes: outside tracing
the input is evaluated (an evaluation point) and the results are constants;
under tracing JAX's ``size=`` gives a static length (a lazy stable sort).

Each op's OpDef carries its reference NumPy kernels (``ops/sorting_kernels.py``),
its gradient and, for the ops along one axis, the micro-batching rule.

Gradients: ``sort`` and ``partition`` permute their input: the cotangent goes back
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

argsort, argpartition and lexsort have integer outputs: ``no_gradient``.
"""
from __future__ import annotations

import functools
import operator as _operator
import warnings

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError, also
from ..opdef import no_gradient
from ..tensor import Tensor, apply, lift, stack_of
from ..shape import defop, normalize_axes, normalize_axis, probe, size_of
from ..symbol import error_at, make_node, refuse_out
from .batching import _along_axis, refuse_batching
from .building import namespace, python_value
from .indexing import (SIZE_HINT, take_along_axis_T, _axis_param, _sized_nonzero, concrete_value, constant_node, static_size)
from . import sorting_kernels as kernels
from .sorting_kernels import _ORDER_STATS, order_stat_call

__all__ = ["sort", "argsort", "partition", "argpartition", "lexsort", "sort_complex",
           "median", "nanmedian", "percentile", "nanpercentile", "quantile", "nanquantile",
           "unique", "unique_values", "unique_counts", "unique_inverse", "unique_all"]

_INTP = np.dtype(np.intp)


def _refuse_order(op, order):
    if order is not None:
        raise error_at(FgraphError, op, "order= sorts structured arrays by field, which fgraph does not support")


# ---------------------------------------------------------------- sort, argsort

def _sort_rule(fn, index: bool):
    def rule(inputs, axis, kind, stable, descending):
        (x,) = inputs
        fn(probe(x), axis=None, kind=kind, stable=stable)  # NumPy's checks of kind/stable and of the dtype
        dtype = _INTP if index else x.dtype
        if x.ndim == 0 and index:  # NumPy's argsort ravels a 0-d array
            return np.argsort(np.zeros(()), axis=axis).shape, dtype
        if axis is None:
            return (size_of(x.shape),), dtype
        normalize_axis(axis, x.ndim)
        return x.shape, dtype
    rule.__doc__ = f"numpy.{fn.__name__}: same shape (flat with axis=None)."
    return rule


def _sort_grad(out, ins, g, axis, kind, stable, descending):
    fnp = namespace()
    (x,) = ins
    idx = fnp.argsort(x, axis=axis, kind=kind, stable=stable, descending=descending)
    return take_along_axis_T(g, idx, x.shape, axis),


# inplace: the out-kernel copies x into out (nothing to copy when out is x) and sorts out in place
defop("sort", _sort_rule(np.sort, False), "numpy.sort (params axis, kind, stable, descending)", inplace=(0,),
      grad=_sort_grad, batch_rule=_along_axis, kernel=kernels.sort, out_kernel=kernels.sort_out)
defop("argsort", _sort_rule(np.argsort, True), "numpy.argsort (params axis, kind, stable, descending)",
      grad=no_gradient, batch_rule=_along_axis, kernel=kernels.argsort, out_kernel=kernels.argsort_out)


def _sort_params(a, axis, kind, stable, descending, st):
    node = lift(a, st)
    if descending:  # the Array API's stable descending order; kind is moot
        kind, stable = None, True
    return node, (("axis", _axis_param(axis, node.ndim)), ("kind", kind), ("stable", stable),
                  ("descending", bool(descending)))


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Lazy ``numpy.sort``; also the Array API's ``sort(x, axis=, descending=, stable=)``.

    ``descending=True`` sorts largest first, keeping equal elements in their
    original order (NaNs, largest in NumPy's order, come first).
    """
    _refuse_order("sort", order)
    st = stack_of((a,))
    node, params = _sort_params(a, axis, kind, stable, descending, st)
    return Tensor(make_node("sort", [node], params), st)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Lazy ``numpy.argsort``: the same ``kind`` as NumPy, so the same indices.

    ``descending=True`` gives the Array API's stable descending order.
    """
    _refuse_order("argsort", order)
    st = stack_of((a,))
    node, params = _sort_params(a, axis, kind, stable, descending, st)
    return Tensor(make_node("argsort", [node], params), st)


# ---------------------------------------------------------------- partition

def _partition_rule(fn, index: bool):
    def rule(inputs, kth, axis, kind):
        (x,) = inputs
        dtype = _INTP if index else x.dtype
        if x.ndim == 0:  # NumPy's 0-d special cases, on a 0-d probe
            return fn(probe(x), kth, axis=axis, kind=kind).shape, dtype
        fn(probe(x), 0, kind=kind)  # kind and dtype checks
        n = size_of(x.shape) if axis is None else x.shape[normalize_axis(axis, x.ndim)]
        for k in (kth if isinstance(kth, tuple) else (kth,)):
            if size_of(x.shape) and not -n <= k < n:  # NumPy checks kth only for a non-empty array
                raise ShapeError(f"kth(={k}) out of bounds ({n})")
        return ((size_of(x.shape),) if axis is None else x.shape), dtype
    rule.__doc__ = f"numpy.{fn.__name__}: same shape (flat with axis=None); kth checked."
    return rule


def _partition_grad(out, ins, g, kth, axis, kind):
    fnp = namespace()
    (x,) = ins
    idx = fnp.argpartition(x, kth, axis=axis, kind=kind)
    return take_along_axis_T(g, idx, x.shape, axis),


defop("partition", _partition_rule(np.partition, False), "numpy.partition (params kth, axis, kind)",
      inplace=(0,),  # copy into out, partition out in place
      grad=_partition_grad, batch_rule=_along_axis, kernel=kernels.partition, out_kernel=kernels.partition_out)
defop("argpartition", _partition_rule(np.argpartition, True), "numpy.argpartition (params kth, axis, kind)",
      grad=no_gradient, batch_rule=_along_axis, kernel=kernels.argpartition, out_kernel=kernels.argpartition_out)


def _kth_param(op, kth):
    kth = python_value(kth, op, "kth", "it says which positions end in place")  # np.partition(a, a.argmax())
    if isinstance(kth, (bool, np.bool_)) or isinstance(kth, np.ndarray) and kth.dtype == np.bool_:
        raise error_at(ShapeError, op, "Booleans unacceptable as partition index")
    try:
        if np.ndim(kth) == 0:
            return _operator.index(kth)
        return tuple(_operator.index(k) for k in np.asarray(kth).reshape(-1).tolist())
    except TypeError:
        raise error_at(DTypeError, op, f"kth must be an integer or a sequence of integers, got {kth!r}") from None


def _partition(op, a, kth, axis, kind, order):
    _refuse_order(op, order)
    st = stack_of((a,))
    node = lift(a, st)
    params = (("kth", _kth_param(op, kth)), ("axis", _axis_param(axis, node.ndim)), ("kind", kind))
    return Tensor(make_node(op, [node], params), st)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """Lazy ``numpy.partition`` (NumPy's own kernel: the same arrangement)."""
    return _partition("partition", a, kth, axis, kind, order)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Lazy ``numpy.argpartition`` (NumPy's own kernel: the same indices)."""
    return _partition("argpartition", a, kth, axis, kind, order)


# ---------------------------------------------------------------- lexsort, sort_complex

def _lexsort_rule(inputs, axis):
    shapes = {k.shape for k in inputs}
    if len(shapes) != 1:
        raise ShapeError(f"all keys need to be the same shape, got {sorted(shapes)}")
    (shape,) = shapes
    if not shape:
        return np.lexsort([probe(k) for k in inputs], axis=axis).shape, _INTP
    np.lexsort([probe(k) for k in inputs], axis=normalize_axis(axis, len(shape)))  # dtype checks
    return shape, _INTP


defop("lexsort", _lexsort_rule, "numpy.lexsort(keys, axis); inputs: the keys, last is primary",
      grad=no_gradient, kernel=kernels.lexsort, out_kernel=kernels.lexsort_out)


def lexsort(keys, axis=-1):
    """Lazy ``numpy.lexsort``: the last key is the primary sort key."""
    if isinstance(keys, (Tensor, np.ndarray)):  # an array's keys are its rows
        if keys.ndim == 0:
            raise error_at(ShapeError, "lexsort", "need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(keys.shape[0])]
    keys = list(keys)
    if not keys:
        raise error_at(ShapeError, "lexsort", "need sequence of keys with len > 0 in lexsort")
    st = stack_of(keys)
    nodes = [lift(k, st) for k in keys]
    return Tensor(make_node("lexsort", nodes, (("axis", _axis_param(axis, nodes[0].ndim)),)), st)


def _sort_complex_rule(inputs):
    (x,) = inputs
    return x.shape, np.sort_complex(probe(x)).dtype


def _sort_complex_grad(out, ins, g):
    fnp = namespace()
    # only a real input can be differentiated: its sort order is argsort's (the core keeps the real part)
    (x,) = ins
    return take_along_axis_T(g, fnp.argsort(x, axis=-1), x.shape, x.ndim - 1),


defop("sort_complex", _sort_complex_rule, "numpy.sort_complex(a)",
      inplace=(0,),  # only a complex input has the output's itemsize
      grad=_sort_complex_grad, kernel=np.sort_complex, out_kernel=kernels.sort_complex_out)


def sort_complex(a):
    """Lazy ``numpy.sort_complex``: sort by real, then imaginary part, as complex."""
    return apply("sort_complex", (a,))


# ---------------------------------------------------------------- order statistics

@functools.cache
def _nan_q_moves_axes() -> bool:
    """Whether this NumPy's nan-quantiles lay out a 2-d q's result oddly when
    they reduce several axes (NumPy 2.x): ``_ureduce`` merges the reduced axes
    into a last one and passes axis=-1, ``apply_along_axis`` puts q's axes
    last, and ``_nanquantile_ureduce_func`` then moves axes
    ``[axis + i for i in range(q.ndim)]`` = [-1, 0] (meant for a non-negative
    axis) to the front: kept + (q0, q1) becomes (q1, kept..., q0)."""
    r = np.nanquantile(np.zeros((2, 1, 1)), np.zeros((3, 4)), axis=(1, 2))
    return r.shape == (4, 2, 3)  # the plain forms' layout: (3, 4, 2)


def _moveaxis_order(ndim: int, source, destination) -> list:
    """The axes ``np.moveaxis(x, source, destination)`` takes, in order."""
    source = [s % ndim for s in source]
    order = [n for n in range(ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return order


def order_stat_layout(name, ndim: int, axis, q_ndim: int, keepdims: bool, weighted=False, empty=False) -> tuple:
    """NumPy's result layout for an order statistic of an ``ndim``-d array,
    ``axis`` as the param (None or sorted non-negative axes): one entry per
    result axis, an index into the plain layout ``q.shape + kept axes`` (the
    one percentile/quantile use), or None for an axis of length 1 that
    keepdims put there.  Mirrors ``_ureduce`` (keepdims fills the reduced
    axes in among the result's *last* len(kept) axes) and, for the nan-forms,
    ``_nanquantile_ureduce_func`` (see ``_nan_q_moves_axes``); an empty
    nan-form's result is ``nanmean``'s, without q's axes."""
    reduced = range(ndim) if axis is None else axis
    keep = [j for j in range(ndim) if j not in reduced]
    nan = name.startswith("nan")
    if nan and empty:
        q_ndim = 0
    r = list(range(q_ndim + len(keep)))
    if (nan and q_ndim >= 2 and axis is not None and len(axis) != 1 and keep and not weighted
            and _nan_q_moves_axes()):
        last = r[q_ndim:] + r[:q_ndim]  # apply_along_axis(axis=-1) on (kept..., merged): q's axes last
        r = [last[k] for k in _moveaxis_order(len(last), [-1 + i for i in range(q_ndim)], range(q_ndim))]
    if keepdims:
        head, tail = r[:len(r) - len(keep)], iter(r[len(r) - len(keep):])
        r = head + [None if j in reduced else next(tail) for j in range(ndim)]
    return tuple(r)


def _stand_in(node, fill):
    """A read-only stand-in of the node's full shape, with no memory behind it."""
    if node.weak:
        return probe(node, fill)
    return np.broadcast_to(np.full((), fill, node.dtype), node.shape)


def _order_stat_rule(name: str):
    has_q = "median" not in name

    def rule(inputs, axis, keepdims, method=None, weighted=False):
        a = inputs[0]
        axes = normalize_axes(axis, a.ndim)
        q = inputs[1] if has_q else None
        w = inputs[2] if weighted else None
        if w is not None and w.shape != a.shape and not (w.ndim == 1 and len(axes) == 1
                                                           and w.shape[0] == a.shape[axes[0]]):
            raise ShapeError(f"shape of weights {w.shape} must be the shape of a {a.shape} or, with one axis, "
                             "that axis' length")
        if not size_of(a.shape):  # empty: NumPy's special cases (nan- versions ignore q's shape), run for real
            with warnings.catch_warnings():  # "Mean of empty slice" belongs to run time, if anywhere
                warnings.simplefilter("ignore", RuntimeWarning)
                out = np.asarray(order_stat_call(name, np.zeros(a.shape, a.dtype), q and _stand_in(q, 0),
                                                 w and _stand_in(w, 1), axis, keepdims, method))
            return out.shape, out.dtype
        # NumPy's dtype (and its checks of method, weights, dtypes) from one-element probes
        dtype = np.asarray(order_stat_call(name, probe(a), q and probe(q), w and np.ones((1,) * a.ndim, w.dtype),
                                           None, False, method)).dtype
        plain = (q.shape if has_q else ()) + tuple(d for i, d in enumerate(a.shape) if i not in axes)
        layout = order_stat_layout(name, a.ndim, None if axis is None else axes, q.ndim if has_q else 0, keepdims,
                                   weighted)
        return tuple(1 if k is None else plain[k] for k in layout), dtype
    rule.__doc__ = f"numpy.{name}: reduced shape" + (" after q's shape" if has_q else "") + ", NumPy's dtype."
    return rule


#: the continuous methods: (alpha, beta) of Hyndman & Fan's virtual index (linear: (n - 1) * q, NumPy's form)
_CONTINUOUS = {"linear": None, "interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}


def _positions(f, n, method):
    """``(prev, next, gamma, slope, interior)``: the sorted positions NumPy's
    ``method`` reads for quantile ``f`` of ``n`` values and the weight of
    ``next``; for the continuous methods also d(virtual index)/df and where
    the index is not clamped to an end (else None)."""
    fnp = namespace()
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
    fnp = namespace()
    cdf = fnp.cumsum(ws.astype(np.float64), axis=-1)
    cdf = cdf / cdf[..., -1:]
    if f.dtype.kind == "f":
        cdf = cdf.astype(f.dtype)
    cdf = fnp.where(cdf == 0, -1.0, cdf)
    cdf = fnp.reshape(cdf, (1,) * lq + cdf.shape)
    below = fnp.sum(cdf < fnp.expand_dims(f, -1), axis=-1)  # qs + rest
    return fnp.minimum(below, n - 1)


def _order_stat_grad(name: str):
    nan = name.startswith("nan")
    has_q = "median" not in name
    scale = 100.0 if "percentile" in name else 1.0

    def rule(out, ins, g, axis, keepdims, method="linear", weighted=False):
        fnp = namespace()
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
    defop(_name, _order_stat_rule(_name), f"numpy.{_name} (params axis, keepdims[, method, weighted])",
          grad=_order_stat_grad(_name), kernel=kernels.order_stat(_name), out_kernel=kernels.order_stat_out(_name))


def _order_stat(name, a, q, axis, out, keepdims, method="linear", weights=None):
    refuse_out(name, out)
    st = stack_of((a, q, weights))
    node = lift(a, st)
    if axis is not None:
        axis = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        axis = tuple(sorted(_axis_param(ax, node.ndim) for ax in axis))  # NumPy's result ignores the order
    params = (("axis", axis), ("keepdims", bool(keepdims)))
    inputs = [node]
    if q is not None:
        inputs.append(lift(q, st))
        params += (("method", method), ("weighted", weights is not None))
        if weights is not None:
            inputs.append(lift(weights, st))
    return Tensor(make_node(name, inputs, params), st)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Lazy ``numpy.median`` (``overwrite_input`` is moot: inputs are never written)."""
    return _order_stat("median", a, None, axis, out, keepdims)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Lazy ``numpy.nanmedian``."""
    return _order_stat("nanmedian", a, None, axis, out, keepdims)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """Lazy ``numpy.percentile``; ``q`` may be lazy (q in [0, 100] is checked at run time)."""
    return _order_stat("percentile", a, q, axis, out, keepdims, method, weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    """Lazy ``numpy.nanpercentile``."""
    return _order_stat("nanpercentile", a, q, axis, out, keepdims, method, weights)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """Lazy ``numpy.quantile``; ``q`` may be lazy (q in [0, 1] is checked at run time)."""
    return _order_stat("quantile", a, q, axis, out, keepdims, method, weights)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None):
    """Lazy ``numpy.nanquantile``."""
    return _order_stat("nanquantile", a, q, axis, out, keepdims, method, weights)


# ---------------------------------------------------------------- unique

def _constants(result, st):
    """NumPy's result (an array, a tuple or a named tuple of arrays) as lazy constants, same structure."""
    if isinstance(result, np.ndarray):
        return Tensor(constant_node(result), st)
    items = [Tensor(constant_node(r), st) for r in result]
    return type(result)(*items) if hasattr(result, "_fields") else tuple(items)


def _unique(name: str, ar, flags: tuple, size, fill_value, numpy_call):
    """``numpy_call(value)`` on the evaluated ``ar`` outside tracing; JAX's
    sized form (axis None) when ``size`` is given.  ``flags``: return_index,
    return_inverse, return_counts, equal_nan."""
    st = stack_of((ar,))
    node = lift(ar, st)
    if size is None:
        if fill_value is not None:
            raise error_at(FgraphError, name, "fill_value is used only with size=")
        value = concrete_value(node, st, name, f"numpy.{name} returns one element per distinct value", SIZE_HINT)
        try:
            return _constants(numpy_call(value), st)
        except (ValueError, TypeError, IndexError) as e:  # NumPy's AxisError and the like, at the user's line
            raise error_at(also(type(e)), name, str(e)) from None
    return _sized_unique(name, node, st, *flags, static_size(size, name), fill_value)


def _sized_unique(name, node, st, return_index, return_inverse, return_counts, equal_nan, size, fill_value):
    """JAX's ``unique(x, size=N, fill_value=...)`` over the flattened ``x``:
    the first N sorted distinct values, padded with ``fill_value`` (default:
    the smallest value); indices padded with the smallest value's, counts
    with 0; the inverse is whole.  A stable argsort, a mask of the first of
    each run of equal values (NaNs equal when ``equal_nan``), and the sized
    nonzero of that mask."""
    fnp = namespace()
    flat = fnp.ravel(Tensor(node, st))
    n = flat.shape[0]
    if n == 0:
        if size and fill_value is None:
            raise error_at(ShapeError, name, "an empty input with size > 0 needs a fill_value (there is no "
                                             "smallest value to pad with)")
        values = fnp.full(size, 0 if fill_value is None else fill_value, dtype=node.dtype)
        empty_ix = fnp.zeros(size, _INTP)
        parts = [values, empty_ix, fnp.zeros(node.shape, _INTP), empty_ix]
    else:
        perm = fnp.argsort(flat, kind="stable")
        s = flat[perm]
        neq = s[1:] != s[:-1]
        if equal_nan and node.dtype.kind in "fc":
            nan = fnp.isnan(s)
            neq = neq & ~(nan[1:] & nan[:-1])
        first = fnp.concatenate([fnp.ones(1, bool), neq])
        (ind,) = _sized_nonzero(first.node, st, size, None, name)
        values = s[ind]
        if fill_value is not None:
            fill = fnp.asarray(fill_value).astype(node.dtype)
            values = fnp.where(fnp.arange(size) < fnp.count_nonzero(first), values, fill)
        index = perm[ind] if return_index else None
        inverse = fnp.reshape((fnp.cumsum(first) - 1)[fnp.argsort(perm)], node.shape) if return_inverse else None
        counts = None
        if return_counts:
            (starts,) = _sized_nonzero(first.node, st, size + 1, None, name)
            bounds = fnp.concatenate([starts[:1], fnp.where(starts[1:] != 0, starts[1:], n)])  # padding: the end
            counts = bounds[1:] - bounds[:-1]
        parts = [values, index, inverse, counts]
    wanted = (True, return_index, return_inverse, return_counts)
    out = tuple(p.astype(_INTP) if k and p.dtype != _INTP else p for k, p in enumerate(parts) if wanted[k])
    return out[0] if len(out) == 1 else out


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True, size=None, fill_value=None):
    """``numpy.unique``: outside tracing ``ar`` is evaluated (its values are
    the result) and NumPy's results come back as lazy constants.  Under
    tracing it raises unless ``size`` is given: JAX's static form (axis None),
    the first ``size`` sorted values padded with ``fill_value``."""
    if size is not None and axis is not None:
        raise error_at(FgraphError, "unique", "size= is supported with axis=None only")
    flags = (return_index, return_inverse, return_counts, equal_nan)
    return _unique("unique", ar, flags, size, fill_value,
                   lambda v: np.unique(v, return_index, return_inverse, return_counts, axis=axis,
                                       equal_nan=equal_nan, sorted=sorted))


_RESULT_TYPES: dict = {}


def _result_type(name: str):
    """NumPy's named-tuple type for ``numpy.unique_<name>``."""
    if name not in _RESULT_TYPES:
        _RESULT_TYPES[name] = type(getattr(np, name)(np.zeros(1)))
    return _RESULT_TYPES[name]


def unique_values(x, /, *, size=None, fill_value=None):
    """``numpy.unique_values`` (Array API), evaluated outside tracing; ``size`` as in :func:`unique`."""
    return _unique("unique_values", x, (False, False, False, False), size, fill_value, np.unique_values)


def unique_counts(x, /, *, size=None, fill_value=None):
    """``numpy.unique_counts`` (Array API): values and counts; ``size`` as in :func:`unique`."""
    out = _unique("unique_counts", x, (False, False, True, False), size, fill_value, np.unique_counts)
    return out if size is None else _result_type("unique_counts")(*out)


def unique_inverse(x, /, *, size=None, fill_value=None):
    """``numpy.unique_inverse`` (Array API): values and inverse indices (x's shape); ``size`` as in :func:`unique`."""
    out = _unique("unique_inverse", x, (False, True, False, False), size, fill_value, np.unique_inverse)
    return out if size is None else _result_type("unique_inverse")(*out)


def unique_all(x, /, *, size=None, fill_value=None):
    """``numpy.unique_all`` (Array API): values, indices, inverse indices and counts; ``size`` as in :func:`unique`."""
    out = _unique("unique_all", x, (True, True, True, False), size, fill_value, np.unique_all)
    return out if size is None else _result_type("unique_all")(*out)

refuse_batching(("lexsort", "sort_complex", "median", "nanmedian", "percentile", "nanpercentile", "quantile",
                 "nanquantile"), "not audited for micro-batching: its axis handling may run along the batch axis 0")

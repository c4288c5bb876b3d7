"""Gradient rules of the reductions and scans, written with fgraph.numpy.

Conventions (NumPy-world choices, as JAX and PyTorch make them):

* ``where=`` masks: masked-out elements get a zero gradient; the mask itself
  (a bool input) and ``initial=`` get none.  NaN-variants treat NaNs the way
  the forward does (ignored: zero gradient).
* ``max``/``min``/``nanmax``/``nanmin`` (and ``amax``/``amin``, the same ops):
  the gradient is **split equally among ties** (as JAX's ``max`` and
  PyTorch's ``amax``).  When ``initial`` wins the slice, no element gets any;
  an element equal to ``initial`` counts as a tie among the elements only.
  ``ptp`` is ``max - min`` with the same rule (0 for a constant slice).
* ``std`` at a constant slice (``std == 0``, not differentiable): 0, as
  PyTorch (JAX gives NaN).
* ``prod`` is exact with zeros and never divides: each element's gradient is
  the product of the *other* elements, built from exclusive prefix and suffix
  products (``cumulative_prod(include_initial=True)`` both ways).
* ``cumprod`` is exact with zeros: before the first zero of a scan it uses
  the usual ``reverse_cumsum(g * out) / x`` (dividing only by elements that
  are not zero), at the first zero the product with that one factor
  removed, after it 0.  Limitations: the division can lose the gradient
  when the forward product underflows to 0 without a zero input (as
  TensorFlow's); second derivatives are exact away from zeros only (the
  zero-position branches are piecewise).  ``prod``'s are exact everywhere.

Not differentiable (integer or bool results): ``argmax``, ``argmin``,
``nanargmax``, ``nanargmin``, ``all``, ``any``, ``count_nonzero``.  They get
rules returning None so that a vector-Jacobian product seeded at one of them
gives zeros instead of an error.
"""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as fnp
from ...ops.reduction import unwrap
from .. import defgrad


# ---------------------------------------------------------------- helpers

def _keep(t, shape, axes):
    """A reduced value (``out`` or ``g``) in keepdims form, broadcastable to ``shape``."""
    kshape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return t if t.shape == kshape else fnp.reshape(t, kshape)


def _full(t, shape):
    return t if t.shape == shape else fnp.broadcast_to(t, shape)


def _float(x) -> bool:
    return x.dtype.kind == "f"


def _valid(x, ins, nan):
    """Which elements take part: the ``where=`` mask and, for nan-ops, not NaN (or None: all)."""
    v = ins[1] if len(ins) > 1 else None
    if nan:
        v = ~fnp.isnan(x) if v is None else v & ~fnp.isnan(x)
    return None if v is None else _full(v, x.shape)


def _count(valid, shape, axes, dtype):
    """Elements taking part per slice (keepdims): static without a mask."""
    if valid is None:
        return math.prod(shape[a] for a in axes)
    return fnp.sum(valid, axis=axes, keepdims=True).astype(dtype)


def _masked(t, valid, shape):
    return _full(t if valid is None else fnp.where(valid, t, 0.0), shape)


def _none(ins):
    return (None,) * len(ins)


def _scalar(value):
    """A stored ``initial`` as a Python number (weak: keeps g's dtype)."""
    v = unwrap(value)
    return np.asarray(v).item() if isinstance(v, (np.generic, np.ndarray)) else v


def _along(ax, s):
    return (slice(None),) * ax + (s,)


def _rev_cumsum(t, ax):
    return fnp.flip(fnp.cumsum(fnp.flip(t, ax), axis=ax), ax)


# ---------------------------------------------------------------- sum, mean, average

def _sum_rule(nan):
    def rule(out, ins, g, axis, keepdims, dtype=None, initial=None):
        x = ins[0]
        if not _float(x):
            return _none(ins)
        return (_masked(_keep(g, x.shape, axis), _valid(x, ins, nan), x.shape),) + (None,) * (len(ins) - 1)
    return rule


defgrad("sum")(_sum_rule(False))
defgrad("nansum")(_sum_rule(True))


def _mean_rule(nan):
    def rule(out, ins, g, axis, keepdims, dtype=None):
        x = ins[0]
        if not _float(x):
            return _none(ins)
        valid = _valid(x, ins, nan)
        n = _count(valid, x.shape, axis, g.dtype)
        n = fnp.maximum(n, 1) if valid is not None else max(n, 1)  # an empty slice: no element to differentiate
        return (_masked(_keep(g, x.shape, axis) / n, valid, x.shape),) + (None,) * (len(ins) - 1)
    return rule


defgrad("mean")(_mean_rule(False))
defgrad("nanmean")(_mean_rule(True))


@defgrad("average")
def _average(out, ins, g, axis, keepdims, output=None):
    """avg = sum(x w) / sum(w): d/dx = w / sum(w), d/dw = (x - avg) / sum(w);
    ``returned``'s weight sum (output 1) depends on the weights only."""
    x = ins[0]
    axes = tuple(sorted(axis))
    gk = _keep(g, x.shape, axes)
    if len(ins) == 1:
        if output == 1 or not _float(x):
            return None,
        return _full(gk / max(math.prod(x.shape[a] for a in axes), 1), x.shape),
    w = ins[1]
    # weights shaped like the reduced axes (in the user's order) are laid along them, as NumPy does
    perm = tuple(int(k) for k in np.argsort(axis))
    same = w.shape == x.shape
    wb = w if same else fnp.reshape(fnp.transpose(w, perm) if perm != tuple(range(len(perm))) else w,
                                    tuple(d if i in axes else 1 for i, d in enumerate(x.shape)))
    if output == 1:
        gx, gw = None, _full(gk, x.shape)
    else:
        sw = fnp.sum(wb, axis=axes, keepdims=True)
        gx = _full(gk * wb / sw, x.shape) if _float(x) else None
        gw = _full(gk * (x - _keep(out, x.shape, axes)) / sw, x.shape)
    if not _float(w):
        gw = None
    elif not same:  # back to the weights' own shape and axis order
        gw = fnp.sum(gw, axis=tuple(i for i in range(x.ndim) if i not in axes))
        if perm != tuple(range(len(perm))):
            gw = fnp.transpose(gw, tuple(int(k) for k in np.argsort(perm)))
    return gx, gw


# ---------------------------------------------------------------- var, std

def _var_rule(nan, std):
    """var = sum((x - m)^2) / (n - ddof) over the valid elements: d/dx =
    2 (x - m) / (n - ddof) (the mean's own dependence cancels); std: divided by 2 std."""
    def rule(out, ins, g, axis, keepdims, dtype=None, ddof=0):
        x = ins[0]
        if not _float(x):
            return _none(ins)
        valid = _valid(x, ins, nan)
        where = {} if len(ins) == 1 else {"where": ins[1]}
        mean = fnp.nanmean if nan else fnp.mean
        m = mean(x, axis=axis, dtype=dtype, keepdims=True, **where)
        gk = _keep(g, x.shape, axis)
        denom = _count(valid, x.shape, axis, g.dtype) - ddof
        if std:
            s = _keep(out, x.shape, axis)
            zero = s == 0  # a constant slice: gradient 0 (no division by 0, even in grad of grad)
            d = fnp.where(zero, 0.0, gk * (x - m) / (denom * fnp.where(zero, 1.0, s)))
        else:
            d = gk * 2.0 * (x - m) / denom
        return (_masked(d, valid, x.shape),) + (None,) * (len(ins) - 1)
    return rule


defgrad("var")(_var_rule(False, False))
defgrad("nanvar")(_var_rule(True, False))
defgrad("std")(_var_rule(False, True))
defgrad("nanstd")(_var_rule(True, True))


# ---------------------------------------------------------------- max, min, ptp

def _share(x, ok, valid, gk, axes):
    """``gk`` split equally among the elements equal to the extreme ``ok``."""
    hit = _full(x == ok, x.shape)
    if valid is not None:
        hit = hit & valid
    count = fnp.maximum(fnp.sum(hit, axis=axes, keepdims=True), 1).astype(gk.dtype)
    return fnp.where(hit, gk / count, 0.0)


def _extreme_rule(nan):
    def rule(out, ins, g, axis, keepdims, initial=None):
        x = ins[0]
        if not _float(x):
            return _none(ins)
        d = _share(x, _keep(out, x.shape, axis), _valid(x, ins, nan), _keep(g, x.shape, axis), axis)
        return (_full(d, x.shape),) + (None,) * (len(ins) - 1)
    return rule


defgrad("max", "min")(_extreme_rule(False))
defgrad("nanmax", "nanmin")(_extreme_rule(True))


@defgrad("ptp")
def _ptp(out, ins, g, axis, keepdims):
    x = ins[0]
    if not _float(x):
        return None,
    gk = _keep(g, x.shape, axis)
    hi = _share(x, fnp.max(x, axis=axis, keepdims=True), None, gk, axis)
    lo = _share(x, fnp.min(x, axis=axis, keepdims=True), None, gk, axis)
    return _full(hi - lo, x.shape),


# ---------------------------------------------------------------- prod

def _others(t, ax):
    """Product of the other entries along ``ax``, per position, without division."""
    n = t.shape[ax]
    left = fnp.cumulative_prod(t, axis=ax, include_initial=True)[_along(ax, slice(0, n))]
    right = fnp.flip(fnp.cumulative_prod(fnp.flip(t, ax), axis=ax, include_initial=True), ax)
    return left * right[_along(ax, slice(1, None))]


def _prod_rule(nan):
    """d prod / d x_i = product of the slice's other elements.  Over several
    axes a1, a2, ...: others(x, a1) * others(prod over a1, a2) * ... (each
    broadcast), so zeros need no special case."""
    def rule(out, ins, g, axis, keepdims, dtype=None, initial=None):
        x = ins[0]
        if not _float(x):
            return _none(ins)
        valid = _valid(x, ins, nan)
        t = x if valid is None else fnp.where(valid, x, 1.0)  # excluded elements count as 1
        if t.dtype != g.dtype:
            t = t.astype(g.dtype)
        d = _keep(g, x.shape, axis)
        if initial is not None:
            d = d * _scalar(initial)
        for k, ax in enumerate(axis):
            d = d * _others(t, ax)
            if k + 1 < len(axis):
                t = fnp.prod(t, axis=ax, keepdims=True)
        return (_masked(d, valid, x.shape),) + (None,) * (len(ins) - 1)
    return rule


defgrad("prod")(_prod_rule(False))
defgrad("nanprod")(_prod_rule(True))


# ---------------------------------------------------------------- scans

def _scan_parts(out, x, g, axis, include_initial):
    """(x as scanned, g and out without the initial slot, scan axis)."""
    ax = 0 if axis is None else axis
    xs = fnp.reshape(x, (x.size,)) if axis is None and x.ndim != 1 else x
    if include_initial:
        g, out = g[_along(ax, slice(1, None))], out[_along(ax, slice(1, None))]
    return xs, g, out, ax


def _back(d, x):
    return d if d.shape == x.shape else fnp.reshape(d, x.shape)


def _cumsum_rule(nan):
    def rule(out, ins, g, axis, dtype=None, include_initial=False):
        x = ins[0]
        if not _float(x):
            return None,
        xs, g, _, ax = _scan_parts(out, x, g, axis, include_initial)
        d = _rev_cumsum(g, ax)
        if nan:
            d = fnp.where(fnp.isnan(xs), 0.0, d)
        return _back(d, x),
    return rule


defgrad("cumsum", "cumulative_sum")(_cumsum_rule(False))
defgrad("nancumsum")(_cumsum_rule(True))


def _cumprod_rule(nan):
    """d/dx_i of sum_m g_m y_m, y_m = x_0 ... x_m, is sum_{m >= i} g_m y_m / x_i
    before the scan's first zero; at the first zero k it is sum_{m >= k} g_m
    (cumprod with x_k := 1)_m; after it every y_m has two zero-ish factors: 0."""
    def rule(out, ins, g, axis, dtype=None, include_initial=False):
        x = ins[0]
        if not _float(x):
            return None,
        xs, g, y, ax = _scan_parts(out, x, g, axis, include_initial)
        t = fnp.where(fnp.isnan(xs), 1.0, xs) if nan else xs  # what the forward multiplies
        zero = t == 0
        seen = fnp.cumsum(zero, axis=ax)
        before = seen == 0
        first = zero & (seen == 1)
        a = _rev_cumsum(g * y, ax) / fnp.where(before, t, 1.0)
        b = _rev_cumsum(g * fnp.cumprod(fnp.where(first, 1.0, t), axis=ax, dtype=y.dtype), ax)
        d = fnp.where(before, a, fnp.where(first, b, 0.0))
        if nan:
            d = fnp.where(fnp.isnan(xs), 0.0, d)
        return _back(d, x),
    return rule


defgrad("cumprod", "cumulative_prod")(_cumprod_rule(False))
defgrad("nancumprod")(_cumprod_rule(True))


# ---------------------------------------------------------------- no gradient

# integer/bool results: nothing flows back (an explicit rule, so that a
# vector-Jacobian product seeded at one of them gives zeros, not an error)
defgrad("argmax", "argmin", "nanargmax", "nanargmin", "all", "any", "count_nonzero")(
    lambda out, ins, g, **params: _none(ins))

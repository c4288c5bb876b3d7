"""Reductions and scans on the CuPy engine.

NumPy's kernels pass every param straight to ``np.<op>``, which dispatches,
but CuPy's reductions take no ``initial=`` or ``where=``.  One kernel here
calls ``xp.<op>`` with the params CuPy has and does the rest itself:
``where=`` masks the input with the reduction's identity (sum, prod,
all, any and their nan- forms; max/min with ``initial``), ``initial`` joins
the result afterwards.  ``count_nonzero``, ``average`` and the Array API
``cumulative_*`` are written out (CuPy lacks some of their arguments).
Out-forms compute and copy (float sums may differ from NumPy's pairwise
order in the last bits: GPU reductions use a tree of their own).
"""
import numpy as np

from ...ops.reduction import SPEC, unwrap
from .support import cupy, xp

#: identity a masked-out element becomes
_IDENTITY = {"sum": 0, "nansum": 0, "prod": 1, "nanprod": 1, "all": True, "any": False}
#: how ``initial`` joins a reduced result
_JOIN = {"sum": "add", "nansum": "add", "prod": "multiply", "nanprod": "multiply", "max": "maximum",
         "min": "minimum", "nanmax": "fmax", "nanmin": "fmin"}


def _refuse(op: str):
    def refuse(node):
        masked = len(node.inputs) > 1
        if op == "average":
            return None
        if masked and op not in _IDENTITY and op not in ("mean", "nanmean") and op not in _VAR \
                and not (op in _JOIN and _initial(dict(node.params)) is not None):
            return f"{op}(where=...) needs initial= on the cupy engine (CuPy's {op} has neither)"
        return None
    return refuse


def _initial(params):
    init = params.get("initial")
    return None if init is None else unwrap(init)


def _reduce(op: str):
    join = _JOIN.get(op)

    def kernel(a, *mask, **params):
        m = xp()
        a = m.asarray(a)
        init = _initial(params)
        params.pop("initial", None)
        if mask and op in ("mean", "nanmean"):
            return _masked_mean(m, op, a, m.asarray(mask[0]), **params)
        if mask and op in _VAR:
            return _masked_var(m, op, a, m.asarray(mask[0]), **params)
        if mask:
            fill = _IDENTITY.get(op, init)
            a = m.where(m.asarray(mask[0]), a, m.asarray(fill, dtype=a.dtype))
        if init is not None and op not in _IDENTITY and any(a.shape[x] == 0 for x in params["axis"]):
            # max/min of nothing with initial=: the initial value (CuPy refuses empty max/min)
            shape = tuple(1 if x in params["axis"] else d for x, d in enumerate(a.shape)) if params["keepdims"] \
                else tuple(d for x, d in enumerate(a.shape) if x not in params["axis"])
            return m.full(shape, init, dtype=a.dtype)
        r = getattr(m, op)(a, **params)
        if init is not None:
            r = getattr(m, join)(r, m.asarray(init, dtype=r.dtype) if np.ndim(init) == 0 else m.asarray(init),
                                 dtype=r.dtype)
        return r
    kernel.__name__ = f"cupy_{op}"
    return kernel


def _masked_mean(m, op, a, mask, axis, keepdims, dtype=None):
    """NumPy's mean with where=: the masked sum over the count of selected elements."""
    if op == "nanmean":  # NaNs count as unselected
        mask = mask & ~m.isnan(a) if a.dtype.kind in "fc" else mask
    mask = m.broadcast_to(mask, a.shape)
    count = m.sum(mask, axis=axis, dtype=np.intp, keepdims=keepdims)
    if dtype is None:
        dtype = np.float64 if a.dtype.kind in "biu" else a.dtype
    total = m.sum(m.where(mask, a, m.asarray(0, dtype=a.dtype)), axis=axis, dtype=dtype, keepdims=keepdims)
    return m.true_divide(total, count, dtype=np.result_type(dtype, np.float64)).astype(np.result_type(total))


_VAR = ("var", "std", "nanvar", "nanstd")


def _masked_var(m, op, a, mask, axis, keepdims, dtype=None, ddof=0):
    """NumPy's var/std with where=: squared deviations from the masked mean,
    summed over the selection, over count - ddof (NaN where that is <= 0)."""
    mask = m.broadcast_to(mask, a.shape)
    if op.startswith("nan") and a.dtype.kind in "fc":
        mask = mask & ~m.isnan(a)
    count = m.sum(mask, axis=axis, dtype=np.intp, keepdims=True)
    acc = dtype if dtype is not None else np.float64 if a.dtype.kind in "biu" else a.dtype
    zero = m.asarray(0, dtype=a.dtype)
    mean = m.sum(m.where(mask, a, zero), axis=axis, dtype=acc, keepdims=True) / count
    dev = m.where(mask, a - mean, m.asarray(0, dtype=mean.dtype))
    sq = (dev * m.conj(dev)).real if dev.dtype.kind == "c" else dev * dev
    total = m.sum(sq, axis=axis, dtype=dtype, keepdims=True)
    dof = count - ddof
    out = m.where(dof > 0, total / m.maximum(dof, 1), np.nan)
    if op.endswith("std"):
        out = m.sqrt(out)
    if not keepdims:
        out = out.reshape(tuple(d for x, d in enumerate(out.shape) if x not in axis))
    return out.astype(np.finfo(np.result_type(acc)).dtype)


def _count_nonzero(a, *, axis, keepdims):
    m = xp()
    a = m.asarray(a)
    return m.sum(a != 0, axis=axis, dtype=np.intp, keepdims=keepdims)


def _average(a, *weights, axis, keepdims, output=None):
    """NumPy's average: mean, or sum(a * w) / sum(w) in the result type; output
    1 (returned=True) is the weight sum broadcast to the average's shape."""
    m = xp()
    a = m.asarray(a)
    if not weights:
        avg = m.mean(a, axis=axis, keepdims=keepdims)
        if output == 1:
            return m.full(avg.shape, avg.dtype.type(a.size / max(avg.size, 1)), avg.dtype)
        return avg
    w = m.asarray(weights[0])
    if w.shape != a.shape:  # weights shaped like the reduced axes (in the user's order): spread over them
        w = m.transpose(w, tuple(int(i) for i in np.argsort(axis))).reshape(
            tuple(d if x in axis else 1 for x, d in enumerate(a.shape)))
    rt = np.result_type(a.dtype, w.dtype, np.float64) if a.dtype.kind in "biu" else np.result_type(a.dtype, w.dtype)
    scl = m.sum(w, axis=axis, dtype=rt, keepdims=keepdims)
    if bool(m.any(scl == 0.0)):  # NumPy refuses; one device-to-host sync
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = m.sum(m.multiply(a, w, dtype=rt), axis=axis, keepdims=keepdims) / scl
    return m.broadcast_to(scl, avg.shape).copy() if output == 1 else avg


def _cumulative(op: str):
    scan, ident = ("cumsum", 0) if op == "cumulative_sum" else ("cumprod", 1)

    def kernel(x, *, axis, dtype=None, include_initial=False):
        m = xp()
        x = m.asarray(x)
        if x.ndim == 0:
            x = x.reshape(1)
        axis = 0 if axis is None else axis
        r = getattr(m, scan)(x, axis=axis, dtype=dtype)
        if include_initial:
            shape = list(r.shape)
            shape[axis] = 1
            r = m.concatenate([m.full(shape, ident, r.dtype), r], axis=axis)
        return r
    kernel.__name__ = f"cupy_{op}"
    return kernel


for _op, (_fn, _kind, _) in SPEC.items():
    if _op == "count_nonzero":
        cupy(_op, _count_nonzero, None, "sum(a != 0) (cupy.count_nonzero has no keepdims)")
    elif _op == "average":
        cupy(_op, _average, None, "mean, or sum(a*w)/sum(w) as NumPy", refuse=_refuse(_op))
    elif _kind == "cumulative":
        cupy(_op, _cumulative(_op), None, "xp.cumsum/cumprod + the identity row for include_initial")
    else:
        note = "xp." + _op + ("; where=/initial= done here" if _kind == "reduce" else "")
        cupy(_op, _reduce(_op), None, note, needs=(_op,), refuse=_refuse(_op) if _kind == "reduce" else None)

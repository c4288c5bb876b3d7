"""The reference NumPy kernels of the reductions and scans (``ops/reduction.py``
declares them): NumPy's own functions, called with the node's params, so
results are bit-identical to NumPy's.

Out-forms (``out_kernel``) write into the engine's C-contiguous buffer,
bit-identical to the kernels:

* reductions pass ``out=`` to the same NumPy function (a 0-d ``out`` for full
  reductions, keepdims-shaped otherwise); nanmax/nanmin call NumPy's
  ``fmax/fmin.reduce`` themselves.  Where ``out=`` could change the bits they
  copy the kernel's result instead: an inexact result from an input that is
  not C-contiguous (summation order), float16 ``mean`` (NumPy rounds the sum
  into ``out`` first), var/std with an integer ``dtype=``;
* scans copy (casting) the input into ``out`` and accumulate there in place,
  so no input-sized cast temporary; NaN-scans zero the NaNs in ``out`` chunk
  by chunk in between (one reused per-thread mask);
* ``count_nonzero`` and ``average`` (no ``out=`` in NumPy) count or ``mean``
  into ``out``; ``average`` with weights copies its kernel's result.
"""
import threading
import warnings

import numpy as np

from ..symbol import Const, Scalar

_NoValue = np._NoValue

# ---------------------------------------------------------------- op table

#: op name -> (NumPy function, kind, name of the optional second input)
#: kinds: "reduce" (axis tuple), "arg" (axis int/None), "scan" (cumsum-like),
#: "cumulative" (Array API cumulative_sum-like)
SPEC: dict[str, tuple] = {}
for _n in ("sum", "prod", "mean", "var", "std", "max", "min", "all", "any",
           "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"):
    SPEC[_n] = (getattr(np, _n), "reduce", "where")
for _n in ("ptp", "count_nonzero"):
    SPEC[_n] = (getattr(np, _n), "reduce", None)
SPEC["average"] = (np.average, "reduce", "weights")
for _n in ("argmax", "argmin", "nanargmax", "nanargmin"):
    SPEC[_n] = (getattr(np, _n), "arg", None)
for _n in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
    SPEC[_n] = (getattr(np, _n), "scan", None)
for _n in ("cumulative_sum", "cumulative_prod"):
    SPEC[_n] = (getattr(np, _n), "cumulative", None)


def unwrap(value):
    """A stored ``initial`` as NumPy expects it (Scalar/Const -> value)."""
    if isinstance(value, Scalar):
        return value.value
    if isinstance(value, Const):
        return value.array[()] if value.array.ndim == 0 else value.array
    return value


def call(op: str, arrays, params: dict):
    """Run NumPy's function for ``op`` on ``arrays`` (input, optional extra)."""
    fn, _, extra = SPEC[op]
    kw = dict(params)
    output = kw.pop("output", None)
    if output is not None:  # average(returned=True): one node per output
        kw["returned"] = True
    if "initial" in kw:
        kw["initial"] = unwrap(kw["initial"])
    if len(arrays) > 1:
        kw[extra] = arrays[1]
    out = fn(arrays[0], **kw)
    return out if output is None else out[output]



def _kernel(op: str):
    def kernel(*arrays, **params):
        return call(op, arrays, params)
    kernel.__name__ = f"numpy_{op}"
    return kernel


def _copy_fallback(op: str):
    """``copyto(out, kernel(...))``: for cases NumPy's ``out=`` does not reproduce."""
    kernel = _kernel(op)

    def run(*arrays, out, **params):
        np.copyto(out, kernel(*arrays, **params), casting="unsafe")
        return out
    return run


def _f16_mean(arrays, params) -> bool:
    # NumPy's mean of float16 sums in float32 and divides before rounding to
    # float16; with out= it rounds the sum into out first (different bits)
    return params.get("dtype") is None and np.result_type(arrays[0]) == np.float16


def _order_matters(arrays, out) -> bool:
    """True when ``out=`` could change the bits: an inexact result and an input
    that is not C-contiguous.  NumPy's iterator orders the loops by all operands'
    strides; its own output follows the input's layout, a C ``out`` may
    disagree, and then the sums run in another order (and ±0, NaN payloads of
    max/min may differ).  Integer and bool results are exact in any order."""
    return out.dtype.kind in "fc" and any(
        isinstance(a, np.ndarray) and not a.flags.c_contiguous for a in arrays)


# ---------------------------------------------------------------- reductions

_VAR_LIKE = {"var", "std", "nanvar", "nanstd"}


def _reduce_out(op: str):
    """NumPy's own function with ``out=``: sum, max, argmax, var, nanmax, ..."""
    fn, _, extra = SPEC[op]
    fallback = _copy_fallback(op)
    mean_like = op in ("mean", "nanmean")
    var_like = op in _VAR_LIKE

    def run(*arrays, out, **params):
        if (_order_matters(arrays, out) or (mean_like and _f16_mean(arrays, params))
                # an integer/bool dtype= for var/std: NumPy's array path (taken
                # with out=) refuses to sqrt in place, its scalar path casts
                or (var_like and params.get("dtype") is not None and params["dtype"].kind not in "fc")):
            return fallback(*arrays, out=out, **params)
        if "initial" in params:
            params["initial"] = unwrap(params["initial"])
        if len(arrays) > 1:
            params[extra] = arrays[1]
        fn(arrays[0], out=out, **params)
        return out
    run.__name__ = f"numpy_{op}_out"
    return run


def _nan_extreme_out(op: str):
    """nanmax/nanmin: NumPy's own ``fmax/fmin.reduce`` into ``out``, and its
    all-NaN warning found without NumPy's output-sized ``isnan`` mask."""
    ufunc = np.fmax if op == "nanmax" else np.fmin
    general = _reduce_out(op)

    def run(a, *extra, out, axis, keepdims, initial=_NoValue):
        if type(a) is not np.ndarray or _order_matters((a,) + extra, out):  # NumPy's other paths
            kw = {} if initial is _NoValue else {"initial": initial}
            return general(a, *extra, out=out, axis=axis, keepdims=keepdims, **kw)
        kw = {} if initial is _NoValue else {"initial": unwrap(initial)}
        if extra:
            kw["where"] = extra[0]
        ufunc.reduce(a, axis=axis, out=out, keepdims=keepdims, **kw)
        # a NaN in out makes its sum NaN (the sum may also be NaN without one: then look closer)
        if out.dtype.kind in "fc" and np.isnan(np.sum(out)) and np.isnan(out).any():
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
        return out
    run.__name__ = f"numpy_{op}_out"
    return run


def _count_nonzero_out(a, *, out, axis, keepdims):
    """NumPy's count_nonzero has no out=: count straight into ``out``."""
    a = np.asarray(a)
    if len(axis) == a.ndim:  # everything: a C count, no temporary
        out[...] = np.count_nonzero(a)
    else:  # what NumPy does (the bool view is free for bool input), into out
        np.sum(a.astype(bool, copy=False), axis=axis, dtype=np.intp, out=out, keepdims=keepdims)
    return out


_average_fallback = _copy_fallback("average")


def _average_out(a, *extra, out, axis, keepdims, output=None):
    """``average`` without weights is ``mean`` (and its weight sum a constant)."""
    if extra or _f16_mean((a,), {}) or _order_matters((a,), out):
        return _average_fallback(a, *extra, out=out, axis=axis, keepdims=keepdims, output=output)
    if output == 1:  # sum of weights: the count, as NumPy computes it
        if out.size == 0:
            return _average_fallback(a, out=out, axis=axis, keepdims=keepdims, output=output)
        out.fill(out.dtype.type(np.size(a) / out.size))
        return out
    np.mean(a, axis=axis, keepdims=keepdims, out=out)
    return out


# ---------------------------------------------------------------- scans

_CHUNK = 1 << 15
_local = threading.local()


def _nan_mask(n: int) -> np.ndarray:
    """A per-thread bool scratch of ``n`` values (reused: no allocation per run)."""
    buf = getattr(_local, "mask", None)
    if buf is None:
        buf = _local.mask = np.empty(_CHUNK, bool)
    return buf[:n]


def _replace_nans(x: np.ndarray, view: np.ndarray, fill) -> None:
    """Copy ``x`` into ``view`` (casting) with NaNs replaced by ``fill``, like
    NumPy's nan-scans, which replace first and cast while accumulating."""
    if view.dtype.kind in "fc" and np.can_cast(x.dtype, view.dtype, "same_kind"):
        # NaN survives the cast: copy, then fix NaNs in place, chunk by chunk
        np.copyto(view, x, casting="unsafe")
        flat = view.reshape(-1)  # view is C-contiguous (a part of out)
        for i in range(0, flat.size, _CHUNK):
            part = flat[i:i + _CHUNK]
            mask = np.isnan(part, out=_nan_mask(part.size))
            np.copyto(part, fill, casting="unsafe", where=mask)
        return
    # a cast that loses NaN (float -> int, complex -> real): mask from x itself
    mask = np.isnan(x)
    with np.errstate(invalid="ignore"):
        np.copyto(view, x, casting="unsafe")
    np.copyto(view, fill, casting="unsafe", where=mask)


def _scan_out(op: str):
    """cumsum-like: accumulate into ``out`` (in place after a casting copy)."""
    ufunc = np.add if "sum" in op else np.multiply
    nan_fill = (0 if ufunc is np.add else 1) if op.startswith("nan") else None
    cumulative = op.startswith("cumulative")

    def run(x, *, out, axis, dtype=None, include_initial=False):
        x = np.asarray(x)
        target = out  # the part of out that holds accumulate(x)
        if cumulative:  # Array API: 0-d counts as 1-d; include_initial puts the identity first
            x = np.atleast_1d(x)
            axis = 0 if axis is None else axis
            if include_initial:
                idx = [slice(None)] * out.ndim
                idx[axis] = 0
                out[tuple(idx)] = ufunc.identity
                idx[axis] = slice(1, None)
                target = out[tuple(idx)]
        view = target  # where x's elements land before accumulating
        if axis is None:  # the flattened array, in C order
            view = out.reshape(x.shape)
            axis = 0
        nans = nan_fill is not None and x.dtype.kind in "fc"
        if x.dtype == out.dtype and not nans and (view is target or x.flags.c_contiguous or x.ndim == 1):
            # no cast needed: accumulate straight from x (x may be out itself).
            # A 1-d x too: NumPy's own axis=None scan of it does not copy, and
            # complex multiply rounds differently on a strided operand
            ufunc.accumulate(x.reshape(target.shape), axis=axis, dtype=out.dtype, out=target)
            return out
        if nans:
            _replace_nans(x, view, nan_fill)
        else:
            np.copyto(view, x, casting="unsafe")
        ufunc.accumulate(target, axis=axis, dtype=out.dtype, out=target)
        return out
    run.__name__ = f"numpy_{op}_out"
    return run


# ---------------------------------------------------------------- the kernels of each op

def kernels(op: str) -> tuple:
    """``(kernel, out_kernel)`` of op ``op``."""
    kind = SPEC[op][1]
    if op == "count_nonzero":
        out = _count_nonzero_out
    elif op == "average":
        out = _average_out
    elif op in ("nanmax", "nanmin"):
        out = _nan_extreme_out(op)
    elif kind in ("scan", "cumulative"):
        out = _scan_out(op)
    else:
        out = _reduce_out(op)
    return _kernel(op), out

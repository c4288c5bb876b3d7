"""Reductions and scans on the Dask engine: ``da.sum``, ``da.mean``,
``da.argmax``, ``da.cumsum``, ... (tree reductions: floating-point sums are
reordered, so results agree with NumPy's to rounding).  What dask lacks
(``where=``, ``initial=``, ``average``'s weights) runs NumPy's own function
on blocks whose reduced axes are whole (``reduce_whole``)."""
import math

import dask.array as da

from ...registry import override
from .base import along_axis, as_dask, flat, reduce_whole, reshape


_DASK_REDUCE = {n: getattr(da, n) for n in ("sum", "prod", "mean", "var", "std", "max", "min", "all", "any",
                                             "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin")}


def _reduce(ctx, node, x, *extra):
    p = node.kwargs
    if extra or "initial" in p or not isinstance(x, da.Array) or x.size == 0 or (
            node.op in ("var", "std", "nanvar", "nanstd") and (  # NumPy's 0/0 and x/0 where n <= ddof
                p.get("dtype") is not None or math.prod(x.shape[a] for a in p["axis"]) <= p["ddof"]
                or node.op.startswith("nan") and p["ddof"])):  # n (non-NaN count) depends on the data
        return reduce_whole(node, as_dask(x, node.inputs[0]), p["axis"], p["keepdims"], extra, masks=True)
    kw = {}
    if p.get("dtype") is not None:
        kw["dtype"] = p["dtype"]
    if "ddof" in p:
        kw["ddof"] = p["ddof"]
    return _DASK_REDUCE[node.op](x, axis=p["axis"], keepdims=p["keepdims"], **kw)


for _op in _DASK_REDUCE:
    override("dask", _op, _reduce)


def _ptp(ctx, node, x):
    p = node.kwargs
    x = as_dask(x, node.inputs[0])
    if x.size == 0:  # dask refuses empty max/min even where NumPy does not
        return reduce_whole(node, x, p["axis"], p["keepdims"])
    return da.max(x, axis=p["axis"], keepdims=p["keepdims"]) - da.min(x, axis=p["axis"], keepdims=p["keepdims"])


def _count_nonzero(ctx, node, x):
    p = node.kwargs
    return da.sum(as_dask(x, node.inputs[0]) != 0, axis=p["axis"], keepdims=p["keepdims"], dtype=node.dtype)


def _average(ctx, node, x, *weights):
    p = node.kwargs
    return reduce_whole(node, as_dask(x, node.inputs[0]), p["axis"], p["keepdims"], weights)


def _arg(ctx, node, x):
    p = node.kwargs
    x = as_dask(x, node.inputs[0])
    if x.size == 0 or node.op.startswith("nan"):  # dask's nanarg* combine ties across all-NaN chunks differently
        return reduce_whole(node, x, p["axis"], p["keepdims"])
    if p["axis"] is None and x.ndim > 1:  # the first index in C order: dask's flattened argmax breaks ties by block
        return reshape(getattr(da, node.op)(flat(x), axis=0), node.shape)
    return getattr(da, node.op)(x, axis=p["axis"], keepdims=p["keepdims"])


def _scan(ctx, node, x):
    axis, dtype = node.param("axis"), node.param("dtype")
    x = as_dask(x, node.inputs[0])
    if x.ndim == 0 or x.size == 0:
        return along_axis(ctx, node, x)
    if axis is None:
        x, axis = reshape(x, (x.size,)), 0
    return getattr(da, node.op)(x, axis=axis, dtype=dtype)


override("dask", "ptp", _ptp)
override("dask", "count_nonzero", _count_nonzero)
override("dask", "average", _average)
for _op in ("argmax", "argmin", "nanargmax", "nanargmin"):
    override("dask", _op, _arg)
for _op in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
    override("dask", _op, _scan)
for _op in ("cumulative_sum", "cumulative_prod"):  # (include_initial=: NumPy's own, the axis whole)
    override("dask", _op, along_axis)

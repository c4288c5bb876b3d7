"""Sorting ops on the Dask engine: NumPy's kernel on blocks whose sorted axis
is whole (the others chunked); order statistics on blocks whose reduced
axes are whole, laid out as NumPy lays them out."""
import math

from ...ops.sorting import order_stat_layout
from ...registry import override
from .base import Kernel, along_axis, as_dask, ndim_of, reduce_whole, shape_of, tiled


def _sort_complex(ctx, node, x):
    nd = ndim_of(x)
    return tiled(Kernel.of(node), node.shape, node.dtype, [x], [tuple(range(nd - 1)) + (None,) if nd else ()])


def _order_stat(ctx, node, a, *rest):
    p = node.kwargs
    q = rest[0] if "median" not in node.op else None
    weights = rest[1:] if q is not None else ()
    a = as_dask(a, node.inputs[0])
    nd, qn, axis = ndim_of(a), 0 if q is None else ndim_of(q), p["axis"]
    empty = math.prod(shape_of(a)) == 0
    layout = order_stat_layout(node.op, nd, axis, qn, p["keepdims"], bool(weights), empty)
    if layout == order_stat_layout("plain", nd, axis, qn, p["keepdims"]):  # q's axes, then the kept ones
        return reduce_whole(node, a, axis, p["keepdims"], weights, lead=q)
    # NumPy's own layout (a nan-form's odd one, or an empty nan-form's without
    # q's axes): each kept axis of a goes where that layout puts it; q, weights whole
    lead = 0 if empty and node.op.startswith("nan") else qn
    keep = [] if axis is None else [j for j in range(nd) if j not in axis]
    amap = tuple(layout.index(lead + keep.index(j)) if j in keep else None for j in range(nd))
    args = [a] + ([q] if q is not None else []) + list(weights)
    maps = [amap] + [(None,) * ndim_of(x) for x in args[1:]]
    return tiled(Kernel.of(node), node.shape, node.dtype, args, maps)


override("dask", "sort_complex", _sort_complex)
for _op in ("median", "nanmedian", "percentile", "nanpercentile", "quantile", "nanquantile"):
    override("dask", _op, _order_stat)
for _op in ("sort", "argsort", "partition", "argpartition", "lexsort"):  # the axis whole, the others chunked
    override("dask", _op, along_axis)

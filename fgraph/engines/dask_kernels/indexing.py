"""Indexing ops on the Dask engine: basic indexing is dask's own; a gather
with a constant index is ``da.take`` (the array stays chunked); one with
lazy indices runs NumPy's kernel with the array whole and the indices
chunked (``gather``)."""
import dask.array as da
import numpy as np

from ...ops.indexing import slice_key
from ...registry import override
from .base import Kernel, as_dask, ndim_of, reshape, right_aligned, shape_of, tiled, whole
from .elementwise import elementwise


def _const_input(node, i):
    """Input ``i``'s value if it is a constant or literal, else None."""
    n = node.inputs[i]
    if n.op == "constant":
        return n.param("value").array
    if n.op == "literal":
        return np.asarray(n.param("value").value)
    return None


def _slice(ctx, node, x):
    return as_dask(x, node.inputs[0])[slice_key(node.param("key"))]


def gather(node, x, indices, positions):
    """``x`` whole in every task, the index arrays chunked: their axes land
    on output axes ``positions`` (right-aligned, as they broadcast)."""
    maps = [(None,) * ndim_of(x)] + [right_aligned(ndim_of(i), positions) for i in indices]
    return tiled(Kernel.of(node), node.shape, node.dtype, [x, *indices], maps)


def _take_constant(x, index, axis, shape):
    """dask's own take along one axis (``x`` stays chunked) for a constant index."""
    return reshape(da.take(x, index.reshape(-1), axis=axis), shape)


def _advanced(ctx, node, x, *idx):
    key, front = node.param("key"), node.param("front")
    x = as_dask(x, node.inputs[0])
    positions = [p for p, e in enumerate(key) if e is not None]
    index = _const_input(node, 1) if len(positions) == 1 and key[positions[0]] == "a" else None
    if index is not None and x.shape[positions[0]]:
        p = positions[0]
        return _take_constant(x, np.where(index < 0, index + x.shape[p], index), p, node.shape)
    b = np.broadcast_shapes((), *(shape_of(i) for i in idx))
    adjacent = not front and positions == list(range(positions[0], positions[-1] + 1))
    start = positions[0] if adjacent else 0
    return gather(node, x, idx, range(start, start + len(b)))


def _take(ctx, node, a, ind):
    axis, mode = node.param("axis"), node.param("mode")
    a = as_dask(a, node.inputs[0])
    src, ax = (reshape(a, (a.size,)), 0) if axis is None else (a, axis)
    index = _const_input(node, 1)
    n = src.shape[ax]
    if index is not None and n:
        index = np.mod(index, n) if mode == "wrap" else np.clip(index, 0, n - 1) if mode == "clip" else \
            np.where(index < 0, index + n, index)
        return _take_constant(src, index, ax, node.shape)
    return gather(node, a, [ind], range(ax, ax + ndim_of(ind)))


def _take_along_axis(ctx, node, arr, ind):
    axis = node.param("axis")
    nd = ndim_of(arr)
    if axis is None:
        return tiled(Kernel.of(node), node.shape, node.dtype, [arr, ind], [(None,) * nd, (0,)])
    return tiled(Kernel.of(node), node.shape, node.dtype, [arr, ind],
                 [tuple(None if j == axis else j for j in range(nd)), tuple(range(nd))])


def _searchsorted(ctx, node, a, v, *sorter):
    maps = [(None,)] + [tuple(range(ndim_of(v)))] + [(None,)] * len(sorter)
    return tiled(Kernel.of(node), node.shape, node.dtype, [a, v, *sorter], maps)


override("dask", "slice", _slice)
override("dask", "advanced_index", _advanced)
override("dask", "take", _take)
override("dask", "take_along_axis", _take_along_axis)
override("dask", "searchsorted", _searchsorted)
override("dask", "scatter_add", whole)  # repeated indices accumulate anywhere in the result: one task
for _op in ("select", "choose", "unravel_index", "ravel_multi_index"):  # element-wise in their inputs
    override("dask", _op, elementwise)

"""Movement ops on the Dask engine: dask.array's own functions (``reshape``
and ``broadcast`` from base: uneven reshapes and broadcast chunking)."""
import dask.array as da
import numpy as np

from ...registry import override
from .base import as_dask, broadcast, reshape


def _reshape(ctx, node, x):
    return reshape(as_dask(x, node.inputs[0]), node.param("shape"))


def _broadcast_to(ctx, node, x):
    return broadcast(ctx, as_dask(x, node.inputs[0]), node.param("shape"))


def _slice_axis(ctx, node, x):
    p = node.kwargs
    return as_dask(x, node.inputs[0])[(slice(None),) * p["axis"] + (slice(p["start"], p["stop"], p["step"]),)]


def _concatenate(ctx, node, *xs):
    axis = node.param("axis")
    return da.concatenate([as_dask(x, n).astype(node.dtype) for x, n in zip(xs, node.inputs)], axis=axis)


def _repeat(ctx, node, x):
    repeats, axis = node.param("repeats"), node.param("axis")
    x = as_dask(x, node.inputs[0])
    if len(set(repeats)) == 1:
        return da.repeat(x, repeats[0], axis=axis)
    index = np.repeat(np.arange(len(repeats), dtype=np.intp), np.asarray(repeats, dtype=np.intp))
    return da.take(x, index, axis=axis)


override("dask", "reshape", _reshape)
override("dask", "transpose", lambda ctx, node, x: da.transpose(as_dask(x, node.inputs[0]), node.param("axes")))
override("dask", "broadcast_to", _broadcast_to)
override("dask", "flip", lambda ctx, node, x: da.flip(as_dask(x, node.inputs[0]), node.param("axes")))
override("dask", "slice_axis", _slice_axis)
override("dask", "concatenate", _concatenate)
override("dask", "repeat", _repeat)

"""The optimiser's ``fused`` groups on the Dask engine: the NumPy fused
kernel on each block, so a whole chain of ufuncs is one pass over
cache-sized pieces; a ``fused_reduce`` group reduces each piece at once (a
blockwise partial per block, the full-size value never stored), then a
tree reduction over the partials."""
import math

import dask.array as da
import numpy as np
from dask.array.core import elemwise

from ...errors import error_like, format_location
from ...registry import override
from ..numpy_kernels import fused as _fk  # the NumPy engine's fused runtime (strategies, compiled chains)
from .base import as_dask, ndim_of, right_aligned, tiled
from .elementwise import elementwise


def _full_inputs(args, shape):
    """Inputs of a fused node, one broadcast to the node's shape if none has it
    (so every output axis is chunked like some input)."""
    arrays = [a for a in args if isinstance(a, da.Array)]
    if any(a.shape == shape for a in arrays):
        return list(args)
    out = list(args)
    k = next((i for i, a in enumerate(args) if isinstance(a, da.Array)), 0)
    out[k] = da.broadcast_to(as_dask(args[k]), shape)
    return out


class FusedBlock:
    """A fused element-wise group on one block (its NumPy kernel: cache-sized
    pieces written into small reused buffers)."""

    def __init__(self, expr, where=""):
        self.expr, self.where = expr, where

    def __call__(self, *ins):
        shape = np.broadcast_shapes(*(np.shape(x) for x in ins if isinstance(x, np.ndarray)))
        strategy = "whole" if math.prod(shape) < _fk.SMALL else "blocked"
        try:
            return _fk.run_fused(*ins, expr=self.expr, shape=shape, strategy=strategy)
        except Exception as e:
            raise error_like(e, f"fused failed at run time on the dask engine: {type(e).__name__}: {e}\n"
                                f"  node made at {self.where}") from e


def _fused(ctx, node, *args):
    shape = node.param("shape")
    args = _full_inputs(args, shape)
    return elemwise(FusedBlock(node.param("expr"), format_location(node.where)), *args, dtype=node.dtype)


override("dask", "fused", _fused)

#: how partial results of a reduction combine
_COMBINE = {"sum": np.sum, "mean": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "any": np.any,
            "all": np.all}


def mean_dtype(x_dtype, dtype=None) -> np.dtype:
    """The dtype NumPy's mean sums in."""
    if dtype is not None:
        return np.dtype(dtype)
    x_dtype = np.dtype(x_dtype)
    if x_dtype.kind in "biu":
        return np.dtype("f8")
    return np.dtype("f4") if x_dtype == np.float16 else x_dtype


class FusedPartial:
    """One block of a ``fused_reduce``: the expression a piece of about
    ``CHUNK`` values at a time (the NumPy fused kernel's pieces), each piece
    reduced at once, the pieces' results combined.  Returns the block's
    partial: the block's shape with the reduced axes of length 1."""

    def __init__(self, expr, reduce, axis, dtype, where=""):
        self.expr, self.reduce, self.axis, self.dtype, self.where = expr, reduce, tuple(axis), dtype, where

    def __call__(self, *ins):
        try:
            return self._run(ins)
        except Exception as e:
            raise error_like(e, f"fused_reduce failed at run time on the dask engine: {type(e).__name__}: {e}\n"
                                f"  node made at {self.where}") from e

    def _run(self, ins):
        shape = np.broadcast_shapes(*(np.shape(x) for x in ins if isinstance(x, np.ndarray)))
        c = _fk.compiled(self.expr, len(ins))
        reduce = np.sum if self.reduce == "mean" else getattr(np, self.reduce)
        kw = {} if self.dtype is None else {"dtype": self.dtype}
        combine = _COMBINE[self.reduce]
        prepared = _fk._prepare(ins, shape)
        pieces = _fk._blocks(shape)
        k = len(pieces[0])  # pieces index axes < k (ints, then a slice at k - 1); axes >= k are whole
        first = pieces[0]
        n_max = math.prod(len(range(*s.indices(d))) if isinstance(s, slice) else 1
                          for s, d in zip(first, shape)) * math.prod(shape[k:]) if k else math.prod(shape)
        flat = c.scratch(max(1, n_max), result=True)
        lo = max(k - 1, 0)  # the first axis a piece keeps
        paxes = tuple(a - lo for a in self.axis if a >= lo)
        partial_shape = tuple(1 if a in self.axis else d for a, d in enumerate(shape))
        groups: dict = {}
        for idx in pieces:
            pshape = tuple(len(range(*s.indices(d))) for s, d in zip(idx[lo:], shape[lo:k])) + shape[k:] \
                if idx else shape
            n = math.prod(pshape)
            bufs = [b[:n].reshape(pshape) for b in flat]
            value = bufs.pop()
            c.chunk(tuple(x[idx] if isinstance(x, np.ndarray) and x.ndim and idx else x for x in prepared),
                    value, bufs)
            r = reduce(value, axis=paxes, keepdims=True, **kw)
            if not paxes or np.may_share_memory(r, value):  # never keep a view of the scratch buffer
                r = np.array(r, copy=True)
            pos = []
            for a, s in enumerate(idx):
                if a in self.axis:
                    pos.append(0 if a < lo else slice(0, 1))
                else:
                    pos.append(s)
            key = tuple((s.start, s.stop) if isinstance(s, slice) else s for s in pos)
            groups.setdefault(key, (tuple(pos), []))[1].append(r)
        out = None
        for pos, parts in groups.values():
            value = parts[0] if len(parts) == 1 else combine(np.stack(parts), axis=0)
            if not pos:
                return np.asarray(value).reshape(partial_shape)
            if out is None:
                out = np.empty(partial_shape, value.dtype)
            out[pos] = value
        return out


def _fused_reduce(ctx, node, *args):
    p = node.kwargs
    shape, axis, reduce, keepdims = p["shape"], tuple(p["axis"]), p["reduce"], p["keepdims"]
    expr = p["expr"]
    acc = mean_dtype(expr[-1][3], p["dtype"]) if reduce == "mean" else p["dtype"]
    probe = (np.sum if reduce == "mean" else getattr(np, reduce))(
        np.ones((1,) * len(shape), expr[-1][3]), axis=axis, keepdims=True, **({} if acc is None else {"dtype": acc}))
    args = _full_inputs(args, shape)
    maps = [right_aligned(ndim_of(a), range(len(shape))) for a in args]
    partials = tiled(FusedPartial(expr, reduce, axis, acc, format_location(node.where)), shape, probe.dtype, args,
                     maps, adjust={a: 1 for a in axis})
    if reduce == "mean":
        total = da.sum(partials, axis=axis, keepdims=keepdims, dtype=acc)
        return (total / math.prod(shape[a] for a in axis)).astype(node.dtype)
    agg = getattr(da, reduce)
    kw = {"dtype": probe.dtype} if reduce in ("sum", "prod") else {}
    return agg(partials, axis=axis, keepdims=keepdims, **kw)


override("dask", "fused_reduce", _fused_reduce)
for _op in ("fma", "adagrad"):  # the optimiser's element-wise helpers (fgraph/ops/fused.py)
    override("dask", _op, elementwise)

"""Creation ops on the Dask engine: values built chunk by chunk with NumPy's
own formulas (arange, linspace, eye, ...), so a graph can describe arrays
larger than memory, bit-identical to the NumPy engine's."""
import dask.array as da
import numpy as np
from dask.array.core import elemwise

from ...registry import attr_table, override
from ...ops.creation_kernels import space_rows  # the linspace family's recipe, shared with its out-kernels
from .base import NUMPY, as_dask, broadcast, ndim_of, plain, tiled, whole

_OUT_KERNELS = attr_table(NUMPY.out)


def _zeros_like(fill):
    def lower(ctx, node):
        shape = node.param("shape")
        return fill(shape, dtype=node.dtype, chunks=ctx.chunks_for(shape, node.dtype))
    return lower


def _full(ctx, node, *fill):
    shape = node.param("shape")
    chunks = ctx.chunks_for(shape, node.dtype)
    value = node.param("fill_value").array if not fill else fill[0]
    if not isinstance(value, da.Array):
        value = np.asarray(value).astype(node.dtype)  # np.full casts unsafely, as astype does
        if value.ndim == 0:
            return da.full(shape, value[()], dtype=node.dtype, chunks=chunks)
        value = da.from_array(value, chunks=-1)
    return broadcast(ctx, value.astype(node.dtype), shape)


class ArangeBlock:
    """np.arange on one block of indices, bit for bit: NumPy sets the first
    two values from Python arithmetic (``head``), then fills
    ``start + i * delta`` in the dtype's arithmetic (see the NumPy kernel)."""

    def __init__(self, head: np.ndarray, dtype):
        self.head, self.dtype = head, np.dtype(dtype)

    def __call__(self, i):
        out = np.empty(i.shape, self.dtype)
        complex_ = self.dtype.kind == "c"
        parts = [(out.real, self.head.real), (out.imag, self.head.imag)] if complex_ else [(out, self.head)]
        for part, head in parts:
            if part.dtype.kind in "iub":
                start = head[:1].astype(np.int64)
                delta = (head[1:2] - head[:1]).astype(np.int64)
                np.copyto(part, i.astype(np.int64) * delta + start, casting="unsafe")
            else:
                calc = np.dtype(np.float32) if part.dtype == np.float16 else part.dtype
                start = head[:1].astype(calc)
                delta = head[1:2].astype(calc) - start
                t = np.multiply(i, delta, dtype=calc)
                np.add(t, start, out=t)
                np.copyto(part, t, casting="unsafe")
        early = i < 2
        if early.any():
            out[early] = self.head[i[early]]
        return out


def _arange(ctx, node):
    p = node.kwargs
    n = node.shape[0]
    if n <= 2 or node.dtype.kind == "b":
        return whole(ctx, node)
    head = _OUT_KERNELS["arange"](out=np.empty(2, node.dtype), **p)
    index = da.arange(n, chunks=ctx.chunks_for(node.shape, node.dtype), dtype=np.intp)
    return index.map_blocks(ArangeBlock(head, node.dtype), dtype=node.dtype)


class SpaceBlock:
    """Rows ``a..b`` (a block of the sample axis) of np.linspace / logspace /
    geomspace, with NumPy's operations in NumPy's order and dtypes (the NumPy
    kernels' recipe, per block).  Cases that recipe leaves to NumPy itself
    (complex samples, an array ``base``, zero ends) compute NumPy's whole
    result and cut the block out of it."""

    def __init__(self, op, num, endpoint, dtype, axis):
        self.op, self.num, self.endpoint, self.dtype, self.axis = op, num, endpoint, np.dtype(dtype), axis

    def __call__(self, rows, start, stop, base=None):
        n = rows.shape[0]
        a = int(rows[0]) if n else 0
        y = self._rows(a, n, start, stop, base)
        if y is None:  # NumPy's own call, then the block
            kw = dict(num=self.num, endpoint=self.endpoint, dtype=self.dtype, axis=0)
            full = getattr(np, self.op)(start, stop, base=base, **kw) if self.op == "logspace" else \
                getattr(np, self.op)(start, stop, **kw)
            y = full[a:a + n]
        return np.moveaxis(np.asarray(y).astype(self.dtype, copy=False), 0, self.axis)

    def _rows(self, a, n, start, stop, base):
        if self.op == "logspace" and not isinstance(base, (float, int)) and np.ndim(base):
            return None  # NumPy broadcasts an array base into the rows first
        rows = space_rows(self.op, start, stop, base, self.num, self.endpoint, self.dtype)
        if rows is None:
            return None
        dt, fill = rows
        y = np.empty((n,) + np.broadcast_shapes(np.shape(start), np.shape(stop)), dt)
        fill(y, a)
        return y


def _space(ctx, node, start, stop, *base):
    p = node.kwargs
    axis = p["axis"]
    if node.size == 0:
        return whole(ctx, node, start, stop, *base)
    num = p["num"]
    rows = da.arange(num, chunks=(ctx.chunks_for(node.shape, node.dtype)[axis],), dtype=np.intp)
    fn = SpaceBlock(node.op, num, p["endpoint"], node.dtype, axis)
    args = [rows, start, stop, *base]
    maps = [(axis,)] + [(None,) * ndim_of(x) for x in args[1:]]
    return tiled(fn, node.shape, node.dtype, args, maps)


def _index_grid(ctx, shape, fn, dtype):
    """``fn(i, j)`` over the row and column indices of a 2-d ``shape``, chunked."""
    c = ctx.chunks_for(shape, dtype)
    i = da.arange(shape[0], chunks=(c[0],), dtype=np.intp)[:, None]
    j = da.arange(shape[1], chunks=(c[1],), dtype=np.intp)[None, :]
    return elemwise(fn, i, j, dtype=dtype)


class DiagonalMask:
    """``j - i == k`` (eye), ``j - i <= k`` (tri: ``j <= i + k``) or ``>= k`` (triu's kept part)."""

    def __init__(self, how, k, dtype):
        self.how, self.k, self.dtype = how, k, np.dtype(dtype)

    def __call__(self, i, j):
        d = j - i
        r = d == self.k if self.how == "eq" else d <= self.k if self.how == "le" else d >= self.k
        return r.astype(self.dtype, copy=False)


def _clamp_k(k, shape):
    return int(min(max(k, -shape[0] - 1), shape[1] + 1))


def _eye(ctx, node):
    shape = node.param("shape")
    k = _clamp_k(plain(node.param("k")), shape)
    return _index_grid(ctx, shape, DiagonalMask("eq" if node.op == "eye" else "le", k, node.dtype), node.dtype)


def _tri_part(ctx, node, m):
    m = as_dask(m, node.inputs[0])
    shape = node.shape[-2:]
    k = _clamp_k(plain(node.param("k")), shape)
    keep = _index_grid(ctx, shape, DiagonalMask("le" if node.op == "tril" else "ge", k, bool), np.dtype(bool))
    return elemwise(np.where, keep, m, np.zeros((), node.dtype), dtype=node.dtype)


def _meshgrid(ctx, node, x):
    shape, axis = node.param("shape"), node.param("axis")
    src = [1] * len(shape)
    src[axis] = -1
    return broadcast(ctx, as_dask(x, node.inputs[0]).reshape(tuple(src)), shape)


def _indices(ctx, node):
    dims, dtype, output = node.param("dimensions"), node.dtype, node.param("output")
    chunks = ctx.chunks_for(dims, dtype)
    if output is None:
        return da.indices(dims, dtype=dtype, chunks=chunks)
    ones = (1,) * len(dims)
    return da.arange(dims[output], chunks=(chunks[output],), dtype=dtype).reshape(
        ones[:output] + (dims[output],) + ones[output + 1:])


override("dask", "zeros", _zeros_like(da.zeros))
override("dask", "ones", _zeros_like(da.ones))
override("dask", "full", _full)
override("dask", "arange", _arange)
for _op in ("linspace", "logspace", "geomspace"):
    override("dask", _op, _space)
for _op in ("eye", "tri"):
    override("dask", _op, _eye)
for _op in ("tril", "triu"):
    override("dask", _op, _tri_part)
override("dask", "linspace_step", whole)
override("dask", "meshgrid", _meshgrid)
override("dask", "indices", _indices)

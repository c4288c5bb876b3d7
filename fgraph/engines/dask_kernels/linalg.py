"""Products and linear algebra on the Dask engine: products are dask.array's
own (``matmul``, ``tensordot``, ``einsum``, ...; NumPy's call when an input
is empty); ``numpy.linalg`` on stacks of matrices runs NumPy's kernel per
block of the batch with the matrix axes whole (``gufunc``)."""
import dask.array as da
import numpy as np

from ...registry import override
from .base import Kernel, as_dask, flat, gufunc, ndim_of, reduce_whole, reshape, right_aligned, tiled, whole


def _cast_to(node, *xs):
    """Inputs cast to a ``dtype=`` param (NumPy's loop computes in it)."""
    dt = node.param("dtype")
    return [as_dask(x, n) if dt is None else as_dask(x, n).astype(dt) for x, n in zip(xs, node.inputs)]


def _dot(a, b):
    """numpy.dot on dask arrays."""
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    out = da.tensordot(a, b, axes=((a.ndim - 1,), (max(b.ndim - 2, 0),)))
    dt = np.result_type(a.dtype, b.dtype)  # dask sums bool products as counts: np.dot's are logical
    return out if out.dtype == dt else out.astype(dt)


def _inner(ctx, node, a, b):
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return da.tensordot(a, b, axes=((a.ndim - 1,), (b.ndim - 1,)))


def _kron(ctx, node, a, b):
    """NumPy's kron: both inputs with interleaved unit axes, multiplied, reshaped."""
    a, b = as_dask(a, node.inputs[0]), as_dask(b, node.inputs[1])
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    a2 = a.reshape(tuple(d for s in a.shape for d in (s, 1)))
    b2 = b.reshape(tuple(d for s in b.shape for d in (1, s)))
    return reshape(a2 * b2, node.shape)


def _vecdot(ctx, node, a, b):
    axes = node.param("axes")
    out_axes = range(node.ndim)
    maps = []
    for x, ax in ((a, axes[0]), (b, axes[1])):
        nd = ndim_of(x)
        ax %= max(nd, 1)
        rest = right_aligned(nd - 1, out_axes)
        maps.append(rest[:ax] + (None,) + rest[ax:])
    return tiled(Kernel.of(node), node.shape, node.dtype, [a, b], maps)


def _cross(ctx, node, a, b):
    p = node.kwargs
    batch = max(ndim_of(a), ndim_of(b)) - 1
    vec = node.ndim == batch + 1  # 3-vectors: the result keeps a vector axis at axisc
    positions = [k for k in range(node.ndim) if not (vec and k == p["axisc"] % node.ndim)]
    maps = []
    for x, ax in ((a, p["axisa"]), (b, p["axisb"])):
        nd = ndim_of(x)
        ax %= nd
        rest = right_aligned(nd - 1, positions)
        maps.append(rest[:ax] + (None,) + rest[ax:])
    return tiled(Kernel.of(node), node.shape, node.dtype, [a, b], maps)


def _norm(ctx, node, x):
    p = node.kwargs
    return reduce_whole(node, as_dask(x, node.inputs[0]), p["axis"], p["keepdims"])


def _products(fn):
    """A product's lowering, or NumPy's own call when an input is empty
    (the sums over empty axes are zeros; dask's tensordot refuses them)."""
    def lower(ctx, node, *args):
        if any(a.size == 0 for a in args if isinstance(a, da.Array)):
            return whole(ctx, node, *args)
        return fn(ctx, node, *[as_dask(a, n) for a, n in zip(args, node.inputs)])
    return lower


override("dask", "matmul", _products(lambda ctx, node, a, b: da.matmul(*_cast_to(node, a, b))))
override("dask", "dot", _products(lambda ctx, node, a, b: _dot(a, b)))
override("dask", "vdot", _products(lambda ctx, node, a, b: _dot(da.conj(flat(a)), flat(b))))
override("dask", "inner", _products(_inner))
override("dask", "outer", _products(lambda ctx, node, a, b: flat(a)[:, None] * flat(b)[None, :]))
override("dask", "tensordot", _products(lambda ctx, node, a, b: da.tensordot(
    a, b, axes=(list(node.param("axes")[0]), list(node.param("axes")[1])))))
override("dask", "einsum", _products(lambda ctx, node, *ops: da.einsum(
    node.param("subscripts"), *ops, **{k: v for k, v in node.params if k in ("dtype", "casting")})))
override("dask", "trace", lambda ctx, node, a: da.trace(as_dask(a, node.inputs[0]), node.param("offset"),
                                                       node.param("axis1"), node.param("axis2"), node.param("dtype")))
override("dask", "diagonal", lambda ctx, node, a: da.diagonal(as_dask(a, node.inputs[0]), node.param("offset"),
                                                             node.param("axis1"), node.param("axis2")))
override("dask", "matrix_transpose", lambda ctx, node, a: da.swapaxes(as_dask(a, node.inputs[0]), -1, -2))
override("dask", "kron", _kron)
override("dask", "multi_dot", _products(lambda ctx, node, *xs: _multi_dot(xs)))
override("dask", "vecdot", _vecdot)
override("dask", "cross", _cross)
override("dask", "matvec", gufunc(2, 1))
override("dask", "vecmat", gufunc(1, 2))
for _op in ("det", "slogdet", "inv", "cholesky", "eigh", "eigvalsh", "eig", "eigvals", "matrix_power", "qr", "svd",
            "matrix_rank", "cond"):
    override("dask", _op, gufunc(2))
override("dask", "pinv", gufunc(2, 0))  # per-matrix tolerances, if any: batch-shaped, no core axes
override("dask", "solve", gufunc(2, lambda nd: 1 if nd == 1 else 2))
override("dask", "lstsq", gufunc(2, lambda nd: nd))  # 2-D only: every axis whole
for _op in ("norm", "vector_norm"):
    override("dask", _op, _norm)
for _op in ("tensorinv", "tensorsolve"):  # reshaped to one matrix problem: one task
    override("dask", _op, whole)


def _multi_dot(xs):
    """numpy.linalg.multi_dot, in NumPy's association order (which matters
    beyond rounding: a bool @ bool product is a logical one)."""
    n, xs = len(xs), list(xs)
    if n == 2:
        return _dot(*xs)
    first, last = xs[0].ndim, xs[-1].ndim
    if first == 1:
        xs[0] = xs[0][None, :]
    if last == 1:
        xs[-1] = xs[-1][:, None]
    if n == 3:
        (a0, a1b0), (b1c0, c1) = xs[0].shape, xs[2].shape
        if a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0):
            out = _dot(_dot(xs[0], xs[1]), xs[2])
        else:
            out = _dot(xs[0], _dot(xs[1], xs[2]))
    else:
        out = _chain(xs, _chain_order([x.shape for x in xs]), 0, n - 1)
    if first == 1 and last == 1:
        return out[0, 0]
    return flat(out) if first == 1 or last == 1 else out


def _chain_order(shapes):
    """NumPy's matrix-chain order (dynamic programming over the costs)."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    m = np.zeros((n, n), dtype=np.double)
    split = np.empty((n, n), dtype=np.intp)
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            m[i, j] = np.inf
            for k in range(i, j):
                q = m[i, k] + m[k + 1, j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i, j]:
                    m[i, j] = q
                    split[i, j] = k
    return split


def _chain(xs, split, i, j):
    """The product of xs[i..j] in the chosen order (recursion over the few matrices, not over nodes)."""
    if i == j:
        return xs[i]
    return _dot(_chain(xs, split, i, split[i, j]), _chain(xs, split, split[i, j] + 1, j))

"""The Dask engine's shared lowering machinery: the chunking policy
(:class:`Context`), picklable task functions (:class:`Kernel`), and the
building blocks the families' lowerings are made of (``tiled``, ``whole``,
``along_axis``, ``reduce_whole``, ``gufunc``, ``batched``, ``reshape``,
``broadcast``).

Task functions never hold nodes (nodes refuse to pickle) or Scalar/Const
params (they cannot be unpickled): :class:`Kernel` sends plain values and
rebuilds them on the worker, so graphs run on ``dask.distributed`` too.
"""
from __future__ import annotations

import dask
import dask.array as da
import numpy as np
from dask.array.core import normalize_chunks

from ...errors import FgraphError, error_like, format_location
from ...registry import attr_table, kernel_attrs
from ...symbol import Const, Scalar
from .. import numpy_kernels  # noqa: F401  (the NumPy engine's runtime: the fused groups' kernels the blocks run)

#: the NumPy engine's kernels, which the blocks run (read through the registry)
NUMPY = kernel_attrs("numpy")
_KERNELS = attr_table(NUMPY.kernel)


# ---------------------------------------------------------------- context

#: bytes per block that "auto" aims at: dask's own default (128 MiB) makes
#: every block's NumPy temporaries fresh memory, and page faults then cost
#: more than the arithmetic (the big reduction ran 2.5x faster at 16 MiB)
AUTO_BYTES = 16 << 20


class Context:
    """The chunking policy of one compile: ``chunks`` is dask's own form
    (``"auto"``, an int, a tuple, ``{axis: size}``) or ``{placeholder name:
    chunks}``; arrays the policy does not name get ``"auto"`` (blocks of
    about ``AUTO_BYTES``)."""

    def __init__(self, chunks=None):
        if isinstance(chunks, dict) and any(isinstance(k, str) for k in chunks):
            self.named, self.default = dict(chunks), "auto"
        else:
            self.named, self.default = {}, "auto" if chunks is None else chunks

    def chunks_for(self, shape: tuple, dtype, name: str | None = None) -> tuple:
        """Normalised chunks for an array of ``shape`` (named: the user's own
        spec for it, which must fit; else the default, or "auto" if it does not)."""
        if name is not None and name in self.named:
            try:
                return normalize_chunks(self.named[name], shape, dtype=np.dtype(dtype), limit=AUTO_BYTES)
            except (ValueError, TypeError) as e:
                raise FgraphError(f"dask engine: chunks {self.named[name]!r} for {name!r} do not fit its "
                                  f"shape {shape}: {e}") from None
        try:
            return normalize_chunks(self.default, shape, dtype=np.dtype(dtype), limit=AUTO_BYTES)
        except (ValueError, TypeError):  # a tuple for another ndim, ...
            return normalize_chunks("auto", shape, dtype=np.dtype(dtype), limit=AUTO_BYTES)

    def array(self, value, name: str | None = None):
        """A dask array for a NumPy array (or a dask array, rechunked if named)."""
        if isinstance(value, da.Array):
            if name is not None and name in self.named:
                return value.rechunk(self.chunks_for(value.shape, value.dtype, name))
            return value
        arr = np.asarray(value)
        # name=False: no hashing of the data (feeds change every call)
        return da.from_array(arr, chunks=self.chunks_for(arr.shape, arr.dtype, name), name=False)


def ndim_of(x) -> int:
    """ndim of a lowered value (a dask array or a Python scalar), without NumPy's dispatch."""
    return getattr(x, "ndim", 0)


def shape_of(x) -> tuple:
    return getattr(x, "shape", ())


def as_dask(x, node=None):
    """``x`` as a dask array (a Python scalar becomes a 0-d array of its node's dtype)."""
    if isinstance(x, da.Array):
        return x
    return da.from_array(np.asarray(x, dtype=None if node is None else node.dtype), chunks=())


# ---------------------------------------------------------------- picklable kernels

def _encode(v):
    if isinstance(v, Scalar):
        return ("__fgraph_scalar__", v.value)
    if isinstance(v, Const):
        return ("__fgraph_const__", v.array)
    if type(v) is tuple:
        return tuple(_encode(e) for e in v)
    return v


def _decode(v):
    if type(v) is tuple:
        if len(v) == 2 and v[0] == "__fgraph_scalar__":
            return Scalar(v[1])
        if len(v) == 2 and v[0] == "__fgraph_const__":
            return Const(v[1])
        return tuple(_decode(e) for e in v)
    return v


def plain(value):
    """A Scalar/Const param as the plain value NumPy takes."""
    if isinstance(value, Scalar):
        return value.value
    if isinstance(value, Const):
        return value.array
    return value


class Kernel:
    """Op ``op``'s NumPy kernel with fixed params, as a task function.

    Its result is cast to the node's dtype (a kernel whose dtype depends on
    the data, like ``eig``'s, must agree across blocks), and a failure names
    the op and the user's line.  Pickles to plain values.
    """

    def __init__(self, op: str, params: dict, dtype=None, where: str = "", fn=None):
        self.op, self.params, self.dtype, self.where = op, params, dtype, where
        self.fn = fn if fn is not None else _KERNELS[op]

    @classmethod
    def of(cls, node, fn=None):
        return cls(node.op, dict(node.params), node.dtype, format_location(node.where), fn)

    def __call__(self, *args):
        try:
            out = self.fn(*args, **self.params)
        except FgraphError:
            raise
        except Exception as e:
            raise error_like(e, f"{self.op} failed at run time on the dask engine: {type(e).__name__}: {e}\n"
                                f"  node made at {self.where}") from e
        if self.dtype is not None and getattr(out, "dtype", None) != self.dtype:
            out = np.asarray(out, dtype=self.dtype)
        return out

    def __reduce__(self):
        fn = None if self.fn is _KERNELS.get(self.op) else self.fn
        return (_kernel, (self.op, _encode(tuple(self.params.items())), self.dtype, self.where, fn))

    def __repr__(self):
        return f"Kernel({self.op})"


def _kernel(op, params, dtype, where, fn):
    return Kernel(op, dict(_decode(params)), dtype, where, fn)


# ---------------------------------------------------------------- building blocks

def tiled(fn, out_shape: tuple, dtype, args, maps, adjust=None):
    """``fn`` on blocks: axis ``j`` of ``args[i]`` is chunked together with
    output axis ``maps[i][j]``, or is whole in every block where that is
    None (or where the sizes differ: a broadcast axis of length 1).  Output
    axes that no input provides are whole.  Non-dask args pass as they are."""
    nd = len(out_shape)
    dtype = np.dtype(dtype)
    if not any(isinstance(a, da.Array) for a in args):  # Python scalars only: one task
        return da.from_delayed(dask.delayed(fn, pure=True)(*args), out_shape, dtype=dtype)
    bargs, used, private = [], set(), nd
    for a, m in zip(args, maps):
        if not isinstance(a, da.Array):
            bargs += [a, None]
            continue
        ind, whole_axes = [], {}
        for j, k in enumerate(m):
            if k is not None and a.shape[j] == out_shape[k]:
                ind.append(k)
                used.add(k)
            else:
                ind.append(private)
                private += 1
                if a.numblocks[j] > 1:
                    whole_axes[j] = -1
        if whole_axes:  # one chunk along private axes (else blockwise counts their blocks as tasks to make)
            a = a.rechunk(whole_axes)
        bargs += [a, tuple(ind)]
    new_axes = {k: out_shape[k] for k in range(nd) if k not in used}
    return da.blockwise(fn, tuple(range(nd)), *bargs, new_axes=new_axes, adjust_chunks=adjust, concatenate=True,
                        dtype=dtype, meta=np.empty((0,) * nd, dtype))


def right_aligned(ndim: int, out_axes) -> tuple:
    """Map an input's ``ndim`` axes onto the last of ``out_axes`` (broadcasting)."""
    out_axes = list(out_axes)
    return tuple(out_axes[len(out_axes) - ndim + j] for j in range(ndim))


def whole(ctx, node, *args):
    """The NumPy kernel on the whole inputs, in one task (no chunking)."""
    return tiled(Kernel.of(node), node.shape, node.dtype, args, [(None,) * ndim_of(a) for a in args])


# ---------------------------------------------------------------- reshaping dask arrays

def reshape(x, shape):
    """``da.reshape``, which refuses reshapes that split or merge axes
    unevenly: then the axes past the common leading ones are made whole."""
    try:
        return da.reshape(x, shape)
    except NotImplementedError:
        p = 0
        while p < min(x.ndim, len(shape)) and x.shape[p] == shape[p]:
            p += 1
        return da.reshape(x.rechunk({a: -1 for a in range(p, x.ndim)}), shape)


def broadcast(ctx, x, shape):
    """``da.broadcast_to`` with the new (or stretched) axes chunked by the
    policy: never one chunk the size of the result."""
    if x.ndim > len(shape):  # leading unit axes (NumPy's copyto drops them)
        x = x.reshape(x.shape[x.ndim - len(shape):])
    chunks = list(ctx.chunks_for(shape, x.dtype))
    lead = len(shape) - x.ndim
    for j, c in enumerate(x.chunks):  # axes x has in full keep its chunks
        if x.shape[j] == shape[lead + j]:
            chunks[lead + j] = c
    return da.broadcast_to(x, shape, chunks=tuple(chunks))


def flat(x):
    """``x`` as one axis."""
    return reshape(x, (x.size,))


# ---------------------------------------------------------------- lowerings several families share

def reduce_whole(node, x, axes, keepdims: bool, extras=(), lead=None, masks=False):
    """NumPy's own reduction (the op's kernel) on blocks whose reduced
    ``axes`` are whole; the kept axes stay chunked.  ``extras``: inputs
    chunked like ``x`` when shaped like it (``masks``: when they broadcast
    to it, as ``where=`` does), else whole (weights along the reduced
    axes); ``lead``: an input whose shape leads the output's (q)."""
    nd = ndim_of(x)
    axes = set(range(nd)) if axes is None else {a % nd for a in ((axes,) if isinstance(axes, int) else axes)}
    q = 0 if lead is None else ndim_of(lead)
    out, k = [], q
    for a in range(nd):
        if a in axes:
            out.append(None)
            k += keepdims
        else:
            out.append(k)
            k += 1
    maps = [tuple(out)]
    for e in extras:
        fits = _broadcasts(shape_of(e), shape_of(x)) if masks else shape_of(e) == shape_of(x)
        maps.append(right_aligned(ndim_of(e), out) if fits else (None,) * ndim_of(e))
    args = [x, *extras]
    if lead is not None:  # q is the kernel's second argument
        args.insert(1, lead)
        maps.insert(1, (None,) * q)
    return tiled(Kernel.of(node), node.shape, node.dtype, args, maps)


def _broadcasts(small, big) -> bool:
    return len(small) <= len(big) and all(s in (1, b) for s, b in zip(small[::-1], big[::-1]))


def along_axis(ctx, node, *args):
    """The kernel on blocks whose ``axis`` (param) is whole: every input has
    the output's shape there (or is 1-d/0-d under ``axis=None``, then whole)."""
    axis = node.param("axis")
    maps = []
    for a in args:
        nd = ndim_of(a)
        maps.append((None,) * nd if axis is None or nd != len(node.shape) else
                    tuple(None if j == axis % nd else j for j in range(nd)))
    return tiled(Kernel.of(node), node.shape, node.dtype, args, maps)


def gufunc(*cores):
    """A lowering for a batched kernel: input ``i`` has ``cores[i]`` trailing
    core axes (a callable of its ndim, or an int), whole in every block; the
    leading (batch) axes broadcast and stay chunked."""
    def lower(ctx, node, *args):
        ncore = [c(ndim_of(a)) if callable(c) else min(c, ndim_of(a)) for c, a in zip(cores, args)]
        batch = max(ndim_of(a) - c for a, c in zip(args, ncore))
        maps = [right_aligned(ndim_of(a) - c, range(batch)) + (None,) * c for a, c in zip(args, ncore)]
        return tiled(Kernel.of(node), node.shape, node.dtype, args, maps)
    return lower


def batched(*batch_inputs):
    """A lowering for an op whose output and ``batch_inputs`` share their
    first (batch) axis, item by item: the NumPy kernel per block of the batch,
    everything else whole (convolutions and pooling over NCHW batches)."""
    def lower(ctx, node, *args):
        maps = [((0,) + (None,) * (ndim_of(a) - 1)) if i in batch_inputs and ndim_of(a) else (None,) * ndim_of(a)
                for i, a in enumerate(args)]
        return tiled(Kernel.of(node), node.shape, node.dtype, args, maps)
    return lower

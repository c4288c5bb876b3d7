"""Lowering fgraph ops to ``dask.array``: one function per op, attached as the
op attribute ``dask_lowering`` (NNVM style: any module may add one)::

    set_attr("my_op", "dask_lowering", lambda ctx, node, *args: ...)

A lowering gets the context (the chunking policy), the node (its params,
shape, dtype and the user's line) and its lowered inputs: dask arrays, except
weak Python scalars (literals), which stay Python scalars exactly as the
NumPy kernels receive them.  It returns a dask array of the node's shape
(the engine casts it to the node's dtype where dask promotes differently).

How the families lower:

* element-wise ops: ``elemwise`` of the NumPy ufunc (what ``da.sin`` etc. do)
  or of the op's NumPy kernel, block by block: values identical to NumPy's.
  An op with no lowering of its own that says ``elementwise=True`` lowers
  this way too.
* ``fused`` groups (the optimiser's): the NumPy fused kernel on each block,
  so a whole chain of ufuncs is one pass over cache-sized pieces; a
  ``fused_reduce`` group reduces each piece at once (a blockwise partial per
  block, the full-size value never stored), then a tree reduction over the
  partials.
* reductions: ``da.sum``, ``da.mean``, ``da.argmax``, ``da.cumsum``, ... (tree
  reductions: floating-point sums are reordered, so results agree with
  NumPy's to rounding).  What dask lacks (``where=``, ``initial=``,
  ``average``'s weights, order statistics) runs NumPy's own function on
  blocks whose reduced axes are whole.
* axis-local ops (sort, partition, linalg on stacks of matrices, norms,
  gathers with lazy indices): the NumPy kernel on each block, with the axes
  it needs whole and the others chunked (``tiled``).
* movement, basic indexing, products (matmul, tensordot, einsum, ...):
  dask.array's own functions.
* creation ops build their values chunk by chunk with NumPy's own formulas
  (arange, linspace, eye, ...), and ``random_uniform`` draws each block's
  run of the Philox stream, so a graph can describe arrays larger than
  memory, bit-identical to the NumPy engine's.
* convolutions and pooling (NCHW): the NumPy kernel per block of the batch.
* the rest (scatter_add, tensorinv, tensorsolve, conv2d_backward_weight):
  the NumPy kernel on the whole inputs, as one task.

Task functions never hold nodes (nodes refuse to pickle) or Scalar/Const
params (they cannot be unpickled): :class:`Kernel` sends plain values and
rebuilds them on the worker, so graphs run on ``dask.distributed`` too.
"""
from __future__ import annotations

import math

import dask
import dask.array as da
import numpy as np
from dask.array.core import elemwise, normalize_chunks

from ..errors import FgraphError, error_like, format_location
from ..ops.elementwise import UFUNCS
from ..ops.indexing import slice_key
from ..ops.sorting import order_stat_layout
from ..symbol import Const, Scalar
from ..registry import attr_table, set_attr
from . import numpy_kernels  # noqa: F401  (the NumPy kernels the blocks run)
from .numpy_kernels import fused as _fk

_KERNELS = attr_table("numpy_kernel")
_OUT_KERNELS = attr_table("numpy_out_kernel")


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


def _lower(ops, fn):
    for op in ops:
        set_attr(op, "dask_lowering", fn)


# ---------------------------------------------------------------- leaves

_lower(["constant"], lambda ctx, node: ctx.array(node.param("value").array))
_lower(["literal"], lambda ctx, node: node.param("value").value)


# ---------------------------------------------------------------- element-wise

def elementwise(ctx, node, *args):
    """``elemwise`` (dask's ufunc machinery: broadcasting, block by block) of
    the NumPy ufunc itself, or of the op's kernel when it takes params."""
    u = UFUNCS.get(node.op)
    fn = u if u is not None and u.nout == 1 and not node.params else Kernel.of(node)
    if not any(isinstance(a, da.Array) for a in args):  # Python scalars only (weak: kept as they are)
        return tiled(fn, node.shape, node.dtype, args, [()] * len(args))
    out = elemwise(fn, *args, dtype=node.dtype)
    if out.shape != node.shape:  # inputs that broadcast to less than the node (cannot happen for ufuncs)
        out = da.broadcast_to(out, node.shape)
    return out


_lower(list(UFUNCS) + ["where", "clip", "round", "fix", "real", "imag", "complex", "astype", "fma", "adagrad",
                       "select", "choose", "unravel_index", "ravel_multi_index"], elementwise)


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


_lower(["fused"], _fused)

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


_lower(["fused_reduce"], _fused_reduce)


# ---------------------------------------------------------------- reductions

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


_lower(list(_DASK_REDUCE), _reduce)


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
        return reshape(getattr(da, node.op)(_flat(x), axis=0), node.shape)
    return getattr(da, node.op)(x, axis=p["axis"], keepdims=p["keepdims"])


def _scan(ctx, node, x):
    axis, dtype = node.param("axis"), node.param("dtype")
    x = as_dask(x, node.inputs[0])
    if x.ndim == 0 or x.size == 0:
        return along_axis(ctx, node, x)
    if axis is None:
        x, axis = reshape(x, (x.size,)), 0
    return getattr(da, node.op)(x, axis=axis, dtype=dtype)


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


_lower(["ptp"], _ptp)
_lower(["count_nonzero"], _count_nonzero)
_lower(["average"], _average)
_lower(["argmax", "argmin", "nanargmax", "nanargmin"], _arg)
_lower(["cumsum", "cumprod", "nancumsum", "nancumprod"], _scan)
_lower(["cumulative_sum", "cumulative_prod", "sort", "argsort", "partition", "argpartition", "lexsort", "fft"],
       along_axis)


def _check(ctx, node, value, ok):
    """Each block of the value checked against its own block of an
    element-wise condition, or against the whole of any other (a 0-d
    verdict for most checks)."""
    same = node.inputs[1].shape == node.inputs[0].shape
    maps = [tuple(range(ndim_of(value))), tuple(range(ndim_of(ok))) if same else (None,) * ndim_of(ok)]
    return tiled(Kernel.of(node), node.shape, node.dtype, [value, ok], maps)


_lower(["check"], _check)


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


_lower(["sort_complex"], _sort_complex)
_lower(["median", "nanmedian", "percentile", "nanpercentile", "quantile", "nanquantile"], _order_stat)


# ---------------------------------------------------------------- movement

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


def _reshape(ctx, node, x):
    return reshape(as_dask(x, node.inputs[0]), node.param("shape"))


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


_lower(["reshape"], _reshape)
_lower(["transpose"], lambda ctx, node, x: da.transpose(as_dask(x, node.inputs[0]), node.param("axes")))
_lower(["broadcast_to"], _broadcast_to)
_lower(["flip"], lambda ctx, node, x: da.flip(as_dask(x, node.inputs[0]), node.param("axes")))
_lower(["slice_axis"], _slice_axis)
_lower(["concatenate"], _concatenate)
_lower(["repeat"], _repeat)


# ---------------------------------------------------------------- indexing

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


_lower(["slice"], _slice)
_lower(["advanced_index"], _advanced)
_lower(["take"], _take)
_lower(["take_along_axis"], _take_along_axis)
_lower(["searchsorted"], _searchsorted)
_lower(["scatter_add", "setitem", "bitcast", "tensorinv", "tensorsolve", "linspace_step"], whole)
_lower(["ufunc_reduce", "ufunc_accumulate", "ufunc_reduceat", "ufunc_at"], whole)  # NumPy's ufunc methods


# ---------------------------------------------------------------- linalg

def _cast_to(node, *xs):
    """Inputs cast to a ``dtype=`` param (NumPy's loop computes in it)."""
    dt = node.param("dtype")
    return [as_dask(x, n) if dt is None else as_dask(x, n).astype(dt) for x, n in zip(xs, node.inputs)]


def _flat(x):
    return reshape(x, (x.size,))


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


_lower(["matmul"], _products(lambda ctx, node, a, b: da.matmul(*_cast_to(node, a, b))))
_lower(["dot"], _products(lambda ctx, node, a, b: _dot(a, b)))
_lower(["vdot"], _products(lambda ctx, node, a, b: _dot(da.conj(_flat(a)), _flat(b))))
_lower(["inner"], _products(_inner))
_lower(["outer"], _products(lambda ctx, node, a, b: _flat(a)[:, None] * _flat(b)[None, :]))
_lower(["tensordot"], _products(lambda ctx, node, a, b: da.tensordot(
    a, b, axes=(list(node.param("axes")[0]), list(node.param("axes")[1])))))
_lower(["einsum"], _products(lambda ctx, node, *ops: da.einsum(
    node.param("subscripts"), *ops, **{k: v for k, v in node.params if k in ("dtype", "casting")})))
_lower(["trace"], lambda ctx, node, a: da.trace(as_dask(a, node.inputs[0]), node.param("offset"),
                                                node.param("axis1"), node.param("axis2"), node.param("dtype")))
_lower(["diagonal"], lambda ctx, node, a: da.diagonal(as_dask(a, node.inputs[0]), node.param("offset"),
                                                      node.param("axis1"), node.param("axis2")))
_lower(["matrix_transpose"], lambda ctx, node, a: da.swapaxes(as_dask(a, node.inputs[0]), -1, -2))
_lower(["kron"], _kron)
_lower(["multi_dot"], _products(lambda ctx, node, *xs: _multi_dot(xs)))
_lower(["vecdot"], _vecdot)
_lower(["cross"], _cross)
_lower(["matvec"], gufunc(2, 1))
_lower(["vecmat"], gufunc(1, 2))
_lower(["det", "slogdet", "inv", "cholesky", "eigh", "eigvalsh", "eig", "eigvals", "matrix_power", "qr", "svd",
        "matrix_rank", "cond"], gufunc(2))
_lower(["pinv"], gufunc(2, 0))  # per-matrix tolerances, if any: batch-shaped, no core axes
_lower(["solve"], gufunc(2, lambda nd: 1 if nd == 1 else 2))
_lower(["lstsq"], gufunc(2, lambda nd: nd))  # 2-D only: every axis whole
_lower(["correlate"], gufunc(1, 1))  # numpy.correlate/convolve: two 1-D arrays, each whole
_lower(["norm", "vector_norm"], _norm)


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
    return _flat(out) if first == 1 or last == 1 else out


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


# ---------------------------------------------------------------- creation

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
        from ..ops.creation_kernels import space_rows

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


_lower(["zeros"], _zeros_like(da.zeros))
_lower(["ones"], _zeros_like(da.ones))
_lower(["full"], _full)
_lower(["arange"], _arange)
_lower(["linspace", "logspace", "geomspace"], _space)
_lower(["eye", "tri"], _eye)
_lower(["tril", "triu"], _tri_part)
_lower(["meshgrid"], _meshgrid)
_lower(["indices"], _indices)


# ---------------------------------------------------------------- random numbers, neural-network ops

class RandomBlock:
    """Rows ``a..b`` of ``random_uniform``: the NumPy kernel draws the whole
    array from ``Generator(Philox(key))`` in C order, so a block of whole
    rows is a run of that stream.  Philox is counter-based: ``advance`` jumps
    to the run's first 64-bit draw (4 per counter step); a float64 takes one
    draw, a float32 half of one (low half first)."""

    def __init__(self, rest: tuple, dtype):
        self.rest, self.row, self.dtype = tuple(rest), math.prod(rest), np.dtype(dtype)

    def __call__(self, rows, key):
        n = rows.shape[0]
        start = (int(rows[0]) if n else 0) * self.row
        half = self.dtype == np.float32
        first = start // 2 if half else start
        bits = np.random.Philox(key=int(key) & 0xFFFFFFFFFFFFFFFF)
        bits.advance(first // 4)
        if first % 4:
            bits.random_raw(first % 4)
        gen = np.random.Generator(bits)
        if half and start % 2:
            gen.random(1, dtype=self.dtype)  # the low half of the first draw belongs to the row before
        return gen.random(n * self.row, dtype=self.dtype).reshape((n,) + self.rest)


def _random_uniform(ctx, node, key):
    shape = node.shape
    if not shape:
        return whole(ctx, node, key)
    spec = {0: ctx.chunks_for(shape, node.dtype)[0]}
    spec.update({a: -1 for a in range(1, len(shape))})  # whole rows: runs of the C-order stream
    rows = da.arange(shape[0], chunks=(normalize_chunks(spec, shape, dtype=node.dtype)[0],), dtype=np.intp)
    return tiled(RandomBlock(shape[1:], node.dtype), shape, node.dtype, [rows, key], [(0,), ()])


def batched(*batch_inputs):
    """A lowering for an op whose output and ``batch_inputs`` share their
    first (batch) axis, item by item: the NumPy kernel per block of the batch,
    everything else whole (convolutions and pooling over NCHW batches)."""
    def lower(ctx, node, *args):
        maps = [((0,) + (None,) * (ndim_of(a) - 1)) if i in batch_inputs and ndim_of(a) else (None,) * ndim_of(a)
                for i, a in enumerate(args)]
        return tiled(Kernel.of(node), node.shape, node.dtype, args, maps)
    return lower


def _register_optional():
    """Lowerings for ops of families that may not be loaded."""
    from ..registry import is_registered

    if is_registered("random_uniform"):
        _lower(["random_uniform"], _random_uniform)
    for op, batch in [("conv2d", (0,)), ("conv_transpose2d", (0,)), ("max_pool2d", (0,)), ("avg_pool2d", (0,)),
                      ("max_pool2d_backward", (0, 1, 2)), ("max_pool2d_select", (0, 1, 2)),
                      ("avg_pool2d_backward", (0,))]:
        if is_registered(op):
            _lower([op], batched(*batch))
    if is_registered("conv2d_backward_weight"):  # a sum over the batch: one task
        _lower(["conv2d_backward_weight"], whole)


_register_optional()

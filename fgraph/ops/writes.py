"""Writes: NumPy's mutating API on lazy arrays, by functionalisation.

A lazy array is a handle to an immutable node.  A write (``a[key] = v``,
``np.copyto``, ``np.put``, ``a.fill``...) builds a new node, the old value
with the region replaced, and moves the handle (and, through
``fgraph.views``, the handle's base and every view of it) to that node.
Nodes and graphs never change.

One op carries every write:

``setitem``  inputs ``(x, value, *index_arrays)``; params ``key`` (a
             normalised basic key, as the ``slice`` op's), ``adv`` (None, or
             an ``advanced_index`` key applied after the basic one) and
             ``front``.  The result is ``x`` with ``value`` stored at the
             region, NumPy's ``out[key] = value`` (repeated indices: the last
             write wins).  It may overwrite ``x`` in place.

The value is cast to ``x``'s dtype and checked against the region's shape
when the node is made, as NumPy's setitem casts (unsafe; Python scalars
as NumPy converts them, so ``int8[0] = 1000`` raises OverflowError).
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, FgraphError, IndexingError, ShapeError, also
from .batching import refuse_batching
from ..tensor import Tensor, constant_node, lift
from ..opdef import no_gradient
from ..shape import assignable_shape, broadcasts_to, defop
from ..symbol import Node, error_at, make_node
from .building import namespace
from .indexing import _advanced_rule, _basic_key, _slice_rule, getitem
from .indexing_kernels import _scatter_key, _slice_key
from .selection import Selection, masked_write

__all__ = ["put", "put_along_axis", "place", "putmask", "copyto", "fill_diagonal", "shares_memory",
           "may_share_memory"]


# ---------------------------------------------------------------- the op

def _region_shape(x, idx, key, adv, front) -> tuple:
    shape = _slice_rule([x], key)[0] if key is not None else x.shape
    if adv is None:
        return shape
    from types import SimpleNamespace

    return _advanced_rule([SimpleNamespace(shape=shape, ndim=len(shape), dtype=x.dtype), *idx], adv, front)[0]


def _setitem_rule(inputs, key, adv, front):
    x, value, *idx = inputs
    region = _region_shape(x, idx, key, adv, front)
    if not broadcasts_to(value.shape, region):
        raise ShapeError(f"could not broadcast input array from shape {value.shape} into shape {region}")
    if value.dtype != x.dtype:
        raise DTypeError(f"the value's dtype {value.dtype} is not the array's {x.dtype} (cast it first)")
    return x.shape, x.dtype


# NumPy kernels: ``setitem`` is NumPy's own setitem on a copy of x (or on
# x's buffer itself, when the planner lets it write in place).

def store(out, value, idx, key, adv, front):
    """``out[key][adv] = value`` in place: NumPy's setitem, overlap-safe."""
    region = out if key is None else out[_slice_key(key)]
    if adv is None:
        region[...] = value
    else:
        region[_scatter_key(idx, adv, front)] = value


def _setitem_out(x, value, *idx, out, key, adv, front):
    x = np.asarray(x)
    if not (out.__array_interface__["data"][0] == x.__array_interface__["data"][0] and out.strides == x.strides):
        np.copyto(out, x)
    store(out, value, idx, key, adv, front)
    return out


def _setitem_kernel(x, value, *idx, key, adv, front):
    out = np.array(x, copy=True)
    store(out, value, idx, key, adv, front)
    return out


# Gradient: ``setitem`` keeps x outside the region and the value inside it:
# x's cotangent is g with the region zeroed (the same write, of zeros), the
# value's is g read at the region (the core sums it down to the value's
# shape where the value was broadcast).  Where repeated fancy indices write
# one element several times, only the write NumPy keeps (the last) receives
# the cotangent.

def _region(g, idx, key, adv, front):
    node = g if key is None else make_node("slice", [g], (("key", key),))
    if adv is not None:
        node = make_node("advanced_index", [node] + list(idx), (("key", adv), ("front", front)))
    return node


def _setitem_grad(out, ins, g, key, adv, front):
    x, value, *idx = ins
    params = (("key", key), ("adv", adv), ("front", front))
    zeros = constant_node(np.zeros((), g.dtype))
    gx = make_node("setitem", [g.node, zeros] + [i.node for i in idx], params)
    region = _region(g.node, [i.node for i in idx], key, adv, front)
    if adv is not None and region.size:  # repeated indices: the last write is the one kept
        shape = region.shape
        ids = constant_node(np.arange(region.size, dtype=np.intp).reshape(shape))
        none = constant_node(np.full(x.shape, -1, np.intp))
        kept = make_node("setitem", [none, ids] + [i.node for i in idx], params)
        won = make_node("equal", [_region(kept, [i.node for i in idx], key, adv, front), ids])
        region = make_node("where", [won, region, constant_node(np.zeros((), g.dtype))])
    return (Tensor(gx, g.stack), Tensor(region, g.stack)) + (None,) * len(idx)


defop("setitem", _setitem_rule, "x with value stored at [key] (numpy's out[key] = value); inputs: x, value, "
                                "*index arrays; params: key (basic, or None), adv (advanced key, or None), front.",
      inplace=(0,), may_raise=True, kernel=_setitem_kernel, out_kernel=_setitem_out, grad=_setitem_grad)


def _bitcast_rule(inputs, dtype):
    (x,) = inputs
    if dtype.itemsize != x.dtype.itemsize:
        raise DTypeError(f"viewing {x.dtype} as {dtype} changes the itemsize; fgraph views keep it (use astype)")
    if dtype.kind in "OSUVMm":
        raise DTypeError(f"fgraph does not support arrays of dtype {dtype}")
    return x.shape, dtype


def _bitcast_kernel(x, dtype):
    return np.asarray(x).view(dtype)


def _bitcast_out(x, out, dtype):
    np.copyto(out, np.asarray(x).view(dtype))
    return out


# bitcast reinterprets bits: no gradient reaches x through it
defop("bitcast", _bitcast_rule, "x's bytes read as another dtype of the same itemsize (ndarray.view(dtype)); "
                                "params: dtype.", view=True, kernel=_bitcast_kernel, out_kernel=_bitcast_out,
      grad=no_gradient)


def view(t: Tensor, dtype=None, type=None):
    """``t.view()`` / ``t.view(dtype)``: a view of t's data (same itemsize)."""
    from ..tensor import _shadow_of, link_view

    if type is not None:
        raise error_at(FgraphError, "view", "fgraph arrays cannot be viewed as another array type")
    layout = _shadow_of(t)
    if dtype is None or np.dtype(dtype) == t.dtype:
        return link_view(t, Tensor(t.node, t.stack), layout.view())
    dt = np.dtype(dtype)
    node = make_node("bitcast", [t.node], (("dtype", dt),))
    return link_view(t, Tensor(node, t.stack), layout.view(dt))


# ---------------------------------------------------------------- building a write

def _as_value(value, dtype: np.dtype, st) -> Node:
    """The value converted as NumPy's setitem converts it: a Python scalar by
    the dtype's own conversion (raising and warning as NumPy's setitem does:
    the same cast, checked for every pair of Python type and dtype, 1e300
    into float32 included), anything else cast unsafely."""
    t = type(value)
    if t is int or t is float or t is bool or t is complex:
        try:
            arr = np.array(value, dtype=dtype)
        except (OverflowError, ValueError, TypeError, FloatingPointError) as e:
            raise error_at(also(type(e)), "setitem", f"cannot store {value!r} in an array of {dtype}: {e}") from None
        arr.setflags(write=False)  # made here, held by no one: the constant takes it without a copy
        return lift(arr, st)
    node = lift(value, st)
    if node.dtype != dtype:
        node = make_node("astype", [node], (("dtype", dtype), ("casting", "unsafe")))
    return node


def _fit(value: Node, shape: tuple) -> Node:
    """NumPy's setitem broadcasting: leading length-1 axes of the value beyond
    the region's rank are dropped; the rest must broadcast to the region."""
    vs = assignable_shape(value.shape, shape)
    if vs is None:
        raise error_at(ShapeError, "setitem", f"could not broadcast input array from shape {value.shape} into "
                                              f"shape {shape}")
    if vs != value.shape:
        value = make_node("reshape", [value], (("shape", vs),))
    return value


def _is_mask(key) -> bool:
    k = key[0] if type(key) is tuple and len(key) == 1 else key
    if isinstance(k, Tensor):
        return k.dtype.kind == "b" and k.ndim > 0
    return isinstance(k, np.ndarray) and k.dtype.kind == "b" and k.ndim > 0


def setitem_node(x: Node, key, value, st) -> Node:
    """The node of ``x`` after ``x[key] = value``."""
    if type(value) is Selection:  # v[fired] = c[fired]: a where, no count needed
        kept = masked_write(x, key, value)
        if kept is not None:
            return kept
    v = _as_value(value, x.dtype, st)
    if _is_mask(key):
        mask = lift(key[0] if type(key) is tuple else key, st)
        if mask.shape != x.shape[:mask.ndim]:
            raise error_at(IndexingError, "setitem", f"boolean index of shape {mask.shape} does not match the "
                                                     f"array's shape {x.shape}")
        rest = x.shape[mask.ndim:]
        if assignable_shape(v.shape, rest) is not None:  # the same value for every selected element: a where
            v = _fit(v, rest)
            m = make_node("reshape", [mask], (("shape", mask.shape + (1,) * len(rest)),)) if rest else mask
            return make_node("where", [m, v, x])
    k = _basic_key(key)
    known = _REGIONS.get((x.shape, k)) if k is not None else None
    if known is not None:  # u[1:-1, 1:-1] = ... again: its region is known, no slice node made to find it
        basic, shape = known
        v = _fit(v, shape)
        if basic is None:
            return v if v.shape == x.shape else make_node("broadcast_to", [v], (("shape", x.shape),))
        return make_node("setitem", [x, v], basic_params(basic))
    region = getitem(Tensor(x, st), key).node
    v = _fit(v, region.shape)
    if k is not None and (region is x or (region.op == "slice" and region.inputs[0] is x)):
        if len(_REGIONS) >= 4096:
            _REGIONS.clear()
        _REGIONS[(x.shape, k)] = (None if region is x else region.param("key"), region.shape)
    if region is x:
        if v.shape == x.shape:
            return v
        return make_node("broadcast_to", [v], (("shape", x.shape),))
    basic, adv, front, idx = None, None, False, []
    if region.op == "advanced_index":
        adv, front = region.param("key"), region.param("front")
        idx = list(region.inputs[1:])
        below = region.inputs[0]
    else:
        below = region
    if below is not x and below.op == "reshape" and below.inputs[0] is x and region.op == "advanced_index":
        # a mask of several axes reads x's rows flattened (indexing._flat_mask): write them, reshape back
        rows = make_node("setitem", [below, v, *idx], (("key", None), ("adv", adv), ("front", front)))
        return make_node("reshape", [rows], (("shape", x.shape),))
    if below is not x:
        if below.op != "slice" or below.inputs[0] is not x:
            raise error_at(FgraphError, "setitem", f"cannot write through the index {key!r}")
        basic = below.param("key")
    if adv is None:
        return make_node("setitem", [x, v], basic_params(basic))
    return make_node("setitem", [x, v, *idx], (("key", basic), ("adv", adv), ("front", front)))


#: (x's shape, a key of ints and slices) -> (the normalised basic key, None for all of x; the region's shape)
_REGIONS: dict = {}
_PARAMS: dict = {}


def basic_params(key) -> tuple:
    """setitem's params for the normalised basic key ``key``: one tuple a
    key, so the node's canonical params are remembered by identity (a
    write's nested key took 5 us to canonicalise, every write)."""
    params = _PARAMS.get(key)
    if params is None:
        if len(_PARAMS) >= 4096:
            _PARAMS.clear()
        params = _PARAMS[key] = (("key", key), ("adv", None), ("front", False))
    return params


def region_update(x: Node, key: tuple, value: Node) -> Node:
    """``x`` with ``value`` (already of the region's shape and x's dtype)
    stored at the normalised basic key ``key``: how a write through a view
    reaches its base."""
    return make_node("setitem", [x, value], basic_params(key))


# ---------------------------------------------------------------- NumPy's mutating functions

def _numpy_target(name: str, a, *args, **kwargs):
    """A NumPy array as the target: NumPy's own function, lazy values evaluated."""
    args = [np.asarray(x) if isinstance(x, Tensor) else x for x in args]
    kwargs = {k: np.asarray(x) if isinstance(x, Tensor) else x for k, x in kwargs.items()}
    return getattr(np, name)(a, *args, **kwargs)


def copyto(dst, src, casting="same_kind", where=True):
    """``numpy.copyto``: writes ``src`` into the lazy array ``dst`` (its handle
    moves; views of it see the write)."""
    if not isinstance(dst, Tensor):
        return _numpy_target("copyto", dst, src, casting=casting, where=where)
    from ..tensor import assign

    assign(dst, src, casting=casting, where=where, op="copyto")


def put(a, ind, v, mode="raise"):
    """``numpy.put``: ``a.flat[ind] = v`` (v repeated to ind's length), with
    NumPy's modes."""
    if not isinstance(a, Tensor):
        return _numpy_target("put", a, ind, v, mode=mode)
    ind_t = lift(ind, a.stack)
    if ind_t.dtype.kind not in "iu":
        raise error_at(DTypeError, "put", f"indices must be integers, got {ind_t.dtype}")
    n = a.size
    fnp = namespace()
    i = fnp.ravel(Tensor(ind_t, a.stack))
    if mode == "wrap":
        i = fnp.remainder(i, n) if n else i
    elif mode == "clip":
        i = fnp.clip(i, 0, max(n - 1, 0))
    elif mode != "raise":
        raise error_at(also(ValueError), "put", f"clipmode must be one of 'clip', 'raise', or 'wrap', got {mode!r}")
    if i.size == 0:
        return None
    vals = fnp.ravel(fnp.asarray(v))
    if vals.size == 0:
        return None
    if vals.size != i.size:
        vals = fnp.resize(vals, i.shape)
    flat = fnp.ravel(a)
    from ..tensor import write_node

    new = setitem_node(flat.node, i, vals, a.stack)
    write_node(a, make_node("reshape", [new], (("shape", a.shape),)))


def put_along_axis(arr, indices, values, axis):
    """``numpy.put_along_axis``."""
    if not isinstance(arr, Tensor):
        return _numpy_target("put_along_axis", arr, indices, values, axis)
    fnp = namespace()
    if axis is None:
        put(arr, indices, values)
        return None
    ind = fnp.asarray(indices)
    nd = arr.ndim
    ax = axis % nd if -nd <= axis < nd else axis
    if ind.ndim != nd:
        raise error_at(ShapeError, "put_along_axis", "`indices` and `arr` must have the same number of dimensions")
    key = []  # the indices broadcast with the other axes' aranges, or the write raises NumPy's shape mismatch
    for k in range(nd):
        if k == ax:
            key.append(ind)
        else:
            key.append(np.arange(arr.shape[k], dtype=np.intp).reshape((1,) * k + (-1,) + (1,) * (nd - k - 1)))
    arr[tuple(key)] = values
    return None


def place(arr, mask, vals):
    """``numpy.place``: the True positions of ``mask`` take ``vals`` in turn
    (repeated as needed)."""
    if not isinstance(arr, Tensor):
        return _numpy_target("place", arr, mask, vals)
    fnp = namespace()
    m = fnp.ravel(fnp.asarray(mask).astype(bool))
    if m.size != arr.size:
        raise error_at(ShapeError, "place", f"mask and data must be the same size, got {m.size} and {arr.size}")
    idx = fnp.flatnonzero(m)  # a data-dependent count: evaluated (a synchronisation point)
    k = idx.size
    vv = fnp.ravel(fnp.asarray(vals))
    if k == 0:
        return None
    if vv.size == 0:
        raise error_at(ShapeError, "place", "Cannot insert from an empty array!")
    put(arr, idx, fnp.resize(vv, (k,)) if vv.size != k else vv)
    return None


def putmask(a, mask, values):
    """``numpy.putmask``: ``a[mask] = values[i % len(values)]`` at each True
    position ``i`` of the flattened mask."""
    if not isinstance(a, Tensor):
        return _numpy_target("putmask", a, mask, values)
    fnp = namespace()
    m = fnp.asarray(mask).astype(bool)
    if m.shape != a.shape:
        raise error_at(ShapeError, "putmask", "mask and data must be the same size")
    v = fnp.asarray(values)
    if v.size == 0:
        return None
    if v.size != a.size:
        v = fnp.reshape(fnp.resize(fnp.ravel(v), (a.size,)), a.shape)
    else:
        v = fnp.reshape(v, a.shape)
    from ..tensor import assign

    assign(a, fnp.where(m, v.astype(a.dtype, casting="unsafe"), a), casting="unsafe", op="putmask")
    return None


def fill_diagonal(a, val, wrap=False):
    """``numpy.fill_diagonal``: NumPy's strided write of the flat array."""
    if not isinstance(a, Tensor):
        return _numpy_target("fill_diagonal", a, val, wrap=wrap)
    if a.ndim < 2:
        raise error_at(ShapeError, "fill_diagonal", "array must be at least 2-d")
    end = None
    if a.ndim == 2:
        step = a.shape[1] + 1
        if not wrap:
            end = a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise error_at(ShapeError, "fill_diagonal", "All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
    idx = np.arange(a.size, dtype=np.intp)[:end:step]
    if idx.size == 0:
        return None
    fnp = namespace()
    vals = fnp.ravel(fnp.asarray(val))
    if vals.size == 0:
        return None
    put(a, idx, vals)
    return None


# ---------------------------------------------------------------- which arrays share data

def _layouts(a, b):
    """Both arguments' layouts over a common storage, or None (no lazy array,
    or lazy arrays of different storages: they share nothing)."""
    from ..tensor import _shadow_of

    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return None
    sa, sb = _shadow_of(a), _shadow_of(b)
    return (sa, sb) if a._storage is b._storage else None


def shares_memory(a, b, /, max_work=None):
    """``numpy.shares_memory``: exact, from the views' layouts (``fgraph.views``)."""
    pair = _layouts(a, b)
    return False if pair is None else bool(np.shares_memory(*pair, max_work=max_work))


def may_share_memory(a, b, /, max_work=None):
    """``numpy.may_share_memory``: from the views' layouts (``fgraph.views``)."""
    pair = _layouts(a, b)
    return False if pair is None else bool(np.may_share_memory(*pair, max_work=max_work))

refuse_batching(("setitem", "bitcast"), "not audited for micro-batching: a write's key may reach across the batch's rows")

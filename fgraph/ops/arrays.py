"""Array assembly and rearrangement composed of other ops: ``diag``,
``diagflat``, ``append``, ``delete``, ``insert``, ``block``, ``rollaxis``,
``resize``, ``fromfunction``, ``asfortranarray``, ``require``, ``isfortran``,
``ix_``, bit packing, the function appliers (``apply_along_axis``,
``apply_over_axes``, ``piecewise``, ``vectorize``), and the index helpers
that read only an array's shape (``tril_indices_from`` and friends).

Each follows NumPy's definition, so shapes, dtypes and values are NumPy's.
What decides a result's shape (the indices ``delete`` and ``insert`` take,
``resize``'s shape, ``block``'s nesting) must be known now: a lazy array
there is refused by name.  Index helpers return NumPy arrays, as NumPy
does: they depend on shapes alone.
"""
from __future__ import annotations

import math
import operator

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..errors import FgraphError, IndexingError, ShapeError
from ..shape import c_strides
from ..tensor import Tensor, _shadow_of
from ..symbol import error_at
from .building import axis_index, lazy, namespace, python_int, python_value

__all__ = ["diag", "diagflat", "append", "delete", "insert", "block", "rollaxis", "resize", "fromfunction",
           "asfortranarray", "ix_", "r_", "c_", "packbits", "unpackbits", "apply_along_axis", "apply_over_axes",
           "tril_indices_from", "triu_indices_from", "diag_indices_from", "piecewise", "vectorize", "require",
           "isfortran"]


def diag(v, k=0):
    """Lazy ``numpy.diag``: a 2-D array's k-th diagonal, or a 1-D array on
    the k-th diagonal of a square zero matrix."""
    fnp, v, k = namespace(), lazy(v), python_int(k, "diag", "k")
    if v.ndim == 2:
        return fnp.diagonal(v, k)
    if v.ndim != 1:
        raise error_at(ShapeError, "diag", f"input must be 1- or 2-d, not {v.ndim}-d {tuple(v.shape)}")
    n = v.shape[0] + abs(k)
    zero = fnp.zeros((), dtype=v.dtype)
    if v.shape[0] == 0:
        return fnp.zeros((n, n), dtype=v.dtype)
    # row i holds v[i] at column i + k (k >= 0); column j holds v[j] at row j - k (k < 0)
    along = fnp.take(v, np.minimum(np.arange(n), v.shape[0] - 1))
    values = along[:, None] if k >= 0 else along[None, :]
    return fnp.where(fnp.eye(n, n, k, dtype=bool), values, zero)


def diagflat(v, k=0):
    """Lazy ``numpy.diagflat``: the flattened input on the k-th diagonal."""
    return diag(namespace().ravel(lazy(v)), k)


def append(arr, values, axis=None):
    """Lazy ``numpy.append``: flattened and joined (``axis=None``), or joined along ``axis``."""
    fnp, arr = namespace(), lazy(arr)
    if axis is None:
        if arr.ndim != 1:
            arr = fnp.ravel(arr)
        values, axis = fnp.ravel(lazy(values)), arr.ndim - 1
    return fnp.concatenate((arr, values), axis=python_value(axis, "append", "axis"))


def _along(name: str, arr, axis):
    """(array, axis) as NumPy's delete/insert see them: flattened when ``axis`` is None."""
    if axis is None:
        arr = namespace().ravel(arr) if arr.ndim != 1 else arr
        return arr, 0
    if arr.ndim == 0:
        raise error_at(ShapeError, name, f"axis {axis} is out of bounds for a 0-d array")
    return arr, axis_index(axis, arr.ndim, name)


def _positions(name: str, fn, n: int, *args):
    """NumPy's own ``fn`` (np.delete or np.insert) run on the positions
    ``0..n-1`` of the axis: which source position lands where."""
    try:
        return fn(np.arange(n), *args)
    except IndexError as e:
        raise error_at(IndexingError, name, str(e)) from None
    except (ValueError, TypeError, AttributeError) as e:  # (NumPy's own AttributeError: a list of bools)
        raise error_at(FgraphError, name, str(e)) from None


def delete(arr, obj, axis=None):
    """Lazy ``numpy.delete``: ``obj`` (an index, slice, or sequence of
    indices or booleans) must be known now."""
    arr, axis = _along("delete", lazy(arr), axis)
    obj = python_value(obj, "delete", "obj")
    keep = _positions("delete", np.delete, arr.shape[axis], obj)
    return namespace().take(arr, keep, axis=axis)


def insert(arr, obj, values, axis=None):
    """Lazy ``numpy.insert``: ``obj`` must be known now; ``values`` may be
    lazy and are cast to ``arr``'s dtype, as NumPy casts them."""
    fnp = namespace()
    arr, axis = _along("insert", lazy(arr), axis)
    obj = python_value(obj, "insert", "obj")
    n = arr.shape[axis]
    _positions("insert", np.insert, n, obj, 0)  # NumPy's checks of obj, first
    where = np.arange(*obj.indices(n)) if isinstance(obj, slice) else np.asarray(obj)
    if where.dtype == bool:
        where = np.flatnonzero(where)
    values = lazy(values)
    values = values if values.dtype == arr.dtype else fnp.astype(values, arr.dtype)
    values = fnp.reshape(values, (1,) * (arr.ndim - values.ndim) + tuple(values.shape))
    if where.size == 1:  # NumPy: one position takes all of values' slices along the axis
        if where.ndim == 0:  # (a scalar position takes them from values' first axis)
            values = fnp.moveaxis(values, 0, axis)
        count = values.shape[axis]
    else:
        count = where.size
    shape = list(arr.shape)
    shape[axis] = count
    while values.ndim > arr.ndim and values.shape[0] == 1:  # as NumPy's assignment drops them
        values = values[0]
    try:
        values = fnp.broadcast_to(values, tuple(shape))
    except FgraphError:
        raise error_at(ShapeError, "insert", f"values of shape {tuple(values.shape)} do not fit the "
                                             f"{tuple(shape)} slots obj {obj!r} opens") from None
    positions = _positions("insert", np.insert, n, obj, np.arange(n, n + count))
    return fnp.take(fnp.concatenate((arr, values), axis=axis), positions, axis=axis)


def _block_depth(arrays) -> int:
    """The nesting depth of ``block``'s lists, checked as NumPy checks it."""
    depths, stack = [], [(arrays, 0, "arrays")]
    while stack:
        x, depth, where = stack.pop()
        if isinstance(x, tuple):
            raise error_at(FgraphError, "block", f"{where} is a tuple; only lists can be used to arrange "
                                                 "blocks")
        if isinstance(x, list):
            if not x:
                raise error_at(FgraphError, "block", f"{where} is an empty list: lists must hold arrays")
            stack.extend((e, depth + 1, f"{where}[{i}]") for i, e in enumerate(x))
        else:
            depths.append(depth)
    if len(set(depths)) > 1:
        raise error_at(FgraphError, "block", f"list depths are mismatched: {min(depths)} and {max(depths)}")
    return depths[0]


def block(arrays):
    """Lazy ``numpy.block``: nested lists joined along the last axes, the
    innermost along -1."""
    fnp, depth = namespace(), _block_depth(arrays)
    ndim = 0
    leaves = [arrays]
    while leaves:  # the deepest array's ndim (no recursion over a user's nesting)
        x = leaves.pop()
        if isinstance(x, list):
            leaves.extend(x)
        else:
            ndim = max(ndim, lazy(x).ndim)
    ndim = max(ndim, depth)

    def leaf(x):
        x = lazy(x)
        return fnp.reshape(x, (1,) * (ndim - x.ndim) + tuple(x.shape))

    def join(x, level):
        if level == depth:
            return leaf(x)
        return fnp.concatenate([join(e, level + 1) for e in x], axis=level - depth)

    return join(arrays, 0)


def rollaxis(a, axis, start=0):
    """Lazy ``numpy.rollaxis``: ``axis`` moved to before ``start``."""
    a = lazy(a)
    n = a.ndim
    axis = axis_index(axis, n, "rollaxis")
    start = python_int(start, "rollaxis", "start")
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise error_at(ShapeError, "rollaxis", f"start {start} must be in [{-n}, {n}] for a {n}-d array")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return namespace().transpose(a, axes)


def resize(a, new_shape):
    """Lazy ``numpy.resize``: the flattened values repeated (or cut) to ``new_shape``."""
    fnp, a = namespace(), lazy(a)
    new_shape = python_value(new_shape, "resize", "new_shape")
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(map(operator.index, new_shape))
    if any(d < 0 for d in new_shape):
        raise error_at(ShapeError, "resize", f"all elements of new_shape {new_shape} must be non-negative")
    size = math.prod(new_shape)
    if size == 0 or a.size == 0:
        return fnp.zeros(new_shape, dtype=a.dtype)
    return fnp.reshape(fnp.take(fnp.ravel(a), np.arange(size) % a.size), new_shape)


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """Lazy ``numpy.fromfunction``: ``function`` called once on lazy index arrays."""
    if like is not None:
        raise error_at(FgraphError, "fromfunction", "like= is not supported: fgraph arrays are the result")
    return function(*namespace().indices(python_value(shape, "fromfunction", "shape"), dtype=dtype), **kwargs)


def asfortranarray(a, dtype=None, *, like=None):
    """``numpy.asfortranarray``: the values (at least 1-d) as a new array laid
    out in Fortran order (``flags``, ``strides``, ``tobytes("A")``), or ``a``
    itself when it is laid out so already, as NumPy returns it.  A new array
    is a copy: writes to it do not reach ``a``."""
    fnp = namespace()
    a = lazy(a) if dtype is None else fnp.asarray(a, dtype=dtype)
    if a.ndim == 0:
        return fnp.reshape(a, (1,))
    if a.flags.f_contiguous:
        return a
    result = Tensor(a.node, a.stack)  # a new handle: NumPy's copy
    layout = _shadow_of(result)
    result._shadow = as_strided(layout, strides=c_strides(layout.shape[::-1], layout.itemsize)[::-1])
    return result


def ix_(*args):
    """Lazy ``numpy.ix_``: 1-D index arrays shaped to index a cross product
    (a boolean one must be known now: its positions decide the shape)."""
    fnp, out = namespace(), []
    for k, new in enumerate(args):
        if isinstance(new, Tensor) and new.dtype == bool:
            raise error_at(FgraphError, "ix_", "a lazy boolean array's true positions decide the result's "
                                               "shape: evaluate it first with numpy.asarray")
        if not isinstance(new, Tensor):
            new = np.asarray(new)
            if new.size == 0:
                new = new.astype(np.intp)
            if new.dtype == bool:
                new = np.nonzero(new)[0] if new.ndim == 1 else new
        if new.ndim != 1:
            raise error_at(ShapeError, "ix_", f"cross index must be 1 dimensional, not {new.ndim}-d")
        out.append(fnp.reshape(lazy(new), (1,) * k + (new.shape[0],) + (1,) * (len(args) - k - 1)))
    return tuple(out)


class _Concatenator:
    """NumPy's ``r_``/``c_`` index tricks, lazily: slices become ``arange``
    (or ``linspace`` for a complex step), arrays are raised to ``ndmin``
    dimensions (1-D ones placed by ``trans1d``), every piece is cast to the
    common dtype and all are joined along ``axis``; a leading string sets
    ``"axis"`` or ``"axis,ndmin[,trans1d]"`` (NumPy's matrix directives
    ``"r"``/``"c"`` are refused: fgraph has no matrix type)."""

    def __init__(self, name: str, axis: int, ndmin: int, trans1d: int):
        self.name, self.axis, self.ndmin, self.trans1d = name, axis, ndmin, trans1d

    def _directive(self, item: str):
        if item in ("r", "c"):
            raise error_at(FgraphError, self.name, f"the {item!r} directive makes a numpy.matrix, which fgraph "
                                                   "does not have")
        try:
            values = [int(v) for v in item.split(",")]
        except ValueError:
            raise error_at(FgraphError, self.name, f"unknown special directive {item!r}") from None
        if len(values) > 3:
            raise error_at(FgraphError, self.name, f"unknown special directive {item!r}")
        return (values + [self.ndmin, self.trans1d][len(values) - 1:])[:3]

    def _piece(self, item, ndmin: int, trans1d: int):
        fnp = namespace()
        if isinstance(item, slice):
            # np.r_[0:n] with n = a.max(): bounds known now outside tracing (they decide the length)
            item = slice(*python_value([item.start, item.stop, item.step], self.name, "a slice bound",
                                       "slice bounds decide the result's shape"))
            start, stop, step = (0 if item.start is None else item.start), item.stop, \
                (1 if item.step is None else item.step)
            values = np.linspace(start, stop, num=int(abs(step))) if isinstance(step, (complex, np.complexfloating)) \
                else np.arange(start, stop, step)
            item = values
        elif type(item) in np.ScalarType:
            return fnp.reshape(lazy(item), (1,) * ndmin), item
        x = lazy(item)
        raised = fnp.reshape(x, (1,) * (ndmin - x.ndim) + tuple(x.shape)) if x.ndim < ndmin else x
        if trans1d != -1 and x.ndim < ndmin:  # NumPy moves the original axes to trans1d
            k2, k1 = ndmin - x.ndim, trans1d
            k1 = k1 + k2 + 1 if k1 < 0 else k1
            dims = list(range(ndmin))
            raised = fnp.transpose(raised, dims[:k1] + dims[k2:] + dims[k1:k2])
        return raised, raised.dtype

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        pieces, types = [], []
        for k, item in enumerate(key):
            if isinstance(item, str):
                if k != 0:
                    raise error_at(FgraphError, self.name, "special directives must be the first entry")
                axis, ndmin, trans1d = self._directive(item)
                continue
            piece, kind = self._piece(item, ndmin, trans1d)
            pieces.append(piece)
            types.append(kind)
        if not pieces:
            raise error_at(FgraphError, self.name, "need at least one array to concatenate")
        dtype = np.result_type(*types)  # Python scalars weak, as NumPy's
        pieces = [p if p.dtype == dtype else namespace().astype(p, dtype) for p in pieces]
        return namespace().concatenate(pieces, axis=axis)


    def on_stack(self, stack):
        """This index trick building on ``stack`` (for ``fgraph.make``'s namespaces)."""
        from .. import stack as stacks

        outer = self

        class Bound(_Concatenator):
            def __getitem__(self, key):
                token = stacks.activate(stack)
                try:
                    return outer.__getitem__(key)
                finally:
                    stacks.deactivate(token)

        return Bound(self.name, self.axis, self.ndmin, self.trans1d)


r_ = _Concatenator("r_", 0, 1, -1)
c_ = _Concatenator("c_", -1, 2, 0)


def _bits_axis(name: str, a, axis):
    """(array with the packed axis last, axis to move it back to or None)."""
    fnp = namespace()
    if axis is None or a.ndim == 0:
        return fnp.ravel(a), None
    axis = axis_index(axis, a.ndim, name)
    return fnp.moveaxis(a, axis, -1), axis


def _bit_weights(bitorder: str, name: str):
    if bitorder not in ("big", "little"):
        raise error_at(FgraphError, name, f"'order' must be either 'little' or 'big', not {bitorder!r}")
    return np.array([128, 64, 32, 16, 8, 4, 2, 1] if bitorder == "big" else [1, 2, 4, 8, 16, 32, 64, 128],
                    np.uint8)


def packbits(a, axis=None, bitorder="big"):
    """Lazy ``numpy.packbits``: each 8 truth values along ``axis`` as one
    uint8 (the last byte padded with zeros)."""
    fnp, a = namespace(), lazy(a)
    if a.dtype.kind not in "biu":
        raise error_at(FgraphError, "packbits", f"expected an input array of integer or boolean data type, "
                                                f"not {a.dtype}")
    weights = _bit_weights(bitorder, "packbits")
    x, axis = _bits_axis("packbits", a, axis)
    n = x.shape[-1]
    bits = fnp.astype(x != 0, np.uint8)
    pad = -n % 8
    if pad:
        bits = fnp.concatenate((bits, fnp.zeros(bits.shape[:-1] + (pad,), np.uint8)), axis=-1)
    grouped = fnp.reshape(bits, bits.shape[:-1] + ((n + pad) // 8, 8))
    packed = fnp.sum(grouped * weights, axis=-1, dtype=np.uint8)
    return packed if axis is None else fnp.moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """Lazy ``numpy.unpackbits``: each uint8 as 8 bits along ``axis``
    (``count`` bits kept, or zeros added, as NumPy)."""
    fnp, a = namespace(), lazy(a)
    if a.dtype != np.uint8:
        raise error_at(FgraphError, "unpackbits", f"expected an input array of unsigned byte data type, not "
                                                  f"{a.dtype}")
    shifts = np.array([7, 6, 5, 4, 3, 2, 1, 0] if bitorder == "big" else [0, 1, 2, 3, 4, 5, 6, 7], np.uint8)
    _bit_weights(bitorder, "unpackbits")  # (its check of bitorder)
    x, axis = _bits_axis("unpackbits", a, axis)
    bits = fnp.reshape((x[..., None] >> shifts) & np.uint8(1), x.shape[:-1] + (8 * x.shape[-1],))
    n = bits.shape[-1]
    if count is not None:
        count = python_int(count, "unpackbits", "count")
        keep = count if count >= 0 else n + count
        if keep < 0:
            raise error_at(ShapeError, "unpackbits", f"-count {-count} is larger than the {n} bits unpacked")
        if keep <= n:
            bits = bits[..., :keep]
        else:
            bits = fnp.concatenate((bits, fnp.zeros(bits.shape[:-1] + (keep - n,), np.uint8)), axis=-1)
    return bits if axis is None else fnp.moveaxis(bits, -1, axis)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """Lazy ``numpy.apply_along_axis``: ``func1d`` called on each 1-D slice
    (lazily: one call per slice, as NumPy's loop), the results stacked in
    the first result's dtype."""
    fnp, arr = namespace(), lazy(arr)
    axis = axis_index(axis, arr.ndim, "apply_along_axis")
    moved = fnp.moveaxis(arr, axis, -1)
    outer = tuple(moved.shape[:-1])
    if math.prod(outer) == 0:
        raise error_at(ShapeError, "apply_along_axis", f"cannot apply along axis {axis} of {tuple(arr.shape)}: "
                                                       "an iteration dimension is 0")
    results = [lazy(func1d(moved[ind + (Ellipsis,)], *args, **kwargs)) for ind in np.ndindex(outer)]
    first = results[0]
    parts = []
    for r in results:  # NumPy stores each result into a buffer of the first's dtype and shape
        r = r if r.dtype == first.dtype else fnp.astype(r, first.dtype)
        parts.append(r if r.shape == first.shape else fnp.broadcast_to(r, first.shape))
    buff = fnp.reshape(fnp.stack(parts), outer + tuple(first.shape))
    dims = list(range(buff.ndim))
    return fnp.transpose(buff, dims[:axis] + dims[buff.ndim - first.ndim:] + dims[axis:buff.ndim - first.ndim])


def apply_over_axes(func, a, axes):
    """Lazy ``numpy.apply_over_axes``: ``func(a, axis)`` for each axis in
    turn, its result kept at ``a``'s rank."""
    fnp = namespace()
    val = lazy(a)
    n = val.ndim
    for axis in ((axes,) if np.ndim(axes) == 0 else axes):
        axis = python_int(axis, "apply_over_axes", "axes")
        axis = n + axis if axis < 0 else axis
        res = lazy(func(val, axis))
        if res.ndim != val.ndim:
            res = fnp.expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise error_at(ShapeError, "apply_over_axes", "function is not returning an array of the correct "
                                                              f"shape: {tuple(res.shape)} for {tuple(val.shape)}")
        val = res
    return val


def _shape_of(arr) -> tuple:
    return tuple(arr.shape) if hasattr(arr, "shape") else np.shape(arr)


def tril_indices_from(arr, k=0):
    """``numpy.tril_indices_from``: NumPy index arrays, from ``arr``'s shape alone."""
    shape = _shape_of(arr)
    if len(shape) != 2:
        raise error_at(ShapeError, "tril_indices_from", f"input array must be 2-d, not {shape}")
    return np.tril_indices(shape[-2], k=k, m=shape[-1])


def triu_indices_from(arr, k=0):
    """``numpy.triu_indices_from``: NumPy index arrays, from ``arr``'s shape alone."""
    shape = _shape_of(arr)
    if len(shape) != 2:
        raise error_at(ShapeError, "triu_indices_from", f"input array must be 2-d, not {shape}")
    return np.triu_indices(shape[-2], k=k, m=shape[-1])


def diag_indices_from(arr):
    """``numpy.diag_indices_from``: NumPy index arrays, from ``arr``'s shape alone."""
    shape = _shape_of(arr)
    if len(shape) < 2:
        raise error_at(ShapeError, "diag_indices_from", f"input array must be at least 2-d, not {shape}")
    if len(set(shape)) != 1:
        raise error_at(ShapeError, "diag_indices_from", f"all dimensions of input must be of equal length, "
                                                        f"not {shape}")
    return np.diag_indices(shape[0], len(shape))


# ---------------------------------------------------------------- Python functions over arrays

def piecewise(x, condlist, funclist, *args, **kw):
    """Lazy ``numpy.piecewise``: ``funclist[k]`` (a function, or a value) where
    ``condlist[k]`` holds, later pieces over earlier ones, 0 elsewhere; one
    more function than conditions is the "otherwise" piece.

    Each function is applied to the whole of ``x`` and its values kept where
    its condition holds (NumPy applies it to the selected values only, a
    data-dependent shape); for element-wise functions, the usual kind, the
    values are NumPy's.  The result has ``x``'s dtype, as in NumPy.
    """
    fnp = namespace()
    x = lazy(x)
    n2 = len(funclist)
    # as NumPy: a single condition is promoted to a list of one condition (an array's first element is an
    # array only if it has two axes or more)
    first = None if np.isscalar(condlist) else condlist[0]
    if np.isscalar(condlist) or (not (isinstance(first, (list, np.ndarray)) or (isinstance(first, Tensor) and
                                                                                first.ndim)) and x.ndim != 0):
        condlist = [condlist]
    conds = fnp.asarray(condlist, dtype=bool)
    n = conds.shape[0]
    if n == n2 - 1:  # the "otherwise" condition
        conds = fnp.concatenate([conds, ~fnp.any(conds, axis=0, keepdims=True)], axis=0)
    elif n != n2:
        raise error_at(ShapeError, "piecewise", f"with {n} condition(s), either {n} or {n + 1} functions are "
                                                "expected")
    if conds.shape[1:] != x.shape:
        raise error_at(IndexingError, "piecewise", f"boolean index did not match indexed array: the conditions "
                                                   f"have shape {conds.shape[1:]}, x has shape {x.shape}")
    y = fnp.zeros_like(x)
    for k, func in enumerate(funclist):
        value = func(x, *args, **kw) if callable(func) else func
        value = fnp.asarray(value).astype(x.dtype)  # y[cond] = value: NumPy's unsafe cast into y
        y = fnp.where(conds[k], value, y)
    return y


class vectorize(np.vectorize):
    """``numpy.vectorize``: ``pyfunc`` called on each element's value.

    A Python function runs on values, so lazy arguments are evaluated first
    (an evaluation point, as ``float(t)`` is) and numeric results come back
    as lazy arrays; under tracing (a placeholder or variable below) it
    raises: write the function with ``fgraph.numpy`` operations and call it
    on the arrays instead.
    """

    def __call__(self, *args, **kwargs):
        if self.pyfunc is np._NoValue:  # @vectorize(otypes=...) then the function
            return super().__call__(*args, **kwargs)
        given = list(args) + list(kwargs.values())
        for a in given:
            if isinstance(a, Tensor) and not a.node.concrete:
                raise error_at(FgraphError, "vectorize", "numpy.vectorize calls a Python function on each value, "
                                                         "which a traced array does not have yet; write the "
                                                         "function with fgraph.numpy operations and call it on "
                                                         "the arrays")
        if not any(isinstance(a, Tensor) for a in given):
            return super().__call__(*args, **kwargs)
        out = super().__call__(*(_evaluated(a) for a in args), **{k: _evaluated(v) for k, v in kwargs.items()})
        return tuple(map(_lazy_result, out)) if isinstance(out, tuple) else _lazy_result(out)


def _evaluated(a):
    return np.asarray(a) if isinstance(a, Tensor) else a


def _lazy_result(out):
    """A result of lazy arguments as a lazy array; strings and objects stay NumPy's."""
    out = np.asarray(out)
    return out if out.dtype.kind in "OSUVMm" else namespace().asarray(out)


# ---------------------------------------------------------------- layout requirements

_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
                 "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O", "OWNDATA": "O",
                 "E": "E", "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None, *, like=None):
    """Lazy ``numpy.require``: ``a`` as an array of ``dtype`` whose flags meet
    ``requirements`` (a copy where they do not: a view asked to own its
    data, a read-only array asked to be writeable)."""
    fnp = namespace()
    reqs = set()
    for r in ([requirements] if isinstance(requirements, str) else requirements or ()):
        key = str(r).upper()
        if key not in _REQUIREMENTS:
            raise error_at(FgraphError, "require", f"unknown requirement {r!r}")
        reqs.add(_REQUIREMENTS[key])
    if "C" in reqs and "F" in reqs:
        raise error_at(FgraphError, "require", "Cannot specify both 'C' and 'F' order")
    t = fnp.asarray(a, dtype=dtype)
    flags = getattr(t, "flags", None)
    names = {"C": "c_contiguous", "F": "f_contiguous", "A": "aligned", "W": "writeable", "O": "owndata"}
    if flags is not None and any(not getattr(flags, names[r]) for r in reqs if r in names):
        t = fnp.array(t, order="F" if "F" in reqs else "C")
    return t


def isfortran(a):
    """``numpy.isfortran``: True where ``a`` is Fortran-contiguous and not C-contiguous."""
    flags = getattr(a, "flags", None)
    if isinstance(a, Tensor) and flags is not None:
        return bool(flags.f_contiguous and not flags.c_contiguous)
    return np.isfortran(a)

"""Movement ops: reshaping, transposing, broadcasting, joining, splitting,
flipping, padding.

Seven primitive ops carry every function here; the rest are exact
compositions of them:

=============  ====================================  ======
op             params                                view
=============  ====================================  ======
reshape        shape                                 yes
transpose      axes (a permutation)                  yes
broadcast_to   shape                                 yes
flip           axes (sorted)                         yes
slice_axis     axis, start, stop, step               yes
concatenate    axis, dtype, casting                  no
repeat         repeats (per element), axis           no
=============  ====================================  ======

``view=True`` tells the memory planner that the kernel may return a view of
input 0; ``view_strides`` (below) tells it statically when a ``reshape``
cannot be a view.  No op here declares ``inplace``: the non-view ops change
the shape (a one-input ``concatenate`` that only casts would need NumPy's
overlap copy).  Static parameters are normalised (non-negative axes, resolved
shapes, canonical slices), so equal calls make equal nodes.  Argument
mistakes raise ShapeError/DTypeError naming the NumPy function and the
user's line, when the node is made.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError, user_stacklevel
from ..tensor import Tensor
from ..shape import as_shape, broadcast_shapes as _broadcast_shapes, c_strides, defop, normalize_axis, size_of
from ..symbol import error_at, make_node, refuse_out
from . import movement_kernels as kernels
from .batching import Ctx, Mixes, _along_axis as along_axis, _set
from .building import namespace, python_value, remembered
from .creation import asarray

__all__ = [
    "reshape", "ravel", "transpose", "permute_dims", "swapaxes", "moveaxis", "expand_dims", "squeeze",
    "broadcast_to", "broadcast_arrays", "broadcast_shapes",
    "concatenate", "concat", "stack", "unstack", "hstack", "vstack", "dstack", "column_stack",
    "split", "array_split", "hsplit", "vsplit", "dsplit",
    "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90", "pad",
    "atleast_1d", "atleast_2d", "atleast_3d", "diff", "row_stack", "broadcast",
]


# ---------------------------------------------------------------- helpers

def _fail(op: str, msg: str, cls=ShapeError):
    """An error naming the NumPy function and the user's line."""
    return error_at(cls, op, msg)


def _tensor(x) -> Tensor:
    # NumPy's asanyarray: Python scalars become strong arrays, not weak literals
    return x if isinstance(x, Tensor) else asarray(x)


def _axis(op: str, axis, ndim: int) -> int:
    try:
        return normalize_axis(axis, ndim)
    except FgraphError as e:
        raise _fail(op, str(e), type(e)) from None


def _axis_tuple(op: str, axis, ndim: int, allow_duplicate: bool = False) -> tuple:
    """int or sequence -> tuple of non-negative axes, in the order given."""
    seq = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(_axis(op, a, ndim) for a in seq)
    if not allow_duplicate and len(set(axes)) != len(axes):
        raise _fail(op, f"repeated axis in {axis}")
    return axes


def _index(op: str, value, what: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise _fail(op, f"{what} must be an integer, got {type(value).__name__}", DTypeError) from None


def _node(op: str, x: Tensor, params: tuple) -> Tensor:
    return Tensor(make_node(op, [x.node], params), x.stack)


# ---------------------------------------------------------------- primitive ops

def _reshape_rule(inputs, shape):
    (x,) = inputs
    if size_of(x.shape) != size_of(shape):
        raise ShapeError(f"cannot reshape array of shape {x.shape} (size {size_of(x.shape)}) into shape {shape}")
    return shape, x.dtype


def _transpose_rule(inputs, axes):
    (x,) = inputs
    if sorted(axes) != list(range(len(x.shape))):
        raise ShapeError(f"axes {axes} are not a permutation of the {len(x.shape)} axes")
    return tuple(x.shape[a] for a in axes), x.dtype


def _broadcast_to_rule(inputs, shape):
    (x,) = inputs
    if len(shape) < len(x.shape) or _broadcast_shapes(x.shape, shape) != shape:
        raise ShapeError(f"cannot broadcast an array of shape {x.shape} to shape {shape}")
    return shape, x.dtype


def _flip_rule(inputs, axes):
    (x,) = inputs
    if any(not 0 <= a < len(x.shape) for a in axes):
        raise ShapeError(f"axes {axes} out of range for {len(x.shape)} dimensions")
    return x.shape, x.dtype


def _slice_len(start, stop, step) -> int:
    return len(range(start, -1 if stop is None else stop, step))


def _slice_axis_rule(inputs, axis, start, stop, step):
    (x,) = inputs
    if not 0 <= axis < len(x.shape):
        raise ShapeError(f"axis {axis} out of range for {len(x.shape)} dimensions")
    shape = list(x.shape)
    shape[axis] = _slice_len(start, stop, step)
    return tuple(shape), x.dtype


def _concatenate_rule(inputs, axis, dtype=None, casting="same_kind"):
    if not inputs:
        raise ShapeError("need at least one array to concatenate")
    first = inputs[0].shape
    for k, x in enumerate(inputs):
        if len(x.shape) == 0:
            raise ShapeError("zero-dimensional arrays cannot be concatenated")
        if len(x.shape) != len(first):
            raise ShapeError(f"all the input arrays must have the same number of dimensions, but the array at "
                             f"index 0 has {len(first)} dimension(s) and the array at index {k} has "
                             f"{len(x.shape)} dimension(s)")
        for d, (n0, n) in enumerate(zip(first, x.shape)):
            if d != axis and n != n0:
                raise ShapeError(f"all the input array dimensions except for the concatenation axis must match "
                                 f"exactly, but along dimension {d}, the array at index 0 has size {n0} and the "
                                 f"array at index {k} has size {n}")
    # NumPy converts every input to an array first: no input is weak here
    out = np.dtype(dtype) if dtype is not None else np.result_type(*(x.dtype for x in inputs))
    for x in inputs:
        if not np.can_cast(x.dtype, out, casting):
            raise DTypeError(f"cannot cast array data from {x.dtype} to {out} according to the rule {casting!r}")
    shape = list(first)
    shape[axis] = sum(x.shape[axis] for x in inputs)
    return tuple(shape), out


def _repeat_rule(inputs, repeats, axis):
    (x,) = inputs
    if not 0 <= axis < len(x.shape) or len(repeats) != x.shape[axis]:
        raise ShapeError(f"{len(repeats)} repeats do not match axis {axis} of shape {x.shape}")
    shape = list(x.shape)
    shape[axis] = sum(repeats)
    return tuple(shape), x.dtype


# ---------------------------------------------------------------- static layouts
#
# The ``view_strides`` of each view op here: ``fn(node, strides)`` maps
# the byte strides of the node's input to those of NumPy's result, or gives
# None where the kernel must copy (a ``reshape`` NumPy cannot express as a
# view).  A memory planner can run it down a chain of views from a buffer of
# known layout (the arena's are C-contiguous) to see statically which
# reshapes copy, and give those a buffer of their own instead of aliasing.
# Strides of length-1 axes, and of size-0 arrays, are irrelevant to NumPy
# (and may differ from its own).

def _c_contiguous(shape: tuple, strides: tuple, itemsize: int) -> bool:
    """NumPy's C-contiguous flag: length-1 axes are ignored, size 0 is contiguous."""
    if 0 in shape:
        return True
    step = itemsize
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1:
            if s != step:
                return False
            step *= d
    return True


def _nocopy_reshape(old: tuple, strides: tuple, new: tuple, itemsize: int):
    """Strides of ``new`` viewing an array of shape ``old`` (no zeros in it),
    or None: NumPy's ``_attempt_nocopy_reshape`` in C order."""
    dims = [(d, s) for d, s in zip(old, strides) if d != 1]  # length-1 axes do not matter
    out = [0] * len(new)
    oi = ni = 0
    while ni < len(new) and oi < len(dims):
        oj, nj = oi + 1, ni + 1
        np_, op = new[ni], dims[oi][0]
        while np_ != op:  # grow the smaller side until both cover the same elements
            if np_ < op:
                np_ *= new[nj]
                nj += 1
            else:
                op *= dims[oj][0]
                oj += 1
        for k in range(oi, oj - 1):  # the old axes merged must be contiguous with each other
            if dims[k][1] != dims[k + 1][0] * dims[k + 1][1]:
                return None
        out[nj - 1] = dims[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            out[k - 1] = out[k] * new[k]
        ni, oi = nj, oj
    last = out[ni - 1] if ni else itemsize
    for k in range(ni, len(new)):  # trailing length-1 axes
        out[k] = last
    return tuple(out)


def _reshape_strides(node, strides):
    (x,) = node.inputs
    item = node.dtype.itemsize
    if node.shape == x.shape:
        return tuple(strides)
    if size_of(x.shape) <= 1 or _c_contiguous(x.shape, strides, item):
        return c_strides(node.shape, item)
    return _nocopy_reshape(x.shape, strides, node.shape, item)


def _broadcast_to_strides(node, strides):
    (x,) = node.inputs
    lead = len(node.shape) - len(x.shape)
    tail = zip(x.shape, node.shape[lead:], strides)
    return (0,) * lead + tuple(0 if d != n else s for d, n, s in tail)


def _slice_axis_strides(node, strides):
    axis, step = node.param("axis"), node.param("step")
    return tuple(s * step if k == axis else s for k, s in enumerate(strides))


def _transpose_strides(node, strides):
    return tuple(strides[a] for a in node.param("axes"))


def _flip_strides(node, strides):
    return tuple(-s if k in node.param("axes") else s for k, s in enumerate(strides))


# ---------------------------------------------------------------- gradients
#
# Every movement op is linear, so each rule applies the op's transpose to the
# cotangent: views move it back (reshape, inverse transpose, flip), a
# broadcast sums it down, a slice embeds it into zeros, a concatenate splits
# it, and repeat adds each element's copies (a ``scatter_add``).  No
# non-smooth points.  Written with fgraph.numpy (``namespace()``), so they
# differentiate again.

def embed(g, axis: int, n: int, start: int, step: int):
    """The transpose of slicing: length ``n`` along ``axis``, zeros except
    ``g``'s entries at ``start, start + step, ...`` (forward ops only:
    flip, pad, reshape and slice_axis, so it differentiates again)."""
    fnp = namespace()
    m = g.shape[axis]
    if m == 0:
        start, step = 0, 1
    if step < 0:  # the same positions visited upwards, from the last one
        g = fnp.flip(g, axis)
        start, step = start + (m - 1) * step, -step
    if m <= 1:
        step = 1
    if step > 1:  # interleave step - 1 zeros after each entry: (m, 1) padded to (m, step), merged
        shape = g.shape
        g = fnp.reshape(g, shape[:axis] + (m, 1) + shape[axis + 1:])
        g = fnp.pad(g, [(0, step - 1) if k == axis + 1 else (0, 0) for k in range(g.ndim)])
        g = fnp.reshape(g, shape[:axis] + (m * step,) + shape[axis + 1:])
        if start + m * step > n:  # the zeros after the last entry overhang the end
            g = fnp.split(g, [(m - 1) * step + 1], axis=axis)[0]
    length = g.shape[axis]
    widths = [(start, n - start - length) if k == axis else (0, 0) for k in range(g.ndim)]
    return fnp.pad(g, widths) if n != length else g


def _reshape_grad(out, ins, g, shape):
    return namespace().reshape(g, ins[0].shape),


def _transpose_grad(out, ins, g, axes):
    return namespace().transpose(g, tuple(int(k) for k in np.argsort(axes))),


def _broadcast_to_grad(out, ins, g, shape):
    return g,  # the core sums every cotangent down to its input's shape (autodiff.core.sum_to)


def _flip_grad(out, ins, g, axes):
    return namespace().flip(g, axes),


def _slice_axis_grad(out, ins, g, axis, start, stop, step):
    return embed(g, axis, ins[0].shape[axis], start, step),


def _concatenate_grad(out, ins, g, axis, dtype=None, casting="same_kind"):
    # each input's block of g (the core casts it back to the input's dtype)
    points = np.cumsum([x.shape[axis] for x in ins])[:-1].tolist()
    return tuple(namespace().split(g, points, axis=axis)) if len(ins) > 1 else (g,)


def _repeat_grad(out, ins, g, repeats, axis):
    from .indexing import scatter_add  # late: indexing sits above this family (it imports it)

    # repeat(x) == take(x, r, axis) for r = [0]*repeats[0] + [1]*repeats[1] + ...: add the copies back
    (x,) = ins
    r = np.repeat(np.arange(x.shape[axis], dtype=np.intp), repeats)
    key = tuple("a" if k == axis else None for k in range(x.ndim))
    return scatter_add(g, [r], x.shape, key),


# ---------------------------------------------------------------- micro-batching rules (ops/batching.py)

def _reshape_batch(node, c: Ctx) -> tuple:
    x = node.inputs[0]
    if not (x.ndim and node.ndim and x.shape[0] == node.shape[0] == c.B):
        raise Mixes(f"it reshapes {list(x.shape)} to {list(node.shape)}: rows of the batch axis 0 do not stay rows")
    return _set(node.params, shape=c.rows(node.param("shape")))


def _transpose_batch(node, c: Ctx) -> tuple:
    if node.param("axes")[0] != 0:
        raise Mixes(f"axes {node.param('axes')} move the batch axis 0")
    return node.params


def _broadcast_to_batch(node, c: Ctx) -> tuple:
    c.aligned(node, (0,), node.ndim)
    return _set(node.params, shape=c.rows(node.param("shape")))


def _flip_batch(node, c: Ctx) -> tuple:
    if 0 in node.param("axes"):
        raise Mixes("it reverses the batch axis 0")
    return node.params


def _slice_axis_batch(node, c: Ctx) -> tuple:
    if node.param("axis") != 0:
        return node.params
    if (node.param("start"), node.param("stop"), node.param("step")) != (0, c.B, 1):
        raise Mixes("it selects rows of the batch axis 0")
    return _set(node.params, stop=c.k)


def _concatenate_batch(node, c: Ctx) -> tuple:
    if node.param("axis") == 0:
        raise Mixes("it joins along the batch axis 0")
    c.aligned(node, range(len(node.inputs)), node.ndim)
    return node.params


# ---------------------------------------------------------------- the ops

defop("reshape", _reshape_rule, "numpy.reshape to a resolved shape (order 'C').", view=True,
      view_strides=_reshape_strides, kernel=kernels.reshape, out_kernel=kernels.reshape_out, grad=_reshape_grad,
      batch_rule=_reshape_batch)
defop("transpose", _transpose_rule, "numpy.transpose by a full permutation of the axes.", view=True,
      view_strides=_transpose_strides, kernel=kernels.transpose, out_kernel=kernels.transpose_out,
      grad=_transpose_grad, batch_rule=_transpose_batch)
defop("broadcast_to", _broadcast_to_rule, "numpy.broadcast_to a shape.", view=True,
      view_strides=_broadcast_to_strides, kernel=kernels.broadcast_to, out_kernel=kernels.broadcast_to_out,
      grad=_broadcast_to_grad, batch_rule=_broadcast_to_batch)
defop("flip", _flip_rule, "numpy.flip along sorted axes.", view=True, view_strides=_flip_strides,
      kernel=kernels.flip, out_kernel=kernels.flip_out, grad=_flip_grad, batch_rule=_flip_batch)
defop("slice_axis", _slice_axis_rule, "x[..., start:stop:step] along one axis (canonical slice; stop None "
                                      "means past the front for a negative step).", view=True,
      view_strides=_slice_axis_strides, kernel=kernels.slice_axis, out_kernel=kernels.slice_axis_out,
      grad=_slice_axis_grad, batch_rule=_slice_axis_batch)
defop("concatenate", _concatenate_rule, "numpy.concatenate along an axis, with dtype and casting.",
      kernel=kernels.concatenate, out_kernel=kernels.concatenate_out, grad=_concatenate_grad,
      batch_rule=_concatenate_batch)
defop("repeat", _repeat_rule, "numpy.repeat with one count per element along an axis.",
      kernel=kernels.repeat, out_kernel=kernels.repeat_out, grad=_repeat_grad, batch_rule=along_axis)


def _slice(x: Tensor, axis: int, start, stop, step=1) -> Tensor:
    """x sliced along ``axis`` with Python's slice semantics."""
    n = x.shape[axis]
    s, e, st = slice(start, stop, step).indices(n)
    if not len(range(s, e, st)):
        s, e, st = 0, 0, 1  # one canonical empty slice (indices() may give start -1)
    if (s, e, st) == (0, n, 1):
        return x
    return _node("slice_axis", x, (("axis", axis), ("start", s), ("stop", e if e >= 0 else None), ("step", st)))


def _reshape_to(x: Tensor, shape: tuple) -> Tensor:
    return x if x.shape == shape else _node("reshape", x, (("shape", shape),))


def _transpose_to(x: Tensor, axes: tuple) -> Tensor:
    return x if axes == tuple(range(len(axes))) else _node("transpose", x, (("axes", axes),))


def _broadcast_to(x: Tensor, shape: tuple) -> Tensor:
    return x if x.shape == shape else _node("broadcast_to", x, (("shape", shape),))


def _concat(ts: list, axis: int, dtype=None, casting="same_kind") -> Tensor:
    """Concatenate tensors along a normalised axis (the rule checks the rest)."""
    if len(ts) == 1 and (dtype is None or np.dtype(dtype) == ts[0].dtype):
        return ts[0]
    dt = None if dtype is None else np.dtype(dtype)
    node = make_node("concatenate", [t.node for t in ts], (("axis", axis), ("dtype", dt), ("casting", casting)))
    return Tensor(node, ts[0].stack)


# ---------------------------------------------------------------- shape changes

def _resolve_shape(shape, size: int, op: str = "reshape") -> tuple:
    """A reshape target with at most one unknown (negative) entry, resolved."""
    if isinstance(shape, (tuple, list)):
        dims = [d if type(d) is int else _index(op, d, "shape entry") for d in shape]
    else:
        dims = [_index(op, shape, "shape")]
    unknown = None
    known = 1
    for k, d in enumerate(dims):
        if d < 0:
            if unknown is not None:
                raise _fail(op, "can only specify one unknown dimension")
            unknown = k
        else:
            known *= d
    if unknown is not None:
        if known == 0 or size % known:
            raise _fail(op, f"cannot reshape array of size {size} into shape {tuple(dims)}")
        dims[unknown] = size // known
    elif known != size:
        raise _fail(op, f"cannot reshape array of size {size} into shape {tuple(dims)}")
    return tuple(dims)


def _order(op: str, order, allowed: str) -> str:
    # lazy arrays are always logically C-ordered, so 'A' (and 'K' where NumPy
    # allows it) mean 'C'
    if order is None or (order in ("A", "K") and order in allowed):
        return "C"
    if order not in allowed:
        raise _fail(op, f"order must be one of {', '.join(map(repr, allowed))}, got {order!r}", FgraphError)
    return order


#: (input shape, dtype, weak flag, target shape of Python ints) -> what
#: reshape built (see ``compose.remembered``)
_reshapes: dict = {}


def reshape(a, /, shape, order="C", *, copy=None):
    """Lazy ``numpy.reshape``; one entry may be -1.  ``order='F'`` is supported
    (as transposes around a C-order reshape); ``copy`` is moot (immutable)."""
    if type(a) is not Tensor or type(order) is not str or order != "C":
        return _reshape(a, shape, order)
    if type(shape) is tuple:
        for d in shape:
            if type(d) is not int:
                return _reshape(a, shape, order)
    elif type(shape) is not int:
        return _reshape(a, shape, order)
    n = a.node
    return remembered(_reshapes, (n.shape, n.dtype, n.weak, shape), n, a.stack, a, _reshape, a, shape, order)


def _reshape(a, shape, order):
    x = _tensor(a)
    new = _resolve_shape(shape, size_of(x.shape))
    if _order("reshape", order, "CFA") == "F":
        rev = tuple(reversed(range(x.ndim)))
        y = _reshape_to(_transpose_to(x, rev), new[::-1])
        return _transpose_to(y, tuple(reversed(range(len(new)))))
    return _reshape_to(x, new)


def ravel(a, order="C"):
    """Lazy ``numpy.ravel`` (also ``t.flatten()``): a 1-d reshape."""
    x = _tensor(a)
    if _order("ravel", order, "CFAK") == "F":
        x = _transpose_to(x, tuple(reversed(range(x.ndim))))
    return _reshape_to(x, (size_of(x.shape),))


def transpose(a, axes=None):
    """Lazy ``numpy.transpose``: reverse or permute the axes."""
    x = _tensor(a)
    if axes is None:
        perm = tuple(reversed(range(x.ndim)))
    else:
        perm = _axis_tuple("transpose", axes, x.ndim)
        if len(perm) != x.ndim:
            raise _fail("transpose", f"axes {axes!r} don't match an array of shape {x.shape}")
    return _transpose_to(x, perm)


def permute_dims(a, /, axes=None):
    """Array API ``permute_dims`` (= ``numpy.permute_dims``, = transpose)."""
    return transpose(a, axes)


def swapaxes(a, axis1, axis2):
    """Lazy ``numpy.swapaxes`` (a transpose)."""
    x = _tensor(a)
    i, j = _axis("swapaxes", axis1, x.ndim), _axis("swapaxes", axis2, x.ndim)
    perm = list(range(x.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return _transpose_to(x, tuple(perm))


def moveaxis(a, source, destination):
    """Lazy ``numpy.moveaxis`` (a transpose)."""
    x = _tensor(a)
    src = _axis_tuple("moveaxis", source, x.ndim)
    dst = _axis_tuple("moveaxis", destination, x.ndim)
    if len(src) != len(dst):
        raise _fail("moveaxis", "`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _transpose_to(x, tuple(order))


def expand_dims(a, axis):
    """Lazy ``numpy.expand_dims``: insert length-1 axes (a reshape)."""
    x = _tensor(a)
    n = len(axis) if isinstance(axis, (tuple, list)) else 1
    axes = set(_axis_tuple("expand_dims", axis, x.ndim + n))
    it = iter(x.shape)
    return _reshape_to(x, tuple(1 if k in axes else next(it) for k in range(x.ndim + n)))


def squeeze(a, axis=None):
    """Lazy ``numpy.squeeze``: drop length-1 axes (a reshape).  Naming an axis
    whose length is not 1 raises ShapeError."""
    x = _tensor(a)
    if axis is None:
        axes = {k for k, d in enumerate(x.shape) if d == 1}
    else:
        axes = set(_axis_tuple("squeeze", axis, x.ndim))
        bad = [k for k in sorted(axes) if x.shape[k] != 1]
        if bad:
            raise _fail("squeeze", f"cannot select an axis to squeeze out which has size not equal to one "
                                   f"(axis {bad[0]} of shape {x.shape})")
    return _reshape_to(x, tuple(d for k, d in enumerate(x.shape) if k not in axes))


def atleast_1d(*arys):
    """Lazy ``numpy.atleast_1d``."""
    out = tuple(_reshape_to(t, (1,)) if t.ndim == 0 else t for t in map(_tensor, arys))
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    """Lazy ``numpy.atleast_2d``: 0-d -> (1, 1), (n,) -> (1, n)."""
    out = tuple(_reshape_to(t, (1,) * (2 - t.ndim) + t.shape) if t.ndim < 2 else t for t in map(_tensor, arys))
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    """Lazy ``numpy.atleast_3d``: 0-d -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    def up(t):
        if t.ndim == 0:
            return _reshape_to(t, (1, 1, 1))
        if t.ndim == 1:
            return _reshape_to(t, (1, t.shape[0], 1))
        return _reshape_to(t, t.shape + (1,)) if t.ndim == 2 else t
    out = tuple(up(_tensor(a)) for a in arys)
    return out[0] if len(out) == 1 else out


# ---------------------------------------------------------------- broadcasting

def broadcast_shapes(*args):
    """``numpy.broadcast_shapes``: a pure shape function, returns a tuple."""
    try:
        return _broadcast_shapes(*(as_shape(s) for s in args))
    except FgraphError as e:
        raise _fail("broadcast_shapes", str(e), type(e)) from None


def broadcast_to(array, shape, subok=False):
    """Lazy ``numpy.broadcast_to`` (a read-only view)."""
    x = _tensor(array)
    try:
        shape = as_shape(shape)
    except FgraphError as e:
        raise _fail("broadcast_to", str(e), type(e)) from None
    return _broadcast_to(x, shape)


class broadcast:
    """``numpy.broadcast`` of lazy arrays: the broadcast ``shape``, ``nd``,
    ``ndim``, ``size`` and ``numiter`` are known now; iterating (tuples of
    the elements) evaluates the arrays, as iterating one does."""

    def __init__(self, *args):
        if len(args) > 64:
            raise _fail("broadcast", f"Need at most 64 array objects, got {len(args)}")
        self._args = args
        shapes = [a.shape if isinstance(a, Tensor) else np.shape(a) for a in args]
        try:
            self.shape = _broadcast_shapes(*shapes)
        except ShapeError as e:
            raise _fail("broadcast", str(e)) from None
        self.nd = self.ndim = len(self.shape)
        self.size = size_of(self.shape)
        self.numiter = len(args)
        self._values = None

    def _numpy(self) -> np.broadcast:
        if self._values is None:
            self._values = np.broadcast(*(np.asarray(a) if isinstance(a, Tensor) else a for a in self._args))
        return self._values

    @property
    def index(self) -> int:
        return 0 if self._values is None else self._values.index

    @property
    def iters(self) -> tuple:
        return self._numpy().iters

    def reset(self) -> None:
        if self._values is not None:
            self._values.reset()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._numpy())


def broadcast_arrays(*args, subok=False):
    """Lazy ``numpy.broadcast_arrays``: a tuple of arrays of the common shape."""
    ts = [_tensor(a) for a in args]
    try:
        shape = _broadcast_shapes(*(t.shape for t in ts))
    except ShapeError as e:
        raise _fail("broadcast_arrays", str(e)) from None
    return tuple(_broadcast_to(t, shape) for t in ts)


# ---------------------------------------------------------------- joining

def _tensors(op: str, arrays) -> list:
    if isinstance(arrays, Tensor):
        # NumPy iterates an array's first axis; here that is a data-independent unstack
        return list(unstack(arrays)) if arrays.ndim else [arrays]
    try:
        items = list(arrays)
    except TypeError:
        raise _fail(op, f"expected a sequence of arrays, got {type(arrays).__name__}", DTypeError) from None
    return [_tensor(a) for a in items]


def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Lazy ``numpy.concatenate``; ``axis=None`` flattens first.  The dtype is
    NumPy's ``result_type`` of the arrays (or ``dtype``, checked by ``casting``)."""
    refuse_out("concatenate", out)
    ts = _tensors("concatenate", arrays)
    if not ts:
        raise _fail("concatenate", "need at least one array to concatenate")
    if axis is None:
        ts = [ravel(t) for t in ts]
        axis = 0
    elif ts[0].ndim == 0:
        raise _fail("concatenate", "zero-dimensional arrays cannot be concatenated")
    return _concat(ts, _axis("concatenate", axis, ts[0].ndim), dtype, casting)


concat = concatenate  # NumPy 2 and the Array API name


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Lazy ``numpy.stack``: join along a new axis (reshape + concatenate)."""
    refuse_out("stack", out)
    ts = _tensors("stack", arrays)
    if not ts:
        raise _fail("stack", "need at least one array to stack")
    if any(t.shape != ts[0].shape for t in ts):
        raise _fail("stack", "all input arrays must have the same shape, got "
                             + ", ".join(str(t.shape) for t in ts))
    shape = ts[0].shape
    ax = _axis("stack", axis, len(shape) + 1)
    params = (("shape", shape[:ax] + (1,) + shape[ax:]),)
    parts = [make_node("reshape", (t.node,), params) for t in ts]  # (no handles for the parts)
    if len(parts) == 1 and (dtype is None or np.dtype(dtype) == parts[0].dtype):
        return Tensor(parts[0], ts[0].stack)
    dt = None if dtype is None else np.dtype(dtype)
    return Tensor(make_node("concatenate", parts, (("axis", ax), ("dtype", dt), ("casting", casting))), ts[0].stack)


def unstack(x, /, *, axis=0):
    """Array API / NumPy ``unstack``: a tuple of the slices along ``axis``."""
    t = _tensor(x)
    if t.ndim == 0:
        raise _fail("unstack", "Input array must be at least 1-d.")
    ax = _axis("unstack", axis, t.ndim)
    shape = t.shape[:ax] + t.shape[ax + 1:]
    return tuple(_reshape_to(_slice(t, ax, i, i + 1), shape) for i in range(t.shape[ax]))


def hstack(tup, *, dtype=None, casting="same_kind"):
    """Lazy ``numpy.hstack``."""
    ts = [atleast_1d(t) for t in _tensors("hstack", tup)]
    if not ts:
        raise _fail("hstack", "need at least one array to concatenate")
    return _concat(ts, _axis("hstack", 0 if ts[0].ndim == 1 else 1, ts[0].ndim), dtype, casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """Lazy ``numpy.vstack``."""
    ts = [atleast_2d(t) for t in _tensors("vstack", tup)]
    if not ts:
        raise _fail("vstack", "need at least one array to concatenate")
    return _concat(ts, 0, dtype, casting)


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """``numpy.row_stack``: NumPy 2's deprecated alias of ``vstack`` (it warns as NumPy does)."""
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.", DeprecationWarning,
                  stacklevel=user_stacklevel())
    return vstack(tup, dtype=dtype, casting=casting)


def dstack(tup):
    """Lazy ``numpy.dstack``."""
    ts = [atleast_3d(t) for t in _tensors("dstack", tup)]
    if not ts:
        raise _fail("dstack", "need at least one array to concatenate")
    return _concat(ts, 2)


def column_stack(tup):
    """Lazy ``numpy.column_stack``: 1-d arrays become columns."""
    ts = [_reshape_to(t, (t.size, 1)) if t.ndim < 2 else t for t in _tensors("column_stack", tup)]
    if not ts:
        raise _fail("column_stack", "need at least one array to concatenate")
    return _concat(ts, 1)


# ---------------------------------------------------------------- splitting

def _is_sequence(x) -> bool:
    try:
        len(x)
        return True
    except TypeError:
        return False


def _split_points(op: str, n: int, indices_or_sections) -> list:
    if _is_sequence(indices_or_sections):
        points = [0] + [_index(op, i, "split index") for i in indices_or_sections] + [n]
    else:
        sections = _index(op, indices_or_sections, "number of sections")
        if sections <= 0:
            raise _fail(op, "number sections must be larger than 0.") from None
        each, extra = divmod(n, sections)
        points = [0]
        for k in range(sections):
            points.append(points[-1] + each + (k < extra))
    return points


def array_split(ary, indices_or_sections, axis=0):
    """Lazy ``numpy.array_split``: a list of slices; sections may be uneven."""
    return _split("array_split", ary, indices_or_sections, axis, even=False)


def split(ary, indices_or_sections, axis=0):
    """Lazy ``numpy.split``: like array_split, but sections must divide evenly."""
    return _split("split", ary, indices_or_sections, axis, even=True)


def _split(op, ary, indices_or_sections, axis, even):
    x = _tensor(ary)
    ax = _axis(op, axis, x.ndim)
    n = x.shape[ax]
    if even and not _is_sequence(indices_or_sections):
        sections = _index(op, indices_or_sections, "number of sections")
        if sections <= 0 or n % sections:
            raise _fail(op, f"array split does not result in an equal division ({n} into {sections})")
    points = _split_points(op, n, indices_or_sections)
    return [_slice(x, ax, a, b) for a, b in zip(points[:-1], points[1:])]


def hsplit(ary, indices_or_sections):
    """Lazy ``numpy.hsplit``: split along axis 1 (axis 0 for 1-d arrays)."""
    x = _tensor(ary)
    if x.ndim == 0:
        raise _fail("hsplit", "hsplit only works on arrays of 1 or more dimensions")
    return _split("hsplit", x, indices_or_sections, 1 if x.ndim > 1 else 0, even=True)


def vsplit(ary, indices_or_sections):
    """Lazy ``numpy.vsplit``: split along axis 0 of an array of 2 or more dimensions."""
    x = _tensor(ary)
    if x.ndim < 2:
        raise _fail("vsplit", "vsplit only works on arrays of 2 or more dimensions")
    return _split("vsplit", x, indices_or_sections, 0, even=True)


def dsplit(ary, indices_or_sections):
    """Lazy ``numpy.dsplit``: split along axis 2 of an array of 3 or more dimensions."""
    x = _tensor(ary)
    if x.ndim < 3:
        raise _fail("dsplit", "dsplit only works on arrays of 3 or more dimensions")
    return _split("dsplit", x, indices_or_sections, 2, even=True)


# ---------------------------------------------------------------- repetition

def _interleave_repeat(x: Tensor, reps: tuple, inner: bool) -> Tensor:
    """Repeat each axis k ``reps[k]`` times: whole blocks (``inner=False``,
    tile) or each element (``inner=True``, repeat), by broadcasting a length-1
    axis placed before/after it and merging the two."""
    small, big, out = [], [], []
    for d, r in zip(x.shape, reps):
        pair = ((d, 1), (d, r)) if inner else ((1, d), (r, d))
        small += pair[0]
        big += pair[1]
        out.append(d * r)
    y = _broadcast_to(_reshape_to(x, tuple(small)), tuple(big))
    return _reshape_to(y, tuple(out))


def tile(A, reps):
    """Lazy ``numpy.tile``."""
    x = _tensor(A)
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    tup = tuple(_index("tile", r, "reps entry") for r in tup)
    if len(tup) > x.ndim:
        x = _reshape_to(x, (1,) * (len(tup) - x.ndim) + x.shape)
    tup = (1,) * (x.ndim - len(tup)) + tup
    if any(r < 0 for r in tup) and (x.size > 0 or any(d * r < 0 for d, r in zip(x.shape, tup))):
        raise _fail("tile", f"negative repetitions {tup}")
    return _interleave_repeat(x, tuple(max(r, 0) for r in tup), inner=False)


def repeat(a, repeats, axis=None):
    """Lazy ``numpy.repeat``; ``repeats`` is an int or per-element counts.

    The counts decide the shape: a lazy array of counts is evaluated now
    (an evaluation point, as printing is) unless a placeholder or variable
    lies below it, where it raises (a traced count would give a
    data-dependent shape)."""
    if isinstance(repeats, Tensor):
        if not repeats.node.concrete:
            raise _fail("repeat", "repeats must be known while the graph is built (Python, NumPy or lazy data "
                                  "with no placeholder or variable below): traced counts would give a "
                                  "data-dependent shape", FgraphError)
        repeats = repeats.eval()
    x = _tensor(a)
    if axis is None or x.ndim == 0:  # NumPy treats a 0-d array as 1-d here
        x = ravel(x)
    if axis is None:
        ax = 0
    else:
        ax = _axis("repeat", axis, x.ndim)
    # as NumPy: an array's counts are cast safely, Python data converted as by int()
    if isinstance(repeats, np.ndarray) and not np.can_cast(repeats.dtype, np.intp, "safe"):
        raise _fail("repeat", f"cannot cast repeats from {repeats.dtype} to {np.dtype(np.intp)} according to "
                              "the rule 'safe'", DTypeError)
    try:
        r = np.asarray(repeats, dtype=np.intp)
    except (TypeError, ValueError) as e:
        raise _fail("repeat", f"repeats must be integers: {e}", DTypeError) from None
    if r.ndim > 1:
        raise _fail("repeat", f"repeats must be a scalar or 1-d, got shape {r.shape}")
    if r.size == 1:  # one count for all (a negative one is harmless on an empty axis, as in NumPy)
        count = int(r.reshape(-1)[0])
        if count < 0 and x.shape[ax]:
            raise _fail("repeat", f"negative dimensions are not allowed (repeats={count})")
        reps = tuple(max(count, 0) if k == ax else 1 for k in range(x.ndim))
        return _interleave_repeat(x, reps, inner=True)
    if (r < 0).any():
        raise _fail("repeat", "repeats may not contain negative values.")
    if r.shape[0] != x.shape[ax]:
        raise _fail("repeat", f"{r.shape[0]} repeats cannot be broadcast to axis {ax} of shape {x.shape}")
    return _node("repeat", x, (("repeats", tuple(int(k) for k in r)), ("axis", ax)))


# ---------------------------------------------------------------- flips and rolls

def flip(m, axis=None):
    """Lazy ``numpy.flip`` (a view)."""
    x = _tensor(m)
    axes = tuple(range(x.ndim)) if axis is None else tuple(sorted(_axis_tuple("flip", axis, x.ndim)))
    return _node("flip", x, (("axes", axes),)) if any(x.shape[a] > 1 for a in axes) else x


def fliplr(m):
    """Lazy ``numpy.fliplr``: reverse axis 1."""
    x = _tensor(m)
    if x.ndim < 2:
        raise _fail("fliplr", f"Input must be >= 2-d, got shape {x.shape}")
    return flip(x, 1)


def flipud(m):
    """Lazy ``numpy.flipud``: reverse axis 0."""
    x = _tensor(m)
    if x.ndim < 1:
        raise _fail("flipud", "Input must be >= 1-d.")
    return flip(x, 0)


_rolls: dict = {}


def roll(a, shift, axis=None):
    """Lazy ``numpy.roll`` (slices and a concatenate per rolled axis); shifts
    must be concrete integers."""
    if type(a) is Tensor and type(shift) is int and (axis is None or type(axis) is int):
        n = a.node
        return remembered(_rolls, (n.shape, n.dtype, n.weak, shift, axis), n, a.stack, a, _roll, a, shift, axis)
    return _roll(a, shift, axis)


def _roll(a, shift, axis):
    shift = python_value(shift, "roll", "shift", "it decides where the result's slices start")  # np.roll(v, s[i])
    x = _tensor(a)
    if type(shift) is int:  # the common case: one shift, along one axis or the flattened array
        if axis is None:
            flat = _reshape_to(x, (size_of(x.shape),))  # ravel(x)
            return _reshape_to(_roll_axis(flat, shift, 0), x.shape)
        if type(axis) is int:
            ax = _axis("roll", axis, x.ndim)
            if x.ndim == 0:
                raise _fail("roll", "cannot roll a 0-d array along an axis; use axis=None")
            return _roll_axis(x, shift, ax)
    if axis is None:
        return _reshape_to(roll(ravel(x), shift, 0), x.shape)
    axes = _axis_tuple("roll", axis, x.ndim, allow_duplicate=True)
    if x.ndim == 0:  # NumPy fails here too (its index product is empty)
        raise _fail("roll", "cannot roll a 0-d array along an axis; use axis=None")
    try:
        pairs = np.broadcast(np.asarray(shift), np.asarray(axes))
    except ValueError as e:
        raise _fail("roll", str(e)) from None
    if pairs.nd > 1:
        raise _fail("roll", "'shift' and 'axis' should be scalars or 1D sequences")
    offsets = dict.fromkeys(range(x.ndim), 0)
    for sh, ax in pairs:
        offsets[int(ax)] += int(sh)
    for ax, off in offsets.items():
        x = _roll_axis(x, off, ax)
    return x


def _roll_axis(x: Tensor, off: int, ax: int) -> Tensor:
    """x rolled by ``off`` along axis ``ax`` (normalised): two slices and a concatenate."""
    n = x.shape[ax]
    off %= n or 1
    if off:
        x = _concat([_slice(x, ax, n - off, n), _slice(x, ax, 0, n - off)], ax)
    return x


def rot90(m, k=1, axes=(0, 1)):
    """Lazy ``numpy.rot90``: rotate by 90 degrees k times in the plane of ``axes``."""
    x = _tensor(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise _fail("rot90", "len(axes) must be 2.")
    a0, a1 = _axis("rot90", axes[0], x.ndim), _axis("rot90", axes[1], x.ndim)
    if a0 == a1:
        raise _fail("rot90", "Axes must be different.")
    k = _index("rot90", k, "k") % 4
    if k == 0:
        return x
    if k == 2:
        return flip(x, (a0, a1))
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _transpose_to(flip(x, a1), tuple(perm))
    return flip(_transpose_to(x, tuple(perm)), a1)


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """Lazy ``numpy.diff``: n-th discrete difference (``!=`` for booleans)."""
    from .elementwise import not_equal, subtract

    x = _tensor(a)
    n = _index("diff", n, "n")
    if n < 0:
        raise _fail("diff", f"order must be non-negative but got {n}")
    if n == 0:
        return x
    if x.ndim == 0:
        raise _fail("diff", "diff requires input that is at least one dimensional")
    ax = _axis("diff", axis, x.ndim)
    parts = [x]
    for k, extra in enumerate((prepend, append)):
        if extra is not np._NoValue:
            e = _tensor(extra)
            if e.ndim == 0:  # a scalar is broadcast to one slice
                e = _broadcast_to(e, x.shape[:ax] + (1,) + x.shape[ax + 1:])
            parts.insert(len(parts) * k, e)
    if len(parts) > 1:
        x = concatenate(parts, axis=ax)
    fn = not_equal if x.dtype == np.bool_ else subtract
    for _ in range(n):
        x = fn(_slice(x, ax, 1, None), _slice(x, ax, None, -1))
    return x


# ---------------------------------------------------------------- padding

def _pairs(op: str, x, ndim: int, as_index: bool) -> list:
    """Broadcast a pad argument to ``ndim`` (before, after) pairs, as NumPy does."""
    x = np.array(x)
    if as_index:
        if x.dtype.kind != "i":  # NumPy refuses unsigned and bool widths too
            raise _fail(op, "`pad_width` must be of integral type.", DTypeError)
        x = x.astype(np.intp)
        if x.size == 0 or (x < 0).any():
            raise _fail(op, f"pad widths must be non-negative and not empty, got {x.tolist()}")
    if x.ndim < 3 and x.size == 1:
        v = x.reshape(-1)[0]
        pairs = [(v, v)] * ndim
    elif x.ndim < 3 and x.size == 2 and x.shape != (2, 1):
        f = x.reshape(-1)
        pairs = [(f[0], f[1])] * ndim
    else:
        try:
            pairs = np.broadcast_to(x, (ndim, 2)).tolist()
        except ValueError as e:
            raise _fail(op, str(e)) from None
    return pairs


#: modes whose padding copies elements of the array: each padded axis is
#: one ``take`` of the axis at computed indices (see ``_copy_indices``)
_COPY_MODES = ("edge", "wrap", "reflect", "symmetric")


def pad(array, pad_width, mode="constant", **kwargs):
    """Lazy ``numpy.pad``: ``mode='constant'`` (and ``constant_values``),
    ``'edge'``, ``'wrap'``, ``'reflect'`` and ``'symmetric'`` (even
    reflection, NumPy's default), the statistics ``'maximum'``,
    ``'minimum'``, ``'mean'`` and ``'median'`` (``stat_length``),
    ``'linear_ramp'`` (``end_values``) and ``'empty'`` (zeros here, where
    NumPy leaves the padding uninitialised).

    Padding runs axis by axis, as in NumPy, so corners take the value of the
    last axis.  Constant values are cast to the array's dtype as NumPy's
    assignment casts them; the other modes copy elements, whatever the width
    (widths beyond the axis repeat the pattern, as NumPy's do).
    """
    allowed = {"constant": {"constant_values"}, "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
               "linear_ramp": {"end_values"}, **{m: {"stat_length"} for m in _STAT_MODES}}
    if mode not in ("constant", "empty", "linear_ramp") and mode not in _COPY_MODES and mode not in _STAT_MODES:
        raise _fail("pad", f"mode {mode!r} is not supported lazily; modes: "
                           f"{['constant', 'empty', 'linear_ramp', *_COPY_MODES, *_STAT_MODES]}", FgraphError)
    unsupported = set(kwargs) - allowed.get(mode, set())
    if unsupported:
        raise _fail("pad", f"unsupported keyword arguments for mode {mode!r}: {unsupported}", FgraphError)
    if kwargs.get("reflect_type", "even") != "even":
        raise _fail("pad", "only reflect_type='even' is supported lazily", FgraphError)
    x = _tensor(array)
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * x.ndim
        for ax, w in pad_width.items():
            seq[_axis("pad", ax, x.ndim)] = (w, w) if isinstance(w, int) else tuple(w)
        pad_width = seq
    widths = _pairs("pad", pad_width, x.ndim, as_index=True)
    if mode == "empty":  # NumPy leaves the padding uninitialised: zeros here
        mode, kwargs = "constant", {}
    if (mode in _STAT_MODES or mode == "linear_ramp") and x.size == 0:
        for ax, (before, after) in enumerate(widths):
            if not x.shape[ax] and (before or after):
                raise _fail("pad", f"can't extend empty axis {ax} using modes other than 'constant' or 'empty'")
        mode, kwargs = "constant", {}  # NumPy returns its uninitialised padding: zeros here
    if mode in _STAT_MODES:
        return _pad_stat(x, widths, mode, kwargs.get("stat_length"))
    if mode == "linear_ramp":
        return _pad_ramp(x, widths, kwargs.get("end_values", 0))
    if mode in _COPY_MODES:
        from .indexing import take

        for ax, (before, after) in enumerate(widths):
            if before or after:
                if not x.shape[ax]:
                    raise _fail("pad", f"can't extend empty axis {ax} using modes other than 'constant' or 'empty'")
                x = take(x, _copy_indices(mode, x.shape[ax], int(before), int(after)), axis=ax)
        return x
    values = kwargs.get("constant_values", 0)
    if isinstance(values, Tensor):
        if values.ndim:
            raise _fail("pad", "a lazy constant_values must be a scalar (0-d)", FgraphError)
        fill = [(values.astype(x.dtype),) * 2] * x.ndim  # assignment casts unsafely
    else:
        fill = [tuple(_fill_value(x.dtype, v) for v in p) for p in _pairs("pad", values, x.ndim, False)]
    for ax, ((before, after), (vb, va)) in enumerate(zip(widths, fill)):
        parts = []
        for width, v in ((before, vb), (after, va)):
            if width:
                block = _broadcast_to(_tensor(v), x.shape[:ax] + (int(width),) + x.shape[ax + 1:])
                parts.append(block)
            else:
                parts.append(None)
        pieces = [p for p in (parts[0], x, parts[1]) if p is not None]
        if len(pieces) > 1:
            x = _concat(pieces, ax)
    return x


#: the modes whose padding is a statistic of the edge values (NumPy's stat_functions)
_STAT_MODES = {"maximum": "max", "minimum": "min", "mean": "mean", "median": "median"}


def _pad_stat(x, widths, mode: str, stat_length):
    """NumPy's statistic padding, axis by axis: each side is the statistic of
    up to ``stat_length`` values next to it along the axis (over the axes
    padded so far), rounded for an integer array, cast as assignment casts."""
    fnp = namespace()
    lengths = [(None, None)] * x.ndim if stat_length is None else _pairs("pad", stat_length, x.ndim, True)
    stat = getattr(fnp, _STAT_MODES[mode])
    for ax, ((before, after), (lb, la)) in enumerate(zip(widths, lengths)):
        before, after, n = int(before), int(after), x.shape[ax]
        lb = n if lb is None or n < lb else int(lb)
        la = n if la is None or n < la else int(la)
        if (lb == 0 or la == 0) and mode in ("maximum", "minimum"):
            raise _fail("pad", "stat_length of 0 yields no value for padding")  # (NumPy: every axis, any width)
        if not before and not after:
            continue

        def side(lo, hi):
            v = stat(_slice_axis(x, ax, lo, hi), axis=ax, keepdims=True)
            if x.dtype.kind in "iu":
                v = fnp.round(v)  # NumPy's _round_if_needed: half to even, then the cast
            return v.astype(x.dtype)

        left = side(0, lb)
        right = left if lb == la == n else side(n - la, n)
        shape = lambda w: x.shape[:ax] + (w,) + x.shape[ax + 1:]  # noqa: E731
        pieces = ([_broadcast_to(left, shape(before))] if before else []) + [x] + \
            ([_broadcast_to(right, shape(after))] if after else [])
        x = _concat(pieces, ax)
    return x


def _pad_ramp(x, widths, end_values):
    """NumPy's 'linear_ramp': from each end value to the edge, ``linspace``
    without its endpoint in the array's dtype, axis by axis."""
    fnp = namespace()
    ends = _pairs("pad", end_values, x.ndim, False)
    for ax, ((before, after), (eb, ea)) in enumerate(zip(widths, ends)):
        before, after, n = int(before), int(after), x.shape[ax]
        if not before and not after:
            continue
        pieces = []
        if before:
            edge = fnp.squeeze(_slice_axis(x, ax, 0, 1), axis=ax)
            pieces.append(fnp.linspace(eb, edge, num=before, endpoint=False, dtype=x.dtype, axis=ax))
        pieces.append(x)
        if after:
            edge = fnp.squeeze(_slice_axis(x, ax, n - 1, n), axis=ax)
            ramp = fnp.linspace(ea, edge, num=after, endpoint=False, dtype=x.dtype, axis=ax)
            pieces.append(flip(ramp, ax))
        x = _concat(pieces, ax)
    return x


def _slice_axis(x, ax: int, lo: int, hi: int):
    return x[(slice(None),) * ax + (slice(lo, hi),)]


def _copy_indices(mode: str, n: int, before: int, after: int) -> np.ndarray:
    """Which element of an axis of ``n`` each position of its padded form
    copies: the axis extended periodically (period n for 'wrap', 2n for
    'symmetric', 2n - 2 for 'reflect', which does not repeat the edge), or
    clamped ('edge').  Checked against numpy.pad for widths beyond n too."""
    i = np.arange(-before, n + after)
    if mode == "edge":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return i % n
    if mode == "reflect" and n == 1:
        return np.zeros_like(i)
    period = 2 * n if mode == "symmetric" else 2 * n - 2
    j = i % period
    return np.where(j >= n, period - 1 - j if mode == "symmetric" else period - j, j)


def _fill_value(dtype: np.dtype, value) -> np.ndarray:
    """``value`` as NumPy's ``padded[region] = value`` stores it in ``dtype``."""
    cell = np.zeros(1, dtype)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cell[...] = value
    except (TypeError, ValueError, OverflowError) as e:
        raise _fail("pad", f"constant value {value!r} does not fit {dtype}: {e}", DTypeError) from None
    return cell.reshape(())

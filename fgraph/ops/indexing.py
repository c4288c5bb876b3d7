"""Indexing ops: ``a[key]`` (basic and advanced), take, take_along_axis,
select, choose, searchsorted, unravel_index, ravel_multi_index.

Every result has a static shape.  ``a[key]`` becomes at most two nodes:

- ``slice`` (a view): one normalised ``(start, stop, step)`` per sliced
  axis, an integer per indexed axis and ``None`` per new axis;
- ``advanced_index``: integer index arrays (constants or lazy) on some axes
  of the sliced result, placed exactly where NumPy places them.

Boolean masks, ``nonzero`` and friends give data-dependent shapes: outside
tracing what decides the size is evaluated (an evaluation point) and the
result is a lazy gather of constant indices; under tracing they raise, or
take JAX's ``size=``.  The functions that write into their
argument (``put``, ``copyto``, ...) live in ``writes``.
"""
from __future__ import annotations

import operator as _operator

import numpy as np

from .. import eager as _eager
from ..errors import DTypeError, FgraphError, IndexingError, ShapeError, user_location
from ..tensor import Tensor, apply, constant_node, lift, stack_of
from ..opdef import no_gradient
from ..shape import broadcast_shapes, broadcasts_to, defop, normalize_axis, probe, result_type, size_of
from ..symbol import Node, error_at, make_node, new_node, refuse_out
from . import indexing_kernels as kernels
from .batching import Ctx, Mixes, _along_axis as along_axis, _set, refuse_batching
from .building import evaluated, namespace, remembered
from .indexing_kernels import slice_key  # noqa: F401  (the Python key of a slice op's key: engines use it)
from .movement import embed

__all__ = ["take", "take_along_axis", "select", "choose", "searchsorted", "unravel_index", "ravel_multi_index",
           "nonzero", "argwhere", "flatnonzero", "extract", "compress"]

_INTP = np.dtype(np.intp)


_MASK_HINT = ("has a data-dependent shape (one element per True), which a static-shape graph cannot hold; "
              "use fgraph.numpy.where(mask, a, b) to select element-wise instead, or index with "
              "fgraph.numpy.nonzero(mask, size=N)")


def _const_value(node):
    """The value of a constant or literal node, else None (lazy)."""
    if node.op == "constant":
        return node.params[0][1].array
    if node.op == "literal":
        return node.params[0][1].value
    return None


def _check_bounds(values, n: int, axis, op: str):
    """Raise IndexingError (naming the op and the user's line) if an index is outside [-n, n)."""
    if type(values) is int and -n <= values < n:
        return  # the common case, without NumPy
    values = np.asarray(values)
    if values.size == 0 or values.dtype.kind not in "iu":
        return
    bad = (values >= n) | (values < -n)
    if bad.any():
        k = values.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]]
        where = "" if axis is None else f" for axis {axis}"
        raise error_at(IndexingError, op, f"index {k} is out of bounds{where} with size {n}")


# ---------------------------------------------------------------- basic indexing

def _slice_rule(inputs, key):
    """Normalised basic key: (start, stop, step) | int | None per entry."""
    (x,) = inputs
    shape, axis = [], 0
    for e in key:
        if e is None:
            shape.append(1)
            continue
        if axis >= x.ndim:
            raise IndexingError(f"too many indices for array: array is {x.ndim}-dimensional")
        n = x.shape[axis]
        if type(e) is tuple:
            length = len(range(*e))
            if length and not (0 <= e[0] < n and 0 <= e[0] + (length - 1) * e[2] < n):
                raise IndexingError(f"slice {e} is not normalised for axis {axis} with size {n}")
            shape.append(length)
        elif not 0 <= e < n:
            raise IndexingError(f"index {e} is out of bounds for axis {axis} with size {n}")
        axis += 1
    if axis != x.ndim:
        raise IndexingError(f"key has {axis} entries for an array of dimension {x.ndim}")
    return tuple(shape), x.dtype


def _norm_slice(s: slice, n: int) -> tuple:
    """A canonical (start, stop, step): equal selections give equal triples."""
    start, stop, step = s.indices(n)
    length = len(range(start, stop, step))
    if length == 0:
        return (0, 0, 1)
    if length == 1:
        return (start, start + 1, 1)
    last = start + (length - 1) * step
    return (start, last + (1 if step > 0 else -1), step)


# ---------------------------------------------------------------- advanced indexing

def _advanced_rule(inputs, key, front):
    """key per axis: None (whole axis), an int, or "a" (the next index input).
    The broadcast index dims replace the indexed axes in place, or go first
    when ``front`` (NumPy: the advanced indices were separated in the key)."""
    x, *idx = inputs
    if len(key) != x.ndim:
        raise IndexingError(f"key has {len(key)} entries for an array of dimension {x.ndim}")
    shapes, positions, it = [], [], iter(idx)
    for p, e in enumerate(key):
        if e is None:
            continue
        positions.append(p)
        if e == "a":
            i = next(it)
            if i.dtype.kind == "b":
                raise ShapeError(f"a boolean mask index {_MASK_HINT}")
            if i.dtype.kind not in "iu":
                raise IndexingError(f"arrays used as indices must be of integer type, got {i.dtype}")
            shapes.append(i.shape)
        elif not 0 <= e < x.shape[p]:
            raise IndexingError(f"index {e} is out of bounds for axis {p} with size {x.shape[p]}")
        else:
            shapes.append(())
    try:
        b = broadcast_shapes(*shapes)
    except ShapeError:
        raise IndexingError("shape mismatch: indexing arrays could not be broadcast together with shapes "
                            + " ".join(str(s) for s in shapes)) from None
    first, last = positions[0], positions[-1]
    if not front and positions == list(range(first, last + 1)):
        return x.shape[:first] + b + x.shape[last + 1:], x.dtype
    return b + tuple(d for d, e in zip(x.shape, key) if e is None), x.dtype


def _parse_entry(k, st):
    """One entry of a user's key as (kind, value): kind is none, ellipsis,
    slice, int, bool0 (a 0-d boolean) or array (a node)."""
    if type(k) is int:
        return ("int", k)
    if k is None:
        return ("none", None)
    if k is Ellipsis:
        return ("ellipsis", None)
    if isinstance(k, slice):
        s = slice(_slice_bound(k.start), _slice_bound(k.stop), _slice_bound(k.step))
        if s.step == 0:
            raise error_at(ShapeError, "getitem", "slice step cannot be zero")
        return ("slice", s)
    if isinstance(k, (bool, np.bool_)):
        return ("bool0", bool(k))
    if isinstance(k, Tensor):
        return _array_entry(k.node, st)
    if isinstance(k, np.generic) and k.dtype.kind in "iu":
        return ("int", int(k))
    if isinstance(k, (np.ndarray, list, tuple)):
        if isinstance(k, (list, tuple)) and _has_tensor(k):
            return _array_entry(lift(k, st), st)
        try:
            arr = np.asarray(k)
        except (ValueError, TypeError) as e:
            raise error_at(IndexingError, "getitem", f"cannot use {k!r} as an index: {e}") from None
        if not isinstance(k, np.ndarray) and arr.size == 0:
            arr = arr.astype(_INTP)  # NumPy reads an empty list as an integer index
        if arr.ndim == 0 and arr.dtype.kind in "iu":
            return ("int", int(arr))
        if arr.ndim == 0 and arr.dtype.kind == "b":
            return ("bool0", bool(arr))
        if arr.dtype.kind == "b":
            return ("mask", arr)
        return _array_entry(constant_node(arr), st)
    if not isinstance(k, (float, complex, str, np.generic)) and hasattr(type(k), "__index__"):
        return ("int", _operator.index(k))
    raise error_at(IndexingError, "getitem", "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                                             f"and integer arrays are valid indices, got {type(k).__name__}")


def _slice_bound(b):
    if b is None or type(b) is int:
        return b
    if isinstance(b, Tensor):  # best[w:] with w from a lazy array: known now outside tracing, as int(w) is
        b = evaluated(b, "getitem", "a slice bound", "it decides the result's shape; use take() or an index array")
    try:
        return _operator.index(b)
    except TypeError:
        raise error_at(DTypeError, "getitem", "slice indices must be integers or None or have an __index__ "
                                              f"method, got {type(b).__name__}") from None  # NumPy's TypeError


def _has_tensor(seq) -> bool:
    return any(isinstance(e, Tensor) or isinstance(e, (list, tuple)) and _has_tensor(e) for e in seq)


def _array_entry(node, st):
    kind = node.dtype.kind
    if kind == "b":  # a mask: its value decides the shape, so it is evaluated now (or refused under tracing)
        what = "a lazy 0-d boolean index" if node.ndim == 0 else "a boolean mask index"
        value = concrete_value(node, st, "getitem", f"{what} selects one element per True",
                               _MASK_HINT.split("; ", 1)[1])
        return ("bool0", bool(value)) if node.ndim == 0 else ("mask", value)
    if kind not in "iu":
        raise error_at(IndexingError, "getitem", f"arrays used as indices must be of integer type, got {node.dtype}")
    return ("array", node)


_CONSUMING = frozenset(("int", "slice", "array"))  # entries that use up an axis
_ADVANCED = frozenset(("array", "bool0"))          # entries that make the key advanced
_FULL = slice(None)


# ``a[1:-1, 1:-1]``, ``a[i]``: a lazy array indexed by Python ints and slices
# of Python ints.  The nodes the general path made for that array's shape,
# dtype and key (bounds checked, slices normalised) are remembered, and the
# next such index makes them at once (``compose.remembered``).

_basic: dict = {}


def _basic_key(key):
    """A hashable form of a key of ints and int-or-None slices, or None."""
    out = []
    for e in key if type(key) is tuple else (key,):
        t = type(e)
        if t is int:
            out.append(e)
        elif t is slice:
            a, b, c = e.start, e.stop, e.step
            if (a is None or type(a) is int) and (b is None or type(b) is int) and (c is None or type(c) is int):
                out.append((a, b, c))
            else:
                return None
        else:
            return None
    return tuple(out)


def getitem(x, key):
    """Lazy ``x[key]`` with NumPy's rules (basic, advanced and mixed keys).

    Integer and slice keys give one ``slice`` node (a view); integer arrays
    (NumPy arrays, lists, lazy integer tensors) add an ``advanced_index``
    node.  Boolean masks raise: their shape depends on the data.
    """
    if type(x) is not Tensor:
        return _getitem(x, key)
    k = _basic_key(key)
    if k is None:
        return _getitem(x, key)
    node = x.node
    shape = node.shape
    if (k and len(k) == len(shape) and type(k[-1]) is int
            and all(type(e) is int and -n <= e < n for e, n in zip(k, shape))):
        # one element (x[i, j], a new (i, j) each time in a loop over cells): its slice node made at once,
        # not a recipe remembered per key (every key new: 13 -> 5 us)
        k = tuple([e + n if e < 0 else e for e, n in zip(k, shape)])
        return _eager.made_now(new_node(Node, "slice", (("key", k),), (node,), (), node.dtype, False, None,
                                        user_location(2)), x.stack)
    return remembered(_basic, (node.shape, node.dtype, node.weak, k), node, x.stack, x, _getitem, x, key)


def _getitem(x, key):
    st = stack_of((x,))
    node = lift(x, st)
    entries = [_parse_entry(k, st) for k in (key if type(key) is tuple else (key,))]
    if any(kind == "mask" for kind, _ in entries):
        flat = _flat_mask(node, entries)
        if flat is not None:
            return Tensor(flat, st)
        entries = _expand_masks(entries)
    ndim = node.ndim
    consumed = n_ellipsis = 0
    advanced = False
    for kind, _ in entries:
        if kind in _CONSUMING:
            consumed += 1
        elif kind == "ellipsis":
            n_ellipsis += 1
        advanced = advanced or kind in _ADVANCED
    if n_ellipsis > 1:
        raise error_at(IndexingError, "getitem", "an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise error_at(IndexingError, "getitem", f"too many indices for array: array is {ndim}-dimensional, "
                                                 f"but {consumed} were indexed")
    front = advanced and _separated(entries)
    fill = [("slice", _FULL)] * (ndim - consumed)
    if n_ellipsis:
        i = next(i for i, (kind, _) in enumerate(entries) if kind == "ellipsis")
        entries[i:i + 1] = fill
    else:
        entries += fill

    basic, adv, idx = [], [], []
    axis = 0
    for kind, v in entries:
        if kind in ("none", "bool0"):
            basic.append(None)
            if kind == "bool0":  # NumPy: a new length-1 axis indexed by [0] (True) or [] (False)
                adv.append("a")
                idx.append(constant_node(np.zeros(int(v), _INTP)))
            else:
                adv.append(None)
            continue
        n = node.shape[axis]
        if kind == "slice":
            basic.append(_norm_slice(v, n))
            adv.append(None)
        elif kind == "int":
            if not -n <= v < n:
                raise error_at(IndexingError, "getitem", f"index {v} is out of bounds for axis {axis} with size {n}")
            basic.append((0, n, 1) if advanced else v % n)
            adv.append(v % n)
        else:
            if type(v) is tuple:  # one axis of a boolean mask: its length must be the axis's
                v, m = v
                if m != n:
                    raise error_at(IndexingError, "getitem", f"boolean index did not match indexed array along "
                                                             f"axis {axis}; size of axis is {n} but size of "
                                                             f"corresponding boolean axis is {m}")
            basic.append((0, n, 1))
            adv.append("a")
            idx.append(v)
        axis += 1

    out = node
    if len(basic) != ndim or any(e != (0, d, 1) for e, d in zip(basic, node.shape)):  # not the identity
        out = make_node("slice", [node], (("key", tuple(basic)),))
    if advanced:
        _check_constant_indices(out.shape, adv, idx)
        out = make_node("advanced_index", [out] + idx, (("key", tuple(adv)), ("front", front)))
    if isinstance(x, Tensor) and out is x.node:
        return x  # x[...] and x[:] are x: arrays are immutable
    return Tensor(out, st)


def _flat_mask(node, entries):
    """``x[mask]`` for a mask of two or more dimensions leading ``x``'s: the
    gather ``x.reshape(-1, *rest)[flatnonzero(mask)]``, equal to NumPy's
    result.  One flat index array is found and read many times faster than
    the one array per axis of ``nonzero`` (a 131072x2 mask: 35 us against
    680 us to find, 2.5 us against 8.6 us to gather).  None for other keys."""
    if len(entries) != 1:
        return None
    v = entries[0][1]
    if v.ndim < 2 or v.shape != node.shape[:v.ndim]:
        return None  # the general path reads it (and names a mismatch)
    rest = node.shape[v.ndim:]
    rows = make_node("reshape", [node], (("shape", (v.size,) + rest),))
    idx = constant_node(_frozen(np.flatnonzero(v)))
    return make_node("advanced_index", [rows, idx], (("key", ("a",) + (None,) * len(rest)), ("front", False)))


def _frozen(index: np.ndarray) -> np.ndarray:
    """An index array made here, read-only down to its base (nonzero's are
    views of one array), so a constant takes it without a copy."""
    b = index
    while isinstance(b, np.ndarray):
        b.flags.writeable = False
        b = b.base
    return index


def _expand_masks(entries):
    """NumPy's reading of a boolean mask of k dimensions: the k integer index
    arrays of ``nonzero(mask)``, one per axis it covers, each remembering
    that axis's length in the mask (checked against the array's)."""
    out = []
    for kind, v in entries:
        if kind == "mask":
            out.extend(("array", (constant_node(_frozen(i)), m)) for i, m in zip(np.nonzero(v), v.shape))
        else:
            out.append((kind, v))
    return out


def _separated(entries) -> bool:
    """NumPy's rule: advanced indices (arrays, and integers among them) that a
    slice, None or Ellipsis separates (even an Ellipsis standing for no axis)
    put their broadcast dims first."""
    adv = [i for i, (kind, _) in enumerate(entries) if kind in ("int", "array", "bool0")]
    return any(kind in ("slice", "none", "ellipsis") for kind, _ in entries[adv[0]:adv[-1]])


def _check_constant_indices(shape, adv, idx):
    """NumPy's IndexError for constant index arrays, raised when the node is made.

    NumPy checks array indices only when the broadcast index is non-empty.
    """
    shapes, pairs, it = [], [], iter(idx)
    for p, e in enumerate(adv):
        if e == "a":
            node = next(it)
            shapes.append(node.shape)
            value = _const_value(node)
            if value is not None:
                pairs.append((value, p))
        elif e is not None:
            shapes.append(())
    try:
        b = broadcast_shapes(*shapes)
    except ShapeError:
        return  # the rule reports it
    if size_of(b):
        for value, p in pairs:
            _check_bounds(value, shape[p], p, "getitem")


# ---------------------------------------------------------------- take

def _take_rule(inputs, axis, mode):
    a, ind = inputs
    np.take(probe(a), probe(ind), axis=axis, mode=mode)  # NumPy's dtype / mode / axis checks
    if axis is None:
        return ind.shape, a.dtype
    ax = normalize_axis(axis, a.ndim)
    return a.shape[:ax] + ind.shape + a.shape[ax + 1:], a.dtype


def _axis_param(axis, ndim):
    """axis as a non-negative int when valid (so equal calls give equal params);
    an invalid axis is kept for the rule to report."""
    if axis is None:
        return None
    axis = _operator.index(axis)
    return axis % ndim if ndim and -ndim <= axis < ndim else axis


def take(a, indices, axis=None, out=None, mode="raise"):
    """Lazy ``numpy.take``; a constant index out of range raises when the node
    is made, a lazy one when the graph runs (mode='raise')."""
    refuse_out("take", out)
    st = stack_of((a, indices))
    an, ind = lift(a, st), lift(indices, st)
    ax = _axis_param(axis, an.ndim)
    node = make_node("take", [an, ind], (("axis", ax), ("mode", mode)))
    value = _const_value(ind)
    if value is not None and mode == "raise" and node.size:
        _check_bounds(value, an.size if ax is None else an.shape[ax], ax, "take")
    return Tensor(node, st)


def _take_along_rule(inputs, axis):
    arr, ind = inputs
    np.take_along_axis(probe(arr), probe(ind), axis=axis)  # ndim and dtype checks
    if axis is None:
        return ind.shape, arr.dtype
    ax = normalize_axis(axis, arr.ndim)
    other = broadcast_shapes(arr.shape[:ax] + (1,) + arr.shape[ax + 1:], ind.shape[:ax] + (1,) + ind.shape[ax + 1:])
    return other[:ax] + (ind.shape[ax],) + other[ax + 1:], arr.dtype


def take_along_axis(arr, indices, axis=-1):
    """Lazy ``numpy.take_along_axis`` (out-of-range lazy indices raise at run time)."""
    st = stack_of((arr, indices))
    an, ind = lift(arr, st), lift(indices, st)
    ax = _axis_param(axis, an.ndim)
    node = make_node("take_along_axis", [an, ind], (("axis", ax),))
    value = _const_value(ind)
    if value is not None and node.size:
        _check_bounds(value, an.size if ax is None else an.shape[ax], ax, "take_along_axis")
    return Tensor(node, st)


# ---------------------------------------------------------------- select, choose

def _select_rule(inputs, n):
    conds, choices = inputs[:n], inputs[n:]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise DTypeError(f"invalid entry {i} in condlist: should be boolean ndarray, got {c.dtype}")
    try:
        dtype = result_type(*choices)
    except DTypeError as e:
        raise DTypeError(f"Choicelist and default value do not have a common dtype: {e}") from None
    return broadcast_shapes(*(c.shape for c in inputs)), dtype


def select(condlist, choicelist, default=0):
    """Lazy ``numpy.select``: the first true condition picks the choice."""
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise error_at(ShapeError, "select", "list of cases must be same length as list of conditions")
    if not condlist:
        raise error_at(ShapeError, "select", "select with an empty condition list is not possible")
    args = condlist + choicelist + [default]
    return apply("select", args, (("n", len(condlist)),))


def _choose_rule(inputs, mode):
    a, *choices = inputs
    out = np.choose(probe(a), [probe(c) for c in choices], mode=mode)  # dtype and checks
    return broadcast_shapes(*(i.shape for i in inputs)), out.dtype


def choose(a, choices, out=None, mode="raise"):
    """Lazy ``numpy.choose``; ``choices`` is a sequence or an array (its first axis)."""
    refuse_out("choose", out)
    if isinstance(choices, (Tensor, np.ndarray)):
        if choices.ndim == 0:
            raise error_at(ShapeError, "choose", "choices must be a sequence or an array of at least one dimension")
        choices = [choices[i] for i in range(choices.shape[0])]
    choices = list(choices)
    if not choices:
        raise error_at(ShapeError, "choose", "choices must not be empty")
    return apply("choose", [a] + choices, (("mode", mode),))


# ---------------------------------------------------------------- searchsorted

def _searchsorted_rule(inputs, side):
    a, v, *sorter = inputs
    if a.ndim != 1:
        raise ShapeError(f"the sorted array must be 1-D, got shape {a.shape}")
    if sorter:
        (s,) = sorter
        if s.shape != a.shape:
            raise ShapeError(f"sorter.size must equal a.size: got sorter shape {s.shape} for a shape {a.shape}")
        np.searchsorted(probe(a), probe(v), side=side, sorter=probe(s))
    else:
        np.searchsorted(probe(a), probe(v), side=side)
    return v.shape, _INTP


def searchsorted(a, v, side="left", sorter=None):
    """Lazy ``numpy.searchsorted``: insertion points of ``v`` into sorted 1-D ``a``."""
    args = (a, v) if sorter is None else (a, v, sorter)
    return apply("searchsorted", args, (("side", side),))


# ---------------------------------------------------------------- unravel / ravel

def _unravel_rule(inputs, shape, order, output):
    (i,) = inputs
    np.unravel_index(np.zeros((), i.dtype), tuple(max(d, 1) for d in shape), order=order)
    return i.shape, _INTP



def unravel_index(indices, shape, order="C"):
    """Lazy ``numpy.unravel_index``: a tuple of index arrays, one per dimension."""
    from ..shape import as_shape

    shp = as_shape(shape)
    st = stack_of((indices,))
    ind = lift(indices, st)
    return tuple(Tensor(make_node("unravel_index", [ind], (("shape", shp), ("order", order), ("output", k))), st)
                 for k in range(len(shp)))


def _ravel_multi_rule(inputs, dims, mode, order):
    if len(inputs) != len(dims):
        raise ShapeError(f"parameter multi_index must be a sequence of length {len(dims)}")
    np.ravel_multi_index(tuple(probe(i) for i in inputs), tuple(max(d, 1) for d in dims), mode=mode, order=order)
    return broadcast_shapes(*(i.shape for i in inputs)), _INTP


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Lazy ``numpy.ravel_multi_index``: flat indices from a tuple of index arrays."""
    from ..shape import as_shape

    if isinstance(multi_index, (Tensor, np.ndarray)):
        multi_index = [multi_index[i] for i in range(multi_index.shape[0])] if multi_index.ndim else [multi_index]
    mode = tuple(mode) if isinstance(mode, (list, tuple)) else mode
    return apply("ravel_multi_index", list(multi_index), (("dims", as_shape(dims)), ("mode", mode),
                                                          ("order", order)))


# ---------------------------------------------------------------- data-dependent sizes

#: what to do instead when a size depends on traced data
SIZE_HINT = "pass size=N (and fill_value=) for a static-size result padded as JAX pads it"


def _traced_leaf(node):
    """The placeholder or variable below a node that is not concrete: one
    path down, following inputs that are not concrete either."""
    while node.inputs:
        node = next(i for i in node.inputs if not i.concrete)
    return node


def concrete_value(node, st, op: str, why: str, instead: str = SIZE_HINT, what: str = "shape") -> np.ndarray:
    """The value of ``node`` where it decides a result's shape (or dtype).

    Outside tracing (``node.concrete``: no placeholder or variable below) it
    is evaluated now, an evaluation point as printing is.  Under tracing it
    raises a ShapeError naming ``op``, the placeholder or variable it depends
    on and the user's line; ``why`` says what depends on the data and
    ``instead`` what to do."""
    value = _const_value(node)
    if value is not None:
        return np.asarray(value)
    if not node.concrete:
        leaf = _traced_leaf(node)
        raise error_at(ShapeError, op, f"{why}: a data-dependent {what}. fgraph evaluates the data there outside "
                                       f"tracing, but here it depends on the {leaf.op} {leaf.name!r}, whose value "
                                       f"is not known while the graph is built (fgraph.jit, a graph over "
                                       f"placeholders or variables); {instead}")
    value = st.evaluate([node])[0]
    return value if isinstance(value, np.ndarray) else np.asarray(value.get() if hasattr(value, "get") else value)


def static_size(size, op: str) -> int:
    """``size=``: a Python int (the static length of a result), not negative."""
    if isinstance(size, Tensor):
        raise error_at(FgraphError, op, "size must be a Python int (the result's static length), not a lazy array")
    try:
        size = _operator.index(size)
    except TypeError:
        raise error_at(FgraphError, op, f"size must be a Python int, got {type(size).__name__}") from None
    if size < 0:
        raise error_at(ShapeError, op, f"size must not be negative, got {size}")
    return size


def _nonzero_why(op):
    return f"numpy.{op} returns one index per non-zero element"


def _nonzero(a, size, fill_value, op: str):
    st = stack_of((a,))
    node = lift(a, st)
    if node.ndim == 0:
        raise error_at(ShapeError, op, "Calling nonzero on 0d arrays is not allowed. Use "
                                       "np.atleast_1d(scalar).nonzero() instead.")
    if size is None:
        if fill_value is not None:
            raise error_at(FgraphError, op, "fill_value is used only with size=")
        value = concrete_value(node, st, op, _nonzero_why(op), f"{SIZE_HINT}, or use fgraph.numpy.where(mask, a, b)"
                                                              " to select element-wise")
        return tuple(Tensor(constant_node(_frozen(i)), st) for i in np.nonzero(value))
    return _sized_nonzero(node, st, static_size(size, op), fill_value, op)


def _fills(fill_value, ndim: int, op: str, dtype=_INTP):
    """One 0-d lazy fill per dimension from JAX's ``fill_value`` (a scalar
    or a tuple, one per dimension; default 0)."""
    fnp = namespace()
    if fill_value is None:
        fill_value = 0
    fills = tuple(fill_value) if isinstance(fill_value, (tuple, list)) else (fill_value,) * ndim
    if len(fills) != ndim:
        raise error_at(ShapeError, op, f"fill_value must be a scalar or a tuple of length {ndim} (one per "
                                       f"dimension), got length {len(fills)}")
    out = []
    for f in fills:
        f = fnp.asarray(f)
        if f.ndim:
            raise error_at(ShapeError, op, f"fill_value must hold scalars, got shape {f.shape}")
        out.append(f.astype(dtype))
    return out


def _sized_nonzero(node, st, size: int, fill_value, op: str):
    """JAX's ``nonzero(a, size=N, fill_value=...)``: the first N indices of
    non-zero elements (C order), padded with ``fill_value`` (default 0) when
    there are fewer.  Lazy: a stable argsort of ``a == 0`` puts the non-zero
    positions first, in order."""
    fnp = namespace()
    fills = _fills(fill_value, node.ndim, op)
    n = size_of(node.shape)
    if n == 0:
        return tuple(fnp.broadcast_to(f, (size,)) + fnp.zeros(size, _INTP) for f in fills)
    flat = fnp.ravel(Tensor(node, st)) != 0
    order = fnp.argsort(~flat, kind="stable")
    order = order[:size] if size <= n else fnp.concatenate([order, fnp.zeros(size - n, _INTP)])
    valid = fnp.arange(size) < fnp.count_nonzero(flat)
    coords = fnp.unravel_index(order, node.shape) if node.ndim > 1 else (order,)
    return tuple(fnp.where(valid, c, f) for c, f in zip(coords, fills))


def nonzero(a, *, size=None, fill_value=None):
    """``numpy.nonzero``: outside tracing ``a`` is evaluated (an evaluation
    point) and the indices are constants; under tracing it raises unless
    ``size`` is given (JAX's form: the first ``size`` indices, padded with
    ``fill_value``, a scalar or one per dimension, default 0)."""
    return _nonzero(a, size, fill_value, "nonzero")


def flatnonzero(a, *, size=None, fill_value=None):
    """``numpy.flatnonzero``: ``nonzero(ravel(a))[0]`` (``size`` as in :func:`nonzero`)."""
    st = stack_of((a,))
    node = lift(a, st)
    if size is None and fill_value is None:
        value = concrete_value(node, st, "flatnonzero", _nonzero_why("flatnonzero"), SIZE_HINT)
        return Tensor(constant_node(_frozen(np.flatnonzero(value))), st)
    return _nonzero(namespace().ravel(Tensor(node, st)), size, fill_value, "flatnonzero")[0]


def argwhere(a, *, size=None, fill_value=None):
    """``numpy.argwhere``: one row of indices per non-zero element (``size``
    as in :func:`nonzero`; a 0-d ``a`` gives rows of no columns)."""
    st = stack_of((a,))
    node = lift(a, st)
    if size is None:
        if fill_value is not None:
            raise error_at(FgraphError, "argwhere", "fill_value is used only with size=")
        value = concrete_value(node, st, "argwhere", _nonzero_why("argwhere"), SIZE_HINT)
        return Tensor(constant_node(np.argwhere(value)), st)
    fnp, size = namespace(), static_size(size, "argwhere")
    if node.ndim == 0:
        return fnp.zeros((size, 0), _INTP)
    return fnp.stack(_sized_nonzero(node, st, size, fill_value, "argwhere"), axis=1)


def _selected(condition, length: int, axis: int, size, op: str, check: bool):
    """The positions ``compress``/``extract`` take along ``axis`` (of
    ``length``): those of the true entries of 1-D ``condition`` (evaluated
    now; one past the end is NumPy's IndexError when ``check``), or JAX's
    sized form (the first ``size`` within ``length``, padded with 0) with
    its validity mask."""
    st = stack_of((condition,))
    cond = lift(condition, st)
    if size is None:
        value = concrete_value(cond, st, op, f"numpy.{op} keeps one element per true condition", SIZE_HINT)
        idx = np.flatnonzero(value)
        if check and idx.size and idx[-1] >= length:
            raise error_at(IndexingError, op, f"index {idx[-1]} is out of bounds for axis {axis} with size {length}")
        return Tensor(constant_node(idx), st), None
    size, fnp = static_size(size, op), namespace()
    c = Tensor(cond, st)
    if c.shape[0] > length:  # (NumPy raises for a true entry past the end; a traced one cannot be checked)
        c = c[:length]
    (idx,) = _sized_nonzero(c.node, st, size, None, op)
    return idx, fnp.arange(size) < fnp.count_nonzero(c)


def _padded(values, valid, fill_value, axis: int):
    """``values`` with the entries past ``valid`` along ``axis`` set to ``fill_value``."""
    fnp = namespace()
    if valid is None:
        return values
    shape = [1] * values.ndim
    shape[axis] = values.shape[axis]
    fill = fnp.asarray(fill_value)
    return fnp.where(fnp.reshape(valid, tuple(shape)), values, fill.astype(values.dtype))


def compress(condition, a, axis=None, out=None, *, size=None, fill_value=0):
    """``numpy.compress``: the slices of ``a`` along ``axis`` (flattened
    when None) where ``condition`` is true.  Only ``condition`` is evaluated
    (an evaluation point); the result is a lazy gather of ``a``.  Under
    tracing, JAX's ``size=`` keeps the first ``size`` slices, padded with
    ``fill_value`` (a condition longer than the axis is cut to it)."""
    refuse_out("compress", out)
    return _compress(condition, a, axis, size, fill_value, "compress")


def _compress(condition, a, axis, size, fill_value, op: str):
    st = stack_of((condition, a))
    if lift(condition, st).ndim != 1:
        raise error_at(ShapeError, op, "condition must be a 1-d array")
    x = Tensor(lift(a, st), st)
    if axis is None:
        x, axis = namespace().ravel(x), 0
    ax = _axis_param(axis, x.ndim)
    if not 0 <= ax < x.ndim:
        raise error_at(ShapeError, op, f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    length = x.shape[ax]
    # NumPy's take checks the indices unless the axes before ``axis`` are empty
    idx, valid = _selected(condition, length, ax, size, op, size_of(x.shape[:ax]) > 0)
    if valid is not None and length == 0:
        shape = x.shape[:ax] + (idx.shape[0],) + x.shape[ax + 1:]
        return namespace().full(shape, fill_value, dtype=x.dtype)
    return _padded(take(x, idx, axis=ax), valid, fill_value, ax)


def extract(condition, arr, *, size=None, fill_value=0):
    """``numpy.extract``: ``take(ravel(arr), flatnonzero(ravel(condition)))``;
    only ``condition`` is evaluated (``size`` as in :func:`compress`)."""
    fnp = namespace()
    return _compress(fnp.ravel(condition), fnp.ravel(arr), None, size, fill_value, "extract")


# ---------------------------------------------------------------- scatter_add (the transpose of gathers)

def _scatter_add_rule(inputs, shape, key, front):
    """``zeros(shape)`` plus ``values`` at ``[key]``: the key and the index
    inputs are those of an ``advanced_index`` on an array of ``shape``, and
    ``values`` must broadcast to that gather's result."""
    from types import SimpleNamespace

    values, *idx = inputs
    if all(e is None for e in key):
        raise ShapeError("scatter_add needs at least one indexed axis in its key")
    target = SimpleNamespace(shape=tuple(shape), ndim=len(shape), dtype=values.dtype)
    gathered, _ = _advanced_rule([target, *idx], key, front)
    if not broadcasts_to(values.shape, gathered):
        raise ShapeError(f"values of shape {values.shape} do not broadcast to the indexed shape {gathered}")
    return tuple(shape), values.dtype


def scatter_add(values, indices, shape, key, front=False):
    """Lazy ``z = zeros(shape, values.dtype); numpy.add.at(z, key, values)``:
    the transpose of ``advanced_index`` (repeated indices accumulate), used
    for the gradients of gathers.  ``key`` has one entry per axis of
    ``shape``: None (the whole axis), an int, or "a" (the next of
    ``indices``); ``front`` as in ``advanced_index``.  Not a NumPy name, so
    not in ``fgraph.numpy``."""
    st = stack_of((values, *indices))
    nodes = [lift(values, st)] + [lift(i, st) for i in indices]
    front = bool(front) and sum(e is not None for e in key) > 1  # one indexed axis is never separated
    params = (("shape", tuple(int(d) for d in shape)), ("key", tuple(key)), ("front", front))
    return Tensor(make_node("scatter_add", nodes, params), st)


# ---------------------------------------------------------------- gradients
#
# Gathers are linear in the array they read: their cotangent is scattered
# back with ``scatter_add`` (NumPy's ``add.at``, so an element read several
# times gets the sum of its cotangents), whose own rule is the gather again,
# so second derivatives work.  Basic indexing (a view) embeds the cotangent
# into zeros with forward ops.  ``select`` and ``choose`` route the cotangent
# to the choice each element came from.  Index inputs, conditions and the
# integer-valued ops (searchsorted, unravel_index, ravel_multi_index) get no
# gradient.  Written with fgraph.numpy (``namespace()``).

def take_along_axis_T(g, ind, shape: tuple, axis):
    """The transpose of ``take_along_axis(arr, ind, axis)`` for ``arr`` of
    ``shape``: ``g`` added into zeros at the positions read.  Along every
    other axis the positions are an ``arange`` of ``arr``'s length there (a
    length-1 axis, broadcast in the gather, is summed)."""
    if axis is None:  # arr was flattened
        size = int(np.prod(shape, dtype=np.int64))
        return namespace().reshape(scatter_add(g, [ind], (size,), ("a",)), shape)
    nd = len(shape)
    idx = [ind if k == axis else np.arange(d, dtype=np.intp).reshape((1,) * k + (d,) + (1,) * (nd - k - 1))
           for k, d in enumerate(shape)]
    return scatter_add(g, idx, shape, ("a",) * nd)


def _slice_grad(out, ins, g, key):
    fnp = namespace()
    (x,) = ins
    # one axis of g per axis of x: drop the new (None) axes, restore the integer-indexed ones as length 1
    shape = tuple(1 if type(e) is int else len(range(*e)) for e in key if e is not None)
    g = fnp.reshape(g, shape)
    axis = 0
    for e in key:
        if e is None:
            continue
        n = x.shape[axis]
        start, step = (e, 1) if type(e) is int else (e[0], e[2])
        if g.shape[axis] != n:  # this axis was really sliced
            g = embed(g, axis, n, start, step)
        elif step < 0:  # the whole axis, reversed
            g = fnp.flip(g, axis)
        axis += 1
    return g,


def _advanced_index_grad(out, ins, g, key, front):
    x, *idx = ins
    return (scatter_add(g, idx, x.shape, key, front),) + (None,) * len(idx)


def _scatter_add_grad(out, ins, g, shape, key, front):
    # the transpose of a scatter is the gather (values broadcast to it: the core sums them down)
    values, *idx = ins
    node = make_node("advanced_index", [g.node] + [i.node for i in idx], (("key", key), ("front", front)))
    return (Tensor(node, g.stack),) + (None,) * len(idx)


def _wrapped(ind, n: int, mode: str):
    """The indices a ``mode`` of take/choose actually reads ('raise' allows negatives; add.at does too)."""
    if mode == "wrap":
        return namespace().remainder(ind, n)
    if mode == "clip":
        return namespace().clip(ind, 0, n - 1)
    return ind


def _take_grad(out, ins, g, axis, mode):
    a, ind = ins
    n = a.size if axis is None else a.shape[axis]
    if g.size == 0 or n == 0:
        return None, None
    i = _wrapped(ind, n, mode)
    if axis is None:
        return namespace().reshape(scatter_add(g, [i], (a.size,), ("a",)), a.shape), None
    key = tuple("a" if k == axis else None for k in range(a.ndim))
    return scatter_add(g, [i], a.shape, key), None


def _take_along_axis_grad(out, ins, g, axis):
    arr, ind = ins
    if g.size == 0:
        return None, None
    return take_along_axis_T(g, ind, arr.shape, axis), None


def _select_grad(out, ins, g, n):
    # element-wise, the first true condition's choice (else the default) gets the cotangent
    fnp = namespace()
    conds = ins[:n]
    grads, taken = [], None
    for c in conds:
        first = c if taken is None else c & ~taken
        grads.append(fnp.where(first, g, 0.0))
        taken = c if taken is None else taken | c
    return (None,) * n + tuple(grads) + (fnp.where(taken, 0.0, g),)


def _choose_grad(out, ins, g, mode):
    fnp = namespace()
    a, *choices = ins
    i = _wrapped(a, len(choices), mode)
    return (None,) + tuple(fnp.where(i == k, g, 0.0) for k in range(len(choices)))


# ---------------------------------------------------------------- micro-batching rules (ops/batching.py)

def _slice_batch(node, c: Ctx) -> tuple:
    key = node.param("key")
    if not key or key[0] != (0, c.B, 1):
        raise Mixes(f"its key {key[:1]} on axis 0 does not keep every row of the batch in place")
    return _set(node.params, key=(_norm_slice(slice(0, c.k), c.k),) + tuple(key[1:]))


def _advanced_index_batch(node, c: Ctx) -> tuple:
    key = node.param("key")
    if not (c.batched[0] and key[0] is None and not node.param("front")):
        raise Mixes("only x[:, indices] with a batched x keeps the batch on axis 0")
    c.only(node, 0)
    return node.params


def _take_batch(node, c: Ctx) -> tuple:
    """x batched, taken along another axis; or indices batched into an
    unbatched table along axis 0 (an embedding)."""
    axis = node.param("axis")
    if c.batched[0] and not c.batched[1] and axis not in (None, 0):
        return node.params
    if c.batched[1] and not c.batched[0] and axis == 0 and node.inputs[1].ndim >= 1:
        return node.params
    raise Mixes("only take(x, i, axis != 0) with x batched, or take(table, ids, axis=0) with ids batched, "
                "keeps the batch on axis 0")


# ---------------------------------------------------------------- the ops
#
# may_raise: an index out of bounds is found only at run time; the engine
# writes no variable in place before such a node.

defop("slice", _slice_rule, "Basic indexing x[key] (a view); params: key.", view=True,
      kernel=kernels.basic_index, out_kernel=kernels.basic_index_out, grad=_slice_grad, batch_rule=_slice_batch)
defop("advanced_index", _advanced_rule, "Advanced (integer-array) indexing; params: key, front.", may_raise=True,
      kernel=kernels.advanced_index, out_kernel=kernels.advanced_index_out, grad=_advanced_index_grad,
      batch_rule=_advanced_index_batch)
defop("take", _take_rule, "numpy.take(a, indices, axis, mode)", may_raise=True,
      kernel=kernels.take, out_kernel=kernels.take_out, grad=_take_grad, batch_rule=_take_batch)
defop("take_along_axis", _take_along_rule, "numpy.take_along_axis(arr, indices, axis)", may_raise=True,
      kernel=kernels.take_along_axis, out_kernel=kernels.take_along_axis_out, grad=_take_along_axis_grad,
      batch_rule=along_axis)
defop("select", _select_rule, "numpy.select(condlist, choicelist, default); inputs: conds, choices, default.",
      kernel=kernels.select, out_kernel=kernels.select_out, grad=_select_grad)
defop("choose", _choose_rule, "numpy.choose(a, choices, mode); inputs: a, *choices.", may_raise=True,
      kernel=kernels.choose, out_kernel=kernels.choose_out, grad=_choose_grad)
# integer outputs: no cotangent ever reaches them (the core gives none to integer nodes); no_gradient only
# says so explicitly, for ops that may sit on a path from a float input
defop("searchsorted", _searchsorted_rule, "numpy.searchsorted(a, v, side[, sorter]); inputs: a, v[, sorter].",
      kernel=kernels.searchsorted, out_kernel=kernels.searchsorted_out, grad=no_gradient)
# inplace: the out-kernel is two element-wise ufunc passes over the flat index
defop("unravel_index", _unravel_rule, "numpy.unravel_index(indices, shape, order)[output]", inplace=(0,),
      may_raise=True, kernel=kernels.unravel_index, out_kernel=kernels.unravel_index_out, grad=no_gradient)
defop("ravel_multi_index", _ravel_multi_rule, "numpy.ravel_multi_index(multi_index, dims, mode, order)",
      may_raise=True, kernel=kernels.ravel_multi_index, out_kernel=kernels.ravel_multi_index_out,
      grad=no_gradient)
defop("scatter_add", _scatter_add_rule, "zeros(shape) with values added at [key] (numpy.add.at); inputs: values, "
                                        "*index arrays; params: shape, key, front (as advanced_index's).",
      may_raise=True, kernel=kernels.scatter_add, out_kernel=kernels.scatter_add_out, grad=_scatter_add_grad)

refuse_batching(("choose", "ravel_multi_index", "scatter_add", "searchsorted", "select", "unravel_index"),
                "not audited for micro-batching: its indices may read or write across the batch's rows")

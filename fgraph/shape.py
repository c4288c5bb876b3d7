"""The Shape layer: shape and dtype inference shared by every op's rule.

NumPy broadcasting, NEP 50 promotion (Python scalars are "weak": they take
the other operand's dtype), axis normalisation, and the helper that registers
an op together with its inference rule.  A rule is ``rule(inputs, **params)
-> (shape, dtype)``; it raises ShapeError/DTypeError (or NumPy's own
ValueError/TypeError, which the Symbol layer converts) naming the problem.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from .opdef import defop  # noqa: F401  (the ops' files import it from here too)
from .errors import AxisError, DTypeError, ShapeError, format_location, user_location

Shape = tuple

# dtype a weak Python scalar gets when it stands alone (NumPy's defaults)
PY_SCALAR_DTYPES = {bool: np.dtype(bool), int: np.dtype(np.int64), float: np.dtype(np.float64),
                    complex: np.dtype(np.complex128)}
# Python bool behaves like np.bool_ (the lowest kind), so it needs no weak type
_WEAK_TYPE = {"b": np.dtype(bool), "i": int, "u": int, "f": float, "c": complex}




# ---------------------------------------------------------------- shapes

@lru_cache(maxsize=4096)
def _broadcast2(a: Shape, b: Shape) -> Shape:
    if a == b:
        return a
    n = max(len(a), len(b))
    a1 = (1,) * (n - len(a)) + a
    b1 = (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a1, b1):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ShapeError(f"shapes {a} and {b} cannot be broadcast together")
    return tuple(out)


def broadcast_shapes(*shapes: Shape) -> Shape:
    """NumPy broadcasting of any number of shapes, or ShapeError."""
    out: Shape = ()
    for s in shapes:
        try:
            out = _broadcast2(out, s)
        except ShapeError:
            raise ShapeError(f"shapes {', '.join(map(str, shapes))} cannot be broadcast together") from None
    return out


def broadcasts_to(shape: Shape, target: Shape) -> bool:
    """Whether ``shape`` broadcasts to exactly ``target``."""
    try:
        return broadcast_shapes(shape, target) == target
    except ShapeError:
        return False


def assignable_shape(shape: Shape, target: Shape) -> Shape | None:
    """NumPy's assignment broadcasting (setitem, copyto): ``shape`` without
    the leading length-1 axes beyond ``target``'s rank, if that broadcasts to
    ``target``; else None."""
    while len(shape) > len(target) and shape[0] == 1:
        shape = shape[1:]
    return shape if broadcasts_to(shape, target) else None


def normalize_axis(axis: int, ndim: int) -> int:
    axis = _index(axis, "axis")
    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else 0


def normalize_axes(axis, ndim: int, allow_none: bool = True) -> tuple[int, ...]:
    """axis=None -> all axes; int or tuple -> sorted unique non-negative."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
    else:
        axes = (normalize_axis(axis, ndim),)
    if len(set(axes)) != len(axes):
        raise ShapeError(f"repeated axis in {axis}")
    return tuple(sorted(axes))


def _index(value, what: str) -> int:
    try:
        return int(value.__index__())
    except (AttributeError, TypeError):
        raise DTypeError(f"{what} must be an integer, got {type(value).__name__}") from None


def as_shape(shape) -> Shape:
    """A user's shape argument (int or sequence of ints) as a tuple."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        out = tuple(_index(d, "shape entry") for d in shape)
    except TypeError:
        raise DTypeError(f"shape must be an int or a sequence of ints, got {shape!r}") from None
    if any(d < 0 for d in out):
        raise ShapeError(f"negative dimensions are not allowed: {out}")
    return out


#: the most bytes, and so elements, one array may take: NumPy counts both in an intp (int64 here)
MAX_BYTES = int(np.iinfo(np.intp).max)


def check_size(op: str, shape: Shape, dtype: np.dtype, where=None) -> None:
    """Refuse a shape whose element count or byte size overflows int64:
    no array can have it, and sizes computed from it would wrap (a size of
    -2**63).  ShapeError naming the op, the shape and the user's line."""
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    if count > MAX_BYTES or nbytes > MAX_BYTES:
        loc = format_location(where if where is not None else user_location(2))
        raise ShapeError(f"{op}: shape {shape} of {dtype} is {count:,} elements, {nbytes:,} bytes: more than an "
                         f"array can hold (at most {MAX_BYTES:,} bytes, an int64)\n  at {loc}")


def c_strides(shape: Shape, itemsize: int) -> tuple:
    """Byte strides of a C-contiguous array of ``shape``."""
    out, step = [], itemsize
    for d in reversed(shape):
        out.append(step)
        step *= d or 1
    return tuple(reversed(out))


def size_of(shape: Shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


# ---------------------------------------------------------------- dtypes

def weak_type(node) -> Any:
    """What NumPy's promotion sees: a Python type for weak scalars, else the dtype."""
    return _WEAK_TYPE[node.dtype.kind] if node.weak else node.dtype


@lru_cache(maxsize=8192)
def _resolve(ufunc: np.ufunc, types: tuple, dtype) -> tuple:
    if dtype is None:
        return ufunc.resolve_dtypes(types + (None,) * ufunc.nout)
    sig = (None,) * ufunc.nin + (np.dtype(dtype),) * ufunc.nout
    return ufunc.resolve_dtypes(types + (None,) * ufunc.nout, signature=sig)


def ufunc_dtypes(ufunc: np.ufunc, inputs: Sequence, dtype=None) -> tuple:
    """The loop dtypes NumPy would pick (inputs..., outputs...) under NEP 50."""
    types = tuple(weak_type(n) for n in inputs)
    try:
        return _resolve(ufunc, types, dtype)
    except TypeError as e:
        raise DTypeError(str(e)) from None


def result_type(*nodes_or_dtypes) -> np.dtype:
    """np.result_type with weak Python scalars (NEP 50)."""
    args = [weak_type(x) if hasattr(x, "weak") else x for x in nodes_or_dtypes]
    # identity tests: np.dtype("int64") == int is True in NumPy
    args = [{int: 0, float: 0.0, complex: 0j}[a] if a is int or a is float or a is complex else a for a in args]
    try:
        return np.result_type(*args)
    except TypeError as e:
        raise DTypeError(str(e)) from None


def probe(node, value=0):
    """A one-element stand-in for ``node``, filled with ``value``.

    NumPy's dtype rules (and most of its argument checks) depend on neither
    the size nor the values, so rules run NumPy on these instead of on
    full-size dummies.  A weak literal stays a Python scalar (NEP 50).
    """
    if node.weak:
        return type(node.params[0][1].value)(value)
    return np.full((1,) * len(node.shape), value, node.dtype)


def int_fits(value: int, dtype: np.dtype) -> bool:
    """Whether integer dtype ``dtype`` holds the Python int ``value``."""
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def check_weak_int_fits(value: int, dtype: np.dtype, op: str) -> None:
    """NumPy 2 refuses a Python int out of range of the integer dtype it
    joins, and one too large for a double when it joins a float dtype."""
    if dtype.kind in "iu":
        if not int_fits(value, dtype):
            raise DTypeError(f"{op}: Python integer {value} out of bounds for {dtype}")
    elif dtype.kind in "fc":
        try:
            float(value)
        except OverflowError:
            raise DTypeError(f"{op}: Python integer {value} too large to convert to float") from None

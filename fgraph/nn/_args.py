"""Argument checks shared by the fgraph.nn functions.

Each raises an FgraphError subclass naming the nn function and the user's
line (``error_at`` walks out of fgraph's own frames).
"""
from __future__ import annotations

import operator

import numpy as np

from .. import numpy as fnp
from ..errors import DTypeError, FgraphError, ShapeError
from ..tensor import Tensor
from ..symbol import error_at


def tensor(x) -> Tensor:
    """A lazy array for ``x`` (NumPy arrays and Python data become constants)."""
    return x if isinstance(x, Tensor) else fnp.asarray(x)


def as_int(op: str, value, name: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise error_at(DTypeError, op, f"{name} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise error_at(DTypeError, op, f"{name} must be an integer, got {type(value).__name__}") from None


def pair(op: str, value, name: str, minimum: int = 1) -> tuple[int, int]:
    """``k`` or ``(kh, kw)`` -> ``(kh, kw)``, each at least ``minimum``."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise error_at(ShapeError, op, f"{name} must be an int or a pair of ints, got {value!r}")
        out = (as_int(op, value[0], name), as_int(op, value[1], name))
    else:
        v = as_int(op, value, name)
        out = (v, v)
    if min(out) < minimum:
        raise error_at(ShapeError, op, f"{name} must be at least {minimum}, got {value!r}")
    return out


def padding(op: str, value) -> tuple[tuple[int, int], tuple[int, int]]:
    """``p`` | ``(ph, pw)`` | ``((top, bottom), (left, right))`` ->
    ``((top, bottom), (left, right))``, non-negative."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(isinstance(v, (tuple, list)) for v in value):
        if any(len(v) != 2 for v in value):
            raise error_at(ShapeError, op, f"padding must be p, (ph, pw) or ((top, bottom), (left, right)), "
                                           f"got {value!r}")
        out = tuple((as_int(op, a, "padding"), as_int(op, b, "padding")) for a, b in value)
    else:
        ph, pw = pair(op, value, "padding", minimum=0)
        out = ((ph, ph), (pw, pw))
    if min(min(p) for p in out) < 0:
        raise error_at(ShapeError, op, f"padding must be non-negative, got {value!r}")
    return out


def ndim_at_least(op: str, x: Tensor, n: int, what: str = "x", layout: str = "") -> None:
    if x.ndim < n:
        raise error_at(ShapeError, op, f"{what} must have at least {n} dimensions{layout}, got shape {x.shape}")


def ndim_is(op: str, x: Tensor, n: int, what: str = "x", layout: str = "") -> None:
    if x.ndim != n:
        raise error_at(ShapeError, op, f"{what} must be {n}-d{layout}, got shape {x.shape}")


def floating(op: str, x: Tensor, what: str = "x") -> None:
    if x.dtype.kind != "f":
        raise error_at(DTypeError, op, f"{what} must be a floating-point array, got {x.dtype}")


def axes(op: str, axis, ndim: int) -> tuple[int, ...]:
    """An int or a tuple of ints -> sorted non-negative axes."""
    seq = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in seq:
        a = as_int(op, a, "axis")
        if not -ndim <= a < ndim:
            raise error_at(ShapeError, op, f"axis {a} is out of bounds for an array of dimension {ndim}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise error_at(ShapeError, op, f"repeated axis in {axis!r}")
    return tuple(sorted(out))


def bias_of(op: str, b, channels: int) -> Tensor:
    b = tensor(b)
    if b.shape != (channels,):
        raise error_at(ShapeError, op, f"bias must have shape ({channels},), got {b.shape}")
    return b


def choice(op: str, value, name: str, allowed: tuple) -> None:
    if value not in allowed:
        raise error_at(FgraphError, op, f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")

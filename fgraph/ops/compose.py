"""What the functions composed of other ops share (``composite``,
``arrays``, ``signal``, ``statistics``, ``fft``): the namespace they build
with, NumPy's ``asarray`` for their arguments, and the refusal of a lazy
value where NumPy's definition needs it now (it decides a shape, or NumPy
checks it before computing)."""
from __future__ import annotations

import operator

import numpy as np

from ..errors import FgraphError, ShapeError
from ..operator import Tensor
from ..symbol import error_at


def namespace():
    """``fgraph.numpy`` (imported when called: it is built from these modules)."""
    from .. import numpy as fnp

    return fnp


def lazy(x):
    """``x`` as a lazy array, as NumPy's ``asarray`` (a Python scalar takes its default dtype)."""
    return x if isinstance(x, Tensor) else namespace().asarray(x)


def python_value(value, op: str, name: str, why: str = "it decides the result's shape"):
    """``value`` itself, refused when it is (or holds) a lazy array."""
    if isinstance(value, Tensor) or (isinstance(value, (tuple, list)) and any(isinstance(v, Tensor) for v in value)):
        raise error_at(FgraphError, op, f"{name} must be a Python value, not a lazy array ({why}); evaluate it "
                                        "first with numpy.asarray(t)")
    return value


def python_int(value, op: str, name: str, why: str = "it decides the result's shape") -> int:
    """``value`` as a Python int, refused when lazy or not an integer."""
    value = python_value(value, op, name, why)
    try:
        return operator.index(value)
    except TypeError:
        raise error_at(FgraphError, op, f"{name} must be an integer, not {value!r}") from None


def axis_index(axis, ndim: int, op: str) -> int:
    """``axis`` (a Python int) for an array of ``ndim`` axes, made non-negative."""
    axis = python_int(axis, op, "axis")
    if not -ndim <= axis < ndim:
        raise error_at(ShapeError, op, f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def known_value(x):
    """The value of ``x`` if it is known now (not lazy, or a constant), else None."""
    if not isinstance(x, Tensor):
        return np.asarray(x)
    node = x.node
    if node.op == "constant":
        return node.param("value").array
    if node.op == "literal":
        return np.asarray(node.param("value").value)
    return None

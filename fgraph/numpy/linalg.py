"""``fgraph.numpy.linalg``: NumPy's ``numpy.linalg`` (and the Array API's
``linalg`` extension) on lazy arrays.

The decompositions and solvers are ops of the linalg family
(fgraph/ops/linalg.py).  The Array API functions that share a name with the
main namespace keep the Array API's narrower rules, as ``numpy.linalg``
does: ``outer`` takes 1-D vectors, ``cross`` 3-element vectors, and
``trace``/``diagonal`` work on the last two axes.
"""
from __future__ import annotations

from ..errors import ShapeError
from ..tensor import Tensor, lift, stack_of
from ..ops import linalg as _ops
from ..ops.linalg import (  # noqa: F401  (re-exported)
    EighResult, EigResult, LinAlgError, QRResult, SlogdetResult, SVDResult, cholesky, cond, det, eig, eigh, eigvals,
    eigvalsh, inv, lstsq, matrix_norm, matrix_power, matrix_rank, matrix_transpose, multi_dot, norm, pinv, qr,
    slogdet, solve, svd, svdvals, tensorinv, tensorsolve, vector_norm)
from ..symbol import error_at

__all__ = list(_ops.LINALG_ALL) + ["matmul", "matrix_transpose", "tensordot", "vecdot", "outer", "trace",
                                   "diagonal", "cross"]


def matmul(x1, x2, /):
    """Lazy ``numpy.linalg.matmul`` (the Array API's: no keyword arguments)."""
    return _ops.matmul(x1, x2)


def tensordot(x1, x2, /, *, axes=2):
    """Lazy ``numpy.linalg.tensordot``."""
    return _ops.tensordot(x1, x2, axes=axes)


def vecdot(x1, x2, /, *, axis=-1):
    """Lazy ``numpy.linalg.vecdot``: conj(x1) . x2 along ``axis``."""
    return _ops.vecdot(x1, x2, axis=axis)


def _tensor(x):
    return Tensor(lift(x, stack_of((x,))), stack_of((x,)))


def outer(x1, x2, /):
    """Lazy ``numpy.linalg.outer``: both inputs must be 1-D."""
    a, b = _tensor(x1), _tensor(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise error_at(ShapeError, "outer", f"input arrays must be one-dimensional, but they are x1.ndim={a.ndim} "
                                            f"and x2.ndim={b.ndim}")
    return _ops.outer(a, b)


def trace(x, /, *, offset=0, dtype=None):
    """Lazy ``numpy.linalg.trace``: over the last two axes."""
    return _ops.trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x, /, *, offset=0):
    """Lazy ``numpy.linalg.diagonal``: over the last two axes."""
    return _ops.diagonal(x, offset, axis1=-2, axis2=-1)


def cross(x1, x2, /, *, axis=-1):
    """Lazy ``numpy.linalg.cross``: 3-element vectors along ``axis`` only."""
    a, b = _tensor(x1), _tensor(x2)
    for t in (a, b):
        if not -t.ndim <= axis < t.ndim:
            raise error_at(ShapeError, "cross", f"axis {axis} is out of bounds for array of dimension {t.ndim}")
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise error_at(ShapeError, "cross", f"both input arrays must be (arrays of) 3-dimensional vectors, but they "
                                            f"are {a.shape[axis]} and {b.shape[axis]} dimensional instead")
    return _ops.cross(a, b, axis=axis)

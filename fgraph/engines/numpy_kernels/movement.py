"""NumPy kernels for the movement ops.

The view ops return NumPy views of their input (never written to: kernels
treat inputs as read-only); ``concatenate`` and ``repeat`` allocate.
"""
import numpy as np

from ...types import set_attr


def _reshape(x, shape):
    return np.reshape(x, shape)


def _transpose(x, axes):
    return np.transpose(x, axes)


def _broadcast_to(x, shape):
    return np.broadcast_to(x, shape)


def _flip(x, axes):
    return np.flip(x, axes)


def _slice_axis(x, axis, start, stop, step):
    return np.asarray(x)[(slice(None),) * axis + (slice(start, stop, step),)]


def _concatenate(*xs, axis, dtype=None, casting="same_kind"):
    return np.concatenate(xs, axis=axis, dtype=dtype, casting=casting)


def _repeat(x, repeats, axis):
    return np.repeat(x, np.asarray(repeats, dtype=np.intp), axis=axis)


for _op, _fn in [("reshape", _reshape), ("transpose", _transpose), ("broadcast_to", _broadcast_to),
                 ("flip", _flip), ("slice_axis", _slice_axis), ("concatenate", _concatenate),
                 ("repeat", _repeat)]:
    set_attr(_op, "numpy_kernel", _fn)

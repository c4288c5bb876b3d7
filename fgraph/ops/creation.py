"""Creation ops: arrays from data or from a shape and a fill rule."""
from __future__ import annotations

import numpy as np

from ..array_api import canonical_dtype
from ..operator import Tensor, constant_node, lift, python_data_array, stack_of
from ..stack import current

__all__ = ["asarray", "array"]


def asarray(obj, dtype=None, order=None, *, device=None, copy=None, like=None):
    """Lazy ``numpy.asarray``: a constant (frozen copy) or the tensor itself."""
    st = stack_of((obj,))
    if isinstance(obj, Tensor):
        if dtype is None or np.dtype(dtype) == obj.dtype:
            return obj
        from .elementwise import astype

        return astype(obj, dtype)
    dt = None if dtype is None else canonical_dtype(dtype, st)
    if isinstance(obj, (list, tuple)) and any(isinstance(e, Tensor) for e in obj):
        node = lift(obj, st)  # stacks the tensors
        return Tensor(node, st) if dt is None else asarray(Tensor(node, st), dt)
    if isinstance(obj, np.ndarray) and dt is None:
        arr = obj
    elif isinstance(obj, (np.ndarray, np.generic)):
        arr = np.asarray(obj, dtype=dt)
    else:
        arr = python_data_array(obj, dt, st)
    return Tensor(constant_node(arr), st)


def array(obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    """Lazy ``numpy.array`` (arrays are immutable, so a copy is free)."""
    t = asarray(obj, dtype)
    if ndmin > t.ndim:
        from .movement import reshape

        t = reshape(t, (1,) * (ndmin - t.ndim) + t.shape)
    return t

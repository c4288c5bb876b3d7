"""Dtypes as the namespace exposes them, and the Array API's dtype helpers."""
from __future__ import annotations

import numpy as np

from .errors import DTypeError


def canonical_dtype(dtype, stack=None) -> np.dtype:
    """A user's dtype argument as a NumPy dtype; ``float``/None follow the stack."""
    if dtype is float and stack is not None:
        return stack.float_dtype
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise DTypeError(f"not a dtype: {dtype!r} ({e})") from None
    if dt.kind in "OSUVMm":
        raise DTypeError(f"fgraph does not support dtype {dt}")
    return dt

"""NumPy functions that need the values themselves, not a graph: printing
(``array2string``, ``array_repr``, ``array_str``) and saving (``save``,
``savez``, ``savez_compressed``, ``savetxt``).  Each evaluates its lazy
arguments on their engine and calls NumPy's own function, as ``print(t)``
and ``np.asarray(t)`` do."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor

__all__ = ["array2string", "array_repr", "array_str", "save", "savez", "savez_compressed", "savetxt"]


def _values(x):
    return np.asarray(x) if isinstance(x, Tensor) else x


def _evaluating(fn):
    def call(*args, **kwargs):
        return fn(*map(_values, args), **{k: _values(v) for k, v in kwargs.items()})
    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = f"``numpy.{fn.__name__}`` of the evaluated values (lazy arguments are evaluated first)."
    return call


array2string = _evaluating(np.array2string)
array_repr = _evaluating(np.array_repr)
array_str = _evaluating(np.array_str)
save = _evaluating(np.save)
savez = _evaluating(np.savez)
savez_compressed = _evaluating(np.savez_compressed)
savetxt = _evaluating(np.savetxt)

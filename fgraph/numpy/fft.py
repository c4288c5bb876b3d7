"""``fgraph.numpy.fft``: NumPy's ``numpy.fft`` on lazy arrays (the op and
the functions are in fgraph/ops/fft.py)."""
from __future__ import annotations

from ..ops import fft as _ops

__all__ = list(_ops.FFT_ALL)
for _name in __all__:
    globals()[_name] = getattr(_ops, _name)
del _name

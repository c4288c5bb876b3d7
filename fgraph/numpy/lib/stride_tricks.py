"""``fgraph.numpy.lib.stride_tricks``: NumPy's ``numpy.lib.stride_tricks`` on
lazy arrays (the functions are in fgraph/ops/stride_tricks.py)."""
from __future__ import annotations

from ...ops import stride_tricks as _ops

__all__ = list(_ops.STRIDE_TRICKS_ALL)
for _name in __all__:
    globals()[_name] = getattr(_ops, _name)
del _name

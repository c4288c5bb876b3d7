"""``fgraph.numpy.emath``: NumPy's ``numpy.emath`` (``numpy.lib.scimath``) on
lazy arrays: complex results where the data leave the real domain (the
functions are in fgraph/ops/emath.py, which says how the dtype is decided)."""
from __future__ import annotations

from ..ops import emath as _ops

__all__ = list(_ops.EMATH_ALL)
for _name in __all__:
    globals()[_name] = getattr(_ops, _name)
del _name

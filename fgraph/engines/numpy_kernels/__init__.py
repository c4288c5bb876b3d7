"""NumPy kernels, attached to the ops as the ``numpy_kernel`` attribute.

A kernel is ``kernel(*input_arrays, **params) -> array``.  One module per op
family; importing this package attaches them all."""
from importlib import import_module

from ...ops import FAMILIES

from . import leaves  # noqa: F401,E402

for _family in FAMILIES:
    try:
        import_module(f"{__name__}.{_family}")
    except ModuleNotFoundError as e:  # a family whose kernels are its OpDefs' (fgraph/ops)
        if e.name != f"{__name__}.{_family}":
            raise

from . import ufunc  # noqa: F401,E402  (the ufunc-method ops: fgraph/ops/ufunc.py, not a family of its own)

"""NumPy kernels, attached to the ops as the ``numpy_kernel`` attribute.

A kernel is ``kernel(*input_arrays, **params) -> array``.  One module per op
family; importing this package attaches them all."""
from importlib import import_module

from ...ops import FAMILIES

for _family in FAMILIES:
    try:
        import_module(f"{__name__}.{_family}")
    except ModuleNotFoundError as e:  # a family whose reference kernels are declared with its ops
        if e.name != f"{__name__}.{_family}":
            raise

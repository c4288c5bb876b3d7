"""``fgraph.numpy.lib``: NumPy's ``numpy.lib`` as a NumPy program reads it.

``stride_tricks`` (``sliding_window_view``) and ``scimath`` (the same as
``fgraph.numpy.emath``) work on lazy arrays.  The rest of ``numpy.lib``
that computes on no array (``NumpyVersion``, ``mixins``, ``format``,
``array_utils``...) is NumPy's own.
"""
from __future__ import annotations

from importlib import import_module as _import_module

import numpy as _np

from .. import emath as scimath
from . import stride_tricks

__all__ = ["stride_tricks", "scimath"]

#: numpy.lib's names that take no array data (or only NumPy's own): modules, then other names
_NUMPY_MODULES = ("mixins", "format", "array_utils", "introspect", "npyio", "recfunctions", "user_array")
_NUMPY_OWN = ("NumpyVersion", "add_docstring", "add_newdoc", "tracemalloc_domain")


def __getattr__(name):
    if name in _NUMPY_MODULES:
        return _import_module(f"numpy.lib.{name}")
    if name in _NUMPY_OWN:
        return getattr(_np.lib, name)
    if hasattr(_np.lib, name):
        raise AttributeError(f"fgraph.numpy.lib has no lazy version of numpy.lib.{name}; evaluate first with "
                             f"numpy.asarray(t) and use numpy.lib.{name}")
    raise AttributeError(f"module 'fgraph.numpy.lib' has no attribute {name!r}")

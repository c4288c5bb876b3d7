"""NumPy kernels for the indexing ops.

Out-of-range lazy indices make NumPy raise IndexError here; the Program
turns that into an FgraphError naming the node (never a silent wrap/clip).
"""
from functools import lru_cache

import numpy as np

from ...ops.indexing import slice_key
from ...types import set_attr

@lru_cache(maxsize=4096)
def _slice_key(key):
    # a trailing Ellipsis makes NumPy return a 0-d view, not a scalar copy
    return slice_key(key) + (Ellipsis,)


def _slice(x, key):
    """Basic indexing: always a view of x."""
    return np.asarray(x)[_slice_key(key)]


def _advanced(x, *idx, key, front):
    it = iter(idx)
    full = slice(None)
    k = [full if e is None else next(it) if e == "a" else e for e in key]
    if front:  # an Ellipsis standing for no axis separates the advanced indices, as in the user's key
        k.insert(next(p for p, e in enumerate(key) if e is not None) + 1, Ellipsis)
    return np.asarray(x)[tuple(k)]


def _select(*xs, n):
    return np.select(list(xs[:n]), list(xs[n:2 * n]), xs[2 * n])


def _searchsorted(a, v, *sorter, side):
    return np.searchsorted(a, v, side=side, sorter=sorter[0] if sorter else None)


def _take(a, indices, axis, mode):
    return np.take(a, indices, axis=axis, mode=mode)


set_attr("slice", "numpy_kernel", _slice)
set_attr("advanced_index", "numpy_kernel", _advanced)
set_attr("take", "numpy_kernel", _take)
set_attr("take_along_axis", "numpy_kernel", lambda arr, ind, axis: np.take_along_axis(np.asarray(arr), ind, axis=axis))
set_attr("select", "numpy_kernel", _select)
set_attr("choose", "numpy_kernel", lambda a, *choices, mode: np.choose(a, choices, mode=mode))
set_attr("searchsorted", "numpy_kernel", _searchsorted)
set_attr("unravel_index", "numpy_kernel",
         lambda i, shape, order, output: np.unravel_index(i, shape, order=order)[output])
set_attr("ravel_multi_index", "numpy_kernel",
         lambda *idx, dims, mode, order: np.ravel_multi_index(idx, dims, mode=mode, order=order))

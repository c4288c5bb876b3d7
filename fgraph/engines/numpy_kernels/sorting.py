"""NumPy kernels for the sorting ops: NumPy itself, with the user's ``kind``."""
import numpy as np

from ...ops.sorting import _ORDER_STATS, order_stat_call
from ...types import set_attr


def _flat(x, axis):
    """(array, axis) with axis=None meaning the flattened array, as NumPy."""
    x = np.asarray(x)
    return (x.reshape(-1), 0) if axis is None else (x, axis)


def _sort(x, axis, kind, stable, descending):
    x, axis = _flat(x, axis)
    if not descending:
        return np.sort(x, axis=axis, kind=kind, stable=stable)
    # stable descending (Array API): sort the reversed array stably, reverse back
    return np.flip(np.sort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def _argsort(x, axis, kind, stable, descending):
    x = np.asarray(x)
    if not descending:
        return np.argsort(x, axis=axis, kind=kind, stable=stable)
    x, axis = (x.reshape(-1), 0) if axis is None or x.ndim == 0 else (x, axis)
    idx = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (x.shape[axis] - 1) - np.flip(idx, axis)


def _order_stat(name):
    def kernel(a, *rest, axis, keepdims, method=None, weighted=False):
        return order_stat_call(name, a, rest[0] if rest else None, rest[1] if weighted else None, axis, keepdims,
                               method)
    return kernel


set_attr("sort", "numpy_kernel", _sort)
set_attr("argsort", "numpy_kernel", _argsort)
set_attr("partition", "numpy_kernel", lambda x, kth, axis, kind: np.partition(x, kth, axis=axis, kind=kind))
set_attr("argpartition", "numpy_kernel", lambda x, kth, axis, kind: np.argpartition(x, kth, axis=axis, kind=kind))
set_attr("lexsort", "numpy_kernel", lambda *keys, axis: np.lexsort(keys, axis=axis))
set_attr("sort_complex", "numpy_kernel", np.sort_complex)
for _name in _ORDER_STATS:
    set_attr(_name, "numpy_kernel", _order_stat(_name))

"""The write op on the CuPy engine: setitem on a device copy of x, index
arrays bounds-checked first (CuPy wraps out-of-range indices silently).
Repeated indices: CUDA gives no order among the writes to one element, so
which value wins may differ from NumPy's last-write-wins."""
from ...ops.indexing_kernels import _scatter_key, _slice_key
from .indexing import _check_range
from .support import cupy, xp


def _setitem(x, value, *idx, key, adv, front):
    m = xp()
    out = m.array(x, copy=True)
    region = out if key is None else out[_slice_key(key)]
    if adv is None:
        region[...] = value
        return out
    idx = [m.asarray(i) for i in idx]
    it = iter(idx)
    for p, e in enumerate(adv):
        if e == "a":
            _check_range(next(it), -region.shape[p], region.shape[p], f"setitem index for axis {p}")
    region[_scatter_key(idx, adv, front)] = value
    return out


cupy("setitem", _setitem, None, "xp setitem on a copy, index arrays bounds checked")


def _bitcast(x, dtype):
    return xp().asarray(x).view(dtype)


cupy("bitcast", _bitcast, None, "xp view as another dtype of the same itemsize")

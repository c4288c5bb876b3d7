"""NumPy kernels of the write op: ``setitem`` is NumPy's own setitem on a
copy of x (or on x's buffer itself, when the planner lets it write in place)."""
import numpy as np

from ...registry import set_attr
from .indexing import _scatter_key, _slice_key


def store(out, value, idx, key, adv, front):
    """``out[key][adv] = value`` in place: NumPy's setitem, overlap-safe."""
    region = out if key is None else out[_slice_key(key)]
    if adv is None:
        region[...] = value
    else:
        region[_scatter_key(idx, adv, front)] = value


def _setitem_out(x, value, *idx, out, key, adv, front):
    x = np.asarray(x)
    if not (out.__array_interface__["data"][0] == x.__array_interface__["data"][0] and out.strides == x.strides):
        np.copyto(out, x)
    store(out, value, idx, key, adv, front)
    return out


def _setitem(x, value, *idx, key, adv, front):
    out = np.array(x, copy=True)
    store(out, value, idx, key, adv, front)
    return out


set_attr("setitem", "numpy_kernel", _setitem)
set_attr("setitem", "numpy_out_kernel", _setitem_out)


def _bitcast(x, dtype):
    return np.asarray(x).view(dtype)


def _bitcast_out(x, out, dtype):
    np.copyto(out, np.asarray(x).view(dtype))
    return out


set_attr("bitcast", "numpy_kernel", _bitcast)
set_attr("bitcast", "numpy_out_kernel", _bitcast_out)

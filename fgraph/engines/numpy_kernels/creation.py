"""NumPy kernels for the creation ops: NumPy's own creation functions, so
values are NumPy's bit for bit.  None of them reads data it was not given."""
import numpy as np

from ...types import set_attr


def _full(*fill, shape, dtype, fill_value=None):
    out = np.empty(shape, dtype)
    # np.full and np.full_like fill with an unsafe cast; so do we
    np.copyto(out, fill[0] if fill else fill_value.array, casting="unsafe")
    return out


def _arange(*, shape, dtype, start, stop, step):
    return np.arange(start.value, stop.value, step.value, dtype=dtype)


def _linspace_step(start, stop, *, num, endpoint, dtype):
    """The step of ``np.linspace(..., retstep=True)``, computed as NumPy computes
    it (in the inexact type of start and stop), without making the samples."""
    div = num - 1 if endpoint else num
    if div <= 0:
        return np.asarray(np.nan, dtype)
    dt = np.result_type(start, stop, 0.0)
    delta = np.subtract(stop, start, dtype=dt.type)
    return np.asarray(delta / div, dtype)


def _grid(x, *, shape, axis):
    src = [1] * len(shape)
    src[axis] = -1
    return np.broadcast_to(np.reshape(x, src), shape).copy()


def _indices(*, dimensions, dtype, output=None):
    if output is None:
        return np.indices(dimensions, dtype)
    return np.indices(dimensions, dtype, sparse=True)[output]


set_attr("zeros", "numpy_kernel", lambda *, shape, dtype: np.zeros(shape, dtype))
set_attr("ones", "numpy_kernel", lambda *, shape, dtype: np.ones(shape, dtype))
set_attr("full", "numpy_kernel", _full)
set_attr("arange", "numpy_kernel", _arange)
set_attr("linspace", "numpy_kernel", lambda start, stop, *, num, endpoint, dtype, axis: np.linspace(
    start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis))
set_attr("linspace_step", "numpy_kernel", _linspace_step)
set_attr("logspace", "numpy_kernel", lambda start, stop, base, *, num, endpoint, dtype, axis: np.logspace(
    start, stop, num=num, endpoint=endpoint, base=base, dtype=dtype, axis=axis))
set_attr("geomspace", "numpy_kernel", lambda start, stop, *, num, endpoint, dtype, axis: np.geomspace(
    start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis))
# k (a diagonal index) is a Scalar param
set_attr("eye", "numpy_kernel", lambda *, shape, dtype, k: np.eye(shape[0], shape[1], k.value, dtype))
set_attr("tri", "numpy_kernel", lambda *, shape, dtype, k: np.tri(shape[0], shape[1], k.value, dtype))
set_attr("tril", "numpy_kernel", lambda m, *, k: np.tril(m, k.value))
set_attr("triu", "numpy_kernel", lambda m, *, k: np.triu(m, k.value))
set_attr("meshgrid", "numpy_kernel", _grid)
set_attr("indices", "numpy_kernel", _indices)

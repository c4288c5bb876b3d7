"""NumPy kernels of the ufunc-method ops (``fgraph/ops/ufunc.py``): each
calls the NumPy ufunc's own method (reduce, accumulate, reduceat, at) with
the node's params, so values are NumPy's bit for bit."""
import numpy as np

from ...ops.ufunc import NUMPY_UFUNCS, decode_key
from ...registry import set_attr

_NoValue = np._NoValue


def _unwrap(value):
    from ...ops.reduction import unwrap

    return unwrap(value)


def _reduced(shape, axes, keepdims):
    return tuple(1 if i in axes else d for i, d in enumerate(shape)) if keepdims else \
        tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduce(x, *mask, ufunc, axis, dtype, keepdims, initial=_NoValue, out_dtype=None):
    kw = {"axis": axis, "dtype": dtype, "keepdims": keepdims}
    if initial is not _NoValue:
        kw["initial"] = _unwrap(initial)
    if mask:
        kw["where"] = mask[0]
    if out_dtype is not None:  # NumPy reduces into out=, whose dtype picks its loop
        kw["out"] = np.empty(_reduced(np.shape(x), axis, keepdims), out_dtype)
    return np.asarray(NUMPY_UFUNCS[ufunc].reduce(x, **kw))


def _accumulate(x, *, ufunc, axis, dtype, out_dtype=None):
    out = None if out_dtype is None else np.empty(np.shape(x), out_dtype)
    return NUMPY_UFUNCS[ufunc].accumulate(x, axis=axis, dtype=dtype, out=out)


def _reduceat(x, indices, *, ufunc, axis, dtype, out_dtype=None):
    out = None
    if out_dtype is not None:
        shape = list(np.shape(x))
        shape[axis] = len(indices)
        out = np.empty(tuple(shape), out_dtype)
    return NUMPY_UFUNCS[ufunc].reduceat(x, indices, axis=axis, dtype=dtype, out=out)


def _at_into(out, a, args, ufunc, key, tuple, operand):
    b = args[:1] if operand else ()
    NUMPY_UFUNCS[ufunc].at(out, decode_key(key, args[len(b):], tuple), *b)
    return out


def _at(a, *args, ufunc, key, tuple, operand):
    return _at_into(np.array(a, copy=True), a, args, ufunc, key, tuple, operand)


def _at_out(a, *args, out, ufunc, key, tuple, operand):
    a = np.asarray(a)
    if not (out.__array_interface__["data"][0] == a.__array_interface__["data"][0] and out.strides == a.strides):
        np.copyto(out, a)
    return _at_into(out, a, args, ufunc, key, tuple, operand)


set_attr("ufunc_reduce", "numpy_kernel", _reduce)
set_attr("ufunc_accumulate", "numpy_kernel", _accumulate)
set_attr("ufunc_reduceat", "numpy_kernel", _reduceat)
set_attr("ufunc_at", "numpy_kernel", _at)
set_attr("ufunc_at", "numpy_out_kernel", _at_out)

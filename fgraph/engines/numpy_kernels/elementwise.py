"""NumPy kernels for the element-wise ops: the ufuncs themselves.

Each op also has an out-form (``numpy_out_kernel``) that writes into a
buffer the engine gives it; fused kernels use the same out-forms."""
import numpy as np

from ...ops.elementwise import UFUNCS
from ...registry import set_attr


def _astype(x, dtype, casting="unsafe"):
    return np.asarray(x).astype(dtype, casting=casting)


_BITS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def _as_bits(v, dtype, bits):
    """``v`` (an array of ``dtype``, or a scalar cast to it) as integers of
    the same bits; None when a cast of a whole array would be needed."""
    if isinstance(v, np.ndarray) and v.ndim:
        return v.view(bits) if v.dtype == dtype else None
    return np.asarray(v).astype(dtype).view(bits)


def _where(cond, x, y, out):
    """``where(cond, x, y)`` into ``out``.

    NumPy's where branches on every element, which is slow when the mask is
    unpredictable (a ReLU's gradient).  When the branches already have the
    output's dtype (or are scalars), select bits instead, in three passes
    over ``out`` and no temporary: ``out = y ^ ((x ^ y) * cond)`` on the
    values' bits as integers.  Exact for every value (NaN payloads, -0.0)."""
    bits = _BITS.get(out.dtype.itemsize) if out.dtype.kind in "biufc" else None
    if bits is not None and isinstance(cond, np.ndarray) and cond.dtype == np.bool_:
        xb, yb = _as_bits(x, out.dtype, bits), _as_bits(y, out.dtype, bits)
        if xb is not None and yb is not None:
            o = out.view(bits)
            if not yb.ndim and not yb:  # where(c, x, 0): one pass
                return np.multiply(xb, cond, out=o).view(out.dtype)
            np.bitwise_xor(xb, yb, out=o)
            np.multiply(o, cond, out=o)
            np.bitwise_xor(o, yb, out=o)
            return out
    np.copyto(out, y, casting="unsafe")
    np.copyto(out, x, casting="unsafe", where=np.broadcast_to(cond, out.shape))
    return out


def _where_new(cond, x, y):
    dtype = np.result_type(x, y)
    shape = np.broadcast_shapes(np.shape(cond), np.shape(x), np.shape(y))
    return _where(cond, x, y, np.empty(shape, dtype))


def _copy_into(fn):
    def run(*args, out, **params):
        np.copyto(out, fn(*args, **params), casting="unsafe")
        return out
    return run


def _astype_into(a, out, dtype=None, casting="unsafe"):
    np.copyto(out, a, casting="unsafe")
    return out


def _complex_into(re, im, out, dtype=None):
    np.copyto(out.real, re)  # (NumPy's protocols hand CuPy arrays to CuPy)
    np.copyto(out.imag, im)
    return out


#: out-forms of the element-wise ops that are not ufuncs
_NON_UFUNC = {
    "where": _where,
    "clip": lambda a, lo, hi, out: np.clip(a, lo, hi, out=out),
    "round": lambda a, out, decimals=0: np.round(a, decimals, out=out),
    "fix": lambda a, out: np.fix(a, out=out),
    "astype": _astype_into,
    "real": _copy_into(np.real),  # a view: the copy is the only write
    "imag": _copy_into(np.imag),
    "complex": _complex_into,
}


def _multi_output(u):
    def run(*xs, out, output, dtype=None):
        outs = tuple(out if j == output else None for j in range(u.nout))
        return u(*xs, out=outs, dtype=dtype)[output]
    return run


def out_form(op: str, params: dict | None = None):
    """``f(*args, out=buffer, **params)`` for element-wise op ``op``."""
    u = UFUNCS.get(op)
    if u is not None:
        return u if u.nout == 1 else _multi_output(u)
    return _NON_UFUNC[op]


for _name, _u in UFUNCS.items():
    if _u.nout == 1:
        set_attr(_name, "numpy_kernel", _u)
    else:
        set_attr(_name, "numpy_kernel", (lambda u: lambda *xs, output, dtype=None: u(*xs, dtype=dtype)[output])(_u))
    set_attr(_name, "numpy_out_kernel", out_form(_name))

for _name, _fn in [("where", _where_new), ("clip", np.clip), ("round", np.round), ("fix", np.fix),
                   ("real", np.real), ("imag", np.imag), ("astype", _astype),
                   ("complex", lambda re, im, dtype: _complex_into(re, im, np.empty(np.broadcast_shapes(
                       np.shape(re), np.shape(im)), dtype)))]:
    set_attr(_name, "numpy_kernel", _fn)
    set_attr(_name, "numpy_out_kernel", _NON_UFUNC[_name])

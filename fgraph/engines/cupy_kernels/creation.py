"""Creation ops on the CuPy engine.

NumPy's kernels call ``np.zeros``/``np.arange``/... with no array argument,
so nothing dispatches: they would make host arrays.  Each op here builds
its array with ``xp()``'s own function instead; ``arange`` replays NumPy's
fill recipe on the device (first two values from Python arithmetic, then
``start + i * delta`` in the dtype) so float values are NumPy's.  The
linspace family is computed by NumPy on the host from its few inputs and
uploaded (NumPy's values bit for bit, one transfer of the result).
"""
import numpy as np

from ...devices import current
from ...registry import get_attr
from ...ops.creation_kernels import _as_setitem
from .support import cupy, dispatch, xp


def _zeros(*, shape, dtype):
    return xp().zeros(shape, dtype)


def _ones(*, shape, dtype):
    return xp().ones(shape, dtype)


def _full_into(out, fill, fill_value):
    m = xp()
    m.copyto(out, fill[0] if fill else m.asarray(fill_value.array), casting="unsafe")
    return out


def _full(*fill, shape, dtype, fill_value=None):
    return _full_into(xp().empty(shape, dtype), fill, fill_value)


def _full_out(*fill, out, shape, dtype, fill_value=None):
    return _full_into(out, fill, fill_value)


def _arange_into(out, start, step):
    m = xp()
    n = out.shape[0]
    dt = out.dtype
    first, second = start.value, start.value + step.value
    if dt.kind in "iu":  # start + i * delta in int64, delta from the two stored values
        a0 = int(out.dtype.type(_as_setitem(first, dt)))
        delta = int(out.dtype.type(_as_setitem(second, dt))) - a0
        m.copyto(out, m.arange(n, dtype=np.int64) * delta + a0, casting="unsafe")
    else:
        m.copyto(out, m.arange(n, dtype=dt))  # (type)i, as NumPy's fill loop converts i
        s = dt.type(_as_setitem(first, dt))
        delta = dt.type(dt.type(_as_setitem(second, dt)) - s)
        m.multiply(out, delta, out=out)
        m.add(out, s, out=out)
    if n:
        out[0] = _as_setitem(first, dt)
    if n > 1:
        out[1] = _as_setitem(second, dt)
    return out


def _host_arange(dt) -> bool:
    """complex (per component), bool and float16 (computed in float32): NumPy's own values, uploaded."""
    return dt.kind in "cb" or (dt.kind == "f" and dt.itemsize < 4)


def _arange(*, shape, dtype, start, stop, step):
    dt = np.dtype(dtype)
    if _host_arange(dt):
        return _on_host("arange")(shape=shape, dtype=dtype, start=start, stop=stop, step=step)
    return _arange_into(xp().empty(shape, dt), start, step)


def _arange_out(*, out, shape, dtype, start, stop, step):
    if _host_arange(out.dtype):
        xp().copyto(out, _arange(shape=shape, dtype=dtype, start=start, stop=stop, step=step))
        return out
    return _arange_into(out, start, step)


def _on_host(op: str):
    """Run NumPy's kernel on host copies of the inputs, upload the result."""
    kernel = get_attr(op, "numpy_kernel")

    def run(*args, **params):
        dev = current()
        host = [a if isinstance(a, (int, float, complex, bool, np.generic, np.ndarray)) else dev.to_host(a)
                for a in args]
        return dev.asarray(kernel(*host, **params))
    run.__name__ = f"cupy_{op}_on_host"
    return run


def _indices(*, dimensions, dtype, output=None):
    m = xp()
    if output is None:
        return m.indices(dimensions, dtype)
    shape = [1] * len(dimensions)
    shape[output] = dimensions[output]
    return m.arange(dimensions[output], dtype=dtype).reshape(shape)


cupy("zeros", _zeros, get_attr("zeros", "numpy_out_kernel"), "xp.zeros; out: out.fill(0)")
cupy("ones", _ones, get_attr("ones", "numpy_out_kernel"), "xp.ones; out: out.fill(1)")
cupy("full", _full, _full_out, "xp.empty + xp.copyto of the (uploaded) fill value")
cupy("arange", _arange, _arange_out, "NumPy's fill recipe on the device (complex, bool, float16: NumPy's "
     "values, uploaded)")
for _op in ("linspace", "logspace", "geomspace", "linspace_step"):
    cupy(_op, _on_host(_op), None, "NumPy on the host from the few inputs, uploaded (bit-identical)")
cupy("eye", lambda *, shape, dtype, k: xp().eye(shape[0], shape[1], k.value, dtype), None, "xp.eye",
     needs=("eye",))
cupy("tri", lambda *, shape, dtype, k: xp().tri(shape[0], shape[1], k.value, dtype), None, "xp.tri",
     needs=("tri",))
dispatch("tril", "np.tril -> cupy.tril; out: compute + copy (NumPy's out-form makes host index arrays)",
         needs=("tril",), out=False)
dispatch("triu", "np.triu -> cupy.triu; out: compute + copy", needs=("triu",), out=False)
dispatch("meshgrid", "reshape + broadcast_to + copy dispatch", needs=("broadcast_to",))
cupy("indices", _indices, None, "xp.indices / xp.arange (NumPy's out-form makes host aranges)",
     needs=("indices",))

"""The reference NumPy kernels of the creation ops (declared in
``creation.py``): NumPy's own creation functions, so values are NumPy's bit for bit.  None of them reads data it was not given."""
import math

import numpy as np
from numpy._core._multiarray_umath import _array_converter  # what np.linspace itself uses

from .indexing_kernels import CHUNK, into


def full(*fill, shape, dtype, fill_value=None):
    out = np.empty(shape, dtype)
    # np.full and np.full_like fill with an unsafe cast; so do we
    np.copyto(out, fill[0] if fill else fill_value.array, casting="unsafe")
    return out


def arange(*, shape, dtype, start, stop, step):
    return np.arange(start.value, stop.value, step.value, dtype=dtype)


def linspace_step(start, stop, *, num, endpoint, dtype):
    """The step of ``np.linspace(..., retstep=True)``, computed as NumPy computes
    it (in the inexact type of start and stop), without making the samples."""
    div = num - 1 if endpoint else num
    if div <= 0:
        return np.asarray(np.nan, dtype)
    dt = np.result_type(start, stop, 0.0)
    delta = np.subtract(stop, start, dtype=dt.type)
    return np.asarray(delta / div, dtype)


def meshgrid(x, *, shape, axis):
    src = [1] * len(shape)
    src[axis] = -1
    return np.broadcast_to(np.reshape(x, src), shape).copy()


def indices(*, dimensions, dtype, output=None):
    if output is None:
        return np.indices(dimensions, dtype)
    return np.indices(dimensions, dtype, sparse=True)[output]


def zeros(*, shape, dtype):
    return np.zeros(shape, dtype)


def ones(*, shape, dtype):
    return np.ones(shape, dtype)


def linspace(start, stop, *, num, endpoint, dtype, axis):
    return np.linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)


def logspace(start, stop, base, *, num, endpoint, dtype, axis):
    return np.logspace(start, stop, num=num, endpoint=endpoint, base=base, dtype=dtype, axis=axis)


def geomspace(start, stop, *, num, endpoint, dtype, axis):
    return np.geomspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)


# k (a diagonal index) is a Scalar param
def eye(*, shape, dtype, k):
    return np.eye(shape[0], shape[1], k.value, dtype)


def tri(*, shape, dtype, k):
    return np.tri(shape[0], shape[1], k.value, dtype)


def tril(m, *, k):
    return np.tril(m, k.value)


def triu(m, *, k):
    return np.triu(m, k.value)


# ---------------------------------------------------------------- out-kernels
#
# Every creation op fills ``out`` without a full-size temporary: fill/copyto
# from a scalar, writes of rows, or NumPy's own recipe (arange's fill loop,
# linspace's arithmetic) replayed a chunk of rows at a time with the same
# operations in the same dtypes, so the values are NumPy's bit for bit.

def zeros_out(*, out, shape, dtype):
    out.fill(0)
    return out


def ones_out(*, out, shape, dtype):
    out.fill(1)
    return out


def full_out(*fill, out, shape, dtype, fill_value=None):
    np.copyto(out, fill[0] if fill else fill_value.array, casting="unsafe")
    return out


def _as_setitem(value, dtype):
    """What arange's C setitem stores: a NumPy scalar of another dtype is
    converted through Python (int(), float(), complex()), not cast."""
    return value.item() if isinstance(value, np.generic) and value.dtype != dtype else value


def arange_out(*, out, shape, dtype, start, stop, step):
    """np.arange: out[0] = start and out[1] = start + step (Python arithmetic,
    then setitem), then NumPy's fill loop for the rest."""
    n = out.shape[0]
    if n:
        out[0] = _as_setitem(start.value, out.dtype)
    if n > 1:
        out[1] = _as_setitem(start.value + step.value, out.dtype)
    if n > 2:
        for part in (out.real, out.imag) if out.dtype.kind == "c" else (out,):  # complex: per component
            _arange_fill(part)
    return out


def _arange_fill(part):
    """NumPy's ``@NAME@_fill`` (arraytypes.c.src): ``part[i] = start + i*delta``
    for i >= 2, with start = part[0], delta = part[1] - part[0], in the
    dtype's C arithmetic, CHUNK elements at a time."""
    n = part.shape[0]
    kind = part.dtype.kind
    if kind in "iu":
        # C: delta wraps in the dtype; start + i*delta in npy_intp, truncated on store
        start = part[:1].astype(np.int64)
        delta = (part[1:2] - part[:1]).astype(np.int64)
        for a in range(2, n, CHUNK):
            t = np.arange(a, min(a + CHUNK, n), dtype=np.int64)
            np.multiply(t, delta, out=t)
            np.add(t, start, out=t)
            np.copyto(part[a:a + t.shape[0]], t, casting="unsafe")
        return
    # floats: (type)i * delta + start; half computes in float32 and rounds on store
    calc = np.dtype(np.float32) if part.dtype == np.float16 else part.dtype
    start = part[:1].astype(calc)
    delta = part[1:2].astype(calc) - start
    direct = calc == part.dtype
    for a in range(2, n, CHUNK):
        b = min(a + CHUNK, n)
        t = np.arange(a, b, dtype=np.intp)
        dst = part[a:b] if direct else np.empty(b - a, calc)
        np.multiply(t, delta, out=dst, dtype=calc)
        np.add(dst, start, out=dst)
        if not direct:
            np.copyto(part[a:b], dst, casting="unsafe")


# _COMPLEX: NumPy's in-place complex multiply rounds the odd element of a
# short array differently from the same element in a longer one (numpy 2.4,
# AVX-512), so complex samples cannot be computed in chunks bit-identically:
# linspace/logspace/geomspace with complex results call NumPy and copy.


# _POWER: NumPy computes logspace's power(base, y) into a new array; in place
# on a one-element array (a last chunk of one row) its float32 power takes
# the scalar loop, not the SIMD one, and may differ by an ulp
# (power(2.2772214597711704, float32 2): 5.1857376 in place, 5.185737 as
# NumPy's logspace has it), so the out-kernels never take power in place.


class _Space:
    """np.linspace (numpy/_core/function_base.py), set up once and then
    computed a few rows of the sample axis at a time, with NumPy's operations
    in NumPy's order and dtypes (so each element is NumPy's, bit for bit)."""

    def __init__(self, start, stop, num, endpoint):
        self.num, self.endpoint = num, endpoint
        self.div = div = (num - 1) if endpoint else num
        conv = _array_converter(start, stop)
        self.start, self.stop = conv.as_arrays()
        self.dt = conv.result_type(ensure_inexact=True)
        delta = np.subtract(self.stop, self.start, dtype=type(self.dt))
        self.ones = (1,) * np.ndim(delta)
        if div > 0:
            step = delta / div
            zero = step == 0 if np.isscalar(delta) else np.asanyarray(step == 0).any()
            # NumPy: y /= div; y *= delta for denormal steps, else y *= step
            self.ops = ((np.divide, div), (np.multiply, delta)) if zero else ((np.multiply, step),)
        else:
            self.ops = ((np.multiply, delta),)

    def rows(self, y, a):
        """Rows a, a+1, ... of linspace's y (sample axis first, dtype dt) into ``y``."""
        # np.arange(0, num, dtype=dt) holds exactly (dt)i
        np.copyto(y, np.arange(a, a + y.shape[0], dtype=np.intp).reshape((-1,) + self.ones), casting="unsafe")
        for op, v in self.ops:
            op(y, v, out=y)
        np.add(y, self.start, out=y)
        last = self.num - 1 - a
        if self.endpoint and self.num > 1 and 0 <= last < y.shape[0]:
            y[last, ...] = self.stop


def _by_rows(out, axis, dt, fill):
    """Call ``fill(rows, a)`` on chunks of rows of the sample axis: views of
    ``out`` when its dtype is ``dt``, else small ``dt`` buffers that are then
    cast into ``out`` (NumPy's final ``astype``)."""
    yv = np.moveaxis(out, axis, 0)
    n = yv.shape[0]
    step = max(1, CHUNK // max(1, math.prod(yv.shape[1:])))
    for a in range(0, n, step):
        b = min(a + step, n)
        if out.dtype == dt:
            fill(yv[a:b], a)
        else:
            y = np.empty((b - a,) + yv.shape[1:], dt)
            fill(y, a)
            np.copyto(yv[a:b], y, casting="unsafe")
    return out


def space_rows(op, start, stop, base, num, endpoint, dtype):
    """``(dt, fill)`` for np.linspace / logspace / geomspace: ``fill(y, a)``
    writes rows ``a, a+1, ...`` of the samples (sample axis first) into ``y``
    of dtype ``dt``, bit for bit NumPy's, before its final cast to ``dtype``.
    None where only NumPy's own call will do (complex samples; geomspace with
    a zero end, which NumPy refuses).  Shared by the out-kernels and the Dask
    engine's blocks."""
    if op == "geomspace":
        return _geomspace_rows(start, stop, num, endpoint, dtype)
    sp = _Space(start, stop, num, endpoint)
    if op == "linspace":
        if sp.dt.kind == "c":
            return None
        integer = np.issubdtype(dtype, np.integer)

        def fill(y, a):
            sp.rows(y, a)
            if integer:
                np.floor(y, out=y)
        return sp.dt, fill
    rt = np.result_type(base, np.empty(0, sp.dt))  # power(base, y)'s dtype
    if rt.kind == "c":
        return None

    def fill(y, a):
        t = np.empty(y.shape, sp.dt)
        sp.rows(t, a)
        np.power(base, t, out=y)  # _POWER; rt is power's own dtype
    return rt, fill


def _geomspace_rows(start, stop, num, endpoint, dtype):
    """np.geomspace: logspace of the log10s of sign-rotated start/stop, the
    ends set exactly, the sign rotated back."""
    start, stop = np.asanyarray(start), np.asanyarray(stop)
    dt = np.result_type(start, stop, float(num), np.zeros((), dtype))
    if dt.kind == "c" or np.any(start == 0) or np.any(stop == 0):  # _COMPLEX, or NumPy's errors
        return None
    start = start.astype(dt, copy=True)
    stop = stop.astype(dt, copy=True)
    sign = np.sign(start)
    start /= sign
    stop = stop / sign
    # logspace(log10(start), log10(stop), base=10.0, dtype=dt): power(10.0, linspace(...)).astype(dt)
    sp = _Space(np.log10(start), np.log10(stop), num, endpoint)

    def fill(y, a):
        t = np.empty(y.shape, sp.dt)
        sp.rows(t, a)
        if sp.dt == dt:
            np.power(10.0, t, out=y)  # _POWER
        else:
            np.copyto(y, np.power(10.0, t), casting="unsafe")
        if a == 0 and y.shape[0]:
            y[0] = start
        if endpoint and num > 1 and a <= num - 1 < a + y.shape[0]:
            y[num - 1 - a] = stop
        np.multiply(y, sign, out=y)
    return dt, fill


def linspace_out(start, stop, *, out, num, endpoint, dtype, axis):
    rows = None if out.size == 0 else space_rows("linspace", start, stop, None, num, endpoint, dtype)
    if rows is None:  # NumPy's own call: its errors on an empty result, or _COMPLEX
        return into(out, np.linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis))
    return _by_rows(out, axis, *rows)


def linspace_step_out(start, stop, *, out, num, endpoint, dtype):
    div = num - 1 if endpoint else num
    dt = np.result_type(start, stop, 0.0)
    if div <= 0 or dt != out.dtype:
        return into(out, linspace_step(start, stop, num=num, endpoint=endpoint, dtype=dtype))
    np.subtract(stop, start, dtype=dt, out=out)
    np.divide(out, div, out=out)
    return out


def logspace_out(start, stop, base, *, out, num, endpoint, dtype, axis):
    """np.logspace: ``power(base, linspace(start, stop, axis=axis))``, cast to dtype."""
    call = dict(start=start, stop=stop, num=num, endpoint=endpoint, base=base, dtype=dtype, axis=axis)
    if out.size == 0:  # NumPy's own call: its errors, on an empty result
        return into(out, np.logspace(**call))
    if not isinstance(base, (float, int)) and np.ndim(base):  # NumPy broadcasts an array base first
        ndmax = np.broadcast(start, stop, base).ndim
        start, stop, base = (np.array(x, copy=None, subok=True, ndmin=ndmax) for x in (start, stop, base))
        base = np.moveaxis(np.expand_dims(base, axis=axis), axis, 0)  # as the rows: sample axis first
    rows = space_rows("logspace", start, stop, base, num, endpoint, dtype)
    if rows is None:
        return into(out, np.logspace(**call))  # _COMPLEX
    return _by_rows(out, axis, *rows)


def geomspace_out(start, stop, *, out, num, endpoint, dtype, axis):
    rows = None if out.size == 0 else space_rows("geomspace", start, stop, None, num, endpoint, dtype)
    if rows is None:  # NumPy's own call: its errors, or _COMPLEX
        return into(out, np.geomspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis))
    return _by_rows(out, axis, *rows)


def eye_out(*, out, shape, dtype, k):
    """np.eye: zeros, then ones every M+1 elements from the diagonal's start."""
    out.fill(0)
    m, k = shape[1], k.value
    if k < m:
        out[:m - k].flat[k if k >= 0 else -k * m::m + 1] = 1
    return out


#: diagonal offsets past which np.tri's int64 aranges overflow: left to NumPy
_HUGE = 2 ** 62


def tri_out(*, out, shape, dtype, k):
    """np.tri's comparison, written (and cast) straight into ``out``."""
    n, m, k = shape[0], shape[1], k.value
    if abs(k) >= _HUGE:
        return into(out, np.tri(n, m, k, dtype))  # NumPy's own call (it overflows)
    np.greater_equal.outer(np.arange(n), np.arange(-k, m - k), out=out)
    return out


def tri_part_out(upper: bool):
    """np.tril/np.triu: ``m`` copied, then zeros written a band of rows at a time."""
    def kernel(m, *, out, k):
        m = np.asarray(m)
        if abs(k.value) >= _HUGE:
            return into(out, (np.triu if upper else np.tril)(m, k.value))  # NumPy's own call (it overflows)
        if not np.may_share_memory(out, m):  # in place: out is m's own buffer
            np.copyto(out, m)  # a 1-d m fills every row, as NumPy broadcasts it
        n, cols = out.shape[-2:]
        if out.size == 0:
            return out
        kk = min(max(k.value, -n - 1), cols + 1)  # further out, rows are all kept or all zeroed
        j = np.arange(cols)
        zero_where = np.greater.outer if upper else np.less.outer  # triu: j < i+k; tril: j > i+k
        step = max(1, CHUNK // cols)
        for a in range(0, n, step):
            i = np.arange(a, min(a + step, n)) + kk
            np.copyto(out[..., a:a + i.shape[0], :], 0, casting="unsafe", where=zero_where(i, j))
        return out
    return kernel


def meshgrid_out(x, *, out, shape, axis):
    src = [1] * len(shape)
    src[axis] = -1
    np.copyto(out, np.reshape(x, src))
    return out


def indices_out(*, out, dimensions, dtype, output=None):
    ones = (1,) * len(dimensions)
    for i, dim in enumerate(dimensions):
        if output is None or i == output:
            idx = np.arange(dim, dtype=dtype).reshape(ones[:i] + (dim,) + ones[i + 1:])
            np.copyto(out if output is not None else out[i], idx)
    return out


tril_out = tri_part_out(False)
triu_out = tri_part_out(True)

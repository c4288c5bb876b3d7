"""Creation ops: arrays from data, or from a shape and a fill rule.

``asarray``/``array`` make constants (frozen copies of the data).  Every
other function here makes a lazy node whose params hold the shape, the fill
value and the dtype: ``zeros((10000, 10000))`` costs nothing until it is
evaluated, and its kernel is NumPy's own function, so values are NumPy's bit
for bit.  These ops carry the attribute ``creation=True``.

Default dtypes are NumPy's (float64; int64 for integers), except that a
stack made with ``fgraph.make(dtype="float32")`` uses its float dtype (and
complex64) where NumPy would choose float64 (complex128) by default, that
is, unless an argument is float64 data already.
"""
from __future__ import annotations

import datetime
import math
from collections.abc import Iterator
import operator as _operator
import warnings

import numpy as np

from ..array_api import canonical_dtype, unsupported_dtype
from ..errors import DTypeError, FgraphError, ShapeError
from ..tensor import _ZERO_D_ARRAY_OPS, Tensor, constant_node, lift, python_data_array, stack_of
from ..shape import as_shape, assignable_shape, broadcast_shapes, defop, normalize_axis
from ..symbol import Const, Scalar, error_at, make_node
from ..stack import current
from ..opdef import no_gradient
from ..registry import Refused
from . import creation_kernels as kernels
from .building import evaluated, namespace

__all__ = ["asarray", "array", "asanyarray", "ascontiguousarray", "copy", "from_dlpack",
           "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like",
           "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri", "tril", "triu",
           "meshgrid", "indices"]

_F64 = np.dtype(np.float64)
_C128 = np.dtype(np.complex128)


# ---------------------------------------------------------------- helpers

class _Located:
    """Re-raise a mistake in normalising arguments as an FgraphError that
    names the op and the user's line (a class, not a generator, so that the
    user's frame is the first one outside fgraph)."""

    __slots__ = ("op",)

    def __init__(self, op: str):
        self.op = op

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or (isinstance(exc, FgraphError) and "\n  at " in str(exc)):
            return False
        if isinstance(exc, FgraphError):
            cls = type(exc)
        elif isinstance(exc, (TypeError, OverflowError)):
            cls = DTypeError
        elif isinstance(exc, (ValueError, ZeroDivisionError, IndexError)):
            cls = ShapeError
        else:
            return False
        raise error_at(cls, self.op, str(exc)) from None


def _dtype(dtype, st, default=None) -> np.dtype | None:
    return default if dtype is None else canonical_dtype(dtype, st)


def _check_device(op: str, device, st) -> None:
    if device is not None and device != st.engine and not (device == "cpu" and st.engine == "numpy"):
        raise error_at(FgraphError, op, f"device {device!r} is not this stack's device {st.engine!r}; "
                                        "use fgraph.make(engine=...) to build on another engine")


def _stack_default(dt: np.dtype, strong, st) -> np.dtype:
    """NumPy's default float64/complex128 becomes the stack's float dtype,
    unless it came from float64/complex128 data among ``strong`` dtypes."""
    f = st.float_dtype
    if f == _F64 or any(s in (_F64, _C128) for s in strong):
        return dt
    if dt == _F64 and f.kind == "f":
        return f
    if dt == _C128 and f == np.float32:
        return np.dtype(np.complex64)
    return dt


def _strong(*args) -> list:
    """dtypes of the arguments that are data (arrays, lazy or NumPy, and NumPy scalars)."""
    return [np.dtype(a.dtype) for a in args if isinstance(a, (Tensor, np.ndarray, np.generic))]


def _probe(x, st):
    """A one-element stand-in with ``x``'s dtype and ndim, to learn NumPy's
    result dtype without touching data; Python and NumPy scalars stay as
    they are (Python scalars are weak under NEP 50)."""
    if isinstance(x, (int, float, complex, np.generic)):
        return x
    if not isinstance(x, (Tensor, np.ndarray)):
        x = _data(x, st)
    return np.ones((1,) * x.ndim, x.dtype)


def _data(x, st):
    """Non-lazy array-like as a NumPy array (Python data follows the stack)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)
    return _python_data(x, None, st)


def _python_data(x, dtype, st) -> np.ndarray:
    """``python_data_array``, saying which dtype fgraph refuses (strings, dates, objects) when it does."""
    try:
        return python_data_array(x, dtype, st)
    except DTypeError as err:
        try:
            kind = np.asarray(x, dtype=dtype).dtype
        except Exception:
            raise err from None
        if kind.kind in "OSUVMm":
            iterator = " (NumPy makes a 0-d object array of an iterator: pass list(it) or numpy.fromiter(it, " \
                       "dtype))" if isinstance(x, Iterator) else ""
            raise DTypeError(unsupported_dtype(kind) + iterator) from None
        raise


def _info(x, st) -> tuple[tuple, np.dtype]:
    """(shape, dtype) of a lazy or NumPy array, or of Python data."""
    if isinstance(x, Tensor):
        return x.shape, x.dtype
    a = _data(x, st)
    return a.shape, a.dtype


def _new(op: str, params: tuple, st, inputs=()) -> Tensor:
    return Tensor(make_node(op, inputs, params), st)


def _shape_dtype_rule(inputs, shape, dtype, **params):
    return shape, dtype


# ---------------------------------------------------------------- from data

def asarray(obj, dtype=None, order=None, *, device=None, copy=None, like=None):
    """Lazy ``numpy.asarray`` (and the Array API's): a lazy array as it is, or
    a constant holding a frozen copy of the data.

    Python floats follow the stack's float dtype.  ``copy=False`` refuses a
    dtype conversion; a NumPy array is always copied into the graph (graphs
    are immutable), so later writes to it do not change the graph.
    """
    st = stack_of((obj,))
    _check_device("asarray", device, st)
    with _Located("asarray"):
        dt = _dtype(dtype, st)
    if isinstance(obj, Tensor):
        if dt is None or dt == obj.dtype:
            return obj
        if copy is False:
            raise error_at(FgraphError, "asarray", f"copy=False, but converting {obj.dtype} to {dt} needs a copy")
        from .elementwise import astype

        return astype(obj, dt)
    if isinstance(obj, (list, tuple)) and any(isinstance(e, Tensor) for e in obj):
        t = Tensor(lift(obj, st), st)  # stacks the tensors
        return t if dt is None else asarray(t, dt)
    with _Located("asarray"):
        if isinstance(obj, np.ndarray) and dt is None:
            arr = obj
        elif isinstance(obj, (np.ndarray, np.generic)):
            arr = np.asarray(obj, dtype=dt)
        else:
            arr = _python_data(obj, dt, st)
        if arr.dtype.kind in "OSUVMm":
            raise DTypeError(unsupported_dtype(arr.dtype))
    return Tensor(constant_node(arr), st)


def array(obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    """Lazy ``numpy.array`` (arrays are immutable, so a copy is free)."""
    if ndmin and not isinstance(obj, Tensor) and not (isinstance(obj, (list, tuple)) and
                                                      any(isinstance(e, Tensor) for e in obj)):
        st = current()
        with _Located("array"):
            data = np.array(_data(obj, st) if dtype is None else obj, dtype=_dtype(dtype, st), ndmin=ndmin)
        return asarray(data)
    t = asarray(obj, dtype)
    if ndmin > t.ndim:
        from .movement import reshape

        t = reshape(t, (1,) * (ndmin - t.ndim) + t.shape)
    return zero_d_array(t)


def zero_d_array(t: Tensor) -> Tensor:
    """``t``, made a 0-d *array* if it is 0-d: ``np.array(s)`` and ``np.copy(s)``
    of a value NumPy holds as a scalar (``s = a.sum()``) give a 0-d array,
    which prints as one and is written in place by ``+=`` (a scalar's ``+=``
    rebinds the name).  The same value, by a 0-d reshape."""
    if t.ndim or t.node.op in _ZERO_D_ARRAY_OPS:
        return t
    return Tensor(make_node("reshape", [t.node], (("shape", ()),)), t.stack)


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """Lazy ``numpy.asanyarray``: the same as ``asarray``."""
    return asarray(a, dtype, device=device, copy=copy)


def ascontiguousarray(a, dtype=None, *, like=None):
    """Lazy ``numpy.ascontiguousarray``: ``a`` itself when it is laid out in
    C order already (at least 1-d), as NumPy returns it (writes to either
    reach both); else a new C-ordered array, a copy."""
    a = asarray(a, dtype)
    if a.ndim == 0:
        return namespace().reshape(a, (1,))  # a view of it, as NumPy's
    return a if a.flags.c_contiguous else Tensor(a.node, a.stack)


def copy(a, order="K", subok=False):
    """Lazy ``numpy.copy``: a new handle (later writes to ``a`` do not reach it)."""
    t = asarray(a)
    return zero_d_array(Tensor(t.node, t.stack) if t is a else t)


def from_dlpack(x, /, *, device=None, copy=None):
    """``numpy.from_dlpack`` as a constant; a lazy array is returned as it is."""
    if isinstance(x, Tensor):
        return x
    with _Located("from_dlpack"):
        arr = np.from_dlpack(x) if device is None and copy is None else np.from_dlpack(x, device=device, copy=copy)
    return asarray(arr)


# ---------------------------------------------------------------- filled with one value

# ops made from params alone have no inputs to differentiate: no_gradient
defop("zeros", _shape_dtype_rule, "numpy.zeros(shape, dtype)", creation=True, kernel=kernels.zeros,
      out_kernel=kernels.zeros_out, grad=no_gradient)
defop("ones", _shape_dtype_rule, "numpy.ones(shape, dtype)", creation=True, kernel=kernels.ones,
      out_kernel=kernels.ones_out, grad=no_gradient)


def _full_rule(inputs, shape, dtype, fill_value=None):
    if inputs:  # an array fill value broadcasts into the shape, as np.copyto does
        if assignable_shape(inputs[0].shape, shape) is None:  # copyto drops leading unit axes of its source
            raise ShapeError(f"could not broadcast a fill value of shape {inputs[0].shape} into shape {shape}")
    return shape, dtype


def _full_grad(out, ins, g, shape, dtype, fill_value=None):
    """The fill array is broadcast into shape (copyto drops its leading unit
    axes): its cotangent is g, summed down to it by the core."""
    if not ins:
        return ()
    extra = ins[0].ndim - g.ndim
    return (namespace().reshape(g, (1,) * extra + g.shape) if extra > 0 else g),


# inplace: a fill value of the output's shape: a copy (cast) onto itself; a scalar fill is a param, not an input
defop("full", _full_rule, "numpy.full(shape, fill_value, dtype): fill_value is a 0-d Const param, or the "
                          "input (an array broadcast into shape)", creation=True,
      inplace=lambda node: (0,) if node.inputs else (), kernel=kernels.full, out_kernel=kernels.full_out,
      grad=_full_grad)


def _filled(op: str, shape, dtype: np.dtype, st) -> Tensor:
    if dtype.kind in "OSUVMm":
        raise error_at(DTypeError, op, unsupported_dtype(dtype))
    return _new("zeros" if op in ("zeros", "empty", "zeros_like", "empty_like") else "ones",
                (("shape", shape), ("dtype", dtype)), st)


def _full(op: str, shape: tuple, fill_value, dtype: np.dtype | None, st) -> Tensor:
    """``full`` with NumPy's conversion: the value is cast unsafely to the dtype
    (``np.copyto(..., casting='unsafe')``), and a Python int out of range raises."""
    if isinstance(fill_value, Tensor):
        dt = fill_value.dtype if dtype is None else dtype
        return _new("full", (("shape", shape), ("dtype", dt)), st, (fill_value.node,))
    with _Located(op):
        if dtype is None:
            dtype = _data(fill_value, st).dtype
        if dtype.kind in "OSUVMm":
            raise DTypeError(unsupported_dtype(dtype))
        value = np.empty(np.shape(fill_value), dtype)
        np.copyto(value, fill_value, casting="unsafe")
    if value.ndim == 0:
        return _new("full", (("shape", shape), ("dtype", dtype), ("fill_value", Const(value))), st)
    return _new("full", (("shape", shape), ("dtype", dtype)), st, (constant_node(value),))


def _as_shape(shape):
    """A shape argument as a tuple; a 0-d array is one length (NumPy takes
    its ``__index__``: ``np.zeros(n)`` with ``n = a.max()``)."""
    if isinstance(shape, (Tensor, np.ndarray)) and shape.ndim == 0:
        shape = (shape,)
    return as_shape(shape)


def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    """Lazy ``numpy.zeros``; ``dtype`` defaults to the stack's float dtype."""
    st = current()
    _check_device("zeros", device, st)
    with _Located("zeros"):
        shape, dt = _as_shape(shape), _dtype(dtype, st, st.float_dtype)
    return _filled("zeros", shape, dt, st)


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    """Lazy ``numpy.ones``; ``dtype`` defaults to the stack's float dtype."""
    st = current()
    _check_device("ones", device, st)
    with _Located("ones"):
        shape, dt = _as_shape(shape), _dtype(dtype, st, st.float_dtype)
    return _filled("ones", shape, dt, st)


def empty(shape, dtype=None, order="C", *, device=None, like=None):
    """Lazy ``numpy.empty``: NumPy leaves the values undefined; here they are zeros."""
    st = current()
    _check_device("empty", device, st)
    with _Located("empty"):
        shape, dt = _as_shape(shape), _dtype(dtype, st, st.float_dtype)
    return _filled("empty", shape, dt, st)


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """Lazy ``numpy.full``: ``fill_value`` may be a scalar, or an array (lazy or
    NumPy) that broadcasts into ``shape``; the dtype defaults to its dtype."""
    st = stack_of((fill_value,))
    _check_device("full", device, st)
    with _Located("full"):
        shape, dt = _as_shape(shape), _dtype(dtype, st)
    return _full("full", shape, fill_value, dt, st)


def _like(op: str, a, dtype, shape, device):
    """(shape, dtype, stack) of a ``*_like`` result: ``a``'s, with overrides."""
    st = stack_of((a,))
    _check_device(op, device, st)
    with _Located(op):
        a_shape, a_dtype = _info(a, st)
        shape = a_shape if shape is None else _as_shape(shape)
        dt = _dtype(dtype, st, a_dtype)
    return shape, dt, st


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Lazy ``numpy.zeros_like``: only ``a``'s shape and dtype are used, so the
    result does not depend on ``a``'s values (nor on its node)."""
    shape, dt, st = _like("zeros_like", a, dtype, shape, device)
    return _filled("zeros_like", shape, dt, st)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Lazy ``numpy.ones_like`` (depends only on ``a``'s shape and dtype)."""
    shape, dt, st = _like("ones_like", a, dtype, shape, device)
    return _filled("ones_like", shape, dt, st)


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Lazy ``numpy.empty_like``: zeros (NumPy leaves the values undefined)."""
    shape, dt, st = _like("empty_like", prototype, dtype, shape, device)
    return _filled("empty_like", shape, dt, st)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Lazy ``numpy.full_like``: ``fill_value`` is cast to ``a``'s dtype (or ``dtype``)."""
    shape, dt, st = _like("full_like", a, dtype, shape, device)
    return _full("full_like", shape, fill_value, dt, st)


# ---------------------------------------------------------------- ranges

defop("arange", _shape_dtype_rule, "numpy.arange(start, stop, step, dtype); params hold the length",
      creation=True, kernel=kernels.arange, out_kernel=kernels.arange_out, grad=no_gradient)


def _ceil_to_intp(value: float) -> int:
    c = math.ceil(value) if math.isfinite(value) else value
    if c != c:
        raise ValueError("arange: cannot compute length")
    if not -2.0 ** 63 <= c <= 2.0 ** 63 - 1:  # NumPy says this, having caught its OverflowError
        raise ValueError("Maximum allowed size exceeded")
    return int(c)


def _arange_length(start, stop, step, cmplx: bool) -> int:
    """NumPy's arange length, computed exactly as NumPy does (``_calc_length``
    in ctors.c): with the arguments' own arithmetic, then a ceil."""
    delta = stop - start
    delta_nonzero = bool(delta != 0)
    try:
        val = delta / step
    except ZeroDivisionError:
        raise ZeroDivisionError("arange: step must not be zero") from None
    val_zero = bool(val == 0)
    if cmplx and isinstance(val, complex):
        return max(0, min(_ceil_to_intp(val.real), _ceil_to_intp(val.imag)))
    value = float(val)
    if val_zero and delta_nonzero:  # underflow, or a step of inf
        return 0 if math.copysign(1.0, value) < 0 else 1
    return max(0, _ceil_to_intp(value))


def _arange_scalar(x, what):
    """A concrete start/stop/step: Python scalars as they are, NumPy scalars and
    0-d arrays as NumPy scalars (their own arithmetic decides the length)."""
    if isinstance(x, Tensor):  # np.arange(a.max() + 1): known now outside tracing, as int(t) is
        x = evaluated(x, "arange", what, "the length of the result depends on it")
    if isinstance(x, np.ndarray):
        if x.ndim:
            raise DTypeError(f"{what} must be a scalar, got an array of shape {x.shape}")
        x = x[()]
    if isinstance(x, (str, bytes, np.generic, datetime.date, datetime.timedelta)) and \
            np.asarray(x).dtype.kind in "OSUMm":  # dates, strings
        raise DTypeError(f"{what} {x!r}: {unsupported_dtype(np.asarray(x).dtype)}")
    if not isinstance(x, (int, float, complex, np.generic)):  # bool is an int
        raise DTypeError(f"{what} must be a number, got {type(x).__name__}")
    return x


def arange(start=None, stop=None, step=None, dtype=None, *, device=None, like=None):
    """Lazy ``numpy.arange``: same length, dtype and values as NumPy.

    The length is computed as NumPy computes it (from the arguments' own
    arithmetic), the dtype is NumPy's (int64 for integers) or the stack's
    float dtype for floats, and the kernel is ``numpy.arange`` itself.
    """
    st = current()
    _check_device("arange", device, st)
    with _Located("arange"):
        if dtype is not None:  # a dtype fgraph does not hold is the first thing to say (datetime64[M], ...)
            canonical_dtype(dtype, st)
        if start is None:
            if stop is None:
                raise TypeError("arange() requires stop to be specified")
            start, stop = stop, None
        start = _arange_scalar(start, "start")
        stop = None if stop is None else _arange_scalar(stop, "stop")
        step = None if step is None else _arange_scalar(step, "step")
        given = [x for x in (start, stop, step) if x is not None]
        if dtype is None:
            # NumPy: at least intp, promoted with each argument's dtype (legacy promotion)
            dt = np.dtype(np.intp)
            for x in given:
                dt = np.promote_types(dt, np.asarray(x).dtype)
            dt = _stack_default(dt, _strong(*given), st)
        else:
            dt = canonical_dtype(dtype, st)
        if dt.kind in "OSUVMm":
            raise DTypeError(unsupported_dtype(dt))
        if step is None:
            step = 1
        if stop is None:
            start, stop = 0, start
        n = _arange_length(start, stop, step, dt.kind == "c")
        if dt.kind == "b" and n > 2:
            raise TypeError("arange() is only supported for booleans when the result has at most length 2")
    params = (("shape", (n,)), ("dtype", dt), ("start", Scalar(start)), ("stop", Scalar(stop)),
              ("step", Scalar(step)))
    return _new("arange", params, st)


def _space_shape(op, inputs, num, axis):
    b = broadcast_shapes(*(i.shape for i in inputs))
    ax = normalize_axis(axis, len(b) + 1)
    return b[:ax] + (num,) + b[ax:]


def _space_rule(op):
    def rule(inputs, num, endpoint, dtype, axis):
        return _space_shape(op, inputs, num, axis), dtype
    rule.__doc__ = f"numpy.{op}: broadcast start/stop(/base), num inserted at axis."
    return rule


#: the samples' gradient with respect to lazy ends is not written (none of these ops had a rule)
_NO_SPACE_GRAD = Refused("no gradient rule for the samples with respect to lazy start/stop/base; to "
                         "differentiate, build them from the ends: start + (stop - start) * linspace(0, 1, num)")

defop("linspace", _space_rule("linspace"), "numpy.linspace(start, stop, num, endpoint, dtype, axis)",
      creation=True, kernel=kernels.linspace, out_kernel=kernels.linspace_out, grad=_NO_SPACE_GRAD)
defop("logspace", _space_rule("logspace"), "numpy.logspace(start, stop, num, endpoint, base, dtype, axis)",
      creation=True, kernel=kernels.logspace, out_kernel=kernels.logspace_out, grad=_NO_SPACE_GRAD)
defop("geomspace", _space_rule("geomspace"), "numpy.geomspace(start, stop, num, endpoint, dtype, axis)",
      creation=True, kernel=kernels.geomspace, out_kernel=kernels.geomspace_out, grad=_NO_SPACE_GRAD)


def _step_rule(inputs, num, endpoint, dtype):
    div = num - 1 if endpoint else num
    return (broadcast_shapes(*(i.shape for i in inputs)) if div > 0 else ()), dtype


defop("linspace_step", _step_rule, "the step numpy.linspace(..., retstep=True) returns", creation=True,
      kernel=kernels.linspace_step, out_kernel=kernels.linspace_step_out, grad=_NO_SPACE_GRAD)


def _space(op: str, args: tuple, num, endpoint, dtype, axis):
    """Normalise a linspace/logspace/geomspace call: (num, endpoint, dtype, axis, stack, nodes).

    Without ``dtype``, NumPy's own function run on one-element stand-ins
    says the dtype (its rules differ between the three, and by NEP 50)."""
    st = stack_of(args)
    with _Located(op):
        num = _operator.index(num)
        if num < 0:
            raise ValueError(f"Number of samples, {num}, must be non-negative.")
        endpoint = bool(endpoint)
        axis = _operator.index(axis)
        nodes = [lift(a, st) for a in args]
        axis = normalize_axis(axis, len(broadcast_shapes(*(n.shape for n in nodes))) + 1)
        if dtype is None:
            probes = [_probe(a, st) for a in args]
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                kw = {"base": probes[2]} if op == "logspace" else {}
                dt = np.asarray(getattr(np, op)(probes[0], probes[1], num=2, **kw)).dtype
            dt = _stack_default(dt, _strong(*args), st)
        else:
            dt = canonical_dtype(dtype, st)
    return num, endpoint, dt, axis, st, nodes


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """Lazy ``numpy.linspace`` (start and stop may be arrays, lazy or not).

    With ``retstep=True`` returns ``(samples, step)``; ``step`` is lazy too.
    """
    num, endpoint, dt, axis, st, nodes = _space("linspace", (start, stop), num, endpoint, dtype, axis)
    _check_device("linspace", device, st)
    out = _new("linspace", (("num", num), ("endpoint", endpoint), ("dtype", dt), ("axis", axis)), st, nodes)
    if not retstep:
        return out
    with _Located("linspace"):  # the step keeps the computation dtype, as NumPy's does
        probes = [_probe(a, st) for a in (start, stop)]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            step = np.linspace(probes[0], probes[1], num=min(num, 2), endpoint=endpoint, retstep=True)[1]
        step = np.asarray(step)
        sdt = _stack_default(step.dtype, _strong(start, stop), st)
    return out, _new("linspace_step", (("num", num), ("endpoint", endpoint), ("dtype", sdt)), st, nodes)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """Lazy ``numpy.logspace``: ``base ** linspace(start, stop)``."""
    num, endpoint, dt, axis, st, nodes = _space("logspace", (start, stop, base), num, endpoint, dtype, axis)
    return _new("logspace", (("num", num), ("endpoint", endpoint), ("dtype", dt), ("axis", axis)), st, nodes)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Lazy ``numpy.geomspace``; zero in a lazy start/stop raises when evaluated."""
    for a in (start, stop):
        if not isinstance(a, Tensor) and np.any(np.asarray(a) == 0):  # a lazy one raises when evaluated
            raise error_at(ShapeError, "geomspace", "Geometric sequence cannot include zero")
    num, endpoint, dt, axis, st, nodes = _space("geomspace", (start, stop), num, endpoint, dtype, axis)
    return _new("geomspace", (("num", num), ("endpoint", endpoint), ("dtype", dt), ("axis", axis)), st, nodes)


# ---------------------------------------------------------------- matrices

defop("eye", _shape_dtype_rule, "numpy.eye(N, M, k, dtype)", creation=True, kernel=kernels.eye,
      out_kernel=kernels.eye_out, grad=no_gradient)
defop("tri", _shape_dtype_rule, "numpy.tri(N, M, k, dtype)", creation=True, kernel=kernels.tri,
      out_kernel=kernels.tri_out, grad=no_gradient)


def _diag(k: int) -> Scalar:
    # A diagonal index is held as a Scalar: Python's hash(-1) == hash(-2), so
    # a bare int would give eye(k=-1) and eye(k=-2) the same structural key.
    return Scalar(k)


def _int(x, what: str) -> int:
    try:
        return _operator.index(x)
    except TypeError:
        raise DTypeError(f"{what} must be an integer, got {type(x).__name__}") from None


def eye(N, M=None, k=0, dtype=None, order="C", *, device=None, like=None):
    """Lazy ``numpy.eye``: ones on diagonal ``k`` of an ``N x M`` matrix.

    ``dtype`` defaults to the stack's float dtype.
    """
    st = current()
    _check_device("eye", device, st)
    with _Located("eye"):
        shape = _as_shape((N, N if M is None else M))
        k = _int(k, "k")
        dt = _dtype(dtype, st, st.float_dtype)
    return _new("eye", (("shape", shape), ("dtype", dt), ("k", _diag(k))), st)


def identity(n, dtype=None, *, like=None):
    """Lazy ``numpy.identity``: ``eye(n, dtype=dtype)``."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None, *, like=None):
    """Lazy ``numpy.tri``: ones at and below diagonal ``k``.

    As NumPy, a negative ``N`` or ``M`` gives an empty dimension.
    """
    st = current()
    with _Located("tri"):
        n = _int(N, "N")
        m = n if M is None else _int(M, "M")
        k = _int(k, "k")
        dt = _dtype(dtype, st, st.float_dtype)
    return _new("tri", (("shape", (max(n, 0), max(m, 0))), ("dtype", dt), ("k", _diag(k))), st)


def _tri_part_rule(inputs, k):
    (x,) = inputs
    if not x.shape:
        raise ShapeError("needs an array of at least one dimension, got a 0-d array")
    if len(x.shape) == 1:  # NumPy masks a 1-d array with an (n, n) triangle
        return (x.shape[0], x.shape[0]), x.dtype
    return x.shape, x.dtype


def _tril_grad(out, ins, g, k):
    # linear: the same mask on the cotangent (a 1-d m was broadcast along the rows: the core sums them)
    return tril(g, k.value),


def _triu_grad(out, ins, g, k):
    return triu(g, k.value),


# inplace: the out-kernel copies m into out (nothing to copy when out is m), then writes zeros
defop("tril", _tri_part_rule, "numpy.tril(m, k)", creation=True, inplace=(0,), kernel=kernels.tril,
      out_kernel=kernels.tril_out, grad=_tril_grad)
defop("triu", _tri_part_rule, "numpy.triu(m, k)", creation=True, inplace=(0,), kernel=kernels.triu,
      out_kernel=kernels.triu_out, grad=_triu_grad)


def tril(m, k=0):
    """Lazy ``numpy.tril``: zeros above diagonal ``k`` of the last two axes."""
    st = stack_of((m,))
    with _Located("tril"):
        k = _int(k, "k")
    return _new("tril", (("k", _diag(k)),), st, (lift(asarray(m), st),))


def triu(m, k=0):
    """Lazy ``numpy.triu``: zeros below diagonal ``k`` of the last two axes."""
    st = stack_of((m,))
    with _Located("triu"):
        k = _int(k, "k")
    return _new("triu", (("k", _diag(k)),), st, (lift(asarray(m), st),))


# ---------------------------------------------------------------- grids

def _grid_rule(inputs, shape, axis):
    (x,) = inputs
    n = 1
    for d in x.shape:
        n *= d
    if n != shape[axis]:
        raise ShapeError(f"input of {n} elements does not fill axis {axis} of grid shape {shape}")
    return shape, x.dtype


def _meshgrid_grad(out, ins, g, shape, axis):
    # x flattened along axis and broadcast: the cotangent summed over the other axes, in x's shape
    fnp = namespace()
    others = tuple(a for a in range(len(shape)) if a != axis)
    return fnp.reshape(fnp.sum(g, axis=others) if others else g, ins[0].shape),


defop("meshgrid", _grid_rule, "one array of numpy.meshgrid: x flattened along axis, broadcast to shape",
      creation=True, inplace=(0,),  # x of the output's shape: a copy onto itself
      kernel=kernels.meshgrid, out_kernel=kernels.meshgrid_out, grad=_meshgrid_grad)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Lazy ``numpy.meshgrid``; returns a list (as the Array API says; NumPy 2
    returns a tuple).  Each input is flattened, as NumPy does."""
    if indexing not in ("xy", "ij"):
        raise error_at(ShapeError, "meshgrid", f"Valid values for `indexing` are 'xy' and 'ij', got {indexing!r}")
    st = stack_of(xi)
    arrays = [asarray(x) for x in xi]
    lengths = [a.size for a in arrays]
    ndim = len(arrays)
    axes = list(range(ndim))
    if indexing == "xy" and ndim > 1:  # the first two axes swap
        axes[0], axes[1] = 1, 0
    full_shape = [0] * ndim
    for a, n in zip(axes, lengths):
        full_shape[a] = n
    out = []
    for a, n, t in zip(axes, lengths, arrays):
        shape = tuple(full_shape) if not sparse else tuple(n if i == a else 1 for i in range(ndim))
        out.append(_new("meshgrid", (("shape", shape), ("axis", a)), st, (t.node,)))
    return out


def _indices_rule(inputs, dimensions, dtype, output=None):
    n = len(dimensions)
    if output is None:
        return (n,) + dimensions, dtype
    return tuple(d if i == output else 1 for i, d in enumerate(dimensions)), dtype


defop("indices", _indices_rule, "numpy.indices(dimensions, dtype); output=i: the i-th sparse array",
      creation=True, kernel=kernels.indices, out_kernel=kernels.indices_out, grad=no_gradient)


def indices(dimensions, dtype=int, sparse=False):
    """Lazy ``numpy.indices``: a dense array, or a tuple of sparse ones."""
    st = current()
    with _Located("indices"):
        dims = _as_shape(tuple(dimensions))
        dt = canonical_dtype(dtype, st)
    params = (("dimensions", dims), ("dtype", dt))
    if sparse:
        return tuple(_new("indices", params + (("output", i),), st) for i in range(len(dims)))
    return _new("indices", params, st)

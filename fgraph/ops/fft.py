"""Discrete Fourier transforms (``numpy.fft``; the namespace is
``fgraph.numpy.fft``).

One op, ``fft``: a 1-D transform of one ``kind`` (fft, ifft, rfft, irfft,
hfft, ihfft) along one ``axis``, of length ``n`` (the input cropped or
zero-padded to it), with NumPy's ``norm``.  The n-dimensional transforms
are 1-D ones in sequence, the sequence NumPy's own ``fftn`` and friends
run, so results are NumPy's bit for bit; dtypes too (NumPy 2 keeps single
precision: float32 in, complex64 out).  ``fftfreq``, ``rfftfreq``,
``fftshift`` and ``ifftshift`` are compositions of other ops.  Gradients
are not defined: they are for real floating dtypes only (see README).
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError
from ..tensor import Tensor, lift, stack_of
from ..registry import Refused
from ..shape import defop
from ..symbol import error_at, make_node, refuse_out
from .batching import _along_axis
from .building import axis_index, lazy, namespace, python_int, python_value

__all__: list[str] = []  # nothing in the main namespace: fgraph.numpy.fft holds FFT_ALL
FFT_ALL = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

KINDS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
NORMS = (None, "backward", "ortho", "forward")
#: kinds whose output is half the spectrum (n // 2 + 1 values of n)
_HALF = ("rfft", "ihfft")
#: kinds whose input is half a spectrum: the default n is 2 * (m - 1)
_FROM_HALF = ("irfft", "hfft")


@functools.lru_cache(maxsize=None)
def result_dtype(kind: str, dtype: np.dtype) -> np.dtype:
    """The dtype NumPy's ``numpy.fft.<kind>`` gives for ``dtype`` input (asked of NumPy itself)."""
    if dtype.kind not in "biufc":
        raise DTypeError(f"{kind} takes numeric input, not {dtype}")
    try:
        return getattr(np.fft, kind)(np.zeros(2, dtype), n=2).dtype
    except TypeError:
        raise DTypeError(f"{kind} takes real input, not {dtype}") from None


def _fft_rule(inputs, kind, n, axis, norm):
    (x,) = inputs
    shape = list(x.shape)
    shape[axis] = n // 2 + 1 if kind in _HALF else n
    return tuple(shape), result_dtype(kind, x.dtype)


def _fft_kernel(x, kind, n, axis, norm):
    """``numpy.fft`` itself (read when it runs: importing fgraph must not import numpy.fft)."""
    return getattr(np.fft, kind)(x, n=n, axis=axis, norm=norm)


def _fft_out(x, *, out, kind, n, axis, norm):
    """``numpy.fft``'s ``out=`` form: straight into the planned buffer."""
    return getattr(np.fft, kind)(x, n=n, axis=axis, norm=norm, out=out)


defop("fft", _fft_rule, "numpy.fft's 1-D transforms (params kind, n, axis, norm)",
      kernel=_fft_kernel, out_kernel=_fft_out, batch_rule=_along_axis,
      grad=Refused("its values are complex on one side: gradients are for real floating dtypes only"))


def _transform(kind: str, a, n, axis, norm, out, name: str | None = None) -> Tensor:
    name = name or kind
    refuse_out(name, out)
    if norm not in NORMS:
        raise error_at(FgraphError, name, f'Invalid norm value {norm!r}; should be "backward", "ortho" or "forward"')
    st = stack_of((a,))
    x = lift(a, st)
    if x.ndim == 0:
        raise error_at(ShapeError, name, "a 0-d array has no axis to transform")
    axis = axis_index(axis, x.ndim, name)
    m = x.shape[axis]
    n = (2 * (m - 1) if kind in _FROM_HALF else m) if n is None else python_int(n, name, "n")
    if n < 1:
        raise error_at(ShapeError, name, f"Invalid number of FFT data points ({n}) specified "
                                         f"(input {x.dtype}{list(x.shape)}, axis {axis})")
    return Tensor(make_node("fft", [x], (("kind", kind), ("n", n), ("axis", axis), ("norm", norm))), st)


def fft(a, n=None, axis=-1, norm=None, out=None):
    """Lazy ``numpy.fft.fft``: the 1-D discrete Fourier transform."""
    return _transform("fft", a, n, axis, norm, out)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """Lazy ``numpy.fft.ifft``: the 1-D inverse transform."""
    return _transform("ifft", a, n, axis, norm, out)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """Lazy ``numpy.fft.rfft``: the transform of real input (n // 2 + 1 values)."""
    return _transform("rfft", a, n, axis, norm, out)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """Lazy ``numpy.fft.irfft``: the inverse of ``rfft`` (real output, n values)."""
    return _transform("irfft", a, n, axis, norm, out)


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """Lazy ``numpy.fft.hfft``: the transform of a Hermitian-symmetric signal (real output)."""
    return _transform("hfft", a, n, axis, norm, out)


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """Lazy ``numpy.fft.ihfft``: the inverse of ``hfft``."""
    return _transform("ihfft", a, n, axis, norm, out)


def _nd_args(name: str, a, s, axes, invreal: bool):
    """NumPy's ``_cook_nd_args``: the lengths and axes of an n-D transform."""
    python_value(s, name, "s")
    python_value(axes, name, "axes")
    shape = tuple(getattr(a, "shape", np.shape(a)))
    shapeless = s is None
    if s is None:
        s = list(shape) if axes is None else [shape[python_int(ax, name, "axes")] for ax in axes]
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn("`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0). In a future "
                          "version of NumPy, this will raise an error and `s[i]` will correspond to the size along "
                          "the transformed axis specified by `axes[i]`. To retain current behaviour, pass a "
                          "sequence [0, ..., k-1] to `axes` for an array of dimension k.", DeprecationWarning,
                          stacklevel=4)
        axes = list(range(-len(s), 0))
    axes = list(axes)
    if len(s) != len(axes):
        raise error_at(ShapeError, name, f"Shape and axes have different lengths ({len(s)} and {len(axes)})")
    if invreal and shapeless:
        s[-1] = (shape[axes[-1]] - 1) * 2
    if None in s:
        raise error_at(FgraphError, name, "s holds None: pass each axis's length (or -1 for the whole axis)")
    s = [shape[ax] if k == -1 else k for k, ax in zip(s, axes)]
    return s, axes


def _nd(name: str, a, s, axes, norm, out, first_kind: str | None, rest_kind: str):
    """NumPy's sequence: ``first_kind`` on the last axis (if given), then
    ``rest_kind`` on the others, last to first."""
    refuse_out(name, out)
    s, axes = _nd_args(name, a, s, axes, invreal=False)
    order = list(range(len(axes)))
    if first_kind is not None:
        a = _transform(first_kind, a, s[-1], axes[-1], norm, None, name)
        order = order[:-1]
    for i in reversed(order):
        a = _transform(rest_kind, a, s[i], axes[i], norm, None, name)
    return a


def fftn(a, s=None, axes=None, norm=None, out=None):
    """Lazy ``numpy.fft.fftn``: 1-D transforms over ``axes`` (all by default)."""
    return _nd("fftn", a, s, axes, norm, out, None, "fft")


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """Lazy ``numpy.fft.ifftn``."""
    return _nd("ifftn", a, s, axes, norm, out, None, "ifft")


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """Lazy ``numpy.fft.rfftn``: ``rfft`` on the last axis, then ``fft`` on the others."""
    return _nd("rfftn", a, s, axes, norm, out, "rfft", "fft")


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """Lazy ``numpy.fft.irfftn``: ``ifft`` on all axes but the last, then ``irfft`` on it."""
    refuse_out("irfftn", out)
    s, axes = _nd_args("irfftn", a, s, axes, invreal=True)
    for i in range(len(axes) - 1):
        a = _transform("ifft", a, s[i], axes[i], norm, None, "irfftn")
    return _transform("irfft", a, s[-1], axes[-1], norm, None, "irfftn")


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Lazy ``numpy.fft.fft2``."""
    return _nd("fft2", a, s, axes, norm, out, None, "fft")


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Lazy ``numpy.fft.ifft2``."""
    return _nd("ifft2", a, s, axes, norm, out, None, "ifft")


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Lazy ``numpy.fft.rfft2``."""
    return _nd("rfft2", a, s, axes, norm, out, "rfft", "fft")


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Lazy ``numpy.fft.irfft2``."""
    return irfftn(a, s, axes, norm, out)


def _freq_dtype(op: str, values, dtype, device):
    """The Array API's ``dtype=``/``device=`` on NumPy's frequencies: a real
    floating dtype the values are cast to (as array-api-compat does)."""
    from ..array_api import canonical_dtype
    from .creation import _check_device

    _check_device(op, device, values.stack)
    if dtype is None:  # NumPy's float64, or the stack's default float dtype (fgraph.make(dtype="float32"))
        f = values.stack.float_dtype
        return values.astype(f) if f.kind == "f" and f != values.dtype else values
    dt = canonical_dtype(dtype, values.stack)
    if dt.kind != "f":
        raise error_at(DTypeError, op, f"dtype must be a real floating-point dtype, got {dt}")
    return values.astype(dt)


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """Lazy ``numpy.fft.fftfreq``: the sample frequencies of an n-point
    transform (``dtype=``: the Array API's, a real floating dtype)."""
    n = python_int(n, "fftfreq", "n")
    fnp, val = namespace(), 1.0 / (n * d)
    positive = (n - 1) // 2 + 1
    ints = fnp.concatenate((fnp.arange(0, positive, dtype=int), fnp.arange(-(n // 2), 0, dtype=int)))
    return _freq_dtype("fftfreq", ints * val, dtype, device)


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """Lazy ``numpy.fft.rfftfreq``: the sample frequencies of ``rfft``'s output
    (``dtype=``: the Array API's, a real floating dtype)."""
    n = python_int(n, "rfftfreq", "n")
    return _freq_dtype("rfftfreq", namespace().arange(0, n // 2 + 1, dtype=int) * (1.0 / (n * d)), dtype, device)


def _shift(name: str, x, axes, sign: int):
    fnp, x = namespace(), lazy(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [sign * (dim // 2) for dim in x.shape]
    elif isinstance(axes, (int, np.integer)):
        shift = sign * (x.shape[axis_index(axes, x.ndim, name)] // 2)
    else:
        shift = [sign * (x.shape[axis_index(ax, x.ndim, name)] // 2) for ax in axes]
    return fnp.roll(x, shift, axes)


def fftshift(x, axes=None):
    """Lazy ``numpy.fft.fftshift``: the zero frequency moved to the centre."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None):
    """Lazy ``numpy.fft.ifftshift``: the inverse of ``fftshift``."""
    return _shift("ifftshift", x, axes, -1)

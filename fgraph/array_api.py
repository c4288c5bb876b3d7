"""Dtypes as the namespace exposes them, and the Array API's dtype helpers.

``fgraph.numpy`` is a Python Array API standard namespace (version
2024.12).  This module holds the parts of the standard that are about data
types and the namespace itself: the dtype objects (NumPy's own scalar types,
exactly as ``numpy`` exposes them, so ``fnp.float32`` works as a dtype
argument everywhere), ``finfo``, ``iinfo``, ``isdtype``, ``result_type``,
``can_cast`` and ``__array_namespace_info__``.  The functions accept lazy
arrays wherever the standard accepts arrays; none of them evaluates one.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .errors import DTypeError, FgraphError
from .symbol import error_at

__array_api_version__ = "2024.12"

# The standard's dtype names, bound to NumPy's scalar types (``np.float32``
# compares equal to ``np.dtype("float32")`` and is accepted by every dtype=).
_DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float32", "float64", "complex64", "complex128")
globals().update({name: getattr(np, name) for name in _DTYPE_NAMES})

# kind strings of ``isdtype`` -> the NumPy dtype kinds they cover (as numpy.isdtype:
# float16 is "real floating" too, though the standard does not list it)
_KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}


_UNSUPPORTED_KINDS = {"O": "object", "S": "bytes", "U": "string", "V": "void", "M": "datetime", "m": "timedelta"}


def unsupported_dtype(dtype) -> str:
    """Why fgraph refuses ``dtype`` (strings, bytes, dates, records, objects): the message."""
    dt = np.dtype(dtype)
    kind = "structured" if dt.names is not None else _UNSUPPORTED_KINDS.get(dt.kind, dt.kind)
    return (f"fgraph does not support {kind} dtypes ({dt}): its arrays hold booleans and numbers (bool, integer, "
            "floating and complex dtypes); keep such data in NumPy arrays")


def canonical_dtype(dtype, stack=None) -> np.dtype:
    """A user's dtype argument as a NumPy dtype; ``float``/None follow the stack."""
    if dtype is builtins.float and stack is not None:
        return stack.float_dtype
    if dtype is builtins.complex and stack is not None and stack.float_dtype == np.float32:
        return np.dtype(np.complex64)
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise DTypeError(f"not a dtype: {dtype!r} ({e})") from None
    if dt.kind in "OSUVMm":
        raise DTypeError(unsupported_dtype(dt))
    return dt


def _dtype_of(x, op: str) -> np.dtype:
    """The dtype of an array (lazy or NumPy) or of a dtype-like argument."""
    if isinstance(x, np.dtype):
        return x
    if hasattr(x, "dtype") and not isinstance(x, type):
        return np.dtype(x.dtype)
    try:
        return canonical_dtype(x)
    except DTypeError as e:
        raise error_at(DTypeError, op, str(e)) from None


class _NarrowFloat(builtins.float):
    """A float32 (or float16) limit that is also a Python ``float``, as the
    Array API wants ``finfo(float32).eps`` to be, and otherwise behaves as
    NumPy's ``np.float32`` scalar does: it prints as one, and arithmetic and
    ufuncs on it compute in float32 (``eps * 10``, ``x32 / (n + eps)``)."""

    __slots__ = ()
    _type = np.float32

    def _np(self):
        return self._type(builtins.float(self))

    def __repr__(self):
        return repr(self._np())

    def __str__(self):
        return str(self._np())

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._np(), dtype=dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(i._np() if isinstance(i, _NarrowFloat) else i for i in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __reduce__(self):
        return type(self), (builtins.float(self),)


def _arithmetic(name: str):
    fn = getattr(operator, name)
    return (lambda self, other: fn(self._np(), other)), (lambda self, other: fn(other, self._np()))


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow"):
    _fwd, _rev = _arithmetic(_op)
    setattr(_NarrowFloat, f"__{_op}__", _fwd)
    setattr(_NarrowFloat, f"__r{_op}__", _rev)
_NarrowFloat.__divmod__ = lambda self, other: divmod(self._np(), other)
_NarrowFloat.__rdivmod__ = lambda self, other: divmod(other, self._np())
_NarrowFloat.__neg__ = lambda self: -self._np()
_NarrowFloat.__pos__ = lambda self: +self._np()
_NarrowFloat.__abs__ = lambda self: abs(self._np())
_NarrowFloat.__round__ = lambda self, ndigits=None: round(self._np(), ndigits)


class _NarrowFloat16(_NarrowFloat):
    __slots__ = ()
    _type = np.float16


_NARROW = {np.dtype(np.float32): _NarrowFloat, np.dtype(np.float16): _NarrowFloat16}


class _Finfo(np.finfo):
    """``numpy.finfo`` (a subclass: every attribute and the same text), whose
    float16/float32 limits are Python floats that act as NumPy's scalars."""

    _finfo_cache = {}  # its own: NumPy's cache keeps NumPy's objects

    def _init(self, dtype):
        super()._init(dtype)
        narrow = _NARROW.get(self.dtype)
        if narrow is not None:
            for name in ("max", "min", "eps", "smallest_normal", "smallest_subnormal"):
                if name in self.__dict__:
                    self.__dict__[name] = narrow(self.__dict__[name])
        return self


_Finfo.__name__ = _Finfo.__qualname__ = "finfo"  # NumPy's repr names the class


def finfo(type, /):
    """Machine limits of a floating dtype (``numpy.finfo``); takes a dtype or an array.

    The result is a ``numpy.finfo``; as the Array API requires, ``bits`` is
    an int and ``eps``, ``max``, ``min`` and ``smallest_normal`` are Python
    floats, which for float32 still print and compute as NumPy's float32
    scalars do.  A complex dtype's limits are its real dtype's (``dtype``
    float32 for complex64).
    """
    dt = _dtype_of(type, "finfo")
    if dt.kind not in "fc":
        raise error_at(DTypeError, "finfo", f"finfo needs a floating-point dtype, got {dt}")
    return _Finfo(dt)


def iinfo(type, /):
    """Machine limits of an integer dtype (``numpy.iinfo``); takes a dtype or an array."""
    dt = _dtype_of(type, "iinfo")
    if dt.kind not in "iu":
        raise error_at(DTypeError, "iinfo", f"iinfo needs an integer dtype, got {dt}")
    return np.iinfo(dt)


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind``: a dtype, a kind string of the standard, or a tuple of these."""
    try:
        if dtype is None:
            raise TypeError
        dt = np.dtype(dtype)
    except TypeError:
        raise error_at(DTypeError, "isdtype", f"not a dtype: {dtype!r}") from None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in _KINDS:
                raise error_at(DTypeError, "isdtype", f"unknown dtype kind {k!r}; kinds are {sorted(_KINDS)}")
            if dt.kind in _KINDS[k]:
                return True
        else:
            try:
                if dt == np.dtype(k):
                    return True
            except TypeError:
                raise error_at(DTypeError, "isdtype", f"kind must be a dtype or one of {sorted(_KINDS)}, "
                                                      f"got {k!r}") from None
    return False


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives (NEP 50): arrays (lazy or NumPy),
    dtypes and Python scalars; Python scalars are weak."""
    args = []
    for a in arrays_and_dtypes:
        if type(a) in (builtins.bool, int, builtins.float, builtins.complex) or isinstance(a, np.dtype):
            args.append(a)
        else:
            args.append(_dtype_of(a, "result_type"))
    try:
        return np.result_type(*args)
    except (TypeError, ValueError) as e:
        raise error_at(DTypeError, "result_type", str(e)) from None


def can_cast(from_, to, /, casting="safe"):
    """Whether ``from_`` (a dtype or an array, lazy or NumPy) casts to ``to`` under ``casting``."""
    try:
        return builtins.bool(np.can_cast(_dtype_of(from_, "can_cast"), _dtype_of(to, "can_cast"), casting))
    except ValueError as e:  # unknown casting rule
        raise error_at(DTypeError, "can_cast", str(e)) from None


class Info:
    """What ``__array_namespace_info__()`` returns: the namespace's capabilities,
    devices and dtypes, for the stack it was asked from."""

    __slots__ = ("_stack",)

    def __init__(self, stack):
        self._stack = stack

    def capabilities(self) -> dict:
        # shapes are static: no boolean-mask indexing, no unique/nonzero
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}

    def default_device(self):
        return self._stack.engine

    def devices(self) -> list:
        return [self._stack.engine]

    def _check_device(self, device):
        if device is not None and device != self._stack.engine:
            raise error_at(FgraphError, "__array_namespace_info__", f"unknown device {device!r}; "
                                                                     f"this namespace has {self.devices()}")

    def default_dtypes(self, *, device=None) -> dict:
        self._check_device(device)
        f = self._stack.float_dtype  # the stack's default: a real or a complex dtype
        real = f if f.kind == "f" else np.finfo(f).dtype
        c = f if f.kind == "c" else np.result_type(real, np.complex64)
        return {"real floating": real, "complex floating": c, "integral": np.dtype(np.int64),
                "indexing": np.dtype(np.int64)}

    def dtypes(self, *, device=None, kind=None) -> dict:
        self._check_device(device)
        names = _DTYPE_NAMES if kind is None else [n for n in _DTYPE_NAMES if isdtype(np.dtype(n), kind)]
        return {n: np.dtype(n) for n in names}

    def __repr__(self):
        return f"<fgraph Array API namespace info for {self._stack!r}>"


def __array_namespace_info__():
    """The Array API's inspection object for this namespace (its stack)."""
    from .stack import current

    return Info(current())


__all__ = list(_DTYPE_NAMES) + ["finfo", "iinfo", "isdtype", "result_type", "can_cast",
                                "__array_namespace_info__", "__array_api_version__"]

"""Reductions and scans: sum, mean, var, max, argmax, cumsum, the nan-family.

Every op here is NumPy's own function: the NumPy kernel calls it with the
same arguments, so values are bit-identical (same pairwise summation order,
same intermediate dtypes).  Result dtypes come from running that function on
a probe array of the input's dtype whose every non-zero dimension is 1, so
the rule also reproduces NumPy's errors for empty inputs (``max`` of an
empty axis raises when the node is made, naming the op and the shape).

Params (all hashable, normalised so equal calls give equal nodes):

* ``axis``: reductions (``reduction=True``) hold a tuple of non-negative
  axes (sorted, except for ``average`` with weights shaped like the reduced
  axes, where NumPy pairs them in the user's order); ``argmax``-like ops and
  scans (``scan=True``) hold ``None`` or one non-negative int.
* ``keepdims``, ``dtype``, ``ddof`` (``correction=`` lands here too),
  ``include_initial``, ``initial`` (a :class:`Scalar` or :class:`Const`).
* An optional second input is the ``where=`` mask (or ``average``'s
  ``weights``); ``average(returned=True)`` makes one node per output
  (param ``output``).
"""
from __future__ import annotations

import builtins
import operator
import types
import warnings

import numpy as np

from ..array_api import canonical_dtype
from ..errors import AxisError, DTypeError, FgraphError, ShapeError, user_location
from ..tensor import Tensor, lift, stack_of
from ..shape import broadcasts_to, defop
from ..symbol import Const, Node, Scalar, describe, error_at, make_node, refuse_out

_NoValue = np._NoValue

# ---------------------------------------------------------------- op table

#: op name -> (NumPy function, kind, name of the optional second input)
#: kinds: "reduce" (axis tuple), "arg" (axis int/None), "scan" (cumsum-like),
#: "cumulative" (Array API cumulative_sum-like)
SPEC: dict[str, tuple] = {}
for _n in ("sum", "prod", "mean", "var", "std", "max", "min", "all", "any",
           "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"):
    SPEC[_n] = (getattr(np, _n), "reduce", "where")
for _n in ("ptp", "count_nonzero"):
    SPEC[_n] = (getattr(np, _n), "reduce", None)
SPEC["average"] = (np.average, "reduce", "weights")
for _n in ("argmax", "argmin", "nanargmax", "nanargmin"):
    SPEC[_n] = (getattr(np, _n), "arg", None)
for _n in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
    SPEC[_n] = (getattr(np, _n), "scan", None)
for _n in ("cumulative_sum", "cumulative_prod"):
    SPEC[_n] = (getattr(np, _n), "cumulative", None)


def unwrap(value):
    """A stored ``initial`` as NumPy expects it (Scalar/Const -> value)."""
    if isinstance(value, Scalar):
        return value.value
    if isinstance(value, Const):
        return value.array[()] if value.array.ndim == 0 else value.array
    return value


def call(op: str, arrays, params: dict):
    """Run NumPy's function for ``op`` on ``arrays`` (input, optional extra)."""
    fn, _, extra = SPEC[op]
    kw = dict(params)
    output = kw.pop("output", None)
    if output is not None:  # average(returned=True): one node per output
        kw["returned"] = True
    if "initial" in kw:
        kw["initial"] = unwrap(kw["initial"])
    if len(arrays) > 1:
        kw[extra] = arrays[1]
    out = fn(arrays[0], **kw)
    return out if output is None else out[output]


# ---------------------------------------------------------------- rules

def _probe_shape(shape) -> tuple:
    # Zero-ness of each dimension is all NumPy's errors and dtypes depend on;
    # the probe never holds more than one element.
    return tuple(builtins.min(d, 1) for d in shape)


def _check_extra(op: str, inputs, axis) -> None:
    """Shapes NumPy checks between the input and ``where``/``weights``."""
    if len(inputs) < 2:
        return
    x, e = inputs
    if SPEC[op][2] == "where":
        if not broadcasts_to(e.shape, x.shape):
            raise ShapeError(f"where mask of shape {e.shape} does not broadcast to the input's shape {x.shape}")
    elif e.shape != x.shape:  # average's weights: a.shape or a.shape[axis]
        if axis is None:
            raise DTypeError("axis must be specified when shapes of a and weights differ")
        axes = (axis,) if not isinstance(axis, tuple) else axis
        axes = tuple(operator.index(a) % builtins.max(x.ndim, 1) for a in axes)
        if e.shape != tuple(x.shape[a] for a in axes):
            raise ShapeError(f"shape of weights {e.shape} must be the input's {x.shape} or its shape along "
                             f"axis {axis}")


def probe(op: str, inputs, params: dict):
    """NumPy's result for ``op`` on probe arrays (raises what NumPy raises)."""
    _check_extra(op, inputs, params.get("axis"))
    arrays = [np.ones(_probe_shape(n.shape), n.dtype) for n in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "mean of empty slice", "degrees of freedom <= 0"
        try:
            return call(op, arrays, params)
        except ZeroDivisionError as e:  # average: weights of an empty axis sum to zero
            raise ShapeError(str(e)) from None


def _reduced_shape(shape, axes, keepdims) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def result_shape(op: str, shape: tuple, params: dict) -> tuple:
    """The output shape, from normalised params (never from a probe)."""
    kind = SPEC[op][1]
    axis = params.get("axis")
    if kind == "reduce":
        return _reduced_shape(shape, axis, params.get("keepdims", False))
    if kind == "arg":
        axes = tuple(range(len(shape))) if axis is None else (axis,)
        return _reduced_shape(shape, axes, params.get("keepdims", False))
    size = int(np.prod(shape, dtype=np.int64))
    if kind == "scan":
        return (size,) if axis is None else shape
    extra = int(params.get("include_initial", False))  # cumulative
    if axis is None:  # NumPy allows it for 0-d and 1-d inputs only
        return (size + extra,)
    return tuple(d + extra if i == axis else d for i, d in enumerate(shape))


def _rule(op: str):
    def rule(inputs, **params):
        out = probe(op, inputs, params)
        return result_shape(op, inputs[0].shape, params), np.asarray(out).dtype
    rule.__doc__ = f"numpy.{op}: reduced shape, NumPy's own dtype and empty-input errors."
    return rule


def _scan_inplace(node) -> tuple:
    return () if node.dtype.kind == "c" else (0,)


for _n, (_fn, _kind, _) in SPEC.items():
    if _kind in ("reduce", "arg"):
        defop(_n, _rule(_n), f"numpy.{_n}", reduction=True, nin=1)
    else:
        # inplace: a scan's output may overwrite its input (same shape; the
        # out-kernel reads element i before writing it, or copies, then accumulates
        # in place); not complex: NumPy's complex multiply rounds differently when
        # its output overlaps its input (an ulp in cumprod)
        defop(_n, _rule(_n), f"numpy.{_n}", scan=True, nin=1, inplace=_scan_inplace)


# ---------------------------------------------------------------- building nodes

def static_param(op: str, name: str, value):
    """A keyword that must be known when the graph is built, as a hashable param."""
    if isinstance(value, Tensor):
        raise error_at(FgraphError, op, f"{name}= must be a static scalar, not a lazy array")
    if value is None or type(value) in (bool, int, float, complex):
        return Scalar(value)
    if isinstance(value, (np.generic, np.ndarray)):
        return Const(value)
    if isinstance(value, (bool, int, float, complex)):
        return Scalar(next(t for t in (bool, int, float, complex) if isinstance(value, t))(value))
    raise error_at(DTypeError, op, f"{name}= must be a scalar, got {type(value).__name__}")


def _normal_axis(op: str, axis, x, extra) -> object:
    """The user's (already NumPy-validated) axis in canonical form."""
    kind = SPEC[op][1]
    nd = x.ndim
    if kind == "reduce":
        if axis is None:
            return tuple(range(nd))
        if nd == 0:  # NumPy lets some reductions take axis 0/-1 on 0-d input
            return ()
        if not isinstance(axis, tuple):
            return (operator.index(axis) % nd,)
        axes = tuple(operator.index(a) % nd for a in axis)
        # average pairs 1-d...n-d weights with the axes in the user's order
        keep_order = op == "average" and extra is not None and extra.shape != x.shape
        return axes if keep_order else tuple(sorted(axes))
    if axis is None or nd == 0:  # 0-d: NumPy takes axis 0/-1 as "the only element"
        return None
    return operator.index(axis) % nd


def _ddof(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return float(value)
    return int(value)


_validated: set = set()


def _validate(op: str, inputs, kw: dict) -> None:
    """``probe`` with the user's raw arguments; successes are remembered."""
    try:
        key = (op, tuple((n.shape, n.dtype) for n in inputs), tuple((k, type(v), v) for k, v in kw.items()))
        hit = key in _validated
    except TypeError:  # an unhashable argument (e.g. a list axis): just ask NumPy
        key, hit = None, False
    if hit:
        return
    probe(op, inputs, kw)
    if key is not None:
        if len(_validated) > 4096:
            _validated.clear()
        _validated.add(key)


# ``a.sum()``, ``a.max(axis=0)``, ``a.mean(1, keepdims=True)``: a lazy array
# reduced along None, int or int-tuple axes, without out=, initial=, where=
# or other keywords.  What _build decided for that stack, input shape, dtype
# and those arguments (a dtype argument keyed with its type: np.dtype("f8")
# equals float, which a float32 stack reads otherwise) (the node's params, shape and dtype, after NumPy's
# checks passed) is remembered, and the next such call makes the node at once.

_quick: dict = {}
_QUICK_MAX = 4096


def _plain(axis, keepdims) -> bool:
    """Arguments the fast path keys by value (an axis of True or 1.0 would
    look like 1 to a dict: those go the long way)."""
    ta = type(axis)
    if ta is tuple:
        for e in axis:
            if type(e) is not int:
                return False
    elif axis is not None and ta is not int:
        return False
    return keepdims is _NoValue or type(keepdims) is bool


def _fast(op: str, a, axis, dtype, keepdims):
    """The node _build made before for these arguments (a lazy array ``a``), or None."""
    if not ((axis is None or type(axis) is int) and keepdims is _NoValue) and not _plain(axis, keepdims):
        return None
    x = a.node
    st = a.stack
    try:
        hit = _quick.get((op, st, x.shape, x.dtype, x.weak, axis, type(dtype), dtype, keepdims))
    except TypeError:  # an unhashable dtype argument
        return None
    if hit is None:
        return None
    return Tensor(Node(op, hit[0], (x,), hit[1], hit[2], False, None, user_location(3)), st)


def _remember(op: str, x, st, kw: dict, result: Tensor) -> None:
    """Remember ``result``, made by _build from ``x`` (a lazy array's node) and
    keywords ``kw`` (as given), for _fast."""
    for k in kw:
        if k != "axis" and k != "dtype" and k != "keepdims" and kw[k] is not _NoValue:
            return
    axis, keepdims = kw.get("axis"), kw.get("keepdims", _NoValue)
    r = result.node
    if r.op != op or r.inputs != (x,) or not _plain(axis, keepdims):
        return
    if len(_quick) >= _QUICK_MAX:
        _quick.clear()
    try:
        dtype = kw.get("dtype")
        _quick[(op, st, x.shape, x.dtype, x.weak, axis, type(dtype), dtype, keepdims)] = (r.params, r.shape, r.dtype)
    except TypeError:  # an unhashable argument
        pass


def _build(op: str, a, out=None, extra=None, **kw) -> Tensor:
    """Validate against NumPy on probes, normalise the params, make the node."""
    refuse_out(op, out)
    given = kw if out is None and extra is None and type(a) is Tensor else None
    if kw.get("mean", _NoValue) is not _NoValue:
        raise error_at(FgraphError, op, "mean= (a precomputed mean) is not supported; fgraph computes the "
                                        "mean itself and CSE shares it")
    kw.pop("mean", None)
    kw = {k: v for k, v in kw.items() if v is not _NoValue}
    st = stack_of((a,))
    x = lift(a, st)
    e = None if extra is None else lift(extra, st)
    inputs = [x] if e is None else [x, e]
    if kw.get("dtype") is not None:
        kw["dtype"] = canonical_dtype(kw["dtype"], st)
    if "initial" in kw:
        kw["initial"] = static_param(op, "initial", kw["initial"])
    try:  # NumPy's own checks, with the user's arguments as given
        _validate(op, inputs, kw)
    except FgraphError as err:
        raise error_at(type(err), op, f"{err} (inputs: {describe(inputs)})") from None
    except (ValueError, IndexError) as err:  # NumPy's AxisError stays one (an IndexError too)
        cls = AxisError if isinstance(err, np.exceptions.AxisError) else ShapeError
        raise error_at(cls, op, f"{err} (inputs: {describe(inputs)})") from None
    except (TypeError, OverflowError) as err:  # OverflowError: a Python int out of the dtype's range
        raise error_at(DTypeError, op, f"{err} (inputs: {describe(inputs)})") from None

    kind = SPEC[op][1]
    params = {"axis": _normal_axis(op, kw.get("axis"), x, e)}
    if kind in ("reduce", "arg"):
        params["keepdims"] = bool(kw.get("keepdims", False))
    if op in _WITH_DTYPE:
        params["dtype"] = kw.get("dtype")
    if op in _WITH_DDOF:
        # correction= (Array API) and ddof= are one parameter; NumPy refused both at once above
        params["ddof"] = _ddof(kw["correction"] if "correction" in kw else kw.get("ddof", 0))
    if "include_initial" in kw:
        params["include_initial"] = bool(kw["include_initial"])
    if "initial" in kw:
        params["initial"] = kw["initial"]
    if kw.get("returned"):
        return tuple(Tensor(make_node(op, inputs, tuple(params.items()) + (("output", k),)), st) for k in (0, 1))
    result = Tensor(make_node(op, inputs, tuple(params.items())), st)
    if given is not None:
        _remember(op, x, st, given, result)
    return result


_WITH_DTYPE = {"sum", "prod", "mean", "var", "std", "nansum", "nanprod", "nanmean", "nanvar", "nanstd",
               "cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod"}
_WITH_DDOF = {"var", "std", "nanvar", "nanstd"}


def _where(where):
    return None if where is True or where is _NoValue else where


# ---------------------------------------------------------------- public functions
# Signatures are NumPy 2's; ``out=`` is refused (lazy arrays are immutable).

def sum(a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.sum`` (pairwise summation, as NumPy)."""
    if isinstance(a, types.GeneratorType):  # NumPy 2.4's refusal, word for word
        raise error_at(DTypeError, "sum", "Calling np.sum(generator) is deprecated.Use np.sum(np.fromiter(generator)) "
                                          "or the python sum builtin instead.")
    if out is None and initial is _NoValue and where is _NoValue and type(a) is Tensor:
        hit = _fast("sum", a, axis, dtype, keepdims)
        if hit is not None:
            return hit
    return _build("sum", a, out, _where(where), axis=axis, dtype=dtype, keepdims=keepdims, initial=initial)


def prod(a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.prod``."""
    if out is None and initial is _NoValue and where is _NoValue and type(a) is Tensor:
        hit = _fast("prod", a, axis, dtype, keepdims)
        if hit is not None:
            return hit
    return _build("prod", a, out, _where(where), axis=axis, dtype=dtype, keepdims=keepdims, initial=initial)


def mean(a, axis=None, dtype=None, out=None, keepdims=_NoValue, *, where=_NoValue):
    """Lazy ``numpy.mean``."""
    if out is None and where is _NoValue and type(a) is Tensor:
        hit = _fast("mean", a, axis, dtype, keepdims)
        if hit is not None:
            return hit
    return _build("mean", a, out, _where(where), axis=axis, dtype=dtype, keepdims=keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NoValue, *, where=_NoValue, mean=_NoValue,
        correction=_NoValue):
    """Lazy ``numpy.var``; ``correction=`` is the Array API's name for ``ddof``."""
    return _build("var", a, out, _where(where), axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, mean=mean,
                  correction=correction)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NoValue, *, where=_NoValue, mean=_NoValue,
        correction=_NoValue):
    """Lazy ``numpy.std``; ``correction=`` is the Array API's name for ``ddof``."""
    return _build("std", a, out, _where(where), axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, mean=mean,
                  correction=correction)


def max(a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.max``; an empty reduced axis without ``initial`` raises when the node is made."""
    if out is None and initial is _NoValue and where is _NoValue and type(a) is Tensor:
        hit = _fast("max", a, axis, None, keepdims)
        if hit is not None:
            return hit
    return _build("max", a, out, _where(where), axis=axis, keepdims=keepdims, initial=initial)


def min(a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.min``; an empty reduced axis without ``initial`` raises when the node is made."""
    if out is None and initial is _NoValue and where is _NoValue and type(a) is Tensor:
        hit = _fast("min", a, axis, None, keepdims)
        if hit is not None:
            return hit
    return _build("min", a, out, _where(where), axis=axis, keepdims=keepdims, initial=initial)


def amax(a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.amax`` (the same op as ``max``)."""
    if out is None and initial is _NoValue and where is _NoValue and type(a) is Tensor:
        hit = _fast("max", a, axis, None, keepdims)
        if hit is not None:
            return hit
    return _build("max", a, out, _where(where), axis=axis, keepdims=keepdims, initial=initial)


def amin(a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.amin`` (the same op as ``min``)."""
    if out is None and initial is _NoValue and where is _NoValue and type(a) is Tensor:
        hit = _fast("min", a, axis, None, keepdims)
        if hit is not None:
            return hit
    return _build("min", a, out, _where(where), axis=axis, keepdims=keepdims, initial=initial)


def all(a, axis=None, out=None, keepdims=_NoValue, *, where=_NoValue):
    """Lazy ``numpy.all``."""
    if out is None and where is _NoValue and type(a) is Tensor:
        hit = _fast("all", a, axis, None, keepdims)
        if hit is not None:
            return hit
    return _build("all", a, out, _where(where), axis=axis, keepdims=keepdims)


def any(a, axis=None, out=None, keepdims=_NoValue, *, where=_NoValue):
    """Lazy ``numpy.any``."""
    if out is None and where is _NoValue and type(a) is Tensor:
        hit = _fast("any", a, axis, None, keepdims)
        if hit is not None:
            return hit
    return _build("any", a, out, _where(where), axis=axis, keepdims=keepdims)


def argmax(a, axis=None, out=None, *, keepdims=_NoValue):
    """Lazy ``numpy.argmax`` (first occurrence; int64 indices)."""
    if out is None and type(a) is Tensor:
        hit = _fast("argmax", a, axis, None, keepdims)
        if hit is not None:
            return hit
    return _build("argmax", a, out, axis=axis, keepdims=keepdims)


def argmin(a, axis=None, out=None, *, keepdims=_NoValue):
    """Lazy ``numpy.argmin`` (first occurrence; int64 indices)."""
    if out is None and type(a) is Tensor:
        hit = _fast("argmin", a, axis, None, keepdims)
        if hit is not None:
            return hit
    return _build("argmin", a, out, axis=axis, keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=_NoValue):
    """Lazy ``numpy.ptp``: max - min along the axes."""
    return _build("ptp", a, out, axis=axis, keepdims=keepdims)


def count_nonzero(a, axis=None, *, keepdims=False):
    """Lazy ``numpy.count_nonzero`` (intp counts)."""
    return _build("count_nonzero", a, axis=axis, keepdims=keepdims)


def average(a, axis=None, weights=None, returned=False, *, keepdims=_NoValue):
    """Lazy ``numpy.average``; ``returned=True`` gives ``(average, sum_of_weights)``.

    Weights summing to zero along a non-empty axis are only known when the
    graph runs; that raises then (an empty reduced axis raises at once).
    """
    return _build("average", a, None, weights, axis=axis, keepdims=keepdims, returned=bool(returned))


def cumsum(a, axis=None, dtype=None, out=None):
    """Lazy ``numpy.cumsum`` (``axis=None`` scans the flattened array)."""
    return _build("cumsum", a, out, axis=axis, dtype=dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    """Lazy ``numpy.cumprod`` (``axis=None`` scans the flattened array)."""
    return _build("cumprod", a, out, axis=axis, dtype=dtype)


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """Lazy ``numpy.cumulative_sum`` (Array API 2024.12)."""
    return _build("cumulative_sum", x, out, axis=axis, dtype=dtype, include_initial=include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """Lazy ``numpy.cumulative_prod`` (Array API 2024.12)."""
    return _build("cumulative_prod", x, out, axis=axis, dtype=dtype, include_initial=include_initial)


def nansum(a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.nansum``: NaNs count as zero."""
    return _build("nansum", a, out, _where(where), axis=axis, dtype=dtype, keepdims=keepdims, initial=initial)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.nanprod``: NaNs count as one."""
    return _build("nanprod", a, out, _where(where), axis=axis, dtype=dtype, keepdims=keepdims, initial=initial)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=_NoValue, *, where=_NoValue):
    """Lazy ``numpy.nanmean``."""
    return _build("nanmean", a, out, _where(where), axis=axis, dtype=dtype, keepdims=keepdims)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NoValue, *, where=_NoValue, mean=_NoValue,
           correction=_NoValue):
    """Lazy ``numpy.nanvar``."""
    return _build("nanvar", a, out, _where(where), axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, mean=mean,
                  correction=correction)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NoValue, *, where=_NoValue, mean=_NoValue,
           correction=_NoValue):
    """Lazy ``numpy.nanstd``."""
    return _build("nanstd", a, out, _where(where), axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, mean=mean,
                  correction=correction)


def nanmax(a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.nanmax`` (an all-NaN slice gives NaN, as NumPy)."""
    return _build("nanmax", a, out, _where(where), axis=axis, keepdims=keepdims, initial=initial)


def nanmin(a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """Lazy ``numpy.nanmin`` (an all-NaN slice gives NaN, as NumPy)."""
    return _build("nanmin", a, out, _where(where), axis=axis, keepdims=keepdims, initial=initial)


def nanargmax(a, axis=None, out=None, *, keepdims=_NoValue):
    """Lazy ``numpy.nanargmax``; an all-NaN slice raises when the graph runs (it depends on the data)."""
    return _build("nanargmax", a, out, axis=axis, keepdims=keepdims)


def nanargmin(a, axis=None, out=None, *, keepdims=_NoValue):
    """Lazy ``numpy.nanargmin``; an all-NaN slice raises when the graph runs (it depends on the data)."""
    return _build("nanargmin", a, out, axis=axis, keepdims=keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    """Lazy ``numpy.nancumsum``."""
    return _build("nancumsum", a, out, axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """Lazy ``numpy.nancumprod``."""
    return _build("nancumprod", a, out, axis=axis, dtype=dtype)


__all__ = ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "all", "any", "argmax", "argmin",
           "ptp", "count_nonzero", "average", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod",
           "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax", "nanargmin",
           "nancumsum", "nancumprod"]

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

Gradients (rule ``grad``; NumPy-world choices, as JAX and PyTorch make them):

* ``where=`` masks: masked-out elements get a zero gradient; the mask itself
  (a bool input) and ``initial=`` get none.  NaN-variants treat NaNs the way
  the forward does (ignored: zero gradient).
* ``max``/``min``/``nanmax``/``nanmin`` (and ``amax``/``amin``, the same ops):
  the gradient is **split equally among ties** (as JAX's ``max`` and
  PyTorch's ``amax``).  When ``initial`` wins the slice, no element gets any;
  an element equal to ``initial`` counts as a tie among the elements only.
  ``ptp`` is ``max - min`` with the same rule (0 for a constant slice).
* ``std`` at a constant slice (``std == 0``, not differentiable): 0, as
  PyTorch (JAX gives NaN).
* ``prod`` is exact with zeros and never divides: each element's gradient is
  the product of the *other* elements, built from exclusive prefix and suffix
  products (``cumulative_prod(include_initial=True)`` both ways).
* ``cumprod`` is exact with zeros: before the first zero of a scan it uses
  the usual ``reverse_cumsum(g * out) / x`` (dividing only by elements that
  are not zero), at the first zero the product with that one factor
  removed, after it 0.  Limitations: the division can lose the gradient
  when the forward product underflows to 0 without a zero input (as
  TensorFlow's); second derivatives are exact away from zeros only (the
  zero-position branches are piecewise).  ``prod``'s are exact everywhere.

Not differentiable (integer or bool results): ``argmax``, ``argmin``,
``nanargmax``, ``nanargmin``, ``all``, ``any``, ``count_nonzero``: their
``grad`` is ``no_gradient`` (None per input), so that a vector-Jacobian
product seeded at one of them gives zeros instead of an error.

The reference NumPy kernels and their out-forms are in
``ops/reduction_kernels.py``; micro-batching is the shared rule of
reductions and scans (``ops/batching.py``, found by the flags).
"""
from __future__ import annotations

import builtins
import math
import operator
import types
import warnings

import numpy as np

from .. import eager as _eager
from ..array_api import canonical_dtype
from ..errors import AxisError, DTypeError, FgraphError, ShapeError, user_location
from ..tensor import Tensor, lift, stack_of
from ..shape import broadcasts_to, defop
from ..opdef import no_gradient
from ..symbol import Const, Node, Scalar, describe, error_at, make_node, new_node, refuse_out
from .building import evaluated, namespace
from .reduction_kernels import SPEC, call, kernels, unwrap

_NoValue = np._NoValue

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


# ---------------------------------------------------------------- building nodes

def static_param(op: str, name: str, value):
    """A keyword that must be known when the graph is built, as a hashable param."""
    if isinstance(value, Tensor):  # np.max(a, initial=b.min()): known now outside tracing
        value = evaluated(value, op, f"{name}=", "it is a parameter of the reduction, a static scalar")
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
    return _eager.made_now(new_node(Node, op, hit[0], (x,), hit[1], hit[2], False, None, user_location(3)), st)


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


# ---------------------------------------------------------------- gradients

def _keep(t, shape, axes):
    """A reduced value (``out`` or ``g``) in keepdims form, broadcastable to ``shape``."""
    fnp = namespace()
    kshape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return t if t.shape == kshape else fnp.reshape(t, kshape)


def _full(t, shape):
    fnp = namespace()
    return t if t.shape == shape else fnp.broadcast_to(t, shape)


def _float(x) -> bool:
    return x.dtype.kind == "f"


def _valid(x, ins, nan):
    """Which elements take part: the ``where=`` mask and, for nan-ops, not NaN (or None: all)."""
    fnp = namespace()
    v = ins[1] if len(ins) > 1 else None
    if nan:
        v = ~fnp.isnan(x) if v is None else v & ~fnp.isnan(x)
    return None if v is None else _full(v, x.shape)


def _count(valid, shape, axes, dtype):
    """Elements taking part per slice (keepdims): static without a mask."""
    fnp = namespace()
    if valid is None:
        return math.prod(shape[a] for a in axes)
    return fnp.sum(valid, axis=axes, keepdims=True).astype(dtype)


def _masked(t, valid, shape):
    fnp = namespace()
    return _full(t if valid is None else fnp.where(valid, t, 0.0), shape)


def _none(ins):
    return (None,) * len(ins)


def _scalar(value):
    """A stored ``initial`` as a Python number (weak: keeps g's dtype)."""
    v = unwrap(value)
    return np.asarray(v).item() if isinstance(v, (np.generic, np.ndarray)) else v


def _along(ax, s):
    return (slice(None),) * ax + (s,)


def _rev_cumsum(t, ax):
    fnp = namespace()
    return fnp.flip(fnp.cumsum(fnp.flip(t, ax), axis=ax), ax)


# ---------------------------------------------------------------- sum, mean, average

def _sum_rule(nan):
    def rule(out, ins, g, axis, keepdims, dtype=None, initial=None):
        x = ins[0]
        if not _float(x):
            return _none(ins)
        return (_masked(_keep(g, x.shape, axis), _valid(x, ins, nan), x.shape),) + (None,) * (len(ins) - 1)
    return rule


def _mean_rule(nan):
    def rule(out, ins, g, axis, keepdims, dtype=None):
        fnp = namespace()
        x = ins[0]
        if not _float(x):
            return _none(ins)
        valid = _valid(x, ins, nan)
        n = _count(valid, x.shape, axis, g.dtype)
        n = fnp.maximum(n, 1) if valid is not None else builtins.max(n, 1)  # an empty slice: no element to differentiate
        return (_masked(_keep(g, x.shape, axis) / n, valid, x.shape),) + (None,) * (len(ins) - 1)
    return rule


def _average(out, ins, g, axis, keepdims, output=None):
    """avg = sum(x w) / sum(w): d/dx = w / sum(w), d/dw = (x - avg) / sum(w);
    ``returned``'s weight sum (output 1) depends on the weights only."""
    fnp = namespace()
    x = ins[0]
    axes = tuple(sorted(axis))
    gk = _keep(g, x.shape, axes)
    if len(ins) == 1:
        if output == 1 or not _float(x):
            return None,
        return _full(gk / builtins.max(math.prod(x.shape[a] for a in axes), 1), x.shape),
    w = ins[1]
    # weights shaped like the reduced axes (in the user's order) are laid along them, as NumPy does
    perm = tuple(int(k) for k in np.argsort(axis))
    same = w.shape == x.shape
    wb = w if same else fnp.reshape(fnp.transpose(w, perm) if perm != tuple(range(len(perm))) else w,
                                    tuple(d if i in axes else 1 for i, d in enumerate(x.shape)))
    if output == 1:
        gx, gw = None, _full(gk, x.shape)
    else:
        sw = fnp.sum(wb, axis=axes, keepdims=True)
        gx = _full(gk * wb / sw, x.shape) if _float(x) else None
        gw = _full(gk * (x - _keep(out, x.shape, axes)) / sw, x.shape)
    if not _float(w):
        gw = None
    elif not same:  # back to the weights' own shape and axis order
        gw = fnp.sum(gw, axis=tuple(i for i in range(x.ndim) if i not in axes))
        if perm != tuple(range(len(perm))):
            gw = fnp.transpose(gw, tuple(int(k) for k in np.argsort(perm)))
    return gx, gw


# ---------------------------------------------------------------- var, std

def _var_rule(nan, std):
    """var = sum((x - m)^2) / (n - ddof) over the valid elements: d/dx =
    2 (x - m) / (n - ddof) (the mean's own dependence cancels); std: divided by 2 std."""
    def rule(out, ins, g, axis, keepdims, dtype=None, ddof=0):
        fnp = namespace()
        x = ins[0]
        if not _float(x):
            return _none(ins)
        valid = _valid(x, ins, nan)
        where = {} if len(ins) == 1 else {"where": ins[1]}
        mean = fnp.nanmean if nan else fnp.mean
        m = mean(x, axis=axis, dtype=dtype, keepdims=True, **where)
        gk = _keep(g, x.shape, axis)
        denom = _count(valid, x.shape, axis, g.dtype) - ddof
        if std:
            s = _keep(out, x.shape, axis)
            zero = s == 0  # a constant slice: gradient 0 (no division by 0, even in grad of grad)
            d = fnp.where(zero, 0.0, gk * (x - m) / (denom * fnp.where(zero, 1.0, s)))
        else:
            d = gk * 2.0 * (x - m) / denom
        return (_masked(d, valid, x.shape),) + (None,) * (len(ins) - 1)
    return rule


# ---------------------------------------------------------------- max, min, ptp

def _share(x, ok, valid, gk, axes):
    """``gk`` split equally among the elements equal to the extreme ``ok``."""
    fnp = namespace()
    hit = _full(x == ok, x.shape)
    if valid is not None:
        hit = hit & valid
    count = fnp.maximum(fnp.sum(hit, axis=axes, keepdims=True), 1).astype(gk.dtype)
    return fnp.where(hit, gk / count, 0.0)


def _extreme_rule(nan):
    def rule(out, ins, g, axis, keepdims, initial=None):
        x = ins[0]
        if not _float(x):
            return _none(ins)
        d = _share(x, _keep(out, x.shape, axis), _valid(x, ins, nan), _keep(g, x.shape, axis), axis)
        return (_full(d, x.shape),) + (None,) * (len(ins) - 1)
    return rule


def _ptp(out, ins, g, axis, keepdims):
    fnp = namespace()
    x = ins[0]
    if not _float(x):
        return None,
    gk = _keep(g, x.shape, axis)
    hi = _share(x, fnp.max(x, axis=axis, keepdims=True), None, gk, axis)
    lo = _share(x, fnp.min(x, axis=axis, keepdims=True), None, gk, axis)
    return _full(hi - lo, x.shape),


# ---------------------------------------------------------------- prod

def _others(t, ax):
    """Product of the other entries along ``ax``, per position, without division."""
    fnp = namespace()
    n = t.shape[ax]
    left = fnp.cumulative_prod(t, axis=ax, include_initial=True)[_along(ax, slice(0, n))]
    right = fnp.flip(fnp.cumulative_prod(fnp.flip(t, ax), axis=ax, include_initial=True), ax)
    return left * right[_along(ax, slice(1, None))]


def _prod_rule(nan):
    """d prod / d x_i = product of the slice's other elements.  Over several
    axes a1, a2, ...: others(x, a1) * others(prod over a1, a2) * ... (each
    broadcast), so zeros need no special case."""
    def rule(out, ins, g, axis, keepdims, dtype=None, initial=None):
        fnp = namespace()
        x = ins[0]
        if not _float(x):
            return _none(ins)
        valid = _valid(x, ins, nan)
        t = x if valid is None else fnp.where(valid, x, 1.0)  # excluded elements count as 1
        if t.dtype != g.dtype:
            t = t.astype(g.dtype)
        d = _keep(g, x.shape, axis)
        if initial is not None:
            d = d * _scalar(initial)
        for k, ax in enumerate(axis):
            d = d * _others(t, ax)
            if k + 1 < len(axis):
                t = fnp.prod(t, axis=ax, keepdims=True)
        return (_masked(d, valid, x.shape),) + (None,) * (len(ins) - 1)
    return rule


# ---------------------------------------------------------------- scans

def _scan_parts(out, x, g, axis, include_initial):
    """(x as scanned, g and out without the initial slot, scan axis)."""
    fnp = namespace()
    ax = 0 if axis is None else axis
    xs = fnp.reshape(x, (x.size,)) if axis is None and x.ndim != 1 else x
    if include_initial:
        g, out = g[_along(ax, slice(1, None))], out[_along(ax, slice(1, None))]
    return xs, g, out, ax


def _back(d, x):
    fnp = namespace()
    return d if d.shape == x.shape else fnp.reshape(d, x.shape)


def _cumsum_rule(nan):
    def rule(out, ins, g, axis, dtype=None, include_initial=False):
        fnp = namespace()
        x = ins[0]
        if not _float(x):
            return None,
        xs, g, _, ax = _scan_parts(out, x, g, axis, include_initial)
        d = _rev_cumsum(g, ax)
        if nan:
            d = fnp.where(fnp.isnan(xs), 0.0, d)
        return _back(d, x),
    return rule


def _cumprod_rule(nan):
    """d/dx_i of sum_m g_m y_m, y_m = x_0 ... x_m, is sum_{m >= i} g_m y_m / x_i
    before the scan's first zero; at the first zero k it is sum_{m >= k} g_m
    (cumprod with x_k := 1)_m; after it every y_m has two zero-ish factors: 0."""
    def rule(out, ins, g, axis, dtype=None, include_initial=False):
        fnp = namespace()
        x = ins[0]
        if not _float(x):
            return None,
        xs, g, y, ax = _scan_parts(out, x, g, axis, include_initial)
        t = fnp.where(fnp.isnan(xs), 1.0, xs) if nan else xs  # what the forward multiplies
        zero = t == 0
        seen = fnp.cumsum(zero, axis=ax)
        before = seen == 0
        first = zero & (seen == 1)
        a = _rev_cumsum(g * y, ax) / fnp.where(before, t, 1.0)
        b = _rev_cumsum(g * fnp.cumprod(fnp.where(first, 1.0, t), axis=ax, dtype=y.dtype), ax)
        d = fnp.where(before, a, fnp.where(first, b, 0.0))
        if nan:
            d = fnp.where(fnp.isnan(xs), 0.0, d)
        return _back(d, x),
    return rule


# ---------------------------------------------------------------- the ops

_GRADS = {
    "sum": _sum_rule(False), "nansum": _sum_rule(True),
    "mean": _mean_rule(False), "nanmean": _mean_rule(True),
    "average": _average,
    "var": _var_rule(False, False), "nanvar": _var_rule(True, False),
    "std": _var_rule(False, True), "nanstd": _var_rule(True, True),
    "max": _extreme_rule(False), "min": _extreme_rule(False),
    "nanmax": _extreme_rule(True), "nanmin": _extreme_rule(True),
    "ptp": _ptp,
    "prod": _prod_rule(False), "nanprod": _prod_rule(True),
    "cumsum": _cumsum_rule(False), "cumulative_sum": _cumsum_rule(False), "nancumsum": _cumsum_rule(True),
    "cumprod": _cumprod_rule(False), "cumulative_prod": _cumprod_rule(False), "nancumprod": _cumprod_rule(True),
    # integer/bool results: nothing flows back (an explicit rule, so that a
    # vector-Jacobian product seeded at one of them gives zeros, not an error)
    "argmax": no_gradient, "argmin": no_gradient, "nanargmax": no_gradient, "nanargmin": no_gradient,
    "all": no_gradient, "any": no_gradient, "count_nonzero": no_gradient,
}

#: op -> the ufunc whose ``reduce`` NumPy's function runs on an ndarray (fromnumeric._wrapreduction), and
#: the dtype any/all reduce in (None: the op's own dtype param)
_UFUNC_REDUCE = {"sum": (np.add, None), "prod": (np.multiply, None), "max": (np.maximum, None),
                 "min": (np.minimum, None), "any": (np.logical_or, bool), "all": (np.logical_and, bool)}


def _reducing_directly(op: str, kernel):
    """``kernel``, calling the ufunc's ``reduce`` itself for one ndarray and no
    ``initial``: what NumPy's ``np.sum`` ends in, without its dispatch and
    keyword filtering (1.3 of a small sum's 2.1 us).  Anything else (a
    ``where`` input, ``initial``, a NumPy scalar) goes through ``kernel``."""
    ufunc, fixed = _UFUNC_REDUCE[op]
    reduce = ufunc.reduce

    def run(*arrays, **params):
        a = arrays[0]
        if type(a) is np.ndarray and len(arrays) == 1 and "initial" not in params:
            return reduce(a, params.get("axis"), params.get("dtype", fixed), None,
                          keepdims=params.get("keepdims", False))
        return kernel(*arrays, **params)
    run.__name__ = kernel.__name__
    return run


for _n, (_fn, _kind, _) in SPEC.items():
    _kernel, _out = kernels(_n)
    if _n in _UFUNC_REDUCE:
        _kernel = _reducing_directly(_n, _kernel)
    if _kind in ("reduce", "arg"):
        defop(_n, _rule(_n), f"numpy.{_n}", reduction=True, nin=1, kernel=_kernel, out_kernel=_out,
              grad=_GRADS[_n])
    else:
        # inplace: a scan's output may overwrite its input (same shape; the
        # out-kernel reads element i before writing it, or copies, then accumulates
        # in place); not complex: NumPy's complex multiply rounds differently when
        # its output overlaps its input (an ulp in cumprod)
        defop(_n, _rule(_n), f"numpy.{_n}", scan=True, nin=1, inplace=_scan_inplace, kernel=_kernel,
              out_kernel=_out, grad=_GRADS[_n])

__all__ = ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "all", "any", "argmax", "argmin",
           "ptp", "count_nonzero", "average", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod",
           "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax", "nanargmin",
           "nancumsum", "nancumprod"]

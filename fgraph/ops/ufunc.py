"""Ufunc objects: ``fgraph.numpy.add`` and every other ufunc, with NumPy's
attributes and methods.

A :class:`Ufunc` mirrors one NumPy ufunc: ``nin``, ``nout``, ``nargs``,
``ntypes``, ``types``, ``identity``, ``signature``, ``__name__`` and
``__doc__`` are the NumPy ufunc's, and ``__call__``, ``reduce``,
``accumulate``, ``outer``, ``reduceat`` and ``at`` take NumPy's arguments
and keywords and give NumPy's results, dtypes and errors, lazily.
(``isinstance(fnp.add, numpy.ufunc)`` is False: NumPy's ufunc type cannot
be subclassed.)  Writes (``out=``, ``at``) move the target's handle
(``fgraph.tensor.assign``), so aliases and views see them as in NumPy; a
NumPy array given as ``out=`` (or to ``at``) is written with the values.

Each method is built from existing ops where they are NumPy's own
computation (``add.reduce`` is ``sum``, ``maximum.reduce`` is ``max``,
``add.accumulate`` is ``cumsum``, ``outer`` is a broadcast call), and
otherwise from one of the ops below, whose NumPy kernel calls the NumPy
ufunc's method itself (exact for every ufunc, commutative or not; one node
whatever the axis length):

``ufunc_reduce``      inputs ``(x[, where])``; params ``ufunc``, ``axis``
                      (sorted tuple), ``dtype``, ``keepdims``, ``initial``
                      (optional), ``out_dtype`` (optional: the dtype of the
                      ``out=`` array NumPy would reduce into; NumPy picks
                      its loop from it)
``ufunc_accumulate``  inputs ``(x,)``; params ``ufunc``, ``axis`` (int),
                      ``dtype``, ``out_dtype`` (optional)
``ufunc_reduceat``    inputs ``(x, indices)``; params as accumulate's
``ufunc_at``          inputs ``(a[, b], *index arrays)``; params ``ufunc``,
                      ``key`` (the index with arrays as ``("a",)``
                      markers), ``tuple`` (whether the index was a tuple),
                      ``operand`` (whether ``b`` is an input).  The
                      result is a copy of ``a`` after ``ufunc.at``
                      (repeated indices accumulate).

Their NumPy kernels call the NumPy ufunc's method itself with the node's
params, so values are NumPy's bit for bit.  Their gradients:
``add/multiply/maximum/minimum.reduce`` and ``add/multiply.accumulate`` are
built from ``sum``/``prod``/``max``/``min``/``cumsum``/``cumprod``, whose
rules apply; the dedicated ops cover what those cannot express exactly:

* ``ufunc_at`` of ``add``/``subtract`` (``np.add.at``, a scatter-add):
  ``a``'s cotangent is ``g``, ``b``'s is ``g`` gathered at the index
  (negated for subtract; every occurrence of a repeated index adds its
  ``b``), summed down to ``b``'s shape.
* Integer and bool results are not differentiable: None for every input
  (as for ``argmax``), so a vector-Jacobian product through them gives zeros.
* A float result of any other ufunc method (``subtract.reduce``,
  ``divide.accumulate``, ``add.reduceat``, ``maximum.at``...) has no rule
  yet: asking for its gradient raises, naming the method.

``Tensor.__array_ufunc__`` sends NumPy's own ufunc calls on lazy arrays
(``numpy.add.reduce(t)``, ``numpy.add.at(t, i, 1)``, ``numpy.add(t, 1,
out=t)``) here through :func:`array_ufunc`.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from ..errors import AxisError, DTypeError, FgraphError, IndexingError, ShapeError, also
from ..tensor import Tensor, assign, lift, stack_of
from ..shape import broadcast_shapes, broadcasts_to, defop, weak_type
from ..symbol import Const, Node, Scalar, error_at, make_node
from .. import stack as _stack
from .batching import Mixes, refuse_batching
from .building import evaluated, remembered
from .reduction import static_param
from .selection import only_where

__all__: list = []

_NoValue = np._NoValue
_NO_OUT = object()  # out= not given at all (NumPy warns about where= only then)
_ALL = object()  # where= not given (a gufunc refuses even where=True)
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")

#: every NumPy ufunc by its ``__name__`` (what the ops' ``ufunc`` param names)
NUMPY_UFUNCS: dict[str, np.ufunc] = {u.__name__: u for u in (vars(np)[n] for n in sorted(vars(np)))
                                     if isinstance(u, np.ufunc)}  # (vars: getattr would import NumPy's lazy submodules)

#: ``__name__`` -> the Ufunc object of the default namespace (for ``array_ufunc``)
OBJECTS: dict[str, "Ufunc"] = {}


# ---------------------------------------------------------------- errors and probes

def _raise_as_fgraph(e: Exception, op: str):
    """NumPy's exception ``e`` as the FgraphError of the same built-in class."""
    if isinstance(e, np.exceptions.AxisError):
        cls = AxisError
    elif isinstance(e, IndexError):
        cls = IndexingError
    elif isinstance(e, ValueError):
        cls = ShapeError
    elif isinstance(e, (TypeError, OverflowError)):  # OverflowError: a Python int beyond a dtype (as elsewhere)
        cls = DTypeError
    else:
        cls = also(type(e))
    raise error_at(cls, op, str(e), None) from None


def _numpy(op: str, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` on probe arrays: NumPy's result, or its error as an FgraphError."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    except FgraphError:
        raise
    except Exception as e:  # noqa: BLE001  (every NumPy refusal is the user's mistake here)
        _raise_as_fgraph(e, op)


def _probe(node, fill=1):
    """A stand-in for ``node`` with at most one element per axis (NumPy's
    dtype rules and argument checks depend on the zero-ness of each axis
    only); a weak literal stays its Python scalar."""
    if node.weak:
        return node.params[0][1].value
    return np.full(tuple(min(d, 1) for d in node.shape), fill, node.dtype)


def _scratch(shape: tuple, dtype) -> np.ndarray:
    """A writeable stand-in of ``shape`` holding one element (zero strides)."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape, (0,) * len(shape), writeable=True)


def _full_probe(node):
    """A stand-in for ``node`` of its exact shape: a constant's own values
    (so NumPy checks concrete indices), else one zero element (zero strides)."""
    if node.weak:
        return node.params[0][1].value
    if node.op == "constant":
        return node.params[0][1].array
    return np.broadcast_to(np.zeros((), node.dtype), node.shape)


def _unwrap(value):
    if isinstance(value, Scalar):
        return value.value
    if isinstance(value, Const):
        return value.array[()] if value.array.ndim == 0 else value.array
    return value


def _strong(x, st):
    """``x`` as NumPy's ufunc methods convert their array argument
    (``asarray``: a Python scalar is an array of its default dtype, not weak)."""
    n = lift(x, st)
    if n.weak:
        n = lift(np.asarray(n.params[0][1].value), st)
    return n


def _mask(where, st, op: str):
    """``where=`` as NumPy takes it: bool arrays as they are, other arrays
    refused unless they cast safely to bool, sequences converted to bool."""
    if isinstance(where, (Tensor, np.ndarray, np.generic)):
        dt = where.dtype
        if not np.can_cast(dt, np.bool_, "safe"):
            raise error_at(DTypeError, op, f"Cannot cast array data from {dt!r} to dtype('bool') according to the "
                                           "rule 'safe'")
        return lift(where, st)
    try:
        arr = np.asarray(where, dtype=np.bool_)
    except (TypeError, ValueError) as e:
        _raise_as_fgraph(e, op)
    return lift(arr, st)


def _reduced(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduce_axes(axis, nd: int) -> tuple:
    """A reduce's (NumPy-validated) axis as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(nd))
    if nd == 0:
        return ()
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(operator.index(a) % nd for a in axes))


def _one_axis(axis, nd: int) -> int:
    """An accumulate's/reduceat's (NumPy-validated) axis as one non-negative int."""
    if isinstance(axis, tuple):
        axis = axis[0]
    return 0 if axis is None else operator.index(axis) % nd


def _valid_axes(axis, nd: int):
    """A reduce's axis as a sorted tuple, or None where NumPy would refuse it
    (or where it takes an axis of a 0-d array: the probe decides)."""
    try:
        axes = tuple(range(nd)) if axis is None else np.lib.array_utils.normalize_axis_tuple(axis, nd)
    except Exception:  # noqa: BLE001
        return None
    return tuple(sorted(axes))


def _valid_axis(axis, nd: int):
    """An accumulate's/reduceat's single axis, or None where NumPy would refuse it."""
    try:
        if isinstance(axis, tuple):
            (axis,) = axis
        return np.lib.array_utils.normalize_axis_index(axis, nd)
    except Exception:  # noqa: BLE001
        return None


def _dtype_or_none(fn, *args, **kwargs):
    """The dtype NumPy's ``fn`` gives without ``out=``, or None where it refuses (out= decided the loop)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(fn(*args, **kwargs)).dtype
    except Exception:  # noqa: BLE001
        return None


def _is_array(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray))


def _evaluated(x):
    """A NumPy value for a NumPy target's write: lazy arrays evaluated (in tuples too)."""
    if isinstance(x, Tensor):
        return np.asarray(x)
    if type(x) is tuple:
        return tuple(_evaluated(e) for e in x)
    return x


def _static_initial(op: str, value):
    if isinstance(value, Tensor):  # NumPy converts it to a scalar: an evaluation point
        if value.size != 1:
            raise error_at(ShapeError, op, "setting an array element with a sequence.")
        return Const(value.eval())
    return static_param(op, "initial", value)


# ---------------------------------------------------------------- the ops

def _reduce_rule(inputs, ufunc, axis, dtype, keepdims, initial=_NoValue, out_dtype=None):
    x = inputs[0]
    shape = _reduced(x.shape, axis, keepdims)
    if out_dtype is not None:
        return shape, out_dtype
    kw = {"axis": axis, "dtype": dtype, "keepdims": keepdims}
    if initial is not _NoValue:
        kw["initial"] = _unwrap(initial)
    if len(inputs) > 1:
        kw["where"] = _probe(inputs[1], True)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return shape, np.asarray(NUMPY_UFUNCS[ufunc].reduce(_probe(x), **kw)).dtype


def _accumulate_rule(inputs, ufunc, axis, dtype, out_dtype=None):
    (x,) = inputs
    if out_dtype is not None:
        return x.shape, out_dtype
    with np.errstate(all="ignore"):
        return x.shape, NUMPY_UFUNCS[ufunc].accumulate(_probe(x), axis=axis, dtype=dtype).dtype


def _reduceat_rule(inputs, ufunc, axis, dtype, out_dtype=None):
    x, idx = inputs
    if idx.ndim != 1:
        raise ShapeError(f"reduceat's indices must be one-dimensional, got shape {idx.shape}")
    shape = tuple(idx.shape[0] if i == axis else d for i, d in enumerate(x.shape))
    if out_dtype is not None:
        return shape, out_dtype
    px = _probe(x)
    with np.errstate(all="ignore"):
        r = NUMPY_UFUNCS[ufunc].reduceat(px, np.zeros(min(px.shape[axis], idx.shape[0]), np.intp), axis=axis,
                                          dtype=dtype)
    return shape, r.dtype


def _at_rule(inputs, ufunc, key, tuple, operand):
    return inputs[0].shape, inputs[0].dtype


# ---------------------------------------------------------------- their NumPy kernels

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


# ---------------------------------------------------------------- their gradients (see the module docstring)

_METHOD = {"ufunc_reduce": "reduce", "ufunc_accumulate": "accumulate", "ufunc_reduceat": "reduceat",
           "ufunc_at": "at"}


def _refused(out, ufunc: str, op: str):
    raise error_at(FgraphError, "grad", f"numpy.{ufunc}.{_METHOD[op]} has no gradient rule (node made at "
                                        f"{out.node.where[0]}:{out.node.where[1]})" if out.node.where else
                   f"numpy.{ufunc}.{_METHOD[op]} has no gradient rule")


def _method_rule(op: str):
    def rule(out, ins, g, ufunc, **params):
        if out.dtype.kind != "f":
            return (None,) * len(ins)
        _refused(out, ufunc, op)
    return rule


def _at_grad(out, ins, g, ufunc, key, tuple, operand):
    if out.dtype.kind != "f":
        return (None,) * len(ins)
    if ufunc not in ("add", "subtract") or not operand:
        _refused(out, ufunc, "ufunc_at")
    region = g[decode_key(key, ins[2:], tuple)]
    return (g, region if ufunc == "add" else -region) + (None,) * (len(ins) - 2)


defop("ufunc_reduce", _reduce_rule, "numpy.<ufunc>.reduce(x, axis, dtype, keepdims, initial, where=mask); "
                                    "inputs: x[, mask]", reduction=True, may_raise=True,
      kernel=_reduce, grad=_method_rule("ufunc_reduce"))
defop("ufunc_accumulate", _accumulate_rule, "numpy.<ufunc>.accumulate(x, axis, dtype)", scan=True, may_raise=True,
      kernel=_accumulate, grad=_method_rule("ufunc_accumulate"))
def _reduceat_batch(node, c) -> tuple:
    """Micro-batching: each row reduces its own slices, unless the slices run along the batch axis 0."""
    if node.param("axis") == 0:
        raise Mixes("it reduces slices along the batch axis 0")
    c.only(node, 0)  # batched indices: every row would take each row's slices
    return node.params


defop("ufunc_reduceat", _reduceat_rule, "numpy.<ufunc>.reduceat(x, indices, axis, dtype); inputs: x, indices",
      may_raise=True, kernel=_reduceat, grad=_method_rule("ufunc_reduceat"), batch_rule=_reduceat_batch)
defop("ufunc_at", _at_rule, "a copy of a after numpy.<ufunc>.at(a, key, b) (repeated indices accumulate); inputs: "
                            "a[, b], *index arrays", inplace=(0,), may_raise=True,
      kernel=_at, out_kernel=_at_out, grad=_at_grad)


def decode_key(key: tuple, arrays, is_tuple: bool):
    """The index ``ufunc_at`` encoded in ``key``, with ``arrays`` in its ``("a",)`` places."""
    it = iter(arrays)
    out = []
    for e in key:
        kind = e[0]
        if kind == "a":
            out.append(next(it))
        elif kind == "i":
            out.append(e[1])
        elif kind == "s":
            out.append(slice(*e[1:]))
        elif kind == "n":
            out.append(None)
        else:
            out.append(Ellipsis)
    return tuple(out) if is_tuple else out[0]


def _encode_entry(e, st, op):
    """One index entry: (key entry, the NumPy value for the probe or None, the node or None)."""
    if e is None:
        return ("n",), None, None
    if e is Ellipsis:
        return ("e",), None, None
    if isinstance(e, slice):
        parts = []
        for b in (e.start, e.stop, e.step):
            if isinstance(b, Tensor):  # np.add.at(a, slice(0, n), 1) with n = b.max(): known now
                b = evaluated(b, op, "a slice bound", "it decides which elements are updated")
            parts.append(None if b is None else operator.index(b))
        return ("s", *parts), None, None
    if type(e) is int or (isinstance(e, np.integer) and not isinstance(e, np.bool_)):
        return ("i", int(e)), None, None
    if isinstance(e, Tensor):
        return ("a",), None, e.node
    arr = np.asarray(e)
    if arr.size == 0 and not isinstance(e, (np.ndarray, np.generic)):  # NumPy indexes with [] as intp
        arr = arr.astype(np.intp)
    if arr.dtype.kind not in "biu":  # NumPy's IndexError, raised by the probe with the array as given
        return ("a",), arr, None
    return ("a",), arr, lift(arr, st)


# ---------------------------------------------------------------- the class

def _on_own_stack(method):
    """``method`` run with the object's stack active (objects of ``fgraph.make`` namespaces)."""
    def run(self, *args, **kwargs):
        token = _stack.activate(self._stack)
        try:
            return method(self, *args, **kwargs)
        finally:
            _stack.deactivate(token)
    run.__name__ = method.__name__
    run.__qualname__ = method.__qualname__
    run.__doc__ = method.__doc__
    return run


#: (ufunc, stack, array shape, dtype and weak flag, axis, dtype argument's type
#: and value, keepdims) -> the recipe (``compose.record``) reduce built then
_reduce_recipes: dict = {}


def _plain_axis(axis) -> bool:
    """An axis the recipes key by value: None, an int or a tuple of ints (not
    True or 1.0, which a dict takes for 1)."""
    if axis is None or type(axis) is int:
        return True
    if type(axis) is tuple:
        for a in axis:
            if type(a) is not int:
                return False
        return True
    return False


#: reduce -> the reduction op that is NumPy's own add.reduce etc. (np.sum calls add.reduce)
_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min", "logical_and": "all",
               "logical_or": "any"}
_SCANS = {"add": "cumsum", "multiply": "cumprod"}


class Ufunc:
    """A lazy NumPy ufunc: NumPy's attributes, and methods that build nodes.

    ``where=`` without ``out=`` (NumPy leaves the other elements
    uninitialised, and warns) gives zeros there."""

    def __init__(self, ufunc: np.ufunc, impl, stack=None):
        self._np = ufunc
        self._impl = impl  # impl(*arrays, dtype=None, **gufunc keywords) -> Tensor or tuple of Tensors
        self._stack = stack
        self._bound: dict = {}
        self._core = ufunc.signature is not None  # a gufunc (matmul, vecdot...)
        self._nin = ufunc.nin
        self.__name__ = ufunc.__name__
        self.__doc__ = (f"Lazy ``numpy.{ufunc.__name__}``: NumPy's arguments, keywords, attributes and methods "
                        "(reduce, accumulate, outer, reduceat, at), shapes and dtypes (NEP 50); ``out=`` writes "
                        "into its array's handle; ``where=`` without ``out=`` leaves zeros where it is False "
                        "(NumPy: uninitialised).\n\n" + (ufunc.__doc__ or ""))

    # -- NumPy's attributes
    nin = property(lambda self: self._np.nin)
    nout = property(lambda self: self._np.nout)
    nargs = property(lambda self: self._np.nargs)
    ntypes = property(lambda self: self._np.ntypes)
    types = property(lambda self: self._np.types)
    identity = property(lambda self: self._np.identity)
    signature = property(lambda self: self._np.signature)

    def resolve_dtypes(self, dtypes, *, signature=None, casting=None, reduction=False):
        """NumPy's ``ufunc.resolve_dtypes`` (a question about dtypes only)."""
        kw = {k: v for k, v in (("signature", signature), ("casting", casting)) if v is not None}
        return self._np.resolve_dtypes(dtypes, reduction=reduction, **kw)

    def __repr__(self):
        return f"<ufunc {self.__name__!r}>"

    def __reduce__(self):
        return _by_name, (self.__name__,)

    def on_stack(self, st):
        """This ufunc building nodes for stack ``st`` (``fgraph.make``)."""
        bound = self._bound.get(st)
        if bound is None:
            bound = self._bound[st] = _OnStack(self._np, self._impl, st)
        return bound

    # -- calling
    def __call__(self, *args, **kwargs):
        """NumPy's ufunc call: ``(*inputs, *outs, out=, where=, casting=,
        order=, dtype=, subok=, signature=)``."""
        if not kwargs and len(args) == self._nin:
            return self._impl(*args)  # the common case, kept short: ``a + b`` comes here
        return self._call(*args, **kwargs)

    def _call(self, *args, out=_NO_OUT, where=_ALL, casting="same_kind", order="K", dtype=None, subok=True,
              signature=None, **kwargs):
        u = self._np
        nin = u.nin
        name = self.__name__
        if not nin <= len(args) <= u.nargs:
            n = len(args)
            raise error_at(also(TypeError), name, f"{name}() takes from {nin} to {u.nargs} positional arguments "
                                                  f"but {n} {'was' if n == 1 else 'were'} given")
        inputs = args[:nin]
        out_given = out is not _NO_OUT or len(args) > nin
        if len(args) > nin:
            if out is not _NO_OUT:
                raise error_at(also(TypeError), name, "cannot specify 'out' as both a positional and keyword "
                                                      "argument")
            outs = tuple(args[nin:]) + (None,) * (u.nargs - len(args))
            if not all(o is None or _is_array(o) for o in outs):
                raise error_at(also(TypeError), name, "return arrays must be of ArrayType")
        else:
            outs = self._outs(None if out is _NO_OUT else out)
        if self._core:
            if where is not _ALL:
                raise error_at(also(TypeError), name, f"{name}() got an unexpected keyword argument 'where'")
        elif kwargs:
            raise error_at(also(TypeError), name, f"{name}() got an unexpected keyword argument "
                                                  f"{next(iter(kwargs))!r}")
        if casting not in _CASTINGS:
            raise error_at(ShapeError, name, "casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                                             f"'unsafe' (got {casting!r})")
        if not isinstance(order, str) or order.upper() not in ("C", "F", "A", "K"):
            raise error_at(ShapeError, name, f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
        if dtype is not None and signature is not None:
            raise error_at(also(TypeError), name, "cannot specify both 'signature' and 'dtype'")
        st = stack_of(inputs + tuple(o for o in outs if isinstance(o, Tensor)))
        mask = None if where is True or where is _ALL else _mask(where, st, name)
        arrays, dtype = self._typed(inputs, st, dtype, signature, casting)
        result = self._only_where(arrays, dtype, mask, st) if mask is not None and u.nout == 1 else None
        if result is None:
            result = self._impl(*arrays, dtype=dtype, **kwargs)
        if mask is not None and name == "power" and result.dtype.kind in "iu" and result.op != "ufunc_where":
            # NumPy computes only where the mask is true: a negative integer exponent elsewhere must not
            # raise (the one ufunc that fails on its data), so it is replaced by 1 there
            y = lift(arrays[1], st)
            if not y.weak:
                one = Tensor(make_node("where", [mask, y, lift(np.ones((), y.dtype), st)]), st)
                result = self._impl(arrays[0], one, dtype=dtype)
        results = result if u.nout > 1 else (result,)
        shape = None
        if mask is not None:
            try:
                shape = broadcast_shapes(mask.shape, *(r.shape for r in results))
            except ShapeError as e:
                raise error_at(ShapeError, name, str(e)) from None
        final = []
        for target, value in zip(outs, results):
            if target is None:
                if mask is not None:
                    if not out_given:
                        warnings.warn("'where' used without 'out', expect unitialized memory in output. If this "
                                      "is intentional, use out=None.", UserWarning, stacklevel=2)
                    zero = lift(np.zeros((), value.dtype), st)
                    value = Tensor(make_node("where", [mask, value.node, zero]), st)
                    if value.shape != shape:
                        value = Tensor(make_node("broadcast_to", [value.node], (("shape", shape),)), st)
                final.append(value)
                continue
            self._write(target, value, mask, casting)
            final.append(target)
        return tuple(final) if u.nout > 1 else final[0]

    def _only_where(self, arrays, dtype, mask, st) -> Tensor | None:
        """The ufunc computed only where ``mask`` holds, as NumPy's ``where=``
        computes (op ``ufunc_where``): no warning from the other elements,
        and NumPy's masked loop (a complex product there can differ in the
        last bit from the unmasked loop's).  None where something below is
        traced (then a ``where`` after the whole ufunc: the same values, and
        gradients through tracing) or the call is settled at build time."""
        node_of = getattr(self._impl, "node_of", None)
        if node_of is None or not mask.concrete:
            return None
        built = node_of(arrays, dtype)  # (a node with no handle: not computed, as a small one would be)
        if type(built) is not Node or not built.concrete:
            return None
        return Tensor(only_where(mask, built), st)

    def _outs(self, out) -> tuple:
        """``out=`` as a tuple of nout entries (None where not given), checked as NumPy checks it."""
        u, name = self._np, self.__name__
        if out is None:
            return (None,) * u.nout
        if isinstance(out, tuple):
            if len(out) != u.nout:
                raise error_at(ShapeError, name, "The 'out' tuple must have exactly one entry per ufunc output")
            outs = out
        elif u.nout == 1:
            outs = (out,)
        else:
            raise error_at(also(TypeError), name, "'out' must be a tuple of arrays")
        if not all(o is None or _is_array(o) for o in outs):
            raise error_at(also(TypeError), name, "return arrays must be of ArrayType")
        return outs

    def _typed(self, inputs, st, dtype, signature, casting):
        """The inputs cast to the loop NumPy picks under ``signature`` and
        ``casting`` (its errors raised), and the output dtype to ask for."""
        u, name = self._np, self.__name__
        if signature is None and (casting == "same_kind" or (casting == "unsafe" and dtype is None)):
            return inputs, dtype  # NumPy's own resolution, done by the op's rule
        nodes = [lift(a, st) for a in inputs]
        sig = self._signature(signature, dtype)
        types = tuple(weak_type(n) for n in nodes) + (None,) * u.nout
        try:
            loop = u.resolve_dtypes(types, casting=casting, **({} if sig is None else {"signature": sig}))
        except Exception as e:  # noqa: BLE001
            _raise_as_fgraph(e, name)
        if sig is None:  # no dtype asked for: only checks were wanted (casting 'no', 'equiv', 'safe')
            return inputs, None
        unsupported = [dt for dt in loop if dt.kind in "OSUVMm"]
        if unsupported:
            raise error_at(DTypeError, name, f"fgraph does not support arrays of dtype {unsupported[0]} (the loop "
                                             f"{signature or dtype} asks for)")
        cast = []
        for n, dt in zip(nodes, loop):
            if n.weak:  # NumPy converts a Python scalar to the loop's dtype
                n = lift(_numpy(name, np.asarray, n.params[0][1].value, dtype=dt), st)
            elif n.dtype != dt:
                n = make_node("astype", [n], (("dtype", dt), ("casting", "unsafe")))
            cast.append(Tensor(n, st))
        return cast, (loop[u.nin] if u.nout == 1 else dtype)

    def _signature(self, signature, dtype):
        u, name = self._np, self.__name__
        if dtype is not None:
            return (None,) * u.nin + (np.dtype(dtype),) * u.nout
        if signature is None:
            return None
        if isinstance(signature, str):
            parts = signature.replace(" ", "").split("->")
            if len(parts) != 2 or len(parts[0]) != u.nin or len(parts[1]) != u.nout:
                raise error_at(ShapeError, name, f"a type-string for {name}, {u.nin} typecode(s) before and "
                                                 f"{u.nout} after the -> sign")
            return tuple(np.dtype(c) for c in parts[0] + parts[1])
        if isinstance(signature, tuple):
            if len(signature) != u.nargs:
                raise error_at(ShapeError, name, f"a type-tuple must be specified of length {u.nargs} for ufunc "
                                                 f"{name!r}")
            return tuple(None if s is None else np.dtype(s) for s in signature)
        raise error_at(also(TypeError), name, "the signature object to ufunc must be a string or a tuple.")

    def _write(self, target, value: Tensor, mask, casting: str) -> None:
        """NumPy's write of one output into ``out=``: the broadcast shape must
        be the target's, the result cast under ``casting``, only where ``mask``."""
        name = self.__name__
        tshape = tuple(target.shape)
        shapes = (value.shape, tshape) if mask is None else (value.shape, mask.shape, tshape)
        try:
            full = broadcast_shapes(*shapes)
        except ShapeError:
            full = None
        if full != tshape:
            raise error_at(ShapeError, name, f"non-broadcastable output operand with shape {tshape} doesn't match "
                                             f"the broadcast shape {full if full is not None else value.shape}")
        if value.dtype != target.dtype and not np.can_cast(value.dtype, target.dtype, casting):
            raise error_at(DTypeError, name, f"Cannot cast ufunc {name!r} output from {value.dtype!r} to "
                                             f"{target.dtype!r} with casting rule {casting!r}")
        assign(target, value, casting="unsafe", where=True if mask is None else Tensor(mask, value.stack), op=name)

    # -- methods
    def _reducible(self, method: str) -> None:
        u, name = self._np, self.__name__
        if self._core:
            raise error_at(also(RuntimeError), f"{name}.{method}", "Reduction not defined on ufunc with signature")
        if u.nin != 2:
            raise error_at(ShapeError, f"{name}.{method}", f"{method} only supported for binary functions")
        if u.nout != 1:
            raise error_at(ShapeError, f"{name}.{method}", f"{method} only supported for functions returning a "
                                                           "single value")

    def _single_out(self, out, op: str):
        if isinstance(out, tuple):
            if len(out) != 1:
                raise error_at(ShapeError, op, "The 'out' tuple must have exactly one entry per ufunc output")
            out = out[0]
        if out is not None and not _is_array(out):
            raise error_at(also(TypeError), op, "return arrays must be of ArrayType")
        return out

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
        """Lazy ``numpy.<ufunc>.reduce``: ``axis`` an int, a tuple or None
        (all axes; NumPy refuses several axes for ufuncs that do not reorder:
        subtract, divide, power...); ``initial``, ``where`` and ``out`` as NumPy."""
        self._reducible("reduce")
        name = self.__name__
        if out is None and where is True and initial is _NoValue and type(keepdims) is bool and _plain_axis(axis):
            # the common case: what an earlier call built above an array of this shape and dtype, built again
            st = stack_of((array,))
            x = _strong(array, st)
            return remembered(_reduce_recipes, (name, st, x.shape, x.dtype, x.weak, axis, type(dtype), dtype, keepdims),
                              x, st, None, lambda: self._reduce(Tensor(x, st), axis, dtype, None, keepdims, initial, where))
        return self._reduce(array, axis, dtype, out, keepdims, initial, where)

    def _reduce(self, array, axis, dtype, out, keepdims, initial, where):
        name = self.__name__
        op = f"{name}.reduce"
        target = self._single_out(out, op)
        st = stack_of((array, target, where))
        x = _strong(array, st)
        dt = None if dtype is None else np.dtype(dtype)
        mask = None if where is True else _mask(where, st, op)
        init = _NoValue if initial is _NoValue else _static_initial(op, initial)
        kw = {"axis": axis, "dtype": dt, "keepdims": keepdims}
        if init is not _NoValue:
            kw["initial"] = _unwrap(init)
        if mask is not None:
            kw["where"] = _probe(mask, True)
        px = _probe(x)
        keep = bool(keepdims)
        axes = _valid_axes(axis, x.ndim)
        if target is not None and axes is not None:  # NumPy picks its loop with out= (its errors too)
            _numpy(op, self._np.reduce, px, out=np.empty(_reduced(px.shape, axes, keep), target.dtype), **kw)
            natural = _dtype_or_none(self._np.reduce, px, **kw)
        else:
            natural = np.asarray(_numpy(op, self._np.reduce, px, **kw)).dtype
            axes = _reduce_axes(axis, x.ndim)
            if target is not None:
                _numpy(op, self._np.reduce, px, out=np.empty(_reduced(px.shape, axes, keep), target.dtype), **kw)
        if mask is not None:  # (the probes keep only the zero-ness of each axis)
            if not broadcasts_to(mask.shape, x.shape):
                raise error_at(ShapeError, op, f"operands could not be broadcast together: where= has shape "
                                               f"{mask.shape}, the array {x.shape}")
        shape = _reduced(x.shape, axes, keep)
        out_dtype = None
        if target is not None:
            if tuple(target.shape) != shape:
                raise error_at(ShapeError, op, f"output parameter for reduction operation {name} has shape "
                                               f"{tuple(target.shape)}, the result has shape {shape}")
            out_dtype = None if natural is not None and target.dtype == natural else target.dtype
        result = None
        if out_dtype is None:
            result = self._as_reduction(x, st, axes, dt, keep, initial, mask, natural, shape)
        if result is None:
            params = (("ufunc", name), ("axis", axes), ("dtype", dt), ("keepdims", keep))
            if init is not _NoValue:
                params += (("initial", init),)
            if out_dtype is not None:
                params += (("out_dtype", out_dtype),)
            result = Tensor(make_node("ufunc_reduce", [x] if mask is None else [x, mask], params), st)
        if target is None:
            return result
        assign(target, result, casting="unsafe", op=op)
        return target

    def _as_reduction(self, x, st, axes, dt, keep, initial, mask, natural, shape):
        """The reduction op that is NumPy's own ``<ufunc>.reduce`` here, or None."""
        fn = _REDUCTIONS.get(self.__name__)
        if fn is None or (fn in ("max", "min") and dt is not None):
            return None
        kw = {"axis": axes, "keepdims": keep}
        if fn in ("all", "any"):  # np.all is logical_and.reduce with dtype=bool: the same only on bools
            if x.dtype != np.bool_ or dt not in (None, np.bool_) or initial is not _NoValue:
                return None
        elif fn in ("sum", "prod"):
            kw["dtype"] = dt
        if initial is not _NoValue:
            kw["initial"] = initial
        if mask is not None:
            kw["where"] = Tensor(mask, st)
        from . import reduction

        r = getattr(reduction, fn)(Tensor(x, st), **kw)
        return r if r.dtype == natural and r.shape == shape else None

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """Lazy ``numpy.<ufunc>.accumulate`` along one axis (NumPy's dtypes:
        ``add.accumulate`` of bools or small ints gives the default int)."""
        self._reducible("accumulate")
        name = self.__name__
        op = f"{name}.accumulate"
        target = self._single_out(out, op)
        st = stack_of((array, target))
        x = _strong(array, st)
        dt = None if dtype is None else np.dtype(dtype)
        px = _probe(x)
        if target is not None:  # NumPy picks its loop with out= (its errors too)
            _numpy(op, self._np.accumulate, px, axis=axis, dtype=dt, out=np.empty(px.shape, target.dtype))
            natural = _dtype_or_none(self._np.accumulate, px, axis=axis, dtype=dt)
        else:
            natural = _numpy(op, self._np.accumulate, px, axis=axis, dtype=dt).dtype
        ax = _one_axis(axis, x.ndim)
        out_dtype = None
        if target is not None:
            if tuple(target.shape) != x.shape:
                raise error_at(ShapeError, op, f"operands could not be broadcast together: out= has shape "
                                               f"{tuple(target.shape)}, the result {x.shape}")
            out_dtype = None if natural is not None and target.dtype == natural else target.dtype
        result = None
        if out_dtype is None and name in _SCANS:
            from . import reduction

            r = getattr(reduction, _SCANS[name])(Tensor(x, st), axis=ax, dtype=dt)
            result = r if r.dtype == natural and r.shape == x.shape else None
        if result is None:
            params = (("ufunc", name), ("axis", ax), ("dtype", dt))
            if out_dtype is not None:
                params += (("out_dtype", out_dtype),)
            result = Tensor(make_node("ufunc_accumulate", [x], params), st)
        if target is None:
            return result
        assign(target, result, casting="unsafe", op=op)
        return target

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """Lazy ``numpy.<ufunc>.reduceat``: for each ``i``, the reduce of
        ``array[indices[i]:indices[i+1]]`` along ``axis``, or
        ``array[indices[i]]`` where ``indices[i] >= indices[i+1]`` (NumPy's
        rule); the last runs to the end.  Concrete indices out of range
        raise IndexError at once; lazy ones when the graph runs."""
        self._reducible("reduceat")
        name = self.__name__
        op = f"{name}.reduceat"
        target = self._single_out(out, op)
        st = stack_of((array, indices, target))
        x = _strong(array, st)
        dt = None if dtype is None else np.dtype(dtype)
        concrete = None
        if isinstance(indices, Tensor):
            idx = indices.node
            if not np.can_cast(idx.dtype, np.intp, "safe"):
                raise error_at(DTypeError, op, f"Cannot cast array data from {idx.dtype!r} to "
                                               f"{np.dtype(np.intp)!r} according to the rule 'safe'")
        else:
            if isinstance(indices, (np.ndarray, np.generic)):
                if not np.can_cast(indices.dtype, np.intp, "safe"):
                    raise error_at(DTypeError, op, f"Cannot cast array data from {indices.dtype!r} to "
                                                   f"{np.dtype(np.intp)!r} according to the rule 'safe'")
                concrete = np.asarray(indices).astype(np.intp)
            else:
                concrete = _numpy(op, np.array, indices, dtype=np.intp)
            idx = lift(concrete, st)
        if idx.ndim != 1:
            raise error_at(ShapeError, op, "object of too small depth for desired array" if idx.ndim == 0 else
                                           "object too deep for desired array")
        px = _probe(x)
        pidx = np.zeros(min(idx.shape[0], 1), np.intp)
        ax = _valid_axis(axis, x.ndim)
        if concrete is not None and ax is not None:  # NumPy checks the indices before the loop's dtypes
            n = x.shape[ax]
            bad = concrete[(concrete < 0) | (concrete >= n)]
            if bad.size:
                raise error_at(IndexingError, op, f"index {bad[0]} out-of-bounds in {op} [0, {n})")
        if target is not None and ax is not None:  # NumPy picks its loop with out= (its errors too)
            pshape = tuple(pidx.shape[0] if i == ax else d for i, d in enumerate(px.shape))
            _numpy(op, self._np.reduceat, px, pidx, axis=axis, dtype=dt, out=np.empty(pshape, target.dtype))
            natural = _dtype_or_none(self._np.reduceat, px, pidx, axis=axis, dtype=dt)
        else:
            natural = _numpy(op, self._np.reduceat, px, pidx, axis=axis, dtype=dt).dtype
            ax = _one_axis(axis, x.ndim)
        shape = tuple(idx.shape[0] if i == ax else d for i, d in enumerate(x.shape))
        out_dtype = None
        if target is not None:
            if tuple(target.shape) != shape:
                raise error_at(ShapeError, op, f"operands could not be broadcast together: out= has shape "
                                               f"{tuple(target.shape)}, the result {shape}")
            out_dtype = None if natural is not None and target.dtype == natural else target.dtype
        params = (("ufunc", name), ("axis", ax), ("dtype", dt))
        if out_dtype is not None:
            params += (("out_dtype", out_dtype),)
        result = Tensor(make_node("ufunc_reduceat", [x, idx], params), st)
        if target is None:
            return result
        assign(target, result, casting="unsafe", op=op)
        return target

    def outer(self, A, B, /, **kwargs):
        """Lazy ``numpy.<ufunc>.outer``: ``ufunc(A[..., None, ...], B)`` with
        NumPy's keywords (``out``, ``where``, ``dtype``...); Python scalars
        are arrays here (NumPy converts them with ``asarray``)."""
        name = self.__name__
        if self._core:
            raise error_at(also(TypeError), f"{name}.outer", "method outer is not allowed in ufunc with non-trivial "
                                                             "signature")
        if self._np.nin != 2:
            raise error_at(ShapeError, f"{name}.outer", "outer product only supported for binary functions")
        st = stack_of((A, B))
        a, b = _strong(A, st), _strong(B, st)
        if b.ndim:
            a = make_node("reshape", [a], (("shape", a.shape + (1,) * b.ndim),))
        return self(Tensor(a, st), Tensor(b, st), **kwargs)

    def at(self, a, indices, b=None, /):
        """``numpy.<ufunc>.at``: ``a[indices] = ufunc(a[indices], b)``
        unbuffered, so repeated indices apply once each (``add.at``
        accumulates).  A lazy ``a`` is written by moving its handle (its
        base and views see the write); a NumPy ``a`` is written in place."""
        u, name = self._np, self.__name__
        op = f"{name}.at"
        if self._core:
            raise error_at(also(TypeError), op, f"{name}.at does not support ufunc with non-trivial signature: "
                                                f"{name} has signature {u.signature}.")
        if u.nout != 1:
            raise error_at(ShapeError, op, "Only single output ufuncs supported at this time")
        if u.nin == 1 and b is not None:
            raise error_at(ShapeError, op, "second operand provided when ufunc is unary")
        if u.nin == 2 and b is None:
            raise error_at(ShapeError, op, "second operand needed for ufunc")
        if not isinstance(a, Tensor):
            if not isinstance(a, np.ndarray):
                raise error_at(also(TypeError), op, "first operand must be array")
            u.at(a, _evaluated(indices), *(() if b is None else (_evaluated(b),)))
            return None
        st = a.stack
        is_tuple = type(indices) is tuple
        key, probes, nodes = [], [], []
        for e in (indices if is_tuple else (indices,)):
            k, value, node = _encode_entry(e, st, op)
            key.append(k)
            if k[0] == "a":
                probes.append(value if value is not None else _full_probe(node))
                if node is not None:
                    nodes.append(node)
        operand = [] if b is None else [lift(b, st)]
        _numpy(op, u.at, _scratch(a.shape, a.dtype), decode_key(tuple(key), probes, is_tuple),
               *(_full_probe(n) for n in operand))
        node = make_node("ufunc_at", [a.node, *operand, *nodes],
                         (("ufunc", name), ("key", tuple(key)), ("tuple", is_tuple), ("operand", bool(operand))))
        assign(a, Tensor(node, st), casting="no", op=op)
        return None


class _OnStack(Ufunc):
    """A ufunc of an ``fgraph.make`` namespace: its stack is active in each call
    (the default namespace's objects skip that cost: ``a + b`` comes through them)."""


for _m in ("__call__", "reduce", "accumulate", "reduceat", "outer", "at"):
    setattr(_OnStack, _m, _on_own_stack(getattr(Ufunc, _m)))


def _by_name(name: str):
    return OBJECTS[name]


# ---------------------------------------------------------------- NumPy's ufuncs on lazy arrays

def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict):
    """What ``Tensor.__array_ufunc__`` returns: NumPy's ``ufunc.method(*inputs,
    **kwargs)`` done by fgraph's object for that ufunc (``out=`` tuples,
    NumPy targets and lazy targets included)."""
    obj = OBJECTS.get(ufunc.__name__)
    if obj is None or obj._np is not ufunc:
        raise error_at(FgraphError, ufunc.__name__, f"numpy.{ufunc.__name__} has no lazy fgraph version; evaluate "
                                                    "first with numpy.asarray(t)")
    fn = getattr(obj, method, None) if method in ("__call__", "reduce", "accumulate", "reduceat", "outer", "at") \
        else None
    if fn is None:
        raise error_at(FgraphError, ufunc.__name__, f"numpy.{ufunc.__name__}.{method} has no lazy fgraph version")
    return fn(*inputs, **kwargs)

refuse_batching(("ufunc_at",), "its indices may write across the batch's rows")

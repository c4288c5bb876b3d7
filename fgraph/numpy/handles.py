"""What the namespace's functions do with handles: views, copies and ``out=``.

NumPy's functions either return a view of an argument (``transpose``,
``reshape`` where the layout allows, ``split``, ``diagonal``...), a new
array, or write into ``out=``.  The op families compute values; the
wrappers here give the results NumPy's identity:

- ``viewing``: the result is linked to its argument's data (``fgraph.views``)
  where NumPy's own function, run on the argument's layout, returns a view;
- ``fresh``: a function NumPy documents as returning a new array never
  hands back an argument's handle or a view of it (so ``np.concatenate([a])``
  or ``np.copy(a)`` is not changed by a later ``a[0] = 1``);
- ``with_out``: ``out=`` (by keyword or position) is written as NumPy
  writes it: the result cast (``same_kind`` for ufunc-like functions,
  ``unsafe`` for the rest, as NumPy) into the given array, which is returned.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..errors import ShapeError
from ..tensor import Tensor, _shadow_of, assign, link_view
from ..symbol import error_at


def _reshape_layout(a, shape=None, order="C", *, newshape=None, copy=None):
    if copy:
        return None
    return np.reshape(a, shape if shape is not None else newshape, order="F" if order == "F" else "C", copy=False)


def _ravel_layout(a, order="C"):
    """NumPy's ``PyArray_Ravel``: a view only of a contiguous array (where
    ``reshape(-1)`` may find a view through strides, ``ravel`` copies)."""
    if order == "F" or (order == "A" and a.flags.f_contiguous and not a.flags.c_contiguous):
        return a.reshape(-1, order="F") if a.flags.f_contiguous else None
    return a.reshape(-1) if a.flags.c_contiguous else None


def _imag_layout(a):
    return a.imag if a.dtype.kind == "c" else READ_ONLY  # NumPy: a new, read-only array of zeros


#: a layout function's answer for "a new array that NumPy makes read-only"
READ_ONLY = object()


#: namespace name -> NumPy's function on layouts (shadows), and how results map to arguments:
#: "one" (a single result of argument 0), "each" (result i of argument i), "parts" (every result of argument 0)
VIEW_FUNCTIONS = {
    "reshape": (_reshape_layout, "one"), "ravel": (_ravel_layout, "one"),
    "transpose": (np.transpose, "one"), "permute_dims": (np.permute_dims, "one"),
    "swapaxes": (np.swapaxes, "one"), "moveaxis": (np.moveaxis, "one"),
    "matrix_transpose": (np.matrix_transpose, "one"), "expand_dims": (np.expand_dims, "one"),
    "squeeze": (np.squeeze, "one"), "broadcast_to": (np.broadcast_to, "one"),
    "flip": (np.flip, "one"), "fliplr": (np.fliplr, "one"), "flipud": (np.flipud, "one"), "rot90": (np.rot90, "one"),
    "diagonal": (np.diagonal, "one"), "real": (np.real, "one"), "imag": (_imag_layout, "one"),
    "atleast_1d": (np.atleast_1d, "each"), "atleast_2d": (np.atleast_2d, "each"),
    "atleast_3d": (np.atleast_3d, "each"), "broadcast_arrays": (np.broadcast_arrays, "each"),
    "split": (np.split, "parts"), "array_split": (np.array_split, "parts"), "hsplit": (np.hsplit, "parts"),
    "vsplit": (np.vsplit, "parts"), "dsplit": (np.dsplit, "parts"), "unstack": (np.unstack, "parts"),
}

#: functions whose result may be their argument itself, as in NumPy
SAME_OBJECT = frozenset(("asarray", "asanyarray", "astype", "from_dlpack", "require", "ascontiguousarray",
                         "asfortranarray"))


def viewing(fn, layout_fn, kind: str):
    """``fn`` whose results are views of its array arguments where NumPy's are."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        result = fn(*args, **kwargs)
        if not args or not any(isinstance(a, Tensor) for a in args):
            return result
        # the arrays become their layouts; any other lazy argument (rot90's k, split's sections) is a
        # number NumPy's function reads, and may update in place (rot90's ``k %= 4``): its value, never
        # the user's handle (fn has taken it already, so it is known now)
        arrays = len(args) if kind == "each" else 1
        layouts = [_shadow_of(a) if isinstance(a, Tensor) else a for a in args[:arrays]] + \
            [_value(a) for a in args[arrays:]]
        try:
            shadow = layout_fn(*layouts, **{k: _value(v) for k, v in kwargs.items()})
        except (ValueError, TypeError, AttributeError):
            shadow = None  # NumPy would copy (or refuse: fn has raised already)
        if shadow is None:
            return _fresh_result(result, args)
        if shadow is READ_ONLY:
            result = Tensor(result.node, result.stack)
            layout = _shadow_of(result)
            strides = _strides_like(layouts[0])
            if strides is not None:  # NumPy's new array keeps its argument's order (K)
                result._shadow = layout = as_strided(layout, strides=strides)
            layout.flags.writeable = False
            return result
        if kind == "one":
            return link_view(args[0], result, shadow) if isinstance(args[0], Tensor) else result
        results = result if isinstance(result, (tuple, list)) else (result,)
        shadows = shadow if isinstance(shadow, (tuple, list)) else (shadow,)
        parents = args if kind == "each" else [args[0]] * len(results)
        linked = [link_view(p, r, s) if isinstance(p, Tensor) and isinstance(r, Tensor) else r
                  for p, r, s in zip(parents, results, shadows)]
        return type(result)(linked) if isinstance(result, (tuple, list)) else linked[0]
    return wrapped


def _value(a):
    """A parameter as NumPy's own function takes it: a lazy array (or one in a
    list or tuple) as its value."""
    if isinstance(a, Tensor):
        v = np.asarray(a.eval())
        return v[()] if v.ndim == 0 else v
    if isinstance(a, (list, tuple)) and any(isinstance(e, Tensor) for e in a):
        return type(a)(_value(e) for e in a)
    return a


def _strides_like(layout) -> tuple | None:
    """The strides of ``x.imag`` for a real ``x`` of layout ``layout``
    (NumPy's new array of zeros, laid out as ``x`` is), or None for C
    order: NumPy's own answer, from the array it allocates (so only up to
    2**20 elements; beyond, C order)."""
    if not isinstance(layout, np.ndarray) or layout.flags.c_contiguous or layout.size > 1 << 20:
        return None
    return layout.imag.strides  # (a real layout: NumPy's own new array of zeros)


def _arguments(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            for e in a:
                if isinstance(e, Tensor):
                    yield e


def _shares(r: Tensor, a: Tensor) -> bool:
    return r is a or (r._storage is not None and r._storage is a._storage)


def _fresh_result(result, args, kwargs=None):
    if type(result) is Tensor and result._storage is None:
        # the common case (sum, mean, roll...): a result with no storage shares data with an
        # argument only by being it, at the top level or in a list/tuple (0.3-0.45 us a call)
        for group in (args, kwargs.values()) if kwargs else (args,):
            for a in group:
                if a is result:
                    return Tensor(result.node, result.stack)
                if type(a) is not Tensor and isinstance(a, (list, tuple)):
                    for e in a:
                        if e is result:
                            return Tensor(result.node, result.stack)
        return result
    if isinstance(result, Tensor):
        for a in _arguments(args, kwargs or {}):
            if _shares(result, a):
                return Tensor(result.node, result.stack)
        return result
    if isinstance(result, (tuple, list)) and any(isinstance(r, Tensor) for r in result):
        items = [_fresh_result(r, args, kwargs) for r in result]
        return type(result)(items) if type(result) in (tuple, list) else result
    return result


def fresh(fn):
    """``fn`` that never returns an argument's handle or a view of its data."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        return _fresh_result(fn(*args, **kwargs), args, kwargs)
    return wrapped


def with_out(fn, name: str, same_kind: bool):
    """``fn`` taking NumPy's ``out=``: the result written into ``out``.

    Ufunc-like functions cast ``same_kind`` and broadcast into ``out``; the
    rest (reductions, take, cumsum...) cast ``unsafe`` into an ``out`` of
    exactly the result's shape, as NumPy does."""
    position = _out_position(fn)

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        out = kwargs.pop("out", None)
        if position is not None and len(args) > position:
            out, args = args[position], args[:position] + (None,) + args[position + 1:]
        if out is None:
            return fn(*args, **kwargs)
        result = fn(*args, **kwargs)
        targets = out if isinstance(out, tuple) else (out,)
        results = result if isinstance(result, tuple) else (result,)
        if len(targets) != len(results):
            raise error_at(ShapeError, name, f"out= needs {len(results)} arrays, got {len(targets)}")
        for target, value in zip(targets, results):
            if target is None:
                continue
            if not same_kind and tuple(np.shape(target)) != value.shape:
                raise error_at(ShapeError, name, f"out= has shape {tuple(np.shape(target))}, the result has "
                                                 f"shape {value.shape}")
            assign(target, value, casting="same_kind" if same_kind else "unsafe", op=name)
        return out[0] if isinstance(out, tuple) and len(out) == 1 else out
    return wrapped


def _out_position(fn):
    """The index of ``out`` among ``fn``'s positional parameters (None: keyword-only or none)."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:  # (not a Python function: ask its signature)
        params = list(inspect.signature(fn).parameters.values())
        return next((k for k, p in enumerate(params) if p.name == "out" and p.kind == p.POSITIONAL_OR_KEYWORD),
                    None)
    names = code.co_varnames[code.co_posonlyargcount:code.co_argcount]
    return code.co_posonlyargcount + names.index("out") if "out" in names else None


def takes_out(fn) -> bool:
    # (the code object's parameter names, not inspect.signature: this runs for every function of the
    # namespace when fgraph.numpy is imported, and signature objects cost milliseconds there)
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is not None and not hasattr(fn, "__signature__"):
        return "out" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False

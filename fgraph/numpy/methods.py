"""The lazy array's NumPy-named methods, installed onto ``fgraph.tensor.Tensor``
by the namespace layer (as JAX's ``_set_array_methods``).

``Tensor`` (the tensor layer) knows its node, its stack and how to evaluate;
what NumPy's ``ndarray`` does with operators, indexing and methods
(``t + 1``, ``t[i]``, ``t.sum()``, ``t.reshape(...)``, the NumPy protocols)
calls the op families and the namespace, which sit above that layer.  They
are defined here and put on the class by :func:`install`, which
``fgraph.numpy`` calls once it is built, so ``fgraph/tensor.py`` imports
nothing above its layer.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError, also
from ..eager import settle
from ..ops.indexing import getitem as _getitem_op
from ..ops.reduction import _NoValue
from ..ops.reduction import _fast as _reduce_fast
from ..ops.selection import Selection, select, update
from ..ops.ufunc import OBJECTS as _UFUNC_OBJECTS
from ..ops.ufunc import array_ufunc as _array_ufunc
from ..ops.writes import setitem_node
from ..ops.writes import view as _view
from ..symbol import error_at, make_node
from ..tensor import (_ZERO_D_ARRAY_OPS, Tensor, _basic_entry, _check_writeable, _shadow_of, assign, link_view,
                      write_node)
from ..views import address
from .. import tensor as _tensor

_NS = None  # the namespace (fgraph.numpy), given by install()


def _namespace():
    return _NS


def _binary(name: str, reflected: bool = False):
    # ``a + b`` is ``fgraph.numpy.add(a, b)``: a Ufunc whose __call__, for two
    # arguments and no keywords, is ``_impl(a, b)``; the method calls _impl
    # itself (fetched on first use: the namespace sits above this layer),
    # saving the attribute look-up and the __call__ frame (0.35 us of a + 1).
    # _impl names the user's line through user_location(3): here the frame
    # it skips is this method instead of __call__, so it lands on the same line.
    # (The type tests spare the common operands the isinstance: 0.05 us.)
    impl = None

    repeats = name == "multiply"  # [0] * n with n a NumPy integer scalar: Python repeats the list

    if reflected:
        def method(self, other):
            nonlocal impl
            t = type(other)
            if t is not Tensor and t is not int and t is not float:
                if isinstance(other, (str, bytes)):
                    return NotImplemented  # "*" * n: Python repeats the string, through __index__
                if repeats and (t is list or t is tuple) and _numpy_scalar(self):
                    return NotImplemented
            if impl is None:
                impl = getattr(_namespace(), name)._impl
            return impl(other, self)
    else:
        none_is = {"equal": False, "not_equal": True}.get(name)

        def method(self, other):
            nonlocal impl
            t = type(other)
            if t is not Tensor and t is not int and t is not float:
                if isinstance(other, (str, bytes)):
                    return NotImplemented
                if repeats and (t is list or t is tuple) and _numpy_scalar(self):
                    return NotImplemented  # n * [0]: as a NumPy scalar, Python repeats the list
                if other is None and none_is is not None:  # a == None: NumPy compares each element with
                    fnp = _namespace()                           # None as objects: none is equal to it
                    if self.ndim:
                        return fnp.full(self.shape, none_is)
                    return fnp.logical_not(fnp.full((), not none_is))  # a result, as NumPy's np.False_
            if impl is None:
                impl = getattr(_namespace(), name)._impl
            return impl(self, other)
    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


def _numpy_scalar(t) -> bool:
    """Whether ``t`` is a value NumPy holds as a scalar (``np.int64``), not a
    0-d array, so ``t op= u`` rebinds the name instead of writing: a
    reduction's or an operator's 0-d result, or an element read ``a[i]`` (a
    0-d "slice" that is no view).  NumPy scalars are immutable, so
    ``m //= p`` on ``m = n`` (``for n in nums``) leaves ``n`` alone, and
    ``m += 0.5`` on an integer gives a float, where a 0-d array (``np.array(3)``,
    a 0-d view, a variable) is written in place."""
    if type(t) is not Tensor or t._storage is not None:
        return False
    node = t.node
    return not node.shape and node.op not in _ZERO_D_ARRAY_OPS


def _inplace(name: str):
    def method(self, other):
        result = getattr(_namespace(), name)(self, other)
        if _numpy_scalar(self):
            return result
        return _write_result(self, result, name)
    method.__name__ = f"__i{name}__"
    return method


def _same_memory(view, layout, key) -> bool:
    """Whether layout ``view`` is exactly ``layout[key]`` (the same dtype,
    first element, shape and strides): a write of it there changes nothing
    (a view of another dtype over the same bytes would be cast)."""
    try:
        region = layout[key]
    except Exception:  # noqa: BLE001  (the write itself will say what is wrong with the key)
        return False
    return (region.dtype == view.dtype and region.shape == view.shape and region.strides == view.strides
            and address(region) == address(view))


def _lazy_bounds(s: slice) -> bool:
    return isinstance(s.start, Tensor) or isinstance(s.stop, Tensor) or isinstance(s.step, Tensor)


def _static_key(key):
    """``key`` with its slices' lazy bounds as Python ints (evaluated: the
    getitem op has already refused them under tracing)."""
    def static(e):
        if type(e) is slice and _lazy_bounds(e):
            return slice(*(int(b) if isinstance(b, Tensor) else b for b in (e.start, e.stop, e.step)))
        return e
    return tuple(static(e) for e in key) if type(key) is tuple else static(key)


def _write_result(self, result, name: str):
    """``t op= u``: NumPy's ``op(t, u, out=t)``.  The result is written into
    t (its handle moves, and so do its base's and every view's), keeping t's
    dtype and shape, and refusing what NumPy refuses."""
    if type(result) is Tensor and type(self) is not Selection:
        new, old = result.node, self.node
        if new.shape == old.shape and new.dtype == old.dtype:  # the common case: nothing to broadcast or cast
            write_node(self, new)
            return self
    elif type(self) is Selection and update(self, result):  # u[fired] += d[fired]: stays a lazy selection
        return self
    if result.shape != self.shape:
        raise error_at(ShapeError, name, f"non-broadcastable output operand with shape {self.shape} doesn't match "
                                         f"the broadcast shape {result.shape}")
    if result.dtype != self.dtype and not np.can_cast(result.dtype, self.dtype, "same_kind"):
        raise error_at(DTypeError, name, f"Cannot cast ufunc '{name}' output from {result.dtype!r} to "
                                         f"{self.dtype!r} with casting rule 'same_kind'")
    assign(self, result, casting="unsafe", op=name)
    return self


#: ``ndarray ** e`` in NumPy 2 runs another ufunc for these exact Python
#: scalars (``fast_scalar_power`` in NumPy's ``number.c``), on the dtype
#: kinds given (measured: ``int ** 2`` and ``bool ** 2`` square too, so
#: ``bool ** 2`` is int8).  ``x ** 2`` is then ~4x faster than ``power``,
#: and complex ``x ** 0.5`` (``sqrt``) differs from ``power(x, 0.5)`` in
#: the last bit.  Keyed by (type, value): ``2.0``, ``True`` and NumPy
#: scalars take ``power``, as in NumPy.
_POWER_SHORTCUTS = {(int, 2): ("square", "biufc"), (int, -1): ("reciprocal", "fc"), (float, 0.5): ("sqrt", "fc")}


def _power_shortcut(base, exponent) -> str | None:
    """The ufunc NumPy's ``base ** exponent`` runs instead of ``power``, if any."""
    try:
        ufunc, kinds = _POWER_SHORTCUTS.get((type(exponent), exponent), (None, ""))
    except TypeError:  # an unhashable exponent (a list): no shortcut
        return None
    return ufunc if base.dtype.kind in kinds else None


def _power(self, other):
    """NumPy's ``self ** other``: the ufunc it runs, and its result."""
    shortcut = _power_shortcut(self, other)
    if shortcut:
        return shortcut, getattr(_namespace(), shortcut)(self)
    return "power", _namespace().power(self, other)


def _pow(self, other):
    return _power(self, other)[1]


def _ipow(self, other):
    name, result = _power(self, other)
    if _numpy_scalar(self):
        return result
    return _write_result(self, result, name)


def _method(name: str):
    def method(self, *args, **kwargs):
        return getattr(_namespace(), name)(self, *args, **kwargs)
    method.__name__ = name
    return method


def _reducing_method(name: str):
    """``t.sum()``, ``t.max(0)``, ``t.mean(axis=1)``: the node the namespace's
    function made before for these arguments (``reduction._fast``), made at
    once, without the namespace's ``out=`` and handle wrappers (1 us of a
    small sum); any other call goes the long way.  (_fast names the user's
    line through user_location(3): its caller is this method, as it is
    the namespace function's own when called from there.)"""
    def method(self, *args, **kwargs):
        if len(args) + len(kwargs) <= 1 and (not kwargs or "axis" in kwargs) and type(self) is Tensor:
            hit = _reduce_fast(name, self, args[0] if args else kwargs.get("axis"), None, _NoValue)
            if hit is not None:
                return hit
        return getattr(_namespace(), name)(self, *args, **kwargs)
    method.__name__ = name
    return method


class _Methods:
    """The methods install() puts on Tensor."""

    @property
    def shape(self) -> tuple:
        return self.node.shape

    @shape.setter
    def shape(self, value):
        """``t.shape = s``: NumPy's in-place reshape, refused where NumPy
        would need a copy."""
        new = _namespace().reshape(Tensor(self.node, self.stack), value).shape
        layout = _shadow_of(self)
        try:
            shadow = layout.reshape(new, copy=False)
        except (ValueError, AttributeError):
            raise error_at(also(AttributeError), "shape", "Incompatible shape for in-place modification. Use "
                                                          "`.reshape()` to make a copy with the desired shape.") \
                from None
        tpl = make_node("reshape", [self.node], (("shape", new),))
        self._steps = self._steps + (tpl,)
        self._node, self._version, self._shadow = tpl, self._storage.version, shadow
        settle(self, tpl)

    @property
    def T(self):
        return _namespace().transpose(self)

    @property
    def mT(self):
        return _namespace().matrix_transpose(self)

    @property
    def real(self):
        return _namespace().real(self)

    @real.setter
    def real(self, value):
        self.real[...] = value

    @property
    def imag(self):
        return _namespace().imag(self)

    @imag.setter
    def imag(self, value):
        self.imag[...] = value

    @property
    def flat(self):
        return FlatIter(self)

    @flat.setter
    def flat(self, value):
        FlatIter(self)[...] = value

    def __hash__(self):
        """A value NumPy holds as a scalar (an element ``a[i]``, a reduction's
        result) hashes as that scalar does, by value: ``counts[v] += 1`` over
        ``for v in a`` counts equal elements under one key, and ``v in {3}``
        finds 3.  Every other lazy array hashes by identity (usable as a dict
        key: ``updates={w: ...}``), as does a scalar whose value needs a feed."""
        if _numpy_scalar(self) and self.node.concrete:
            return hash(self.eval().item())
        return object.__hash__(self)

    def __contains__(self, value):
        return bool(_namespace().any(self == value))

    def copy(self, order="K"):
        """A new handle to the same value: later writes to either do not touch
        the other.  A 0-d array's copy is a 0-d array (written in place by
        ``+=``), a scalar's a scalar, as in NumPy."""
        if not self.shape and type(self) is Tensor and self._storage is not None and \
                self.node.op not in _ZERO_D_ARRAY_OPS:  # a 0-d view (a[..., 0]): its copy is a 0-d array
            return Tensor(make_node("reshape", [self.node], (("shape", ()),)), self.stack)
        return Tensor(self.node, self.stack)

    def resize(self, *new_shape, refcheck=True):
        """NumPy's ``ndarray.resize``: in place, the elements in C order, cut
        or followed by zeros.  An array with views (or that is one) is
        refused, as NumPy's reference check refuses it (here whatever
        ``refcheck`` says: a view would otherwise keep the old data)."""
        if len(new_shape) == 1 and (new_shape[0] is None or isinstance(new_shape[0], (tuple, list))):
            new_shape = new_shape[0]
        if new_shape is None or new_shape == ():
            return None  # a.resize(): NumPy does nothing
        fnp = _namespace()
        shape = fnp.zeros(new_shape, dtype=bool).shape  # NumPy's checks of the shape argument
        _check_writeable(self, "resize")
        if self._storage is not None:
            raise error_at(also(ValueError), "resize", "cannot resize an array that references or is referenced\n"
                                                      "by another object in this way.\nUse the np.resize function "
                                                      "to get a new resized copy")
        n, size = int(np.prod(shape)), self.size
        flat = fnp.ravel(Tensor(self.node, self.stack))
        if n <= size:
            flat = flat[:n]
        else:
            flat = fnp.concatenate([flat, fnp.zeros(n - size, self.dtype)])
        new = fnp.reshape(flat, shape).node
        self._node = new  # (as write_node moves a handle with no storage, the shape now changing)
        settle(self, new, claim=True)
        return None

    # -- indexing
    def __getitem__(self, key):
        """NumPy's indexing; a basic key (integers, slices, None, ...) gives a
        view of t's data, as NumPy's does."""
        if type(key) is Tensor and key.dtype.kind == "b" and key.ndim:  # x[mask]: its length is not needed yet
            selection = select(self, key)
            if selection is not None:
                return selection
        result = _getitem_op(self, key)
        # one pass over the key (no generators: 0.5 us of a[5]): any entry that is not basic makes a copy
        integers_only = True
        for e in (key if type(key) is tuple else (key,)):
            t = type(e)
            if t is int:
                continue
            if t is slice:
                if not ((e.start is None or type(e.start) is int) and (e.stop is None or type(e.stop) is int)
                        and (e.step is None or type(e.step) is int)) and not _basic_entry(e):
                    if _lazy_bounds(e):  # a[w:] with a lazy w (the op evaluated it): a view, as NumPy's is
                        return self[_static_key(key)]
                    return result
                integers_only = False
            elif e is None or e is Ellipsis:
                integers_only = False
            elif not isinstance(e, np.integer):
                return result
        if integers_only and (len(key) if type(key) is tuple else 1) == self.ndim:
            return result  # integers only, one per axis: NumPy returns a scalar, a copy
        return link_view(self, result, _shadow_of(self)[key])

    def __setitem__(self, key, value):
        """``t[key] = value``: NumPy's setitem (unsafe cast, broadcasting, last
        write wins), as a new node; t, its base and its views all see it."""
        _check_writeable(self)
        if type(value) is Tensor and value._storage is not None and value._storage is self._storage \
                and _same_memory(value._shadow, self._shadow, key):
            return  # g[1:] |= f ends in g[1:] = (that view of g): its own memory onto itself, as NumPy's does
        write_node(self, setitem_node(self.node, key, value, self.stack))

    # -- protocols
    def __array_namespace__(self, api_version=None):
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
            raise ValueError(f"unsupported Array API version {api_version!r}")
        return self.stack.namespace or _namespace()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and not kwargs:
            # ``b - t``, ``A @ t`` with a NumPy array first: the call array_ufunc would make (the Ufunc's
            # own for its nin arrays, no keywords), made here without its look-ups and Ufunc.__call__'s
            # frame (1.2 us).  user_location(3) in the impl starts at this method's caller, as it does at
            # Ufunc.__call__'s.
            hit = _ufunc_calls().get(ufunc)
            if hit is not None and len(inputs) == hit[0]:
                return hit[1](*inputs)
        return _array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        impl = _numpy_implementations().get(func)
        if impl is None:
            raise error_at(FgraphError, getattr(func, "__name__", str(func)),
                           f"numpy.{getattr(func, '__name__', func)} has no lazy fgraph version; "
                           "evaluate first with numpy.asarray(t)")
        return impl(*args, **kwargs)

    # -- methods NumPy arrays have
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        result = _namespace().astype(self, dtype, casting=casting)
        return Tensor(result.node, self.stack) if copy and result is self else result

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        """``a.sort()``: sorts in place (a new node; aliases and views see it)."""
        _check_writeable(self, "sort")
        assign(self, _namespace().sort(self, axis=axis, kind=kind, order=order, stable=stable), casting="no",
               op="sort")

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        _check_writeable(self, "partition")
        assign(self, _namespace().partition(self, kth, axis=axis, kind=kind, order=order), casting="no",
               op="partition")

    def put(self, indices, values, mode="raise"):
        _namespace().put(self, indices, values, mode=mode)

    def nonzero(self):
        return _namespace().nonzero(self)

    def compress(self, condition, axis=None, out=None):
        return _namespace().compress(condition, self, axis=axis, out=out)

    def reshape(self, *shape, order="C", copy=None):
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        return _namespace().reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, np.integer))):
            axes = axes[0]
        return _namespace().transpose(self, axes or None)

    def flatten(self, order="C"):
        """A copy, flattened (never a view)."""
        return Tensor(_namespace().ravel(self, order=order).node, self.stack)

    def view(self, dtype=None, type=None):
        """``a.view()``: a new view of the same data; ``a.view(dtype)`` of the
        same itemsize reinterprets the bytes (a ``bitcast``)."""
        return _view(self, dtype, type)

    def conj(self):
        return _namespace().conjugate(self)

    def dot(self, other):
        return _namespace().dot(self, other)

    def __round__(self, ndigits=None):
        if ndigits is None and self.ndim == 0:
            return round(self.item())
        return _namespace().round(self, ndigits or 0)

    def __abs__(self):
        return _namespace().absolute(self)

    def __neg__(self):
        return _namespace().negative(self)

    def __pos__(self):
        return _namespace().positive(self)

    def __invert__(self):
        return _namespace().invert(self)

    def __matmul__(self, other):
        return _namespace().matmul(self, other)

    def __rmatmul__(self, other):
        return _namespace().matmul(other, self)

    def __divmod__(self, other):
        return _namespace().divmod(self, other)

    def __rdivmod__(self, other):
        return _namespace().divmod(other, self)



class FlatIter:
    """``a.flat``: NumPy's flat iterator, read and written by flat index."""

    __slots__ = ("base",)

    def __init__(self, t: Tensor):
        self.base = t

    def _flat(self) -> Tensor:
        return Tensor(_namespace().ravel(self.base).node, self.base.stack)

    def __getitem__(self, key):
        return self._flat()[key]

    def __setitem__(self, key, value):
        t = self.base
        _check_writeable(t)
        flat = make_node("reshape", [t.node], (("shape", (t.size,)),))
        if key is Ellipsis or (isinstance(key, slice) and key == slice(None)):
            fnp = _namespace()
            v = fnp.ravel(fnp.asarray(value))
            if v.size not in (0, t.size):
                v = fnp.resize(v, (t.size,))  # NumPy repeats the values to fill the array
            value = v
        new = setitem_node(flat, key, value, t.stack)
        write_node(t, make_node("reshape", [new], (("shape", t.shape),)))

    def __iter__(self):
        return iter(self._flat())

    def __len__(self):
        return self.base.size

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._flat(), dtype=dtype)

    def copy(self):
        return self._flat()



#: NumPy's ufunc -> (nin, the plain call of the default namespace's Ufunc for it), for __array_ufunc__
_UFUNC_CALLS: dict = {}


def _ufunc_calls() -> dict:
    if not _UFUNC_CALLS:
        _UFUNC_CALLS.update({obj._np: (obj._nin, obj._impl) for obj in _UFUNC_OBJECTS.values()})
    return _UFUNC_CALLS


# NumPy function -> our function, for __array_function__ (built once, lazily)
_IMPLS: dict | None = None


def _numpy_implementations() -> dict:
    global _IMPLS
    if _IMPLS is None:
        ns = _namespace()
        table = {}
        for name in ns.__all__:
            for mod in (np, np.linalg):
                f = vars(mod).get(name)  # (not getattr: NumPy's __getattr__ would import numpy.testing...)
                if callable(f) and not isinstance(f, type):
                    impl = getattr(ns, name)
                    if impl is not f:  # (NumPy's own, passed through)
                        table.setdefault(f, impl)
        for sub in ("linalg", "fft"):
            ours = getattr(ns, sub, None)
            for name in getattr(ours, "__all__", ()):
                f = getattr(getattr(np, sub), name, None)
                if callable(f):
                    table[f] = getattr(ours, name)
        _IMPLS = table
    return _IMPLS



#: operators and NumPy's methods, each calling the namespace's function of that name
_OPERATORS = [("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
              ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"),
              ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
              ("lshift", "left_shift"), ("rshift", "right_shift"), ("matmul", "matmul")]
_COMPARISONS = [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                ("gt", "greater"), ("ge", "greater_equal")]
_METHODS = ["sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "all", "any", "cumsum",
            "cumprod", "ravel", "squeeze", "swapaxes", "take", "clip", "round", "diagonal", "trace",
            "argsort", "repeat", "conjugate", "ptp", "searchsorted", "argpartition", "choose"]


#: the methods with reduction's fast path (its op names are theirs)
_REDUCING = frozenset(("sum", "prod", "mean", "max", "min", "all", "any"))

_CLASS_BOOKKEEPING = frozenset(("__module__", "__qualname__", "__dict__", "__weakref__", "__doc__",
                                "__firstlineno__", "__static_attributes__"))


def install(namespace, cls=Tensor) -> None:
    """Put NumPy's methods, operators and protocols on ``cls`` (the lazy
    array), calling ``namespace`` (``fgraph.numpy``) and the op families;
    the tensor layer's own helpers that build through the namespace (a
    list of lazy arrays lifted by ``stack``, ``assign(where=)``) get it too."""
    global _NS
    _NS = _tensor._NS = namespace
    for name, value in vars(_Methods).items():
        if name not in _CLASS_BOOKKEEPING:
            setattr(cls, name, value)
    for name, ufunc in _OPERATORS:
        setattr(cls, f"__{name}__", _binary(ufunc))
        setattr(cls, f"__r{name}__", _binary(ufunc, reflected=True))
        setattr(cls, f"__i{name}__", _inplace(ufunc))
    cls.__pow__, cls.__ipow__ = _pow, _ipow
    for name, ufunc in _COMPARISONS:
        setattr(cls, f"__{name}__", _binary(ufunc))
    for name in _METHODS:
        setattr(cls, name, _reducing_method(name) if name in _REDUCING else _method(name))

"""The Operator layer: the lazy array and how values become nodes.

``Tensor`` wraps a node and the stack that made it.  Its operators, methods
and NumPy protocols call the NumPy-named functions of ``fgraph.numpy``, so
``t + 1``, ``np.sin(t)`` and ``np.concatenate([t, u])`` all build nodes.
Conversions (``np.asarray``, ``float``, ``item``, ``tolist``, ``eval``)
evaluate on the stack's engine.
"""
from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from . import stack as _stack
from . import views as _views
from .errors import DTypeError, FgraphError, ShapeError, also, user_location
from .shape import PY_SCALAR_DTYPES, as_shape, broadcasts_to, defop
from .eager import host_engine, settle, small_value
from .symbol import Const, Known, Node, Scalar, error_at, exact_key, make_node, next_id

# ---------------------------------------------------------------- leaf ops

def _leaf_rule(inputs, **params):
    raise FgraphError("leaf nodes are built directly")


def _constant_kernel(*, value):
    return value.array


def _literal_kernel(*, value):
    return value.value


# constants and literals hold their value (the NumPy kernel hands it over); an engine fills the others
defop("constant", _leaf_rule, "A constant array (params: value).", leaf=True, kernel=_constant_kernel)
defop("literal", _leaf_rule, "A Python scalar, weak under NEP 50 (params: value).", leaf=True,
      kernel=_literal_kernel)
defop("placeholder", _leaf_rule, "An array fed at each run (params: name, id).", leaf=True)
defop("variable", _leaf_rule, "State with an initial value (params: name, id, value).", leaf=True)

_literal_cache: dict = {}


def literal_node(value) -> Node:
    """A weak Python-scalar node (cached: literals are values)."""
    t = type(value)
    # an int or bool is its own exact key beside its type (1, 1.0 and True stay apart; 0.2 us of a + 1);
    # floats and complex numbers are keyed by their bits (0.0 and -0.0, NaNs), anything else by its repr
    key = (t, value) if t is int or t is bool else exact_key(value)
    node = _literal_cache.get(key)
    if node is None:
        if t not in PY_SCALAR_DTYPES:  # subclasses of int/float, e.g. IntEnum
            t = next(k for k in (bool, int, float, complex) if isinstance(value, k))
            value = t(value)
        node = Node("literal", (("value", Scalar(value)),), (), (), PY_SCALAR_DTYPES[t], True, None, None)
        if len(_literal_cache) > 4096:
            _literal_cache.clear()
        _literal_cache[key] = node
    return node


def constant_node(array, name: str | None = None) -> Node:
    """A constant node holding a frozen copy of ``array`` (or the array
    itself when nothing can write it).  A large one's data is owned by a
    ``Known`` that the node pins until a step computed from it, and then
    lives only as long as a lazy array needs it (``symbol.Known``)."""
    c = Const(np.asarray(array))
    arr = c.array
    node = Node("constant", (("value", c),), (), arr.shape, arr.dtype, False, name, user_location(2))
    if not c.by_content:
        known = Known(node, arr, host_engine())
        object.__setattr__(node, "_pins", known)  # until a step that reads it lets go
        c.release_to(known, node.where)
    return node


def placeholder_node(shape, dtype, name: str | None = None, uid: int | None = None) -> Node:
    """``uid``: the placeholder's identity (default: a new one); a sub-graph's
    own placeholders take their position, so tracing the same body twice
    gives equal graphs (and one compiled body)."""
    uid = next_id() if uid is None else uid
    name = name if name is not None else f"placeholder_{uid}"
    return Node("placeholder", (("name", name), ("id", uid)), (), as_shape(shape), np.dtype(dtype), False, name,
                user_location(2))


def variable_node(value, name: str | None = None) -> Node:
    uid = next_id()
    name = name if name is not None else f"variable_{uid}"
    c = Const(np.asarray(value))
    return Node("variable", (("name", name), ("id", uid), ("value", c)), (), c.array.shape, c.array.dtype, False,
                name, user_location(2))


# ---------------------------------------------------------------- lifting

_NS = None
_GETITEM = None


def _getitem():
    global _GETITEM
    if _GETITEM is None:
        from .ops.indexing import getitem  # late: ops sit above this layer

        _GETITEM = getitem
    return _GETITEM


def _namespace():
    global _NS
    if _NS is None:
        from . import numpy as fnp  # late: the namespace is built above this layer

        _NS = fnp
    return _NS


def lift(x: Any, stack: _stack.Stack | None = None) -> Node:
    """A node for any array-like: Tensor, Python scalar, NumPy array or scalar, nested list."""
    if type(x) is Tensor:
        return x.node
    if type(x) in (int, float, bool, complex):
        return literal_node(x)
    if isinstance(x, Tensor):
        return x.node
    if isinstance(x, (np.ndarray, np.generic)):
        if x.dtype.kind in "OSUVMm":
            from .array_api import unsupported_dtype

            raise DTypeError(unsupported_dtype(x.dtype))
        return constant_node(x)
    if isinstance(x, (bool, int, float, complex)):
        if hasattr(x, "__array__"):  # a Python number that is a NumPy scalar too (finfo(float32).eps): strong
            return constant_node(np.asarray(x.__array__()))
        return literal_node(x)
    if isinstance(x, (list, tuple)):
        if _contains_tensor(x):
            return _namespace().stack([Tensor(lift(e, stack), stack or _stack.current()) for e in x]).node
        return constant_node(python_data_array(x, None, stack))
    if hasattr(x, "__array__") or hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__"):
        return constant_node(np.asarray(x))
    if hasattr(x, "__len__") and hasattr(x, "__getitem__"):  # range, deque, array.array: sequences NumPy converts
        return constant_node(python_data_array(x, None, stack))
    raise DTypeError(f"cannot make an fgraph array from {type(x).__name__}")


def _contains_tensor(seq) -> bool:
    stack = [seq]
    while stack:
        s = stack.pop()
        for e in s:
            if isinstance(e, Tensor):
                return True
            if isinstance(e, (list, tuple)):
                stack.append(e)
    return False


def python_data_array(x, dtype, stack: _stack.Stack | None) -> np.ndarray:
    """NumPy's conversion of Python data, with the stack's default float dtype."""
    try:
        arr = np.asarray(x, dtype=dtype)
    except (ValueError, TypeError) as e:
        raise DTypeError(f"cannot convert to an array: {e}") from None
    if dtype is None:
        st = stack or _stack.current()
        if arr.dtype == np.float64 and st.float_dtype != np.float64 and st.float_dtype.kind == "f":
            arr = arr.astype(st.float_dtype)
        elif arr.dtype == np.complex128 and st.float_dtype == np.float32:
            arr = arr.astype(np.complex64)
    if arr.dtype.kind in "OSUVMm":
        raise DTypeError(f"fgraph does not support arrays of dtype {arr.dtype}")
    return arr


def stack_of(args: Sequence) -> _stack.Stack:
    for a in args:
        if isinstance(a, Tensor):
            return a.stack
    return _stack.current()


def apply(op: str, args: Sequence, params: tuple = (), name: str | None = None) -> "Tensor":
    """Lift ``args`` to nodes, make an ``op`` node, wrap it as a Tensor."""
    st = stack_of(args)
    return Tensor(make_node(op, [lift(a, st) for a in args], params, name), st)


# ---------------------------------------------------------------- Tensor

_ids = itertools.count()
def _binary(name: str, reflected: bool = False):
    # ``a + b`` is ``fgraph.numpy.add(a, b)``: a Ufunc whose __call__, for two
    # arguments and no keywords, is ``_impl(a, b)``; the method calls _impl
    # itself (fetched on first use: the namespace sits above this layer),
    # saving the attribute look-up and the __call__ frame (0.35 us of a + 1).
    # _impl names the user's line through user_location(3): here the frame
    # it skips is this method instead of __call__, so it lands on the same line.
    # (The type tests spare the common operands the isinstance: 0.05 us.)
    impl = None

    if reflected:
        def method(self, other):
            nonlocal impl
            t = type(other)
            if t is not Tensor and t is not int and t is not float and isinstance(other, (str, bytes)):
                return NotImplemented  # "*" * n: Python repeats the string, through __index__
            if impl is None:
                impl = getattr(_namespace(), name)._impl
            return impl(other, self)
    else:
        def method(self, other):
            nonlocal impl
            t = type(other)
            if t is not Tensor and t is not int and t is not float and isinstance(other, (str, bytes)):
                return NotImplemented
            if impl is None:
                impl = getattr(_namespace(), name)._impl
            return impl(self, other)
    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


def _inplace(name: str):
    def method(self, other):
        return _write_result(self, getattr(_namespace(), name)(self, other), name)
    method.__name__ = f"__i{name}__"
    return method


def _write_result(self, result, name: str):
    """``t op= u``: NumPy's ``op(t, u, out=t)``.  The result is written into
    t (its handle moves, and so do its base's and every view's), keeping t's
    dtype and shape, and refusing what NumPy refuses."""
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
    return _write_result(self, result, name)


def _method(name: str):
    def method(self, *args, **kwargs):
        return getattr(_namespace(), name)(self, *args, **kwargs)
    method.__name__ = name
    return method


class Tensor:
    """A lazy array: a handle to a node of a graph, and the stack that made it.

    Nodes never change; a write (``t[i] = v``, ``t += 1``, ``out=t``) makes a
    new node and moves the handle, and the handles of t's base and views
    (``fgraph.views``), so aliases see the write as in NumPy."""

    __slots__ = ("_node", "_keep", "stack", "_storage", "_steps", "_version", "_base", "_shadow", "__weakref__")
    __array_priority__ = 1000  # NumPy defers binary operators to us

    def __init__(self, node: Node, stack: _stack.Stack | None = None):
        self._node = node
        self.stack = stack or _stack.DEFAULT
        settle(self, node)
        self._storage = self._steps = self._base = self._shadow = None
        self._version = 0

    # identity hashing: tensors are usable as dict keys (e.g. updates)
    __hash__ = object.__hash__

    @property
    def node(self) -> Node:
        """The node this handle points at now (a view reads its storage's latest value)."""
        if self._steps is None:
            return self._node
        st = self._storage
        if self._version != st.version:
            self._node = node = _views.replay(st.node, self._steps)
            settle(self, node)
            self._version = st.version
        return self._node

    # -- attributes
    dtype = property(lambda self: self.node.dtype)
    ndim = property(lambda self: len(self.node.shape))
    size = property(lambda self: self.node.size)
    itemsize = property(lambda self: self.node.dtype.itemsize)
    nbytes = property(lambda self: self.node.nbytes)
    name = property(lambda self: self.node.name)
    op = property(lambda self: self.node.op)
    device = property(lambda self: self.stack.engine)

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
    def base(self):
        """The array whose data this view shares (None for an array that owns its data)."""
        return self._base

    @property
    def strides(self) -> tuple:
        """NumPy's strides for this array's layout (a base is C-contiguous)."""
        return _shadow_of(self).strides

    @property
    def flags(self):
        """NumPy's flags for this array's layout; ``t.flags.writeable = False``
        makes it (and later views of it) read-only."""
        return Flags(self)

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

    def describe(self) -> str:
        """A one-line lazy description (op, name, dtype, shape); evaluates nothing."""
        label = f" {self.node.name!r}" if self.node.name else ""
        return f"<fgraph.Tensor {self.node.op}{label} {self.node.dtype}{list(self.node.shape)}>"

    def _printable(self):
        """The value to print, or None where it cannot be known (a placeholder below)."""
        try:
            return self.eval()
        except FgraphError as e:
            if "has no value" in str(e):
                return None
            raise

    def __repr__(self):
        """NumPy's ``repr`` of the value (evaluating it, as printing in NumPy
        shows data); a value that depends on a placeholder shows ``describe()``.
        A 0-d result prints as the NumPy scalar NumPy's functions return
        (``np.float64(2.5)``), unless it was made as a 0-d array."""
        value = self._printable()
        if value is None:
            return self.describe()
        if value.ndim == 0 and not self._steps:  # (a view is an array)
            made_by = self._storage.origin.op if self._storage is not None else self.node.op
            if made_by not in _ZERO_D_ARRAY_OPS:
                return repr(value[()])
        return repr(value)

    def __str__(self):
        value = self._printable()
        return self.describe() if value is None else str(value)

    # -- evaluation
    def eval(self) -> np.ndarray:
        """Evaluate on the stack's engine; the result is kept while this
        array points at it, and read-only."""
        node = self.node
        k = node._known
        k = k() if k is not None else None
        if k is not None and k.engine.name == "numpy" and self.stack.engine == "numpy":
            return k.value  # already known (a NumPy engine hands out its read-only array)
        value = self.stack.evaluate([node])[0]
        k = node._known
        k = k() if k is not None else None
        if k is not None:  # this array keeps it too, whichever array was found to point at it
            self._keep = k
        return value

    def __array__(self, dtype=None, copy=None):
        arr = self.eval()
        if copy is False and dtype is not None and np.dtype(dtype) != arr.dtype:
            raise ValueError("fgraph: a copy is needed to convert to the requested dtype")
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def item(self, *args):
        return self.eval().item(*args)

    def tolist(self):
        return self.eval().tolist()

    def _scalar(self, kind):
        if self.size != 1:
            if kind is bool:
                raise error_at(also(ValueError), "bool", "The truth value of an array with more than one element "
                                                         "is ambiguous. Use a.any() or a.all()"
                                                         if self.size else "The truth value of an empty array is "
                                                         "ambiguous. Use `array.size > 0` to check that an array "
                                                         "is not empty.")
            raise error_at(also(TypeError), kind.__name__, "only length-1 arrays can be converted to Python "
                                                           f"scalars, got shape {self.shape}")
        return kind(self.eval().reshape(()).item() if kind is not bool else self.eval().reshape(()))

    def __bool__(self):
        return self._scalar(bool)

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __complex__(self):
        return self._scalar(complex)

    def __index__(self):
        if self.dtype.kind not in "iu" or self.ndim:
            raise error_at(DTypeError, "__index__", f"only 0-d integer arrays can be an index, got "
                                                    f"{self.dtype}{list(self.shape)}")
        return int(self.eval())

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __contains__(self, value):
        return bool(_namespace().any(self == value))

    def __format__(self, spec):
        """``f"{loss:.4f}"``: a 0-d array formats its value (evaluating it, as
        ``float()`` does), like a NumPy 0-d array; an empty spec is ``str()``."""
        if not spec:
            return str(self)
        if self.ndim:
            raise error_at(also(TypeError), "format", f"unsupported format string {spec!r} passed to an array of "
                                                      f"shape {self.shape} (as numpy.ndarray.__format__: only a 0-d "
                                                      "array formats its value)")
        return format(self.eval(), spec)

    # -- indexing
    def __getitem__(self, key):
        """NumPy's indexing; a basic key (integers, slices, None, ...) gives a
        view of t's data, as NumPy's does."""
        result = _getitem()(self, key)
        # one pass over the key (no generators: 0.5 us of a[5]): any entry that is not basic makes a copy
        integers_only = True
        for e in (key if type(key) is tuple else (key,)):
            t = type(e)
            if t is int:
                continue
            if t is slice:
                if not ((e.start is None or type(e.start) is int) and (e.stop is None or type(e.stop) is int)
                        and (e.step is None or type(e.step) is int)) and not _basic_entry(e):
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
        from .ops.writes import setitem_node  # late: the op family sits above this layer

        write_node(self, setitem_node(self.node, key, value, self.stack))

    # -- protocols
    def __array_namespace__(self, api_version=None):
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
            raise ValueError(f"unsupported Array API version {api_version!r}")
        return self.stack.namespace or _namespace()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from .ops.ufunc import array_ufunc  # late: the op families sit above this layer

        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        impl = _numpy_implementations().get(func)
        if impl is None:
            raise error_at(FgraphError, getattr(func, "__name__", str(func)),
                           f"numpy.{getattr(func, '__name__', func)} has no lazy fgraph version; "
                           "evaluate first with numpy.asarray(t)")
        return impl(*args, **kwargs)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        arr = self.eval()
        if not arr.flags.writeable and (max_version is None or tuple(max_version) < (1, 0)):
            if copy is False:
                raise BufferError("fgraph: the value is memoised read-only, and DLPack before 1.0 cannot say so; "
                                  "copy=False forbids the copy that would be exported instead")
            arr, copy = arr.copy(), None
        return arr.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return self.eval().__dlpack_device__()

    def to_device(self, device, /, *, stream=None):
        if device != self.device:
            raise error_at(FgraphError, "to_device", f"this array lives on {self.device!r}; use fgraph.make to "
                                                     "build on another engine")
        return self

    def __reduce__(self):
        raise TypeError("lazy fgraph arrays cannot be pickled; pickle np.asarray(t)")

    def __copy__(self):
        return Tensor(self.node, self.stack)

    def __deepcopy__(self, memo):
        return Tensor(self.node, self.stack)

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

    def fill(self, value):
        """``a.fill(value)``: every element set to value (cast as setitem casts)."""
        self[...] = value

    def itemset(self, *args):
        raise AttributeError("`itemset` was removed from the ndarray class in NumPy 2.0. Use `arr[index] = value` "
                             "instead.")

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

    def copy(self, order="K"):
        """A new handle to the same value: later writes to either do not touch the other."""
        return Tensor(self.node, self.stack)

    def view(self, dtype=None, type=None):
        """``a.view()``: a new view of the same data; ``a.view(dtype)`` of the
        same itemsize reinterprets the bytes (a ``bitcast``)."""
        from .ops.writes import view  # late: the op family sits above this layer

        return view(self, dtype, type)

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


for _name, _ufunc in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
                      ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"),
                      ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                      ("lshift", "left_shift"), ("rshift", "right_shift"), ("matmul", "matmul")]:
    setattr(Tensor, f"__{_name}__", _binary(_ufunc))
    setattr(Tensor, f"__r{_name}__", _binary(_ufunc, reflected=True))
    setattr(Tensor, f"__i{_name}__", _inplace(_ufunc))
Tensor.__pow__, Tensor.__ipow__ = _pow, _ipow
for _name, _ufunc in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                      ("gt", "greater"), ("ge", "greater_equal")]:
    setattr(Tensor, f"__{_name}__", _binary(_ufunc))
for _name in ["sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "all", "any", "cumsum",
              "cumprod", "ravel", "squeeze", "swapaxes", "take", "clip", "round", "diagonal", "trace",
              "argsort", "repeat", "conjugate", "ptp", "searchsorted"]:
    setattr(Tensor, _name, _method(_name))
del _name, _ufunc


def describe(t, max_lines: int | None = None, source: bool = False) -> str:
    """A lazy array's one-line description without evaluating it (``print(t)``
    shows its values); for an ``fgraph.Graph`` or a compiled executable, its
    listing, one line a node (``fgraph.show.listing``: ``max_lines`` elides
    the middle of a long one, ``source`` adds the user's line of each node)."""
    if isinstance(t, Tensor):
        return t.describe()
    # (the listing sits on top of the layers: imported when first asked for, never by this layer's import)
    from .show.listing import describe as listing

    return listing(t, max_lines=max_lines, source=source)


#: ops whose 0-d results NumPy returns as 0-d arrays, not scalars (np.array(5),
#: np.zeros(()), a.reshape(()), a[..., 0]): everything else returns a scalar
_ZERO_D_ARRAY_OPS = frozenset(("constant", "zeros", "ones", "full", "reshape", "slice", "broadcast_to", "setitem",
                               "variable", "placeholder", "astype"))


# ---------------------------------------------------------------- writes and layout

def _basic_entry(e) -> bool:
    """An index entry that keeps indexing basic (a view in NumPy)."""
    t = type(e)
    if t is int or t is slice or e is None or e is Ellipsis:
        return t is not slice or all(b is None or type(b) is int or isinstance(b, np.integer)
                                     for b in (e.start, e.stop, e.step))
    return isinstance(e, np.integer)


def _shadow_of(t: Tensor) -> np.ndarray:
    """t's layout as a metadata-only NumPy array (``fgraph.views``); puts t's
    data in a ``Storage`` if it has none yet."""
    if t._shadow is None:
        st = _views.Storage(t._node)
        t._storage, t._steps, t._version = st, (), 0
        t._shadow = st.shadow(t._node.shape)
    return t._shadow


def _check_writeable(t: Tensor, op: str = "setitem") -> None:
    if t._shadow is not None and not t._shadow.flags.writeable:
        raise _views.read_only_error(op)


def link_view(parent: Tensor, result: Tensor, shadow) -> Tensor:
    """Make ``result`` (a node computed from ``parent``'s by view ops) a view
    of parent's data with NumPy's layout ``shadow``; a result that is no
    chain of one-array ops over parent stays a copy."""
    steps = _views.chain(result.node, parent.node)
    if steps is None:
        return result
    _shadow_of(parent)
    # a handle just made for the result (no one else holds it: not the parent, not in a storage yet)
    # becomes the view itself, rather than a second handle (0.7 us of a slice)
    view = result if result is not parent and result._storage is None else Tensor(result.node, result.stack)
    view._storage, view._steps, view._version = parent._storage, parent._steps + steps, parent._storage.version
    view._base = parent._base if parent._base is not None else parent
    view._shadow = shadow
    return view


def write_node(t: Tensor, new: Node) -> None:
    """Move ``t`` to ``new`` (its whole new value, of t's shape and dtype).
    A view's write runs its steps backwards to its storage, so its base and
    every other view read the new value next."""
    if new.shape != t.shape or new.dtype != t.dtype:
        raise FgraphError(f"internal: a write of {new.dtype}{list(new.shape)} into {t.dtype}{list(t.shape)}")
    _check_writeable(t)
    if t._steps is None and t.ndim == 0:
        _shadow_of(t)  # remember what made it: a 0-d array stays an array (for printing) through writes
    if t._steps is None:
        t._node = new
        settle(t, new, claim=True)
        return
    st, steps = t._storage, t._steps
    parents = [st.node]
    for tpl in steps[:-1]:
        parents.append(_views.replay(parents[-1], (tpl,)))
    value = new
    for tpl, parent in zip(reversed(steps), reversed(parents)):
        value = _views.write_back(tpl, parent, value)
    held = small_value(value, t.stack)  # a small value computed now, kept alive until the storage holds it
    st.node = value
    del held
    st.version += 1
    t._node, t._version = new, st.version
    settle(t, new, claim=True)


def assign(target, value, *, casting: str = "same_kind", where=True, op: str = "assign"):
    """Write ``value`` into all of ``target`` (NumPy's ``out=``/``copyto``):
    broadcast to target's shape, cast under ``casting``, only where ``where``
    is true.  A lazy target's handle moves; a NumPy target is written (lazy
    values evaluated first).  Returns target."""
    if isinstance(target, np.ndarray):
        try:
            src = np.asarray(value) if isinstance(value, Tensor) else value
            mask = np.asarray(where) if isinstance(where, Tensor) else where
        except FgraphError as e:
            raise error_at(FgraphError, op, f"out= is a NumPy array, which needs the value now: {e}") from None
        np.copyto(target, src, casting=casting, where=mask)
        return target
    if not isinstance(target, Tensor):
        raise error_at(DTypeError, op, f"cannot write into {type(target).__name__}: out= takes arrays")
    _check_writeable(target, op)
    st = target.stack
    v = lift(value, st)
    if v.dtype != target.dtype and casting != "unsafe":
        castable = np.can_cast(v.dtype, target.dtype, casting)
        if not castable:
            what = "output" if op != "copyto" else "array data"
            raise error_at(DTypeError, op, f"Cannot cast {op!r} {what} from {v.dtype!r} to {target.dtype!r} with "
                                           f"casting rule {casting!r}")
    if not broadcasts_to(v.shape, target.shape):
        raise error_at(ShapeError, op, f"could not broadcast input array from shape {v.shape} into shape "
                                       f"{target.shape}")
    if v.dtype != target.dtype:
        v = make_node("astype", [v], (("dtype", target.dtype), ("casting", "unsafe")))
    if where is not True:
        mask = lift(where, st)
        if mask.dtype.kind != "b":
            raise error_at(DTypeError, op, f"where= must be boolean, got {mask.dtype}")
        v = _namespace().where(Tensor(mask, st), Tensor(v, st), Tensor(target.node, st)).node
    if v.shape != target.shape:
        v = make_node("broadcast_to", [v], (("shape", target.shape),))
    write_node(target, v)
    return target


class Flags:
    """NumPy's ``ndarray.flags`` for a lazy array's layout (``fgraph.views``)."""

    __slots__ = ("_t",)

    def __init__(self, t: Tensor):
        self._t = t

    def _flags(self):
        return _shadow_of(self._t).flags

    c_contiguous = property(lambda self: self._flags().c_contiguous)
    f_contiguous = property(lambda self: self._flags().f_contiguous)
    contiguous = c_contiguous
    fortran = f_contiguous
    aligned = property(lambda self: True)
    writebackifcopy = property(lambda self: False)
    owndata = property(lambda self: self._t._base is None)
    forc = property(lambda self: self.c_contiguous or self.f_contiguous)
    fnc = property(lambda self: self.f_contiguous and not self.c_contiguous)
    behaved = property(lambda self: self.writeable)
    carray = property(lambda self: self.c_contiguous and self.writeable)
    farray = property(lambda self: self.f_contiguous and not self.c_contiguous and self.writeable)

    @property
    def writeable(self) -> bool:
        return bool(self._flags().writeable)

    @writeable.setter
    def writeable(self, value):
        shadow = _shadow_of(self._t)
        if value and not shadow.flags.writeable and self._t._base is not None:
            raise ValueError("cannot set WRITEABLE flag to True of this array")
        shadow.flags.writeable = bool(value)

    _NAMES = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
              "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous",
              "WRITEABLE": "writeable", "W": "writeable", "OWNDATA": "owndata", "O": "owndata",
              "ALIGNED": "aligned", "A": "aligned", "WRITEBACKIFCOPY": "writebackifcopy", "X": "writebackifcopy",
              "FNC": "fnc", "FORC": "forc", "BEHAVED": "behaved", "B": "behaved", "CARRAY": "carray",
              "CA": "carray", "FARRAY": "farray", "FA": "farray"}

    def __getitem__(self, name):
        return getattr(self, self._NAMES[name.upper()])

    def __setitem__(self, name, value):
        if self._NAMES.get(name.upper()) != "writeable":
            raise KeyError(f"cannot set flag {name!r}")
        self.writeable = value

    def __repr__(self):
        return "\n".join(f"  {k} : {self[k]}" for k in ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE",
                                                           "ALIGNED", "WRITEBACKIFCOPY"))


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
        from .ops.writes import setitem_node

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

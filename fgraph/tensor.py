"""The Operator layer: the lazy array and how values become nodes.

``Tensor`` wraps a node and the stack that made it.  Conversions
(``np.asarray``, ``float``, ``item``, ``tolist``, ``eval``, printing)
evaluate on the stack's engine.  Its operators, indexing, NumPy-named
methods and NumPy protocols call the op families and ``fgraph.numpy``,
which sit above this layer: the namespace layer installs them
(``fgraph.numpy.methods.install``), so ``t + 1``, ``t[i]``, ``t.sum()``,
``np.sin(t)`` and ``np.concatenate([t, u])`` all build nodes, while this
module imports nothing above its layer.
"""
from __future__ import annotations

import functools
import weakref
from typing import Any, Sequence

import numpy as np

from . import stack as _stack
from . import views as _views
from .array_api import unsupported_dtype
from .errors import DTypeError, FgraphError, ShapeError, also, user_location
from .shape import PY_SCALAR_DTYPES, as_shape, broadcasts_to, defop
from .eager import host_engine, settle, small_value
from .symbol import (CONTENT_KEY_BYTES, Const, Node, Scalar, _set_handle, const_node, error_at, exact_key, make_node,
                     next_id)

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
    return const_node(Const(np.asarray(array)), name, user_location(2), host_engine())


#: small NumPy operands by content (dtype, shape, bytes), as their Consts are keyed: one used every step
#: (``b - R @ x``, a scalar written with ``x[i] = 0``) is the same node again, not a Const and a node made
#: anew (3.3 us).  Only operands: an array made with ``asarray`` is a node of its own, as a gradient
#: with respect to it tells two equal arrays apart
_small_operands: dict = {}


def operand_node(arr: np.ndarray) -> Node:
    """The constant node of a NumPy operand of an op (see ``_small_operands``)."""
    if arr.nbytes > CONTENT_KEY_BYTES:
        return const_node(Const(arr), None, user_location(2), host_engine())
    key = (arr.dtype.str, arr.shape, arr.tobytes())
    node = _small_operands.get(key)
    if node is None:
        node = const_node(Const(arr, key), None, user_location(2), host_engine())
        if len(_small_operands) >= 2048:
            _small_operands.clear()
        _small_operands[key] = node
    return node


def placeholder_node(shape, dtype, name: str | None = None, uid: int | None = None) -> Node:
    """``uid``: the placeholder's identity (default: a new one); a sub-graph's
    own placeholders take their position, so tracing the same body twice
    gives equal graphs (and one compiled body)."""
    uid = next_id() if uid is None else uid
    name = name if name is not None else f"placeholder_{uid}"
    return Node("placeholder", (("name", name), ("id", uid)), (), as_shape(shape), np.dtype(dtype), False, name,
                user_location(2))


#: the placeholders the user made (``fgraph.numpy.placeholder``), alive: an executable ignores a feed naming
#: one its graph does not use (as jit ignores an unused argument) and refuses a name none of them has
PLACEHOLDERS: "weakref.WeakSet[Node]" = weakref.WeakSet()


def variable_node(value, name: str | None = None) -> Node:
    uid = next_id()
    name = name if name is not None else f"variable_{uid}"
    c = Const(np.asarray(value))
    return Node("variable", (("name", name), ("id", uid), ("value", c)), (), c.array.shape, c.array.dtype, False,
                name, user_location(2))


# ---------------------------------------------------------------- lifting

_NS = None  # the namespace (fgraph.numpy), given by fgraph.numpy.methods.install: it sits above this layer


def _namespace():
    return _NS


def lift(x: Any, stack: _stack.Stack | None = None) -> Node:
    """A node for any array-like: Tensor, Python scalar, NumPy array or scalar, nested list."""
    t = type(x)
    if t is Tensor:
        return x.node
    if t is int or t is float or t is bool or t is complex:
        return literal_node(x)
    if t is np.ndarray:  # a NumPy operand (b - t, A @ t): spared the isinstance tests below (0.5 us)
        if x.dtype.kind in "OSUVMm":
            raise DTypeError(unsupported_dtype(x.dtype))
        return operand_node(x)
    if isinstance(x, Tensor):
        return x.node
    if isinstance(x, (np.ndarray, np.generic)):
        if x.dtype.kind in "OSUVMm":
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
        self._storage = self._steps = self._base = self._shadow = None
        self._version = 0
        settle(self, node)  # (last: it may evaluate, which reads this array as any other)

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

    def tobytes(self, order="C"):
        """NumPy's ``tobytes``: the value's bytes; order ``"A"`` is Fortran's
        where this array's layout (``flags``) is, as in NumPy."""
        if order == "A":
            order = "F" if self.flags.f_contiguous and not self.flags.c_contiguous else "C"
        return self.eval().tobytes(order)

    def tofile(self, fid, sep="", format="%s"):
        """NumPy's ``tofile``: the value written in C order, as NumPy writes it."""
        self.eval().tofile(fid, sep=sep, format=format)

    def _scalar(self, kind):
        shape = self.node.shape
        if not shape:  # a 0-d array: its value is the scalar (float(loss), every step: no size or reshape)
            value = self.eval()
            return kind(value) if kind is bool else kind(value.item())
        if self.size != 1:
            if kind is bool:
                raise error_at(also(ValueError), "bool", "The truth value of an array with more than one element "
                                                         "is ambiguous. Use a.any() or a.all()"
                                                         if self.size else "The truth value of an empty array is "
                                                         "ambiguous. Use `array.size > 0` to check that an array "
                                                         "is not empty.")
            raise error_at(also(TypeError), kind.__name__, "only length-1 arrays can be converted to Python "
                                                           f"scalars, got shape {self.shape}")
        if kind is not bool and _numpy_refuses_nd_scalars():
            raise error_at(also(TypeError), kind.__name__, "only 0-dimensional arrays can be converted to Python "
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

    def fill(self, value):
        """``a.fill(value)``: every element set to value (cast as setitem casts)."""
        self[...] = value

    def itemset(self, *args):
        raise AttributeError("`itemset` was removed from the ndarray class in NumPy 2.0. Use `arr[index] = value` "
                             "instead.")

    def copy(self, order="K"):
        """A new handle to the same value: later writes to either do not touch the other."""
        return Tensor(self.node, self.stack)


_new_tensor = object.__new__


def holding(node: Node, stack: _stack.Stack, known) -> Tensor:
    """``Tensor(node, stack)`` for a node just made whose value its maker
    computed already (``known``, its Known): the array keeps the value and is
    the node's handle, as settle would leave it, without settle's tests
    (``incremental.tensor_now``).  The slots set here are Tensor.__init__'s."""
    t = _new_tensor(Tensor)
    t._node = node
    t.stack = stack
    t._storage = t._steps = t._base = t._shadow = None
    t._version = 0
    t._keep = known
    _set_handle(node, weakref.ref(t))
    return t


@functools.cache
def _numpy_refuses_nd_scalars() -> bool:
    """Whether the installed NumPy refuses ``int(a)`` for an ``a`` of one
    element and some axes (NumPy 2.4 raises TypeError; earlier versions
    warned and converted): fgraph follows the NumPy it runs with."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            int(np.ones(1, np.int64))
        except TypeError:
            return True
    return False


#: ops whose 0-d results NumPy returns as 0-d arrays, not scalars (np.array(5),
#: np.zeros(()), a.reshape(())): everything else returns a scalar.  A 0-d
#: ``slice`` is a scalar read (``a[i, j]``) unless it is a view (``a[..., 0]``)
_ZERO_D_ARRAY_OPS = frozenset(("constant", "zeros", "ones", "full", "reshape", "broadcast_to", "setitem",
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



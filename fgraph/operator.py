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
from .errors import DTypeError, FgraphError, ShapeError, user_location
from .shape import PY_SCALAR_DTYPES, as_shape, defop
from .symbol import Const, Node, Scalar, error_at, exact_key, make_node, next_id, refuse_out

# ---------------------------------------------------------------- leaf ops

def _leaf_rule(inputs, **params):
    raise FgraphError("leaf nodes are built directly")


defop("constant", _leaf_rule, "A constant array (params: value).", leaf=True)
defop("literal", _leaf_rule, "A Python scalar, weak under NEP 50 (params: value).", leaf=True)
defop("placeholder", _leaf_rule, "An array fed at each run (params: name, id).", leaf=True)
defop("variable", _leaf_rule, "State with an initial value (params: name, id, value).", leaf=True)

_literal_cache: dict = {}


def literal_node(value) -> Node:
    """A weak Python-scalar node (cached: literals are values)."""
    key = exact_key(value)
    node = _literal_cache.get(key)
    if node is None:
        t = type(value)
        if t not in PY_SCALAR_DTYPES:  # subclasses of int/float, e.g. IntEnum
            t = next(k for k in (bool, int, float, complex) if isinstance(value, k))
            value = t(value)
        node = Node("literal", (("value", Scalar(value)),), (), (), PY_SCALAR_DTYPES[t], True, None, None)
        if len(_literal_cache) > 4096:
            _literal_cache.clear()
        _literal_cache[key] = node
    return node


def constant_node(array, name: str | None = None) -> Node:
    """A constant node holding a frozen copy of ``array``."""
    c = Const(np.asarray(array))
    return Node("constant", (("value", c),), (), c.array.shape, c.array.dtype, False, name, user_location(2))


def placeholder_node(shape, dtype, name: str | None = None) -> Node:
    uid = next_id()
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
            raise DTypeError(f"fgraph does not support arrays of dtype {x.dtype}")
        return constant_node(x)
    if isinstance(x, (bool, int, float, complex)):
        return literal_node(x)
    if isinstance(x, (list, tuple)):
        if _contains_tensor(x):
            return _namespace().stack([Tensor(lift(e, stack), stack or _stack.current()) for e in x]).node
        return constant_node(python_data_array(x, None, stack))
    if hasattr(x, "__array__") or hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__"):
        return constant_node(np.asarray(x))
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
    if reflected:
        def method(self, other):
            return getattr(_namespace(), name)(other, self)
    else:
        def method(self, other):
            return getattr(_namespace(), name)(self, other)
    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


def _inplace(name: str):
    def method(self, other):
        return _rebound(self, getattr(_namespace(), name)(self, other), name)
    return method


def _rebound(self, result, name: str):
    """What ``t op= u`` rebinds ``t`` to: NumPy keeps t's dtype and shape, so
    we do too (and refuse what NumPy refuses)."""
    if result.shape != self.shape:
        raise error_at(ShapeError, name, f"in-place result of shape {result.shape} does not fit {self.shape}")
    if result.dtype != self.dtype:
        if not np.can_cast(result.dtype, self.dtype, "same_kind"):
            raise error_at(DTypeError, name, f"cannot cast in-place result from {result.dtype} to {self.dtype} "
                                             "with casting rule 'same_kind'")
        result = result.astype(self.dtype)
    return result


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
    return _rebound(self, result, name)


def _method(name: str):
    def method(self, *args, **kwargs):
        return getattr(_namespace(), name)(self, *args, **kwargs)
    method.__name__ = name
    return method


_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}


class Tensor:
    """A lazy, immutable array: a node of a graph and the stack that made it."""

    __slots__ = ("node", "stack", "__weakref__")
    __array_priority__ = 1000  # NumPy defers binary operators to us

    def __init__(self, node: Node, stack: _stack.Stack | None = None):
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "stack", stack or _stack.DEFAULT)

    def __setattr__(self, name, value):
        raise AttributeError(f"fgraph arrays are immutable (tried to set {name!r})")

    # identity hashing: tensors are usable as dict keys (e.g. updates)
    __hash__ = object.__hash__

    # -- attributes
    shape = property(lambda self: self.node.shape)
    dtype = property(lambda self: self.node.dtype)
    ndim = property(lambda self: len(self.node.shape))
    size = property(lambda self: self.node.size)
    itemsize = property(lambda self: self.node.dtype.itemsize)
    nbytes = property(lambda self: self.node.nbytes)
    name = property(lambda self: self.node.name)
    op = property(lambda self: self.node.op)
    device = property(lambda self: self.stack.engine)

    @property
    def T(self):
        return _namespace().transpose(self)

    @property
    def mT(self):
        return _namespace().matrix_transpose(self)

    @property
    def real(self):
        return _namespace().real(self)

    @property
    def imag(self):
        return _namespace().imag(self)

    @property
    def flat(self):
        raise error_at(FgraphError, "flat", "flat iteration is not lazy; use ravel()")

    def __repr__(self):
        label = f" {self.node.name!r}" if self.node.name else ""
        return f"<fgraph.Tensor {self.node.op}{label} {self.node.dtype}{list(self.node.shape)}>"

    __str__ = __repr__

    # -- evaluation
    def eval(self) -> np.ndarray:
        """Evaluate on the stack's engine; the result is memoised and read-only."""
        return self.stack.evaluate([self.node])[0]

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
            raise error_at(FgraphError, kind.__name__, f"only size-1 arrays convert to Python scalars, "
                                                       f"got shape {self.shape}")
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
            raise error_at(FgraphError, "format", f"format spec {spec!r} needs a 0-d array, got shape "
                                                  f"{self.shape} (NumPy refuses it too)")
        return format(self.eval().item(), spec)

    # -- indexing
    def __getitem__(self, key):
        return _getitem()(self, key)

    def __setitem__(self, key, value):
        raise error_at(FgraphError, "__setitem__", "fgraph arrays are immutable; build the new array with "
                                                   "fgraph.numpy.where(mask, value, a) instead of assigning")

    # -- protocols
    def __array_namespace__(self, api_version=None):
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
            raise ValueError(f"unsupported Array API version {api_version!r}")
        return self.stack.namespace or _namespace()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        refuse_out(ufunc.__name__, kwargs.get("out"))
        kwargs.pop("out", None)
        ns = _namespace()
        name = ufunc.__name__
        if method == "__call__":
            fn = getattr(ns, name, None)
            if fn is None:
                raise error_at(FgraphError, name, f"numpy.{name} has no lazy fgraph version")
            return fn(*inputs, **kwargs)
        if method == "reduce" and name in _REDUCE:
            kwargs.setdefault("axis", 0)
            return getattr(ns, _REDUCE[name])(*inputs, **kwargs)
        if method == "accumulate" and name in _ACCUMULATE:
            kwargs.setdefault("axis", 0)
            return getattr(ns, _ACCUMULATE[name])(*inputs, **kwargs)
        if method == "outer" and len(inputs) == 2:
            a, b = (ns.asarray(i) for i in inputs)
            return getattr(ns, name)(ns.reshape(a, a.shape + (1,) * b.ndim), b, **kwargs)
        raise error_at(FgraphError, name, f"numpy.{name}.{method} has no lazy fgraph version")

    def __array_function__(self, func, types, args, kwargs):
        impl = _numpy_implementations().get(func)
        if impl is None:
            raise error_at(FgraphError, getattr(func, "__name__", str(func)),
                           f"numpy.{getattr(func, '__name__', func)} has no lazy fgraph version; "
                           "evaluate first with numpy.asarray(t)")
        return impl(*args, **kwargs)

    def __dlpack__(self, *args, **kwargs):
        return self.eval().__dlpack__(*args, **kwargs)

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
        return self

    def __deepcopy__(self, memo):
        return self

    # -- methods NumPy arrays have
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return _namespace().astype(self, dtype, casting=casting)

    def sort(self, *args, **kwargs):
        raise error_at(FgraphError, "sort", "ndarray.sort() sorts in place; fgraph arrays are immutable: "
                                            "use t = fgraph.numpy.sort(t)")

    def fill(self, value):
        raise error_at(FgraphError, "fill", "fgraph arrays are immutable: use fgraph.numpy.full_like")

    def nonzero(self):
        return _namespace().nonzero(self)

    def reshape(self, *shape, order="C", copy=None):
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        return _namespace().reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, np.integer))):
            axes = axes[0]
        return _namespace().transpose(self, axes or None)

    def flatten(self, order="C"):
        return _namespace().ravel(self, order=order)

    def copy(self, order="K"):
        return self  # immutable: a copy is the same value

    def view(self, *args, **kwargs):
        raise error_at(FgraphError, "view", "reinterpreting memory is not lazy; use astype")

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


# NumPy function -> our function, for __array_function__ (built once, lazily)
_IMPLS: dict | None = None


def _numpy_implementations() -> dict:
    global _IMPLS
    if _IMPLS is None:
        ns = _namespace()
        table = {}
        for name in ns.__all__:
            for mod in (np, np.linalg):
                f = getattr(mod, name, None)
                impl = getattr(ns, name)
                if callable(f) and not isinstance(f, type) and impl is not f:  # (NumPy's own, passed through)
                    table.setdefault(f, impl)
        for sub in ("linalg", "fft"):
            ours = getattr(ns, sub, None)
            for name in getattr(ours, "__all__", ()):
                f = getattr(getattr(np, sub), name, None)
                if callable(f):
                    table[f] = getattr(ours, name)
        _IMPLS = table
    return _IMPLS

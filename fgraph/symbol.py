"""The Symbol layer: the immutable node, node construction and traversal.

A node is frozen: op name, static parameters, input nodes, result shape and
dtype, a label, and the user's (file, line) that made it.  Its structural
hash is computed once, from its inputs' cached hashes, so hashing a graph of
a million nodes is linear and never recursive.

Every traversal here is iterative: graphs may be a million nodes deep.
"""
from __future__ import annotations

import gc
import itertools
import math
import operator
import struct
import weakref
from typing import Any, Iterable, Sequence

import numpy as np

from .errors import AxisError, DTypeError, FgraphError, ShapeError, format_location, user_location
from .shape import check_size
from .registry import attr_table, is_registered

# Salt for the second half of the 128-bit structural key.
_SALT = 0x9E3779B97F4A7C15


#: constants of at most this many bytes are keyed by their content, so equal
#: ones merge (CSE, the result and program caches); larger ones by identity:
#: their bytes are never hashed (a large array entering a graph costs no
#: pass over its data beyond the one copy that keeps it from changing)
CONTENT_KEY_BYTES = 1024

_const_ids = itertools.count()


class Const:
    """A constant array held as a node parameter.

    The array is frozen: a copy, unless nothing can write it (read-only with
    no writable base), so nothing the user holds can change a graph after the
    fact.  A small constant compares by content (exact bytes); a large one by
    identity, and its data may be handed to a ``Known`` (``release_to``):
    then it lives as long as something that needs it does (see Known).
    """

    __slots__ = ("_array", "_owner", "_what", "_key", "_hash")

    def __init__(self, array: np.ndarray, key: tuple | None = None):
        """``key``: the content key of a small ``array`` already computed (it is not checked)."""
        arr = frozen_array(array)
        if key is None:
            if arr.nbytes <= CONTENT_KEY_BYTES:
                key = (arr.dtype.str, arr.shape, arr.tobytes())
            else:
                key = (arr.dtype.str, arr.shape, next(_const_ids))  # a number never reused, unlike id()
        # (through the slots themselves, as Node's setters: a NumPy operand becomes a Const at every call)
        _set_array(self, arr)
        _set_owner(self, None)
        _set_what(self, None)
        _set_key(self, key)
        _set_hash(self, hash(key))

    @property
    def array(self) -> np.ndarray:
        arr = self._array
        if arr is not None:
            return arr
        owner = self._owner()
        if owner is None:
            what = f"{np.dtype(self._key[0])}{list(self._key[1])} made at {format_location(self._what)}"
            raise FgraphError(f"the data of the constant {what} was released: no lazy array that needs it is "
                              "alive (keep the array, or a lazy array computed from it, to use it again)")
        return owner.value

    def release_to(self, known: "Known", where) -> None:
        """Let ``known`` own the data: the constant keeps it only through it
        (``where`` it was made kept for the error once the data is gone: the
        message is written then, not at every large operand)."""
        _set_what(self, where)
        _set_owner(self, weakref.ref(known))
        _set_array(self, None)

    @property
    def by_content(self) -> bool:
        """Whether equal contents make equal constants (small arrays only)."""
        return type(self._key[2]) is bytes

    def __setattr__(self, name, value):
        raise AttributeError("Const is immutable")

    def __eq__(self, other):
        return self is other or (type(other) is Const and self._key == other._key)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"Const({self._key[0]}{list(self._key[1])})"


_set_array, _set_owner, _set_what, _set_key, _set_hash = (getattr(Const, name).__set__ for name in Const.__slots__)


class Released(Const):
    """The value of a node whose history was released (``HISTORY_DEPTH``):
    the constant new nodes are built on in its place.  ``replaced``: that
    node's ``born``; a node born before it may lie below it, so a gradient
    with respect to such a node cannot pass through this constant."""

    __slots__ = ("replaced",)

    def __init__(self, array: np.ndarray, replaced: int):
        super().__init__(array)
        object.__setattr__(self, "replaced", replaced)


def frozen_array(value) -> np.ndarray:
    """``value`` as a read-only array nobody can change: itself when nothing
    can write it, else one copy."""
    arr = np.asarray(value)
    b = arr
    while isinstance(b, np.ndarray) and not b.flags.writeable:
        b = b.base
    if b is None or type(b) is bytes:  # read-only all the way down
        return arr
    arr = arr.copy()  # (C order; np.array(arr, copy=True, order="C") is 0.07 us more)
    arr.setflags(write=False)  # (not arr.flags.writeable = False: a flags object made each time, 0.1 us)
    return arr


def exact_key(value):
    """A hashable key telling apart Python scalars that compare equal but are
    different constants: ``0.0`` and ``-0.0``, ``1``, ``1.0`` and ``True``,
    and NaNs of either sign (``repr`` and ``float.hex`` print both as
    ``nan``; ``copysign`` tells them apart).  Floats and complex numbers are
    keyed by their bits; other values by their type and ``repr`` (node keys
    are compared by hash, and ``hash(-1) == hash(-2)``)."""
    if isinstance(value, float):
        return (type(value), struct.pack("<d", value))
    if isinstance(value, complex):
        return (type(value), struct.pack("<dd", value.real, value.imag))
    return (type(value), repr(value))


class Scalar:
    """A Python scalar literal as a parameter, compared by type and exact bits
    (:func:`exact_key`): in a graph ``0.0`` and ``-0.0``, or ``1`` and
    ``True``, are different constants."""

    __slots__ = ("value", "_key")

    def __init__(self, value):
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "_key", exact_key(value))

    def __setattr__(self, name, value):
        raise AttributeError("Scalar is immutable")

    def __eq__(self, other):
        return type(other) is Scalar and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return repr(self.value)


_MINUS_ONE = object()  # hash(-1) == hash(-2) in CPython: -1 gets its own token


def _canonical(v):
    """Params as hashed for the structural key: values that Python hashes
    alike (-1 and -2, 0.0 and -0.0) are told apart.  Params are a few
    levels deep, so the recursion is shallow."""
    t = type(v)
    if t is tuple:
        if _unchanged(v):  # most params need no change: then the tuple itself (no copy)
            return v
        for k, e in enumerate(v):
            te = type(e)
            if te is tuple or te is float or te is complex or (te is int and e == -1):
                c = _canonical(e)
                if c is not e:
                    return v[:k] + (c,) + tuple([_canonical(x) for x in v[k + 1:]])
        return v
    if t is int:
        return _MINUS_ONE if v == -1 else v
    if t is float or t is complex:
        return exact_key(v)
    return v


def _unchanged(v: tuple) -> bool:
    """Whether ``_canonical`` leaves the tuple ``v`` as it is (no float, complex
    or -1 at any depth): one walk without a call a level (a slice's fresh
    params, ``(("key", ((1, 128, 1), (0, 128, 1))),)``, 1.8 -> 1.1 us)."""
    stack = [v]
    while stack:
        for e in stack.pop():
            te = type(e)
            if te is tuple:
                stack.append(e)
            elif te is float or te is complex or (te is int and e == -1):
                return False
    return True


_canonical_memo: dict = {}


def canonical_params(params: tuple):
    """``_canonical(params)``, remembered for the params object itself (ops
    reuse the params they built for a shape): keyed by id, checked by
    identity, the params held so the id is never reused while remembered."""
    hit = _canonical_memo.get(id(params))
    if hit is not None and hit[0] is params:
        return hit[1]
    c = _canonical(params)
    for pair in params:  # never remember (so keep alive) a large constant's data
        if type(pair) is tuple and len(pair) == 2 and isinstance(pair[1], Const) and not pair[1].by_content:
            return c
    if len(_canonical_memo) >= 4096:
        _canonical_memo.clear()
    _canonical_memo[id(params)] = (params, c)
    return c


#: the leaves whose value is not known when the graph is built (fed, or state)
_TRACED_LEAVES = frozenset(("placeholder", "variable"))


class Node:
    """One immutable node of a computation graph.

    Equality is identity; structural equality is ``a.key == b.key`` (a
    128-bit structural key), which is what CSE and the result cache use.
    ``concrete`` is True when no placeholder or variable lies below the node
    (its value depends on constants alone), computed from the inputs' flags.
    ``depth``: the longest path down to a leaf (0 for a leaf), from the
    inputs' depths; ``born``: a serial number, larger for a node made later
    (a node lies only below nodes made after it), which tells whether it may
    lie below a node whose history was released (see :class:`Released`).
    """

    __slots__ = ("op", "params", "inputs", "shape", "dtype", "weak", "name", "where", "concrete", "depth", "born",
                 "_hash", "_key2", "_cparams", "_known", "_pins", "_handle", "__weakref__")

    def __new__(cls, op: str, params: tuple, inputs: tuple, shape: tuple, dtype: np.dtype,
                weak: bool = False, name: str | None = None, where: tuple | None = None):
        # Built as a _Building (the same layout, attributes settable), then
        # made a Node: plain stores cost a third of object.__setattr__ calls,
        # and a graph makes nodes by the million.
        self = object.__new__(_Building)
        self.op = op
        self.params = params
        self.inputs = inputs
        self.shape = shape
        self.dtype = dtype
        self.weak = weak
        self.name = name
        self.where = where
        # concrete: no placeholder or variable below, so the value is known
        # without feeds (an evaluation point may compute it).  Set once from
        # the inputs' flags: O(inputs) per node, never a walk of the graph.
        # pins: the known values this node's evaluation starts from (see Known).
        concrete = True
        pins = None
        depth = 0
        for i in inputs:
            if not i.concrete:
                concrete = False
            if i.depth >= depth:
                depth = i.depth + 1
            k = i._known
            p = k() if k is not None else None
            if p is None:
                p = i._pins
            if p is not None and p is not pins:
                pins = p if pins is None else merge_pins(pins, p)
        # the inputs' hashes, for the keys below: the tuples of most nodes' one or two inputs are written
        # out (two lists filled in the loop above cost 0.1 us a node)
        cp = None  # the params as keyed (below)
        if len(inputs) == 2:
            a, b = inputs
            ih, ih2 = (a._hash, b._hash), (a._key2, b._key2)
        elif len(inputs) == 1:
            a = inputs[0]
            ih, ih2 = (a._hash,), (a._key2,)
        elif inputs:
            ih, ih2 = tuple([i._hash for i in inputs]), tuple([i._key2 for i in inputs])
        else:
            ih = ih2 = ()
            concrete = op not in _TRACED_LEAVES
            if op == "placeholder":  # the one leaf whose shape no array vouches for (make_node checks the rest)
                check_size(op, shape, dtype, where)
            if op == "constant" or op == "literal":
                # a Const or Scalar keys itself exactly: canonical_params would only find that out (0.8 us of
                # every NumPy operand, whose params are new each time)
                cp = params
                if op == "constant" and params[0][1]._array is None:  # a copy of a constant node (replace)
                    pins = params[0][1]._owner()  # pins its data, as the original does
        if depth > HISTORY_DEPTH and concrete and op not in KEEPS_INPUTS:
            rooted = _rooted(inputs)
            if rooted is not None:  # made on the deep inputs' values instead: their history can go
                return Node.__new__(cls, op, params, rooted, shape, dtype, weak, name, where)
        self.concrete = concrete
        self.depth = depth
        self.born = _serial()
        self._known = None
        self._pins = pins
        self._handle = None
        self._hash = hash((op, params, ih, shape, dtype, weak))
        # the params as keyed (kept: an evaluation step keys its structure by them too)
        if cp is None:
            cp = canonical_params(params) if params else params
        self._cparams = cp
        self._key2 = hash((_SALT, op, cp, ih2, shape, dtype, weak))
        self.__class__ = cls
        return self

    def __setattr__(self, name, value):
        raise AttributeError(f"fgraph nodes are immutable (tried to set {name!r})")

    def __delattr__(self, name):
        raise AttributeError("fgraph nodes are immutable")

    def __hash__(self):
        return self._hash

    # identity equality (object default) keeps dicts keyed by node exact

    @property
    def key(self) -> tuple[int, int]:
        """128-bit structural key: equal for structurally equal nodes."""
        return (self._hash, self._key2)

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)

    def param(self, name: str, default: Any = None) -> Any:
        for k, v in self.params:
            if k == name:
                return v
        return default

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def with_inputs(self, inputs: tuple) -> "Node":
        """The same op on other inputs of the same shapes and dtypes."""
        return Node(self.op, self.params, inputs, self.shape, self.dtype, self.weak, self.name, self.where)

    def replace(self, **changes) -> "Node":
        """A new node with some fields changed (the original is untouched)."""
        fields = {f: getattr(self, f) for f in ("op", "params", "inputs", "shape", "dtype", "weak", "name", "where")}
        fields.update(changes)
        return Node(**fields)

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return f"<Node {self.op}{label} {self.dtype}{list(self.shape)}>"

    def __reduce__(self):  # nodes are values; pickling is out of scope
        raise TypeError("fgraph nodes cannot be pickled")


class _Building(Node):
    """A Node while ``Node.__new__`` fills it in: the same slots, settable."""

    __slots__ = ()
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__


#: ``Node.__new__`` itself: ``new_node(Node, ...)`` is ``Node(...)`` less
#: type.__call__ (finding ``__new__``, then the ``__init__`` check), 0.06 us
#: of every node; make_node and the ufuncs' fast paths call it
new_node = Node.__new__


class Known:
    """A node's computed value, kept while a lazy array (or a node not yet
    evaluated) still needs it: incremental evaluation starts from these.

    Handles (``Tensor``) and pins hold it; the node points at it weakly
    (``node._known``), so the value goes with the last array that needs it
    while the graph itself stays whole.  A node's ``_pins`` are the known
    values its evaluation starts from (a Known, or a tuple tree of them,
    taken from its inputs when it is made), so a step built on the last
    step's values keeps those alive even after the program dropped the
    arrays that held them, as NumPy would; when the node is evaluated its
    own value replaces its pins.

    A large constant's data is a Known too (``Const.release_to``), so it
    goes with the last thing that needs it, not with the graph.  ``below``:
    the constants' data a computed value was made from (its pins that are
    data), kept with it so ``grad`` can still recompute what lies under a
    known value while that value is held; the values under it are not kept
    (the chain of a loop's steps would be).
    """

    __slots__ = ("value", "engine", "data", "below", "leaf", "__weakref__")

    def __init__(self, node: "Node", value, engine):
        # (no reference back to the node: a constant's node pins its Known,
        # and a cycle would wait for the garbage collector to free its data)
        self.value, self.engine, self.data, self.below, self.leaf = value, engine, node.op == "constant", None, None
        _set_known(node, weakref.ref(self))
        _set_pins(node, None)


def const_node(c: Const, name: str | None, where: tuple | None, engine) -> "Node":
    """A constant node holding ``c``.  A large one's data is owned by a
    ``Known`` (of ``engine``, the host's) that the node pins until a step
    computed from it, and then lives only as long as a lazy array needs it."""
    arr = c.array
    node = Node("constant", (("value", c),), (), arr.shape, arr.dtype, False, name, where)
    if not c.by_content:
        known = Known(node, arr, engine)
        _set_pins(node, known)  # until a step that reads it lets go
        c.release_to(known, node.where)
    return node


# ---------------------------------------------------------------- released history

#: a node made more than this many ops above a leaf (``Node.depth``) is made
#: on the value of its deep inputs instead, where that value is known on the
#: host (a ``Released`` constant): an eager loop (``x = x * 0.9 + 1``, ``u[1:-1]
#: += d``, a bit set every step) then holds a bounded graph, about this many
#: ops (0.5 kB each) of history, not every node it ever made, and the
#: garbage collector's walks over it stay short.  A graph over placeholders
#: or variables is kept whole (it is never computed); a gradient with respect
#: to an array made before a release cannot pass through it and says so.
HISTORY_DEPTH = 10_000

#: ops whose inputs are kept as they are: a view is a chain of these over its
#: base (``views.chain``), and a write finds its region by them
#: (``ops.writes``); a chain of them alone is rare and short
KEEPS_INPUTS = frozenset(("slice", "slice_axis", "reshape", "transpose", "matrix_transpose", "flip", "broadcast_to",
                          "diagonal", "bitcast", "real", "imag", "advanced_index"))

_serial = itertools.count().__next__  # Node.born
born_order = operator.attrgetter("born")  # a sort key: nodes in the order they were made (inputs first)


def _rooted(inputs: tuple) -> tuple | None:
    """``inputs`` with each one at least HISTORY_DEPTH deep made on a known
    value instead, or None if none can be: a known value (on the host) is
    replaced by its ``Released`` constant (one per value); a view-like op
    over one (``roll``'s slices of a state just fetched) is made again on
    it, so the chain is cut there too."""
    rooted = None
    for k, i in enumerate(inputs):
        if i.depth < HISTORY_DEPTH:
            continue
        r = _rooted_input(i)
        if r is not None:
            if rooted is None:
                rooted = list(inputs)
            rooted[k] = r
    return tuple(rooted) if rooted is not None else None


def _rooted_input(node: "Node") -> "Node | None":
    """``node``'s value as a node with a short history: its ``Released``
    constant if its value is known, else its ``KEEPS_INPUTS`` ops (a few)
    made again on such a constant below them; None if neither."""
    chain = []
    while True:
        known = node._known
        known = known() if known is not None else None
        if known is not None:
            if type(known.value) is not np.ndarray:
                return None  # on a device: kept
            leaf = known.leaf
            if leaf is None:
                leaf = known.leaf = const_node(Released(known.value, node.born), node.name, node.where,
                                               known.engine)
            break
        if node.op not in KEEPS_INPUTS or not node.inputs or len(chain) >= 8:
            return None  # not computed yet (a fetch will), and no view of a computed value
        chain.append(node)
        node = node.inputs[0]
    for n in reversed(chain):
        leaf = Node(n.op, n.params, (leaf,) + n.inputs[1:], n.shape, n.dtype, n.weak, n.name, n.where)
    return leaf


def released_as(node: "Node") -> "Node | None":
    """The ``Released`` constant that nodes made on ``node`` now use in its place, if any."""
    known = known_value(node)
    return known.leaf if known is not None else None


#: ``object.__setattr__(node, "_known"/"_pins", ...)`` through the slots themselves (see ``_set_handle``):
#: a Known is made for every small array computed when made
_set_known = Node._known.__set__
_set_pins = Node._pins.__set__


def merge_pins(a, b):
    """The pins of both ``a`` and ``b`` (each a Known or a tuple tree of
    them).  Two trees are flattened into one tuple without repeats: nesting
    them as ``(a, b)`` doubled the tree at each node whose inputs share pins
    through different paths (a 60-deep lazy DAG held 2**60 leaves).  A
    single Known is nested in O(1), so a chain adding one known value at a
    time stays linear; merging two trees costs the number of values they pin."""
    if type(a) is not tuple or type(b) is not tuple:
        return (a, b)
    seen: dict[int, Known] = {}
    stack = [b, a]
    while stack:
        p = stack.pop()
        if type(p) is tuple:
            stack.extend(reversed(p))
        elif id(p) not in seen:
            seen[id(p)] = p
    flat = tuple(seen.values())
    return flat if len(flat) > 1 else flat[0]


def data_pins(pins) -> tuple | None:
    """The constants' data among ``pins`` (a Known or a tuple of them)."""
    if type(pins) is not tuple:  # None or one Known: most pins
        return (pins,) if pins is not None and pins.data else None
    for p in pins:  # the next most: a flat tuple of computed values, none of them data (0.1 us, the walk 0.5)
        if type(p) is tuple or (p is not None and p.data):
            break
    else:
        return None
    found: dict[int, Known] = {}
    stack = [pins]
    while stack:
        p = stack.pop()
        if type(p) is tuple:
            stack.extend(p)
        elif p is not None and p.data:
            found[id(p)] = p
    return tuple(found.values()) or None


def known_value(node: "Node") -> "Known | None":
    """The node's Known if its value is still held, else None."""
    k = node._known
    return k() if k is not None else None


def pins_of(node: "Node"):
    """What keeps ``node`` cheap to evaluate: its Known, else its pins."""
    k = node._known
    k = k() if k is not None else None
    return k if k is not None else node._pins


def handle_of(node: "Node"):
    """A live lazy array that points at ``node`` (the last one made), or None."""
    h = node._handle
    t = h() if h is not None else None
    return t if t is not None and t._node is node else None


#: ``object.__setattr__(node, "_handle", ...)`` through the slot itself: every
#: lazy array made sets it, and object.__setattr__ first checks that it is not
#: bypassing a built-in type's own __setattr__ (0.06 us, half its cost)
_set_handle = Node._handle.__set__


def hold(holder, node: "Node", claim: bool = False) -> None:
    """Point ``holder`` (a lazy array or a storage: it has ``_node`` and
    ``_keep``) at ``node``: it keeps what node's value is computed from, and
    becomes node's handle unless another live one is (or ``claim``: a write
    moved it there, so it outlives the temporary that made the node)."""
    k = node._known  # pins_of(node), written out: every lazy array made comes here
    k = k() if k is not None else None
    holder._keep = k if k is not None else node._pins
    if not claim:
        h = node._handle
        t = h() if h is not None else None
        if t is not None and t._node is node:
            return
    _set_handle(node, weakref.ref(holder))


def describe(nodes: Iterable) -> str:
    """'float32[3, 4], int64[]' for error messages."""
    parts = []
    for n in nodes:
        if getattr(n, "weak", False):
            parts.append(f"python {type(n.params[0][1].value).__name__}")
        else:
            parts.append(f"{n.dtype}{list(n.shape)}")
    return ", ".join(parts)


# ---------------------------------------------------------------- construction

_INFER = attr_table("infer")
_infer_cache: dict = {}
_INFER_CACHE_MAX = 1 << 16
_counter = itertools.count()


def next_id() -> int:
    """A process-wide increasing number (orders placeholders by creation)."""
    return next(_counter)


def make_node(op: str, inputs: Sequence[Node], params: tuple = (), name: str | None = None) -> Node:
    """Make a node of registered op ``op``: infer shape and dtype, or raise.

    A mistake is raised here, where the user makes the node, as a
    ShapeError or DTypeError naming the op, the inputs and the user's line.
    """
    if type(inputs) is not tuple:
        inputs = tuple(inputs)
    # the cache key: op, params, then each input's shape, dtype and weak flag
    # (flat: one tuple to build and hash; its length tells the input count)
    if len(inputs) == 1:
        (x,) = inputs
        key = (op, params, x.shape, x.dtype, x.weak)
    elif len(inputs) == 2:
        x, y = inputs
        key = (op, params, x.shape, x.dtype, x.weak, y.shape, y.dtype, y.weak)
    else:
        key = (op, params, *[f for i in inputs for f in (i.shape, i.dtype, i.weak)])
    try:
        shape, dtype = _infer_cache[key]
    except KeyError:
        shape, dtype = _infer(op, inputs, params)
        if len(_infer_cache) >= _INFER_CACHE_MAX:
            _infer_cache.clear()
        _infer_cache[key] = (shape, dtype)
    except TypeError:  # unhashable params: infer without the cache
        shape, dtype = _infer(op, inputs, params)
    return new_node(Node, op, params, inputs, shape, dtype, False, name, user_location(2))


def _infer(op: str, inputs: tuple, params: tuple):
    try:
        rule = _INFER[op]
    except KeyError:
        if not is_registered(op):
            raise FgraphError(f"unknown op {op!r}") from None
        raise FgraphError(f"op {op!r} has no shape rule") from None
    try:
        shape, dtype = rule(inputs, **dict(params))
        shape, dtype = tuple(int(d) for d in shape), np.dtype(dtype)
    except FgraphError as e:
        raise _located(type(e), op, inputs, str(e)) from None
    except (ValueError, IndexError) as e:  # NumPy's own AxisError etc.
        cls = AxisError if isinstance(e, np.exceptions.AxisError) else ShapeError
        raise _located(cls, op, inputs, str(e)) from None
    except (TypeError, OverflowError) as e:  # NumPy's "no loop matching"; a Python int beyond a dtype
        raise _located(DTypeError, op, inputs, str(e)) from None
    if math.prod(shape) * dtype.itemsize > _MAX_BYTES:  # NumPy refuses to make it; it could never run
        raise _located(ShapeError, op, inputs, f"array is too big: shape {shape} of {dtype} is more bytes than "
                                               "an array can hold")
    return shape, dtype


#: the most bytes one array may take (NumPy's limit: its byte count is an intp)
_MAX_BYTES = int(np.iinfo(np.intp).max)


def _located(cls, op, inputs, detail):
    where = format_location(user_location(3))
    return cls(f"{op}: {detail} (inputs: {describe(inputs) or 'none'})\n  at {where}")


def error_at(cls, op: str, detail: str, where=None):
    """An error of class ``cls`` naming the op and the user's line."""
    loc = format_location(where if where is not None else user_location(2))
    return cls(f"{op}: {detail}\n  at {loc}")


def refuse_out(op: str, out) -> None:
    """NumPy's ``out=`` refused: lazy arrays are immutable, nothing can be written into one."""
    if out is not None:
        raise error_at(FgraphError, op, "out= cannot write into an fgraph array: they are immutable")


# ---------------------------------------------------------------- traversal

def topological(outputs: Iterable[Node]) -> list[Node]:
    """All nodes the outputs depend on, inputs before users (iterative DFS).

    Deterministic: inputs are visited left to right.
    """
    order: list[Node] = []
    seen: set[int] = set()
    stack: list[tuple[Node, int]] = []
    for out in outputs:
        if id(out) in seen:
            continue
        stack.append((out, 0))
        seen.add(id(out))
        while stack:
            node, i = stack[-1]
            ins = node.inputs
            if i < len(ins):
                stack[-1] = (node, i + 1)
                child = ins[i]
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                stack.pop()
                order.append(node)
    return order





class no_gc:
    """Pause the cyclic garbage collector for a whole-graph pass.

    Nodes form no reference cycles, so collections during a pass free
    nothing, yet each full one walks every live node: with a million nodes
    that makes passes superlinear.
    """

    def __enter__(self):
        self._was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self._was:
            gc.enable()

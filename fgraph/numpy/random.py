"""``fgraph.numpy.random``: NumPy's ``numpy.random``, aware of lazy arrays.

Every draw is NumPy's own (the same numbers from the same stream), handed
back as a lazy array: a constant over the drawn array itself, frozen rather
than copied, as every other function of ``fgraph.numpy`` returns lazy
arrays.  (A NumPy array would be copied into the graph at each use: a
drawn matrix used every step, ``A @ x``, cost a 128 KiB copy a step, and
``draw[mask]`` with a lazy mask fetched the mask.)  A scalar draw
(``rng.random()``) is NumPy's scalar, and a draw into ``out=`` is NumPy's
array filled.  The legacy functions (``seed``, ``rand``, ``shuffle``...)
use NumPy's global ``RandomState`` (``numpy.random.mtrand._rand``), so
``np.random.seed(0)`` here seeds the same stream as NumPy's.

What takes an array to permute or sample from also takes a lazy one:
``shuffle``, ``permutation``, ``choice`` (module level, on NumPy's global
state), and the same methods, with ``permuted``, of the ``Generator`` that
``default_rng`` returns and of ``RandomState``.  The random draws are
exactly NumPy's for an ndarray of that shape (the same numbers consumed from
the stream, the same order): the method draws with NumPy's own code on an
index array (``np.arange(n)``, or one laid out as the array is where the
layout decides the order, as in ``permuted``) and the lazy array is then
indexed with the result.  ``shuffle`` writes ``t[...] = t[perm]``, which
moves the handle: aliases and views of ``t`` see the shuffle, as in NumPy.
The draws depend on shapes only, so these also work under tracing (the
permutation drawn while tracing is a constant of the graph, as any NumPy
draw is); ``choice`` with a lazy ``p`` evaluates ``p``.

``Generator`` and ``RandomState`` here are subclasses of NumPy's whose
``isinstance`` answers for NumPy's instances too:
``isinstance(numpy.random.default_rng(), fgraph.numpy.random.Generator)``
is True (``type(g) is numpy.random.Generator`` is not, for ``g`` made
here).  A generator made by NumPy itself (``numpy.random.default_rng()``)
has NumPy's methods, which do not know lazy arrays: pass it through
``fgraph.numpy.random.default_rng(g)`` (the same stream) first.
"""
from __future__ import annotations

import functools

import numpy as _np
import numpy.random as _npr
from numpy.random import mtrand as _mtrand

from ..errors import AxisError, also
from ..ops.building import python_value
from ..stack import current
from ..tensor import Tensor, constant_node, lift, stack_of
from ..symbol import error_at

try:
    from numpy.lib.array_utils import normalize_axis_index as _normalize_axis_index
except ImportError:  # NumPy 1.x
    from numpy.core.multiarray import normalize_axis_index as _normalize_axis_index

__all__ = list(_npr.__all__)
for _name in __all__:
    globals()[_name] = getattr(_npr, _name)
del _name

#: names of numpy.random (functions and methods) that draw nothing, or are defined below
_NOT_DRAWS = frozenset(("seed", "get_state", "set_state", "default_rng", "bytes", "spawn", "bit_generator",
                        "shuffle", "permutation", "permuted", "choice", "Generator", "RandomState",
                        "SeedSequence", "MT19937", "Philox", "PCG64", "PCG64DXSM", "SFC64", "BitGenerator"))

_NpGenerator = _npr.Generator
_NpRandomState = _npr.RandomState


def __getattr__(name):
    # numpy.random's other attributes (mtrand, bit_generator, PCG64DXSM...) as they are
    return getattr(_npr, name)


# ---------------------------------------------------------------- helpers

def _lazy(drawn):
    """A drawn NumPy array as a lazy array (a constant over the array itself:
    it is frozen, not copied, as nothing else holds it); a scalar as it is."""
    if type(drawn) is not _np.ndarray:
        return drawn
    drawn.setflags(write=False)
    st = current()
    return Tensor(constant_node(drawn), st)


def _drawing(fn):
    """``fn`` (a NumPy draw) handing its array back lazy, unless drawn into ``out=``."""
    @functools.wraps(fn)
    def draw(*args, **kwargs):
        drawn = fn(*args, **kwargs)
        return drawn if kwargs.get("out") is not None else _lazy(drawn)
    return draw


def _seed(seed, op: str):
    """A seed as NumPy takes it: a lazy one (``default_rng(a.max())``) is its
    value, known now outside tracing (refused under tracing)."""
    return python_value(seed, op, "seed", "NumPy seeds its generator from the value")


def _population(x):
    """``permutation(n)`` with a lazy 0-d ``n`` (``n = a.max()``, a NumPy
    integer in NumPy): its value, for NumPy's ``arange(n)``; anything else as given."""
    if isinstance(x, Tensor) and x.ndim == 0:
        return python_value(x, "permutation", "x", "a count decides the result's length")
    return x


def _raise(cls, op: str, message: str):
    raise error_at(cls, op, message)


def _axis(axis, ndim: int, op: str) -> int:
    """NumPy's ``normalize_axis_index``, its errors as fgraph's at the user's line."""
    try:
        return _normalize_axis_index(axis, ndim)
    except _np.exceptions.AxisError as e:
        raise error_at(AxisError, op, str(e)) from None
    except TypeError as e:
        raise error_at(also(TypeError), op, str(e)) from None


def _numpy(op: str, fn, *args, **kwargs):
    """NumPy's own ``fn`` (on index arrays); its errors become fgraph's, of NumPy's class too."""
    try:
        return fn(*args, **kwargs)
    except _np.exceptions.AxisError as e:
        raise error_at(AxisError, op, str(e)) from None
    except (ValueError, TypeError, IndexError) as e:
        raise error_at(also(type(e)), op, str(e)) from None


def _along(t: Tensor, idx: _np.ndarray, axis: int) -> Tensor:
    """``t`` indexed with ``idx`` along ``axis`` (a fancy index: a new array)."""
    return t[(slice(None),) * axis + (idx,)]


def _check_writeable(t: Tensor, op: str, what: str = "array") -> None:
    if not t.flags.writeable:
        _raise(also(ValueError), op, f"{what} is read-only")


def _shuffle(base, gen, x: Tensor, axis: int) -> None:
    """Shuffle lazy ``x`` along ``axis`` in place, drawing as ``base.shuffle``
    (NumPy's class's method) draws for an ndarray of ``x``'s shape: both of
    NumPy's paths (the 1-D buffer one and the n-D one) draw
    ``random_interval(i)`` for ``i = n-1 .. 1``, as shuffling
    ``np.arange(n)`` does; an empty array draws nothing."""
    if x.size == 0:
        return
    n = x.shape[axis]
    idx = _np.arange(n, dtype=_np.intp)
    base.shuffle(gen, idx)
    if n > 1:
        x[...] = _along(x, idx, axis)


def _take(a: Tensor, idx, axis: int) -> Tensor:
    """``a.take(idx, axis)``: NumPy's last step of ``choice``."""
    return a.take(_np.asarray(idx, dtype=_np.intp), axis=axis)


def _index_like(shape: tuple, layout: _np.ndarray) -> _np.ndarray:
    """A NumPy intp array laid out as ``layout`` (the same axis order, kept
    by ``empty_like``) holding each element's C-order flat index."""
    idx = _np.empty_like(layout, dtype=_np.intp)
    idx[...] = _np.arange(idx.size, dtype=_np.intp).reshape(shape)
    return idx


def _layout(t) -> _np.ndarray:
    """A NumPy array with lazy ``t``'s shape and NumPy strides, for its
    layout only (its data is never read)."""
    return _np.lib.stride_tricks.as_strided(_np.zeros(1, t.dtype), t.shape, t.strides, writeable=False)


def _out_like(out: Tensor) -> _np.ndarray:
    """An intp array as contiguous as lazy ``out`` is (C, Fortran or neither):
    what decides the order in which NumPy's ``permuted`` shuffles into ``out``."""
    shape = out.shape
    if out.flags.c_contiguous:
        return _np.empty(shape, _np.intp)
    if out.flags.f_contiguous:
        return _np.empty(shape, _np.intp, order="F")
    ax = next(i for i, n in enumerate(shape) if n > 1)  # a non-contiguous array has one
    wide = _np.empty(shape[:ax] + (2 * shape[ax],) + shape[ax + 1:], _np.intp)
    return wide[(slice(None),) * ax + (slice(None, None, 2),)]


def _flat(t: Tensor) -> Tensor:
    return t.reshape(-1)


class _WithNumpys(type):
    """``isinstance``/``issubclass`` answer for NumPy's own class too: a
    ``numpy.random.Generator`` made by NumPy counts as a
    ``fgraph.numpy.random.Generator``."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._numpy_class)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, cls._numpy_class)


# ---------------------------------------------------------------- Generator

class Generator(_NpGenerator, metaclass=_WithNumpys):
    """NumPy's ``numpy.random.Generator`` whose ``shuffle``, ``permutation``,
    ``permuted`` and ``choice`` also take lazy arrays, drawing exactly as
    NumPy does for an ndarray of the same shape (see the module's doc)."""

    _numpy_class = _NpGenerator

    def __reduce__(self):
        return type(self), (self.bit_generator,)

    def shuffle(self, x, axis=0):
        """``numpy.random.Generator.shuffle``: a lazy ``x`` is shuffled in
        place along ``axis`` (its handle moves; aliases and views see it)."""
        if not isinstance(x, Tensor):
            return _NpGenerator.shuffle(self, x, axis=axis)
        len(x)  # a 0-d array: NumPy's TypeError first
        _check_writeable(x, "shuffle")
        _shuffle(_NpGenerator, self, x, _axis(axis, x.ndim, "shuffle"))

    def permutation(self, x, axis=0):
        """``numpy.random.Generator.permutation``: an int gives NumPy's
        array; a lazy ``x`` gives a lazy permuted copy along ``axis``."""
        x = _population(x)
        if not isinstance(x, Tensor):
            return _lazy(_NpGenerator.permutation(self, x, axis=axis))
        axis = _axis(axis, x.ndim, "permutation")
        idx = _np.arange(x.shape[axis], dtype=_np.intp)
        _NpGenerator.shuffle(self, idx)
        return _along(x, idx, axis)

    def permuted(self, x, *, axis=None, out=None):
        """``numpy.random.Generator.permuted``: each slice along ``axis``
        (the flattened array when None) shuffled independently; a lazy
        ``out`` receives the result (its handle moves) and is returned."""
        if not isinstance(x, Tensor) and not isinstance(out, Tensor):
            drawn = _NpGenerator.permuted(self, x, axis=axis, out=out)
            return drawn if out is not None else _lazy(drawn)
        if out is not None and not isinstance(out, Tensor):
            # NumPy's out: NumPy writes into it (x evaluated, as np.copyto would)
            return _NpGenerator.permuted(self, _np.asarray(x), axis=axis, out=out)
        st = stack_of((x, out))
        src = x if isinstance(x, Tensor) else Tensor(lift(x, st), st)
        layout = _layout(src) if isinstance(x, Tensor) else _np.asarray(x)
        # NumPy shuffles a copy of x laid out as x is (copy order 'K'), or
        # out itself: an index array of that layout draws and moves alike
        idx = _index_like(src.shape, layout)
        if out is None:
            perm = _numpy("permuted", _NpGenerator.permuted, self, idx, axis=axis)
            return _flat(src)[_np.ascontiguousarray(perm)]
        _check_writeable(out, "permuted", "out")
        if out.shape != src.shape:
            _raise(also(ValueError), "permuted", "out must have the same shape as x")
        if not _np.can_cast(src.dtype, out.dtype, "safe"):
            _raise(also(TypeError), "permuted", f"Cannot cast array data from {src.dtype!r} to {out.dtype!r} "
                                                "according to the rule 'safe'")
        perm = _out_like(out)
        _numpy("permuted", _NpGenerator.permuted, self, idx, axis=axis, out=perm)
        out[...] = _flat(src)[_np.ascontiguousarray(perm)]
        return out

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """``numpy.random.Generator.choice``: from a lazy ``a``, the indices
        are drawn as NumPy draws them for an ndarray of ``a``'s length and
        the result is lazy ``a.take(indices, axis)``."""
        if not isinstance(a, Tensor):
            return _lazy(_NpGenerator.choice(self, a, size, replace, p, axis, shuffle))
        if a.ndim == 0:  # a population size: evaluated, NumPy's result
            return _lazy(_NpGenerator.choice(self, _np.asarray(a), size, replace, p, axis, shuffle))
        pop = a.shape[axis]
        if pop == 0 and _np.prod(size) != 0:
            _raise(also(ValueError), "choice", "a cannot be empty unless no samples are taken")
        idx = _NpGenerator.choice(self, pop, size, replace, p, 0, shuffle)
        return _take(a, idx, axis)


# ---------------------------------------------------------------- RandomState

class RandomState(_NpRandomState, metaclass=_WithNumpys):
    """NumPy's ``numpy.random.RandomState`` whose ``shuffle``,
    ``permutation`` and ``choice`` also take lazy arrays, drawing exactly
    as NumPy does for an ndarray of the same shape (see the module's doc)."""

    _numpy_class = _NpRandomState

    def __init__(self, seed=None):
        _NpRandomState.__init__(self, _seed(seed, "RandomState"))

    def __reduce__(self):
        _ctor, args, state = _NpRandomState.__reduce__(self)
        return type(self), args, state

    def shuffle(self, x):
        """``numpy.random.RandomState.shuffle``: a lazy ``x`` is shuffled in
        place along its first axis (its handle moves)."""
        if not isinstance(x, Tensor):
            return _NpRandomState.shuffle(self, x)
        len(x)  # a 0-d array: NumPy's TypeError first
        _check_writeable(x, "shuffle")
        _shuffle(_NpRandomState, self, x, 0)

    def permutation(self, x):
        """``numpy.random.RandomState.permutation``: a lazy ``x`` gives a
        lazy copy with its first axis permuted."""
        x = _population(x)
        if not isinstance(x, Tensor):
            return _lazy(_NpRandomState.permutation(self, x))
        if x.ndim < 1:
            _raise(also(IndexError), "permutation", "x must be an integer or at least 1-dimensional")
        idx = _np.arange(x.shape[0], dtype=_np.intp)
        _NpRandomState.shuffle(self, idx)
        return _along(x, idx, 0)

    def choice(self, a, size=None, replace=True, p=None):
        """``numpy.random.RandomState.choice``: from a lazy 1-D ``a``, the
        indices are drawn as NumPy draws them and the result is lazy ``a[indices]``."""
        if not isinstance(a, Tensor):
            return _lazy(_NpRandomState.choice(self, a, size, replace, p))
        if a.ndim == 0:  # a population size: evaluated, NumPy's result
            return _lazy(_NpRandomState.choice(self, _np.asarray(a), size, replace, p))
        if a.ndim != 1:
            _raise(also(ValueError), "choice", "a must be 1-dimensional")
        pop = a.shape[0]
        if pop == 0 and _np.prod(size) != 0:
            _raise(also(ValueError), "choice", "'a' cannot be empty unless no samples are taken")
        idx = _NpRandomState.choice(self, pop, size, replace, p)
        return _take(a, idx, 0)


for _cls, _base in ((Generator, _NpGenerator), (RandomState, _NpRandomState)):
    for _name in dir(_base):
        if not _name.startswith("_") and _name not in _NOT_DRAWS and callable(getattr(_base, _name)):
            setattr(_cls, _name, _drawing(getattr(_base, _name)))


def default_rng(seed=None):
    """``numpy.random.default_rng``: NumPy's seeding, as this module's
    ``Generator`` (a NumPy ``Generator`` given as the seed is wrapped, the
    same bit generator and stream)."""
    if type(seed) is Generator:
        return seed
    return Generator(_npr.default_rng(_seed(seed, "default_rng")).bit_generator)


# ---------------------------------------------------------------- NumPy's global state

def shuffle(x):
    """``numpy.random.shuffle`` on NumPy's global RandomState; lazy ``x`` too."""
    return RandomState.shuffle(_mtrand._rand, x)


def permutation(x):
    """``numpy.random.permutation`` on NumPy's global RandomState; lazy ``x`` too."""
    return RandomState.permutation(_mtrand._rand, x)


def choice(a, size=None, replace=True, p=None):
    """``numpy.random.choice`` on NumPy's global RandomState; lazy ``a`` too."""
    return RandomState.choice(_mtrand._rand, a, size, replace, p)


for _name in __all__:  # the legacy functions, on NumPy's global state
    if _name not in _NOT_DRAWS and callable(globals()[_name]):
        globals()[_name] = _drawing(globals()[_name])

for _fn in (Generator, RandomState, default_rng, shuffle, permutation, choice):
    _fn.__module__ = __name__
del _fn, _name, _cls, _base

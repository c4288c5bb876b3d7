"""Indexing ops on the CuPy engine.

CuPy wraps out-of-range indices silently where NumPy raises IndexError; the
engine keeps NumPy's contract (an FgraphError naming the node, never a
silent wrap), so gathers check their index arrays first: one small
reduction and one device-to-host sync per index array.  The NumPy kernels
index ``np.asarray(x)`` (refused for device arrays) and pass modes CuPy
lacks, so most ops here have kernels of their own, written against ``xp()``.
"""
import numpy as np

from ...ops.indexing_kernels import _scatter_key, _slice_key
from .support import cupy, dispatch, xp


def _check_range(ind, lo: int, hi: int, what: str) -> None:
    """IndexError unless every value of the integer array ``ind`` is in [lo, hi)."""
    m = xp()
    if getattr(ind, "size", 1) == 0 or np.dtype(getattr(ind, "dtype", np.int64)).kind not in "iu":
        return
    ind = m.asarray(ind)
    if bool(((ind < lo) | (ind >= hi)).any()):
        raise IndexError(f"{what}: an index is out of bounds for size {hi if lo < 0 else hi - lo}")


def _slice(x, key):
    return xp().asarray(x)[_slice_key(key)]


def _advanced_key(idx, key, front):
    it = iter(idx)
    k = [slice(None) if e is None else next(it) if e == "a" else e for e in key]
    if front:  # keep the advanced indices separated, as in the user's key (NumPy puts their dims first)
        k.insert(next(p for p, e in enumerate(key) if e is not None) + 1, Ellipsis)
    return tuple(k)


def _advanced(x, *idx, key, front):
    m = xp()
    x = m.asarray(x)
    idx = [m.asarray(i) for i in idx]
    if _gathers(idx):  # NumPy checks nothing when the broadcast indices are empty
        it = iter(idx)
        for p, e in enumerate(key):
            if e == "a":
                n = x.shape[p]
                _check_range(next(it), -n, n, f"index for axis {p}")
    return x[_advanced_key(idx, key, front)]


def _gathers(idx) -> bool:
    n = 1
    for d in np.broadcast_shapes(*(i.shape for i in idx)):
        n *= d
    return n > 0


def _take(a, indices, axis, mode):
    m = xp()
    a = m.asarray(a)
    ind = m.asarray(indices)
    if axis is None:
        a, axis = a.reshape(-1), 0
    n = a.shape[axis]
    if n == 0:
        shape = a.shape[:axis] + ind.shape + a.shape[axis + 1:]
        if ind.size and all(shape):  # NumPy refuses only when the result would hold something
            raise IndexError("cannot do a non-empty take from an empty axes.")
        return m.empty(shape, a.dtype)
    if mode == "raise":
        _check_range(ind, -n, n, "take")
        ind = m.where(ind < 0, ind + n, ind)
    elif mode == "wrap":
        ind = m.mod(ind, n)
    else:  # clip: negative indices clip to 0 (no Python-style wrap)
        ind = m.clip(ind, 0, n - 1)
    return m.take(a, ind, axis=axis)


def _take_along_axis(arr, ind, axis):
    m = xp()
    arr = m.asarray(arr)
    ind = m.asarray(ind)
    if axis is None:
        arr, axis = arr.reshape(-1), 0
    n = arr.shape[axis]
    if _gathers([ind, m.empty(arr.shape[:axis] + (1,) + arr.shape[axis + 1:], bool)]):
        _check_range(ind, -n, n, "take_along_axis")
    return m.take_along_axis(arr, m.where(ind < 0, ind + n, ind), axis)


def _select_into(out, xs, n):
    """np.select's method: the default, then each choice where its condition
    holds, the first condition last (it takes precedence)."""
    m = xp()
    values = [m.asarray(v) for v in xs[n:]]
    m.copyto(out, values[-1], casting="unsafe")
    for cond, choice in zip(xs[n - 1::-1], values[-2::-1]):
        m.copyto(out, choice, casting="unsafe", where=m.asarray(cond))
    return out


def _weak_type(v):
    """What NumPy's promotion sees: a Python scalar stays weak (NEP 50)."""
    return v if type(v) in (bool, int, float, complex) else v.dtype


def _select(*xs, n):
    dtype = np.result_type(*[_weak_type(v) for v in xs[n:]])
    shape = np.broadcast_shapes(*[np.shape(v) for v in xs])
    return _select_into(xp().empty(shape, dtype), xs, n)


def _select_out(*xs, out, n):
    return _select_into(out, xs, n)


def _normal_choice(a, k: int, mode):
    m = xp()
    a = m.asarray(a)
    if mode == "raise":
        if a.size and bool(((a < 0) | (a >= k)).any()):
            raise ValueError("invalid entry in choice array")
        return a
    return m.mod(a, k) if mode == "wrap" else m.clip(a, 0, k - 1)


def _choose_into(out, a, choices, mode):
    m = xp()
    a = _normal_choice(a, len(choices), mode)
    for j, c in enumerate(choices):  # one masked copy per choice
        m.copyto(out, m.asarray(c), casting="unsafe", where=m.broadcast_to(a == j, out.shape))
    return out


def _choose(a, *choices, mode):
    dtype = np.result_type(*[_weak_type(c) for c in choices])
    shape = np.broadcast_shapes(np.shape(a), *[np.shape(c) for c in choices])
    return _choose_into(xp().empty(shape, dtype), a, choices, mode)


def _choose_out(a, *choices, out, mode):
    return _choose_into(out, a, choices, mode)


def _unravel(i, shape, order, output):
    """Coordinate ``output`` of flat indices ``i``: (i // stride) % dim."""
    m = xp()
    i = m.asarray(i)
    size = 1
    for d in shape:
        size *= d
    if i.dtype.kind not in "iu":
        raise TypeError("only int indices permitted")
    if i.size and bool(((i < 0) | (i >= size)).any()):
        raise ValueError(f"index out of bounds for array with size {size}")
    later = shape[output + 1:] if order == "C" else shape[:output]
    stride = 1
    for d in later:
        stride *= d
    return m.remainder(m.floor_divide(i.astype(np.intp), stride), shape[output])


def _ravel_multi(*idx, dims, mode, order):
    m = xp()
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    axes = range(len(dims)) if order == "C" else range(len(dims) - 1, -1, -1)
    total = None
    for ax in axes:
        d, md = dims[ax], modes[ax]
        i = m.asarray(idx[ax]).astype(np.intp)
        if md == "raise":
            if i.size and bool(((i < 0) | (i >= d)).any()):
                raise ValueError("invalid entry in coordinates array")
        elif md == "wrap":
            i = m.mod(i, d)
        else:
            i = m.clip(i, 0, d - 1)
        total = i if total is None else total * d + i
    return total


def _scatter_add(values, *idx, shape, key, front):
    m = xp()
    values = m.asarray(values)
    out = m.zeros(shape, values.dtype)
    idx = [m.asarray(i) for i in idx]
    if _gathers(idx):
        it = iter(idx)
        for p, e in enumerate(key):
            if e == "a":
                _check_range(next(it), -shape[p], shape[p], f"scatter_add index for axis {p}")
    where = _scatter_key(idx, key, front)
    at = getattr(m.add, "at", None)
    if at is not None:
        at(out, where, values)  # unbuffered: repeated indices accumulate
    else:  # CuPy before ufunc.at
        import cupyx

        cupyx.scatter_add(out, where, values)
    return out


cupy("slice", _slice, None, "xp.asarray(x)[key] (a view)")
cupy("advanced_index", _advanced, None, "x[key] after a bounds check (CuPy wraps out-of-range indices)")
cupy("take", _take, None, "modes done here (cupy.take always wraps); bounds checked for mode='raise'")
cupy("take_along_axis", _take_along_axis, None, "bounds checked, then xp.take_along_axis",
     needs=("take_along_axis",))
cupy("select", _select, _select_out, "np.select's own method with xp.copyto(where=)")
cupy("choose", _choose, _choose_out, "one masked copy per choice; modes done here")
dispatch("searchsorted", "np.searchsorted -> cupy.searchsorted", needs=("searchsorted",), out=False)
cupy("unravel_index", _unravel, None, "(i // stride) % dim, bounds checked")
cupy("ravel_multi_index", _ravel_multi, None, "sum of index * stride, modes and bounds done here")
cupy("scatter_add", _scatter_add, None, "xp.add.at (cupyx.scatter_add on older CuPy), bounds checked")

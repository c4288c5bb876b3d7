"""The reference NumPy kernels of the indexing ops (declared in ``indexing.py``).

Out-of-range lazy indices make NumPy raise IndexError here; the Program
turns that into an FgraphError naming the node (never a silent wrap/clip).
"""
from functools import lru_cache

import numpy as np


def slice_key(key: tuple) -> tuple:
    """The Python key for a normalised ``slice`` op key (negative stop means 'to the start')."""
    return tuple(slice(e[0], e[1] if e[1] >= 0 else None, e[2]) if type(e) is tuple else e for e in key)


@lru_cache(maxsize=4096)
def _slice_key(key):
    # a trailing Ellipsis makes NumPy return a 0-d view, not a scalar copy
    return slice_key(key) + (Ellipsis,)


def basic_index(x, key):
    """Basic indexing: always a view of x."""
    return np.asarray(x)[_slice_key(key)]


def advanced_index(x, *idx, key, front):
    it = iter(idx)
    full = slice(None)
    k = [full if e is None else next(it) if e == "a" else e for e in key]
    if front:  # an Ellipsis standing for no axis separates the advanced indices, as in the user's key
        k.insert(next(p for p, e in enumerate(key) if e is not None) + 1, Ellipsis)
    return np.asarray(x)[tuple(k)]


def select(*xs, n):
    return np.select(list(xs[:n]), list(xs[n:2 * n]), xs[2 * n])


def searchsorted(a, v, *sorter, side):
    return np.searchsorted(a, v, side=side, sorter=sorter[0] if sorter else None)


def take(a, indices, axis, mode):
    if mode == "wrap" and (np.size(a) if axis is None else np.shape(a)[axis]) == 0:
        # NumPy's "wrap" loops forever on an empty axis when the result is empty
        # (numpy 2.4); "clip" gives the same: an empty result, or the same IndexError
        mode = "clip"
    return np.take(a, indices, axis=axis, mode=mode)


def take_along_axis(arr, ind, axis):
    return np.take_along_axis(np.asarray(arr), ind, axis=axis)


def choose(a, *choices, mode):
    return np.choose(a, choices, mode=mode)


def unravel_index(i, shape, order, output):
    return np.unravel_index(i, shape, order=order)[output]


def ravel_multi_index(*idx, dims, mode, order):
    return np.ravel_multi_index(idx, dims, mode=mode, order=order)


# ---------------------------------------------------------------- out-kernels
#
# ``kernel(*inputs, out=buffer, **params)`` writes the result into ``out`` (a
# C-contiguous array of the node's shape and dtype) and returns it.  Gathers
# go through ``np.take``/``np.choose`` with ``out=`` where their inputs allow
# it without a hidden copy; otherwise the result is made a few slabs of
# ``out`` at a time (``pieces``), so temporaries stay near CHUNK elements.

#: elements per piece on the chunked paths (a 128 KiB float64 temporary)
CHUNK = 1 << 14


def into(out, value):
    """Copy a kernel's result into ``out`` (the fallback for what NumPy cannot write in place)."""
    np.copyto(out, value)
    return out


def pieces(out, piece, axis=0, write=False):
    """Fill ``out`` a few slabs along ``axis`` at a time: ``piece(s)`` returns
    the values of ``out[..., s, ...]`` for a slice ``s`` of that axis (or, with
    ``write``, ``piece(s, dst)`` writes them into ``dst`` itself).  Each piece
    holds about CHUNK elements (at least one slab)."""
    if out.ndim <= axis or out.size == 0:
        return into(out, piece(slice(None))) if not write else piece(slice(None), out)
    n = out.shape[axis]
    step = max(1, CHUNK // (out.size // n))
    lead = (slice(None),) * axis
    for i in range(0, n, step):
        s = slice(i, min(i + step, n))
        if write:
            piece(s, out[lead + (s,)])
        else:
            np.copyto(out[lead + (s,)], piece(s))
    return out


def _in_bounds(ind, lo: int, hi: int) -> bool:
    """All of the integer index array ``ind`` lies in [lo, hi) (two passes, no temporary)."""
    return ind.size == 0 or (int(ind.min()) >= lo and int(ind.max()) < hi)


def _as_is(a, dtype) -> bool:
    """NumPy's take/choose use ``a`` without copying it: C-contiguous, writeable
    (they copy read-only arguments) and of the dtype they need."""
    return isinstance(a, np.ndarray) and a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable


def basic_index_out(x, out, key):
    return into(out, basic_index(x, key))


def _advanced_pieces(x, idx, key, front, out):
    """Advanced indexing written piece by piece along out's first axis.

    That axis is either a whole axis of ``x`` (sliced there, the indices kept)
    or the first axis of the broadcast indices (the indices sliced)."""
    positions = [p for p, e in enumerate(key) if e is not None]
    adjacent = not front and positions == list(range(positions[0], positions[-1] + 1))
    b = np.broadcast_shapes(*(np.shape(i) for i in idx))
    if b == () or (adjacent and positions[0] > 0):
        lead = (slice(None),) * key.index(None)  # out's first axis is x's first whole axis
        return pieces(out, lambda s: advanced_index(x[lead + (s,)], *idx, key=key, front=front))
    full = [np.broadcast_to(i, b) for i in idx]
    return pieces(out, lambda s: advanced_index(x, *(i[s] for i in full), key=key, front=front))


def _take_into(src, ind, ax, mode, out) -> bool:
    """``np.take(src, ind, axis=ax, mode=mode, out=out)`` where it copies
    nothing large: src C-contiguous, mode not "raise" (which buffers all of
    out); an index it would convert or copy is given in pieces when out's
    first axis is the indices'.  False where np.take does not fit."""
    if not src.flags.c_contiguous or src.dtype != out.dtype:
        return False
    if _as_is(ind, np.intp) or ind.ndim == 0:
        np.take(src, ind, axis=ax, out=out, mode=mode)
        return True
    if ax != 0:
        return False
    pieces(out, lambda s, dst: np.take(src, ind[s], axis=0, out=dst, mode=mode), write=True)
    return True


def advanced_index_out(x, *idx, out, key, front):
    x = np.asarray(x)
    if out.size == 0 or out.ndim == 0:  # NumPy's own checks, on a tiny result
        return into(out, advanced_index(x, *idx, key=key, front=front))
    if len(idx) == 1 and isinstance(idx[0], np.ndarray) and idx[0].dtype.kind in "iu":
        # one index array, the other indexed axes integers: np.take on the view they leave
        v = x[tuple(e if type(e) is int else slice(None) for e in key)]
        pos = key.index("a")
        p = pos - sum(type(e) is int for e in key[:pos])  # the gathered axis of v
        # take puts the index dims at p: the layout of out unless NumPy moves them to the front
        if not (front and p) and _in_bounds(idx[0], -v.shape[p], v.shape[p]):
            # in range, so mode "wrap" gives the values of "raise" without its buffered copy of out
            if _take_into(v, idx[0], p, "wrap", out):
                return out
    return _advanced_pieces(x, idx, key, front, out)


def take_out(a, indices, out, axis, mode):
    a, ind = np.asarray(a), np.asarray(indices)
    n = a.size if axis is None else a.shape[axis]
    if (out.size == 0 or out.ndim == 0 or n == 0 or ind.dtype.kind not in "iu"
            or mode == "raise" and not _in_bounds(ind, -n, n)):
        return into(out, take(a, indices, axis, mode))  # NumPy's result, or its IndexError
    src, ax = (a.reshape(-1), 0) if axis is None else (a, axis)
    # checked in range above, so "wrap" gives the values of "raise" without its buffered copy of out
    if _take_into(src, ind, ax, "wrap" if mode == "raise" else mode, out):
        return out
    # advanced indexing, piece by piece (it reads strided sources and any index as they are)
    if mode == "wrap":
        ind = np.mod(ind, n)
    elif mode == "clip":
        ind = np.clip(ind, 0, n - 1)
    key = (None,) * ax + ("a",) + (None,) * (src.ndim - ax - 1)
    return _advanced_pieces(src, (ind,), key, False, out)


def take_along_axis_out(arr, ind, out, axis):
    arr, ind = np.asarray(arr), np.asarray(ind)
    src, ax = (arr.reshape(-1), 0) if axis is None else (arr, axis)  # axis=None: the flattened array
    n = src.shape[ax]
    if out.size == 0 or out.ndim == 0 or ind.dtype.kind not in "iu" or not _in_bounds(ind, -n, n):
        return into(out, np.take_along_axis(arr, ind, axis=axis))  # NumPy's result, or its IndexError
    if src.ndim == 1:
        if _take_into(src, ind, 0, "wrap", out):  # in range: "wrap" changes nothing
            return out
        return pieces(out, lambda s: np.take_along_axis(src, ind[s], axis=0))
    k = 1 if ax == 0 else 0  # pieces along an axis that is not gathered; both operands cut there

    def cut(x, s):
        return x[(slice(None),) * k + (s if x.shape[k] != 1 else slice(None),)]  # a broadcast axis stays whole
    return pieces(out, lambda s: np.take_along_axis(cut(src, s), cut(ind, s), axis=ax), axis=k)


def select_out(*xs, out, n):
    """np.select's own method: the default, then each choice where its
    condition holds, the first condition last (it takes precedence)."""
    values = [np.asarray(v) for v in xs[n:]]  # as np.select's broadcast_arrays converts them
    np.copyto(out, values[-1], casting="unsafe")
    for cond, choice in zip(xs[n - 1::-1], values[-2::-1]):
        np.copyto(out, choice, where=cond)
    return out


def choose_out(a, *choices, out, mode):
    arr = np.asarray(a)
    if (out.size == 0 or out.ndim == 0 or arr.dtype.kind not in "iu"
            or mode == "raise" and not _in_bounds(arr, 0, len(choices))):
        return into(out, np.choose(a, choices, mode=mode))  # NumPy's result, or its error
    if mode == "raise":
        mode = "wrap"  # checked in range: the same values, without "raise"'s buffered copy of out
    if _as_is(arr, np.intp) and all(_as_is(c, out.dtype) for c in choices):
        return np.choose(arr, choices, out=out, mode=mode)
    # np.choose would convert (copy) a or a choice whole: give it pieces, written into out's rows
    full_a = np.broadcast_to(arr, out.shape)
    full = [np.broadcast_to(c, out.shape) if isinstance(c, np.ndarray) else c for c in choices]
    return pieces(out, lambda s, dst: np.choose(full_a[s], [c[s] if isinstance(c, np.ndarray) else c for c in full],
                                                out=dst, mode=mode), write=True)


def searchsorted_out(a, v, *sorter, out, side):
    v = np.asarray(v)
    if out.ndim == 0 or out.size <= CHUNK:
        return into(out, searchsorted(a, v, *sorter, side=side))
    a = np.asarray(a)
    # what NumPy converts on every call, converted once for all the pieces
    common = np.promote_types(a.dtype, v.dtype)
    if a.dtype != common or not a.flags.c_contiguous:
        a = np.ascontiguousarray(a, dtype=common)
    if sorter and not (isinstance(sorter[0], np.ndarray) and sorter[0].dtype == np.intp
                       and sorter[0].flags.c_contiguous):
        sorter = (np.ascontiguousarray(sorter[0], dtype=np.intp),)
    return pieces(out, lambda s: searchsorted(a, v[s], *sorter, side=side))


def unravel_index_out(i, out, shape, order, output):
    """Coordinate ``output`` of flat index ``i``: ``(i // stride) % dim``, two
    ufunc passes into ``out`` (exact integer arithmetic, as NumPy's)."""
    arr = np.asarray(i)
    size = 1
    for d in shape:
        size *= d
    if arr.dtype.kind not in "iu" or not _in_bounds(arr, 0, size) or out.size == 0:
        return into(out, np.unravel_index(i, shape, order=order)[output])  # NumPy's result, or its error
    later = shape[output + 1:] if order == "C" else shape[:output]
    stride = 1
    for d in later:
        stride *= d
    np.floor_divide(i, stride, out=out, dtype=np.intp, casting="unsafe")  # i in [0, size): the cast is exact
    np.remainder(out, shape[output], out=out)
    return out


def ravel_multi_index_out(*idx, out, dims, mode, order):
    if out.ndim == 0 or out.size == 0:
        return into(out, np.ravel_multi_index(idx, dims, mode=mode, order=order))
    full = [np.broadcast_to(i, out.shape) for i in idx]
    return pieces(out, lambda s: np.ravel_multi_index(tuple(f[s] for f in full), dims, mode=mode, order=order))


# ---------------------------------------------------------------- scatter_add

def _scatter_key(idx, key, front):
    """The NumPy key of a ``scatter_add``: as ``advanced_index`` builds it."""
    it = iter(idx)
    k = [slice(None) if e is None else next(it) if e == "a" else e for e in key]
    if front:  # an Ellipsis standing for no axis puts the broadcast index dims first, as in the gather
        k.insert(next(p for p, e in enumerate(key) if e is not None) + 1, Ellipsis)
    return tuple(k)


def scatter_add_out(values, *idx, out, shape, key, front):
    out.fill(0)
    np.add.at(out, _scatter_key(idx, key, front), values)  # unbuffered: repeated indices accumulate
    return out


def scatter_add(values, *idx, shape, key, front):
    return scatter_add_out(values, *idx, out=np.zeros(shape, np.asarray(values).dtype), shape=shape, key=key,
                           front=front)


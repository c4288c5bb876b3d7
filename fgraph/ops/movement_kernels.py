"""The reference NumPy kernels of the movement ops (declared in ``movement.py``).

Plain kernels (``numpy_kernel``): the view ops return NumPy views of their
input (never written to: kernels treat inputs as read-only; ``reshape``
copies where NumPy cannot view); ``concatenate`` and ``repeat`` allocate.

Out-kernels (``numpy_out_kernel``) write the same bits into the engine's
C-contiguous ``out`` and allocate nothing proportional to the data:

* ``concatenate``: ``np.concatenate(..., out=out)`` (``out`` has the node's
  dtype, so ``dtype=`` is implied);
* ``repeat``: per run of equal counts, one broadcasting copy of the run into
  a view of ``out`` whose axis is split in two (element, copy): no
  temporaries.  Many short runs would make that a slow Python loop, so then
  a C-contiguous input goes through ``np.take(..., out=out)`` with an index
  array cached per ``repeats`` (allocated on the first call only); a strided
  one falls back to copying ``np.repeat``'s result;
* the view ops (which the arena engine aliases, so it never calls these):
  one ``np.copyto`` from the NumPy view into ``out``, for a planner that
  decides a view must be materialised (a ``reshape`` NumPy would copy).
"""
import threading

import numpy as np


def reshape(x, shape):
    return np.reshape(x, shape)


def transpose(x, axes):
    return np.transpose(x, axes)


def broadcast_to(x, shape):
    return np.broadcast_to(x, shape)


def flip(x, axes):
    return np.flip(x, axes)


def slice_axis(x, axis, start, stop, step):
    return np.asarray(x)[(slice(None),) * axis + (slice(start, stop, step),)]


def concatenate(*xs, axis, dtype=None, casting="same_kind"):
    return np.concatenate(xs, axis=axis, dtype=dtype, casting=casting)


def repeat(x, repeats, axis):
    return np.repeat(x, np.asarray(repeats, dtype=np.intp), axis=axis)



# ---------------------------------------------------------------- out-kernels

def reshape_out(x, out, shape):
    # out seen in x's shape is a view (out is C-contiguous), and C order is reshape's order
    np.copyto(np.reshape(out, np.shape(x), copy=False), x)
    return out


def transpose_out(x, out, axes):
    np.copyto(out, np.transpose(x, axes))
    return out


def broadcast_to_out(x, out, shape):
    np.copyto(out, x)  # copyto broadcasts as broadcast_to does (the rule checked the shapes)
    return out


def flip_out(x, out, axes):
    np.copyto(out, np.flip(x, axes))
    return out


def slice_axis_out(x, out, axis, start, stop, step):
    np.copyto(out, slice_axis(x, axis, start, stop, step))
    return out


def concatenate_out(*xs, out, axis, dtype=None, casting="same_kind"):
    # NumPy refuses dtype= together with out=; out's dtype is the node's (dtype or the result type)
    return np.concatenate(xs, axis=axis, out=out, casting=casting)


#: repeat loops over runs of equal counts when there are at most LOOP_RUNS
#: of them, or at least LOOP_BLOCK output elements per run on average (the
#: loop's Python overhead is then small against the copying)
LOOP_RUNS = 16
LOOP_BLOCK = 8192
_PLANS: dict = {}  # id(repeats) -> [repeats, runs, take index or None]
_PLANS_MAX = 64
_PLANS_LOCK = threading.Lock()


def _plan(repeats: tuple) -> list:
    """Runs of equal counts of a ``repeats`` param, as an (n, 4) array of
    (first element, end element, count, first output position), cached by
    the params tuple's identity (the engine passes the same tuple each run;
    hashing a long tuple would cost O(n) per call)."""
    hit = _PLANS.get(id(repeats))
    if hit is not None and hit[0] is repeats:  # the entry keeps the tuple alive: its id is not reused
        return hit
    r = np.asarray(repeats, dtype=np.intp)
    if r.size:
        first = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
        end = np.r_[first[1:], r.size]
        count = r[first]
        pos = np.r_[0, np.cumsum((end - first) * count)[:-1]]
        runs = np.stack([first, end, count, pos], axis=1).astype(np.intp)
    else:
        runs = np.zeros((0, 4), np.intp)
    entry = [repeats, runs, None]
    with _PLANS_LOCK:
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.pop(next(iter(_PLANS)))  # the oldest
        _PLANS[id(repeats)] = entry
    return entry


def repeat_out(x, out, repeats, axis):
    entry = _plan(repeats)
    runs = entry[1]
    x = np.asarray(x)
    if len(runs) <= LOOP_RUNS or out.size >= LOOP_BLOCK * len(runs):
        lead = (slice(None),) * axis
        for a, b, c, p in runs.tolist():
            if c:
                # out's axis slice, split into (element, copy): a view, since out is C-contiguous
                dst = out[lead + (slice(p, p + (b - a) * c),)]
                dst = np.reshape(dst, dst.shape[:axis] + (b - a, c) + dst.shape[axis + 1:], copy=False)
                np.copyto(dst, x[lead + (slice(a, b), None)])
    elif x.flags.c_contiguous:  # np.take would copy a strided input whole
        if entry[2] is None:
            entry[2] = np.repeat(np.arange(len(repeats), dtype=np.intp), np.asarray(repeats, dtype=np.intp))
        np.take(x, entry[2], axis=axis, out=out, mode="clip")  # in range: "raise" would buffer out
    else:
        np.copyto(out, repeat(x, repeats, axis))
    return out


"""Reading elements through pending writes.

A loop that writes single elements of a large array and reads others back
(a queue-driven search: ``if dist[y, x] < 0: dist[y, x] = d + 1``) would
compute the whole array at every read, a copy of it each time.  A small
basic read (``slice``) of a chain of basic writes (``setitem``) is answered
from the chain instead: a write whose region the read misses is skipped, a
scalar write whose region holds the read gives its value, and the first
value already known below is read directly.  The writes stay pending and
are computed together, in place, when the whole array is needed.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..ops.indexing_kernels import basic_index

#: writes walked past at most (each a few Python operations); a read past more computes the array
LIMIT = 32


def read_through(node, at_hand, engine, missing):
    """The value of ``node`` (a small ``slice``) read through the pending
    basic writes below it, or ``missing``.  ``at_hand(n, engine)``: n's
    value if it needs no computing, else ``missing``."""
    key = node.params[0][1]
    x = node.inputs[0]
    read = _ranges(key, x.shape)
    if read is None:
        return missing
    ndim = len(x.shape)
    element = _is_element(key, ndim)  # one element: keys compare whole
    for _ in range(LIMIT):
        value = at_hand(x, engine)
        if value is not missing:
            return basic_index(value, key)
        if x.op != "setitem" or len(x.inputs) != 2 or x.params[1][1] is not None:
            return missing  # not a basic write (a mask's where, a fancy index...): computed as it is
        wkey = x.params[0][1]
        if element and wkey != key and _is_element(wkey, ndim):
            x = x.inputs[0]  # another element written
            continue
        written = _ranges(wkey, x.shape)
        if written is None:
            return missing
        if any(not any(i in w for i in r) for r, w in zip(read, written)):
            x = x.inputs[0]  # the read misses this write: what lies below holds its value
            continue
        v = x.inputs[1]
        if v.size != 1 or not all(all(i in w for i in r) for r, w in zip(read, written)):
            return missing  # an array written, or a read the write covers in part
        value = at_hand(v, engine)
        if value is missing:
            return missing
        return np.full(node.shape, np.asarray(value).reshape(()), dtype=node.dtype)
    return missing


@lru_cache(maxsize=4096)
def _is_element(key: tuple, ndim: int) -> bool:
    """Whether a normalised basic key picks one element (an int per axis)."""
    return len(key) == ndim and all(type(e) is int for e in key)


@lru_cache(maxsize=4096)
def _ranges(key: tuple, shape: tuple) -> tuple | None:
    """Each axis's indices (a ``range``) that a normalised basic key takes,
    or None for a key of another form (remembered: a loop writes the same
    elements again and again)."""
    ranges = []
    for e in key:
        if type(e) is int and e >= 0:
            ranges.append(range(e, e + 1))
        elif type(e) is tuple and len(e) == 3:
            start, stop, step = e
            ranges.append(range(start, stop if stop >= 0 else -1, step))
        else:
            return None
    if len(ranges) > len(shape):
        return None
    ranges.extend(range(n) for n in shape[len(ranges):])
    return tuple(ranges)

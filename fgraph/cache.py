"""A least-recently-used cache of evaluated results, bounded in bytes."""
from __future__ import annotations

import sys
from collections import OrderedDict

import numpy as np


def held_bytes(arr) -> int:
    """The memory an array really holds: its object and its data, or for a
    view the whole array it keeps alive (a cached 0-d result is ~100 bytes,
    not 8), down to a buffer that is not an array (``frombuffer``'s bytes)."""
    size = sys.getsizeof(arr)  # a NumPy array that owns its data counts it in
    if not isinstance(arr, np.ndarray):  # a device array: its object and its data
        return size + getattr(arr, "nbytes", 0)
    base = arr
    while not base.flags.owndata and isinstance(base.base, np.ndarray):
        base = base.base
        size += sys.getsizeof(base)  # each array object on the way is kept alive too
    if not base.flags.owndata and base.base is not None:  # data in another object (bytes, mmap, a buffer)
        size += max(sys.getsizeof(base.base), base.nbytes)
    return size


class ResultCache:
    """Structural key -> read-only array; evicts the oldest past ``max_bytes`` (counted as :func:`held_bytes`)."""

    def __init__(self, max_bytes: int = 256 << 20):
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._items: OrderedDict = OrderedDict()
        self._sizes: dict = {}  # key -> the bytes counted when it was put: eviction subtracts exactly that
        self.hits = 0
        self.misses = 0

    def get(self, key):
        arr = self._items.get(key)
        if arr is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return arr

    def peek(self, key):
        """The cached array or None, without counting a hit or a miss."""
        return self._items.get(key)

    def known_below(self, roots) -> dict:
        """id(node) -> cached value, for the nodes strictly below ``roots`` that
        are cached already (an evaluation need not descend past them)."""
        from .symbol import topological

        root_ids = {id(r) for r in roots}
        known = {}
        for n in topological(roots):
            if n.inputs and id(n) not in root_ids:
                hit = self.peek(n.key)
                if hit is not None:
                    known[id(n)] = hit
        return known

    def put(self, key, arr: np.ndarray) -> None:
        size = held_bytes(arr)
        if size > self.max_bytes or key in self._items:
            return
        self._items[key] = arr
        self._sizes[key] = size
        self.nbytes += size
        while self.nbytes > self.max_bytes:
            old, _ = self._items.popitem(last=False)
            self.nbytes -= self._sizes.pop(old)

    def clear(self) -> None:
        self._items.clear()
        self._sizes.clear()
        self.nbytes = 0

    def __len__(self):
        return len(self._items)

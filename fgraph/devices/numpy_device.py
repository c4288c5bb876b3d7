"""The host CPU, with NumPy as its array module."""
from __future__ import annotations

import numpy as np


class NumpyDevice:
    """Host memory; arrays are NumPy arrays, nothing to synchronise."""

    name = "cpu"
    xp = np

    def asarray(self, x, dtype=None):
        return np.asarray(x, dtype=dtype)

    def to_host(self, x):
        return np.asarray(x)

    def allocate(self, nbytes: int):
        return np.empty(max(int(nbytes), 1), dtype=np.uint8)

    def view(self, arena, offset: int, shape: tuple, dtype):
        dt = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        return arena[offset:offset + n].view(dt).reshape(shape)

    def synchronize(self) -> None:
        pass

    def __repr__(self):
        return f"{type(self).__name__}()"


#: the default current device (see ``fgraph.devices.current``)
HOST = NumpyDevice()

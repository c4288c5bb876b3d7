"""An NVIDIA GPU through CuPy.  CuPy is imported only when a device is made,
so fgraph imports (and its CPU engines run) without it."""
from __future__ import annotations

import numpy as np

from ..errors import FgraphError


def unavailable() -> str | None:
    """Why no CuPy GPU can be used here (None when one can): CuPy missing,
    broken, or no CUDA device visible to ``cupy.cuda.runtime.getDeviceCount()``."""
    try:
        import cupy
    except ImportError as e:
        return f"CuPy is not installed ({e}); install cupy-cuda12x (or the wheel for your CUDA)"
    except Exception as e:  # a wheel for another CUDA, missing libraries, ...
        return f"CuPy failed to import: {type(e).__name__}: {e}"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # no driver, no device node, ...
        return f"no CUDA GPU is usable: cupy.cuda.runtime.getDeviceCount() raised {type(e).__name__}: {e}"
    if n == 0:
        return "no CUDA GPU is visible (cupy.cuda.runtime.getDeviceCount() == 0)"
    return None


class CupyDevice:
    """The current CUDA device: CuPy arrays, arenas from CuPy's memory pool.

    Raises FgraphError naming what is missing when CuPy or a GPU is not there.
    """

    def __init__(self):
        reason = unavailable()
        if reason is not None:
            raise FgraphError(f"the cupy engine needs an NVIDIA GPU through CuPy: {reason}")
        import cupy

        self.xp = cupy
        self.id = cupy.cuda.runtime.getDevice()
        self.name = f"cuda:{self.id}"

    def asarray(self, x, dtype=None):
        """Host arrays and scalars are copied to the device; CuPy arrays stay as they are."""
        return self.xp.asarray(x, dtype=dtype)

    def to_host(self, x):
        return self.xp.asnumpy(x)

    def allocate(self, nbytes: int):
        """One ``cupy.empty(nbytes, uint8)``: a single allocation for a whole arena."""
        return self.xp.empty(max(int(nbytes), 1), dtype=np.uint8)

    def view(self, arena, offset: int, shape: tuple, dtype):
        dt = np.dtype(dtype)
        n = 1
        for d in shape:
            n *= int(d)
        return arena[offset:offset + n * dt.itemsize].view(dt).reshape(shape)

    def synchronize(self) -> None:
        self.xp.cuda.get_current_stream().synchronize()

    def memory_pool_bytes(self) -> tuple[int, int]:
        """(bytes in use, bytes held) by CuPy's default memory pool."""
        pool = self.xp.get_default_memory_pool()
        return pool.used_bytes(), pool.total_bytes()

    def __repr__(self):
        return f"CupyDevice({self.name})"

"""Kernel scratch carved from a planned workspace.

The memory planner hands an out-kernel that declares ``<engine>_workspace``
one flat ``uint8`` block of the arena, live at its node's step alone
(``fgraph/engines/arena.py``).  A kernel cuts its buffers from it one after
another, each starting on an ``ALIGN``-byte boundary (SIMD loads and BLAS
like aligned rows); its sizer asks for :func:`carved_nbytes` of them.  The
block may be a NumPy or a CuPy array.
"""
from __future__ import annotations

import numpy as np

#: byte alignment of each buffer carved from a workspace
ALIGN = 64


def aligned(nbytes: int) -> int:
    """``nbytes`` rounded up to a multiple of ``ALIGN``."""
    return -(-nbytes // ALIGN) * ALIGN


def carved_nbytes(specs) -> int:
    """Workspace bytes holding buffers of ``specs``, ``(values, dtype)`` pairs."""
    return sum(aligned(n * np.dtype(d).itemsize) for n, d in specs)


def carve(workspace, specs) -> list:
    """Flat buffers of ``specs`` (``(values, dtype)`` pairs), one after
    another in ``workspace``, which must hold :func:`carved_nbytes` of them."""
    bufs, at = [], 0
    for n, d in specs:
        size = n * np.dtype(d).itemsize
        bufs.append(workspace[at:at + size].view(d))
        at += aligned(size)
    return bufs

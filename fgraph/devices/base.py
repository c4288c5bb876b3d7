"""The interface every device implements, and the device kernels run on.

An engine talks to its device only through these few members, so the same
machinery (schedule, memory plan, executable, evaluate's memoisation) runs
on any device that provides them:

========================  ====================================================
``name``                  a short label ("cpu", "cuda:0")
``xp``                    the array module (``numpy``, ``cupy``): its
                          ``ndarray`` type, ``asarray``, ``empty``, ...
``asarray(x, dtype)``     move or convert ``x`` (host or device) to the device
``to_host(x)``            a NumPy array with the contents of ``x``
``allocate(nbytes)``      one flat uint8 buffer: the arena of a compiled graph
``view(arena, o, s, d)``  a C-contiguous array of shape ``s``, dtype ``d`` over
                          the arena's bytes ``[o, o + size)``; never a copy
``synchronize()``         wait until queued work is done (a no-op on the CPU)
========================  ====================================================

Kernels are written against ``current().xp``: an engine makes its device
current (``with use(device):``) while it runs a program, so one kernel
serves NumPy and CuPy where their functions agree.
"""
from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Protocol, runtime_checkable

from .numpy_device import HOST


@runtime_checkable
class Device(Protocol):
    """A place arrays live: its array module, arenas, transfers, synchronisation."""

    name: str
    xp: Any  # the array module (numpy, cupy)

    def asarray(self, x: Any, dtype=None) -> Any:
        """``x`` (a host array, a device array, a Python scalar) as an array on
        this device; no copy when it is one already (and of ``dtype``)."""

    def to_host(self, x: Any) -> Any:
        """A NumPy array with the contents of ``x`` (waits for pending work)."""

    def allocate(self, nbytes: int) -> Any:
        """One flat ``uint8`` buffer of at least ``nbytes`` (an arena)."""

    def view(self, arena: Any, offset: int, shape: tuple, dtype) -> Any:
        """A typed C-contiguous array over ``arena`` at byte ``offset``."""

    def synchronize(self) -> None:
        """Wait until queued work is done."""


_current: contextvars.ContextVar = contextvars.ContextVar("fgraph_device", default=HOST)


def current():
    """The device kernels run on now: the one an engine made current, else the host."""
    return _current.get()  # kernels ask on every call: one lookup, no import


@contextlib.contextmanager
def use(device):
    """Make ``device`` current while the block runs (engines wrap their runs in it)."""
    token = _current.set(device)
    try:
        yield device
    finally:
        _current.reset(token)

"""The interface every device implements."""
from __future__ import annotations

from typing import Any, Protocol


class Device(Protocol):
    """A place arrays live: its array module, arenas, transfers, synchronisation."""

    name: str
    xp: Any  # the array module (numpy, cupy)

    def asarray(self, x: Any, dtype=None) -> Any:
        """Move or convert ``x`` to this device."""

    def to_host(self, x: Any) -> Any:
        """A NumPy array with the contents of ``x``."""

    def allocate(self, nbytes: int) -> Any:
        """One flat byte buffer (an arena)."""

    def view(self, arena: Any, offset: int, shape: tuple, dtype) -> Any:
        """A typed array over ``arena`` at byte ``offset``."""

    def synchronize(self) -> None:
        """Wait until queued work is done."""

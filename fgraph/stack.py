"""A stack: an engine and a default dtype, bound to the NumPy names.

Owl's ``Make (Device) (Number)``: ``fgraph.make(engine, dtype)`` returns a
namespace whose functions build nodes for that stack; lazy arrays remember
the stack that made them and evaluate on its engine.
"""
from __future__ import annotations

import contextvars
from typing import Any

import numpy as np


class Stack:
    """An engine name and a default floating dtype (None: NumPy's float64)."""

    __slots__ = ("engine", "dtype", "float_dtype", "options", "namespace")

    def __init__(self, engine: str = "numpy", dtype=None, **options: Any):
        self.engine = engine
        self.dtype = None if dtype is None else np.dtype(dtype)
        if self.dtype is not None and self.dtype.kind not in "fc":
            from .errors import DTypeError

            raise DTypeError(f"make: the stack's default dtype must be floating or complex, got {self.dtype}")
        self.float_dtype = self.dtype if self.dtype is not None else np.dtype(np.float64)
        self.options = options
        self.namespace = None  # set by fgraph.make

    def __repr__(self):
        return f"Stack(engine={self.engine!r}, dtype={self.float_dtype})"

    def evaluate(self, nodes):
        """Evaluate nodes on this stack's engine (incrementally); arrays, read-only."""
        from .engines import get_engine

        return get_engine(self.engine).evaluate(nodes, **self.options)


DEFAULT = Stack()
_current: contextvars.ContextVar[Stack] = contextvars.ContextVar("fgraph_stack", default=DEFAULT)


def current() -> Stack:
    return _current.get()


def activate(stack: Stack):
    return _current.set(stack)


def deactivate(token) -> None:
    _current.reset(token)

"""A stack: the layers' objects composed into one value, bound to the NumPy names.

Owl's ``Make (Device) (Number)``: a stack is an engine (the object that
compiles and evaluates graphs, on its device), a default floating dtype,
an optimiser pipeline, and the engine's evaluation options.
``fgraph.make(engine, dtype)`` composes one and returns a namespace whose
functions build nodes for it; lazy arrays remember the stack that made
them and evaluate through its engine object (:meth:`Stack.evaluate`).

This module imports no engine: the engine object is given to the stack
(``fgraph.make`` injects it; the default stack's is given by the namespace
layer, ``fgraph.numpy``, as a function that makes it on first use, so that
importing fgraph makes no engine).
"""
from __future__ import annotations

import contextvars
from typing import Any

import numpy as np

from .errors import DTypeError, FgraphError


class Stack:
    """An engine (its name and its object), a default floating dtype (None:
    NumPy's float64), an optimiser pipeline (None: the optimiser's default
    passes) and the engine's evaluation options.

    ``backend`` is the engine object (what has ``evaluate(nodes, **options)``
    and ``compile(graph, **options)``), or a function of no arguments that
    returns it, called on first use."""

    __slots__ = ("engine", "dtype", "float_dtype", "options", "namespace", "passes", "_backend")

    def __init__(self, engine: str = "numpy", dtype=None, *, backend: Any = None, passes=None, **options: Any):
        self.engine = engine
        self.dtype = None if dtype is None else np.dtype(dtype)
        if self.dtype is not None and self.dtype.kind not in "fc":
            raise DTypeError(f"make: the stack's default dtype must be floating or complex, got {self.dtype}")
        self.float_dtype = self.dtype if self.dtype is not None else np.dtype(np.float64)
        self.options = options
        self.passes = passes
        self._backend = backend
        self.namespace = None  # set by fgraph.make

    def __repr__(self):
        return f"Stack(engine={self.engine!r}, dtype={self.float_dtype})"

    @property
    def backend(self):
        """The engine object (made now if the stack was given a function that makes it)."""
        b = self._backend
        if b is None:
            raise FgraphError(f"the stack {self!r} has no engine object; compose stacks with fgraph.make")
        if not hasattr(b, "evaluate") and callable(b):
            b = self._backend = b()
        return b

    @backend.setter
    def backend(self, value) -> None:
        self._backend = value

    def evaluate(self, nodes):
        """Evaluate nodes on this stack's engine (incrementally); arrays, read-only."""
        return self.backend.evaluate(nodes, **self.options)


DEFAULT = Stack()  # NumPy engine, NumPy's dtypes: its engine object is given by fgraph.numpy
_current: contextvars.ContextVar[Stack] = contextvars.ContextVar("fgraph_stack", default=DEFAULT)


def current() -> Stack:
    return _current.get()


def activate(stack: Stack):
    return _current.set(stack)


def deactivate(token) -> None:
    _current.reset(token)


def host_engine():
    """The host engine (NumPy's, the default stack's): what values computed
    when made, constants' data and folded constants are known on."""
    return DEFAULT.backend

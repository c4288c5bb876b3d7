"""A graph compiled for the NumPy engine that runs as one C function.

``fgraph.compile(g)`` and ``fgraph.jit(f)`` give an :class:`Executable`: a
program of kernels in a planned arena.  On the NumPy engine a graph with no
state (no variables, no updates) is also compiled whole, in the background,
by the C generator that eager steps use (``numpy_kernels/native/
whole_step.py``): once that is ready, a call runs no Python between its
ops.  Until then, for a call it declines (an input not as compiled, IEEE
flags NumPy would warn or raise on), and where the program is faster (timed
on large graphs, as eager steps are: ``race.Race``), the program runs.
Results are the caller's own arrays either way.
"""
from __future__ import annotations

import math

import numpy as np

from .executable import Executable
from .numpy_kernels.native.whole_step import native_graph
from .race import Race

#: calls before the whole graph is compiled: a compile takes 0.1-0.5 s of a core, worth it for a graph a loop
#: calls, not for one called a few times (the test suite's executables asked for 107 compiles at 3, 76 at 8)
CALLS_BEFORE_COMPILE = 8
#: graphs with an array of more than this many elements time the C function against the program (the
#: program's threaded kernels may win there; eager steps use the same threshold)
RACE_ELEMENTS = 1 << 16


class NativeExecutable(Executable):
    """An :class:`Executable` that runs its graph as one C function once
    compiled (see the module's docstring)."""

    def __init__(self, graph, engine, kernel_attr: str, plan_memory: bool = True, arena=None):
        super().__init__(graph, engine, kernel_attr, plan_memory, arena)
        self._calls = 0
        self._step_code = None  # the NativeStep, once compiled
        # None: not asked for yet; a Future: compiling; False: never (stateful, unsupported); else the runner
        self._native = False if graph.variables or graph.updates or not graph.outputs else None
        self._elements = max((math.prod(n.shape) for n in graph.nodes()), default=0)
        self._specs = [(p.shape, p.dtype) for p in graph.placeholders]  # (in _feed_order's order)

    def __call__(self, *args, **feeds):
        # the common call, once the C function runs: NumPy arrays of the placeholders' shapes and dtypes, in
        # order (nothing to convert, and with no state nothing they could overlap): _bind's checks skipped
        run = self._native
        if callable(run) and not feeds and len(args) == len(self._specs) and all(
                type(a) is np.ndarray and a.shape == shape and a.dtype == dtype
                for a, (shape, dtype) in zip(args, self._specs)):
            with self._lock:
                return run(dict(zip(self._feed_order, args)))
        return super().__call__(*args, **feeds)

    def _step(self, bound: dict):
        run = self._native if callable(self._native) else self._native_ready()
        return self._program_step(bound) if run is None else run(bound)

    def _native_ready(self):
        """The runner once the whole graph is compiled, else None (and the
        compile started at the ``CALLS_BEFORE_COMPILE``-th call)."""
        native = self._native
        if native is False:
            return None
        if native is None:
            self._calls += 1
            if self._calls < CALLS_BEFORE_COMPILE:
                return None
            native = self._native = native_graph(self.graph, self._elements) or False
            if native is False:
                return None
        if not native.done():
            return None
        step = native.result()
        if step is None:
            self._native = False
            return None
        self._step_code = step
        whole = self._whole
        self._native = Race(whole, self._program_step) if self._elements > RACE_ELEMENTS else whole
        return self._native

    def _program_step(self, bound: dict):
        """One run of the program of kernels (``Executable._step``)."""
        return Executable._step(self, bound)

    def _whole(self, bound: dict):
        """One call of the C function; the program's run where it declines."""
        got = self._step_code([bound[n.name] for n in self.graph.inputs])
        if got is None:
            return self._program_step(bound)
        # a result that is a view (of a feed, or of another result) is copied, as the program's outputs are
        return self.graph.unflatten([r.copy() if r.base is not None else r for r in got])


__all__ = ["NativeExecutable", "CALLS_BEFORE_COMPILE"]

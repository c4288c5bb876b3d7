"""The NumPy engine (the default, embedded CPU engine), and ``ArrayEngine``,
the device-generic engine it is an instance of.

An ``ArrayEngine`` is a device (``fgraph.devices``) and a kernel attribute
(``numpy_kernel``, ``cupy_kernel``): ``compile`` plans one arena on the
device and returns an ``Executable``; ``evaluate`` runs nodes outside a
compiled graph and memoises the results by structural key.  It reaches the
device only through the device interface, so another device needs only
its kernels (the CuPy engine is this class with ``CupyDevice``).
"""
from __future__ import annotations

import numpy as np

from ..cache import ResultCache
from ..devices import NumpyDevice, use
from ..errors import FgraphError, format_location
from ..symbol import error_at
from . import numpy_kernels  # noqa: F401  (attaches the kernels)
from .executable import Executable
from .program import Program


class ArrayEngine:
    """Graphs compiled and evaluated on ``device`` with the ``kernel_attr`` kernels."""

    name = "array"
    kernel_attr = "numpy_kernel"
    executable = Executable

    def __init__(self, device, cache_bytes: int = 256 << 20):
        self.device = device
        self.cache = ResultCache(cache_bytes)

    # -- hooks a device engine may override
    def check(self, roots) -> None:
        """Refuse, before anything runs, graphs this engine cannot run."""

    def _result(self, value, node):
        """What the cache keeps for ``node``'s computed ``value``."""
        return self.device.asarray(value, dtype=node.dtype)

    def _deliver(self, arr, **options):
        """What ``evaluate`` hands out for a cached array."""
        return arr

    # -- the engine
    def compile(self, graph, plan_memory: bool = True, micro_batch=None, **options) -> Executable:
        """``plan_memory=False`` skips the arena: arrays are allocated as the graph runs.

        ``micro_batch=k`` (or ``(k, [placeholder names])``): run the graph
        ``k`` rows of its batched feeds at a time, in an arena planned for
        ``k`` rows (see :mod:`fgraph.engines.microbatch`)."""
        unknown = sorted(set(options) - set(self.executable.OPTIONS))
        if unknown:
            known = ["plan_memory", "micro_batch", *self.executable.OPTIONS]
            raise error_at(FgraphError, "compile", f"the {self.name} engine has no option {unknown}; it takes {known}")
        self.check(graph.roots())
        if micro_batch is not None:
            from .microbatch import compile_micro_batched

            return compile_micro_batched(self, graph, micro_batch, plan_memory=plan_memory, **options)
        return self.executable(graph, self, self.kernel_attr, plan_memory=plan_memory, **options)

    def evaluate(self, nodes, **options) -> list:
        """Evaluate nodes outside a compiled graph; results are memoised by
        structural key (the NumPy engine returns them read-only: they may be shared)."""
        results = [self.cache.get(n.key) for n in nodes]
        todo = list({id(n): n for n, r in zip(nodes, results) if r is None}.values())
        if todo:
            self.check(todo)
            known = self._known(todo)
            prog = Program(todo, self.kernel_attr, self.name, known=known)
            values = [None] * len(prog.order)
            for k, n in prog.leaves.items():
                values[k] = self._leaf_value(n, known)
            with use(self.device):
                prog.run(values)
            done = {}
            for n in todo:
                arr = self._result(values[prog.slot[id(n)]], n)
                self.cache.put(n.key, arr)
                done[id(n)] = arr
            results = [done[id(n)] if r is None else r for n, r in zip(nodes, results)]
        return [self._deliver(r, **options) for r in results]

    def _known(self, roots) -> dict:
        """Nodes below the roots whose values are cached already."""
        return self.cache.known_below(roots)

    def _leaf_value(self, n, known: dict):
        if n.op == "placeholder":
            raise FgraphError(f"placeholder {n.name!r} has no value: evaluate through "
                              f"fgraph.compile(graph)(**feeds) (made at {format_location(n.where)})")
        if n.op == "variable":
            return self.device.asarray(n.param("value").array)
        return known[id(n)]


class NumpyEngine(ArrayEngine):
    """The embedded CPU engine: NumPy kernels on host memory."""

    name = "numpy"
    kernel_attr = "numpy_kernel"

    def __init__(self, cache_bytes: int = 256 << 20):
        super().__init__(NumpyDevice(), cache_bytes)

    def _result(self, value, node):
        arr = np.asarray(value, dtype=node.dtype)
        if arr.flags.writeable:
            arr = arr if arr.base is None and arr.flags.owndata else arr.copy()
            arr.flags.writeable = False
        return arr

"""The NumPy engine: the default, embedded CPU engine."""
from __future__ import annotations

import numpy as np

from ..cache import ResultCache
from ..devices import NumpyDevice
from ..errors import FgraphError, format_location
from . import numpy_kernels  # noqa: F401  (attaches the kernels)
from .executable import Executable
from .program import Program


class NumpyEngine:
    name = "numpy"
    kernel_attr = "numpy_kernel"

    def __init__(self, cache_bytes: int = 256 << 20):
        self.device = NumpyDevice()
        self.cache = ResultCache(cache_bytes)

    def compile(self, graph, plan_memory: bool = True, **options) -> Executable:
        """``plan_memory=False`` skips the arena: NumPy allocates as it goes."""
        return Executable(graph, self, self.kernel_attr, plan_memory=plan_memory)

    def evaluate(self, nodes, **options) -> list[np.ndarray]:
        """Evaluate nodes outside a compiled graph; results are memoised by
        structural key and returned read-only (they may be shared)."""
        results = [self.cache.get(n.key) for n in nodes]
        todo = list({id(n): n for n, r in zip(nodes, results) if r is None}.values())
        if todo:
            known = self._known(todo)
            prog = Program(todo, self.kernel_attr, self.name, known=known)
            values = [None] * len(prog.order)
            for k, n in prog.leaves.items():
                values[k] = self._leaf_value(n, known)
            prog.run(values)
            done = {}
            for n in todo:
                arr = np.asarray(values[prog.slot[id(n)]], dtype=n.dtype)
                if arr.flags.writeable:
                    arr = arr if arr.base is None and arr.flags.owndata else arr.copy()
                    arr.flags.writeable = False
                self.cache.put(n.key, arr)
                done[id(n)] = arr
            results = [done[id(n)] if r is None else r for n, r in zip(nodes, results)]
        return results

    def _known(self, roots) -> dict:
        """Nodes below the roots whose values are cached already."""
        from ..symbol import topological

        root_ids = {id(r) for r in roots}
        known = {}
        for n in topological(roots):
            if n.inputs and id(n) not in root_ids:
                hit = self.cache.peek(n.key)
                if hit is not None:
                    known[id(n)] = hit
        return known

    @staticmethod
    def _leaf_value(n, known: dict):
        if n.op == "placeholder":
            raise FgraphError(f"placeholder {n.name!r} has no value: evaluate through "
                              f"fgraph.compile(graph)(**feeds) (made at {format_location(n.where)})")
        if n.op == "variable":
            return n.param("value").array
        return known[id(n)]

"""The NumPy engine (the default, embedded CPU engine), and ``ArrayEngine``,
the device-generic engine it is an instance of.

An ``ArrayEngine`` is a device (``fgraph.devices``) and the attribute names
of an engine's kernels (``kernels = kernel_attrs("numpy")``, or ``"cupy"``):
``compile`` plans one arena on the device and returns an ``Executable``;
``evaluate`` runs nodes outside a compiled graph and memoises the results
by structural key.  It reaches the device only through the device
interface, so another device needs only its kernels (the CuPy engine is
this class with ``CupyDevice``).
"""
from __future__ import annotations

import numpy as np

from ..cache import ResultCache
from ..devices import HOST, use
from ..devices.base import current
from ..errors import FgraphError
from ..eager import pending_arrays
from ..registry import kernel_attrs
from ..symbol import born_order, error_at, known_value
from . import numpy_kernels  # noqa: F401  (attaches the kernels)
from .executable import Executable
from .native_executable import NativeExecutable
from .incremental import ProgramCache, evaluate_step
from .numpy_kernels.native.whole_step import native_step

#: results of at most this many elements are memoised by structural key too
SMALL_RESULT = 64


class ArrayEngine:
    """Graphs compiled and evaluated on ``device`` with the ``kernel_attr`` kernels."""

    name = "array"
    kernels = kernel_attrs("numpy")  # the attribute names of the engine's kernels (registry.override)
    executable = Executable

    @property
    def kernel_attr(self) -> str:
        """The main kernel attribute (``numpy_kernel``, ``cupy_kernel``) the programs run."""
        return self.kernels.kernel

    #: ``whole_step(key, graph_of, elements)``: a step structure that comes back compiled as one
    #: function (a callable like a step program, returning None for a call it declines), or None
    whole_step = None

    def __init__(self, device, cache_bytes: int = 1 << 20):
        self.device = device
        self.cache = ResultCache(cache_bytes)
        self.programs = ProgramCache()

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
        """Evaluate nodes outside a compiled graph, incrementally
        (:mod:`fgraph.engines.incremental`): from the values still held, keeping
        those that live lazy arrays point at (the NumPy engine returns them
        read-only: they may be shared).  Small results are also memoised by
        structural key."""
        values = {}
        todo = []
        for n in nodes:
            k = known_value(n)
            if k is not None and k.engine is self:
                values[id(n)] = k.value
                continue
            hit = self.cache.get(n.key) if n.size <= SMALL_RESULT else None
            if hit is not None:
                values[id(n)] = hit
            elif id(n) not in values:
                values[id(n)] = None
                todo.append(n)
        if todo:
            self.check(todo)
            pending = pending_arrays(self.name)  # what NumPy would have computed by now
            # in the order they were made: the pending table's order follows freed arrays' reused ids, and a
            # step's structure (its program's key) depends on the order of its roots (adam's step had 4 keys)
            extra = sorted([n for _, n in pending if id(n) not in values], key=born_order)
            try:
                done = self._step(todo + extra)
            except Exception:
                if not extra:
                    raise
                done = self._step(todo)  # a pending array's own error waits for its own fetch
            for t, n in pending:
                k = known_value(n)
                if k is not None:
                    t._keep = k
            for n in todo:
                arr = values[id(n)] = done[id(n)]
                if n.size <= SMALL_RESULT:
                    self.cache.put(n.key, arr)
        return [self._deliver(values[id(n)], **options) for n in nodes]

    def _step(self, roots) -> dict:
        if current() is self.device:  # (the host, already current: no context to enter)
            return evaluate_step(roots, self)
        with use(self.device):
            return evaluate_step(roots, self)

    def _input_value(self, node):
        """A large constant's or a variable's value, as a step's input."""
        return self.device.asarray(node.param("value").array)


class NumpyEngine(ArrayEngine):
    """The embedded CPU engine: NumPy kernels on host memory."""

    name = "numpy"
    kernels = kernel_attrs("numpy")

    def __init__(self, cache_bytes: int = 1 << 20):
        super().__init__(HOST, cache_bytes)  # the host device kernels see when no engine made another current

    whole_step = staticmethod(native_step)  # small steps: one C function (numpy_kernels/native/whole_step.py)
    executable = NativeExecutable  # a compiled stateless graph: one C function too, once compiled

    def _result(self, value, node):
        # (an ndarray of the node's dtype as it is, and setflags: no flags object made; 0.3 us of every small op)
        arr = value if type(value) is np.ndarray and value.dtype == node.dtype else np.asarray(value, node.dtype)
        if arr.flags.writeable:  # a fresh array, or a view of one nobody else holds
            arr.setflags(write=False)
        return arr

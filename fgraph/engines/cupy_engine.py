"""The CuPy engine: the same graph on an NVIDIA GPU.

It is the generic ``ArrayEngine`` over a ``CupyDevice`` with the
``cupy_kernel`` attribute: the schedule, the memory plan (one device arena
from a single ``cupy.empty``, every intermediate a view at its offset), the
``Executable`` and evaluate's memoisation are the NumPy engine's own.  What
is CuPy's: the kernels (``cupy_kernels``: fused groups become generated
``ElementwiseKernel``/``ReductionKernel`` source), constants uploaded once
per compiled graph, and results handed back as CuPy arrays, or NumPy ones
with ``to_host=True``::

    exe = fgraph.compile(g, engine="cupy")                # results: cupy arrays
    exe = fgraph.compile(g, engine="cupy", to_host=True)  # results: numpy arrays
    exe(x=numpy_or_cupy_array)

Without CuPy or a GPU, making the engine raises an FgraphError saying which
is missing.  ``CupyEngine(device=NumpyDevice())`` runs the same machinery
with the CuPy kernels on the host (their ``xp`` is then NumPy): the tests
use it to check everything but the generated CUDA without a GPU.
"""
from __future__ import annotations

from ..devices import use
from ..registry import kernel_attrs
from ..tree import flatten, unflatten
from .cupy_kernels import check_graph
from .executable import Executable
from .numpy_engine import ArrayEngine


def _returns(arr):
    """A kernel that returns ``arr`` (an uploaded constant)."""
    def constant(**params):
        return arr
    return constant


class CupyExecutable(Executable):
    """An Executable whose constants live on the device and whose runs make
    the device current (kernels reach CuPy through it)."""

    OPTIONS = ("to_host",)

    def __init__(self, graph, engine, kernel_attr: str, plan_memory: bool = True, to_host: bool = False, arena=None):
        super().__init__(graph, engine, kernel_attr, plan_memory=plan_memory, arena=arena)
        self.to_host = bool(to_host)
        self._upload_constants()

    def _upload_constants(self) -> None:
        """Each constant is copied to the device once, here, not on every run;
        results that alias one are copied (as for the NumPy engine's constants)."""
        prog = self._program
        uploaded = []
        for j, ins in enumerate(prog.instructions):
            node = prog.order[ins[3]]
            if node.op == "constant":
                arr = self._device.asarray(node.param("value").array)
                prog.instructions[j] = (_returns(arr),) + tuple(ins[1:])
                uploaded.append(id(arr))
        self._constant_ids = frozenset(self._constant_ids) | frozenset(uploaded)

    def __call__(self, *args, **feeds):
        """One step; feeds may be NumPy or CuPy arrays.  Results are CuPy arrays
        (NumPy arrays if compiled with ``to_host=True``)."""
        with use(self._device):
            return self._deliver(super().__call__(*args, **feeds))

    def run(self, steps: int = 1, *args, **feeds):
        with use(self._device):
            return self._deliver(super().run(steps, *args, **feeds))

    def _deliver(self, results):
        if not self.to_host or results is None:
            return results
        leaves, structure = flatten(results, lambda x: not isinstance(x, (list, tuple, dict)))
        return unflatten(structure, [self._device.to_host(x) for x in leaves])

    def __repr__(self):
        return f"<fgraph.Executable cupy on {self._device.name}: {len(self._program.instructions)} kernels>"


class CupyEngine(ArrayEngine):
    """Graphs on an NVIDIA GPU through CuPy (``device``: a CupyDevice by default)."""

    name = "cupy"
    kernels = kernel_attrs("cupy")
    executable = CupyExecutable

    def __init__(self, device=None, cache_bytes: int = 256 << 20):
        if device is None:
            from ..devices.cupy_device import CupyDevice

            device = CupyDevice()  # FgraphError naming what is missing
        super().__init__(device, cache_bytes)

    def check(self, roots) -> None:
        """Ops the installed CuPy cannot run fail here, naming the op and the user's line."""
        check_graph(roots, self.device.xp)

    def evaluate(self, nodes, to_host: bool = True, **options) -> list:
        """Memoised evaluation for ``fgraph.make(engine="cupy")`` stacks: NumPy
        arrays by default (``np.asarray(t)``, ``float(t)`` need host values),
        fresh CuPy arrays with ``to_host=False``."""
        return super().evaluate(nodes, to_host=to_host, **options)

    def _input_value(self, node):
        """A large constant's or a variable's value on the device: uploaded
        once, then kept in the cache by structural key."""
        arr = self.cache.peek(node.key)
        if arr is None:
            arr = super()._input_value(node)
            self.cache.put(node.key, arr)
        return arr

    def _deliver(self, arr, to_host: bool = True, **options):
        if to_host:
            host = self.device.to_host(arr)
            if host is arr:  # the NumPy device: a shared cache entry, never written
                host = host.view()
            host.flags.writeable = False
            return host
        return arr.copy()  # the cache keeps its own (CuPy arrays cannot be made read-only)

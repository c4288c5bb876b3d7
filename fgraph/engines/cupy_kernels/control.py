"""CuPy kernels for the control-flow ops: the NumPy engine's loops, with
bodies compiled from ``cupy_kernel`` kernels, so carries, rows and stacked
outputs stay on the device (a ``while_loop``'s test and a ``switch``'s
index are read on the host once per step)."""
from ...opdef import one_output
from ..numpy_kernels.control import make_kernels  # the engine's loop runtime (not a family's kernels)
from .support import CUPY, cupy

for _op, _compute in make_kernels(CUPY.kernel).items():
    cupy(_op, one_output(_compute), all=_compute,
         note="the body compiled once with the CuPy kernels, run in a host loop")

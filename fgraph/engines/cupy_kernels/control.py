"""CuPy kernels for the control-flow ops: the NumPy engine's loops, with
bodies compiled from ``cupy_kernel`` kernels, so carries, rows and stacked
outputs stay on the device (a ``while_loop``'s test and a ``switch``'s
index are read on the host once per step)."""
from ...registry import set_attr
from ..numpy_kernels.control import make_kernels, one_output
from .support import cupy

for _op, _compute in make_kernels("cupy_kernel").items():
    set_attr(_op, "cupy_kernel_all", _compute)
    cupy(_op, one_output(_compute), note="the body compiled once with the CuPy kernels, run in a host loop")

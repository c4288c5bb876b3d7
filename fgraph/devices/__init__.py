"""The Device layer: what an engine needs of a device (see ``base``).

``NumpyDevice`` is the host; ``CupyDevice`` an NVIDIA GPU (CuPy is imported
only when one is made).  ``current()`` is the device kernels run on now,
``use(device)`` makes one current for a block.
"""
from .base import Device, current, use
from .numpy_device import HOST, NumpyDevice


def __getattr__(name):  # CupyDevice on demand: importing it never needs CuPy, but keep it lazy anyway
    if name in ("CupyDevice", "cupy_unavailable"):
        from . import cupy_device

        return cupy_device.CupyDevice if name == "CupyDevice" else cupy_device.unavailable
    raise AttributeError(name)


__all__ = ["Device", "NumpyDevice", "CupyDevice", "HOST", "current", "use", "cupy_unavailable"]

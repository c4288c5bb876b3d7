"""The Device layer: what an engine needs of a device."""
from .base import Device
from .numpy_device import NumpyDevice

__all__ = ["Device", "NumpyDevice"]

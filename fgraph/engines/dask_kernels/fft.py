"""The ``fft`` op on the Dask engine: NumPy's kernel on blocks whose
transformed axis is whole, the others chunked."""
from ...registry import override
from .base import along_axis

override("dask", "fft", along_axis)

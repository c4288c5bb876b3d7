"""The ``correlate`` op on the Dask engine: numpy.correlate/convolve take two
1-D arrays, each whole (one task)."""
from ...registry import override
from .base import gufunc

override("dask", "correlate", gufunc(1, 1))

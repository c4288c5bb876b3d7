"""NumPy kernels of the ``fft`` op: ``numpy.fft`` itself (its ``out=``
form writes straight into the planned buffer)."""
import numpy as np

from ...registry import set_attr


def _fft(x, kind, n, axis, norm):
    return getattr(np.fft, kind)(x, n=n, axis=axis, norm=norm)


def _fft_out(x, *, out, kind, n, axis, norm):
    return getattr(np.fft, kind)(x, n=n, axis=axis, norm=norm, out=out)


set_attr("fft", "numpy_kernel", _fft)
set_attr("fft", "numpy_out_kernel", _fft_out)

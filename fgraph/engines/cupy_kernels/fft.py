"""The ``fft`` op on the CuPy engine: ``cupy.fft`` (cuFFT), which follows
NumPy 2's dtypes (complex64 from float32).  Results agree with NumPy's to
rounding, not bit for bit (another FFT library)."""
from .support import cupy, xp


def _fft(x, kind, n, axis, norm):
    m = xp()
    return getattr(m.fft, kind)(m.asarray(x), n=n, axis=axis, norm=norm)


cupy("fft", _fft, None, "xp.fft (cuFFT): to rounding", needs=("fft.fft",))

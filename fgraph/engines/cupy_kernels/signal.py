"""The ``correlate`` op on the CuPy engine: ``cupy.correlate`` /
``cupy.convolve`` (to rounding)."""
from .support import cupy, xp


def _correlate(a, v, kind, mode):
    m = xp()
    return getattr(m, kind)(m.asarray(a), m.asarray(v), mode=("valid", "same", "full")[mode])


cupy("correlate", _correlate, None, "xp.correlate / xp.convolve", needs=("correlate", "convolve"))

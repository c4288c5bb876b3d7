"""NumPy kernels of the ``check`` op: the condition tested, the value copied
(into ``out``, which the planner may make the value itself: then nothing)."""
import numpy as np

from ...registry import set_attr


def _test(ok, op, message):
    if not bool(ok.all() if hasattr(ok, "all") else ok):
        raise ValueError(f"{op}: {message}")


def _check(value, ok, op, message):
    _test(ok, op, message)
    return value.copy() if hasattr(value, "copy") else value


def _check_out(value, ok, *, out, op, message):
    _test(ok, op, message)
    if out is not value:
        np.copyto(out, value)  # (NumPy's protocols hand CuPy arrays to CuPy)
    return out


set_attr("check", "numpy_kernel", _check)
set_attr("check", "numpy_out_kernel", _check_out)

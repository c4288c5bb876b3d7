"""The neural-network ops (``fgraph/ops/nn.py``) on the CuPy engine.

The NumPy kernels of these ops (their ``numpy_kernel``, read from the registry) are written
against ``xp()``: every scratch buffer, product (``xp.matmul(out=)``: cuBLAS
on a GPU), copy and fill goes through the current device's array module, so
the CuPy engine runs those same kernels, out-forms included, and on the
NumPy device they are the NumPy engine's own (bit-identical results).  Two
ops differ:

- ``random_uniform`` draws with Philox on the host (NumPy's stream: the same
  values on every device) and uploads the result;
- ``erf`` is one generated ``ElementwiseKernel`` on a GPU (CUDA's double
  ``erf``, rounded to the result's dtype) instead of the host kernel's
  chunked rational approximation (tens of small launches and a host
  synchronisation per chunk); float16 results, and devices without
  ``ElementwiseKernel``, run the shared kernel.

The convolutions' scratch is planned in the device arena as on the host
(``cupy_workspace``: the same sizers as ``numpy_workspace``).  Their
chunking (``SCRATCH_BYTES``, ``BATCH_BELOW``) is the host's, tuned for CPU caches; on a GPU larger chunks would mean fewer
launches (not measured here: no GPU was lent when this was written).
"""
from __future__ import annotations

import threading

import numpy as np

from ...registry import get_attr
from . import codegen
from .support import NUMPY, cupy, xp

#: what the shared kernels need of the array module beyond the basics every CuPy has
_GEMM = ("matmul", "ascontiguousarray", "copyto", "may_share_memory")


def _shared(op: str, note: str, needs=()) -> None:
    """``op`` runs the shared kernel (written against ``xp()``) and its
    out-form; the scratch the out-form takes (``workspace=``) is planned in
    the device arena as on the host (the same sizer)."""
    cupy(op, get_attr(op, NUMPY.kernel), get_attr(op, NUMPY.out), note, needs=needs,
         workspace=get_attr(op, NUMPY.workspace, None))


_shared("conv2d", "the shared im2col kernel against xp(): xp.matmul(out=) per chunk (cuBLAS); scratch in the "
        "planned workspace of the device arena, else xp.empty", _GEMM)
_shared("conv_transpose2d", "the shared col2im kernel against xp(): cols = W^T x (xp.matmul), strided adds",
        _GEMM)
_shared("conv2d_backward_weight", "the shared kernel against xp(): g @ cols^T per chunk, summed in place", _GEMM)
_shared("max_pool2d", "the shared separable kernel: a padded chunk, then column and row maxima "
        "(xp.maximum(out=)); scratch in the planned workspace")
_shared("max_pool2d_backward", "the shared kernel: first-maximum masks and adds per window offset")
_shared("max_pool2d_select", "the shared kernel: first-maximum masks and adds per window offset")
_shared("avg_pool2d", "the shared kernel: window-offset sums (long flat runs at stride 1, scratch in the "
        "planned workspace), divisors computed on the device")
_shared("avg_pool2d_backward", "the shared kernel: divided cotangent added per window offset")
_shared("random_uniform", "Philox on the host (NumPy's stream: bit-identical values), uploaded", ("copyto",))

# ---------------------------------------------------------------- erf

#: CUDA's erf in double for any real input, rounded to the result's dtype
ERF_SOURCE = ("T x", "O y", "y = (O)erf((double)x)", "fgraph_erf")
_erf_kernels: dict = {}
_lock = threading.Lock()


def _erf_kernel(m):
    """The generated kernel for array module ``m`` (None: ``m`` has no ElementwiseKernel)."""
    make = getattr(m, "ElementwiseKernel", None)
    if make is None:
        return None
    k = _erf_kernels.get(m)
    if k is None:
        with _lock:
            k = _erf_kernels.setdefault(m, make(*ERF_SOURCE, options=codegen.OPTIONS))
    return k


def _erf_dtype(x) -> np.dtype:
    return np.sin(np.zeros(1, x.dtype)).dtype  # the rule's: NumPy's float ufunc result dtype


def erf_out(x, *, out):
    """One launch on a GPU (in place too: element i is read before it is written)."""
    m = xp()
    k = _erf_kernel(m) if out.dtype in (np.float32, np.float64) else None
    if k is None:
        return get_attr("erf", NUMPY.out)(x, out=out)
    k(m.asarray(x), out)
    return out


def erf(x):
    m = xp()
    x = m.asarray(x)
    return erf_out(x, out=m.empty(x.shape, _erf_dtype(x)))


cupy("erf", erf, erf_out, "a generated ElementwiseKernel (CUDA's double erf; float16 results and host devices: "
     "the shared chunked kernel)")

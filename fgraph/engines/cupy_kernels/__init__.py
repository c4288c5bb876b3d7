"""CuPy kernels, registered with ``override("cupy", op, ...)`` (the ops'
``cupy_kernel`` / ``cupy_out_kernel`` attributes), one module per op family.

Kernels are written once against the array module where NumPy and CuPy
agree, and specialised where they differ.  Every op has one route, kept as
its ``cupy_route`` attribute with the audit facts (``cupy_note``,
``cupy_needs``, ``cupy_refuse``; ``support.COVERAGE`` is a read-only view
of them, ``support.table()`` lists it):

=============  =============================================================
route          ops
=============  =============================================================
dispatch       the NumPy kernel runs on CuPy arrays (NumPy's
               ``__array_ufunc__``/``__array_function__`` protocols hand the
               call to CuPy): all 85 ufuncs (out-forms too, but divmod/modf/
               frexp copy), clip, fix, real, imag, fma, adagrad,
               literal; reshape, transpose, broadcast_to, flip, concatenate;
               tril, triu, meshgrid; searchsorted; matmul, dot, vdot, inner,
               outer, tensordot, kron, trace, diagonal, cross, det, slogdet,
               inv, solve, eigh, eigvalsh, matrix_power, qr, norm, tensorinv,
               tensorsolve, lstsq; sort_complex; check (the verdict read on the host)
cupy           a kernel of its own, written against ``xp()``: fused and
               fused_reduce (generated CUDA, ``codegen``), constant, where,
               round, astype, complex; zeros, ones, full, arange (NumPy's fill recipe), eye,
               tri, indices, linspace/logspace/geomspace/linspace_step (NumPy
               on the host, uploaded); every reduction and scan (CuPy has no
               ``initial=``/``where=``; count_nonzero, average,
               cumulative_*); slice_axis, repeat; slice, advanced_index, take,
               take_along_axis, choose, select, unravel_index,
               ravel_multi_index, scatter_add (bounds checked: CuPy wraps
               out-of-range indices); einsum, matrix_transpose, vecdot, matvec,
               vecmat, cholesky, svd, pinv, matrix_rank, cond, vector_norm,
               multi_dot; sort, argsort, partition, argpartition, lexsort,
               median, percentile, quantile and their nan- forms; the nn
               ops (``nn``): conv2d, conv_transpose2d,
               conv2d_backward_weight, max_pool2d, max_pool2d_backward,
               max_pool2d_select, avg_pool2d, avg_pool2d_backward run the
               NumPy engine's kernels, which are written against ``xp()``
               (cuBLAS products, device scratch); random_uniform (Philox on
               the host, uploaded); erf (a generated ElementwiseKernel);
               fft (``cupy.fft``: cuFFT, to rounding); correlate (xp.correlate
               / xp.convolve); while_loop, scan, switch (the body compiled once
               with the CuPy kernels, run in a host loop; bodies are checked
               op by op when the graph is compiled)
unsupported    eig and eigvals where CuPy has no ``linalg.eig``; per node:
               where= on mean/var/std (and nan- forms), max/min where=
               without initial=, weighted quantiles, quantile methods CuPy
               lacks, average with weights shaped unlike the array
=============  =============================================================

A ``dispatch``/``cupy`` entry may name what the array module must have
(``needs``): compiling checks it against the installed CuPy, so a missing
function fails at compile time, naming the op.
"""
from .. import numpy_kernels  # noqa: F401  (the NumPy engine's fused and loop runtime, which these build on)
from . import (  # noqa: F401
    checks, control, creation, elementwise, fft, fused, indexing, linalg, movement, nn, reduction, signal, sorting,
    ufunc, writes)
from .support import COVERAGE, Support, check_graph, implied_routes, refusal, table

implied_routes()  # the element-wise ops without a route of their own (compiling adds those registered later)

__all__ = ["COVERAGE", "Support", "check_graph", "refusal", "table"]

"""Lowering fgraph ops to ``dask.array``: one function per op, registered as
the Dask engine's kernel (the op attribute ``dask_lowering``), one module
per op family (``base`` holds the shared machinery)::

    override("dask", "my_op", lambda ctx, node, *args: ...)
    override("dask", "other_op", Refused("why it cannot run there"))

A lowering gets the context (the chunking policy), the node (its params,
shape, dtype and the user's line) and its lowered inputs: dask arrays, except
weak Python scalars (literals), which stay Python scalars exactly as the
NumPy kernels receive them.  It returns a dask array of the node's shape
(the engine casts it to the node's dtype where dask promotes differently).

How the families lower:

* element-wise ops: ``elemwise`` of the NumPy ufunc (what ``da.sin`` etc. do)
  or of the op's NumPy kernel, block by block: values identical to NumPy's.
  An op with no lowering of its own that says ``elementwise=True`` lowers
  this way too.
* ``fused`` groups (the optimiser's): the NumPy fused kernel on each block,
  so a whole chain of ufuncs is one pass over cache-sized pieces; a
  ``fused_reduce`` group reduces each piece at once (a blockwise partial per
  block, the full-size value never stored), then a tree reduction over the
  partials.
* reductions: ``da.sum``, ``da.mean``, ``da.argmax``, ``da.cumsum``, ... (tree
  reductions: floating-point sums are reordered, so results agree with
  NumPy's to rounding).  What dask lacks (``where=``, ``initial=``,
  ``average``'s weights, order statistics) runs NumPy's own function on
  blocks whose reduced axes are whole.
* axis-local ops (sort, partition, linalg on stacks of matrices, norms,
  gathers with lazy indices): the NumPy kernel on each block, with the axes
  it needs whole and the others chunked (``tiled``).
* movement, basic indexing, products (matmul, tensordot, einsum, ...):
  dask.array's own functions.
* creation ops build their values chunk by chunk with NumPy's own formulas
  (arange, linspace, eye, ...), and ``random_uniform`` draws each block's
  run of the Philox stream, so a graph can describe arrays larger than
  memory, bit-identical to the NumPy engine's.
* convolutions and pooling (NCHW): the NumPy kernel per block of the batch.
* the rest (scatter_add, setitem, tensorinv, tensorsolve, the ufunc
  methods, conv2d_backward_weight): the NumPy kernel on the whole inputs,
  as one task.
* control flow (``control``): ``scan`` unrolled, ``switch`` lowers every
  branch; ``while_loop`` is ``Refused`` (its trip count depends on the data).

Task functions never hold nodes (nodes refuse to pickle) or Scalar/Const
params (they cannot be unpickled): :class:`Kernel` sends plain values and
rebuilds them on the worker, so graphs run on ``dask.distributed`` too.
"""
from . import (  # noqa: F401  (each registers its family's lowerings)
    checks, control, creation, elementwise, fft, fused, indexing, leaves, linalg, movement, nn, reduction, signal,
    sorting, ufunc, writes)
from .base import AUTO_BYTES, Context, Kernel, as_dask, plain, tiled, whole

__all__ = ["AUTO_BYTES", "Context", "Kernel", "as_dask", "plain", "tiled", "whole"]

"""The Dask engine's lowerings, by their old module name: they live in
:mod:`fgraph.engines.dask_kernels` (one module per op family, shared
machinery in ``dask_kernels.base``); this module re-exports what other
code and the tests use."""
from .dask_kernels.elementwise import elementwise  # noqa: F401
from .dask_kernels.base import (  # noqa: F401
    AUTO_BYTES, Context, Kernel, along_axis, as_dask, batched, broadcast, flat, gufunc, ndim_of, plain,
    reduce_whole, reshape, right_aligned, shape_of, tiled, whole)
from .dask_kernels.linalg import _chain_order  # noqa: F401

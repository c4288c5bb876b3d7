"""The ``check`` op on the Dask engine: block by block where the condition is
element-wise, else each block against the whole verdict."""
from ...registry import override
from .base import Kernel, ndim_of, tiled


def _check(ctx, node, value, ok):
    """Each block of the value checked against its own block of an
    element-wise condition, or against the whole of any other (a 0-d
    verdict for most checks)."""
    same = node.inputs[1].shape == node.inputs[0].shape
    maps = [tuple(range(ndim_of(value))), tuple(range(ndim_of(ok))) if same else (None,) * ndim_of(ok)]
    return tiled(Kernel.of(node), node.shape, node.dtype, [value, ok], maps)


override("dask", "check", _check)

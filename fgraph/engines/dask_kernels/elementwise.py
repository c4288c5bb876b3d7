"""Element-wise ops on the Dask engine: ``elemwise`` of the NumPy ufunc (what
``da.sin`` etc. do) or of the op's NumPy kernel, block by block: values
identical to NumPy's.  An op with no lowering of its own that says
``elementwise=True`` lowers this way too (the engine's fallback)."""
import dask.array as da
from dask.array.core import elemwise

from ...ops.elementwise import UFUNCS
from ...registry import override
from .base import Kernel, tiled


def elementwise(ctx, node, *args):
    """``elemwise`` (dask's ufunc machinery: broadcasting, block by block) of
    the NumPy ufunc itself, or of the op's kernel when it takes params."""
    u = UFUNCS.get(node.op)
    fn = u if u is not None and u.nout == 1 and not node.params else Kernel.of(node)
    if not any(isinstance(a, da.Array) for a in args):  # Python scalars only (weak: kept as they are)
        return tiled(fn, node.shape, node.dtype, args, [()] * len(args))
    out = elemwise(fn, *args, dtype=node.dtype)
    if out.shape != node.shape:  # inputs that broadcast to less than the node (cannot happen for ufuncs)
        out = da.broadcast_to(out, node.shape)
    return out


for _op in list(UFUNCS) + ["where", "clip", "round", "fix", "real", "imag", "complex", "astype"]:
    override("dask", _op, elementwise)

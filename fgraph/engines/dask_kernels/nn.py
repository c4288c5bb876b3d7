"""Random numbers and the neural-network ops (NCHW) on the Dask engine:
``random_uniform`` draws each block's run of the Philox stream
(bit-identical to the NumPy engine's); convolutions and pooling run the
NumPy kernel per block of the batch (``batched``)."""
import math

import dask.array as da
import numpy as np
from dask.array.core import normalize_chunks

from ...registry import override
from .base import batched, tiled, whole
from .elementwise import elementwise


class RandomBlock:
    """Rows ``a..b`` of ``random_uniform``: the NumPy kernel draws the whole
    array from ``Generator(Philox(key))`` in C order, so a block of whole
    rows is a run of that stream.  Philox is counter-based: ``advance`` jumps
    to the run's first 64-bit draw (4 per counter step); a float64 takes one
    draw, a float32 half of one (low half first)."""

    def __init__(self, rest: tuple, dtype):
        self.rest, self.row, self.dtype = tuple(rest), math.prod(rest), np.dtype(dtype)

    def __call__(self, rows, key):
        n = rows.shape[0]
        start = (int(rows[0]) if n else 0) * self.row
        half = self.dtype == np.float32
        first = start // 2 if half else start
        bits = np.random.Philox(key=int(key) & 0xFFFFFFFFFFFFFFFF)
        bits.advance(first // 4)
        if first % 4:
            bits.random_raw(first % 4)
        gen = np.random.Generator(bits)
        if half and start % 2:
            gen.random(1, dtype=self.dtype)  # the low half of the first draw belongs to the row before
        return gen.random(n * self.row, dtype=self.dtype).reshape((n,) + self.rest)


def _random_uniform(ctx, node, key):
    shape = node.shape
    if not shape:
        return whole(ctx, node, key)
    spec = {0: ctx.chunks_for(shape, node.dtype)[0]}
    spec.update({a: -1 for a in range(1, len(shape))})  # whole rows: runs of the C-order stream
    rows = da.arange(shape[0], chunks=(normalize_chunks(spec, shape, dtype=node.dtype)[0],), dtype=np.intp)
    return tiled(RandomBlock(shape[1:], node.dtype), shape, node.dtype, [rows, key], [(0,), ()])


override("dask", "random_uniform", _random_uniform)
override("dask", "erf", elementwise)
for _op, _batch in [("conv2d", (0,)), ("conv_transpose2d", (0,)), ("max_pool2d", (0,)), ("avg_pool2d", (0,)),
                    ("max_pool2d_backward", (0, 1, 2)), ("max_pool2d_select", (0, 1, 2)),
                    ("avg_pool2d_backward", (0,))]:
    override("dask", _op, batched(*_batch))
override("dask", "conv2d_backward_weight", whole)  # a sum over the batch: one task

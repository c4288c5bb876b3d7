"""Gradient rules of the movement ops, written with fgraph.numpy.

Every movement op is linear, so each rule applies the op's transpose to the
cotangent: views move it back (reshape, inverse transpose, flip), a
broadcast sums it down, a slice embeds it into zeros, a concatenate splits
it, and repeat adds each element's copies (a ``scatter_add``).  No
non-smooth points.
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from ...ops.indexing import scatter_add
from .. import defgrad, sum_to


def embed(g, axis: int, n: int, start: int, step: int):
    """The transpose of slicing: length ``n`` along ``axis``, zeros except
    ``g``'s entries at ``start, start + step, ...`` (forward ops only:
    flip, pad, reshape and slice_axis, so it differentiates again)."""
    m = g.shape[axis]
    if m == 0:
        start, step = 0, 1
    if step < 0:  # the same positions visited upwards, from the last one
        g = fnp.flip(g, axis)
        start, step = start + (m - 1) * step, -step
    if m <= 1:
        step = 1
    if step > 1:  # interleave step - 1 zeros after each entry: (m, 1) padded to (m, step), merged
        shape = g.shape
        g = fnp.reshape(g, shape[:axis] + (m, 1) + shape[axis + 1:])
        g = fnp.pad(g, [(0, step - 1) if k == axis + 1 else (0, 0) for k in range(g.ndim)])
        g = fnp.reshape(g, shape[:axis] + (m * step,) + shape[axis + 1:])
        if start + m * step > n:  # the zeros after the last entry overhang the end
            g = fnp.split(g, [(m - 1) * step + 1], axis=axis)[0]
    length = g.shape[axis]
    widths = [(start, n - start - length) if k == axis else (0, 0) for k in range(g.ndim)]
    return fnp.pad(g, widths) if n != length else g


@defgrad("reshape")
def _reshape(out, ins, g, shape):
    return fnp.reshape(g, ins[0].shape),


@defgrad("transpose")
def _transpose(out, ins, g, axes):
    return fnp.transpose(g, tuple(int(k) for k in np.argsort(axes))),


@defgrad("broadcast_to")
def _broadcast_to(out, ins, g, shape):
    return sum_to(g, ins[0].shape),


@defgrad("flip")
def _flip(out, ins, g, axes):
    return fnp.flip(g, axes),


@defgrad("slice_axis")
def _slice_axis(out, ins, g, axis, start, stop, step):
    return embed(g, axis, ins[0].shape[axis], start, step),


@defgrad("concatenate")
def _concatenate(out, ins, g, axis, dtype=None, casting="same_kind"):
    # each input's block of g (the core casts it back to the input's dtype)
    points = np.cumsum([x.shape[axis] for x in ins])[:-1].tolist()
    return tuple(fnp.split(g, points, axis=axis)) if len(ins) > 1 else (g,)


@defgrad("repeat")
def _repeat(out, ins, g, repeats, axis):
    # repeat(x) == take(x, r, axis) for r = [0]*repeats[0] + [1]*repeats[1] + ...: add the copies back
    (x,) = ins
    r = np.repeat(np.arange(x.shape[axis], dtype=np.intp), repeats)
    key = tuple("a" if k == axis else None for k in range(x.ndim))
    return scatter_add(g, [r], x.shape, key),

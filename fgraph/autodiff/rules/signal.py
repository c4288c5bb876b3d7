"""Gradient rule of the ``correlate`` op (numpy.correlate/convolve): the
gradient of the same sum written with other ops (``composite_correlate``),
so it is their rules' (take, multiply, sum) transposed."""
from __future__ import annotations

from ...ops.signal import composite_correlate
from .. import defgrad


@defgrad("correlate")
def _correlate(out, ins, g, kind, mode):
    from ..core import differentiable, gradients

    wanted = [x for x in ins if differentiable(x.dtype)]
    if not wanted:
        return None, None
    grads = iter(gradients(composite_correlate(kind, *ins, mode), wanted, seed=g))
    return tuple(next(grads) if differentiable(x.dtype) else None for x in ins)

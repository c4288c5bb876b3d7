"""Gradient rules of the write ops.

``setitem`` keeps x outside the region and the value inside it: x's
cotangent is g with the region zeroed (the same write, of zeros), the
value's is g read at the region (the core sums it down to the value's
shape where the value was broadcast).  Where repeated fancy indices write
one element several times, only the write NumPy keeps (the last) receives
the cotangent.  ``bitcast`` reinterprets bits: not differentiable.
"""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor, constant_node
from ...symbol import make_node
from .. import defgrad


def _region(g, idx, key, adv, front):
    node = g if key is None else make_node("slice", [g], (("key", key),))
    if adv is not None:
        node = make_node("advanced_index", [node] + list(idx), (("key", adv), ("front", front)))
    return node


@defgrad("setitem")
def _setitem(out, ins, g, key, adv, front):
    x, value, *idx = ins
    params = (("key", key), ("adv", adv), ("front", front))
    zeros = constant_node(np.zeros((), g.dtype))
    gx = make_node("setitem", [g.node, zeros] + [i.node for i in idx], params)
    region = _region(g.node, [i.node for i in idx], key, adv, front)
    if adv is not None and region.size:  # repeated indices: the last write is the one kept
        shape = region.shape
        ids = constant_node(np.arange(region.size, dtype=np.intp).reshape(shape))
        none = constant_node(np.full(x.shape, -1, np.intp))
        kept = make_node("setitem", [none, ids] + [i.node for i in idx], params)
        won = make_node("equal", [_region(kept, [i.node for i in idx], key, adv, front), ids])
        region = make_node("where", [won, region, constant_node(np.zeros((), g.dtype))])
    return (Tensor(gx, g.stack), Tensor(region, g.stack)) + (None,) * len(idx)


@defgrad("bitcast")
def _bitcast(out, ins, g, dtype):
    return None,

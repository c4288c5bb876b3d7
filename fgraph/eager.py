"""What makes lazy arrays keep NumPy's eager pace: which values are kept,
which are computed at once, and which a fetch computes.

A lazy array holds what its value is computed from (``symbol.hold``: the
known values below it), so a fetch starts there
(``fgraph.engines.incremental``).  Arrays under ``COMPUTE_NOW_ELEMENTS``
made from known ones are computed when made, as NumPy would.  Other
arrays not yet known are *pending*: the next fetch on their engine
computes them too, as NumPy would have by then, so a state updated every
step but read only through another array never piles up history.
"""
from __future__ import annotations

import gc
import math
import os
import weakref

from . import stack as _stack
from . import symbol as _symbol
from .symbol import Node, _set_handle, hold

#: a lazy array of at most this many elements whose inputs are all known is
#: computed when it is made (on the NumPy engine): NumPy takes about a
#: microsecond on such arrays, less than finding and running a step's
#: program costs, and a value fetched every step is then already there
COMPUTE_NOW_ELEMENTS = 1024
_LEAVES = frozenset(("constant", "literal"))


def settle(t, node: Node, claim: bool = False) -> None:
    """Point ``t`` at ``node`` (see ``symbol.hold``): it holds what node's
    value needs, and node is computed at once if it is small (see
    COMPUTE_NOW_ELEMENTS)."""
    # _open and _small written out: every lazy array made comes here (two calls were 0.1 us of t + 1)
    k = node._known
    if not node.concrete or node.op in _LEAVES or (k is not None and k() is not None):
        hold(t, node, claim)  # fed, a leaf, or known: nothing to compute now or later
        return
    small = t.stack.engine == "numpy" and math.prod(node.shape) <= COMPUTE_NOW_ELEMENTS
    known = _compute(node, _engine, COMPUTE_NOW_ELEMENTS) if small else None
    if known is not None and node._handle is None:
        # a node no array pointed at, computed now (every small array made from known ones): hold(), written
        # out (0.15 us of t + 1): t keeps its value and is its handle
        t._keep = known
        _set_handle(node, weakref.ref(t))
        return
    hold(t, node, claim)  # (holds ``known``)
    if known is None:
        # t's weak reference is node's handle now, unless another live array is: weakref.ref(t) would
        # find that same reference, but a call costs 0.05 us (as much as making it)
        r = node._handle
        _PENDING[id(t)] = r if r() is t else weakref.ref(t)
        if len(_PENDING) > _pending_limit:
            _prune_pending()
        if node.depth > 2 * _symbol.HISTORY_DEPTH and t.stack.engine == "numpy":
            _compute_deep(t, node)


def _compute_deep(t, node: Node) -> None:
    """Compute ``node`` now, as a fetch would: a loop that never fetches
    (its arrays large, so not computed when made) would otherwise pile up
    history without bound; the next node made on it is made on its value
    (``symbol.HISTORY_DEPTH``).  A failure is left to the fetch that needs
    the value, which raises it naming the user's line."""
    try:
        t.stack.evaluate([node])
    except Exception:
        pass


#: lazy arrays whose value is not known yet, by id (weakly: dead ones are
#: pruned as the table grows): a fetch computes them too, as NumPy would have
#: by then, so a state updated every step but read only through another
#: array (U in ``V += f(U)``) never piles up history
_PENDING: "dict[int, weakref.ref]" = {}
_pending_limit = 1024


def _prune_pending() -> None:
    global _pending_limit
    live = {k: r for k, r in _PENDING.items() if r() is not None}
    _PENDING.clear()
    _PENDING.update(live)
    _pending_limit = max(1024, 2 * len(live))


def pending_arrays(engine: str) -> list:
    """Take the live lazy arrays of ``engine`` whose values are not known:
    ``[(array, node)]``."""
    taken = []
    for k, r in list(_PENDING.items()):
        t = r()
        if t is None:
            del _PENDING[k]
        elif t.stack.engine == engine:
            del _PENDING[k]
            n = t.node
            if _open(n):
                taken.append((t, n))
    return taken


def small_value(node: Node, stack: _stack.Stack):
    """Node's value computed now if it is small and its inputs are known
    (a ``Known``), else None."""
    return _compute(node, _engine, COMPUTE_NOW_ELEMENTS) if _open(node) and _small(node, stack) else None


def _open(node: Node) -> bool:
    """Whether node's value is still to compute: no feed below, not a leaf, not known."""
    return node.concrete and node.op not in _LEAVES and (node._known is None or node._known() is None)


def _small(node: Node, stack: _stack.Stack) -> bool:
    """Whether node is computed when made (the NumPy engine, COMPUTE_NOW_ELEMENTS)."""
    return stack.engine == "numpy" and math.prod(node.shape) <= COMPUTE_NOW_ELEMENTS


def _bind() -> None:
    """Bind the engines' ``compute_now`` and ``tensor_now`` and the host
    engine, late (the engines sit above this layer; the engine object itself
    comes through the stack): ``_compute`` and ``made_now`` are then those
    functions themselves, called with no test or extra frame of ours."""
    global _compute, _engine, made_now
    from .engines.incremental import compute_now, tensor_now

    _compute, made_now, _engine = compute_now, tensor_now, host_engine()


def _first_compute(node: Node, engine, max_elements: int):
    """``_compute`` until its first call (see ``_bind``)."""
    _bind()
    return _compute(node, _engine, max_elements)


def _first_made(node: Node, stack: _stack.Stack):
    """``made_now`` until its first call (see ``_bind``)."""
    _bind()
    return made_now(node, stack)


#: compute_now(node, engine, max_elements), once bound
_compute = _first_compute
#: ``Tensor(node, stack)`` for a node an op's fast path just made, its value computed at once where settle
#: would, with fewer steps (``engines.incremental.tensor_now``, once bound: callers read ``eager.made_now``)
made_now = _first_made
_engine = None  # the host engine, once bound


host_engine = _stack.host_engine  # the NumPy engine: values computed when made, and constants' data, live there


def freeze_imports() -> None:
    """Move the objects alive now (the modules, functions and classes just
    imported) out of the garbage collector's sight (``gc.freeze``), unless
    ``FGRAPH_GC_FREEZE=0``.

    An eager loop makes nodes that live a while, so the collector's full
    passes come every few thousand of them, and each walked all 30,000
    objects of the imports (9 ms): a sixth of a grid search's time at
    16,384 elements.  They live as long as the process anyway; nothing
    collectable is among them at import (``gc.collect()`` there frees
    nothing).  What a program made before importing fgraph is frozen too:
    if it becomes cyclic garbage later, it is never freed.
    """
    if os.environ.get("FGRAPH_GC_FREEZE", "1") != "0":
        gc.freeze()

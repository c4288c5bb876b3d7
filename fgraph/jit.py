"""``fgraph.jit(fn)``: trace once per argument shapes/dtypes, then run compiled."""
from __future__ import annotations

import functools

import numpy as np

from .engines import compile
from .make import make
from .symbol import exact_key
from .tensor import Tensor
from .tree import flatten, unflatten


def _is_array(x) -> bool:
    return isinstance(x, (np.ndarray, np.generic, Tensor))


def jit(fn=None, *, engine: str = "numpy", optimise: bool = True):
    """Wrap ``fn`` (written with ``fgraph.numpy``) so that each call with
    NumPy arrays runs a compiled graph, traced once per shapes and dtypes
    (on the NumPy engine, once compiled whole, one C function:
    ``engines.native_executable``).

    Array arguments (NumPy arrays and scalars) become placeholders; anything
    else (Python numbers, strings, tuples of them) is static and part of the
    cache key.  Called with lazy arrays, it just calls ``fn`` (it composes,
    so ``grad`` and an outer trace see through it): the result is lazy, and
    fetching it computes only ``fn``'s own nodes, from the arguments' values
    (known, or computed once: their history is never run again), with the
    program cached and optimised for that step structure like a compiled
    call (``fgraph.engines.incremental``).
    """
    if fn is None:
        return functools.partial(jit, engine=engine, optimise=optimise)
    cache: dict = {}
    # NumPy arrays as the only (positional) arguments, the common call: their shapes and dtypes -> the
    # executable, found without flattening the arguments' tree (7 of a small call's 17 us)
    plain: dict = {}

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if not kwargs:
            try:
                exe = plain.get(tuple([(a.shape, a.dtype.str) if type(a) is np.ndarray else None for a in args]))
            except TypeError:  # an unhashable shape (a subclass's): the general path
                exe = None
            if exe is not None:
                return exe(*args)
        leaves, structure = flatten((args, kwargs), _is_array)
        if any(isinstance(x, Tensor) for x in leaves):
            return fn(*args, **kwargs)
        arrays = [np.asarray(x) if _is_array(x) else None for x in leaves]
        key = (structure, tuple((a.shape, a.dtype.str) if a is not None else ("static", _static_key(x))
                                for a, x in zip(arrays, leaves)))
        exe = cache.get(key)
        if exe is None:
            exe = cache[key] = _trace(fn, leaves, arrays, structure, engine, optimise)
            if not kwargs and all(type(a) is np.ndarray for a in args):
                plain[tuple([(a.shape, a.dtype.str) for a in args])] = exe
        return exe(*[a for a in arrays if a is not None])

    wrapped.cache = cache
    return wrapped


def _static_key(x):
    """A static argument's key: exact for scalars (0.0 and -0.0 trace apart)."""
    if isinstance(x, (float, complex)):
        return exact_key(x)
    try:
        hash(x)
        return (type(x), x)
    except TypeError:
        return (type(x), repr(x))


def _trace(fn, leaves, arrays, structure, engine, optimise):
    # (late for import cost: ``import fgraph.numpy`` leaves the graph and the optimiser for first use)
    from .graph import Graph
    from .optimiser import optimise as run_optimiser

    ns = make(engine)
    traced = []
    for i, (a, x) in enumerate(zip(arrays, leaves)):
        traced.append(ns.placeholder(a.shape, a.dtype, name=f"arg{i}") if a is not None else x)
    args, kwargs = unflatten(structure, traced)
    inputs = [t.node for t in traced if isinstance(t, Tensor)]  # before fn: a write moves an argument's handle
    g = Graph(fn(*args, **kwargs), inputs=inputs)
    passes = ns.__fgraph_stack__.passes  # the stack's optimiser pipeline (None: the default one)
    return compile(run_optimiser(g, passes) if optimise else g, engine=engine)

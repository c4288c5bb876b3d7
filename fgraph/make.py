"""``fgraph.make(engine, dtype)``: a NumPy-named namespace bound to a stack.

A stack (``fgraph.stack.Stack``) is a value composed from the layers'
objects: the engine object (``fgraph.engines``), a default dtype, an
optimiser pipeline, and the engine's options.  ``make`` composes the usual
one from an engine's name; a different composition is built the same way,
by hand, and bound with :func:`bind`::

    from fgraph.stack import Stack
    from fgraph.make import bind
    from fgraph.optimiser import cse, fold_constants

    engine = MyEngine()                          # any object with evaluate(nodes, **options) and compile
    st = Stack("mine", "float32", backend=engine, passes=(cse, fold_constants))
    mnp = bind(st)                               # NumPy's names, building for st
    (mnp.ones(3) * 2).sum()                      # evaluates through engine.evaluate

(``Stack(name, ..., backend=f)`` also takes a function of no arguments that
makes the engine on first use; ``passes`` is the pipeline ``fgraph.jit``
optimises with, None for the optimiser's default.)
"""
from __future__ import annotations

import functools
import types

from . import numpy as fnp
from . import stack as _stack
from .engines import get_engine


def make(engine: str = "numpy", dtype=None, **options) -> types.ModuleType:
    """A namespace with NumPy's names whose arrays evaluate on ``engine`` and
    whose creation functions default to ``dtype`` (Owl's ``Make(Device)(Number)``).

    ``make()`` with no arguments is ``fgraph.numpy`` itself.  ``options``
    are the engine's evaluation options, and ``passes=``: the optimiser
    pipeline (see this module's docstring to compose a stack by hand).
    """
    if engine == "numpy" and dtype is None and not options:
        return fnp
    backend = get_engine(engine)  # (fails early on an unknown engine)
    return bind(_stack.Stack(engine, dtype, backend=backend, **options))


def bind(st: _stack.Stack) -> types.ModuleType:
    """A namespace with NumPy's names (``fgraph.numpy``'s) building for the stack ``st``."""
    engine = st.engine
    mod = types.ModuleType(f"fgraph.numpy[{engine}, {st.float_dtype}]", fnp.__doc__)
    for name in fnp.__all__:
        obj = getattr(fnp, name)
        if isinstance(obj, types.FunctionType):
            obj = _bind(obj, st)
        elif hasattr(obj, "on_stack"):  # an object that builds nodes (np.r_, np.c_)
            obj = obj.on_stack(st)
        setattr(mod, name, obj)
    mod.__all__ = list(fnp.__all__)
    for sub in ("linalg", "fft", "emath"):  # sub-namespaces, bound the same way
        src = getattr(fnp, sub, None)
        if isinstance(src, types.ModuleType):
            setattr(mod, sub, _bound_module(src, f"{mod.__name__}.{sub}", st))
    # numpy.lib: stride_tricks bound; scimath is emath; the rest (NumPy's own names) as fgraph.numpy.lib finds them
    lib = _bound_module(fnp.lib, f"{mod.__name__}.lib", st)
    lib.stride_tricks = _bound_module(fnp.lib.stride_tricks, f"{mod.__name__}.lib.stride_tricks", st)
    lib.scimath = getattr(mod, "emath", fnp.lib.scimath)
    lib.__getattr__ = fnp.lib.__getattr__
    mod.lib = lib
    mod.__version__ = fnp.__version__  # NumPy's
    mod.__getattr__ = fnp.__getattr__  # NumPy's submodules (ma, polynomial...) and the "no lazy version" errors
    mod.__fgraph_stack__ = st  # not `stack`: that is numpy.stack
    st.namespace = mod
    return mod


def _bound_module(src: types.ModuleType, name: str, st) -> types.ModuleType:
    """A copy of the namespace module ``src`` whose functions build on ``st``."""
    bound = types.ModuleType(name, src.__doc__)
    for attr in getattr(src, "__all__", ()):
        obj = getattr(src, attr)
        setattr(bound, attr, _bind(obj, st) if isinstance(obj, types.FunctionType) else obj)
    bound.__all__ = list(getattr(src, "__all__", ()))
    return bound


def _bind(fn, st):
    @functools.wraps(fn)
    def bound(*args, **kwargs):
        token = _stack.activate(st)
        try:
            return fn(*args, **kwargs)
        finally:
            _stack.deactivate(token)
    return bound

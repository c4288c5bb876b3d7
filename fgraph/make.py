"""``fgraph.make(engine, dtype)``: a NumPy-named namespace bound to a stack."""
from __future__ import annotations

import functools
import types

from . import stack as _stack


def make(engine: str = "numpy", dtype=None, **options) -> types.ModuleType:
    """A namespace with NumPy's names whose arrays evaluate on ``engine`` and
    whose creation functions default to ``dtype`` (Owl's ``Make(Device)(Number)``).

    ``make()`` with no arguments is ``fgraph.numpy`` itself.
    """
    from . import numpy as fnp
    from .engines import get_engine

    if engine == "numpy" and dtype is None and not options:
        return fnp
    get_engine(engine)  # fail early on an unknown engine
    st = _stack.Stack(engine, dtype, **options)
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

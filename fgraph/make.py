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
    for sub in ("linalg", "fft"):  # sub-namespaces, bound the same way
        src = getattr(fnp, sub, None)
        if isinstance(src, types.ModuleType):
            bound = types.ModuleType(f"{mod.__name__}.{sub}", src.__doc__)
            for name in getattr(src, "__all__", ()):
                obj = getattr(src, name)
                setattr(bound, name, _bind(obj, st) if isinstance(obj, types.FunctionType) else obj)
            bound.__all__ = list(getattr(src, "__all__", ()))
            setattr(mod, sub, bound)
    mod.__fgraph_stack__ = st  # not `stack`: that is numpy.stack
    st.namespace = mod
    return mod


def _bind(fn, st):
    @functools.wraps(fn)
    def bound(*args, **kwargs):
        token = _stack.activate(st)
        try:
            return fn(*args, **kwargs)
        finally:
            _stack.deactivate(token)
    return bound

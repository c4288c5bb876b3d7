"""The Engine layer: compile a graph for a device and run it.

Engines register by name; ``fgraph.compile(graph, engine="numpy")`` picks one.
"""
from __future__ import annotations

from typing import Callable

from ..errors import FgraphError

_ENGINES: dict[str, Callable] = {}
_INSTANCES: dict[str, object] = {}


def register_engine(name: str, factory: Callable) -> None:
    _ENGINES[name] = factory


def get_engine(name: str):
    eng = _INSTANCES.get(name)
    if eng is None:
        if name not in _ENGINES:
            raise FgraphError(f"unknown engine {name!r}; known: {sorted(_ENGINES)}")
        eng = _INSTANCES[name] = _ENGINES[name]()
    return eng


def compile(graph, engine: str = "numpy", **options):
    """Compile ``graph`` for ``engine``; returns an executable."""
    from ..graph import Graph  # (late for import cost: ``import fgraph`` imports this package, not the graph layer)

    if not isinstance(graph, Graph):
        graph = Graph(graph)
    return get_engine(engine).compile(graph, **options)


# The engines' modules are imported when an engine is first made (``import fgraph`` makes none).

def _numpy_engine():
    from .numpy_engine import NumpyEngine

    return NumpyEngine()


def _cupy_engine():
    from .cupy_engine import CupyEngine

    return CupyEngine()


def _dask_engine():
    from .dask_engine import DaskEngine

    return DaskEngine()


register_engine("numpy", _numpy_engine)
register_engine("cupy", _cupy_engine)
register_engine("dask", _dask_engine)

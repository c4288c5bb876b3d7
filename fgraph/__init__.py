"""fgraph: NumPy code as a lazy, immutable computation graph.

    import fgraph
    import fgraph.numpy as fnp     # drop-in for `import numpy as np`

See README.md and CONTRIBUTING.md (the layers, where an op lives).
"""
from importlib import import_module as _import_module

from .errors import AxisError, DTypeError, FgraphError, IndexingError, ShapeError
from . import numpy  # noqa: F401  (the default stack; registers every op)
from .engines import compile, get_engine, register_engine
from .jit import jit
from .make import make
from .tensor import Tensor
from .registry import attr_table, get_attr, register_op, registered_ops, set_attr

__version__ = "0.1.0"

__all__ = [
    "FgraphError", "ShapeError", "DTypeError", "IndexingError", "AxisError", "Graph", "Tensor", "compile", "jit",
    "make", "optimise", "optimize", "numpy", "register_op", "set_attr", "get_attr", "attr_table", "registered_ops",
    "get_engine", "register_engine", "grad", "value_and_grad", "vjp", "jvp", "optim", "updates", "nn", "describe",
    "while_loop", "fori_loop", "scan", "cond", "switch",
    "draw", "report", "save", "load",
]

#: names imported when first used (``import fgraph.numpy`` stays close to ``import numpy``): name -> (module,
#: attribute, or None for the module itself).  ``jit`` and ``make`` stay eager: they are also the names of
#: submodules, and a later import of the submodule would put the module where the function is.
_LAZY = {
    "Graph": ("fgraph.graph", "Graph"),
    "grad": ("fgraph.autodiff", "grad"),
    "value_and_grad": ("fgraph.autodiff", "value_and_grad"),
    "vjp": ("fgraph.autodiff", "vjp"),
    "jvp": ("fgraph.autodiff", "jvp"),
    "optimise": ("fgraph.optimiser", "optimise"),
    "optimize": ("fgraph.optimiser", "optimize"),
    "optim": ("fgraph.updates", None),  # the name training code knows (torch.optim)
    "updates": ("fgraph.updates", None),
    "nn": ("fgraph.nn", None),
    "onnx": ("fgraph.onnx", None),
    "autodiff": ("fgraph.autodiff", None),
    "optimiser": ("fgraph.optimiser", None),
    "graph": ("fgraph.graph", None),
    "save": ("fgraph.serialize", "save"),
    "load": ("fgraph.serialize", "load"),
    "while_loop": ("fgraph.control", "while_loop"),
    "fori_loop": ("fgraph.control", "fori_loop"),
    "scan": ("fgraph.control", "scan"),
    "cond": ("fgraph.control", "cond"),
    "switch": ("fgraph.control", "switch"),
    "draw": ("fgraph.show.draw", "draw"),
    "report": ("fgraph.show.report", "report"),
    "show": ("fgraph.show", None),
}


def describe(t, max_lines: int | None = None, source: bool = False) -> str:
    """A lazy array's one-line description without evaluating it (``print(t)``
    shows its values); for an ``fgraph.Graph`` or a compiled executable, its
    listing, one line a node (``fgraph.show.listing``: ``max_lines`` elides
    the middle of a long one, ``source`` adds the user's line of each node)."""
    if isinstance(t, Tensor):
        return t.describe()
    # (late for import cost: the listing loads fgraph.graph, which ``import fgraph.numpy`` leaves for first use)
    from .show.listing import describe as listing

    return listing(t, max_lines=max_lines, source=source)


def __getattr__(name):
    spec = _LAZY.get(name)
    if spec is None:
        raise AttributeError(f"module 'fgraph' has no attribute {name!r}")
    module, attr = spec
    value = _import_module(module)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value  # (a submodule's import already bound a module name here)
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

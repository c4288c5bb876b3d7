"""fgraph: NumPy code as a lazy, immutable computation graph.

    import fgraph
    import fgraph.numpy as fnp     # drop-in for `import numpy as np`

See README.md and DESIGN.md.
"""
from .errors import AxisError, DTypeError, FgraphError, IndexingError, ShapeError
from . import numpy  # noqa: F401  (the default stack; registers every op)
from .engines import compile, get_engine, register_engine
from .autodiff import grad, jvp, value_and_grad, vjp
from . import optim  # noqa: E402
from . import nn  # noqa: E402,F401  (fgraph.nn: neural-network layers)
from .graph import Graph
from .jit import jit
from .make import make
from .operator import Tensor, describe
from .optimiser import optimise, optimize
from .types import attr_table, get_attr, register_op, registered_ops, set_attr

__version__ = "0.1.0"

__all__ = [
    "FgraphError", "ShapeError", "DTypeError", "IndexingError", "AxisError", "Graph", "Tensor", "compile", "jit",
    "make", "optimise", "optimize", "numpy", "register_op", "set_attr", "get_attr", "attr_table", "registered_ops",
    "get_engine", "register_engine", "grad", "value_and_grad", "vjp", "jvp", "optim", "nn", "describe",
]

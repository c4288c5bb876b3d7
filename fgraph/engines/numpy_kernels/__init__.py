"""The NumPy engine's own runtime kernels.

Every op's reference NumPy kernel is declared with the op (its OpDef in
``fgraph/ops/``).  What lives here is the engine's runtime for what only it
runs: the optimiser's fused groups (``fused``: strategies measured per
shape, native C in ``native/``, planned scratch in ``scratch``), and loop
and branch bodies compiled once (``control``).  Importing this package
registers them with ``override("numpy", ...)``."""
from . import control, fused  # noqa: F401

"""The write ops on the Dask engine: NumPy's kernel on the whole inputs, as
one task (a write may land anywhere in the result)."""
from ...registry import override
from .base import whole

for _op in ("setitem", "bitcast"):
    override("dask", _op, whole)

"""The ufunc-method ops (``fgraph/ops/ufunc.py``) on the Dask engine: NumPy's
own method on the whole inputs, as one task."""
from ...registry import override
from .base import whole

for _op in ("ufunc_reduce", "ufunc_accumulate", "ufunc_reduceat", "ufunc_at"):
    override("dask", _op, whole)

"""The ufunc-method ops (``fgraph/ops/ufunc.py``) on the CuPy engine: NumPy's
own method on host copies of the inputs, the result uploaded.

CuPy's ufuncs have ``reduce``/``accumulate``/``reduceat``/``at`` for a few
ufuncs only (and without ``initial=``/``where=``); these ops exist for the
cases fgraph's own reductions and scans (which do run on the device) do not
cover: non-commutative ufuncs (subtract, divide, power...), ``out=`` dtypes,
``reduceat`` and ``at``.  The round trip keeps NumPy's values bit for bit
(``at`` included: CUDA would give no order among repeated indices)."""
from .creation import _on_host
from .support import cupy

for _op in ("ufunc_reduce", "ufunc_accumulate", "ufunc_reduceat", "ufunc_at"):
    cupy(_op, _on_host(_op), None, "NumPy's ufunc method on the host (device -> host -> device): NumPy's values")

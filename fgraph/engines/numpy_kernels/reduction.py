"""NumPy kernels for the reductions and scans: NumPy's own functions, called
with the node's params, so results are bit-identical to NumPy's."""
from ...ops.reduction import SPEC, call
from ...types import set_attr


def _kernel(op: str):
    def kernel(*arrays, **params):
        return call(op, arrays, params)
    kernel.__name__ = f"numpy_{op}"
    return kernel


for _op in SPEC:
    set_attr(_op, "numpy_kernel", _kernel(_op))

"""NumPy kernels for the element-wise ops: the ufuncs themselves."""
import numpy as np

from ...ops.elementwise import UFUNCS
from ...types import set_attr

for _name, _u in UFUNCS.items():
    if _u.nout == 1:
        set_attr(_name, "numpy_kernel", _u)
    else:
        set_attr(_name, "numpy_kernel", (lambda u: lambda *xs, output, dtype=None: u(*xs, dtype=dtype)[output])(_u))


def _astype(x, dtype, casting="unsafe"):
    return np.asarray(x).astype(dtype, casting=casting)


set_attr("where", "numpy_kernel", np.where)
set_attr("clip", "numpy_kernel", np.clip)
set_attr("round", "numpy_kernel", np.round)
set_attr("fix", "numpy_kernel", np.fix)
set_attr("real", "numpy_kernel", np.real)
set_attr("imag", "numpy_kernel", np.imag)
set_attr("astype", "numpy_kernel", _astype)

"""NumPy kernels for the element-wise ops: the ufuncs themselves.

Each op also has an out-form (``numpy_out_kernel``) that writes into a
buffer the engine gives it; fused kernels use the same out-forms."""
import numpy as np

from ...ops.elementwise import UFUNCS
from ...types import set_attr


def _astype(x, dtype, casting="unsafe"):
    return np.asarray(x).astype(dtype, casting=casting)


def _where(cond, x, y, out):
    np.copyto(out, y, casting="unsafe")
    np.copyto(out, x, casting="unsafe", where=np.broadcast_to(cond, out.shape))
    return out


def _copy_into(fn):
    def run(*args, out, **params):
        np.copyto(out, fn(*args, **params), casting="unsafe")
        return out
    return run


def _astype_into(a, out, dtype=None, casting="unsafe"):
    np.copyto(out, a, casting="unsafe")
    return out


#: out-forms of the element-wise ops that are not ufuncs
_NON_UFUNC = {
    "where": _where,
    "clip": lambda a, lo, hi, out: np.clip(a, lo, hi, out=out),
    "round": lambda a, out, decimals=0: np.round(a, decimals, out=out),
    "fix": lambda a, out: np.fix(a, out=out),
    "astype": _astype_into,
    "real": _copy_into(np.real),  # a view: the copy is the only write
    "imag": _copy_into(np.imag),
}


def _multi_output(u):
    def run(*xs, out, output, dtype=None):
        outs = tuple(out if j == output else None for j in range(u.nout))
        return u(*xs, out=outs, dtype=dtype)[output]
    return run


def out_form(op: str, params: dict | None = None):
    """``f(*args, out=buffer, **params)`` for element-wise op ``op``."""
    u = UFUNCS.get(op)
    if u is not None:
        return u if u.nout == 1 else _multi_output(u)
    return _NON_UFUNC[op]


for _name, _u in UFUNCS.items():
    if _u.nout == 1:
        set_attr(_name, "numpy_kernel", _u)
    else:
        set_attr(_name, "numpy_kernel", (lambda u: lambda *xs, output, dtype=None: u(*xs, dtype=dtype)[output])(_u))
    set_attr(_name, "numpy_out_kernel", out_form(_name))

for _name, _fn in [("where", np.where), ("clip", np.clip), ("round", np.round), ("fix", np.fix),
                   ("real", np.real), ("imag", np.imag), ("astype", _astype)]:
    set_attr(_name, "numpy_kernel", _fn)
    set_attr(_name, "numpy_out_kernel", _NON_UFUNC[_name])

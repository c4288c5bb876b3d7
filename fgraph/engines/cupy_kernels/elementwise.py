"""Element-wise ops and leaves on the CuPy engine.

Ufuncs dispatch: ``np.sin(cupy_array)`` is ``cupy.sin`` (CuPy's
``__array_ufunc__`` looks the ufunc up by name), out-forms included; the
compile-time check asks for ``cupy.<name>`` so an older CuPy fails early.
Multi-output ufuncs (divmod, modf, frexp) compute and copy: CuPy's
``out=(buffer, None)`` is not NumPy's.  Inside fused groups these ops are
compiled to CUDA instead (``codegen``).
"""
import numpy as np

from ...ops.elementwise import UFUNCS
from ...ops.elementwise import _astype_into, _complex_into
from .support import cupy, dispatch, xp


def _astype(x, dtype, casting="unsafe"):
    # np.asarray would refuse a CuPy array (no implicit device-to-host copy)
    return xp().asarray(x).astype(dtype)


def _where_out(cond, x, y, out):
    m = xp()
    c = m.asarray(cond)
    m.copyto(out, y, casting="unsafe")
    m.copyto(out, x, casting="unsafe", where=c if c.dtype == np.bool_ else c.astype(bool))
    return out


def _where(cond, x, y):
    # NumPy's kernel allocates its result on the host (np.empty): CuPy refuses to copy into it
    shape = np.broadcast_shapes(*(getattr(v, "shape", ()) for v in (cond, x, y)))
    dtype = np.result_type(*(v.dtype if hasattr(v, "dtype") else v for v in (x, y)))  # Python scalars: weak
    return _where_out(cond, x, y, xp().empty(shape, dtype))


def _round(a, decimals=0):
    m = xp()
    return m.around(m.asarray(a), decimals)


def _round_out(a, out, decimals=0):
    m = xp()
    return m.around(m.asarray(a), decimals, out=out)


def _complex(re, im, dtype):
    # the parts copied into views of a device array (NumPy's kernel allocates on the host)
    shape = np.broadcast_shapes(*(getattr(v, "shape", ()) for v in (re, im)))
    return _complex_into(re, im, xp().empty(shape, dtype))


def _constant(*, value):
    # the engines upload constants once (compile / evaluate); this is only a fallback
    return xp().asarray(value.array)


for _name, _u in UFUNCS.items():
    dispatch(_name, "NumPy's ufunc, dispatched to CuPy's" + ("" if _u.nout == 1 else "; out: compute + copy"),
             needs=(_name,), out=_u.nout == 1, wrap=False)

cupy("where", _where, _where_out, "xp.copyto(out, y); xp.copyto(out, x, where=cond) into xp.empty (NumPy's "
     "kernel allocates on the host, and its bit-select path tests for NumPy arrays)")
dispatch("clip", needs=("clip",))
dispatch("fix", needs=("fix",))
dispatch("real", needs=("real",))
dispatch("imag", needs=("imag",))
cupy("complex", _complex, _complex_into, "copyto into the real and imag views of xp.empty (dispatches)")
cupy("round", _round, _round_out, "xp.around (np.round's dispatch target differs between CuPy versions)",
     needs=("around",))
cupy("astype", _astype, _astype_into, "np.asarray(x).astype refuses device arrays: xp.asarray(x).astype; "
     "out: copyto (dispatches)")
dispatch("fma", "np.add(np.multiply(a, b), c); out: compute + copy", out=False)
dispatch("adagrad", "NumPy's ufunc chain; out: compute + copy", out=False)
cupy("constant", _constant, None, "the engine uploads each constant once (compile, evaluate); this per-run "
     "upload is a fallback")
dispatch("literal", "a Python scalar: CuPy takes it as NumPy does (weak, NEP 50)")

"""The bridge to NumPy's own inner loops: the strided loop NumPy would run
for a ufunc and its dtypes, as C function pointers a generated kernel calls
(through ``ufunc._get_strided_loop`` and its ``ufunc_call_info`` capsule)."""
from __future__ import annotations

import ctypes

import numpy as np

class _CallInfo(ctypes.Structure):
    # NumPy's ``ufunc_call_info`` (numpy/_core/src/umath/ufunc_object.c):
    # what ufunc._get_strided_loop fills in
    _fields_ = [("loop", ctypes.c_void_p), ("context", ctypes.c_void_p), ("auxdata", ctypes.c_void_p),
                ("requires_pyapi", ctypes.c_ubyte), ("no_floatingpoint_errors", ctypes.c_ubyte)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_loops: dict = {}


def numpy_loop(ufunc: np.ufunc, dtypes: tuple):
    """(loop, context, auxdata, keep-alive) of NumPy's strided inner loop
    for ``dtypes`` (inputs then output), or None when it needs the GIL.
    The capsule (keep-alive) owns the context and auxdata."""
    key = (ufunc, dtypes)
    if key not in _loops:
        got = None
        try:
            resolved, info = ufunc._resolve_dtypes_and_context(dtypes)
            if tuple(resolved) == dtypes:
                ufunc._get_strided_loop(info)
                ci = _CallInfo.from_address(_capsule_pointer(info, b"numpy_1.24_ufunc_call_info"))
                if ci.loop and not ci.requires_pyapi:
                    got = (ci.loop, ci.context, ci.auxdata or 0, info)  # auxdata: read-only for ufunc loops
        except Exception:  # an older NumPy, or no such loop
            got = None
        _loops[key] = got
    return _loops[key]

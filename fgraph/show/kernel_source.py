"""The code the NumPy engine generates for a fused node, for reading.

A ``fused`` group whose expression has a native form runs as generated C
(``numpy_kernels.native``); every group also has its NumPy form, a chain of
ufunc calls into reused buffers (``numpy_kernels.fused.Compiled``), which a
``fused_reduce`` runs block by block before reducing.  Nothing is compiled
or run here: the sources are generated as the engine would, and returned.
"""
from __future__ import annotations

import numpy as np

from ..shape import c_strides


def fused_source(node) -> dict:
    """``{"numpy": ufunc chain source, "c": C source or None, "c_note": why
    there is no C, or which inputs' layouts it was generated for}``."""
    from ..engines.numpy_kernels import fused, native

    expr = node.param("expr")
    got = {"numpy": fused.Compiled(expr, len(node.inputs)).source, "c": None, "c_note": ""}
    if node.op == "fused_reduce":
        got["numpy"] += (f"\n# then, per block of rows: np.{node.param('reduce')}(value, "
                         f"axis={node.param('axis')}, keepdims={node.param('keepdims')})")
        got["c_note"] = "a fused reduction runs the NumPy chain block by block (native code did not pay there)"
        return got
    if not native.enabled():
        got["c_note"] = "native kernels are disabled (FGRAPH_NATIVE=0)"
        return got
    operands = native._operands([_stand_in(i) for i in node.inputs], node.param("shape"))
    if isinstance(operands, str):
        got["c_note"] = f"no native form for these inputs ({operands})"
        return got
    try:
        got["c"] = native.Plan(expr, operands[1]).source
    except native.Unsupported as e:
        got["c_note"] = f"no native form: {e}"
        return got
    built = "compiled when first run" if native.find_compiler() else "no C compiler found here: it runs as NumPy"
    got["c_note"] = f"generated for the inputs as planned (C-contiguous buffers); {built}"
    return got


def _stand_in(n):
    """An input as the kernel would see it: a weak literal's Python value, or
    an array of the node's shape, dtype and C layout.  Only shapes and
    strides are read, never data: the array views one element's memory
    with C strides (``as_strided`` does not check, nothing reads it)."""
    if n.op == "literal":
        return n.param("value").value
    base = np.zeros(1, n.dtype)
    return np.lib.stride_tricks.as_strided(base, shape=n.shape, strides=c_strides(n.shape, n.dtype.itemsize),
                                           writeable=False)

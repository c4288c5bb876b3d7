"""Fused groups on the CuPy engine: one generated kernel per group.

``fused`` runs a ``cupy.ElementwiseKernel`` and ``fused_reduce`` a
``cupy.ReductionKernel`` built from ``codegen``'s source.  Kernels are
cached by their source (equal expressions share one, across graphs; CuPy
caches the compiled binary on disk too) and found again per call by the
expression's identity and the inputs' dtypes / literal values.  Groups the
generator declines (complex, float16) run their ops one by one with CuPy's
ufuncs, through the NumPy engine's generated chain with device buffers.
On the NumPy device the NumPy engine's fused kernels run.
"""
from __future__ import annotations

import threading

import numpy as np

from ...ops.fused import reduce_result
from ...registry import override
from ..numpy_kernels import fused as numpy_fused
from . import codegen
from .support import COVERAGE, Support, xp

_SCALARS = (bool, int, float, complex)
_KERNELS: dict = {}  # generated source -> cupy kernel
_PLANS: dict = {}  # (id(expr), what, input signature) -> (expr, kernel or None)
_MAX_PLANS = 4096
_lock = threading.Lock()


def _signature(ins) -> tuple:
    # repr tells 0.0 from -0.0 (equal, and hashed alike, as Python floats)
    return tuple((type(x), repr(x)) if type(x) in _SCALARS else x.dtype.str for x in ins)


def _kernel(m, src):
    k = _KERNELS.get(src)
    if k is None:
        if isinstance(src, codegen.ElementwiseSource):
            k = m.ElementwiseKernel(src.in_params, src.out_params, src.operation, src.name,
                                    preamble=src.preamble, options=codegen.OPTIONS)
        else:
            k = m.ReductionKernel(src.in_params, src.out_params, src.map_expr, src.reduce_expr,
                                  src.post_map_expr, src.identity, src.name, reduce_type=src.reduce_type,
                                  preamble=src.preamble, options=codegen.OPTIONS)
        with _lock:
            k = _KERNELS.setdefault(src, k)
    return k


def _plan(m, expr, ins, what: tuple, make):
    """The cached kernel for ``expr`` on inputs like ``ins`` (None: no generated kernel)."""
    key = (id(expr), what, _signature(ins))
    hit = _PLANS.get(key)
    if hit is not None and hit[0] is expr:  # the entry keeps expr alive: its id is not reused
        return hit[1]
    try:
        kernel = _kernel(m, make([codegen.input_of(x) for x in ins]))
    except codegen.Unsupported:
        kernel = None
    with _lock:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = (expr, kernel)
    return kernel


def _on_device(m, ins) -> tuple:
    return tuple(x if type(x) in _SCALARS or isinstance(x, m.ndarray) else m.asarray(x) for x in ins)


def _arrays(m, ins, shape) -> list:
    """The array inputs in order; one broadcast to ``shape`` if together they are smaller."""
    arrays = [x for x in ins if type(x) not in _SCALARS]
    if arrays and np.broadcast_shapes(*(a.shape for a in arrays)) != tuple(shape):
        arrays[0] = m.broadcast_to(arrays[0], shape)
    return arrays


def _chain(m, expr, ins, out):
    """The ops one by one (CuPy's ufuncs through NumPy's dispatch), into device temporaries."""
    c = numpy_fused.compiled(expr, len(ins))
    bufs = [m.empty(out.shape, dt) for dt in c.buffer_dtypes]
    return c.chunk(ins, out, bufs)


def run_fused(*ins, expr, shape, sources=(), out=None):
    """A fused element-wise group: one generated ElementwiseKernel launch."""
    m = xp()
    if m is np:
        return numpy_fused.run_fused(*ins, expr=expr, shape=shape, out=out)
    ins = _on_device(m, ins)
    if out is None:
        out = m.empty(shape, np.dtype(expr[-1][3]))
    kernel = _plan(m, expr, ins, ("elementwise",), lambda inputs: codegen.elementwise(expr, inputs))
    if kernel is None:
        return _chain(m, expr, ins, out)
    kernel(*_arrays(m, ins, shape), out)
    return out


def run_fused_reduce(*ins, expr, shape, reduce, axis, keepdims, dtype=None, sources=(), out=None):
    """A fused group reduced over trailing axes: one generated ReductionKernel launch."""
    m = xp()
    if m is np:
        return numpy_fused.run_fused_reduce(*ins, expr=expr, shape=shape, reduce=reduce, axis=axis,
                                            keepdims=keepdims, dtype=dtype, out=out)
    ins = _on_device(m, ins)
    out_shape, out_dtype = reduce_result(expr, shape, reduce, axis, keepdims, dtype)
    if out is None:
        out = m.empty(out_shape, out_dtype)
    count = 1
    for a in axis:
        count *= shape[a]
    arrays = _arrays(m, ins, shape)
    kernel = None
    if arrays:
        kernel = _plan(m, expr, ins, ("reduce", reduce, str(out_dtype), count),
                       lambda inputs: codegen.reduction(expr, inputs, reduce, out_dtype, count))
    if kernel is None:  # the element-wise value, then CuPy's own reduction
        value = run_fused(*ins, expr=expr, shape=shape)
        kw = {} if dtype is None else {"dtype": dtype}
        m.copyto(out, getattr(m, reduce)(value, axis=axis, keepdims=keepdims, **kw), casting="unsafe")
        return out
    kernel(*arrays, out=out, axis=axis, keepdims=keepdims)
    return out


def generated(node) -> bool:
    """Whether a fused/fused_reduce node gets a generated kernel (its input
    dtypes and literal values are known from the graph)."""
    ins = [codegen.input_of_node(i) for i in node.inputs]
    try:
        if node.op == "fused_reduce":
            p = node.kwargs
            count = 1
            for a in p["axis"]:
                count *= p["shape"][a]
            codegen.reduction(p["expr"], ins, p["reduce"], node.dtype, count)
        else:
            codegen.function(node.param("expr"), ins)
        return True
    except codegen.Unsupported:
        return False


for _op, _run, _note in [
        ("fused", run_fused, "a generated cupy.ElementwiseKernel (complex/float16 groups: CuPy's ufuncs, op by op)"),
        ("fused_reduce", run_fused_reduce, "a generated cupy.ReductionKernel (else: the group, then xp.<reduce>)")]:
    override("cupy", _op, _run, out=_run)
    COVERAGE[_op] = Support("cupy", _note)

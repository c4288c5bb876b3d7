"""CUDA source for fused element-wise groups: ``cupy.ElementwiseKernel`` and
``cupy.ReductionKernel`` arguments generated from a fused node's ``expr``.

A fused expression (see ``fgraph.ops.fused``) becomes one device function::

    __device__ __forceinline__ float fg_fused_1a2b3c(const float x0, const double x1) {
      const double t0 = (((double)x0) * x1);
      const float t1 = ((float)tanh(t0));
      return t1;
    }

called by the kernel's operation (``y = fg_fused_1a2b3c(x0, x1)``) or used
as a reduction's map expression.  Typing follows NumPy exactly: every
instruction's operands are cast to the loop dtypes NumPy's ufunc resolution
picks (NEP 50: weak Python literals take the array's type), and the result
is the instruction's dtype.  float32 loops call the ``f`` functions (sinf);
Python literals are inlined as typed constants (bit patterns for inf/nan);
integer division, remainder, shifts and powers follow NumPy's definitions
(helpers in ``PRELUDE``); broadcasting is left to CuPy.  The source uses
only C++ and a few CUDA intrinsics (``__longlong_as_double``, ``__popcll``),
so the tests compile it with g++ (with shims for those) and run it on the
CPU against NumPy.

Complex and float16 groups raise ``Unsupported``: the engine then runs the
group's ops one by one with CuPy's own ufuncs.

Each op's C comes from :mod:`fgraph.engines.c_exprs` (the table shared with
the native CPU generator, rendered for its CUDA target; its helpers are
``PRELUDE``).  ``OPS`` is that table (op -> entry, the ops' own ``c_expr``
attributes included); every op whose ``fusable`` attribute is set is in it,
or is an expansion (fma, adagrad) or a fused group itself.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from ...ops.elementwise import UFUNCS
from ...shape import ufunc_dtypes
from .. import c_exprs
from ..c_exprs import CUDA


class Unsupported(Exception):
    """The expression has no generated kernel (the engine falls back to per-op CuPy calls)."""


#: NumPy dtype -> the C type CuPy uses for it
CTYPES = CUDA.CTYPES
F32, F64, BOOL = c_exprs.F32, c_exprs.F64, c_exprs.BOOL

#: nvrtc options for every generated kernel: a*b+c rounds twice, as in NumPy
OPTIONS = ("--fmad=false",)


# ---------------------------------------------------------------- inputs

@dataclass(frozen=True)
class Input:
    """One input of a fused group: an ``array`` (a kernel parameter) or a
    ``const`` (a literal inlined into the source; ``weak`` under NEP 50)."""

    kind: str
    dtype: np.dtype
    value: object = None
    weak: bool = False

    @property
    def shape(self):  # what ufunc_dtypes' promotion looks at besides dtype and weak
        return ()


def input_of(x) -> Input:
    """The Input for a runtime argument of a fused kernel."""
    t = type(x)
    if t is bool or t is int or t is float:
        return Input("const", np.asarray(x).dtype if t is not int else np.dtype(np.int64), x, True)
    if t is complex:
        raise Unsupported("complex literal")
    return Input("array", np.dtype(x.dtype))


def input_of_node(node) -> Input:
    """The Input for a fused node's input node (its literal values are known)."""
    if node.op == "literal":
        return Input("const", node.dtype, node.param("value").value, bool(node.weak))
    return Input("array", node.dtype)


class _Aval:
    """An abstract operand for NumPy's loop resolution."""

    shape = ()

    def __init__(self, dtype, weak=False):
        self.dtype, self.weak = np.dtype(dtype), weak


# ---------------------------------------------------------------- C fragments (the CUDA target of c_exprs)

def ctype(dt) -> str:
    try:
        return CUDA.ctype(dt)
    except c_exprs.NoForm as e:
        raise Unsupported(str(e)) from None


def cast(expr: str, src, dst) -> str:
    """``expr`` (of dtype ``src``) converted as NumPy's casting converts."""
    return CUDA.cast(expr, src, dst)


def literal(value, dt) -> str:
    """A Python or NumPy scalar as a constant of dtype ``dt``."""
    try:
        return CUDA.literal(value, dt)
    except c_exprs.NoForm as e:
        raise Unsupported(str(e)) from None


#: the op table (op -> entry, see fgraph.engines.c_exprs): shared with the
#: native CPU generator, plus every op's own ``c_expr`` attribute
OPS = c_exprs.TABLE
PRELUDE = c_exprs.PRELUDE

#: ops a fused expression never holds as themselves (expanded, or flattened)
EXPANDED = ("fma", "adagrad", "fused")


def loop_types(op: str, params: dict, avals: list, out) -> tuple:
    """The dtypes NumPy computes ``op`` in: (operand dtypes, result dtype)."""
    out = np.dtype(out)
    u = UFUNCS.get(op)
    if u is not None:
        dts = ufunc_dtypes(u, avals, params.get("dtype"))
        return tuple(dts[:u.nin]), dts[u.nin + params.get("output", 0)]
    if op == "where":
        return (BOOL, out, out), out
    if op == "clip":
        dts = ufunc_dtypes(np._core.umath.clip, avals)
        return tuple(dts[:3]), dts[3]
    if op == "fix":
        return (out,), out
    if op in ("round", "astype", "real", "imag"):
        return (avals[0].dtype,), out
    if c_exprs.declared(op):  # an op's own c_expr: operands in its result dtype
        return (out,) * len(avals), out
    raise Unsupported(f"op {op!r} has no CUDA form")


# ---------------------------------------------------------------- the device function

@dataclass(frozen=True)
class Function:
    """A fused expression as one C++ device function."""

    name: str
    source: str  # the function's definition
    params: tuple  # (Input, C parameter name) for the array inputs, in order
    out: np.dtype


def function(expr: tuple, inputs: list) -> Function:
    """The device function computing ``expr`` over ``inputs`` (Input objects)."""
    for i in inputs:
        ctype(i.dtype)  # Unsupported for complex / float16 inputs
    names, avals, params = [], [], []
    for k, i in enumerate(inputs):
        if i.kind == "array":
            names.append(f"x{k}")
            params.append((i, f"x{k}"))
        else:
            names.append(None)  # a literal: inlined where used, typed by its loop
        avals.append(_Aval(i.dtype, i.weak))
    lines = []
    temps = []  # (C name, dtype) of each instruction's value
    for t, (op, args, p, dt) in enumerate(expr):
        if op not in OPS:
            raise Unsupported(f"op {op!r} has no CUDA form")
        p = dict(p)
        dt = np.dtype(dt)
        ctype(dt)
        operands = [avals[-1 - a] if a < 0 else _Aval(temps[a][1]) for a in args]
        ins, res = loop_types(op, p, operands, dt)
        cargs = []
        for a, want in zip(args, ins):
            ctype(want)
            if a < 0:
                i = inputs[-1 - a]
                if i.kind == "const":
                    cargs.append(literal(i.value, want))
                    continue
                cargs.append(cast(names[-1 - a], i.dtype, want))
            else:
                cargs.append(cast(temps[a][0], temps[a][1], want))
        value = c_exprs.render(op, CUDA, cargs, ins, res, p)
        if value is None:
            raise Unsupported(f"op {op!r} has no CUDA form for {[np.dtype(d).name for d in ins]}")
        lines.append(f"  const {ctype(dt)} t{t} = {cast(value, res, dt)};")
        temps.append((f"t{t}", dt))
    out = np.dtype(expr[-1][3])
    sig = ", ".join(f"const {ctype(i.dtype)} {n}" for i, n in params)
    body = "\n".join(lines)
    digest = hashlib.sha1(f"{sig}\n{body}".encode()).hexdigest()[:12]
    name = f"fg_fused_{digest}"
    src = f"__device__ __forceinline__ {ctype(out)} {name}({sig}) {{\n{body}\n  return t{len(expr) - 1};\n}}\n"
    return Function(name, src, tuple(params), out)


# ---------------------------------------------------------------- kernels

@dataclass(frozen=True)
class ElementwiseSource:
    """The arguments of ``cupy.ElementwiseKernel``."""

    in_params: str
    out_params: str
    operation: str
    name: str
    preamble: str


def elementwise(expr: tuple, inputs: list) -> ElementwiseSource:
    """``cupy.ElementwiseKernel(in_params, out_params, operation, name,
    preamble=preamble)`` for a fused group; call it with the array inputs
    (in order) and the output array."""
    fn = function(expr, inputs)
    in_params = ", ".join(f"{i.dtype.name} {n}" for i, n in fn.params)
    args = ", ".join(n for _, n in fn.params)
    return ElementwiseSource(in_params, f"{fn.out.name} y", f"y = {fn.name}({args})", fn.name + "_k",
                             PRELUDE + fn.source)


@dataclass(frozen=True)
class ReductionSource:
    """The arguments of ``cupy.ReductionKernel``."""

    in_params: str
    out_params: str
    map_expr: str
    reduce_expr: str
    post_map_expr: str
    identity: str
    reduce_type: str
    name: str
    preamble: str


REDUCTIONS = ("sum", "prod", "mean", "max", "min", "any", "all")


def reduction(expr: tuple, inputs: list, reduce: str, out_dtype, count: int) -> ReductionSource:
    """``cupy.ReductionKernel`` arguments for a fused group reduced by
    ``reduce`` (into ``out_dtype``) over ``count`` elements per output.

    sum/prod accumulate in the result dtype (as NumPy's pairwise loops do;
    GPU order differs); mean divides in double and rounds, as NumPy's
    ``true_divide(sum, intp count)``; max/min propagate NaN."""
    if reduce not in REDUCTIONS:
        raise Unsupported(f"reduction {reduce!r}")
    fn = function(expr, inputs)
    out = np.dtype(out_dtype)
    call = f"{fn.name}({', '.join(n for _, n in fn.params)})"
    red = BOOL if reduce in ("any", "all") else out
    r = ctype(red)
    if reduce in ("any", "all"):
        map_expr = f"({call} != 0)"
    else:
        map_expr = cast(call, fn.out, red)
    if reduce == "sum" or reduce == "mean":
        red_expr, identity = "a + b", literal(0, red)
    elif reduce == "prod":
        red_expr, identity = "a * b", literal(1, red)
    elif reduce in ("any", "all"):
        red_expr, identity = ("a || b", "false") if reduce == "any" else ("a && b", "true")
    else:
        big = reduce == "min"
        if red.kind == "f":
            red_expr = f"fg_{'min' if big else 'max'}_nan(a, b)"
            identity = literal(math.inf if big else -math.inf, red)
        elif red == BOOL:
            red_expr, identity = ("a && b", "true") if big else ("a || b", "false")
        else:
            red_expr = f"(a {'<' if big else '>'} b ? a : b)"
            info = np.iinfo(red)
            identity = literal(info.max if big else info.min, red)
    if reduce == "mean":
        post = f"y = {cast(f'(double)a / (double){count}', F64, out)}"
    else:
        post = f"y = {cast('a', red, out)}"
    in_params = ", ".join(f"{i.dtype.name} {n}" for i, n in fn.params)
    return ReductionSource(in_params, f"{out.name} y", map_expr, red_expr, post, identity, r,
                           f"{fn.name}_{reduce}", PRELUDE + fn.source)

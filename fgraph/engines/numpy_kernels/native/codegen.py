"""The native kernels' code generation: a fused element-wise expression
over inputs of given dtypes and layouts as the C source of one kernel
(:class:`Plan`).  Ops whose C form equals NumPy's loop bit for bit are
written inline (from the table shared with the CUDA generator,
:mod:`fgraph.engines.c_exprs`); the others call NumPy's own inner loop
(:mod:`.loops`) on each block."""
from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

from ....ops.elementwise import UFUNCS
from ... import c_exprs
from ...c_exprs import CPU
from .loops import numpy_loop

_CTYPE = CPU.CTYPES
_TARGET = threading.local()  # (graph_code.GraphCode(quiet=True) sets c_exprs.CPU_QUIET while it generates)


def target():
    """The CPU target C is rendered for on this thread (``c_exprs.CPU`` unless set)."""
    return getattr(_TARGET, "cpu", CPU)


@contextmanager
def rendering_for(cpu):
    """C rendered for ``cpu`` (a c_exprs CPU target) on this thread within the block."""
    before = target()
    _TARGET.cpu = cpu
    try:
        yield
    finally:
        _TARGET.cpu = before


def _is_type(t) -> bool:
    """A Python scalar type (by identity: np.dtype("int64") == int is True)."""
    return t is bool or t is int or t is float


class Unsupported(Exception):
    """The expression (or this call's layout) has no native kernel."""


def _code(dt: np.dtype) -> str:
    return f"{dt.kind}{dt.itemsize}"


def _ok(dt) -> bool:
    return isinstance(dt, np.dtype) and dt.isnative and _code(dt) in _CTYPE


# ---------------------------------------------------------------- C for NumPy's loops (the CPU target of c_exprs)

def _inline(op: str, dts: tuple, a: list[str], params=None) -> str | None:
    """A C expression computing ``op`` exactly as NumPy's loop for ``dts``
    (input dtypes, then the output's); operands already have the input
    dtypes.  None: no exact (vectorisable) C form; NumPy's loop is called."""
    return c_exprs.render(op, target(), a, dts[:-1], dts[-1], params)


def _cast(expr: str, src: np.dtype, dst: np.dtype) -> str:
    """C for NumPy's unsafe cast (NaN and out-of-range float->int excluded)."""
    got = CPU.cast(expr, src, dst)
    if got is None:
        raise Unsupported("float -> int casts are undefined in C for NaN and out-of-range values")
    return got


# ---------------------------------------------------------------- code generation

def _runtime_dtype(t) -> np.dtype:
    """The dtype an input arrives in: Python scalars as bool, int64, float64."""
    return np.dtype({bool: "bool", int: "int64", float: "float64"}[t]) if _is_type(t) else np.dtype(t)


class _Val:
    """One value of the generated block code."""

    def __init__(self, kind, dtype, expr=None, args=(), call=None, inp=None):
        self.kind, self.dtype, self.expr, self.args, self.call, self.inp = kind, dtype, expr, args, call, inp
        self.seg = 0
        self.uniform = False  # the same for every element of a row: computed once per block
        self.buffered = False
        self.buf = -1  # the buffer holding it, named by the value that owns it
        self.id = -1


def _loop_dtypes(ufunc, types, params):
    """NumPy's loop dtypes for operand ``types`` (Python types for weak scalars)."""
    dtype = params.get("dtype")
    try:
        if dtype is None:
            return tuple(ufunc.resolve_dtypes(tuple(types) + (None,) * ufunc.nout))
        sig = (None,) * ufunc.nin + (np.dtype(dtype),) * ufunc.nout
        return tuple(ufunc.resolve_dtypes(tuple(types) + (None,) * ufunc.nout, signature=sig))
    except Exception as e:
        raise Unsupported(f"{ufunc.__name__}: {e}") from None


def _ufunc_of(op: str):
    if op == "clip":
        return np._core.umath.clip
    return UFUNCS.get(op)


class Plan:
    """The C source for ``expr`` over inputs described by ``sig``: one
    (dtype or Python scalar type, inner-axis kind) per input, kind 'c'
    (contiguous), 's' (the same value along the row) or 'g' (strided)."""

    def __init__(self, expr: tuple, sig: tuple):
        self.expr, self.sig = expr, sig
        self.vals: list[_Val] = []
        self.calls: list = []  # (loop, context, auxdata, keep-alive) per called op
        #: per input: the integer/float dtypes its Python int is cast to (checked per call)
        self.int_targets: list[set] = [set() for _ in sig]
        self._loads: dict = {}
        self._casts: dict = {}
        for t, (dt, _) in enumerate(sig):
            if not (_is_type(dt) or _ok(dt)):
                raise Unsupported(f"input {t} has dtype {dt}")
        self._res: list[_Val] = []
        for ins in expr:
            self._res.append(self._instr(*ins))
        self.result = self._res[-1]
        if _code(self.result.dtype) != _code(np.dtype(expr[-1][3])):
            raise Unsupported("result dtype differs")
        self._schedule()
        self.source = self._emit()

    # -- building values
    def _add(self, v: _Val) -> _Val:
        v.id = len(self.vals)
        self.vals.append(v)
        return v

    def _load(self, j: int) -> _Val:
        if j not in self._loads:
            dt, kind = self.sig[j]
            v = _Val("load", _runtime_dtype(dt), inp=j)
            v.uniform = kind == "s"
            self._loads[j] = self._add(v)
        return self._loads[j]

    def _cast(self, v: _Val, dt: np.dtype) -> _Val:
        if _code(v.dtype) == _code(dt):
            return v
        if v.kind == "load" and self.sig[v.inp][0] is int:
            self.int_targets[v.inp].add(_code(dt))
        key = (v.id, _code(dt))
        if key not in self._casts:
            c = _Val("inline", dt, expr=_cast("{0}", v.dtype, dt), args=(v,))
            c.uniform = v.uniform
            self._casts[key] = self._add(c)
        return self._casts[key]

    def _instr(self, op, args, params, dt) -> _Val:
        params = dict(params)
        dt = np.dtype(dt)
        if not _ok(dt):
            raise Unsupported(f"{op} gives {dt}")
        return self._op(op, [self._load(-1 - a) if a < 0 else self._res[a] for a in args], params, dt)

    def _type(self, v: _Val):
        """What NumPy's promotion sees for operand ``v`` (NEP 50)."""
        if v.kind == "load" and (self.sig[v.inp][0] is int or self.sig[v.inp][0] is float):
            return self.sig[v.inp][0]
        return v.dtype

    def _op(self, op, vals, params, dt) -> _Val:
        if op == "where":
            cond, x, y = vals
            ops = [self._cast(cond, np.dtype(bool)), self._cast(x, dt), self._cast(y, dt)]
            return self._inline_val(dt, _inline("where", (ops[0].dtype, dt, dt, dt), ["{0}", "{1}", "{2}"]), ops)
        if op == "astype":
            return self._cast(vals[0], dt)
        if op == "ufunc_where":  # (both sides computed: flags from lanes the mask drops send a step back to NumPy)
            inner = self._op(params["ufunc"], vals[1:], dict(params["params"]), dt)
            zero = self._inline_val(dt, f"({_CTYPE[_code(dt)]})0", [])
            return self._op("where", [vals[0], inner, zero], {}, dt)
        if op in ("real", "fix", "round"):
            (x,) = vals
            if op == "round" and params.get("decimals", 0) != 0:
                raise Unsupported("round with decimals")
            if _code(x.dtype) != _code(dt):
                raise Unsupported(f"{op} changes the dtype")
            if dt.kind != "f" or op == "real":
                return x  # integers round to themselves; real of a real array is itself
            if op == "round":  # NumPy rounds half to even: rint
                return self._inline_val(dt, _inline("round", (dt, dt), ["{0}"], params), [x])
            return self._call(np.trunc, (dt, dt), [x], dt)  # fix == trunc, -0.0 included
        if op == "imag":
            (x,) = vals
            if x.dtype.kind == "c" or _code(x.dtype) != _code(dt):
                raise Unsupported("imag")
            return self._inline_val(dt, f"({_CTYPE[_code(dt)]})0", [])
        u = _ufunc_of(op)
        if u is None and c_exprs.declared(op):  # the op's own C: operands in its result dtype
            ops = [self._cast(v, dt) for v in vals]
            expr = _inline(op, (dt,) * (len(ops) + 1), [f"{{{k}}}" for k in range(len(ops))], params)
            if expr is None:
                raise Unsupported(f"{op}'s c_expr has no CPU form for {dt}")
            return self._inline_val(dt, expr, ops)
        if u is None or u.nout != 1 or set(params) - {"dtype"}:
            raise Unsupported(f"{op} has no native form")
        loop = _loop_dtypes(u, [self._type(v) for v in vals], params)
        if not all(_ok(d) for d in loop):
            raise Unsupported(f"{op} runs a {loop} loop")
        if _code(loop[-1]) != _code(dt):
            raise Unsupported(f"{op}: loop gives {loop[-1]}, expected {dt}")
        if op in ("power", "float_power") and loop[0].kind in "iu":
            raise Unsupported("integer power raises on negative exponents")
        ops = [self._cast(v, d) for v, d in zip(vals, loop)]
        names = [f"{{{k}}}" for k in range(len(ops))]
        expr = _inline(op, loop, names, params)
        if expr is not None:
            return self._inline_val(dt, expr, ops)
        return self._call(u, loop, ops, dt)

    def _inline_val(self, dt, expr, ops) -> _Val:
        v = _Val("inline", dt, expr=expr, args=tuple(ops))
        v.uniform = all(o.uniform for o in ops)
        return self._add(v)

    def _call(self, u, loop, ops, dt) -> _Val:
        got = numpy_loop(u, tuple(loop))
        if got is None:
            raise Unsupported(f"no GIL-free NumPy loop for {u.__name__} {loop}")
        v = _Val("call", dt, args=tuple(ops), call=len(self.calls))
        self.calls.append(got)
        return self._add(v)

    # -- scheduling: segments between calls, buffers for what crosses them
    def _schedule(self):
        seg = 0
        for v in self.vals:
            v.seg = seg
            if v.kind == "call":
                seg += 1
        self.segments = seg + 1
        for v in self.vals:
            for a in v.args:
                if a.kind == "load" or a.uniform:
                    continue
                if v.kind == "call" or a.kind == "call" or a.seg != v.seg:
                    a.buffered = True
        for v in self.vals:  # a called loop writes a buffer, or the output when nothing else reads it
            if v.kind == "call" and v is not self.result:
                v.buffered = True
        # a called loop may write over an operand's buffer that dies with it
        # (NumPy's loops work in place), so fewer buffers fill L1
        last_use = {a.id: v.id for v in self.vals for a in v.args}
        for v in self.vals:
            if v.buffered:
                v.buf = v.id
                if v.kind == "call":
                    for a in v.args:
                        if (a.buffered and last_use[a.id] == v.id and a is not self.result
                                and _code(a.dtype) == _code(v.dtype)):
                            v.buf = a.buf
                            break
        per_value = sum(v.dtype.itemsize for v in self.vals if v.buffered and v.buf == v.id)
        bs = 4096
        while bs > 256 and bs * per_value > 24 * 1024:
            bs //= 2
        self.block = bs

    # -- emitting C
    def _ref(self, v: _Val, seg_vals: set) -> str:
        """How block code reads value ``v`` at element i."""
        if v.kind == "load":
            kind = self.sig[v.inp][1]
            raw = {"c": f"p{v.inp}[i]", "s": f"p{v.inp}[0]", "g": f"p{v.inp}[i * g{v.inp}]"}[kind]
            return f"(uint8_t)({raw} != 0)" if v.dtype.kind == "b" else raw
        if v.uniform:
            return f"u{v.id}"
        if v.id in seg_vals:
            return f"v{v.id}"
        return f"b{v.buf}[i]"

    def _emit(self) -> str:
        n_in = len(self.sig)
        L = ["#include <stdint.h>", "#include <math.h>", "#include <fenv.h>", "#include <sched.h>",
             "typedef int (*fg_loop)(void *, char *const *, const int64_t *, const int64_t *, void *);",
             "#define FG_FE (FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW | FE_UNDERFLOW)",
             "#undef BS", f"#define BS {self.block}",
             "/* one block of one row; not inlined: the serial and the threaded loop share it */",
             "__attribute__((noinline)) static int FG_NAME_unit(char *const *in, char *out, const int64_t *dims,",
             "                                             int nd, const int64_t *st, void *const *calls,",
             "                                             int64_t u, int64_t nb, int *fl) {",
             "  int64_t inner = dims[nd - 1], r = u / nb, s = (u - r * nb) * BS;",
             "  int64_t m = inner - s < BS ? inner - s : BS;",
             "  char *o_ = out + (r * inner + s) * (int64_t)sizeof(" + _CTYPE[_code(self.result.dtype)] + ");",
             "  (void)calls; (void)fl;"]
        for j in range(n_in):
            L.append(f"  int64_t off{j} = 0;")
        if n_in:
            L.append("  for (int ax = nd - 2; ax >= 0; ax--) {")
            L.append("    int64_t k = r % dims[ax]; r /= dims[ax];")
            for j in range(n_in):
                L.append(f"    off{j} += k * st[{j} * nd + ax];")
            L.append("  }")
        for j, (dt, kind) in enumerate(self.sig):
            ct = _CTYPE[_code(self._load(j).dtype)]
            start = {"c": "s", "s": "0", "g": f"s * st[{j} * nd + nd - 1]"}[kind]
            L.append(f"  const {ct} *p{j} = (const {ct} *)in[{j}] + off{j} + {start};")
            if kind == "g":
                L.append(f"  const int64_t g{j} = st[{j} * nd + nd - 1];")
        ct_out = _CTYPE[_code(self.result.dtype)]
        L.append(f"  {ct_out} *o = ({ct_out} *)o_;")
        for v in self.vals:  # per-row constants (scalars and their casts) once
            if v.kind == "inline" and v.uniform:
                L.append(f"  const {_CTYPE[_code(v.dtype)]} u{v.id} = " +
                         v.expr.format(*(self._ref(a, set()) for a in v.args)) + ";")
        for v in self.vals:
            if v.buffered and v.buf == v.id:
                L.append(f"  {_CTYPE[_code(v.dtype)]} b{v.id}[BS] __attribute__((aligned(64)));")
        for seg in range(self.segments):
            body = [v for v in self.vals if v.seg == seg and v.kind == "inline" and not v.uniform]
            final = self.result.seg == seg and self.result.kind != "call"
            if body or final:
                L.append("  #pragma omp simd")
                L.append("  for (int64_t i = 0; i < m; i++) {")
                here: set = set()
                for v in body:
                    L.append(f"    const {_CTYPE[_code(v.dtype)]} v{v.id} = " +
                             v.expr.format(*(self._ref(a, here) for a in v.args)) + ";")
                    here.add(v.id)
                    if v.buffered:
                        L.append(f"    b{v.buf}[i] = v{v.id};")
                if final:
                    L.append(f"    o[i] = {self._ref(self.result, here)};")
                L.append("  }")
            call = [v for v in self.vals if v.seg == seg and v.kind == "call"]
            for v in call:
                ptrs, strides = [], []
                for a in v.args:
                    size = a.dtype.itemsize
                    if a.kind == "load":
                        kind = self.sig[a.inp][1]
                        ptrs.append(f"(char *)p{a.inp}")
                        strides.append({"c": str(size), "s": "0", "g": f"g{a.inp} * {size}"}[kind])
                    elif a.uniform:
                        ptrs.append(f"(char *)&u{a.id}")
                        strides.append("0")
                    else:
                        ptrs.append(f"(char *)b{a.buf}")
                        strides.append(str(size))
                ptrs.append(f"(char *)b{v.buf}" if v.buffered else "(char *)o")
                strides.append(str(v.dtype.itemsize))
                c = v.call
                L.append("  {")
                L.append(f"    char *a_[] = {{{', '.join(ptrs)}}};")
                L.append(f"    const int64_t s_[] = {{{', '.join(strides)}}};")
                L.append("    *fl |= fetestexcept(FG_FE);")
                L.append(f"    if (((fg_loop)calls[{3 * c}])(calls[{3 * c + 1}], a_, &m, s_, calls[{3 * c + 2}]) < 0)"
                         " return 1;")
                L.append("  }")
        if self.result.kind == "call" and self.result.buffered:  # (the result is read by others too)
            L += ["  #pragma omp simd", "  for (int64_t i = 0; i < m; i++)", f"    o[i] = b{self.result.buf}[i];"]
        L += ["  return 0;", "}", "",
              "static int FG_NAME_flags(int f) {",
              "  return ((f & FE_INVALID) ? 1 : 0) | ((f & FE_DIVBYZERO) ? 2 : 0) | ((f & FE_OVERFLOW) ? 4 : 0)"
              " | ((f & FE_UNDERFLOW) ? 8 : 0);",
              "}",
              "",
              "/* Runs blocks until none is left; threads share the work through ctl: [0] the next block,",
              "   [1] blocks done, [2] IEEE flags (1 invalid, 2 divide, 4 overflow, 8 underflow), [3] a NumPy",
              "   loop failed.  A thread that starts late finds nothing left, so no thread waits for another",
              "   to be scheduled; the caller (wait=1) returns once every block is done. */",
              "int FG_NAME(char *const *in, char *out, const int64_t *dims, int nd, const int64_t *st,",
              "              void *const *calls, int64_t *ctl, int wait) {",
              "  int64_t rows = 1;",
              "  for (int ax = 0; ax < nd - 1; ax++) rows *= dims[ax];",
              "  const int64_t nb = (dims[nd - 1] + BS - 1) / BS, total = rows * nb;",
              "  feclearexcept(FG_FE);",
              "  for (;;) {",
              "    const int64_t u = __atomic_fetch_add(&ctl[0], 1, __ATOMIC_RELAXED);",
              "    if (u >= total) break;",
              "    int fl = 0;",
              "    if (FG_NAME_unit(in, out, dims, nd, st, calls, u, nb, &fl))",
              "      __atomic_store_n(&ctl[3], 1, __ATOMIC_RELAXED);",
              "    fl |= fetestexcept(FG_FE);",
              "    if (fl) __atomic_fetch_or(&ctl[2], (int64_t)FG_NAME_flags(fl), __ATOMIC_RELAXED);",
              "    __atomic_fetch_add(&ctl[1], 1, __ATOMIC_RELEASE);",
              "  }",
              "  if (wait)",
              "    while (__atomic_load_n(&ctl[1], __ATOMIC_ACQUIRE) < total) sched_yield();",
              "  return 0;",
              "}", ""]
        return "\n".join(L)

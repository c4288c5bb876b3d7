"""Native kernels: a fused element-wise expression as generated C.

One C function per (expression, input dtypes, input layouts) evaluates the
whole expression in one pass over the output, a block of ``BS`` values at a
time (intermediates stay in registers or in L1-sized stack buffers).  It is
compiled with the system C compiler into a shared library cached on disk
and called through ctypes, which releases the GIL: with threads, the caller
and helper threads take blocks from a shared atomic counter until none is
left.  (Not OpenMP: its end-of-loop barrier waits for every thread to be
scheduled, which costs ~20 ms a call on a loaded 2-core machine, and GNU
OpenMP does not survive fork().)

Accuracy: none is lost.  Values are NumPy's bit for bit (0 ULP; up to NaN
payloads and, for fmax/fmin, the sign of a zero result, which NumPy itself
varies with the position in the array), so the oracle tests compare
exactly:

- *inline* ops are C expressions whose IEEE semantics equal NumPy's loops
  (add, multiply, divide, sqrt, comparisons, maximum with NaN propagation,
  where, casts, ...), compiled without FMA contraction, fast-math or errno;
- every other op (tanh, exp, log, power, floor_divide, clip, ...) calls
  NumPy's own inner loop for its dtypes (``ufunc._get_strided_loop``, the
  loop NumPy would run) on the block, with the strides NumPy's iterator
  would give it, so SIMD transcendental functions match to the bit.
  (glibc's libmvec, vectorised by the compiler, measured ~10% faster on
  the benchmark expression but differs from NumPy's SIMD functions by a
  few ULP; exactness won.)

Floating-point errors: the kernel returns the IEEE flags its work raised;
when ``np.geterr()`` asks to hear about one, the caller reruns the NumPy
strategy, which warns or raises exactly as NumPy does.

Not native (the expression keeps the NumPy strategies): dtypes other than
bool/int32/int64/float32/float64 anywhere in it, float->int casts (undefined
in C for NaN and out-of-range values), integer power (NumPy raises on
negative exponents), multi-output ufuncs, round with decimals != 0, and
ops NumPy has no GIL-free loop for.  Layouts: the output is C-contiguous;
inputs may have any strides (broadcast or not), coalesced per axis like
NumPy's iterator; unaligned inputs fall back.

Disk cache (:mod:`.kernel_cache`): a library is loaded only from a private
folder (this user's, 0700, not a symlink), only if it is a private regular
file whose sha256 matches the manifest fgraph wrote when it built it; a
planted or damaged library is rebuilt rather than loaded (a damaged one
would crash the process in ``dlopen``), and a folder someone else could
write is refused with one warning (kernels are then built in a private
temporary folder).

Environment: ``FGRAPH_NATIVE=0`` disables native kernels; the cache lives in
``$FGRAPH_CACHE_DIR`` (default ``$XDG_CACHE_HOME/fgraph`` or
``~/.cache/fgraph``) under ``native/``, holding at most
``$FGRAPH_NATIVE_CACHE_MB`` (default 256) megabytes: past that, the kernels
used least recently are removed; ``CC`` names the compiler (default:
sysconfig's, then ``cc``/``gcc`` on PATH).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from . import kernel_cache

#: what happened, for tests and the benchmark
STATS = {"compiles": 0, "disk_loads": 0, "compile_s": 0.0, "runs": 0, "declined": 0, "reruns": 0, "errors": 0,
         "evicted_bytes": 0, "rejected": 0}  # rejected: cached libraries not loaded (no or another digest)
#: the last compiler error output or exception text (for debugging)
LAST_ERROR: list = []

_CTYPE = {"b1": "uint8_t", "i4": "int32_t", "i8": "int64_t", "f4": "float", "f8": "double"}


def _is_type(t) -> bool:
    """A Python scalar type (by identity: np.dtype("int64") == int is True)."""
    return t is bool or t is int or t is float


class Unsupported(Exception):
    """The expression (or this call's layout) has no native kernel."""


def _code(dt: np.dtype) -> str:
    return f"{dt.kind}{dt.itemsize}"


def _ok(dt) -> bool:
    return isinstance(dt, np.dtype) and dt.isnative and _code(dt) in _CTYPE


def enabled() -> bool:
    return os.environ.get("FGRAPH_NATIVE", "1") != "0"


# ---------------------------------------------------------------- compiler (the disk cache: kernel_cache.py)

BASE_FLAGS = ["-O3", "-fPIC", "-shared", "-fno-math-errno", "-ffp-contract=off", "-fwrapv"]
#: tried in order: the first set that builds a probe is used (-fopenmp-simd:
#: the ``omp simd`` pragmas only, no OpenMP runtime)
OPTIONAL_FLAGS = [["-march=native", "-fopenmp-simd"], ["-fopenmp-simd"], ["-march=native"], []]

_toolchain_lock = threading.Lock()
_toolchain: dict = {}


def find_compiler() -> list[str] | None:
    """The C compiler command: $CC, sysconfig's CC, then cc/gcc on PATH."""
    for cand in (os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc"):
        if cand:
            cmd = shlex.split(cand)
            if cmd and shutil.which(cmd[0]):
                return cmd
    return None


cache_dir = kernel_cache.cache_dir
cache_limit_bytes = kernel_cache.cache_limit_bytes


def trim_cache(d: str | None = None, limit: int | None = None, keep=()) -> int:
    """Remove the kernels used least recently until the cache holds at most
    ``limit`` bytes (default :func:`cache_limit_bytes`; then 3/4 of it, so
    trimming is rare), never those named in ``keep`` (just built); returns
    the bytes freed.  See :func:`kernel_cache.trim`."""
    freed = kernel_cache.trim(cache_dir() if d is None else d, cache_limit_bytes() if limit is None else limit, keep)
    STATS["evicted_bytes"] += freed
    return freed


def _cpu_id() -> str:
    """What -march=native depends on: a cached library must not move to another CPU."""
    try:
        with open("/proc/cpuinfo") as f:
            info = [line for line in f if line.startswith(("flags", "model name"))][:2]
    except OSError:
        info = []
    return platform.machine() + platform.processor() + "".join(info)


def toolchain() -> dict | None:
    """{cmd, flags, ident} for a working compiler, or None (probed once)."""
    with _toolchain_lock:
        if "value" in _toolchain:
            return _toolchain["value"]
        value = None
        cmd = find_compiler()
        if cmd is not None:
            try:
                version = subprocess.run(cmd + ["--version"], capture_output=True, text=True,
                                         timeout=30).stdout.splitlines()[:1]
            except (OSError, subprocess.SubprocessError):
                version = None
            if version is not None:
                probe = ("#include <math.h>\n#include <fenv.h>\n"
                         "int f(double x) { return (int)sqrt(x) + fetestexcept(FE_INVALID); }\n")
                with tempfile.TemporaryDirectory() as d:
                    for extra in OPTIONAL_FLAGS:
                        if _compile(cmd, BASE_FLAGS + extra, probe, d, os.path.join(d, "probe.so")):
                            value = {"cmd": cmd, "flags": BASE_FLAGS + extra,
                                     "ident": " ".join(cmd + version) + _cpu_id()}
                            break
        _toolchain["value"] = value
        return value


def _compile(cmd, flags, source, workdir, target) -> bool:
    src = os.path.join(workdir, os.path.basename(target) + ".c")
    with open(os.open(src, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(source)
    try:
        r = subprocess.run(cmd + flags + [src, "-o", target, "-lm"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        LAST_ERROR[:] = [repr(e)]
        return False
    if r.returncode:
        LAST_ERROR[:] = [r.stderr[-4000:]]
    return r.returncode == 0 and os.path.exists(target)


def symbol(source: str, tc: dict) -> str:
    """The kernel's name: a digest of its source and of how it is built."""
    return "fg_" + hashlib.sha256("\0".join([source, tc["ident"]] + tc["flags"]).encode()).hexdigest()[:32]


def build(sources: list[str]) -> list:
    """A (library, function name) for each kernel source (its name written
    ``FG_NAME``), or None where that fails.

    Each kernel has its own file in the disk cache, named by its symbol: a
    kernel built before (same source, compiler, flags and CPU) is loaded
    once :mod:`kernel_cache` has checked its file and digest; the others
    (missing, damaged, or not built by fgraph) are compiled together in one
    compiler run (one library, hard-linked under each name) and published
    atomically."""
    tc = toolchain()
    if tc is None:
        return [None] * len(sources)
    names = [symbol(src, tc) for src in sources]
    d = kernel_cache.open_folder()
    found: dict = {}
    todo: dict = {}
    for src, name in zip(sources, names):
        if name in found or name in todo:
            continue
        if d is not None:
            try:
                path, why = kernel_cache.verified(d, name)
            except kernel_cache.Untrusted as e:
                kernel_cache.distrust(d, str(e))
                d, path, why = None, None, "untrusted"
            if path is not None:
                try:
                    found[name] = ctypes.CDLL(path)
                    STATS["disk_loads"] += 1
                    _touch(path)  # its time is its last use: trimming removes the stalest
                    continue
                except OSError:
                    pass  # trimmed away by another process meanwhile: build it again
            elif why != "missing":
                STATS["rejected"] += 1
        todo[name] = src
    if todo:
        found.update(_build_new(tc, todo, d))
        if d is not None:
            trim_cache(d, keep=todo)
    return [(found[n], n) if n in found else None for n in names]


def _touch(path: str) -> None:
    try:
        os.utime(path)
    except OSError:  # a read-only cache: its order stays the build order
        pass


def _build_new(tc: dict, todo: dict, d: str | None) -> dict:
    """Compile ``todo`` ({name: source}) into one library, published in the
    cache folder ``d`` unless it is None (kept nowhere then)."""
    t0 = time.perf_counter()
    work = None
    if d is not None:
        try:
            work = kernel_cache.new_build_folder(d)
        except OSError:  # a read-only cache: build privately, keep nothing
            d = None
    if work is None:
        work = kernel_cache.new_build_folder(None)
    try:
        lib_path = os.path.join(work, "kernels.so")
        source = "\n".join(src.replace("FG_NAME", name) for name, src in todo.items())
        if not _compile(tc["cmd"], tc["flags"], source, work, lib_path):
            STATS["errors"] += 1
            return {}
        STATS["compiles"] += len(todo)
        STATS["compile_s"] += time.perf_counter() - t0
        if d is not None:
            try:
                kernel_cache.publish(d, lib_path, list(todo))
            except OSError as e:  # a full disk, say: this process still has its kernels
                LAST_ERROR[:] = [repr(e)]
            except kernel_cache.Untrusted as e:  # its manifest changed hands meanwhile
                kernel_cache.distrust(d, str(e))
        # loaded from the private build folder: exactly the bytes just built,
        # whatever happens to the published names; it stays mapped once removed
        lib = ctypes.CDLL(lib_path)
        return {name: lib for name in todo}
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------- NumPy's inner loops

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


# ---------------------------------------------------------------- inline C for NumPy's loops

def _fn(name: str, dt: np.dtype) -> str:
    return name + ("f" if dt.itemsize == 4 else "")


def _inline(op: str, dts: tuple, a: list[str]) -> str | None:
    """A C expression computing ``op`` exactly as NumPy's loop for ``dts``
    (input dtypes, then the output's); operands already have the input
    dtypes.  None: no exact (vectorisable) C form; NumPy's loop is called."""
    k = dts[0].kind
    T = _CTYPE[_code(dts[-1])]
    quiet = {"less": "__builtin_isless", "less_equal": "__builtin_islessequal",
             "greater": "__builtin_isgreater", "greater_equal": "__builtin_isgreaterequal"}
    plain = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=", "equal": "==",
             "not_equal": "!="}
    if op in plain:  # == and != are quiet in C; ordered compares of floats must be made quiet
        if k == "f" and op in quiet:
            return f"(uint8_t){quiet[op]}({a[0]}, {a[1]})"
        return f"(uint8_t)({a[0]} {plain[op]} {a[1]})"
    if op in ("logical_and", "logical_or", "logical_xor"):
        sym = {"logical_and": "&", "logical_or": "|", "logical_xor": "^"}[op]
        return f"(uint8_t)(({a[0]} != 0) {sym} ({a[1]} != 0))"
    if op == "logical_not":
        return f"(uint8_t)({a[0]} == 0)"
    if op in ("positive", "conjugate"):
        return a[0]
    if k == "b":
        return {"add": f"({a[0]} | {a[1]})" if len(a) == 2 else None,
                "multiply": f"({a[0]} & {a[1]})" if len(a) == 2 else None,
                "maximum": f"({a[0]} | {a[1]})" if len(a) == 2 else None,
                "minimum": f"({a[0]} & {a[1]})" if len(a) == 2 else None,
                "bitwise_and": f"({a[0]} & {a[1]})" if len(a) == 2 else None,
                "bitwise_or": f"({a[0]} | {a[1]})" if len(a) == 2 else None,
                "bitwise_xor": f"({a[0]} ^ {a[1]})" if len(a) == 2 else None,
                "invert": f"(uint8_t)({a[0]} ^ 1)", "absolute": a[0]}.get(op)
    if op in ("add", "subtract", "multiply"):
        return f"({T})({a[0]} {dict(add='+', subtract='-', multiply='*')[op]} {a[1]})"
    if op == "negative":
        return f"({T})(-{a[0]})"
    if op == "square":
        return f"({T})({a[0]} * {a[0]})"
    if k == "i":
        return {"absolute": f"({T})({a[0]} < 0 ? -{a[0]} : {a[0]})",
                "maximum": f"({a[0]} > {a[1]} ? {a[0]} : {a[1]})" if len(a) == 2 else None,
                "minimum": f"({a[0]} < {a[1]} ? {a[0]} : {a[1]})" if len(a) == 2 else None,
                "sign": f"({T})(({a[0]} > 0) - ({a[0]} < 0))",
                "bitwise_and": f"({a[0]} & {a[1]})" if len(a) == 2 else None,
                "bitwise_or": f"({a[0]} | {a[1]})" if len(a) == 2 else None,
                "bitwise_xor": f"({a[0]} ^ {a[1]})" if len(a) == 2 else None,
                "invert": f"({T})(~{a[0]})"}.get(op)
    if k != "f":
        return None
    x = a[0]
    # NumPy's maximum/minimum: a NaN in either propagates, and of two equal
    # values (+0.0 and -0.0) the second is returned
    return {"divide": f"({x} / {a[-1]})", "reciprocal": f"(({T})1 / {x})",
            "sqrt": f"{_fn('sqrt', dts[0])}({x})", "absolute": f"{_fn('fabs', dts[0])}({x})",
            "fabs": f"{_fn('fabs', dts[0])}({x})", "rint": f"{_fn('rint', dts[0])}({x})",
            "copysign": f"{_fn('copysign', dts[0])}({x}, {a[-1]})",
            "maximum": f"((isnan({x}) || __builtin_isgreater({x}, {a[-1]})) ? {x} : {a[-1]})",
            "minimum": f"((isnan({x}) || __builtin_isless({x}, {a[-1]})) ? {x} : {a[-1]})",
            "sign": f"(__builtin_isgreater({x}, 0) ? ({T})1 : (__builtin_isless({x}, 0) ? ({T})-1 : "
                    f"({x} == 0 ? ({T})0 : {x})))",
            "isnan": f"(uint8_t)({x} != {x})", "isinf": f"(uint8_t)({_fn('fabs', dts[0])}({x}) == INFINITY)",
            "isfinite": f"(uint8_t)__builtin_isless({_fn('fabs', dts[0])}({x}), INFINITY)"}.get(op)


def _cast(expr: str, src: np.dtype, dst: np.dtype) -> str:
    """C for NumPy's unsafe cast (NaN and out-of-range float->int excluded)."""
    if _code(src) == _code(dst):
        return expr
    if dst.kind == "b":
        return f"(uint8_t)({expr} != 0)"
    if src.kind == "f" and dst.kind in "iu":
        raise Unsupported("float -> int casts are undefined in C for NaN and out-of-range values")
    return f"({_CTYPE[_code(dst)]})({expr})"


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
    from ...ops.elementwise import UFUNCS

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
            return self._inline_val(dt, "({0} ? {1} : {2})", ops)
        if op == "astype":
            return self._cast(vals[0], dt)
        if op in ("real", "fix", "round"):
            (x,) = vals
            if op == "round" and params.get("decimals", 0) != 0:
                raise Unsupported("round with decimals")
            if _code(x.dtype) != _code(dt):
                raise Unsupported(f"{op} changes the dtype")
            if dt.kind != "f" or op == "real":
                return x  # integers round to themselves; real of a real array is itself
            if op == "round":  # NumPy rounds half to even: rint
                return self._inline_val(dt, _fn("rint", dt) + "({0})", [x])
            return self._call(np.trunc, (dt, dt), [x], dt)  # fix == trunc, -0.0 included
        if op == "imag":
            (x,) = vals
            if x.dtype.kind == "c" or _code(x.dtype) != _code(dt):
                raise Unsupported("imag")
            return self._inline_val(dt, f"({_CTYPE[_code(dt)]})0", [])
        u = _ufunc_of(op)
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
        expr = _inline(op, loop, names)
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


# ---------------------------------------------------------------- kernels

class Kernel:
    """A compiled plan: its C function and the NumPy loops it calls."""

    def __init__(self, plan: Plan, lib, name: str):
        self.lib = lib  # keeps the library loaded
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        self.fn = fn
        table = []
        for loop, ctx, aux, _ in plan.calls:
            table += [loop, ctx, aux]
        self.table = (ctypes.c_void_p * max(1, len(table)))(*table)
        self.keep = plan.calls  # the capsules owning the loops' context
        self.int_targets = plan.int_targets
        self.block = plan.block


_kernels: dict = {}
_kernels_lock = threading.Lock()
_compiler_pool: ThreadPoolExecutor | None = None


def _make(key) -> Kernel | None:
    expr, sig = key
    try:
        plan = Plan(expr, sig)
    except Unsupported:
        return None
    try:
        (built,) = build([plan.source])
        return None if built is None else Kernel(plan, *built)
    except Exception as e:  # never let a native problem break a run: NumPy's strategies remain
        STATS["errors"] += 1
        LAST_ERROR[:] = [repr(e)]
        return None


def kernel(expr: tuple, sig: tuple, wait: bool = True) -> Kernel | None:
    """The kernel for ``expr`` and input signature ``sig`` (None when it
    cannot be native).  ``wait=False`` starts compiling in the background
    and returns None until it is ready."""
    global _compiler_pool
    key = (expr, sig)
    k = _kernels.get(key)
    if isinstance(k, Future):
        if not (wait or k.done()):
            return None
        k = k.result()
        _kernels[key] = k
        return k
    if k is not None or key in _kernels:
        return k
    with _kernels_lock:
        if key not in _kernels:
            if _compiler_pool is None:
                _compiler_pool = ThreadPoolExecutor(1, thread_name_prefix="fgraph-cc")
            _kernels[key] = _compiler_pool.submit(_make, key)
    return kernel(expr, sig, wait)


def clear_memory_cache(compiler: bool = True):
    """Forget loaded kernels (and the probed compiler, the manifests read and
    the cache folders distrusted); the disk cache stays."""
    _kernels.clear()
    _layouts.clear()
    kernel_cache.forget()
    if compiler:
        with _toolchain_lock:
            _toolchain.clear()


def supported(expr: tuple, ins) -> bool:
    """Whether ``expr`` over inputs like ``ins`` can be native (no compiling)."""
    try:
        Plan(expr, tuple((_scalar_type(x), "c") for x in ins))
        return True
    except Unsupported:
        return False


def _scalar_type(x):
    t = type(x)
    if _is_type(t):
        return t
    return np.asarray(x).dtype


# ---------------------------------------------------------------- running

_layouts: dict = {}


def _layout(shape: tuple, arrays: list):
    """Output dims and per-input strides (in elements) after dropping
    length-1 axes and merging axes every operand walks contiguously (NumPy's
    iterator does the same); None for layouts with no element strides."""
    key = (shape, tuple((x.shape, x.strides, x.itemsize) for x in arrays))
    got = _layouts.get(key)
    if got is not None or key in _layouts:
        return got
    nd = len(shape)
    strides = []
    for x in arrays:
        s = [0] * (nd - x.ndim)
        for d, st in zip(x.shape, x.strides):
            if d != 1 and st % x.itemsize:
                _layouts[key] = None
                return None
            s.append(0 if d == 1 else st // x.itemsize)
        strides.append(s)
    out_s = []
    step = 1
    for d in reversed(shape):
        out_s.append(step)
        step *= d
    out_s.reverse()
    axes = [a for a in range(nd) if shape[a] != 1]
    dims: list[int] = []
    merged: list[list[int]] = [[] for _ in arrays]
    last = None
    for a in axes:
        if last is not None and all(s[last] == s[a] * shape[a] for s in strides + [out_s]):
            dims[-1] *= shape[a]
            for m, s in zip(merged, strides):
                m[-1] = s[a]
            for s in strides + [out_s]:
                s[last] = s[a]  # the merged axis walks like its inner part
        else:
            dims.append(shape[a])
            for m, s in zip(merged, strides):
                m.append(s[a])
        last = a
    if not dims:
        dims = [1]
        merged = [[0] for _ in arrays]
    kinds = tuple("c" if m[-1] == 1 else "s" if m[-1] == 0 else "g" for m in merged)
    flat = [v for m in merged for v in m] or [0]
    got = ((ctypes.c_int64 * len(dims))(*dims), len(dims), (ctypes.c_int64 * len(flat))(*flat), kinds)
    if len(_layouts) > 256:
        _layouts.clear()
    _layouts[key] = got
    return got


_LIMITS = {"i4": (-2 ** 31, 2 ** 31 - 1), "i8": (-2 ** 63, 2 ** 63 - 1), "f4": (-2 ** 53, 2 ** 53),
           "f8": (-2 ** 53, 2 ** 53), "b1": (-2 ** 63, 2 ** 63 - 1)}
_ERR = ((1, "invalid"), (2, "divide"), (4, "over"), (8, "under"))


def _operands(ins, shape):
    """(arrays, signature, layout) of inputs as the C code takes them, or a
    reason string: Python scalars become 0-d arrays (bool, int64, float64),
    remembering their type (NEP 50: weak)."""
    arrays, types = [], []
    for x in ins:
        t = type(x)
        if _is_type(t):
            if t is int and not -2 ** 63 <= x < 2 ** 63:
                return "huge Python int"
            types.append(t)
            x = np.array(x, {bool: np.bool_, int: np.int64, float: np.float64}[t])
        else:
            x = np.asarray(x)
            types.append(x.dtype)
            if not x.flags.aligned:
                return "unaligned input"
        arrays.append(x)
    layout = _layout(shape, arrays)
    if layout is None:
        return "input strides"
    return arrays, tuple(zip(types, layout[3])), layout


def _prepare(expr: tuple, ins, out: np.ndarray, wait: bool):
    """(kernel, call arguments) for this call, or a reason string when it
    cannot run natively ("pending": still compiling)."""
    if not (out.flags.c_contiguous and out.flags.aligned and out.flags.writeable):
        return "output layout"
    if out.dtype != expr[-1][3] or not out.dtype.isnative:
        return "output dtype"
    got = _operands(ins, out.shape)
    if isinstance(got, str):
        return got
    arrays, sig, (dims, nd, st, _) = got
    key = (expr, sig)
    k = _kernels.get(key)
    if not isinstance(k, Kernel):
        k = kernel(*key, wait=wait)
        if k is None:
            return "unsupported" if key in _kernels and not isinstance(_kernels[key], Future) else "pending"
    for j, targets in enumerate(k.int_targets):  # a Python int must fit what it is cast to
        for code in targets:
            lo, hi = _LIMITS[code]
            if not lo <= ins[j] <= hi:
                return "Python int out of range"
    return k, arrays, dims, nd, st


def precompile(items) -> int:
    """Build the kernels for several ``(expr, ins, shape)`` in one compiler
    run (far cheaper than one run each); ``ins`` are inputs like those of
    later calls (their dtypes, Python scalar types and layouts over
    ``shape`` pick the kernel).  Returns how many are native."""
    if not enabled():
        return 0
    plans: dict = {}
    for expr, ins, shape in items:
        got = _operands(ins, tuple(shape))
        if isinstance(got, str):
            continue
        key = (expr, got[1])
        if key in _kernels or key in plans:
            continue
        try:
            plans[key] = Plan(*key)
        except Unsupported:
            _kernels[key] = None
    for (key, plan), built in zip(plans.items(), build([p.source for p in plans.values()])):
        _kernels[key] = None if built is None else Kernel(plan, *built)
    return sum(1 for key in plans if _kernels[key] is not None)


def status(expr: tuple, ins, out: np.ndarray) -> str:
    """"ready", "pending" (compiling in the background, started here) or "no"."""
    if not enabled() or ("value" in _toolchain and _toolchain["value"] is None):  # no compiler, known
        return "no"
    got = _prepare(expr, ins, out, wait=False)
    return "ready" if isinstance(got, tuple) else "pending" if got == "pending" else "no"


def run(expr: tuple, ins, out: np.ndarray, threads: int = 1, wait: bool = True) -> bool:
    """Evaluate ``expr`` into ``out`` natively; False when it cannot (the
    caller then runs a NumPy strategy, which also gives NumPy's warnings)."""
    if not enabled():
        return False
    if out.size == 0:
        return supported(expr, ins)
    got = _prepare(expr, ins, out, wait)
    if not isinstance(got, tuple):
        STATS["declined"] += 1
        return False
    k, arrays, dims, nd, st = got
    ptrs = (ctypes.c_void_p * max(1, len(arrays)))(*[x.ctypes.data for x in arrays])
    ctl = (ctypes.c_int64 * 4)()
    args = (ptrs, out.ctypes.data, dims, nd, st, k.table, ctl)
    blocks = -(-dims[nd - 1] // k.block) * (out.size // dims[nd - 1])
    helpers = min(threads, blocks) - 1
    if helpers > 0:
        pool = _worker_pool(helpers)
        for _ in range(helpers):  # the task holds every buffer the C code may still read
            pool.submit(_helper, k.fn, args, (ctl, arrays, dims, st, ptrs, out))
    k.fn(*args, 1)
    STATS["runs"] += 1
    flags, failed = ctl[2], ctl[3]
    if failed or flags:
        err = np.geterr()
        if failed or any(flags & bit and err[name] != "ignore" for bit, name in _ERR):
            STATS["reruns"] += 1
            return False
    return True


def _helper(fn, args, keep):
    fn(*args, 0)


_workers: ThreadPoolExecutor | None = None
_workers_size = 0


def _worker_pool(n: int) -> ThreadPoolExecutor:
    """Threads that join a kernel's caller (ctypes releases the GIL)."""
    global _workers, _workers_size
    if _workers is None or _workers_size < n:
        _workers = ThreadPoolExecutor(n, thread_name_prefix="fgraph-native")
        _workers_size = n
    return _workers


def _after_fork():
    # threads do not survive fork(): the child starts its own pools, and
    # forgets compiles that were under way (their futures would never end)
    # and locks a thread of the parent may have held
    global _workers, _workers_size, _compiler_pool, _kernels_lock, _toolchain_lock
    _workers, _workers_size, _compiler_pool = None, 0, None
    _kernels_lock, _toolchain_lock = threading.Lock(), threading.Lock()
    for key, k in list(_kernels.items()):
        if isinstance(k, Future) and not k.done():
            del _kernels[key]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)

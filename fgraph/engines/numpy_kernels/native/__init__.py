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

The package, one concept a module: :mod:`.compiler` (the toolchain, building,
the disk cache glue), :mod:`.loops` (NumPy's own inner loops, called from C),
:mod:`.codegen` (:class:`Plan`: the C source; the C of each op comes from
:mod:`fgraph.engines.c_exprs`, shared with the CUDA generator),
:mod:`.runtime` (kernels, layouts, running, threads, fork),
:mod:`.graph_code` (a whole small graph as one C function of loop nests,
from the same per-op C) and :mod:`.whole_loop` (a ``while_loop`` or
``scan`` of such a body, the loop itself in C).  Their public
names are this package's: ``native.run(...)``, ``native.STATS``, ...
"""
from __future__ import annotations

import sys
import types

from . import codegen, compiler, loops, runtime
from .codegen import Plan, Unsupported  # noqa: F401
from .compiler import (BASE_FLAGS, LAST_ERROR, OPTIONAL_FLAGS, STATS, _compile, build, cache_dir,  # noqa: F401
                       cache_limit_bytes, find_compiler, symbol, toolchain, trim_cache)
from .loops import numpy_loop  # noqa: F401
from .runtime import (Kernel, _layout, _operands, clear_memory_cache, enabled, kernel, precompile,  # noqa: F401
                      run, settle, status, supported)

__all__ = ["BASE_FLAGS", "Kernel", "LAST_ERROR", "OPTIONAL_FLAGS", "Plan", "STATS", "Unsupported", "build",
           "cache_dir", "cache_limit_bytes", "clear_memory_cache", "enabled", "find_compiler", "kernel",
           "numpy_loop", "precompile", "run", "settle", "status", "supported", "symbol", "toolchain", "trim_cache"]

#: a name exported here -> the modules that hold it (the one defining it, and those that import it)
_HOMES = {name: [m for m in (compiler, loops, codegen, runtime) if vars(m).get(name) is globals()[name]]
          for name in [*__all__, "_compile", "_layout", "_operands"]}


class _Package(types.ModuleType):
    """Setting an exported name here (a test's ``monkeypatch.setattr(native,
    "find_compiler", ...)``) sets it in the module that defines it, where the
    code calling it looks it up."""

    def __setattr__(self, name, value):
        for home in _HOMES.get(name, ()):
            setattr(home, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

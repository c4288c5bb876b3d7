"""The native kernels' runtime: compiled kernels (:class:`Kernel`) and their
in-memory cache, compiling in the background, an operand's layout as the C
code walks it, running a kernel (with helper threads sharing its blocks),
its status for the strategy chooser, precompiling several at once, and what
a fork() must reset."""
from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from ....views import address
from .. import kernel_cache
from . import compiler as _compiler  # (clear_memory_cache's argument has its name)
from .codegen import Plan, Unsupported, _is_type
from .compiler import LAST_ERROR, STATS, build


def enabled() -> bool:
    """``FGRAPH_NATIVE=0`` disables native kernels."""
    return os.environ.get("FGRAPH_NATIVE", "1") != "0"


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
    key = (expr, sig)
    return background(key, lambda: _make(key), wait)


def background(key, make, wait: bool = True):
    """``make()`` (compiled code, or None: it cannot be) for ``key``, made
    once, on the compiler thread, and remembered.  ``wait=False`` returns
    None until it is made."""
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
            _kernels[key] = _submit(make)
    return background(key, make, wait)


def _submit(make) -> Future:
    """``make()`` queued on the compiler thread (made on first use); the caller holds ``_kernels_lock``."""
    global _compiler_pool
    if _compiler_pool is None:
        _compiler_pool = ThreadPoolExecutor(1, thread_name_prefix="fgraph-cc")
    return _compiler_pool.submit(_safely, make)


def later(make) -> Future:
    """``make()`` on the compiler thread, as :func:`background` makes its
    code, but not remembered here: the caller holds the Future, so what it
    makes goes with the caller (a compiled executable's graph, which may
    hold large constants).  :func:`settle` waits for it too."""
    with _kernels_lock:
        future = _submit(make)
        _later.add(future)
    future.add_done_callback(_later.discard)
    return future


_later: set = set()  # the Futures of ``later`` not done yet


def started(key) -> bool:
    """Whether :func:`background` has been asked for ``key`` (made, or being made)."""
    return key in _kernels


def forget_loops() -> None:
    """Forget the loops and steps compiled whole (they are made again when
    next met: a benchmark comparing sizes changes what may be native)."""
    for key in [k for k in _kernels if k and k[0] in ("while_loop", "scan", "step")]:
        del _kernels[key]


def settle() -> None:
    """Wait for every compile under way (a benchmark times steady state)."""
    for k in list(_kernels.values()) + list(_later):
        if isinstance(k, Future):
            k.result()


def _safely(make):
    try:
        return make()
    except Exception as e:  # never let a native problem break a run: NumPy's strategies remain
        STATS["errors"] += 1
        LAST_ERROR[:] = [repr(e)]
        return None


def clear_memory_cache(compiler: bool = True):
    """Forget loaded kernels (and the probed compiler, the manifests read and
    the cache folders distrusted); the disk cache stays."""
    _kernels.clear()
    _layouts.clear()
    kernel_cache.forget()
    if compiler:
        _compiler.forget()


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
INVALID = 1  # the flag bit of FE_INVALID (graph_code's FG_IEEE)
_ERR = ((INVALID, "invalid"), (2, "divide"), (4, "over"), (8, "under"))


def numpy_reports(flags: int) -> bool:
    """Whether NumPy, under ``np.geterr()``, would warn or raise on the IEEE
    ``flags`` native code raised (1 invalid, 2 divide, 4 overflow, 8
    underflow): the caller then runs NumPy's way, which does exactly that."""
    if not flags:
        return False
    err = np.geterr()
    return any(flags & bit and err[name] != "ignore" for bit, name in _ERR)


def pointers(arrays: list):
    """The arrays' data addresses as a C array of pointers."""
    return (ctypes.c_void_p * max(1, len(arrays)))(*[address(x) for x in arrays])


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
    if not enabled() or _compiler.known_missing():
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
    ptrs = pointers(arrays)
    ctl = (ctypes.c_int64 * 4)()
    args = (ptrs, address(out), dims, nd, st, k.table, ctl)
    blocks = -(-dims[nd - 1] // k.block) * (out.size // dims[nd - 1])
    helpers = min(threads, blocks) - 1
    if helpers > 0:
        pool = worker_pool(helpers)
        for _ in range(helpers):  # the task holds every buffer the C code may still read
            pool.submit(_helper, k.fn, args, (ctl, arrays, dims, st, ptrs, out))
    k.fn(*args, 1)
    STATS["runs"] += 1
    flags, failed = ctl[2], ctl[3]
    if failed or numpy_reports(flags):
        STATS["reruns"] += 1
        return False
    return True


def _helper(fn, args, keep):
    fn(*args, 0)


def threads() -> int:
    """The threads native work is shared among: the cores this process may run on, at most 8."""
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8))


_workers: ThreadPoolExecutor | None = None
_workers_size = 0


def worker_pool(n: int) -> ThreadPoolExecutor:
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
    global _workers, _workers_size, _compiler_pool, _kernels_lock
    _workers, _workers_size, _compiler_pool = None, 0, None
    _kernels_lock = threading.Lock()
    for key, k in list(_kernels.items()):
        if isinstance(k, Future) and not k.done():
            del _kernels[key]
    _later.clear()  # (their holders keep running the programs they have)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)

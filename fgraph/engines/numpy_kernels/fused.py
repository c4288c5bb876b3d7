"""NumPy kernels for fused element-wise groups, fma and adagrad.

A fused group runs as straight-line ufunc calls generated once per
expression, or as generated C (the ``native`` package).  Strategies, chosen per
(expression, shape, input dtypes) by measuring the first calls (all give
identical values: element-wise work is not reordered, and native code runs
NumPy's own loops for every op it cannot write exactly in C):

- ``whole``: the ufunc chain over whole arrays, temporaries reused by
  liveness (small arrays: no chunking overhead; a candidate only while its
  temporaries take at most ``WHOLE_SCRATCH_BYTES``: past that size the
  chunked strategies measured as fast or faster);
- ``blocked``: the chain over cache-sized chunks (~32K values) writing into a
  few small reused buffers, so intermediates stay in cache;
- ``threaded``: the blocked chain with chunks shared among threads (NumPy
  releases the GIL inside ufunc loops);
- ``native`` / ``native_threaded``: one generated C loop over the output
  (on the calling thread, or shared with helper threads), when the
  expression has a native form and a C compiler is present.  It compiles in
  the background: until it is ready the other strategies keep being
  measured, so compile time never counts in a trial
  (``native.STATS["compile_s"]`` has it).

Temporaries come from the planner's workspace for the node when there is
one (``fused_workspace``: the most any strategy takes, split among the
threads), else from per-thread pools kept between calls (unplanned runs).
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import native
from ...ops.scratch import ALIGN, carve, carved_nbytes
from ...errors import FgraphError
from ...ops.fused import reduce_result
from ...registry import NUMPY, attr_table, override

CHUNK = 32768  # values per chunk: three float32 buffers of this size fit in L2
SMALL = 4 * CHUNK  # below this many values, chunking cannot pay for itself
_TRIALS = 3  # timed calls per strategy before choosing (the best of them counts)
#: "whole" is measured only while its temporaries take at most this many
#: bytes: its trials on ResNet-50's largest activations (3 MiB each) held
#: 6.6 MB of scratch, a third of the program's peak, where chunked
#: strategies win anyway (ResNet-50's fused batch norms, whole / blocked
#: time: 0.84x at 0.8 MiB of temporaries, 0.95x at 1.5 MiB, 1.13-1.16x at
#: 3 and 6 MiB; native code beat both).  At 256 KiB rather than 1 MiB,
#: ResNet-50's element-wise time at batch 1 stayed 5.5-5.8 ms and its fused
#: scratch fell from 1.65 to 1.0 MB (``python -m fgraph.bench models --quick``).
WHOLE_SCRATCH_BYTES = 1 << 18


# ---------------------------------------------------------------- code generation

class Compiled:
    """A fused expression compiled to one Python function over buffers."""

    def __init__(self, expr: tuple, n_inputs: int):
        self.expr = expr
        self.n_inputs = n_inputs
        self.carved: dict = {}  # (id(workspace), shape) -> (workspace, buffers): see _whole
        last_use = {}
        for t, (_, args, _, _) in enumerate(expr):
            for a in args:
                if a >= 0:
                    last_use[a] = t
        # buffer assignment by liveness.  A temp dying at an instruction gives
        # its buffer to that instruction's result only if the op may write
        # over its inputs (attribute "inplace": not `where`, whose out-form
        # writes one branch before reading the other).
        inplace = attr_table("inplace")
        free: dict[str, list[int]] = {}
        self.buffer_dtypes: list[np.dtype] = []
        slot = {}
        for t, (op, args, _, dt) in enumerate(expr[:-1]):
            dying = list(dict.fromkeys(a for a in args if a >= 0 and last_use[a] == t))  # once each: f(t, t)
            if inplace.get(op) == "all":
                for a in dying:
                    free.setdefault(expr[a][3].str, []).append(slot[a])
                dying = []
            pool = free.get(np.dtype(dt).str)
            if pool:
                slot[t] = pool.pop()
            else:
                slot[t] = len(self.buffer_dtypes)
                self.buffer_dtypes.append(np.dtype(dt))
            for a in dying:
                free.setdefault(expr[a][3].str, []).append(slot[a])
        names = {"np": np}
        out_kernels = attr_table(NUMPY.out)  # f(*args, out=buffer, **params), each op's own
        lines = ["def chunk(ins, out, bufs):"]
        if n_inputs:
            lines.append("    " + "".join(f"i{k}, " for k in range(n_inputs)) + "= ins")
        if self.buffer_dtypes:
            lines.append("    " + "".join(f"b{k}, " for k in range(len(self.buffer_dtypes))) + "= bufs")
        for t, (op, args, params, dt) in enumerate(expr):
            if op not in out_kernels:
                raise FgraphError(f"fused op {op!r} has no NumPy out-kernel")
            names[f"f{t}"] = out_kernels[op]
            kw = dict(params)  # a multi-output ufunc's "output" picks its result
            extra = "".join(f", {k}=p{t}_{k}" for k in kw)
            for k, v in kw.items():
                names[f"p{t}_{k}"] = v
            argstr = ", ".join(f"i{-1 - a}" if a < 0 else f"t{a}" for a in args)
            dst = "out" if t == len(expr) - 1 else f"b{slot[t]}"
            lines.append(f"    t{t} = f{t}({argstr}, out={dst}{extra})")
        lines.append("    return out")
        exec(compile("\n".join(lines), f"<fused {len(expr)} ops>", "exec"), names)
        self.source = "\n".join(lines)
        self.chunk = names["chunk"]

    def scratch_nbytes(self, n: int) -> int:
        """Bytes of the temporaries for ``n`` values."""
        return n * sum(d.itemsize for d in self.buffer_dtypes)

    def scratch_dtypes(self, result: bool = False) -> list[np.dtype]:
        return self.buffer_dtypes + ([np.dtype(self.expr[-1][3])] if result else [])

    def scratch(self, n: int, result: bool = False, workspace=None) -> list[np.ndarray]:
        """Flat temporaries of ``n`` values (``result``: one more, of the
        expression's own dtype, as the last): carved from ``workspace`` (the
        planner's scratch for this node, or this thread's part of it) when
        given and large enough, else from the calling thread's pool."""
        specs = [(n, d) for d in self.scratch_dtypes(result)]
        if workspace is not None and workspace.nbytes >= carved_nbytes(specs):
            return carve(workspace, specs)
        return _scratch([d for _, d in specs], n)


def _part(workspace, i: int, parts: int):
    """Thread ``i``'s share of a workspace split ``parts`` ways (aligned), or None."""
    if workspace is None:
        return None
    step = workspace.nbytes // parts // ALIGN * ALIGN
    return workspace[i * step:(i + 1) * step]


_pools = threading.local()
_all_pools: list = []  # every thread's pool, for scratch_bytes()


def scratch_bytes() -> int:
    """Bytes the fused kernels keep between runs in their scratch pools."""
    return sum(b.nbytes for pool in list(_all_pools) for bufs in list(pool.values()) for b in bufs)


def _scratch(dtypes: list, n: int) -> list[np.ndarray]:
    """``n``-value buffers of these dtypes, reused by every fused kernel that
    runs on this thread (one kernel runs at a time on a thread), so a
    steady-state run allocates nothing and the buffers cost the largest
    request, not one set per expression."""
    kind = "trial" if _trials_running else "bufs"  # trials draw from a pool of their own
    pool = getattr(_pools, kind, None)
    if pool is None:
        pool = {}
        setattr(_pools, kind, pool)
        with _lock:
            _all_pools.append(pool)
            if kind == "trial":
                _trial_pools.append(pool)
    taken: dict = {}
    out = []
    for dt in dtypes:
        j = taken[dt] = taken.get(dt, -1) + 1
        bufs = pool.setdefault(dt, [])
        if j == len(bufs):
            bufs.append(np.empty(n, dt))
        elif bufs[j].size < n:
            bufs[j] = np.empty(n, dt)
        out.append(bufs[j][:n])
    return out


_compiled: dict = {}
_by_id: dict = {}  # id(expr) -> (expr, Compiled)
_choice: dict = {}
#: Trials (timed calls choosing a strategy) take their scratch from
#: per-thread trial pools, emptied whenever an expression has chosen: else
#: every strategy tried on the largest arrays would leave its temporaries
#: in the pool for good, and only the chosen ones need it.  (An expression
#: still measuring then allocates again in one trial; its best of three counts.)
_trials_running = 0
_trial_pools: list = []
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


_threads = native.runtime.threads


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(_threads(), thread_name_prefix="fgraph-fused")
    return _pool


def _forget_pool():
    global _pool
    _pool = None  # its threads did not survive fork(): the child makes its own


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def compiled(expr: tuple, n_inputs: int) -> Compiled:
    # by identity first: a program passes the same expr object every run, and
    # hashing a long nested tuple each call costs more than a small kernel
    hit = _by_id.get(id(expr))
    if hit is not None and hit[0] is expr and hit[1].n_inputs == n_inputs:
        return hit[1]
    # keyed by the inputs' count too: the generated function unpacks every input, and a group may
    # have inputs its expression no longer reads (the same expression over 1 or 3 inputs)
    c = _compiled.get((expr, n_inputs))
    if c is None:
        c = _compiled[(expr, n_inputs)] = Compiled(expr, n_inputs)
    if len(_by_id) > 4096:
        _by_id.clear()
    _by_id[id(expr)] = (expr, c)  # (the expr held: its id cannot be reused while the entry lives)
    return c


# ---------------------------------------------------------------- strategies

def _whole(c: Compiled, ins, out, ws=None):
    if ws is not None:  # a planned workspace is the same array every run: its buffers are carved once
        hit = c.carved.get((id(ws), out.shape))
        if hit is not None and hit[0] is ws:
            return c.chunk(ins, out, hit[1])
    bufs = [b.reshape(out.shape) for b in c.scratch(out.size, workspace=ws)]
    if ws is not None and all(np.shares_memory(b, ws) for b in bufs):
        if len(c.carved) > 64:
            c.carved.clear()
        c.carved[(id(ws), out.shape)] = (ws, bufs)  # (ws held: its id cannot be reused meanwhile)
    return c.chunk(ins, out, bufs)


def _blocks(shape: tuple, whole: int = 0):
    """Index tuples covering ``shape`` in blocks of about CHUNK values; the
    last ``whole`` axes are never split."""
    inner = 1
    k = len(shape)
    for d in shape[len(shape) - whole:]:
        inner *= d
    k -= whole
    while k > 0 and inner * shape[k - 1] <= CHUNK:
        k -= 1
        inner *= shape[k]
    if k == 0:
        return [()]
    step = max(1, CHUNK // inner)
    lead = itertools.product(*(range(d) for d in shape[:k - 1]))
    return [idx + (slice(s, min(s + step, shape[k - 1])),) for idx in lead for s in range(0, shape[k - 1], step)]


def _run_blocks(c: Compiled, ins, out, blocks, ws=None):
    bufs_flat = c.scratch(CHUNK if len(blocks) > 1 else out.size, workspace=ws)
    for idx in blocks:
        if not idx:  # one block: the whole arrays (indexing a 0-d array with () gives a scalar)
            c.chunk(ins, out, [b[:out.size].reshape(out.shape) for b in bufs_flat])
            continue
        o = out[idx]
        n = o.size
        bufs = [b[:n].reshape(o.shape) for b in bufs_flat]
        c.chunk(tuple(x[idx] if isinstance(x, np.ndarray) and x.ndim else x for x in ins), o, bufs)
    return out


def _prepare(ins, shape):
    """Inputs broadcast (as views) to the output's shape, so one index fits all."""
    return tuple(np.broadcast_to(x, shape) if isinstance(x, np.ndarray) and x.shape != shape and x.ndim else x
                 for x in ins)


def _blocked(c, ins, out, ws=None):
    return _run_blocks(c, _prepare(ins, out.shape), out, _blocks(out.shape), ws)


def _threaded(c, ins, out, ws=None):
    blocks = _blocks(out.shape)
    n = _threads()
    if n == 1 or len(blocks) < 2 * n:
        return _run_blocks(c, _prepare(ins, out.shape), out, blocks, ws)
    prepared = _prepare(ins, out.shape)
    list(_executor().map(lambda i: _run_blocks(c, prepared, out, blocks[i::n], _part(ws, i, n)), range(n)))
    return out


def _native(c, ins, out, ws=None):  # generated C needs no scratch
    return out if native.run(c.expr, ins, out, 1) else _blocked(c, ins, out, ws)


def _native_threaded(c, ins, out, ws=None):
    return out if native.run(c.expr, ins, out, _threads()) else _threaded(c, ins, out, ws)


STRATEGIES = {"whole": _whole, "blocked": _blocked, "threaded": _threaded, "native": _native,
              "native_threaded": _native_threaded}
_NATIVE = ("native", "native_threaded")


def _candidates(c, ins, out) -> dict:
    """The strategies worth measuring for this call: ``whole`` only while
    its temporaries are small (see ``WHOLE_SCRATCH_BYTES``), native ones
    when the expression has a native form (compiling starts here, in the
    background)."""
    small = c.scratch_nbytes(out.size) <= WHOLE_SCRATCH_BYTES
    names = [s for s in STRATEGIES if (s != "whole" or small) and s not in _NATIVE]
    if native.status(c.expr, ins, out) != "no":
        names += ["native"] + (["native_threaded"] if _threads() > 1 else [])
    return {name: [] for name in names}


def run_fused(*ins, expr, shape, sources=(), out=None, strategy=None, workspace=None):
    """Evaluate a fused expression; ``out`` may be given (the memory planner's),
    and ``workspace``, the planner's scratch (see ``fused_workspace``)."""
    c = compiled(expr, len(ins))
    dtype = np.dtype(expr[-1][3])
    if out is None:
        out = np.empty(shape, dtype)
    if strategy is not None:
        return STRATEGIES[strategy](c, ins, out, workspace)
    size = out.size
    if size < SMALL:
        return _whole(c, ins, out, workspace)
    key = (expr, shape, tuple(getattr(x, "dtype", type(x)) for x in ins))
    choice = _choice.get(key)
    if isinstance(choice, str):
        return STRATEGIES[choice](c, ins, out, workspace)
    # measure: run each candidate _TRIALS times, interleaved, then keep the
    # fastest; native candidates join once compiled, leave if that fails.
    # The timings are shared by every executable (and thread) running this
    # expression: they are read and changed under _lock only, the trial
    # itself runs outside it.
    fresh = _candidates(c, ins, out) if choice is None else None  # (native.status outside the lock)
    seen = fresh if choice is None else choice
    state = native.status(c.expr, ins, out) if any(s in seen for s in _NATIVE) else "no"
    global _trials_running
    with _lock:
        choice = _choice.get(key)
        if isinstance(choice, str):  # another thread chose meanwhile
            name = None
        else:
            timings = fresh if choice is None else choice  # (timings never go back to None)
            _choice[key] = timings
            if state == "no":
                for s in _NATIVE:
                    timings.pop(s, None)
                if not timings:  # native won against every other, then became unavailable
                    timings["blocked"] = []
            ready = [s for s in timings if state == "ready" or s not in _NATIVE]
            name = min(ready, key=lambda s: len(timings[s])) if ready else "blocked"
            if ready:
                _trials_running += 1
    if name is None:
        return STRATEGIES[choice](c, ins, out, workspace)
    if not ready:  # only native left, and this call's layout is still compiling
        return _blocked(c, ins, out, workspace)
    try:
        t0 = time.perf_counter()
        STRATEGIES[name](c, ins, out, workspace)
        took = time.perf_counter() - t0
    finally:
        with _lock:
            _trials_running -= 1
    with _lock:
        timings = _choice.get(key)
        if isinstance(timings, str) or name not in timings:  # chosen, or this one dropped, meanwhile
            return out
        timings[name].append(took)
        # a candidate twice as slow as the best, twice measured (the first call
        # pays one-time costs), is out: the choice settles in fewer calls
        best = min(min(v) for v in timings.values() if v)
        for s in [s for s, v in timings.items() if len(v) >= 2 and min(v) > 2 * best]:
            del timings[s]
        settled = all(len(v) >= _TRIALS for v in timings.values())
        if settled:
            _choice[key] = min(timings, key=lambda s: min(timings[s]))
    if settled:
        _release_trial_scratch()
    return out


def _release_trial_scratch() -> None:
    with _lock:
        if not _trials_running:
            for pool in _trial_pools:
                pool.clear()


def run_fused_reduce(*ins, expr, shape, reduce, axis, keepdims, dtype=None, sources=(), out=None, workspace=None):
    """An element-wise expression reduced over its trailing ``axis``, a
    block of whole rows at a time: each row sees NumPy's own reduction.
    (Native code for the blocks' values did not pay when measured on this
    2-core machine: with the reduction and a native call per block counted,
    the ufunc chain over cache-sized blocks was as fast.)"""
    c = compiled(expr, len(ins))
    fn = getattr(np, reduce)
    kw = {} if dtype is None else {"dtype": dtype}
    k = len(shape) - len(axis)
    if out is None:
        out = np.empty(*reduce_result(expr, shape, reduce, axis, keepdims, dtype))
    prepared = _prepare(ins, shape)
    blocks = _blocks(shape, whole=len(axis))
    flat = c.scratch(_reduce_block(shape, axis), result=True, workspace=workspace)
    for idx in blocks:
        idx = idx + (slice(None),) * (len(shape) - len(idx))
        rows = tuple(range(*s.indices(d)) if isinstance(s, slice) else s for s, d in zip(idx[:k], shape))
        block_shape = tuple(len(r) if isinstance(r, range) else 1 for r in rows) + shape[k:]
        n = _size(block_shape)
        bufs = [b[:n].reshape(block_shape) for b in flat]
        value = bufs.pop()
        lead = tuple(slice(r.start, r.stop) if isinstance(r, range) else slice(r, r + 1) for r in rows)
        c.chunk(tuple(x[lead] if isinstance(x, np.ndarray) and x.ndim else x for x in prepared), value, bufs)
        target = out[lead] if keepdims else out[lead[:k]]
        fn(value, axis=axis, keepdims=keepdims, out=target, **kw)
    return out


def _reduce_block(shape, axis) -> int:
    """Values per block of ``run_fused_reduce``: whole rows, about CHUNK."""
    return max(1, min(_size(shape), max(CHUNK, _size(shape[len(shape) - len(axis):]))))


# ---------------------------------------------------------------- planned scratch
#
# ``numpy_workspace`` sizers: with them the memory planner places a fused
# kernel's temporaries in the arena, live at its step only (in the holes
# other kernels' scratch leaves), instead of per-thread pools kept between
# runs; the trials that choose a strategy use the same block.

def fused_workspace(node) -> int:
    """Bytes of the most scratch any strategy of ``run_fused`` takes for
    ``node``: the whole arrays' temporaries (below ``SMALL`` values, or
    while within ``WHOLE_SCRATCH_BYTES``), one CHUNK of them per thread
    (the blocked strategies); generated C takes none."""
    c = compiled(node.param("expr"), len(node.inputs))
    size = _size(node.shape)
    whole = carved_nbytes([(size, d) for d in c.buffer_dtypes])
    if size < SMALL:
        return whole
    blocked = _threads() * (carved_nbytes([(CHUNK, d) for d in c.buffer_dtypes]) + ALIGN)  # + each part's alignment
    return max(blocked, whole if c.scratch_nbytes(size) <= WHOLE_SCRATCH_BYTES else 0)


def fused_reduce_workspace(node) -> int:
    """Bytes of ``run_fused_reduce``'s block buffers for ``node``."""
    c = compiled(node.param("expr"), len(node.inputs))
    n = _reduce_block(node.param("shape"), node.param("axis"))
    return carved_nbytes([(n, d) for d in c.scratch_dtypes(result=True)])


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


# the NumPy engine's own runtime for the optimiser's fused groups
override("numpy", "fused", run_fused, out=run_fused, workspace=fused_workspace)
override("numpy", "fused_reduce", run_fused_reduce, out=run_fused_reduce, workspace=fused_reduce_workspace)


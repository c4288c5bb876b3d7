"""An eager step as one native function.

Incremental evaluation (:mod:`fgraph.engines.incremental`) computes, at each
fetch, the sub-graph above the values already known: a *step*.  A step
structure that comes back (a loop's body, written NumPy's way) runs as one
C function (:class:`.graph_code.GraphCode`) once compiled: no Python
between its ops, its temporaries fused away or in a small workspace, its
results written once.  Its inputs are the known arrays, then the Python
scalars it met (weak inputs: NEP 50 promotes them as Python scalars), so a
scalar that changes every step (Adam's ``1 - b1 ** t``) keeps the program.

A call that cannot run natively returns None (the caller then runs the
step's interpreter): an input not as compiled, a Python int that does not
fit the dtype NumPy would cast it to, or IEEE flags NumPy would warn or
raise on (the interpreter does exactly that).
"""
from __future__ import annotations

import ctypes
import struct
import sys

import numpy as np

from ....graph import Graph
from ....ops.indexing_kernels import basic_index
from ...race import Race
from .codegen import Unsupported
from .compiler import STATS, build
from .graph_code import GraphCode, constant_arrays, declined, operand, sources, workspace
from .graph_threads import threaded
from .runtime import INVALID, address, background, enabled, later, numpy_reports, started, threads, worker_pool

_DRIVER = """
int FG_NAMEGRAPH(char *const *in, char *const *k, char *const *out, char *ws, int64_t *flags) {
  feclearexcept(FE_ALL_EXCEPT);
  FG_NAMEGRAPH_graph(in, k, out, ws);
  *flags = FG_IEEE(fetestexcept(FE_ALL_EXCEPT));
  return 0;
}
"""
#: the largest arrays a step compiled whole may hold (larger: the programs' threaded kernels); between
#: 65,536 elements and this, incremental evaluation times it against the optimised program
MAX_VALUES = 1 << 22
#: the most step structures compiled in a process: each costs a compiler run and stays loaded, and a
#: program whose steps keep changing structure gains nothing from more
MAX_STEPS = 1024
#: a step with a value this large also runs on every core (``graph_threads``); smaller ones, where starting
#: the helpers costs more than they share, on the caller's thread alone
THREADED_ELEMENTS = 1 << 17
_started = [0]
_SCALAR = {bool: np.dtype(bool), int: np.dtype(np.int64), float: np.dtype(np.float64)}
#: a Python scalar's struct code for the dtype it is compiled as (NativeStep._table), padded to 8 bytes
_PACK = {"b1": "?7x", "i8": "q", "f8": "d"}


def _int_range(codes) -> tuple:
    """The Python ints that fit every dtype of ``codes`` (NumPy casts a weak int to each)."""
    infos = [np.iinfo(np.dtype(code)) for code in codes]
    return max(int(i.min) for i in infos), min(int(i.max) for i in infos)


class NativeStep:
    """A step graph (inputs: its arrays' placeholders, then weak 0-d ones
    for its Python scalars) compiled whole: ``step(values) -> results``."""

    def __init__(self, graph, shared: bool = False):
        self.n_results = len(graph.outputs)
        self.views = _view_results(graph)
        if self.views:
            graph = Graph([o for j, o in enumerate(graph.outputs) if j not in self.views], inputs=graph.inputs)
        self.code = GraphCode(graph, "FG_NAME_graph", max_values=MAX_VALUES)
        # The same step with quiet comparisons (twice as slow), run when a call raised FE_INVALID: the
        # fast one's vectorised comparisons raise it on a NaN, where NumPy's raise nothing
        quiet = GraphCode(graph, "FG_NAME_quiet_graph", max_values=MAX_VALUES, quiet=True)
        codes, drivers = [self.code], [_DRIVER.replace("FG_NAMEGRAPH", "FG_NAME")]
        self.quiet = quiet.source().replace("FG_NAME_quiet_graph", "FG_NAME_graph") != self.code.source()
        if self.quiet:
            codes.append(quiet)
            drivers.append(_DRIVER.replace("FG_NAMEGRAPH", "FG_NAME_quiet"))
        self.inputs = [(p.shape, p.dtype, p.weak) for p in graph.inputs]
        self.outputs = [(o.shape, o.dtype) for o in graph.outputs]
        # a step of large arrays as a function every thread of a call runs (graph_threads.py)
        self.shared, self.n_ctl = threaded(self.code, "FG_NAME_shared") if shared else (None, 0)
        self.source = "\n".join([sources(*codes), *drivers, self.shared or ""])
        self.fn = self.quiet_fn = self.shared_fn = self._how = None
        self._spare = [[] for _ in self.outputs]  # results handed out before, per output (``_result``)
        # One table per call holds the pointers of in, k and out, then the Python scalars themselves,
        # packed by one struct call, 8 bytes each (a 0-d array made for each and its address read: 0.6 us a
        # scalar, 7 of Adam's 13-scalar step's 20 us of glue)
        self._weak = [j for j, (_, _, weak) in enumerate(self.inputs) if weak]
        codes = [f"{self.inputs[j][1].kind}{self.inputs[j][1].itemsize}" for j in self._weak]
        if any(c not in _PACK for c in codes):
            raise Unsupported(f"a Python scalar held as {codes}")
        self._pack = "=" + "".join(_PACK[c] for c in codes)
        self._weak_types = None  # the Python types of the scalars last checked (they rarely change)
        self._int_limits = [(j, *_int_range(codes)) for j, codes in self.code.weak_ints.items()]
        n_ptrs = len(self.inputs) + len(self.code.constants) + len(self.outputs)
        self._table = ctypes.c_int64 * (n_ptrs + len(self._weak))
        self._n_ptrs = n_ptrs

    def bind(self, lib, name: str) -> "NativeStep":
        self.lib = lib
        self.fn = _entry(lib, name)
        self.quiet_fn = _entry(lib, name + "_quiet") if self.quiet else None
        if self.shared is not None:
            self.shared_fn = _entry(lib, name + "_shared")
            self._how = Race(self._shared, self._serial)
        return self

    def __call__(self, values: list) -> list | None:
        scalars = [values[j] for j in self._weak]
        if self._weak_types != (types := tuple(map(type, scalars))):
            # a Python scalar of the kind compiled (as NumPy would hold it), or the interpreter runs
            for j, t in zip(self._weak, types):
                if t not in _SCALAR or _SCALAR[t].kind != self.inputs[j][1].kind:
                    return None
            self._weak_types = types
        for j, low, high in self._int_limits:  # a Python int must fit where NumPy casts it
            if not low <= values[j] <= high:
                return None
        arrays = [None] * len(values)
        c_inputs = self.code.c_inputs
        for j, (v, (shape, dtype, weak)) in enumerate(zip(values, self.inputs)):
            if not weak:
                a = arrays[j] = operand(v, shape, dtype, j in c_inputs)
                if a is None:
                    return None
        outs = [self._result(j) for j in range(len(self.outputs))]
        ws, ws_at = workspace(self.code.workspace) if self.code.workspace else (None, 0)
        # (held through the call: a copy made there has no other owner)
        consts = constant_arrays(self.code) if self.code.constants else []
        table = self._table()
        at = ctypes.addressof(table)
        n_in, n_ptrs = len(values), self._n_ptrs
        slot = at + 8 * n_ptrs  # the scalars' slots, after the pointers
        for j in self._weak:
            arrays[j] = slot
            slot += 8
        table[:n_ptrs] = [a if type(a) is int else address(a) for a in arrays + consts + outs]
        if scalars:
            try:
                struct.pack_into(self._pack, table, 8 * n_ptrs, *scalars)
            except (struct.error, OverflowError):  # an int past int64: the interpreter raises NumPy's error
                return None
        flags = ctypes.c_int64(0)
        args = (at, at + 8 * n_in, at + 8 * (n_ptrs - len(outs)), ws_at, ctypes.byref(flags))
        if self.shared_fn is not None:
            # one thread or all: timed, the faster kept (a helper held up by other work on the machine
            # holds up the call; the serial run is checked again now and then)
            self._how((args, (table, [a for a in consts if a.size == 1],
                              [a for a in arrays if type(a) is not int and a.size == 1]), flags))
        else:
            self.fn(*args)
        if flags.value & INVALID and self.quiet_fn is not None and numpy_reports(flags.value):
            self.quiet_fn(*args)  # (every result is written again)
        if numpy_reports(flags.value):
            return None
        STATS["steps"] += 1
        if not self.views:
            return outs
        computed = iter(outs)
        results = [None if j in self.views else next(computed) for j in range(self.n_results)]
        for j, (from_input, k, key) in self.views.items():
            results[j] = basic_index(arrays[k] if from_input else results[k], key)
        return results

    def _serial(self, call) -> None:
        self.fn(*call[0])

    def _shared(self, call) -> None:
        """The call run by this thread and ``threads() - 1`` helpers."""
        args, ones, flags = call
        ctl = np.zeros(self.n_ctl, np.int64)
        shared = args[:4] + (address(ctl),)
        helpers = threads() - 1
        pool = worker_pool(helpers)
        # A helper that starts after the work is all done reads only ctl, the pointer table (the scalars
        # in it) and the one-value inputs its locals load: it holds those.  (Holding the results or the
        # large inputs would keep this step's buffers from the next call's reuse: fresh pages every step.)
        keep = (ctl, ones)
        for _ in range(helpers):
            pool.submit(_run, self.shared_fn, shared, keep)
        self.shared_fn(*shared)
        flags.value = int(ctl[0])
        STATS["shared_steps"] += 1

    def _result(self, j: int) -> np.ndarray:
        """A buffer for result ``j``: one this step handed out before that
        nothing holds any more (its value was dropped: only this list refers
        to it), else a new one.  A new large array is fresh pages from the
        system, zeroed as first written: 4 of adam's 5 ms a step at 262,144
        elements.  The kept one and the one in use alternate, as the old
        and new values of a loop's arrays do, so no more memory is held."""
        shape, dtype = self.outputs[j]
        spare = self._spare[j]
        for a in spare:
            # the list, this loop's name and getrefcount's argument: no one else (another thread
            # holding it counts too, so two calls never take the same one)
            if sys.getrefcount(a) == 3:
                return a
        a = np.empty(shape, dtype)
        if a.nbytes >= _SPARE_BYTES:
            spare.append(a)
            if len(spare) > 2:
                del spare[0]
        return a


def _view_results(graph) -> dict:
    """Results that are basic views (``slice``) of an array input or of a
    result the code computes: ``{j: (of an input, its position, key)}``.
    They are made as NumPy views after the call, as the interpreter makes
    them, not copied (Adam's ``xl, xr = x[:-1], x[1:]``, held across a step
    that moves x: two of its ten results)."""
    inputs = {id(p): j for j, p in enumerate(graph.inputs) if not p.weak}
    results: dict = {}
    for j, o in enumerate(graph.outputs):
        results.setdefault(id(o), j)
    views = {}
    for j, o in enumerate(graph.outputs):
        if o.op != "slice" or results[id(o)] != j:
            continue
        x = o.inputs[0]
        if id(x) in inputs:
            views[j] = (True, inputs[id(x)], o.param("key"))
        elif id(x) in results and x.op != "slice":
            views[j] = (False, results[id(x)], o.param("key"))
    # (a result the code computes must be left: a graph of no results is no function)
    return views if len(views) < len(graph.outputs) else {}


#: results at least this large are reused (``NativeStep._result``); smaller ones come from malloc's free lists
_SPARE_BYTES = 1 << 18


def _run(fn, args, keep):
    fn(*args)


def _entry(lib, name: str):
    fn = getattr(lib, name)
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p] * 5
    return fn


def _make(graph, shared: bool) -> NativeStep | None:
    if graph is None:
        return None
    try:
        step = NativeStep(graph, shared)
    except Unsupported as e:
        declined("an eager step", e)
        return None
    (built,) = build([step.source])
    return None if built is None else step.bind(*built)


def native_graph(graph, elements: int):
    """A Future of ``graph`` (stateless, over placeholders: a compiled
    executable's) compiled whole (its NativeStep, or None: it cannot be), or
    None where it will not be compiled: too large (the programs' threaded
    kernels win), no compiler, or MAX_STEPS compiled already.  Not
    remembered by key: the caller holds what it makes."""
    if elements > MAX_VALUES or not enabled() or _started[0] >= MAX_STEPS:
        return None
    _started[0] += 1
    shared = _sharing(elements)
    return later(lambda: _make(graph, shared))


def _sharing(elements: int) -> bool:
    """Whether a graph of arrays this large is also compiled to run on every core."""
    return threads() > 1 and elements >= THREADED_ELEMENTS


def native_step(key, graph_of, elements: int):
    """The step of structure ``key`` compiled whole, or None: too large (the
    programs' threaded kernels win), it cannot be, or it is still compiling
    in the background.  ``graph_of()`` gives its graph (None: it cannot be
    native); it is called once, when the compile starts."""
    if elements > MAX_VALUES or not enabled():
        return None
    shared = _sharing(elements)
    key = ("step", key, shared)
    if started(key):
        return background(key, None, wait=False)
    if _started[0] >= MAX_STEPS:
        return None
    _started[0] += 1
    graph = graph_of()
    return background(key, lambda: _make(graph, shared), wait=False)

"""A ``while_loop`` or ``scan`` as one native function: its condition and
its body (followed by the next test) as :class:`.graph_code.GraphCode`,
run by a loop written in C.  A trip then costs its arithmetic: no Python,
no kernel call, no allocation (a compiled body program costs 1-4 us of
Python a kernel, more than the work of a small body).

The carries live in two sets of buffers written in turn (libnnc's
co-allocated loop carries).  IEEE flags the work raised come back: where
NumPy would warn or raise, the loop runs again as compiled programs, which
do exactly that.  What a body may hold: see :mod:`.graph_code`.
"""
from __future__ import annotations

import ctypes

import numpy as np

from .codegen import Unsupported
from .compiler import STATS, build
from .graph_code import GraphCode, constant_arrays, declined, operand, sources, workspace
from .runtime import background, enabled, numpy_reports, pointers

#: trips per native call: between calls Python runs, so Ctrl-C stops an endless loop
TRIPS_PER_CALL_VALUES = 1 << 24

# ---------------------------------------------------------------- the loop in C, and running it

_DRIVER = """
/* The loop.  st: [0] trips run, [1] the test (-1: not yet evaluated), [2] the buffer set holding the
   carries (-1: still the initial ones), [3] IEEE flags (1 invalid, 2 divide, 4 overflow, 8 underflow).
   Runs at most `limit` trips a call: the caller calls again while the test holds. */
int FG_NAME(char *const *init, char *const *consts, char *const *kc, char *const *ks, char *const *sets,
            char *ws, int64_t *st, int64_t limit) {
  char *in[NIN + 1], *cin[NC + NCC + 1], *out[NC + 2];
  uint8_t go = 0;
  feclearexcept(FE_ALL_EXCEPT);
  for (int j = 0; j < NC; j++) in[j] = st[2] < 0 ? init[j] : sets[st[2] * NC + j];
  for (int j = NC; j < NIN; j++) in[j] = consts[j - NC];
  if (st[1] < 0) {
    for (int j = 0; j < NC; j++) cin[j] = in[j];
    for (int j = 0; j < NCC; j++) cin[NC + j] = consts[NIN - NC - NCC + j];
    out[0] = (char *)&go;
    FG_NAME_cond(cin, kc, out, ws);
    st[1] = go;
  }
  int64_t n = 0;
  while (st[1] && n < limit) {
    const int64_t dst = st[2] < 0 ? 0 : 1 - st[2];
    for (int j = 0; j < NC; j++) out[j] = sets[dst * NC + j];
    out[NC] = (char *)&go;
    FG_NAME_step(in, ks, out, ws);
    for (int j = 0; j < NC; j++) in[j] = out[j];
    st[1] = go;
    st[2] = dst;
    n++;
  }
  st[0] += n;
  st[3] |= FG_IEEE(fetestexcept(FE_ALL_EXCEPT));
  return 0;
}
"""

_SCAN_DRIVER = """
/* The scan.  st: [0] trips run, [2] the buffer set holding the carries (-1: still the initial ones),
   [3] IEEE flags.  Row t of each xs is read, row t of each ys written, in place. */
int FG_NAME(char *const *init, char *const *xs, char *const *consts, char *const *ks, char *const *sets,
            char *const *ys, char *ws, int64_t *st, int64_t length, int64_t limit) {
  char *in[NIN + 1], *out[NC + NY + 1];
  static const int64_t xrow[NX + 1] = {XROW}, yrow[NY + 1] = {YROW};
  feclearexcept(FE_ALL_EXCEPT);
  for (int j = 0; j < NC; j++) in[j] = st[2] < 0 ? init[j] : sets[st[2] * NC + j];
  for (int j = NC + NX; j < NIN; j++) in[j] = consts[j - NC - NX];
  int64_t n = 0;
  while (st[0] < length && n < limit) {
    const int64_t t = REVERSE ? length - 1 - st[0] : st[0], dst = st[2] < 0 ? 0 : 1 - st[2];
    for (int j = 0; j < NX; j++) in[NC + j] = xs[j] + t * xrow[j];
    for (int j = 0; j < NC; j++) out[j] = sets[dst * NC + j];
    for (int j = 0; j < NY; j++) out[NC + j] = ys[j] + t * yrow[j];
    FG_NAME_step(in, ks, out, ws);
    for (int j = 0; j < NC; j++) in[j] = out[j];
    st[2] = dst;
    st[0]++;
    n++;
  }
""" + _DRIVER[_DRIVER.index("  st[3] |= FG_IEEE"):]



class _Loop:
    """What a loop compiled whole has in common: its body (``step``, a
    :class:`GraphCode`), binding the built function, preparing operands,
    and the end of a run."""

    step: GraphCode
    n_carry: int

    def _sizes(self, graph) -> None:
        self.inputs = [(p.shape, p.dtype) for p in graph.inputs]
        stored = sum(n.size for n in self.step.order if id(n) in self.step.home) + 1
        self.limit = max(1, TRIPS_PER_CALL_VALUES // stored)  # trips a call
        self.fn = None

    def bind(self, lib, name: str, pointers: int, ints: int):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p] * pointers + [ctypes.c_int64] * ints
        self.lib, self.fn = lib, fn
        return self

    def _operands(self, values) -> list | None:
        """The inputs as C reads them, or None (see :func:`.graph_code.operand`)."""
        arrays = []
        for j, (x, (shape, dtype)) in enumerate(zip(values, self.inputs)):
            a = operand(x, shape, dtype, j in self.c_inputs)
            if a is None:
                return None
            arrays.append(a)
        return arrays

    def _buffers(self):
        """The carries' two buffer sets, and the workspace with its aligned address."""
        sets = [np.empty(shape, dtype) for _ in range(2) for shape, dtype in self.inputs[:self.n_carry]]
        return (sets, *workspace(self.workspace))

    def _carries(self, st, init: list, sets: list) -> list | None:
        """The final carries, or None when the work raised flags NumPy would warn or raise on."""
        if numpy_reports(st[3]):
            return None
        STATS["loops"] += 1
        nc = self.n_carry
        return init if st[2] < 0 else sets[st[2] * nc:(st[2] + 1) * nc]


class NativeWhile(_Loop):
    """A ``while_loop`` compiled whole, from its condition graph and its
    stepped graph (the body, then the next test: inputs the carries, the
    body's constants, the condition's; results the carries, then the test)."""

    def __init__(self, cond, step, n_carry: int):
        self.n_carry = n_carry
        self.cond, self.step = GraphCode(cond, "FG_NAME_cond"), GraphCode(step, "FG_NAME_step")
        self._sizes(step)
        self.workspace = max(self.cond.workspace, self.step.workspace)
        n_cond = len(cond.inputs) - n_carry  # (the condition's constants come last in the step's inputs)
        self.c_inputs = self.step.c_inputs | {j if j < n_carry else len(step.inputs) - n_cond + j - n_carry
                                              for j in self.cond.c_inputs}
        sizes = {"NIN": len(step.inputs), "NC": n_carry, "NCC": len(cond.inputs) - n_carry}
        self.source = "\n".join([f"#define {k} {v}" for k, v in sizes.items()] +
                                [sources(self.cond, self.step), _DRIVER])

    def bind(self, lib, name: str) -> "NativeWhile":
        return super().bind(lib, name, 7, 1)

    def run(self, carry: list, body_consts: list, cond_consts: list) -> list | None:
        """The final carries, or None where this call cannot run natively
        (an operand not as compiled, or flags NumPy would warn or raise on:
        the caller then runs the loop as programs)."""
        nc = self.n_carry
        arrays = self._operands(list(carry) + list(body_consts) + list(cond_consts))
        if arrays is None:
            return None
        sets, ws, ws_at = self._buffers()
        st = (ctypes.c_int64 * 4)(0, -1, -1, 0)
        kc, ks = constant_arrays(self.cond), constant_arrays(self.step)  # (held through the calls)
        args = (pointers(arrays[:nc]), pointers(arrays[nc:]), pointers(kc), pointers(ks), pointers(sets), ws_at, st,
                self.limit)
        while True:
            self.fn(*args)
            if not st[1]:
                break
        return self._carries(st, arrays[:nc], sets)


class NativeScan(_Loop):
    """A ``scan`` compiled whole, from its body graph (inputs the carries,
    a row of each xs, the constants; results the carries, then each ys row)."""

    def __init__(self, body, n_carry: int, n_xs: int, reverse: bool):
        self.n_carry, self.n_xs = n_carry, n_xs
        self.step = GraphCode(body, "FG_NAME_step")
        self._sizes(body)
        self.workspace = self.step.workspace
        self.c_inputs = {j for j in self.step.c_inputs if not n_carry <= j < n_carry + n_xs}
        self.ys = [(o.shape, o.dtype) for o in body.outputs[n_carry:]]
        rows = {"XROW": [p.nbytes for p in body.inputs[n_carry:n_carry + n_xs]], "YROW": [o.nbytes for o in
                                                                                          body.outputs[n_carry:]]}
        sizes = {"NIN": len(body.inputs), "NC": n_carry, "NX": n_xs, "NY": len(self.ys), "REVERSE": int(reverse),
                 **{k: ", ".join(map(str, v + [0])) for k, v in rows.items()}}
        self.source = "\n".join([f"#define {k} {v}" for k, v in sizes.items()] +
                                [sources(self.step), _SCAN_DRIVER])

    def bind(self, lib, name: str) -> "NativeScan":
        return super().bind(lib, name, 8, 2)

    def run(self, carry: list, xs: list, consts: list, length: int) -> tuple | None:
        """(final carries, stacked ys), or None (see :meth:`NativeWhile.run`)."""
        nc, nx = self.n_carry, self.n_xs
        rows = [np.asarray(x) for x in xs]
        if any(x.shape[:1] != (length,) for x in rows):
            return None
        arrays = self._operands(list(carry) + [x[0] if length else np.empty(s, d) for x, (s, d) in
                                               zip(rows, self.inputs[nc:nc + nx])] + list(consts))
        if arrays is None:
            return None
        if any(nc <= j < nc + nx and not rows[j - nc].flags.c_contiguous for j in self.step.c_inputs):
            return None
        rows = [x if x.flags.c_contiguous and x.flags.aligned else np.ascontiguousarray(x) for x in rows]
        ys = [np.empty((length,) + shape, dtype) for shape, dtype in self.ys]
        sets, ws, ws_at = self._buffers()
        st = (ctypes.c_int64 * 4)(0, 0, -1, 0)
        ks = constant_arrays(self.step)  # (held through the calls: a copy made there has no other owner)
        args = (pointers(arrays[:nc]), pointers(rows), pointers(arrays[nc + nx:]), pointers(ks), pointers(sets),
                pointers(ys), ws_at, st, length, self.limit)
        while st[0] < length:
            self.fn(*args)
        carries = self._carries(st, arrays[:nc], sets)
        return None if carries is None else (carries, ys)


def _built(loop: _Loop) -> _Loop | None:
    (built,) = build([loop.source])
    return None if built is None else loop.bind(*built)


def _make(kind, *args) -> _Loop | None:
    try:
        return _built(kind(*args))
    except Unsupported as e:
        declined(f"a {kind.__name__[6:].lower()}", e)
        return None


def native_while(cond, step, n_carry: int, wait: bool = False) -> NativeWhile | None:
    """The loop of condition graph ``cond`` and stepped graph ``step``
    compiled whole, or None: it cannot be (then it never will), or it is
    still compiling in the background (``wait=False``: until then the loop
    runs as programs)."""
    if not enabled():
        return None
    return background(("while_loop", cond, step, n_carry), lambda: _make(NativeWhile, cond, step, n_carry), wait)


def native_scan(body, n_carry: int, n_xs: int, reverse: bool, wait: bool = False) -> NativeScan | None:
    """The scan of body graph ``body`` compiled whole, or None (as :func:`native_while`)."""
    if not enabled():
        return None
    return background(("scan", body, n_carry, n_xs, bool(reverse)),
                      lambda: _make(NativeScan, body, n_carry, n_xs, bool(reverse)), wait)

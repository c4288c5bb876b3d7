"""What ``fgraph.compile`` returns: call it with feeds, get results.

Feeds are checked against their placeholders (name, shape, dtype) before
anything runs.  Each variable owns one buffer for the life of the
executable, and a step is all-or-nothing: nothing writes a variable's
buffer while the graph runs.  An update that may overwrite its variable is
written into a spare buffer of the variable's size (allocated once, at
compile time); the other updates stay in the arena.  Once every node has
run, and the results are ready, all the new values are copied into their
variables in one C-level pass that no Python signal handler can enter.  So
whatever a run raises (a kernel's error, ``FloatingPointError`` under
``np.errstate``, ``MemoryError``, ``KeyboardInterrupt`` at any moment),
either every update lands or none does, and a training step allocates
nothing for its state.
"""
from __future__ import annotations

import bisect
import collections
import dataclasses
import difflib
import itertools
import operator
import threading
import time
from typing import Any, Iterator, Mapping

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError, also, user_location
from ..graph import Graph
from ..symbol import error_at, no_gc
from ..registry import kernel_attrs
from ..tensor import PLACEHOLDERS
from .arena import ArenaPlan
from .numpy_kernels.control import body_reports
from .program import Program, may_alias


def _unknown_feeds(names: list, placeholders: list, variables, made) -> str:
    """Why feeds named ``names`` are refused, with the closest names there are (this graph's
    placeholders and variables first, then any placeholder made)."""
    parts = []
    for k in names:
        if k in variables:
            parts.append(f"{k!r} is a variable (variables are set with exe.assign)")
            continue
        close = difflib.get_close_matches(k, list(dict.fromkeys([*placeholders, *sorted(variables), *sorted(made)])),
                                          n=3, cutoff=0.6)
        parts.append(f"{k!r} names no placeholder" + (f" (did you mean {' or '.join(map(repr, close))}?)"
                                                       if close else ""))
    return f"unknown feed name(s): {'; '.join(parts)}; this graph's placeholders: {placeholders}"


def _commit(targets: list, values: list) -> None:
    """``target[...] = value`` for every pair, as one C-level loop: no Python
    bytecode runs between two copies, so no signal handler (Ctrl-C's
    KeyboardInterrupt included) can stop the commit half-way; a signal that
    arrives during it is handled once every variable is written."""
    collections.deque(map(operator.setitem, targets, itertools.repeat(Ellipsis), values), maxlen=0)


def _extent(arr) -> tuple[int, int] | None:
    """The bytes ``[lo, hi)`` that ``arr``'s elements span in its address
    space (None when its array interface does not say)."""
    face = getattr(arr, "__array_interface__", None) or getattr(arr, "__cuda_array_interface__", None)
    if face is None or face.get("data") is None:
        return None
    lo = hi = face["data"][0]
    itemsize = arr.dtype.itemsize
    if arr.size == 0:
        return lo, lo
    strides = face.get("strides") or ()
    for n, st in zip(arr.shape, strides):
        if st < 0:
            lo += st * (n - 1)
        else:
            hi += st * (n - 1)
    if not strides:  # C-contiguous
        hi += itemsize * (arr.size - 1)
    return lo, hi + itemsize


class Variables(Mapping):
    """``exe.variables``: read-only views of the variables' buffers, which
    later steps update in place.  ``copy()`` is ``exe.snapshot()``: a copy
    of every variable taken between two steps, so consistent while other
    threads step."""

    __slots__ = ("_views", "_owner")

    def __init__(self, views: dict, owner):
        self._views, self._owner = views, owner

    def __getitem__(self, name: str):
        return self._views[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._views)

    def __len__(self) -> int:
        return len(self._views)

    def copy(self) -> dict:
        """Every variable's value, copied between two steps (see ``snapshot``)."""
        return self._owner.snapshot()

    def __repr__(self):
        return f"Variables({self._views!r})"


class Runner:
    """What every compiled graph shares, whatever runs it: ``exe(*feeds,
    **feeds)`` and ``exe.run(steps)``, with feeds checked against their
    placeholders before anything runs.  A subclass sets ``graph``,
    ``_device`` (for its array module), ``_lock`` (held by every step),
    ``_placeholders``, ``_feed_order`` and ``_variable_names``, and
    implements ``_step`` and ``variables``."""

    def snapshot(self) -> dict:
        """A copy of every variable, ``{name: array}``, taken while no step
        runs: consistent even while other threads call the executable (a
        read of ``exe.variables`` then may see one step's update half
        copied).  The arrays are the caller's: writable, never changed."""
        with self._lock:
            return {name: value.copy() for name, value in self.variables.items()}

    @property
    def inputs(self) -> list[str]:
        """Placeholder names, in the order positional feeds fill them."""
        return list(self._feed_order)

    def __call__(self, *args, **feeds):
        """Evaluate once with these feeds, apply the updates, return the results."""
        bound = self._bind(args, feeds)
        with self._lock:
            return self._step(bound)

    def run(self, steps: int = 1, *args, **feeds):
        """Run ``steps`` evaluations with the same feeds; returns the last results."""
        if int(steps) < 1:
            raise error_at(FgraphError, "run", f"steps must be >= 1, got {steps}")
        bound = self._bind(args, feeds)
        result = None
        with self._lock:
            for _ in range(int(steps)):
                result = None  # the last step's results go before the next step allocates its own
                result = self._step(bound)
        return result

    def _bind(self, args, feeds) -> dict:
        where = user_location(3)
        if len(args) > len(self._feed_order):
            raise error_at(FgraphError, "feed", f"{len(args)} positional feeds given, the graph has "
                                                f"{len(self._feed_order)} placeholder(s) {self._feed_order}", where)
        named = dict(zip(self._feed_order, args))
        for k, v in feeds.items():
            if k in named:
                raise error_at(FgraphError, "feed", f"placeholder {k!r} is fed twice", where)
            named[k] = v
        unknown = [k for k in named if k not in self._placeholders]
        if unknown:
            made = {n.name for n in list(PLACEHOLDERS)}
            refused = [k for k in unknown if k not in made or k in self._variable_names]
            if refused:
                raise error_at(FgraphError, "feed", _unknown_feeds(refused, self._feed_order, self._variable_names,
                                                                   made), where)
            for k in unknown:  # placeholders the graph's outputs do not use: ignored, as jit ignores an argument
                del named[k]
        missing = [k for k in self._feed_order if k not in named]
        if missing:
            raise error_at(FgraphError, "feed", f"missing feed(s) for placeholder(s) {missing}", where)
        bound = {}
        for name, value in named.items():
            ph = self._placeholders[name]
            arr = self._check_feed(ph, value, where)
            bound[name] = arr
        return bound

    def _check_feed(self, ph, value, where):
        xp = self._device.xp
        if isinstance(value, (list, tuple, int, float, bool, complex)):
            value = self._converted(ph, value, where)
        if not hasattr(value, "shape") or not hasattr(value, "dtype"):
            raise error_at(DTypeError, "feed", f"placeholder {ph.name!r} was fed a {type(value).__name__}, "
                                               "not an array", where)
        if tuple(value.shape) != ph.shape:
            raise error_at(ShapeError, "feed", f"placeholder {ph.name!r} expects shape {ph.shape}, "
                                               f"got {tuple(value.shape)}", where)
        if value.dtype != ph.dtype:
            raise error_at(DTypeError, "feed", f"placeholder {ph.name!r} expects dtype {ph.dtype}, "
                                               f"got {value.dtype}", where)
        return self._device.asarray(value) if not isinstance(value, xp.ndarray) else value

    @staticmethod
    def _converted(ph, value, where):
        """A Python scalar or sequence as NumPy converts it for ``ph``'s dtype
        (``np.asarray(value, dtype)``): a value out of the dtype's range
        raises, as NumPy's does, rather than wrapping; a kind the dtype
        cannot take safely (a float for an integer placeholder) keeps its
        own dtype, refused by the dtype check that follows."""
        try:
            arr = np.asarray(value)
            # Python ints convert by value into any integer dtype (NEP 50), unsigned ones too; object
            # is Python ints past int64, which NumPy converts or refuses by the target dtype
            kinds = arr.dtype.kind + ph.dtype.kind
            if arr.dtype != ph.dtype and (kinds[0] == "O" or kinds in ("iu", "ui")
                                          or np.can_cast(arr.dtype, ph.dtype, "same_kind")):
                arr = np.asarray(value, dtype=ph.dtype)
        except (OverflowError, ValueError, TypeError) as e:
            raise error_at(also(type(e)), "feed", f"placeholder {ph.name!r} ({ph.dtype}{list(ph.shape)}) cannot "
                                                  f"take {_short(value)}: {e}", where) from None
        return arr

    def _step(self, bound: dict):
        raise NotImplementedError


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Executable(Runner):
    """A graph compiled for an array engine (NumPy, CuPy): one arena and a
    program of kernels.  ``exe(*feeds, **feeds)`` runs one step."""

    #: keyword options of ``engine.compile`` this class takes (besides plan_memory and micro_batch)
    OPTIONS: tuple = ()

    def __init__(self, graph: Graph, engine, kernel_attr: str, plan_memory: bool = True, arena=None):
        """``arena``: a flat device buffer to run in instead of allocating
        one, used when it holds the plan (the caller makes sure that no
        other program running in it runs at the same time)."""
        self.graph = graph
        self.engine = engine
        self._device = engine.device
        self._lock = threading.Lock()  # one arena: calls take turns
        roots = graph.roots()
        # the variables' buffers: written only by a step's commit (or assign), never replaced
        self._buffers: dict[str, Any] = {n.name: self._device.asarray(n.param("value").array).copy()
                                         for n in graph.variables}
        # name -> where its in-place update is written during a run, copied in at the commit
        self._spares: dict[str, Any] = {}
        in_place: dict[int, Any] = {}
        with no_gc():
            if plan_memory:
                # kernel scratch ("numpy_workspace" for "numpy_kernel") is planned in the arena too
                self._plan = ArenaPlan(graph.outputs, graph.updates,
                                       workspace_attr=kernel_attrs(kernel_attr).workspace)
                need = self._plan.plan.arena_bytes
                self._arena = arena if arena is not None and arena.nbytes >= need else self._device.allocate(need)
                outs = {k: self._device.view(self._arena, self._plan.offset(k), n.shape, n.dtype)
                        for k, n in enumerate(self._plan.order) if self._plan.storage[k]}
                in_place = self._plan.update_in_place
                for k, n in enumerate(self._plan.order):
                    if id(n) in in_place:
                        # not the variable's buffer: a run that fails after this node must leave it unchanged
                        name = in_place[id(n)].name
                        self._spares[name] = outs[k] = self._device.xp.empty_like(self._buffers[name])
                scratch = {k: self._device.view(self._arena, off, (size,), "uint8")
                           for k, (off, size) in self._plan.workspaces().items()}
                self._program = Program(roots, kernel_attr, engine.name, order=self._plan.order, outs=outs,
                                        workspaces=scratch)
            else:
                self._plan, self._arena = None, None
                self._program = Program(roots, kernel_attr, engine.name)
        prog = self._program
        self._program_kernel_attr = kernel_attr
        self._out_slots = [prog.slot[id(n)] for n in graph.outputs]
        # every update is copied in at the commit (one value may update several variables)
        self._update_slots = [(var.name, prog.slot[id(v)]) for var, v in graph.updates]
        self._placeholders = {n.name: n for n in graph.placeholders}
        self._feed_order = [n.name for n in graph.placeholders]
        self._state = Variables({name: self._frozen(buf.view()) for name, buf in self._buffers.items()}, self)
        # slot -> how to fill it before a run
        self._fill = []
        template = [None] * len(prog.order)
        for k, n in prog.leaves.items():
            if n.op == "placeholder":
                self._fill.append((k, "feed", n.name))
            elif n.op == "variable":
                self._fill.append((k, "state", n.name))
        self._template = template
        self._buffer_ids = {id(b) for b in self._buffers.values()}
        self._spare_ids = {id(b) for b in self._spares.values()}
        # the buffers' extents, sorted (they are disjoint): a feed overlapping one is copied before a run
        spans = sorted(e for e in map(_extent, self._buffers.values()) if e is not None and e[0] < e[1])
        self._span_starts = [lo for lo, _ in spans]
        self._span_ends = [hi for _, hi in spans]
        self._variable_names = frozenset(self._buffers)
        #: {node: seconds} from the last ``profile()`` (None before one)
        self.timings = None
        # constants' frozen arrays: outputs that alias them are copied
        self._constant_ids = frozenset(id(n.param("value").array) for n in prog.order if n.op == "constant")

    # -- public
    @property
    def memory(self):
        """Arena bytes, lower bound, no-reuse total and their ratio (None when
        compiled with plan_memory=False); ``bodies``: the same for each loop's body."""
        if self._plan is None:
            return None
        bodies = body_reports(self._program.order, self._program_kernel_attr, self._device)
        return dataclasses.replace(self._plan.report, bodies=bodies) if bodies else self._plan.report

    @property
    def variables(self) -> Mapping[str, Any]:
        """The variables' current values: read-only views of the state, which
        later steps update in place (``exe.snapshot()`` or
        ``exe.variables.copy()`` copies them all between two steps)."""
        return self._state

    def assign(self, **values) -> None:
        """Set variables by name (shape and dtype must match)."""
        checked = []
        for name, value in values.items():  # check them all before changing any
            if name not in self._buffers:
                raise error_at(FgraphError, "assign", f"no variable named {name!r}; variables: {sorted(self._buffers)}")
            old = self._buffers[name]
            arr = self._device.asarray(value)
            if arr.shape != old.shape or arr.dtype != old.dtype:
                raise error_at(FgraphError, "assign", f"variable {name!r} is {old.dtype}{list(old.shape)}, "
                                                      f"got {arr.dtype}{list(arr.shape)}")
            checked.append((old, arr.copy() if self._overlaps_state(arr) else arr))
        with self._lock:
            _commit([old for old, _ in checked], [arr for _, arr in checked])  # all of them or none

    # -- internals
    def _overlaps_state(self, arr) -> bool:
        """Whether ``arr``'s bytes may overlap a variable's buffer (a view of
        ``exe.variables``, or memory it shares by any other route)."""
        span = _extent(arr) if isinstance(arr, self._device.xp.ndarray) else None
        if span is None or span[0] == span[1]:
            return False
        j = bisect.bisect_left(self._span_starts, span[1]) - 1  # the last buffer starting below arr's end
        return j >= 0 and self._span_ends[j] > span[0]

    def _step(self, bound: dict):
        prog = self._program
        values = list(self._template)
        buffers = self._buffers
        persistent = set(self._constant_ids)
        persistent.update(self._buffer_ids)
        persistent.update(self._spare_ids)  # the next run overwrites them
        if self._arena is not None:
            persistent.add(id(self._arena))
        for k, kind, name in self._fill:
            if kind == "feed":
                arr = bound[name]
                if self._span_starts and self._overlaps_state(arr):
                    arr = arr.copy()  # the value at call time, whatever this step's commit writes
            else:
                arr = buffers[name]
            values[k] = arr
            persistent.add(id(arr))
        prog.run(values)
        # copy out first: an output may be a variable's old value
        outs = []
        for slot in self._out_slots:
            arr = self._as_array(values[slot], prog.order[slot])
            if may_alias(arr, persistent):
                arr = arr.copy()
            outs.append(arr)
        targets, news = [], []
        for name, slot in self._update_slots:
            arr = self._as_array(values[slot], prog.order[slot])
            buf = buffers[name]
            if arr is buf:
                continue
            if may_alias(arr, self._buffer_ids):
                arr = arr.copy()  # another variable's old value: writing that one must not change it
            targets.append(buf)
            news.append(arr)
        results = self.graph.unflatten(outs)
        # the commit, last: anything raised before it leaves every variable as it was
        _commit(targets, news)
        return results

    # -- profiling
    def profile(self, *args, runs: int = 5, **feeds) -> dict:
        """Time each kernel: run the program ``runs`` times with these feeds
        and return ``{node: seconds}``, each node's best time (also kept as
        ``exe.timings``; ``fgraph.report`` shows them).  The variables are
        not updated: the runs stop before the commit."""
        if int(runs) < 1:
            raise error_at(FgraphError, "profile", f"runs must be >= 1, got {runs}")
        bound = self._bind(args, feeds)
        best = None
        with self._lock:
            for _ in range(int(runs)):
                times = self._timed_run(bound)
                best = times if best is None else list(map(min, best, times))
        order, instructions = self._program.order, self._program.instructions
        self.timings = {order[ins[3]]: t for ins, t in zip(instructions, best)}
        return dict(self.timings)

    def _timed_run(self, bound: dict) -> list:
        """One run of the program (no commit), in ``Program.run``'s loop, each
        instruction timed (seconds, in program order); a device that queues
        work is synchronised after each kernel, so its time is its own.
        ``bound``: feeds by placeholder name (the bench's profile uses it too)."""
        prog, values, sync = self._program, list(self._template), self._device.synchronize
        for k, kind, name in self._fill:
            values[k] = bound[name] if kind == "feed" else self._buffers[name]
        times = []
        clock = time.perf_counter
        for kernel, ins, params, out, free, target in prog.instructions:
            t0 = clock()
            if target is None:
                values[out] = kernel(*[values[i] for i in ins], **params)
            else:
                kernel(*[values[i] for i in ins], out=target, **params)
                values[out] = target
            sync()
            times.append(clock() - t0)
            for f in free:
                values[f] = None
        return times

    def _as_array(self, value, node):
        xp = self._device.xp
        if isinstance(value, xp.ndarray) and value.dtype == node.dtype:
            return value
        return xp.asarray(value, dtype=node.dtype)

    @staticmethod
    def _frozen(arr):
        if hasattr(arr, "flags"):
            try:
                arr.flags.writeable = False
            except (ValueError, AttributeError):
                pass
        return arr

    def __repr__(self):
        return f"<fgraph.Executable {self.engine.name}: {len(self._program.instructions)} kernels>"

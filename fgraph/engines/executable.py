"""What ``fgraph.compile`` returns: call it with feeds, get results.

Feeds are checked against their placeholders (name, shape, dtype) before
anything runs.  Each variable owns one buffer for the life of the
executable.  An update that may overwrite its variable is written into that
buffer during the run, after every node that reads the old value and every
node that can fail on its data; the other updates are copied in after the
run.  So a failed call leaves the variables as they were, and a training
step allocates nothing for its state.
"""
from __future__ import annotations

import difflib
import threading
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError, user_location
from ..graph import Graph
from ..symbol import error_at, no_gc
from .arena import ArenaPlan
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


class Runner:
    """What every compiled graph shares, whatever runs it: ``exe(*feeds,
    **feeds)`` and ``exe.run(steps)``, with feeds checked against their
    placeholders before anything runs.  A subclass sets ``graph``,
    ``_device`` (for its array module), ``_lock``, ``_placeholders``,
    ``_feed_order`` and ``_variable_names``, and implements ``_step``."""

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
            from ..numpy import _PLACEHOLDERS  # (the namespace sits below the engines)

            made = {n.name for n in list(_PLACEHOLDERS)}
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
            arr = np.asarray(value)
            if arr.dtype != ph.dtype and np.can_cast(arr.dtype, ph.dtype, "same_kind"):
                arr = arr.astype(ph.dtype)
            value = arr
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

    def _step(self, bound: dict):
        raise NotImplementedError


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
        # the variables' buffers: written in place by the run, never replaced
        self._buffers: dict[str, Any] = {n.name: self._device.asarray(n.param("value").array).copy()
                                         for n in graph.variables}
        in_place: dict[int, Any] = {}
        with no_gc():
            if plan_memory:
                # kernel scratch ("numpy_workspace" for "numpy_kernel") is planned in the arena too
                self._plan = ArenaPlan(graph.outputs, graph.updates,
                                       workspace_attr=kernel_attr.replace("_kernel", "_workspace"))
                need = self._plan.plan.arena_bytes
                self._arena = arena if arena is not None and arena.nbytes >= need else self._device.allocate(need)
                outs = {k: self._device.view(self._arena, self._plan.offset(k), n.shape, n.dtype)
                        for k, n in enumerate(self._plan.order) if self._plan.storage[k]}
                in_place = self._plan.update_in_place
                for k, n in enumerate(self._plan.order):
                    if id(n) in in_place:
                        outs[k] = self._buffers[in_place[id(n)].name]
                scratch = {k: self._device.view(self._arena, off, (size,), "uint8")
                           for k, (off, size) in self._plan.workspaces().items()}
                self._program = Program(roots, kernel_attr, engine.name, order=self._plan.order, outs=outs,
                                        workspaces=scratch)
            else:
                self._plan, self._arena = None, None
                self._program = Program(roots, kernel_attr, engine.name)
        prog = self._program
        self._out_slots = [prog.slot[id(n)] for n in graph.outputs]
        # updates still to copy after a run (one value may update several variables)
        self._update_slots = [(var.name, prog.slot[id(v)]) for var, v in graph.updates
                              if in_place.get(id(v)) is not var]
        self._placeholders = {n.name: n for n in graph.placeholders}
        self._feed_order = [n.name for n in graph.placeholders]
        self._state = MappingProxyType({name: self._frozen(buf.view()) for name, buf in self._buffers.items()})
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
        self._variable_names = frozenset(self._buffers)
        # constants' frozen arrays: outputs that alias them are copied
        self._constant_ids = frozenset(id(n.param("value").array) for n in prog.order if n.op == "constant")

    # -- public
    @property
    def memory(self):
        """Arena bytes, lower bound, no-reuse total and their ratio (None when
        compiled with plan_memory=False)."""
        return None if self._plan is None else self._plan.report

    @property
    def variables(self) -> Mapping[str, Any]:
        """The variables' current values: read-only views of the state, which
        later steps update in place (copy one to keep a snapshot)."""
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
            checked.append((old, arr))
        with self._lock:
            for old, arr in checked:
                old[...] = arr

    # -- internals
    def _step(self, bound: dict):
        prog = self._program
        values = list(self._template)
        buffers = self._buffers
        persistent = set(self._constant_ids)
        persistent.update(id(b) for b in buffers.values())
        if self._arena is not None:
            persistent.add(id(self._arena))
        for k, kind, name in self._fill:
            arr = bound[name] if kind == "feed" else buffers[name]
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
        news = []
        for name, slot in self._update_slots:
            arr = self._as_array(values[slot], prog.order[slot])
            if arr is not buffers[name] and may_alias(arr, self._buffer_ids):
                arr = arr.copy()  # another variable's old value: writing that one must not change it
            news.append((buffers[name], arr))
        for buf, arr in news:
            if arr is not buf:
                buf[...] = arr
        return self.graph.unflatten(outs)

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

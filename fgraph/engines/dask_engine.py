"""The Dask engine: a graph lowered to ``dask.array`` and run chunk by chunk,
on dask's threaded scheduler or on a ``dask.distributed`` cluster.

    exe = fgraph.compile(g, engine="dask", chunks="auto", client=None)
    exe(x=big)                      # NumPy results; x: a NumPy or dask array
    fgraph.compile(g, engine="dask", compute=False)(x=big)   # dask arrays

The graph is optimised first (``optimise=False`` skips it), and reductions
are fused into the element-wise group they reduce over any axes
(``fuse_reductions``): a fused group then runs as one NumPy kernel per
block, a fused reduction reduces each block's cache-sized pieces as it
computes them, which is where the engine beats the same computation written
by hand in dask.array.  ``chunks`` defaults to dask's "auto" with blocks of
about 16 MiB (``dask_kernels.AUTO_BYTES``).  Each
op lowers through its ``dask_lowering`` attribute, registered with
``override("dask", op, fn)`` (see ``dask_kernels/``, one module per op
family); an op without one, or whose lowering is ``Refused``, is refused
when the graph is compiled, naming the op, the reason and the line that
made it.  Every call lowers the graph again on the new feeds
(cheap: dask graphs are lazy) and computes all outputs and updates in one
``dask.compute`` (or one ``client.compute``), so shared work is done once.
"""
from __future__ import annotations

import threading
from types import MappingProxyType, SimpleNamespace
from typing import Any, Mapping

import dask
import dask.array as da
import numpy as np

from ..cache import ResultCache
from ..errors import FgraphError, format_location
from ..symbol import error_at, make_node, no_gc
from ..registry import Refused, attr_table, get_attr, kernel_attrs
from . import dask_kernels as lowering
from .dask_kernels.elementwise import elementwise
from .executable import Runner
from .program import may_alias, order_below

DASK, NUMPY = kernel_attrs("dask"), kernel_attrs("numpy")
_LOWERINGS = attr_table(DASK.kernel)
_LEAVES = ("placeholder", "variable")


class _Host:
    """What the shared feed checks need of a device: feeds may be NumPy or
    dask arrays; NumPy ones are taken as they are (no copy)."""

    name = "dask"
    xp = SimpleNamespace(ndarray=(np.ndarray, da.Array))

    @staticmethod
    def asarray(x, dtype=None):
        return x if isinstance(x, da.Array) else np.asarray(x, dtype=dtype)


def lowering_of(node):
    """The node's lowering: its op's ``dask_lowering``, or the element-wise one
    for an op that says ``elementwise=True`` and has a NumPy kernel."""
    fn = _LOWERINGS.get(node.op)
    if fn is None and get_attr(node.op, "elementwise", False) and get_attr(node.op, NUMPY.kernel, None):
        fn = elementwise
    if isinstance(fn, Refused):
        raise FgraphError(f"{node.op}: the dask engine cannot run it: {fn.reason}\n"
                          f"  node made at {format_location(node.where)}")
    if fn is None:
        raise FgraphError(f"op {node.op!r} has no Dask lowering (no {DASK.kernel!r} attribute): the dask engine "
                          f"cannot run it\n  node made at {format_location(node.where)}")
    return fn


class Lowered:
    """A graph's nodes in order with their lowerings (looked up, and refused
    when missing, once); ``build`` makes the dask arrays for one set of leaves."""

    def __init__(self, roots, known: Mapping[int, Any] | None = None):
        self.known = known or {}
        self.roots = list(roots)
        with no_gc():
            self.order = order_below(self.roots, self.known)
        self.steps = []
        for n in self.order:
            if id(n) in self.known or n.op in _LEAVES:
                self.steps.append(None)
            else:
                self.steps.append(lowering_of(n))

    def build(self, ctx: lowering.Context, leaf) -> list:
        """Dask arrays for the roots; ``leaf(node)`` gives placeholders',
        variables' (and known nodes') values."""
        values: dict[int, Any] = {}
        for n, fn in zip(self.order, self.steps):
            if fn is None:
                values[id(n)] = ctx.array(leaf(n), n.name if n.op in _LEAVES else None)
                continue
            if n.size == 0:  # no values to compute (and dask's reshape/take trip over empty axes)
                values[id(n)] = da.zeros(n.shape, dtype=n.dtype, chunks=ctx.chunks_for(n.shape, n.dtype))
                continue
            try:
                out = fn(ctx, n, *[values[id(i)] for i in n.inputs])
            except FgraphError:
                raise
            except Exception as e:  # a case the lowering cannot take: name the node, not dask's internals
                raise FgraphError(f"{n.op}: the dask lowering failed: {type(e).__name__}: {e}\n"
                                  f"  node made at {format_location(n.where)}") from e
            values[id(n)] = _checked(n, out)
        return [_as_array(values[id(r)], r) for r in self.roots]


def _checked(node, out):
    """A lowering's result, cast to the node's dtype where dask promoted
    differently (a bool matmul sums counts, ...); its shape must agree."""
    if not isinstance(out, da.Array):
        return out  # a literal stays a Python scalar
    if out.shape != node.shape:
        raise FgraphError(f"{node.op}: the dask lowering made shape {out.shape}, the node has {node.shape}\n"
                          f"  node made at {format_location(node.where)}")
    return out if out.dtype == node.dtype else out.astype(node.dtype)


def _as_array(value, node):
    return value if isinstance(value, da.Array) else lowering.as_dask(value, node)


def fuse_reductions(graph):
    """Fuse reductions into the element-wise group they reduce, over any axes.

    The optimiser does it only over trailing axes with one axis kept (the
    NumPy kernel works a block of rows at a time); a dask block reduces its
    own pieces whatever the axes, so the rest (full reductions, most often)
    fuse here, for this engine only.  Pure: returns a new graph (or the same).
    """
    from ..ops.fused import FUSABLE_REDUCTIONS
    from ..optimiser.framework import rewrite

    users: dict[int, int] = {}
    for n in graph.nodes():
        for i in n.inputs:
            users[id(i)] = users.get(id(i), 0) + 1
    roots = {id(r) for r in graph.roots()}
    origin: dict[int, Any] = {}

    def fuse(n):
        if n.op not in FUSABLE_REDUCTIONS or len(n.inputs) != 1:
            return n
        f = n.inputs[0]
        f0 = origin.get(id(f), f)
        params = dict(n.params)
        if f.op != "fused" or set(params) - {"axis", "keepdims", "dtype"} or not params.get("axis") \
                or users.get(id(f0)) != 1 or id(f0) in roots:
            return n
        node = make_node("fused_reduce", f.inputs, (
            ("expr", f.param("expr")), ("shape", f.shape), ("reduce", n.op), ("axis", tuple(params["axis"])),
            ("keepdims", bool(params.get("keepdims"))), ("dtype", params.get("dtype")),
            ("sources", f.param("sources") + ((n.op, n.name, format_location(n.where)),))), name=n.name)
        if node.shape != n.shape or node.dtype != n.dtype:
            return n
        return node.replace(where=n.where)

    return rewrite(graph, fuse, origin)


def compute(arrays: list, client=None) -> list:
    """All arrays in one computation (shared chunks computed once)."""
    if not arrays:
        return []
    try:
        if client is not None:
            return list(client.gather(client.compute(list(arrays))))
        return list(dask.compute(*arrays))
    except FgraphError:
        raise
    except Exception as e:
        raise FgraphError(f"the dask computation failed: {type(e).__name__}: {e}") from e


def _frozen(arr):
    if isinstance(arr, np.ndarray):
        arr.flags.writeable = False
    return arr


class DaskExecutable(Runner):
    """A graph compiled for the Dask engine: the same interface as the NumPy
    engine's executable (feeds checked by the same code), results computed
    by dask.  Variables hold NumPy arrays (dask arrays with ``compute=False``)."""

    def __init__(self, graph, engine, chunks=None, client=None, compute=True):
        self.graph = graph
        self.engine = engine
        self._device = _Host()
        self._lock = threading.Lock()
        self._ctx = lowering.Context(chunks)
        self._client = client
        self._compute = bool(compute)
        self._placeholders = {n.name: n for n in graph.placeholders}
        self._feed_order = [n.name for n in graph.placeholders]
        self._set_state({n.name: _frozen(np.array(n.param("value").array)) for n in graph.variables})
        self._lowered = Lowered(graph.roots())
        self._constant_ids = frozenset(id(n.param("value").array) for n in self._lowered.order if n.op == "constant")
        # lower once on stand-ins (lazy zeros), so a case no lowering takes
        # is refused now, naming the op, rather than at the first call
        stand_in = {n.name: da.zeros(n.shape, dtype=n.dtype, chunks=self._ctx.chunks_for(n.shape, n.dtype, n.name))
                    for n in graph.inputs}
        self._lowered.build(self._ctx, lambda n: stand_in[n.name])

    def _set_state(self, values: dict) -> None:
        self._values = values
        self._variable_names = frozenset(values)

    @property
    def memory(self):
        """None: dask allocates per block; there is no arena to report."""
        return None

    @property
    def variables(self) -> Mapping[str, Any]:
        """Current values of the variables (read-only)."""
        return MappingProxyType(self._values)

    def assign(self, **values) -> None:
        """Set variables by name (shape and dtype must match)."""
        new = dict(self._values)
        for name, value in values.items():
            if name not in new:
                raise error_at(FgraphError, "assign", f"no variable named {name!r}; variables: {sorted(new)}")
            old = new[name]
            arr = self._device.asarray(value)
            if arr.shape != old.shape or arr.dtype != old.dtype:
                raise error_at(FgraphError, "assign", f"variable {name!r} is {old.dtype}{list(old.shape)}, "
                                                      f"got {arr.dtype}{list(arr.shape)}")
            new[name] = arr if isinstance(arr, da.Array) else _frozen(np.array(arr))
        with self._lock:
            self._set_state(new)

    def lower(self, *args, **feeds) -> Any:
        """The dask arrays of the outputs for these feeds, not computed (the
        updates are not applied)."""
        bound = self._bind(args, feeds)
        arrays = self._build(bound)
        return self.graph.unflatten(arrays[:len(self.graph.outputs)])

    def _build(self, bound: dict) -> list:
        values = self._values
        return self._lowered.build(self._ctx, lambda n: bound[n.name] if n.op == "placeholder" else values[n.name])

    def _step(self, bound: dict):
        arrays = self._build(bound)
        n_out = len(self.graph.outputs)
        names = [var.name for var, _ in self.graph.updates]
        if not self._compute:
            self._set_state({**self._values, **dict(zip(names, arrays[n_out:]))})
            return self.graph.unflatten(arrays[:n_out])
        results = compute(arrays, self._client)
        # copy what may alias an array the caller or the engine keeps
        persistent = set(self._constant_ids)
        persistent.update(id(a) for a in bound.values())
        persistent.update(id(a) for a in self._values.values())
        outs = []
        for r, node in zip(results[:n_out], self.graph.outputs):
            arr = _result(r, node)
            if not arr.flags.writeable or may_alias(arr, persistent):
                arr = arr.copy()
            persistent.add(id(arr))
            outs.append(arr)
        new = dict(self._values)
        for name, r, node in zip(names, results[n_out:], (v for _, v in self.graph.updates)):
            arr = _result(r, node)
            if may_alias(arr, persistent):
                arr = arr.copy()
            persistent.add(id(arr))
            new[name] = _frozen(arr)
        self._set_state(new)  # only now: a failure above changed nothing
        return self.graph.unflatten(outs)

    def __repr__(self):
        where = "threads" if self._client is None else repr(self._client)
        return f"<fgraph.Executable dask: {sum(s is not None for s in self._lowered.steps)} ops on {where}>"


def _result(value, node) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype != node.dtype:
        arr = arr.astype(node.dtype)
    if arr.shape != node.shape:
        raise FgraphError(f"{node.op}: the dask engine computed shape {arr.shape}, the node has {node.shape}\n"
                          f"  node made at {format_location(node.where)}")
    return arr


class DaskEngine:
    """Lowers graphs to dask.array (see the module docstring)."""

    name = "dask"
    device = _Host()

    def __init__(self, cache_bytes: int = 256 << 20):
        self.cache = ResultCache(cache_bytes)

    def compile(self, graph, chunks=None, client=None, optimise: bool = True, compute: bool = True,
                plan_memory: bool = True, **options) -> DaskExecutable:
        """``chunks``: dask's forms ("auto", an int, a tuple, ``{axis: n}``) for
        every input and created array, or ``{placeholder name: chunks}``;
        ``client``: a ``distributed.Client`` to run on (default: dask's
        threaded scheduler); ``optimise``: run ``fgraph.optimise`` first
        (fusion); ``compute=False``: calls return dask arrays.
        ``plan_memory`` is accepted for symmetry and ignored (dask allocates)."""
        if options:
            raise FgraphError(f"dask engine: unknown compile option(s) {sorted(options)}; known: chunks, client, "
                              "optimise, compute")
        if optimise:
            from ..optimiser import optimise as run_optimiser

            graph = fuse_reductions(run_optimiser(graph))
        return DaskExecutable(graph, self, chunks=chunks, client=client, compute=compute)

    def evaluate(self, nodes, chunks=None, client=None, **options) -> list[np.ndarray]:
        """Evaluate nodes outside a compiled graph (``t.eval()`` on a
        ``fgraph.make(engine="dask", chunks=..., client=...)`` stack): results
        are memoised by structural key and returned read-only."""
        results = [self.cache.get(n.key) for n in nodes]
        todo = list({id(n): n for n, r in zip(nodes, results) if r is None}.values())
        if todo:
            known = self.cache.known_below(todo)
            low = Lowered(todo, known)
            arrays = low.build(lowering.Context(chunks), lambda n: self._leaf_value(n, known))
            done = {}
            for n, r in zip(todo, compute(arrays, client)):
                arr = _result(r, n)
                if arr.flags.writeable:
                    arr = arr if arr.base is None and arr.flags.owndata else arr.copy()
                    arr.flags.writeable = False
                self.cache.put(n.key, arr)
                done[id(n)] = arr
            results = [done[id(n)] if r is None else r for n, r in zip(nodes, results)]
        return results

    @staticmethod
    def _leaf_value(n, known: dict):
        if n.op == "placeholder":
            raise FgraphError(f"placeholder {n.name!r} has no value: evaluate through "
                              f"fgraph.compile(graph, engine='dask')(**feeds) (made at {format_location(n.where)})")
        if n.op == "variable":
            return n.param("value").array
        return known[id(n)]


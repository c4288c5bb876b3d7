"""Micro-batched execution: a graph run a few rows of its batch at a time.

    exe = fgraph.compile(g, micro_batch=2)          # every placeholder whose
    exe = fgraph.compile(g, micro_batch=(2, ["x"]))  # leading dim is the batch
    probs = exe(x=images)                           # the same results as the plain compile

A graph knows which values are computed row by row along the batch axis
(axis 0 of the batched feeds): an inference network -- convolutions, pools,
batch norm in inference form, products with weights on the right,
element-wise work, reductions and softmax over other axes, reshapes and
slices that keep axis 0 -- gives row ``i`` of its outputs from row ``i`` of
its feeds alone.  Such a graph is rebuilt with the batched placeholders at
``k`` rows (each node's shape rule re-applied; the few params that hold the
batch size rewritten), compiled by the ordinary engine into its own arena,
planned for ``k`` rows, and run once per chunk of ``k`` rows (a second
program for a shorter last chunk, run in the same arena).  Peak memory
follows ``k``, not the batch: the arena is about ``k / batch`` of the
plain one.

Results equal the plain compile's: bit for bit for element-wise, reduction,
convolution and pooling work; a matrix product of fewer rows may take
another BLAS path and round differently (a few ulps).

The batch analysis reads each op's rule (``batch_rule``, fgraph/ops/batching.py) over the nodes
in topological order (no recursion, linear in nodes).  A node that depends
on no batched feed is kept as it is (shared by the chunk graphs; computed in
each chunk, as it would be once per call: constants are folded by
``fgraph.optimise`` anyway).  A node that mixes rows (a reduction over axis
0, batch norm in training form, a product contracting the batch) makes
``compile`` raise an FgraphError naming the op and the user's line, as do
updates (they would be applied once per chunk).  An output that does not
depend on a batched feed is taken from the first chunk.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, fields

import numpy as np

from ..devices import use
from ..errors import FgraphError
from ..graph import Graph
from ..symbol import Const, Node, error_at, make_node, topological
from ..tree import LEAF
from ..registry import Refused
from ..ops.batching import Ctx, Mixes, _desc, _set, rule_for
from .arena import MemoryReport
from .executable import Runner


# ---------------------------------------------------------------- the analysis

# ---------------------------------------------------------------- resizing unbatched values

def _resized(node: Node, B: int, k: int, cache: dict) -> Node | None:
    """An unbatched value that has the batch size on axis 0 but is the same
    in every row (a broadcast, a filled array, a constant equal along axis
    0): the same at ``k`` rows, else None."""
    got = cache.get(id(node))
    if got is not None or id(node) in cache:
        return got
    new = None
    shape = (k,) + node.shape[1:]
    if node.op == "broadcast_to":
        x = node.inputs[0]
        if x.ndim < node.ndim or x.shape[0] == 1:
            new = _remake(node, node.inputs, _set(node.params, shape=shape))
    elif node.op in ("zeros", "ones") or (node.op == "full" and not node.inputs):
        new = _remake(node, (), _set(node.params, shape=shape))
    elif node.op == "constant":
        arr = node.param("value").array
        first = arr[:1]
        same = np.array_equal(arr, np.broadcast_to(first, arr.shape), equal_nan=arr.dtype.kind in "fc")
        if same:
            new = Node("constant", (("value", Const(arr[:k])),), (), shape, node.dtype, False, node.name, node.where)
    cache[id(node)] = new
    return new


def _remake(n: Node, inputs, params) -> Node:
    """``n``'s op on new inputs and params, its shape rule re-applied; it
    keeps its name and the user's line."""
    return make_node(n.op, inputs, params, n.name).replace(where=n.where)


def _fail(n: Node, detail: str, names) -> FgraphError:
    return error_at(FgraphError, f"micro_batch: {n.op}",
                    f"{detail}; micro-batching needs every value computed from the batched feed(s) {list(names)} "
                    "to keep its rows apart on axis 0 (name the batched feeds with micro_batch=(k, [names]))",
                    n.where)


@dataclass
class BatchSplit:
    """The graph rebuilt at ``k`` rows: the new graph, and which of the
    original outputs are batched (the others come from the first chunk)."""

    graph: Graph
    batched_outputs: tuple


def rebuild(graph: Graph, names: tuple, B: int, k: int) -> BatchSplit:
    """``graph`` with the placeholders ``names`` at ``k`` of their ``B`` rows
    (raises where a node mixes rows)."""
    if graph.updates:
        var, val = graph.updates[0]
        raise _fail(val, f"the graph updates variable {var.name!r}: a micro-batched graph runs once per chunk "
                         "of rows, so its updates would be applied once per chunk", names)
    batched: dict[int, bool] = {}
    new: dict[int, Node] = {}
    resize_cache: dict = {}
    for n in topological(graph.roots()):
        if n.op == "placeholder" and n.name in names:
            batched[id(n)] = True
            new[id(n)] = n.replace(shape=(k,) + n.shape[1:])
            continue
        flags = tuple(batched.get(id(i), False) for i in n.inputs)
        if not any(flags):
            batched[id(n)] = False  # kept as it is, shared with the input graph
            continue
        rule = rule_for(n.op)
        if rule is None:
            raise _fail(n, f"op {n.op!r} is not known to keep the rows of its batched input(s) apart", names)
        if isinstance(rule, Refused):
            raise _fail(n, rule.reason, names)
        c = Ctx(B, k, flags)
        try:
            params = rule(n, c)
        except Mixes as e:
            raise _fail(n, str(e), names) from None
        batched[id(n)] = True
        ins = []
        for p, i in enumerate(n.inputs):
            if flags[p]:
                ins.append(new[id(i)])
            elif p in c.resize:
                r = _resized(i, B, k, resize_cache)
                if r is None:
                    raise _fail(n, f"input {p} ({_desc(i)}) has the batch size on axis 0 but does not depend "
                                   "on a batched feed (nor is it the same in every row)", names)
                ins.append(r)
            else:
                ins.append(i)
        try:
            node = _remake(n, ins, params)
        except FgraphError as e:  # a rule let through what the shape rule refuses
            raise _fail(n, f"cannot be rebuilt at {k} rows: {e}", names) from None
        if node.shape != (k,) + n.shape[1:]:
            raise _fail(n, f"rebuilt at {k} rows it has shape {node.shape}, not {(k,) + n.shape[1:]}", names)
        new[id(n)] = node
    outs = tuple(new.get(id(n), n) for n in graph.outputs)
    inputs = tuple(new.get(id(n), n) for n in graph.inputs)
    # the outputs as a flat list: the runner fills the user's structure itself
    g = Graph.from_parts(outs, ("list", len(outs), (LEAF,) * len(outs)), inputs, ())
    return BatchSplit(g, tuple(batched[id(n)] for n in graph.outputs))


# ---------------------------------------------------------------- options

def parse(graph: Graph, micro_batch) -> tuple[int, tuple, int]:
    """``micro_batch``: k, or (k, names): (k, batched placeholder names, batch size)."""
    names = None
    spec = micro_batch
    if isinstance(spec, (tuple, list)):
        if len(spec) != 2:
            raise error_at(FgraphError, "compile", f"micro_batch must be k or (k, [placeholder names]), got {spec!r}")
        spec, names = spec
        names = (names,) if isinstance(names, str) else tuple(names)
    if isinstance(spec, (bool, np.bool_)) or not isinstance(spec, (int, np.integer)) or spec < 1:
        raise error_at(FgraphError, "compile", f"micro_batch must be a positive int (rows per chunk), got {spec!r}")
    k = int(spec)
    phs = {n.name: n for n in graph.placeholders}
    if names is None:
        first = next((n for n in graph.placeholders if n.ndim), None)
        if first is None:
            raise error_at(FgraphError, "compile", "micro_batch: the graph has no placeholder with an axis 0 to split")
        B = first.shape[0]
        names = tuple(n.name for n in graph.placeholders if n.ndim and n.shape[0] == B)
    else:
        unknown = [m for m in names if m not in phs]
        if unknown or not names:
            raise error_at(FgraphError, "compile", f"micro_batch: unknown placeholder(s) {unknown}; "
                                                   f"placeholders: {list(phs)}")
        sizes = {m: (phs[m].shape[0] if phs[m].ndim else None) for m in names}
        if None in sizes.values() or len(set(sizes.values())) != 1:
            raise error_at(FgraphError, "compile", f"micro_batch: the batched feeds must share the size of "
                                                   f"their axis 0, got {sizes}")
        B = next(iter(sizes.values()))
    return k, names, B


# ---------------------------------------------------------------- running

@dataclass
class MicroBatchReport(MemoryReport):
    """``exe.memory`` of a micro-batched executable: the chunk program's
    plan (arena, lower bound, ... all for ``micro_batch`` rows), and the
    chunking."""

    micro_batch: int = 0
    batch: int = 0
    chunks: int = 0
    remainder_rows: int = 0
    remainder_arena_bytes: int = 0
    #: the last, shorter chunk runs in the chunk program's arena (it fits there)
    remainder_shares_arena: bool = False

    @property
    def total_arena_bytes(self) -> int:
        """The memory both programs' arenas take (the remainder's exists when
        the batch is not a multiple of ``micro_batch``, and is usually the
        chunk program's own)."""
        return self.arena_bytes + (0 if self.remainder_shares_arena else self.remainder_arena_bytes)

    def __str__(self):
        where = "the chunks' arena" if self.remainder_shares_arena else "its own arena"
        rest = (f", last chunk {self.remainder_rows} row(s) in {where} (plan of {self.remainder_arena_bytes:,} B)"
                if self.remainder_rows else "")
        return (f"micro-batched: {self.chunks} chunk(s) of {self.micro_batch} of {self.batch} rows{rest}; "
                f"per chunk: {MemoryReport.__str__(self)}")


def compile_micro_batched(engine, graph: Graph, micro_batch, **options):
    """``engine.compile(graph, micro_batch=...)``: see the module docstring."""
    k, names, B = parse(graph, micro_batch)
    return MicroBatchExecutable(graph, engine, k, names, B, **options)


class MicroBatchExecutable(Runner):
    """Runs the graph ``micro_batch`` rows at a time through one (or, with
    a shorter last chunk, two) ordinary executables; outputs are fresh
    arrays, filled chunk by chunk.  Feeds are checked against the original
    placeholders (the full batch)."""

    def __init__(self, graph: Graph, engine, k: int, names: tuple, B: int, to_host: bool = False, **options):
        self.graph = graph
        self.to_host = bool(to_host)  # CuPy: chunks stay on the device, the full outputs come back
        self.engine = engine
        k = min(k, B)  # one chunk of the whole batch (also for an empty batch)
        self.micro_batch, self.batch, self.batched_feeds = k, B, names
        self._device = engine.device
        self._lock = threading.Lock()
        self._placeholders = {n.name: n for n in graph.placeholders}
        self._feed_order = [n.name for n in graph.placeholders]
        self._variable_names = frozenset(n.name for n in graph.variables)
        split = rebuild(graph, names, B, k)
        self._outs_batched = split.batched_outputs
        self._chunk = engine.compile(split.graph, **options)
        rest = B % k if k else 0
        self._rest = None
        if rest:  # the last, shorter chunk: its own program, run in the chunks' arena when that holds its plan
            self._rest = engine.executable(rebuild(graph, names, B, rest).graph, engine, engine.kernel_attr,
                                           arena=self._chunk._arena, **options)
        self._bounds = [(s, min(s + k, B)) for s in range(0, B, k)] if k else [(0, 0)]

    @property
    def memory(self):
        """The chunk program's plan, with the chunking (None without a memory plan)."""
        m = self._chunk.memory
        if m is None:
            return None
        r = self._rest.memory if self._rest is not None else None
        base = {f.name: getattr(m, f.name) for f in fields(MemoryReport)}
        return MicroBatchReport(**base, micro_batch=self.micro_batch, batch=self.batch, chunks=len(self._bounds),
                                remainder_rows=self.batch % self.micro_batch if self.micro_batch else 0,
                                remainder_arena_bytes=r.arena_bytes if r is not None else 0,
                                remainder_shares_arena=r is not None and self._rest._arena is self._chunk._arena)

    @property
    def variables(self):
        """The variables' values (read-only; a micro-batched graph has no updates)."""
        return self._chunk.variables

    def assign(self, **values) -> None:
        """Set variables by name, in every chunk program."""
        for exe in (self._chunk, self._rest):
            if exe is not None:
                exe.assign(**values)

    def _step(self, bound: dict):
        with use(self._device):  # the chunk programs' kernels find their device (CuPy) through it
            outs = self._chunks(bound)
        return self.graph.unflatten(outs)

    def _chunks(self, bound: dict) -> list:
        xp = self._device.xp
        outs = [None] * len(self.graph.outputs)
        for j, (s, e) in enumerate(self._bounds):
            exe = self._chunk if e - s == self.micro_batch or self._rest is None else self._rest
            feeds = {name: (arr[s:e] if name in self.batched_feeds else arr) for name, arr in bound.items()}
            leaves = exe._step(feeds)
            for i, (node, batched, r) in enumerate(zip(self.graph.outputs, self._outs_batched, leaves)):
                if not batched:
                    if j == 0:
                        outs[i] = r
                    continue
                if outs[i] is None:
                    outs[i] = xp.empty(node.shape, node.dtype)
                outs[i][s:e] = r
        if self.to_host:
            outs = [self._device.to_host(o) for o in outs]
        return outs

    def __repr__(self):
        return (f"<fgraph.Executable {self.engine.name}, micro-batched: {len(self._bounds)} chunk(s) of "
                f"{self.micro_batch} of {self.batch} rows>")


from . import microbatch_control  # noqa: E402,F401  (the loops' and branches' rules)

"""Incremental evaluation: eager-style fetches start from what is known.

Evaluating lazy arrays outside a compiled graph (``np.asarray(t)``,
``float(t)``, ``print(t)``) walks down from the requested nodes and stops
at nodes whose value is still held (``symbol.Known``) and at leaves.  What
lies above them is one *step*: its structure (ops, params, shapes and
dtypes; known values, large constants and variables as numbered inputs) is
the key of a bounded program cache, so a loop that evaluates the same step
every iteration builds its program once and then only runs it.

A step's program starts as the plain interpreter over the kernels; a step
seen again with enough data to pay for it is optimised (CSE, folding,
algebra, fusion into native kernels) once, and that program runs from then
on.  The values of nodes that live lazy arrays point at are outputs of the
step and kept, so the next step starts from them; temporaries nobody holds
are fused away or dropped as soon as their last reader ran.
"""
from __future__ import annotations

import math
from collections import OrderedDict

from ..errors import FgraphError, format_location
from ..symbol import Known, Node, _canonical, handle_of, known_value
from .program import Program

#: steps whose nodes hold at least this many elements in all are optimised
#: when seen a second time (below it the interpreter is as fast: measured
#: with ``python -m fgraph.bench eager``)
OPTIMISE_MIN_ELEMENTS = 1 << 14
#: programs kept per engine
PROGRAM_CACHE_SIZE = 512


class Step:
    """The nodes one evaluation computes, and what it starts from.

    ``order``: the nodes to compute, inputs before users; ``inputs``: the
    nodes whose values are given (known values, large constants, variables)
    and ``values`` those values; ``outputs``: the nodes to return or keep;
    ``key``: the structure, equal for two steps exactly when one program
    computes both."""

    __slots__ = ("order", "inputs", "values", "outputs", "key", "elements")

    def __init__(self, roots, engine):
        index: dict[int, int] = {}  # id(node) -> its number in the step (inputs first, as found)
        order: list[Node] = []
        inputs: list[Node] = []
        values: list = []
        shape_key: list = []
        elements = 0
        for root in roots:
            if id(root) in index:
                continue
            stack = [(root, 0)]
            while stack:
                node, i = stack[-1]
                if i == 0:
                    value = engine.given(node)
                    if value is not None:
                        stack.pop()
                        index[id(node)] = -1 - len(inputs)
                        inputs.append(node)
                        values.append(value)
                        shape_key.append(("in", node.shape, node.dtype))
                        continue
                ins = node.inputs
                if i < len(ins):
                    stack[-1] = (node, i + 1)
                    child = ins[i]
                    if id(child) not in index:
                        index[id(child)] = None  # on the stack: a DAG never meets it again below
                        stack.append((child, 0))
                    continue
                stack.pop()
                if node.op == "placeholder":
                    raise FgraphError(f"placeholder {node.name!r} has no value: evaluate through "
                                      f"fgraph.compile(graph)(**feeds) (made at {format_location(node.where)})")
                index[id(node)] = len(order)
                order.append(node)
                elements += node.size
                params = node.params
                shape_key.append((node.op, _canonical(params) if params else params,
                                  tuple([index[id(j)] for j in ins]), node.shape, node.dtype, node.weak))
        roots_at = [index[id(r)] for r in roots]
        held = [k for k, n in enumerate(order) if handle_of(n) is not None and not n.weak]
        outputs = list(dict.fromkeys([*(r for r in roots_at if r >= 0), *held]))
        self.order, self.inputs, self.values = order, inputs, values
        self.outputs = [order[k] for k in outputs]
        self.key = (tuple(shape_key), tuple(outputs))
        self.elements = elements


class StepProgram:
    """A cached program for one step structure: runs a step's input values
    to its output values."""

    __slots__ = ("program", "input_slots", "output_slots", "runs", "optimised")

    def __init__(self, program: Program, input_slots, output_slots, optimised: bool):
        self.program, self.input_slots, self.output_slots = program, input_slots, output_slots
        self.runs, self.optimised = 0, optimised

    def __call__(self, values: list) -> list:
        prog = self.program
        slots = [None] * len(prog.order)
        for s, v in zip(self.input_slots, values):
            if s is not None:
                slots[s] = v
        prog.run(slots)
        return [slots[s] for s in self.output_slots]


def interpreted(step: Step, engine) -> StepProgram:
    """The plain interpreter over the step's own nodes (built in microseconds)."""
    order = step.inputs + step.order
    known = {id(n): None for n in step.inputs}
    prog = Program(step.outputs, engine.kernel_attr, engine.name, known=known, order=order)
    n = len(step.inputs)
    return StepProgram(prog, list(range(n)), [prog.slot[id(o)] for o in step.outputs], optimised=False)


def optimised(step: Step, engine) -> StepProgram:
    """The step as a graph of its own (inputs as placeholders), optimised and
    fused; built once per structure."""
    from ..graph import Graph
    from ..operator import placeholder_node
    from ..optimiser import optimise

    new: dict[int, Node] = {}
    names = []
    for j, n in enumerate(step.inputs):
        ph = placeholder_node(n.shape, n.dtype, name=f"step_input_{j}")
        new[id(n)] = ph
        names.append(ph.name)
    for n in step.order:
        new[id(n)] = n.with_inputs(tuple(new[id(i)] for i in n.inputs)) if n.inputs else n
    graph = optimise(Graph([new[id(o)] for o in step.outputs], inputs=[new[id(n)] for n in step.inputs]))
    prog = Program(graph.outputs, engine.kernel_attr, engine.name)
    at = {n.name: k for k, n in prog.leaves.items() if n.op == "placeholder"}
    return StepProgram(prog, [at.get(name) for name in names], [prog.slot[id(o)] for o in graph.outputs],
                       optimised=True)


class ProgramCache:
    """Step structure -> StepProgram, least recently used dropped past ``size``."""

    def __init__(self, size: int = PROGRAM_CACHE_SIZE):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self.hits = self.misses = 0

    def program(self, step: Step, engine) -> StepProgram:
        try:
            entry = self._items.get(step.key)
        except TypeError:  # a param that cannot be hashed: this step is not cached
            return interpreted(step, engine)
        if entry is None:
            self.misses += 1
            entry = interpreted(step, engine)
            self._items[step.key] = entry
            if len(self._items) > self.size:
                self._items.popitem(last=False)
            return entry
        self.hits += 1
        self._items.move_to_end(step.key)
        entry.runs += 1
        if entry.runs == 1 and not entry.optimised and step.elements >= OPTIMISE_MIN_ELEMENTS:
            entry = self._items[step.key] = optimised(step, engine)
        return entry

    def clear(self) -> None:
        self._items.clear()

    def __len__(self):
        return len(self._items)


def evaluate_step(roots, engine) -> dict:
    """id(node) -> value for the roots (known or not) and every node of the
    step a live lazy array points at; the latter are kept as ``Known``."""
    step = Step(roots, engine)
    done = {id(n): v for n, v in zip(step.inputs, step.values)}
    if not step.order:
        return done
    entry = engine.programs.program(step, engine)
    try:
        results = entry(step.values)
    except Exception:
        # a cached program names the nodes of the step it was built for:
        # run this step's own nodes to name the user's line that failed
        results = interpreted(step, engine)(step.values)
    for node, value in zip(step.outputs, results):
        value = engine._result(value, node)
        done[id(node)] = value
        holder = handle_of(node)
        if holder is not None:
            holder._keep = Known(node, value, engine)
    # The step's nodes no longer pin what they were computed from: the values
    # worth keeping are kept above.  (One needed again, by a node built on it
    # later, is recomputed from whatever below it is still known.)
    for node in step.order:
        if node._pins is not None:
            object.__setattr__(node, "_pins", None)
    return done


_KERNELS: dict = {}


def compute_now(node: Node, engine, max_elements: int, max_nodes: int = 64) -> "Known | None":
    """Compute a small node at once (see ``operator.COMPUTE_NOW_ELEMENTS``),
    with the nodes below it not known yet (an op built from several, as
    ``roll`` is) when they are small too and at most ``max_nodes``.  None
    when something below is large or not known, or a kernel fails (the error
    is then raised, naming the user's line, when the value is asked for)."""
    kernels = _KERNELS.get(engine.kernel_attr)
    if kernels is None:
        from ..types import attr_table

        kernels = _KERNELS[engine.kernel_attr] = attr_table(engine.kernel_attr)
    values: dict[int, object] = {}
    order: list[Node] = []
    stack = [(node, False)]
    while stack:
        n, ready = stack.pop()
        if ready:
            order.append(n)
            continue
        if id(n) in values:
            continue
        k = n._known
        k = k() if k is not None else None
        if k is not None and k.engine is engine:
            values[id(n)] = k.value
        elif n.op == "literal":
            values[id(n)] = n.params[0][1].value
        elif n.op == "constant":
            values[id(n)] = n.params[0][1].array
        elif len(order) + len(stack) >= max_nodes or math.prod(n.shape) > max_elements or n.op not in kernels:
            return None
        else:
            values[id(n)] = None  # computed below, after its inputs
            stack.append((n, True))
            stack.extend((i, False) for i in n.inputs if id(i) not in values)
    try:
        for n in order:
            values[id(n)] = kernels[n.op](*[values[id(i)] for i in n.inputs], **dict(n.params))
        value = engine._result(values[id(node)], node)
    except Exception:
        return None
    return Known(node, value, engine)


def given(engine, node: Node):
    """A node's value when it is an input of a step (known, a large constant,
    a variable's initial value), else None."""
    k = node._known
    k = k() if k is not None else None
    if k is not None and k.engine is engine:
        return k.value
    op = node.op
    if op == "constant":
        c = node.params[0][1]
        return None if c.by_content else engine._input_value(node)
    if op == "variable":
        return engine._input_value(node)
    return None


__all__ = ["Step", "StepProgram", "ProgramCache", "evaluate_step", "compute_now", "known_value", "given"]

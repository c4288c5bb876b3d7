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
import sys
import threading
from collections import OrderedDict

import numpy as np

from ..errors import FgraphError, format_location
from ..graph import Graph
from ..optimiser import USER_RULES, optimise
from ..symbol import Known, Node, _set_pins, born_order, data_pins, handle_of, known_value, make_node, next_id
from .. import eager as _eager
from ..eager import COMPUTE_NOW_ELEMENTS
from ..tensor import Tensor, holding, placeholder_node
from ..registry import attr_table, kernel_attrs
from .program import Program, node_failed
from .race import Race
from .read_through import read_through

#: steps with an array of at least this many elements are optimised when the
#: same step comes back: a heat-equation step (a stencil, an abs, a max)
#: optimised and fused ran as fast as the interpreter at 4096 and 16384
#: elements (1.03x, 1.02x), 5x faster at 65536 and 3x at 262144
OPTIMISE_MIN_ELEMENTS = 1 << 15
#: programs kept per engine
PROGRAM_CACHE_SIZE = 512
#: a structure is compiled whole once it came back this many times: a compile takes 0.1-0.5 s of a
#: core, and steps whose shapes hold a mask's count come back only a few times each (compiling at
#: the first hit, the eager bench compiled 256 structures in its first four small programs)
WHOLE_AFTER_HITS = 6
#: steps up to this many elements run compiled whole once they can (measured faster than the programs
#: at every size up to it); larger ones race the optimised program (``race.Race``)
WHOLE_SURE_ELEMENTS = 1 << 16


class Step:
    """The nodes one evaluation computes, and what it starts from.

    ``order``: the nodes to compute, inputs before users; ``inputs``: the
    nodes whose values are given (known values, large constants, variables),
    then the Python scalar literals; ``values``: their values; ``outputs``:
    the nodes to return or keep.  ``key``: the structure (ops, params,
    shapes, dtypes, which inputs feed what, which nodes are outputs), equal
    for two steps exactly when one interpreter program computes both;
    ``literals``: the literals' exact values (a step that changes a scalar
    every iteration, ``dist[mask] = d``, keeps its program); ``elements``:
    the size of its largest array."""

    __slots__ = ("order", "inputs", "values", "arrays", "outputs", "output_at", "key", "literals", "elements")

    def __init__(self, roots, engine):
        # What the step computes, found by one pass down from the roots (a node's inputs pushed once, not
        # an edge at a time), then put in the order the nodes were made (``born``): a node is always made
        # after its inputs, so that order computes inputs first, and it is the same for every step of the
        # same code (gray_scott's 48-node step: 70 -> 59 us).  Given values and literals are numbered
        # where first read.
        seen: set = set()
        above: list[Node] = []
        given: list[Node] = []
        stack = list(roots)
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            op = node.op
            if op == "literal":  # (numbered where first read, below)
                continue
            k = node._known
            k = k() if k is not None else None
            if (k is not None and k.engine is engine) or op == "constant" or op == "variable":
                given.append(node)
                continue
            if op == "placeholder":
                raise FgraphError(f"placeholder {node.name!r} has no value: evaluate through "
                                  f"fgraph.compile(graph)(**feeds) (made at {format_location(node.where)})")
            above.append(node)
            stack.extend(node.inputs)
        index: dict[int, object] = {}
        data: dict[int, object] = {}  # id(given node) -> its value
        for node in given:
            k = node._known
            k = k() if k is not None else None
            value = k.value if k is not None and k.engine is engine else _data(engine, node)
            if value is None:  # a small constant: part of the structure, computed by the step
                above.append(node)
            else:
                data[id(node)] = value
        above.sort(key=born_order)
        inputs: list[Node] = []
        values: list = []
        lit_nodes: list[Node] = []
        shape_key: list = []

        def number(j: Node):  # a given value or a literal, numbered where first read (not as made: a cached
            if id(j) in data:  # literal or operand was made whenever its content first came)
                index[id(j)] = -1 - len(inputs)
                inputs.append(j)
                values.append(data[id(j)])
                shape_key.append(("in", j.shape, j.dtype))
            else:
                index[id(j)] = ("lit", len(lit_nodes))
                lit_nodes.append(j)
            return index[id(j)]

        elements = 0
        held = []  # the nodes a live lazy array points at (handle_of, written out)
        for k, node in enumerate(above):
            index[id(node)] = k
            shape = node.shape
            size = math.prod(shape)
            if size > elements:
                elements = size
            at = []
            for j in node.inputs:
                i = index.get(id(j))
                at.append(number(j) if i is None else i)
            shape_key.append((node.op, node._cparams, tuple(at), shape, node.dtype, node.weak))
            h = node._handle
            t = h() if h is not None else None
            if t is not None and t._node is node and not node.weak:
                held.append(k)
        for r in roots:  # a root read by nothing computed: given or a literal itself
            if id(r) not in index:
                number(r)
        order = above
        roots_at = [index[id(r)] for r in roots]
        outputs = list(dict.fromkeys([*(r for r in roots_at if type(r) is int and r >= 0), *held]))
        lit_values = [n.params[0][1].value for n in lit_nodes]
        self.order, self.arrays = order, len(inputs)
        self.inputs, self.values = inputs + lit_nodes, values + lit_values
        self.outputs = [order[k] for k in outputs]
        self.output_at = outputs
        key = (tuple(shape_key), tuple([(n.dtype, type(v)) for n, v in zip(lit_nodes, lit_values)]),
               tuple(outputs))
        try:
            self.key = StepKey(key)
        except TypeError:  # a param that cannot be hashed: the cache will not take it (ProgramCache.program)
            self.key = key
        self.literals = tuple([n.params[0][1] for n in lit_nodes])  # Scalars: compared by exact bits
        self.elements = elements


class StepKey:
    """A step's structure as a dict key, hashed once: a tuple's hash is
    computed again at each look-up (the program cache looks a step up two
    to four times, each a walk of the whole nested structure); equal keys
    are still compared in full."""

    __slots__ = ("_hash", "parts")

    def __init__(self, parts: tuple):
        self.parts, self._hash = parts, hash(parts)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return self is other or (type(other) is StepKey and self._hash == other._hash and self.parts == other.parts)


class StepProgram:
    """A cached program for one step structure: runs a step's input values
    to its output values.  ``take``: which of the step's values it reads
    (None: all; the optimised program takes the arrays and the literals it
    did not build in), one a slot of ``input_slots``."""

    __slots__ = ("program", "input_slots", "output_slots", "take", "lock")

    def __init__(self, program: Program, input_slots, output_slots, take=None):
        self.program, self.input_slots, self.output_slots, self.take = program, input_slots, output_slots, take
        self.lock = threading.Lock()  # runs take turns: a multi-output kernel holds its results in the program

    def __call__(self, values: list) -> list:
        prog = self.program
        slots = [None] * len(prog.order)
        if self.take is not None:
            values = [values[j] for j in self.take]
        for s, v in zip(self.input_slots, values):
            if s is not None:
                slots[s] = v
        with self.lock:
            prog.run(slots)
        return [slots[s] for s in self.output_slots]


def interpreted(step: Step, engine, cached: bool = True) -> StepProgram:
    """The plain interpreter over the step's nodes (built in microseconds);
    a ``cached`` one over a copy of them that holds none of their data."""
    inputs, order = _detached(step) if cached else (step.inputs, step.order)
    outs = [order[k] for k in step.output_at]
    prog = Program(outs, engine.kernel_attr, engine.name, known={id(n): None for n in inputs}, order=inputs + order)
    _reuse_temporaries(prog, engine.kernel_attr)
    return StepProgram(prog, list(range(len(inputs))), [prog.slot[id(o)] for o in outs])


def _reuse_temporaries(prog: Program, kernel_attr: str) -> None:
    """Let an in-place capable instruction write over an input that is a
    temporary of the run it is the last reader of (as NumPy's own
    temporary elision does): ``vel[m] * -1`` then ``setitem`` stores into
    the product's buffer instead of copying the whole array first.  Decided
    here by the schedule (same shape and dtype, never read by a view op),
    and at run time by the value itself (``_reusing``)."""
    inplace, views, elementwise = attr_table("inplace"), attr_table("view"), attr_table("elementwise")
    out_kernels = attr_table(kernel_attrs(kernel_attr).out)
    instructions = prog.instructions
    made = {ins[3] for ins in instructions}
    viewed = {s for ins in instructions if views.get(prog.order[ins[3]].op) for s in ins[1]}
    for k, (kernel, ins, params, out, free, target) in enumerate(instructions):
        node = prog.order[out]
        spec, out_kernel = inplace.get(node.op), out_kernels.get(node.op)
        if spec is None or out_kernel is None or target is not None:
            continue
        if params and elementwise.get(node.op):
            # a ufunc given params (dtype=...) stays out of place: NumPy's in-place loop may round apart from
            # its own out-of-place one (float32 power on one element: scalar against SIMD, an ulp)
            continue
        for p in (spec(node) if callable(spec) else range(len(ins)) if spec == "all" else spec):
            s, x = ins[p], node.inputs[p]
            if (s in free and s in made and s not in viewed and ins.count(s) == 1
                    and x.shape == node.shape and x.dtype == node.dtype):
                instructions[k] = (_reusing(kernel, out_kernel, p, _temporary_refs(bool(params))), ins, params, out,
                                   free, target)
                break


#: references a temporary has while ``Program.run`` hands it to a kernel and
#: nothing else holds it (its slot, the call's arguments...), for a kernel
#: called without and with keyword params (a call with ``**params`` builds
#: one more tuple of the arguments): measured once through ``Program.run``
#: itself, so it follows how the run loop calls
_TEMPORARY_REFS: dict = {}


def _reusing(kernel, out_kernel, p: int, refs: int):
    """``kernel``, but writing its result over input ``p`` when that is a
    temporary nobody else holds: a writable NumPy array that owns its data
    (known values and constants are read-only; a view has a base) with no
    more than ``refs`` references, the run's own (no other slot, cache or
    view keeps it)."""
    def run(*args, **params):
        a = args[p]
        if (type(a) is np.ndarray and a.base is None and a.flags.writeable
                and sys.getrefcount(a) <= refs):
            return out_kernel(*args, out=a, **params)
        return kernel(*args, **params)
    return run


def _temporary_refs(with_params: bool) -> int:
    if with_params not in _TEMPORARY_REFS:  # a two-instruction run whose second kernel counts its input's references
        x = placeholder_node((4,), "float64", name="probe")
        first = make_node("negative", [x])
        second = make_node("negative", [first])
        prog = Program([second], "numpy_kernel", "numpy", known={id(x): None}, order=[x, first, second])
        seen = []

        def probe(*args, **params):
            a = args[0]
            seen.append(sys.getrefcount(a))
            return np.negative(a)

        at = prog.slot[id(second)]
        params = {"unused": None} if with_params else {}
        prog.instructions[:] = [(probe, ins[1], params, *ins[3:]) if ins[3] == at else ins for ins in prog.instructions]
        values = [None] * len(prog.order)
        values[prog.slot[id(x)]] = np.zeros(4)
        prog.run(values)
        _TEMPORARY_REFS[with_params] = seen[0]
    return _TEMPORARY_REFS[with_params]


def _detached(step: Step, lifted=()):
    """The step's inputs and nodes, rebuilt with placeholders for its array
    inputs (a program kept in the cache must not keep a step's data, a
    large constant or a known value, alive) and for the literals numbered
    in ``lifted`` (weak 0-d placeholders: NEP 50 promotes them as the
    Python scalars they stand for)."""
    new: dict[int, Node] = {}
    inputs = []
    lifted = set(lifted)
    for j, n in enumerate(step.inputs):
        if j < step.arrays:
            p = placeholder_node(n.shape, n.dtype, name=f"step_input_{j}")
        elif j in lifted:
            p = Node("placeholder", (("name", f"step_input_{j}"), ("id", next_id())), (), (), n.dtype, True,
                     f"step_input_{j}", None)
        else:
            p = n
        new[id(n)] = p
        inputs.append(p)
    order = []
    for n in step.order:
        new[id(n)] = m = n.with_inputs(tuple([new[id(i)] for i in n.inputs])) if n.inputs else n
        order.append(m)
    return inputs, order


def optimised(step: Step, engine) -> StepProgram:
    """The step as a graph of its own, optimised and fused: array inputs
    and the literals an algebraic rule could use are placeholders, so one
    program serves every value of a scalar that changes each iteration
    (``m / (1 - b1 ** t)``); 0 and 1, which rules simplify, are built in
    (``literal_key`` keeps programs for them apart)."""
    lifted = [step.arrays + j for j, b in enumerate(_built_in(step.literals)) if not b]
    take = [*range(step.arrays), *lifted]
    inputs, order = _detached(step, lifted)
    placeholders = [inputs[j] for j in take]
    graph = optimise(Graph([order[k] for k in step.output_at], inputs=placeholders))
    prog = Program(graph.outputs, engine.kernel_attr, engine.name)
    at = {n.name: k for k, n in prog.leaves.items() if n.op == "placeholder"}
    return StepProgram(prog, [at.get(p.name) for p in placeholders], [prog.slot[id(o)] for o in graph.outputs],
                       take=take)


def _built_in(literals: tuple) -> list[bool]:
    """Which literals an optimised program builds in rather than taking as
    inputs: the values the algebraic rules look for (x * 1, x + 0,
    x - 0.0...), or every value when user rules may look for others."""
    if USER_RULES:
        return [True] * len(literals)
    return [s.value == 0 or s.value == 1 for s in literals]


def literal_key(literals: tuple) -> tuple:
    """The part of a step's literal values that picks its optimised
    program: the built-in ones by exact bits, the others only by type
    (the structure's key has them already)."""
    return tuple([s if b else None for s, b in zip(literals, _built_in(literals))])


class _Entry:
    """The programs of one step structure: its interpreter, the optimised
    program for literal values seen more than once, and the engine's whole
    step (``whole``: once asked for, while it compiles or where it cannot be)."""

    __slots__ = ("interpreted", "seen", "optimised", "whole", "races", "hits")

    def __init__(self, program: StepProgram):
        self.interpreted = program
        self.hits = 0
        self.seen: dict = {}  # literal values -> runs so far
        self.optimised: dict = {}  # literal values -> StepProgram
        self.whole = None
        self.races: dict = {}  # literal values -> Race (the whole step against the optimised program)


class _Whole:
    """A step compiled whole by its engine; a call it declines runs the interpreter."""

    __slots__ = ("native", "fallback")

    def __init__(self, native, fallback: StepProgram):
        self.native, self.fallback = native, fallback

    def __call__(self, values: list) -> list:
        got = self.native(values)
        return got if got is not None else self.fallback(values)


def _whole_graph(step: Step) -> Graph | None:
    """The step as a graph of its own, every Python scalar a weak input
    (one program serves all their values), or None: a literal that is not
    a Python bool, int or float."""
    if any(type(v) not in (bool, int, float) for v in step.values[step.arrays:]):
        return None
    inputs, order = _detached(step, range(step.arrays, len(step.inputs)))
    return Graph([order[k] for k in step.output_at], inputs=inputs)


class ProgramCache:
    """Step structure -> its programs, least recently used dropped past ``size``.

    The key is a tuple compared in full (never by hash alone), so two steps
    that differ in anything a kernel sees never share a program."""

    def __init__(self, size: int = PROGRAM_CACHE_SIZE):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._once: OrderedDict = OrderedDict()  # keys seen once: a program is kept from the second sight
        self.hits = self.misses = 0

    def program(self, step: Step, engine) -> StepProgram:
        try:
            entry = self._items.get(step.key)
        except TypeError:  # a param that cannot be hashed: this step is not cached
            return interpreted(step, engine, cached=False)
        if entry is None:
            self.misses += 1
            if self._once.pop(step.key, None) is None:
                # A structure seen for the first time may never come back (a mask's count is in the
                # shapes: izhikevich's spikes): its program runs over the step's own nodes, and only
                # a structure seen again is detached from its data and kept.
                self._once[step.key] = True
                if len(self._once) > self.size:
                    self._once.popitem(last=False)
                return interpreted(step, engine, cached=False)
            entry = self._items[step.key] = _Entry(interpreted(step, engine))
            if len(self._items) > self.size:
                self._items.popitem(last=False)
            return entry.interpreted
        self.hits += 1
        self._items.move_to_end(step.key)
        whole = self._whole(entry, step, engine)
        if whole is not None and step.elements <= WHOLE_SURE_ELEMENTS:
            return whole
        if step.elements < OPTIMISE_MIN_ELEMENTS:
            return entry.interpreted
        lits = literal_key(step.literals)
        fast = entry.optimised.get(lits)
        if fast is not None:
            if whole is None:
                return fast
            race = entry.races.get(lits)
            if race is None or race.b is not fast:
                race = entry.races[lits] = Race(whole, fast)
            return race
        runs = entry.seen[lits] = entry.seen.get(lits, 0) + 1
        if runs >= 2:  # the same step, the same scalars, a third time: worth optimising
            del entry.seen[lits]
            if len(entry.optimised) >= 8:  # scalars that keep changing: keep a few
                entry.optimised.pop(next(iter(entry.optimised)))
            fast = entry.optimised[lits] = optimised(step, engine)
            return fast
        if len(entry.seen) > 64:
            entry.seen.clear()
        return entry.interpreted

    @staticmethod
    def _whole(entry: "_Entry", step: Step, engine) -> "_Whole | None":
        """The step compiled whole by its engine, once it is ready (asked for
        once the structure came back ``WHOLE_AFTER_HITS`` times), or None."""
        if engine.whole_step is None:
            return None
        entry.hits += 1
        if entry.hits < WHOLE_AFTER_HITS:
            return None
        if not isinstance(entry.whole, _Whole):
            native = engine.whole_step(step.key, lambda: _whole_graph(step), step.elements)
            entry.whole = None if native is None else _Whole(native, entry.interpreted)
        return entry.whole

    def clear(self) -> None:
        self._items.clear()
        self._once.clear()

    def __len__(self):
        return len(self._items)


def evaluate_step(roots, engine) -> dict:
    """id(node) -> value for the roots (known or not) and every node of the
    step a live lazy array points at; the latter are kept as ``Known``."""
    step = Step(roots, engine)
    done = {id(n): v for n, v in zip(step.inputs[:step.arrays], step.values)}
    for r in roots:
        if r.op == "literal":  # a Python scalar asked for itself
            done[id(r)] = engine._result(r.params[0][1].value, r)
    if not step.order:
        return done
    entry = engine.programs.program(step, engine)
    try:
        results = entry(step.values)
    except Exception:
        # a cached program names the nodes of the step it was built for:
        # run this step's own nodes to name the user's line that failed
        results = interpreted(step, engine, cached=False)(step.values)
    covered = set()  # constants' data that a kept value now keeps
    for node, value in zip(step.outputs, results):
        value = engine._result(value, node)
        done[id(node)] = value
        holder = handle_of(node)
        if holder is not None:
            below = data_pins(node._pins)
            holder._keep = known = Known(node, value, engine)
            known.below = below
            if below:
                covered.update(id(k) for k in below)
    # The step's nodes, and the constants it read whose data a kept value now
    # keeps, no longer pin what they were computed from: the values worth
    # keeping are kept above, with the constants' data under them.  (A node needed again, by a node built on it
    # later, is recomputed from whatever below it is still known.)
    for node in step.order:
        if node._pins is not None:
            _set_pins(node, None)
    for node in step.inputs[:step.arrays]:
        if node.op == "constant" and id(node._pins) in covered:
            _set_pins(node, None)
    return done


#: engine -> its kernel table (by the engine object: ``kernel_attr`` is a property, 0.05 us a look-up)
_KERNELS: dict = {}


def compute_now(node: Node, engine, max_elements: int, max_nodes: int = 64) -> "Known | None":
    """Compute a small node at once (see ``operator.COMPUTE_NOW_ELEMENTS``),
    with the nodes below it not known yet (an op built from several, as
    ``roll`` is) when they are small too and at most ``max_nodes``.  None
    when something below is large or not known, or a kernel fails (the error
    is then raised, naming the user's line, when the value is asked for)."""
    kernels = _KERNELS.get(engine)
    if kernels is None:
        kernels = _KERNELS[engine] = attr_table(engine.kernel_attr)
    kernel = kernels.get(node.op)
    if kernel is None:
        return None
    known = _from_inputs(node, engine, kernel)  # the common case first: every input at hand
    if known is not _MISSING:
        return known
    if node.op == "slice":  # an element read back after element writes: through the writes, not the array
        value = read_through(node, _at_hand, engine, _MISSING)
        if value is not _MISSING:
            return _known_now(node, engine._result(value, node), engine)
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
        value = _at_hand(n, engine)
        if value is not _MISSING:
            values[id(n)] = value
        elif len(order) + len(stack) >= max_nodes or math.prod(n.shape) > max_elements or n.op not in kernels:
            return None
        else:
            values[id(n)] = None  # computed below, after its inputs
            stack.append((n, True))
            stack.extend((i, False) for i in n.inputs if id(i) not in values)
    n = node
    try:
        for n in order:
            values[id(n)] = kernels[n.op](*[values[id(i)] for i in n.inputs], **dict(n.params))
        value = engine._result(values[id(node)], node)
    except FloatingPointError as e:
        raise _failed_now(n, e) from None
    except Exception:
        return None
    for n in order[:-1]:  # computed on the way: they pin nothing now (as a step's nodes)
        _set_pins(n, None)
    return _known_now(node, value, engine)


def tensor_now(node: Node, stack) -> Tensor:
    """``Tensor(node, stack)`` for a node an op's fast path just made (its
    inputs arrays or literals): its value computed here when settle would
    compute it (on the NumPy engine, small, every input at hand), by
    ``_from_inputs`` as compute_now's first step, without the look-ups and
    tests settle and compute_now make for any node (``a - b`` on 128 elements: 4.35 -> 4.1
    us; ``a[1:, :]`` on 400: 7.3 -> 6.85).  Anything else goes through
    ``Tensor(node, stack)``."""
    if stack.engine == "numpy" and node.concrete and math.prod(node.shape) <= COMPUTE_NOW_ELEMENTS:
        engine = _eager._engine  # the host engine, as settle's (None until settle first computed a value)
        kernel = _KERNELS.get(engine, _NO_KERNELS).get(node.op)
        if kernel is not None:
            known = _from_inputs(node, engine, kernel)
            if known is not None and known is not _MISSING:
                return holding(node, stack, known)
    return Tensor(node, stack)  # (a failed kernel: settle leaves it pending, raised where the value is asked for)


def _from_inputs(node: Node, engine, kernel):
    """Node's value computed by ``kernel`` from its inputs' values, as its
    Known: _MISSING where an input's value is not at hand, None where the
    kernel fails (raised where the value is asked for), a floating-point
    error raised now (``np.seterr(divide="raise")``: NumPy raises at the
    op, inside the user's try)."""
    args = []
    for i in node.inputs:
        k = i._known  # (a known value tested here before _at_hand: most inputs are one, 0.05 us each)
        k = k() if k is not None else None
        value = k.value if k is not None and k.engine is engine else _at_hand(i, engine)
        if value is _MISSING:
            return _MISSING
        args.append(value)
    params = node.params
    try:
        value = engine._result(kernel(*args, **dict(params)) if params else kernel(*args), node)
    except FloatingPointError as e:
        raise _failed_now(node, e) from None
    except Exception:
        return None
    return _known_now(node, value, engine)


_MISSING = object()
_NO_KERNELS: dict = {}


def _failed_now(node: Node, e: Exception) -> Exception:
    """A kernel's floating-point error (``np.seterr(...="raise")``) as NumPy
    raises it, where the op is made: of its class, naming the node and the
    user's line.  (Other failures of a value computed when made are raised
    where the value is asked for.)  One fgraph raised already names its node."""
    if isinstance(e, FgraphError):
        return e
    return node_failed(node, e)


def _at_hand(node: Node, engine):
    """Node's value if it needs no computing (known, a literal, a
    constant), else _MISSING."""
    k = node._known
    k = k() if k is not None else None
    if k is not None and k.engine is engine:
        return k.value
    if node.op == "literal":
        return node.params[0][1].value
    if node.op == "constant":
        return node.params[0][1].array
    return _MISSING


def _known_now(node: Node, value, engine) -> Known:
    """Node's Known, keeping the constants' data under it (as a step's
    outputs do).  The constants keep pinning their own data: the array made
    now may be a temporary, and the next op may read them again."""
    below = data_pins(node._pins)
    known = Known(node, value, engine)
    known.below = below
    return known


def _data(engine, node: Node):
    """A leaf's value as an input of a step: a large constant's data, a 0-d
    constant's, or a variable's initial value; None for another small
    constant (the step's structure holds it, compared by content).  A 0-d
    constant is a scalar that may change every iteration (``dist[mask] = d``
    writes one): keyed by its value, each iteration's step would be a new
    structure, its program built again (bfs_grid's every step), as a
    literal's would (``Step.literals``)."""
    if node.op == "constant" and node.params[0][1].by_content and node.shape:
        return None
    return engine._input_value(node)


__all__ = ["Step", "StepProgram", "ProgramCache", "evaluate_step", "compute_now", "tensor_now", "known_value"]

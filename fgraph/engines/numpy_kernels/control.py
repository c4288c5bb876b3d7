"""Kernels for the control-flow ops (fgraph/ops/control.py) on any array engine.

A body is optimised and compiled (an executable with its own arena) once,
the first time a loop with that body runs (cached by the body's structure
and the device), then run once per iteration: no compile, no graph walk,
no allocation but the step's results, per step.  The loop itself is a Python loop over the compiled body; a
``while_loop``'s trip count may depend on the data.  The same kernels serve
the CuPy engine (``make_kernels("cupy_kernel")``): the body's program then
uses that engine's kernels, and arrays stay on the device.
"""
from __future__ import annotations

from collections import OrderedDict
from types import SimpleNamespace

from ...devices import current
from ...graph import Graph, inline
from ...errors import format_location
from ...registry import kernel_attrs, override
from ...opdef import one_output
from ..program import may_alias
from .native.whole_loop import native_scan, native_while

#: (kernel attribute, body graph) -> compiled body; bounded, oldest dropped first
_PROGRAMS: OrderedDict = OrderedDict()
_MAX_PROGRAMS = 256


class Body:
    """A body graph compiled once, with its own arena: ``body(args) -> results``.

    Its temporaries live in an arena planned once and reused by every
    iteration (``memory`` reports it).  A loop's carries (``carries``: its
    first results, fed back as its first inputs) are written into two sets
    of buffers in turn, so each step writes the next carries over the ones
    the step before last made (libnnc's co-allocated loop carries): a step
    allocates nothing but its other results.  A loop holds ``lock`` while it
    runs (the buffers are the loop's); ``owned`` copies the results that live
    in those buffers when the loop ends."""

    __slots__ = ("exe", "fill", "outs", "arena", "programs", "targets", "lock")

    def __init__(self, graph, kernel_attr: str, device, carries: int = 0):
        from ...optimiser import optimise
        from ..executable import Executable

        g = optimise(graph)  # passes run inside bodies too (and, through their kernels, inside nested ones)
        engine = SimpleNamespace(device=device, name=kernel_attrs(kernel_attr).engine, kernel_attr=kernel_attr)
        self.exe = exe = Executable(g, engine, kernel_attr, plan_memory=True)
        # the executable's program run directly, without its feed checks and commit: the feeds are the
        # loop's own values, of the body's shapes and dtypes by construction, and a body has no variables
        index = {p.name: k for k, p in enumerate(g.inputs)}
        self.fill = [(slot, index[name]) for slot, _, name in exe._fill]
        self.outs = [(slot, exe._program.order[slot]) for slot in exe._out_slots]
        self.arena = exe._arena
        self.lock = exe._lock
        self.programs, self.targets = [exe._program], set()
        if carries:
            self.programs = [self._into_buffers(g, kernel_attr, engine, carries) for _ in range(2)]

    def _into_buffers(self, g, kernel_attr, engine, carries):
        """The body's program with its computed carries written into buffers of their own."""
        from ..program import Program

        exe, device = self.exe, engine.device
        plan, order, slot = exe._plan, exe._program.order, exe._program.slot
        outs = {k: device.view(exe._arena, plan.offset(k), n.shape, n.dtype)
                for k, n in enumerate(plan.order) if plan.storage[k]}
        for o in g.outputs[:carries]:
            k = slot[id(o)]
            if o.inputs and k not in outs:  # (a carry passed through, or a leaf, has no buffer to write)
                outs[k] = device.xp.empty(o.shape, o.dtype)
                self.targets.add(id(outs[k]))
        scratch = {k: device.view(exe._arena, off, (size,), "uint8") for k, (off, size) in plan.workspaces().items()}
        prog = Program(g.roots(), kernel_attr, engine.name, order=order, outs=outs, workspaces=scratch)
        assert prog.slot == slot  # the same schedule: the executable's slots still name the values
        return prog

    @property
    def memory(self):
        return self.exe.memory

    def __call__(self, args, step: int = 0, kept: int | None = None) -> list:
        """One step; ``step``'s parity picks the carries' buffers (hold ``lock``
        around a loop).  A result in the arena would be overwritten by the next
        step: the first ``kept`` results (default: all) are copied out of it (an
        arg passed through is not); the others are views the caller reads
        before the next step (a scan's row, written into its stacked output)."""
        exe = self.exe
        values = list(exe._template)
        for slot, k in self.fill:
            values[slot] = args[k]
        self.programs[step & 1 if len(self.programs) > 1 else 0].straight()(values)
        keep = {id(self.arena)}
        kept = len(self.outs) if kept is None else kept
        return [_copied(exe._as_array(values[slot], node), keep) if j < kept else exe._as_array(values[slot], node)
                for j, (slot, node) in enumerate(self.outs)]

    def owned(self, results) -> list:
        """The results, those in the carries' buffers copied (the next loop reuses them)."""
        return [r.copy() if id(r) in self.targets else r for r in results]


def _copied(arr, keep):
    return arr.copy() if may_alias(arr, keep) else arr


_STEPPED: OrderedDict = OrderedDict()


def stepped(cond, body, n_carry: int):
    """A while_loop's body followed by its condition on the new carries, as
    one graph (inputs: the body's, then the condition's constants; outputs:
    the carries, then the test): a trip runs one compiled program, not two."""
    key = (cond, body)
    got = _STEPPED.get(key)
    if got is None:
        consts = list(cond.inputs[n_carry:])
        test = inline(cond, list(body.outputs[:n_carry]) + consts)[0]
        got = _STEPPED[key] = Graph(outputs=list(body.outputs[:n_carry]) + [test],
                                    inputs=list(body.inputs) + consts)
        if len(_STEPPED) > _MAX_PROGRAMS:
            _STEPPED.popitem(last=False)
    return got


def body_program(graph, kernel_attr: str, device=None, carries: int = 0) -> Body:
    """The compiled body for ``graph`` on ``device`` (default: the current one;
    compiled on first use); ``carries``: how many of its first results are fed
    back as its first inputs (a loop's), written into buffers of their own."""
    device = current() if device is None else device
    key = (kernel_attr, device, graph, carries)
    body = _PROGRAMS.get(key)
    if body is None:
        body = _PROGRAMS[key] = Body(graph, kernel_attr, device, carries)
        if len(_PROGRAMS) > _MAX_PROGRAMS:
            _PROGRAMS.popitem(last=False)
    return body


def body_reports(order, kernel_attr: str, device) -> tuple:
    """``(label, MemoryReport)`` of every body the nodes ``order`` run (compiling
    those not yet compiled: the same programs the loops will run)."""
    from ...ops.control import bodies

    out, seen = [], set()
    for n in order:
        for k, g in enumerate(bodies(n)):
            if g in seen:
                continue
            seen.add(g)
            carries = n.param("n_carry") if n.op == "scan" or (n.op == "while_loop" and k == 1) else 0
            if n.op == "while_loop" and k == 1:  # what runs: the body with the next test
                g = stepped(n.param("cond"), g, carries)
            report = body_program(g, kernel_attr, device, carries).memory
            if report is not None:
                out.append((f"{n.op} at {format_location(n.where)} body {k}", report))
    return tuple(out)


def _unaliased(results, inputs) -> list:
    """The results, each copied if it is (a view of) one of the node's inputs:
    a zero-trip loop, or a body that passes a carry through, would hand out
    the input's buffer, which the memory planner may reuse once the loop ran."""
    ids = {id(a) for a in inputs}
    return [r.copy() if may_alias(r, ids) else r for r in results]


def make_kernels(kernel_attr: str) -> dict:
    """``{op: kernel computing every result}`` running bodies with ``kernel_attr`` kernels."""

    def while_all(*inputs, cond, body, n_carry, n_cond):
        carry = list(inputs[:n_carry])
        cond_consts = list(inputs[n_carry:n_carry + n_cond])
        body_consts = list(inputs[n_carry + n_cond:])
        test = body_program(cond, kernel_attr)
        step = body_program(stepped(cond, body, n_carry), kernel_attr, carries=n_carry)
        if kernel_attr == "numpy_kernel":  # small bodies: the whole loop in C, once compiled
            whole = native_while(test.exe.graph, step.exe.graph, n_carry)
            done = None if whole is None else whole.run(carry, body_consts, cond_consts)
            if done is not None:
                return _unaliased(done, inputs)
        t = 0
        with step.lock, test.lock:  # the carries' buffers (and the arenas) are this loop's until it ends
            go = bool(test(carry + cond_consts)[0])
            while go:  # one program a trip: the body and the next test
                *carry, go = step(carry + body_consts + cond_consts, t, kept=n_carry)
                go = bool(go)
                t += 1
            carry = step.owned(carry)
        return _unaliased(carry, inputs)

    def scan_all(*inputs, body, n_carry, n_xs, length, reverse, checkpoint=None):
        xp = current().xp
        carry = list(inputs[:n_carry])
        xs = inputs[n_carry:n_carry + n_xs]
        consts = list(inputs[n_carry + n_xs:])
        step = body_program(body, kernel_attr, carries=n_carry)
        if kernel_attr == "numpy_kernel":  # small bodies: the whole loop in C, once compiled
            whole = native_scan(step.exe.graph, n_carry, n_xs, reverse)
            done = None if whole is None else whole.run(carry, xs, consts, length)
            if done is not None:
                return _unaliased(done[0], inputs) + done[1]
        # the stacked outputs are allocated once and written row by row
        ys = [xp.empty((length,) + o.shape, o.dtype) for o in body.outputs[n_carry:]]
        with step.lock:  # the carries' buffers are this loop's until it ends
            for k, t in enumerate(range(length - 1, -1, -1) if reverse else range(length)):
                out = step(carry + [x[t] for x in xs] + consts, k, kept=n_carry)
                carry = out[:n_carry]
                for y, v in zip(ys, out[n_carry:]):
                    y[t] = v
            carry = step.owned(carry)
        return _unaliased(carry, inputs) + ys

    def switch_all(index, *inputs, branches, n_operands, splits):
        b = min(max(int(index), 0), len(branches) - 1)  # clamped, as jax.lax.switch does
        at = n_operands + sum(splits[:b])
        args = list(inputs[:n_operands]) + list(inputs[at:at + splits[b]])
        branch = body_program(branches[b], kernel_attr)
        with branch.lock:
            return _unaliased(branch(args), inputs)

    return {"while_loop": while_all, "scan": scan_all, "switch": switch_all}


for _op, _compute in make_kernels("numpy_kernel").items():  # the NumPy engine's loop bodies
    override("numpy", _op, one_output(_compute), all=_compute)

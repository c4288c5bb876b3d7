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
from ...errors import format_location
from ...types import set_attr
from ..program import may_alias, picked

#: (kernel attribute, body graph) -> compiled body; bounded, oldest dropped first
_PROGRAMS: OrderedDict = OrderedDict()
_MAX_PROGRAMS = 256


class Body:
    """A body graph compiled once, with its own arena: ``body(args) -> results``.

    Its temporaries live in an arena planned once and reused by every
    iteration (``memory`` reports it); each step allocates only its results
    (the next carries), which the next step reads while writing its own."""

    __slots__ = ("exe", "fill", "outs", "arena")

    def __init__(self, graph, kernel_attr: str, device):
        from ...optimiser import optimise
        from ..executable import Executable

        g = optimise(graph)  # passes run inside bodies too (and, through their kernels, inside nested ones)
        engine = SimpleNamespace(device=device, name=kernel_attr.replace("_kernel", ""), kernel_attr=kernel_attr)
        self.exe = exe = Executable(g, engine, kernel_attr, plan_memory=True)
        # the executable's program run directly, without its feed checks and commit: the feeds are the
        # loop's own values, of the body's shapes and dtypes by construction, and a body has no variables
        index = {p.name: k for k, p in enumerate(g.inputs)}
        self.fill = [(slot, index[name]) for slot, _, name in exe._fill]
        self.outs = [(slot, exe._program.order[slot]) for slot in exe._out_slots]
        self.arena = exe._arena

    @property
    def memory(self):
        return self.exe.memory

    def __call__(self, args) -> list:
        exe = self.exe
        values = list(exe._template)
        for slot, k in self.fill:
            values[slot] = args[k]
        with exe._lock:  # one arena: two threads running the same body take turns
            exe._program.run(values)
            # a result in the arena would be overwritten by the next step: copied (an arg passed through is not)
            keep = {id(self.arena)}
            return [_copied(exe._as_array(values[slot], node), keep) for slot, node in self.outs]


def _copied(arr, keep):
    return arr.copy() if may_alias(arr, keep) else arr


def body_program(graph, kernel_attr: str, device=None) -> Body:
    """The compiled body for ``graph`` on ``device`` (default: the current one; compiled on first use)."""
    device = current() if device is None else device
    key = (kernel_attr, device, graph)
    body = _PROGRAMS.get(key)
    if body is None:
        body = _PROGRAMS[key] = Body(graph, kernel_attr, device)
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
            report = body_program(g, kernel_attr, device).memory
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
        test, step = body_program(cond, kernel_attr), body_program(body, kernel_attr)
        while bool(test(carry + cond_consts)[0]):
            carry = step(carry + body_consts)
        return _unaliased(carry, inputs)

    def scan_all(*inputs, body, n_carry, n_xs, length, reverse, checkpoint=None):
        xp = current().xp
        carry = list(inputs[:n_carry])
        xs = inputs[n_carry:n_carry + n_xs]
        consts = list(inputs[n_carry + n_xs:])
        step = body_program(body, kernel_attr)
        # the stacked outputs are allocated once and written row by row
        ys = [xp.empty((length,) + o.shape, o.dtype) for o in body.outputs[n_carry:]]
        for t in (range(length - 1, -1, -1) if reverse else range(length)):
            out = step(carry + [x[t] for x in xs] + consts)
            carry = out[:n_carry]
            for y, v in zip(ys, out[n_carry:]):
                y[t] = v
        return _unaliased(carry, inputs) + ys

    def switch_all(index, *inputs, branches, n_operands, splits):
        b = min(max(int(index), 0), len(branches) - 1)  # clamped, as jax.lax.switch does
        at = n_operands + sum(splits[:b])
        args = list(inputs[:n_operands]) + list(inputs[at:at + splits[b]])
        return _unaliased(body_program(branches[b], kernel_attr)(args), inputs)

    return {"while_loop": while_all, "scan": scan_all, "switch": switch_all}


def one_output(compute):
    """The kernel of one result (the node's ``output``) from one computing them all."""
    def kernel(*args, output, **params):
        return picked(compute(*args, **params), output)
    kernel.__name__ = compute.__name__
    return kernel


for _op, _compute in make_kernels("numpy_kernel").items():
    set_attr(_op, "numpy_kernel_all", _compute)
    set_attr(_op, "numpy_kernel", one_output(_compute))

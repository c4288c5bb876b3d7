"""Kernels for the control-flow ops (fgraph/ops/control.py) on any array engine.

A body is optimised and compiled into a :class:`~fgraph.engines.program.Program`
once, the first time a loop with that body runs (programs are cached by the
body's structure), then run once per iteration: no compile, no graph walk,
per step.  The loop itself is a Python loop over the compiled body; a
``while_loop``'s trip count may depend on the data.  The same kernels serve
the CuPy engine (``make_kernels("cupy_kernel")``): the body's program then
uses that engine's kernels, and arrays stay on the device.
"""
from __future__ import annotations

from collections import OrderedDict

from ...devices import current
from ...types import set_attr
from ..program import Program, may_alias, picked

#: (kernel attribute, body graph) -> compiled body; bounded, oldest dropped first
_PROGRAMS: OrderedDict = OrderedDict()
_MAX_PROGRAMS = 256


class Body:
    """A body graph compiled once: ``body(args) -> results`` (lists)."""

    __slots__ = ("program", "size", "in_slots", "out_slots")

    def __init__(self, graph, kernel_attr: str):
        from ...optimiser import optimise

        g = optimise(graph)  # passes run inside bodies too (and, through their kernels, inside nested ones)
        engine = kernel_attr.replace("_kernel", "")
        self.program = Program(g.outputs, kernel_attr, engine)
        slot = self.program.slot
        self.size = len(self.program.order)
        self.in_slots = [slot.get(id(p)) for p in g.inputs]  # None: a placeholder the outputs do not use
        self.out_slots = [slot[id(o)] for o in g.outputs]

    def __call__(self, args) -> list:
        values = [None] * self.size
        for s, a in zip(self.in_slots, args):
            if s is not None:
                values[s] = a
        self.program.run(values)
        return [values[s] for s in self.out_slots]


def body_program(graph, kernel_attr: str) -> Body:
    """The compiled body for ``graph`` (compiled on first use)."""
    key = (kernel_attr, graph)
    body = _PROGRAMS.get(key)
    if body is None:
        body = _PROGRAMS[key] = Body(graph, kernel_attr)
        if len(_PROGRAMS) > _MAX_PROGRAMS:
            _PROGRAMS.popitem(last=False)
    return body


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

    def scan_all(*inputs, body, n_carry, n_xs, length, reverse):
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

"""Gradient rules that differentiate a graph of their own: the control-flow
ops' (fgraph/ops/control.py: a loop body, a branch) and ``correlate``'s
(fgraph/ops/signal.py: the same sum written with other ops).  They need the
autodiff core (``gradients``) and, for loops, fgraph.control's tracing, both
layers above the ops, so they live here and are registered as the ops'
``grad`` attribute (the other families' rules are in their OpDefs).

- ``scan`` (and ``fori_loop`` with static bounds, a scan): a forward scan
  that saves each step's input carry, then a scan in the opposite
  direction over the saved carries whose body is the body's vector-Jacobian
  product; the cotangents of the loop's constants are summed in its carry.
  The saving scan is the loop itself with other ys (its inputs, params and
  carries), so where a program also uses the loop's results (a loss and
  its gradient) the optimiser (``merge_scans``, in its ``loops`` pass)
  runs both as one loop: the forward pass runs once, the backward once.
  With ``checkpoint=k`` only one carry in ``k`` is saved, and each segment's
  are recomputed on the way back (a scan of scans, see _checkpointed_grad).
- ``switch`` (and ``cond``): a ``switch`` on the same index over the
  branches' vector-Jacobian products: the gradient of the branch taken.
- ``while_loop``: refused, as in JAX (its OpDef's ``grad=Refused``): its trip
  count is not known when the gradient is built, so there is no scan to reverse.
- ``correlate`` (numpy.correlate/convolve): the gradient of
  ``composite_correlate``, so it is its ops' rules (take, multiply, sum) transposed.

Each result of a loop is its own node, so a rule sees the cotangent of one
result; a program that uses several results runs one backward loop each
(linear in the cotangent, so their sum is the gradient).
"""
from __future__ import annotations

from ..control import loop_results, scan, switch
from ..ops.signal import composite_correlate
from ..graph import Graph, inline
from ..registry import set_attr
from ..tensor import Tensor
from .core import differentiable, gradients


def _fnp():
    from .. import numpy as fnp

    return fnp


def _dot(outs, cots):
    """sum(out * cot) over the pairs: the scalar whose gradient is the VJP (None: no pairs)."""
    fnp = _fnp()
    total = None
    for o, c in zip(outs, cots):
        term = fnp.sum(o * c)
        total = term if total is None else total + term
    return total


def _scan_grad(out, inputs, g, body, n_carry, n_xs, length, reverse, output, checkpoint=None):
    fnp = _fnp()
    st = out.stack
    n, k = n_carry, n_xs
    if checkpoint is not None and min(checkpoint, length) > 1:  # (segments of 1 step: every carry saved anyway)
        return _checkpointed_grad(out, inputs, g, body, n, k, length, reverse, output, min(checkpoint, length))
    carries, xs, consts = list(inputs[:n]), list(inputs[n:n + k]), list(inputs[n + k:])
    fl = [i for i in range(n) if differentiable(carries[i].dtype)]
    fx = [j for j in range(k) if differentiable(xs[j].dtype)]
    fc = [j for j in range(len(consts)) if differentiable(consts[j].dtype)]
    const_nodes = [c.node for c in consts]

    def run_body(c, x):
        return [Tensor(o, st) for o in inline(body, [t.node for t in c] + [t.node for t in x] + const_nodes)]

    saved = _saving_scan(out.node, [t.node for t in inputs], body, n, st)

    # the seed: g on the result asked for, zero on the other carries (the ys' rows take g row by row)
    seed = [g if i == output else fnp.zeros(carries[i].shape, carries[i].dtype) for i in fl]
    gys = [g] if output >= n else []

    def backward(carry, x):
        ct, acc = carry
        c_t, x_t, gy_t = x
        outs = run_body(c_t, x_t)
        total = _dot([outs[i] for i in fl] + [outs[output]] * len(gy_t), list(ct) + list(gy_t))
        wrt = [c_t[i] for i in fl] + [x_t[j] for j in fx] + [consts[j] for j in fc]
        if total is None or not wrt:
            grads = [fnp.zeros(w.shape, w.dtype) for w in wrt]
        else:
            grads = gradients(total, wrt)
        gc, gx, gk = grads[:len(fl)], grads[len(fl):len(fl) + len(fx)], grads[len(fl) + len(fx):]
        return (gc, [a + b for a, b in zip(acc, gk)]), gx

    init = (seed, [fnp.zeros(consts[j].shape, consts[j].dtype) for j in fc])
    (ct0, acc), gxs = scan(backward, init, (saved, xs, gys), length=length, reverse=not reverse)
    cot: list = [None] * len(inputs)
    for i, v in zip(fl, ct0):
        cot[i] = v
    for j, v in zip(fx, gxs):
        cot[n + j] = v
    for j, v in zip(fc, acc):
        cot[n + k + j] = v
    return cot


def _saving_scan(node, inputs, body, n, st) -> list:
    """Each step's input carry, stacked: a scan on ``inputs`` with the params
    of ``node`` (the loop differentiated) whose body is ``body``'s carries
    followed by its own carry placeholders, so the step that starts from
    ``carry`` returns it as a y.  Built on ``body``'s own nodes (not traced
    again), it has ``node``'s carries exactly: the optimiser
    (``merge_scans``) then runs it and ``node`` as one loop when a program
    needs both (a loss and its gradient), so the forward pass runs once."""
    saving = Graph(outputs=list(body.outputs[:n]) + list(body.inputs[:n]), inputs=list(body.inputs))
    params = tuple((k, saving if k == "body" else v) for k, v in node.params if k != "output")
    return loop_results("scan", inputs, params, range(n, 2 * n), st)


def _checkpointed_grad(out, inputs, g, body, n, k, length, reverse, output, seg):
    """Reverse mode saving one carry a segment: the scan rewritten as a scan of
    ``length % seg`` steps, then an outer scan over the whole segments whose
    body is an inner scan of ``seg`` steps; differentiating that with the
    rule above saves the outer carries only, and the inner scan's own rule,
    run once a segment on the way back, recomputes and saves that segment's."""
    fnp = _fnp()
    st = out.stack
    carries, xs, consts = list(inputs[:n]), list(inputs[n:n + k]), list(inputs[n + k:])
    const_nodes = [c.node for c in consts]

    def step(c, x):
        outs = [Tensor(o, st) for o in inline(body, [t.node for t in c] + [t.node for t in x] + const_nodes)]
        return outs[:n], outs[n:]

    def segment(c, x_seg):
        return scan(step, c, x_seg, length=seg, reverse=reverse)

    head, full = length % seg, length // seg
    # the steps run first: the first ``head`` rows, or (reverse) the last ones
    first = slice(0, head) if not reverse else slice(length - head, length)
    rest = slice(head, length) if not reverse else slice(0, length - head)
    c, ys_head = scan(step, carries, [x[first] for x in xs], length=head, reverse=reverse)
    xs_seg = [fnp.reshape(x[rest], (full, seg) + x.shape[1:]) for x in xs]
    c, ys_seg = scan(segment, c, xs_seg, length=full, reverse=reverse)
    ys_rest = [fnp.reshape(y, (full * seg,) + y.shape[2:]) for y in ys_seg]
    ys = [fnp.concatenate([h, r] if not reverse else [r, h]) for h, r in zip(ys_head, ys_rest)]
    results = list(c) + ys
    wrt = [i for i in range(len(inputs)) if differentiable(inputs[i].dtype)]
    grads = gradients(results[output], [inputs[i] for i in wrt], seed=g)  # (g as a seed: not differentiated)
    cot: list = [None] * len(inputs)
    for i, v in zip(wrt, grads):
        cot[i] = v
    return cot


def _switch_grad(out, inputs, g, branches, n_operands, splits, output):
    rest = list(inputs[1:])
    fr = [i for i in range(len(rest)) if differentiable(rest[i].dtype)]
    if not fr:
        return [None] * len(inputs)

    def branch_vjp(b):
        def vjp(*args):
            *vals, gg = args
            at = n_operands + sum(splits[:b])
            args_b = vals[:n_operands] + vals[at:at + splits[b]]
            y = Tensor(inline(branches[b], [v.node for v in args_b])[output], gg.stack)
            return tuple(gradients(_dot([y], [gg]), [vals[i] for i in fr]))
        return vjp

    res = switch(inputs[0], [branch_vjp(b) for b in range(len(branches))], *rest, g)
    cot: list = [None] * len(inputs)
    for i, v in zip(fr, res):
        cot[1 + i] = v
    return cot


def _correlate_grad(out, ins, g, kind, mode):
    wanted = [x for x in ins if differentiable(x.dtype)]
    if not wanted:
        return None, None
    grads = iter(gradients(composite_correlate(kind, *ins, mode), wanted, seed=g))
    return tuple(next(grads) if differentiable(x.dtype) else None for x in ins)


set_attr("scan", "grad", _scan_grad)
set_attr("switch", "grad", _switch_grad)
set_attr("correlate", "grad", _correlate_grad)

"""Automatic differentiation: gradients as graph transforms.

    g = fgraph.grad(loss, w)                      # symbolic: a lazy array
    gw, gb = fgraph.grad(loss, [w, b])
    df = fgraph.grad(f, argnums=0)                # a function transform
    value, grads = fgraph.value_and_grad(f, argnums=(0, 1))(x, y)
    out, pullback = fgraph.vjp(f, x)              # pullback(cotangent)
    out, tangent = fgraph.jvp(f, (x,), (v,))

Gradients are built from forward ops, so they compose: ``grad(grad(...))``
works, and ``fgraph.jit(fgraph.grad(f))`` compiles the backward pass.
Conventions at non-smooth points follow the usual NumPy-world choices:
``abs``, ``sign``-like ops: derivative ``sign(x)`` (0 at 0); ``maximum``
and ``minimum``: the gradient goes to the first argument on ties; ``clip``:
1 inside ``[lo, hi]`` including the ends; rounding and comparisons: 0.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from .. import numpy as fnp
from ..errors import FgraphError
from ..tensor import Tensor
from ..symbol import error_at
from ..tree import flatten, unflatten
from ..registry import set_attr
from .core import differentiable, gradients, sum_to
from .forward import forward, has_control

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "defgrad", "sum_to"]


def defgrad(*ops: str):
    """Register a gradient rule for ops: ``rule(out, inputs, g, **params)``
    returns one cotangent (or None) per input, written with fgraph.numpy."""
    def register(rule):
        for op in ops:
            set_attr(op, "grad", rule)
        return rule
    return register


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def grad(y, wrt=None, *, argnums=0):
    """Gradient of a scalar lazy array ``y`` with respect to ``wrt`` (a lazy
    array, or a list/tuple/dict of them: the result has the same structure);
    or, given a function, the function computing its gradient with respect
    to the positional arguments ``argnums``."""
    if callable(y) and not isinstance(y, Tensor):
        vg = value_and_grad(y, argnums)

        @functools.wraps(y)
        def grad_fn(*args, **kwargs):
            return vg(*args, **kwargs)[1]
        return grad_fn
    if not isinstance(y, Tensor):
        raise error_at(FgraphError, "grad", f"grad needs a lazy fgraph array or a function, got {type(y).__name__}")
    if wrt is None:
        raise error_at(FgraphError, "grad", "grad(y, wrt): say which arrays to differentiate with respect to")
    leaves, structure = flatten(wrt, _is_tensor)
    for w in leaves:
        if not isinstance(w, Tensor):
            raise error_at(FgraphError, "grad", f"wrt must hold lazy fgraph arrays, got {type(w).__name__}")
    return unflatten(structure, gradients(y, leaves))


def value_and_grad(fn: Callable, argnums=0):
    """``f -> (lambda *args: (f(*args), grads))``, JAX-style.  With NumPy
    arguments the results are NumPy arrays; with lazy ones, lazy arrays."""
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        lazy = any(_is_tensor(a) for a in flatten((args, kwargs), _is_tensor)[0])
        targs = _lift_args(args, nums)
        value = fn(*targs, **kwargs)
        if not isinstance(value, Tensor):
            raise error_at(FgraphError, "value_and_grad", "the function must return one lazy scalar")
        gs = gradients(value, [targs[k] for k in nums])
        out = (value, gs[0] if single else tuple(gs))
        return out if lazy else _evaluate(out)
    return wrapped


def vjp(fn: Callable, *primals):
    """``(fn(*primals), pullback)``; ``pullback(cotangent)`` gives one
    cotangent per primal (the vector-Jacobian product)."""
    lazy = any(_is_tensor(a) for a in primals)
    targs = _lift_args(primals, tuple(range(len(primals))))
    out = fn(*targs)
    if not isinstance(out, Tensor):
        raise error_at(FgraphError, "vjp", "the function must return one lazy array")

    def pullback(cotangent):
        c = fnp.asarray(cotangent, dtype=out.dtype)
        if c.shape != out.shape:
            raise error_at(FgraphError, "vjp", f"cotangent of shape {c.shape} for an output of shape {out.shape}")
        gs = tuple(gradients(out, targs, seed=c))
        return gs if lazy or _is_tensor(cotangent) else _evaluate(gs)

    return (out if lazy else _evaluate(out)), pullback


def jvp(fn: Callable, primals, tangents):
    """``(fn(*primals), J @ tangents)`` by transposing the (linear) pullback."""
    lazy = any(_is_tensor(a) for a in tuple(primals) + tuple(tangents))
    targs = _lift_args(tuple(primals), tuple(range(len(primals))))
    out = fn(*targs)
    if has_control([out.node]):  # a while_loop has no reverse mode to transpose: push tangents forwards
        seeds = {id(p.node): fnp.asarray(t, dtype=p.dtype) for p, t in zip(targs, tangents)}
        tangent = forward([out.node], seeds, out.stack)[0]
        result = (out, tangent if tangent is not None else fnp.zeros(out.shape, out.dtype))
        return result if lazy else _evaluate(result)
    u = fnp.zeros(out.shape, out.dtype)  # a stand-in cotangent: the pullback is linear in it
    pulled = gradients(out, targs, seed=u)
    total = None
    for p, t in zip(pulled, tangents):
        term = fnp.sum(p * fnp.asarray(t, dtype=p.dtype))
        total = term if total is None else total + term
    tangent = gradients(total, [u])[0]
    result = (out, tangent)
    return result if lazy else _evaluate(result)


def _lift_args(args, nums):
    out = list(args)
    for k in nums:
        a = out[k]
        if not isinstance(a, Tensor):
            a = fnp.asarray(np.asarray(a, dtype=float) if isinstance(a, (int, float)) else a)
        if not differentiable(a.dtype):
            raise error_at(FgraphError, "grad", f"argument {k} is {a.dtype}: only floating arguments "
                                                "have gradients")
        out[k] = a
    return tuple(out)


def _evaluate(x) -> Any:
    leaves, structure = flatten(x, _is_tensor)
    tensors = [t for t in leaves if isinstance(t, Tensor)]
    values = iter(tensors[0].stack.evaluate([t.node for t in tensors])) if tensors else iter(())
    return unflatten(structure, [np.array(next(values)) if isinstance(t, Tensor) else t for t in leaves])


from . import graph_rules  # noqa: E402,F401  (the rules that differentiate a graph: scan, switch, correlate)

"""Optimisers as graph updates (Owl's iopairs): each returns ``{variable:
new value}`` for ``fgraph.Graph(..., updates=...)``, written with
fgraph.numpy, so a training step is one compiled graph run by
``exe.run(steps=N)`` with no rebuild between steps.

    loss = ...
    params = [w1, b1, w2, b2]                      # fgraph variables
    updates = fgraph.optim.adam(params, fgraph.grad(loss, params), lr=1e-3)
    exe = fgraph.compile(fgraph.optimise(fgraph.Graph(loss, updates=updates)))
    exe.run(steps=100, x=batch, y=labels)
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import numpy as fnp
from .errors import FgraphError
from .tensor import Tensor
from .symbol import error_at


def _state_like(p: Tensor, what: str, value=0.0) -> Tensor:
    """A new variable shaped like ``p``, named after it."""
    return fnp.variable(np.full(p.shape, value, dtype=p.dtype), name=f"{p.node.name}/{what}")


def _check(params: Sequence[Tensor], grads: Sequence[Tensor], who: str) -> None:
    if len(params) != len(grads):
        raise error_at(FgraphError, who, f"{len(params)} parameters but {len(grads)} gradients")
    for p, g in zip(params, grads):
        if not isinstance(p, Tensor) or p.node.op != "variable":
            raise error_at(FgraphError, who, f"parameters must be fgraph variables, got {p!r}")
        if g.shape != p.shape:
            raise error_at(FgraphError, who, f"gradient of shape {g.shape} for {p.node.name!r} of shape {p.shape}")


def sgd(params: Sequence[Tensor], grads: Sequence[Tensor], lr: float = 0.01, momentum: float = 0.0,
        nesterov: bool = False) -> dict:
    """Stochastic gradient descent, with (heavy-ball or Nesterov) momentum."""
    _check(params, grads, "sgd")
    updates = {}
    for p, g in zip(params, grads):
        if momentum:
            v = _state_like(p, "velocity")
            v_new = momentum * v + g
            updates[v] = v_new
            step = g + momentum * v_new if nesterov else v_new
        else:
            step = g
        updates[p] = p - lr * step
    return updates


def adam(params: Sequence[Tensor], grads: Sequence[Tensor], lr: float = 1e-3, beta1: float = 0.9,
         beta2: float = 0.999, eps: float = 1e-8) -> dict:
    """Adam (Kingma and Ba), with bias correction by a step counter variable."""
    _check(params, grads, "adam")
    t = fnp.variable(np.zeros((), np.float64), name="adam/t")
    t_new = t + 1.0
    updates = {t: t_new}
    c1 = 1.0 / (1.0 - beta1 ** t_new)
    c2 = 1.0 / (1.0 - beta2 ** t_new)
    for p, g in zip(params, grads):
        m, v = _state_like(p, "m"), _state_like(p, "v")
        m_new = beta1 * m + (1.0 - beta1) * g
        v_new = beta2 * v + (1.0 - beta2) * (g * g)
        updates[m], updates[v] = m_new, v_new
        step = (m_new * c1.astype(p.dtype)) / (fnp.sqrt(v_new * c2.astype(p.dtype)) + eps)
        updates[p] = p - lr * step
    return updates


__all__ = ["sgd", "adam"]

"""Activations, softmax, losses, dropout and the layers that are one product
or one gather: all composites of fgraph.numpy ops (fusion, memory planning
and gradients come from those ops)."""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as fnp
from ..errors import DTypeError, FgraphError, ShapeError
from ..tensor import Tensor
from ..ops import nn as ops
from ..symbol import error_at
from ._args import as_int, axes, choice, ndim_at_least, tensor

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)


# ---------------------------------------------------------------- activations

def relu(x):
    """``max(x, 0)``, element-wise; NaN stays NaN; the derivative at 0 is 0."""
    # maximum(0, x): ties send the gradient to the first argument, the literal
    return fnp.maximum(0, tensor(x))


def leaky_relu(x, negative_slope=0.01):
    """``x`` where ``x > 0``, else ``negative_slope * x``."""
    x = tensor(x)
    return fnp.where(x > 0, x, x * negative_slope)


def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))``, without overflow: each
    branch only takes ``exp`` of a non-positive number."""
    x = tensor(x)
    ep = fnp.exp(-fnp.maximum(x, 0))  # exp(-x) where x >= 0
    en = fnp.exp(fnp.minimum(x, 0))  # exp(x) where x < 0
    return fnp.where(x >= 0, 1 / (1 + ep), en / (1 + en))


def gelu(x, approximate="none"):
    """Gaussian error linear unit ``x * Phi(x)``.

    ``approximate="none"``: ``0.5 x (1 + erf(x / sqrt 2))``; ``"tanh"``:
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))``.
    """
    choice("gelu", approximate, "approximate", ("none", "tanh"))
    x = tensor(x)
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))
        return 0.5 * x * (1 + fnp.tanh(inner))
    return 0.5 * x * (1 + ops.erf(x * _INV_SQRT2))


def erf(x):
    """The error function, element-wise (float64-accurate)."""
    return ops.erf(tensor(x))


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x), axis)``, computed as ``exp(x - max)`` so no
    ``exp`` overflows."""
    x = tensor(x)
    ax = axes("softmax", axis, x.ndim)
    e = fnp.exp(x - fnp.max(x, axis=ax, keepdims=True))
    return e / fnp.sum(e, axis=ax, keepdims=True)


def log_softmax(x, axis=-1):
    """``x - log(sum(exp(x), axis))``, computed from ``x - max``."""
    x = tensor(x)
    ax = axes("log_softmax", axis, x.ndim)
    s = x - fnp.max(x, axis=ax, keepdims=True)
    return s - fnp.log(fnp.sum(fnp.exp(s), axis=ax, keepdims=True))


# ---------------------------------------------------------------- losses

def cross_entropy(logits, target, axis=-1, reduction="mean"):
    """Cross-entropy of ``log_softmax(logits, axis)`` against ``target``.

    Parameters
    ----------
    logits : floating array
    target : integer class indices in ``[0, C)`` (the shape of ``logits``
        without ``axis``), or probabilities (the shape of ``logits``)
    axis : the class axis
    reduction : "mean" (over the remaining elements), "sum" or "none"
    """
    op = "cross_entropy"
    choice(op, reduction, "reduction", ("mean", "sum", "none"))
    logits, target = tensor(logits), tensor(target)
    if logits.dtype.kind != "f":
        raise error_at(DTypeError, op, f"logits must be floating-point, got {logits.dtype}")
    ndim_at_least(op, logits, 1, "logits")
    (ax,) = axes(op, as_int(op, axis, "axis"), logits.ndim)
    logp = log_softmax(logits, ax)
    if target.dtype.kind in "iu":
        want = logits.shape[:ax] + logits.shape[ax + 1:]
        if target.shape != want:
            raise error_at(ShapeError, op, f"class indices must have shape {want} (logits {logits.shape} "
                                           f"without axis {ax}), got {target.shape}")
        picked = fnp.take_along_axis(logp, fnp.expand_dims(target, ax), axis=ax)
        loss = -fnp.squeeze(picked, axis=ax)
    elif target.dtype.kind == "f":
        if target.shape != logits.shape:
            raise error_at(ShapeError, op, f"probabilities must have the shape of the logits {logits.shape}, "
                                           f"got {target.shape}")
        loss = -fnp.sum(target * logp, axis=ax)
    else:
        raise error_at(DTypeError, op, f"target must be integer class indices or float probabilities, "
                                       f"got {target.dtype}")
    if reduction == "mean":
        return fnp.mean(loss)
    if reduction == "sum":
        return fnp.sum(loss)
    return loss


# ---------------------------------------------------------------- dropout

def dropout(x, rate, key, training=True):
    """Zero each element with probability ``rate`` and scale the rest by
    ``1 / (1 - rate)``; the mask comes from ``random_uniform(key)``, so the
    same key gives the same mask.  ``key``: a Python int or a 0-d integer
    Tensor (e.g. a placeholder fed a new value each step).  With
    ``training=False`` or ``rate == 0``, returns ``x`` unchanged."""
    op = "dropout"
    x = tensor(x)
    try:
        rate = float(rate)
    except (TypeError, ValueError):
        raise error_at(DTypeError, op, f"rate must be a number, got {type(rate).__name__}") from None
    if not 0.0 <= rate <= 1.0:
        raise error_at(ShapeError, op, f"rate must be in [0, 1], got {rate}")
    if isinstance(key, Tensor):
        if key.ndim or key.dtype.kind not in "iu":
            raise error_at(DTypeError, op, f"key must be a Python int or a 0-d integer Tensor, got "
                                           f"{key.dtype}{list(key.shape)}")
    else:
        key = as_int(op, key, "key")
    if not training or rate == 0.0:
        return x
    if rate == 1.0:
        return fnp.zeros_like(x)
    u = random_uniform(key, x.shape, np.float32 if x.dtype == np.float32 else np.float64)
    return fnp.where(u >= rate, x * (1.0 / (1.0 - rate)), 0)


def random_uniform(key, shape, dtype="float64"):
    """Uniform values in [0, 1) of ``shape`` (float32 or float64), drawn from
    Philox keyed by ``key`` (a Python int or a 0-d integer Tensor)."""
    op = "random_uniform"
    shape = (as_int(op, shape, "shape"),) if not isinstance(shape, (tuple, list)) else \
        tuple(as_int(op, d, "shape") for d in shape)
    if any(d < 0 for d in shape):
        raise error_at(ShapeError, op, f"negative dimensions are not allowed: {shape}")
    return ops.random_uniform(key, shape, dtype)


# ---------------------------------------------------------------- layers

def linear(x, w, b=None):
    """``x @ w + b`` with ``w`` of shape (in_features, out_features)."""
    op = "linear"
    x, w = tensor(x), tensor(w)
    ndim_at_least(op, x, 1, "x")
    if w.ndim != 2:
        raise error_at(ShapeError, op, f"weight must be 2-d (in_features, out_features), got shape {w.shape}")
    if x.shape[-1] != w.shape[0]:
        raise error_at(ShapeError, op, f"x {x.shape} has {x.shape[-1]} features, the weight {w.shape} takes "
                                       f"{w.shape[0]}")
    y = fnp.matmul(x, w)
    if b is not None:
        b = tensor(b)
        if b.ndim > 1 or b.shape not in ((), (1,), (w.shape[1],)):
            raise error_at(ShapeError, op, f"bias must have shape ({w.shape[1]},), got {b.shape}")
        y = y + b
    return y


def embedding(ids, table):
    """Rows of ``table`` at integer ``ids``: ``table[ids]``, shape
    ``ids.shape + table.shape[1:]``."""
    op = "embedding"
    ids, table = tensor(ids), tensor(table)
    if ids.dtype.kind not in "iu":
        raise error_at(DTypeError, op, f"ids must be integers, got {ids.dtype}")
    ndim_at_least(op, table, 1, "table")
    return fnp.take(table, ids, axis=0)


def flatten(x, start_axis=1, end_axis=-1):
    """Merge axes ``start_axis .. end_axis`` (inclusive) into one."""
    op = "flatten"
    x = tensor(x)
    if x.ndim == 0:
        return fnp.reshape(x, (1,))
    (s,), (e,) = axes(op, start_axis, x.ndim), axes(op, end_axis, x.ndim)
    if s > e:
        raise error_at(FgraphError, op, f"start_axis {start_axis} comes after end_axis {end_axis}")
    merged = 1
    for d in x.shape[s:e + 1]:
        merged *= d
    return fnp.reshape(x, x.shape[:s] + (merged,) + x.shape[e + 1:])

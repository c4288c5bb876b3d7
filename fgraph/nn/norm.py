"""Normalisation layers: batch norm, layer norm, local response norm."""
from __future__ import annotations

from .. import numpy as fnp
from ..errors import ShapeError
from ..symbol import error_at
from ._args import as_int, axes, floating, ndim_at_least, tensor


def _per_channel(op: str, t, name: str, c: int, ndim: int):
    t = tensor(t)
    if t.shape != (c,):
        raise error_at(ShapeError, op, f"{name} must have shape ({c},), got {t.shape}")
    return fnp.reshape(t, (1, c) + (1,) * (ndim - 2))


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Batch normalisation over axis 1 (x of any ndim >= 2).

    ``training=False``: ``(x - running_mean) / sqrt(running_var + eps) *
    weight + bias``, computed as ``x * scale + shift`` (one fused pass);
    returns y.

    ``training=True``: normalises with the batch mean and biased variance
    over every axis but 1 and returns ``(y, new_running_mean,
    new_running_var)``, ``new = (1 - momentum) * old + momentum * batch``
    with the unbiased variance in the running update (as PyTorch); put the
    new statistics in ``Graph(updates=...)``.
    """
    op = "batch_norm"
    x = tensor(x)
    ndim_at_least(op, x, 2, "x", " (N, C, ...)")
    floating(op, x)
    c, nd = x.shape[1], x.ndim
    mean_b = _per_channel(op, running_mean, "running_mean", c, nd)
    var_b = _per_channel(op, running_var, "running_var", c, nd)
    w = None if weight is None else _per_channel(op, weight, "weight", c, nd)
    b = None if bias is None else _per_channel(op, bias, "bias", c, nd)
    if not training:
        scale = 1 / fnp.sqrt(var_b + eps)
        if w is not None:
            scale = scale * w
        shift = -mean_b * scale
        if b is not None:
            shift = shift + b
        return x * scale + shift
    red = (0,) + tuple(range(2, nd))
    count = x.size // c if c else 0
    if count <= 1:
        raise error_at(ShapeError, op, f"training needs more than one value per channel, got x of shape {x.shape}")
    mu = fnp.mean(x, axis=red, keepdims=True)
    xc = x - mu
    var = fnp.mean(xc * xc, axis=red, keepdims=True)
    y = xc * (1 / fnp.sqrt(var + eps))
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    rm, rv = tensor(running_mean), tensor(running_var)
    new_mean = (1 - momentum) * rm + momentum * fnp.reshape(mu, (c,))
    new_var = (1 - momentum) * rv + (momentum * count / (count - 1)) * fnp.reshape(var, (c,))
    return y, new_mean.astype(rm.dtype), new_var.astype(rv.dtype)


def layer_norm(x, weight=None, bias=None, axis=-1, eps=1e-5):
    """Normalise over ``axis`` (an int or a tuple): ``(x - mean) /
    sqrt(var + eps) * weight + bias`` with the biased variance.  ``weight``
    and ``bias`` have the shape of the normalised axes (or broadcast to x)."""
    op = "layer_norm"
    x = tensor(x)
    floating(op, x)
    ndim_at_least(op, x, 1, "x")
    ax = axes(op, axis, x.ndim)
    mu = fnp.mean(x, axis=ax, keepdims=True)
    xc = x - mu
    var = fnp.mean(xc * xc, axis=ax, keepdims=True)
    y = xc * (1 / fnp.sqrt(var + eps))
    if weight is not None:
        y = y * _affine(op, weight, "weight", x.shape, ax)
    if bias is not None:
        y = y + _affine(op, bias, "bias", x.shape, ax)
    return y


def _affine(op, t, name, shape, ax):
    t = tensor(t)
    normalised = tuple(shape[a] for a in ax)
    if t.shape == normalised:
        return fnp.reshape(t, tuple(d if k in ax else 1 for k, d in enumerate(shape)))
    try:
        ok = fnp.broadcast_shapes(t.shape, shape) == tuple(shape)
    except Exception:
        ok = False
    if not ok:
        raise error_at(ShapeError, op, f"{name} must have the normalised shape {normalised} (or broadcast to "
                                       f"{tuple(shape)}), got {t.shape}")
    return t


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0):
    """Local response normalisation across channels (axis 1), as ONNX LRN:
    ``y = x / (k + alpha / size * sum of x**2 over the channel window) ** beta``,
    the window of channel ``c`` being ``[c - (size-1)//2, c + size//2]`` (for
    an even ``size`` PyTorch's window sits one channel lower)."""
    op = "local_response_norm"
    x = tensor(x)
    ndim_at_least(op, x, 3, "x", " (N, C, ...)")
    floating(op, x)
    size = as_int(op, size, "size")
    if size < 1:
        raise error_at(ShapeError, op, f"size must be at least 1, got {size}")
    c = x.shape[1]
    before = (size - 1) // 2
    sq = fnp.pad(x * x, [(0, 0), (before, size - 1 - before)] + [(0, 0)] * (x.ndim - 2))
    total = sq[:, 0:c]
    for t in range(1, size):
        total = total + sq[:, t:t + c]
    return x / (k + (alpha / size) * total) ** beta

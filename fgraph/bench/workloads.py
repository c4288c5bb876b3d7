"""Workloads written once against a namespace ``xp`` (NumPy or fgraph.numpy),
the way a person writes NumPy: named intermediates, no manual freeing."""
from __future__ import annotations

import numpy as np


def mlp_forward(xp, x, w1, b1, w2, b2, w3, b3):
    """A three-layer perceptron's class probabilities."""
    h1 = xp.maximum(x @ w1 + b1, 0.0)
    h2 = xp.maximum(h1 @ w2 + b2, 0.0)
    logits = h2 @ w3 + b3
    shifted = logits - xp.max(logits, axis=1, keepdims=True)
    e = xp.exp(shifted)
    return e / xp.sum(e, axis=1, keepdims=True)


def mlp_train_step(xp, x, y_onehot, w1, b1, w2, b2, w3, b3, lr=0.01):
    """Forward, hand-written backward and an SGD step: (loss, new weights)."""
    n = x.shape[0]
    z1 = x @ w1 + b1
    h1 = xp.maximum(z1, 0.0)
    z2 = h1 @ w2 + b2
    h2 = xp.maximum(z2, 0.0)
    logits = h2 @ w3 + b3
    shifted = logits - xp.max(logits, axis=1, keepdims=True)
    e = xp.exp(shifted)
    p = e / xp.sum(e, axis=1, keepdims=True)
    loss = -xp.sum(y_onehot * xp.log(p + 1e-9)) / n
    d_logits = (p - y_onehot) / n
    d_w3 = h2.T @ d_logits
    d_b3 = xp.sum(d_logits, axis=0)
    d_h2 = d_logits @ w3.T
    d_z2 = d_h2 * (z2 > 0)
    d_w2 = h1.T @ d_z2
    d_b2 = xp.sum(d_z2, axis=0)
    d_h1 = d_z2 @ w2.T
    d_z1 = d_h1 * (z1 > 0)
    d_w1 = x.T @ d_z1
    d_b1 = xp.sum(d_z1, axis=0)
    new = [w - lr * g for w, g in zip((w1, b1, w2, b2, w3, b3), (d_w1, d_b1, d_w2, d_b2, d_w3, d_b3))]
    return loss, new


def layer_norm(xp, x, gamma, beta, eps=1e-5):
    mu = xp.mean(x, axis=-1, keepdims=True)
    var = xp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) / xp.sqrt(var + eps) * gamma + beta


def transformer_block(xp, x, wq, wk, wv, wo, w1, w2, g1, b1, g2, b2, heads=4):
    """Pre-norm self-attention and GELU MLP with residuals; x: (seq, d)."""
    seq, d = x.shape
    hd = d // heads
    h = layer_norm(xp, x, g1, b1)
    q = xp.transpose(xp.reshape(h @ wq, (seq, heads, hd)), (1, 0, 2))
    k = xp.transpose(xp.reshape(h @ wk, (seq, heads, hd)), (1, 2, 0))
    v = xp.transpose(xp.reshape(h @ wv, (seq, heads, hd)), (1, 0, 2))
    scores = (q @ k) * float(1.0 / np.sqrt(hd))  # a Python float: a NumPy float64 scalar would promote to float64
    scores = scores - xp.max(scores, axis=-1, keepdims=True)
    att = xp.exp(scores)
    att = att / xp.sum(att, axis=-1, keepdims=True)
    ctx = xp.reshape(xp.transpose(att @ v, (1, 0, 2)), (seq, d))
    x2 = x + ctx @ wo
    h2 = layer_norm(xp, x2, g2, b2)
    u = h2 @ w1
    gelu = 0.5 * u * (1.0 + xp.tanh(0.7978845608 * (u + 0.044715 * u * u * u)))
    return x2 + gelu @ w2


def transformer_batch(xp, x, wq, wk, wv, wo, w1, w2, g1, b1, g2, b2, heads=4):
    """The same block on a batch of sequences, x: (batch, seq, d): attention
    stays within each sequence, so every row of the batch is independent
    (what a micro-batched compile can split)."""
    n, seq, d = x.shape
    hd = d // heads
    h = layer_norm(xp, x, g1, b1)
    q = xp.transpose(xp.reshape(h @ wq, (n, seq, heads, hd)), (0, 2, 1, 3))
    k = xp.transpose(xp.reshape(h @ wk, (n, seq, heads, hd)), (0, 2, 3, 1))
    v = xp.transpose(xp.reshape(h @ wv, (n, seq, heads, hd)), (0, 2, 1, 3))
    scores = (q @ k) * float(1.0 / np.sqrt(hd))
    scores = scores - xp.max(scores, axis=-1, keepdims=True)
    att = xp.exp(scores)
    att = att / xp.sum(att, axis=-1, keepdims=True)
    ctx = xp.reshape(xp.transpose(att @ v, (0, 2, 1, 3)), (n, seq, d))
    x2 = x + ctx @ wo
    h2 = layer_norm(xp, x2, g2, b2)
    u = h2 @ w1
    gelu = 0.5 * u * (1.0 + xp.tanh(0.7978845608 * (u + 0.044715 * u * u * u)))
    return x2 + gelu @ w2


def pipeline(xp, a, b, steps=40):
    """A long element-wise pipeline (a signal-processing-like chain)."""
    y = a
    for k in range(steps // 4):
        y = xp.tanh(y * 1.01 + b) - 0.5 * y
        y = xp.sqrt(xp.abs(y) + 1.0) * (k % 3 + 1)
    return y


def make_inputs(name: str, rng: np.random.Generator, dtype="float32"):
    """(function, list of argument arrays, names) for a workload."""
    f = np.dtype(dtype)

    def r(*shape, scale=1.0):
        return (rng.normal(size=shape) * scale).astype(f)

    if name in ("mlp_forward", "mlp_train_step"):
        n, d, hdim, c = 256, 784, 1024, 10
        ws = [r(d, hdim, scale=0.03), r(hdim), r(hdim, hdim, scale=0.03), r(hdim), r(hdim, c, scale=0.03), r(c)]
        x = r(n, d)
        if name == "mlp_forward":
            return mlp_forward, [x] + ws, ["x", "w1", "b1", "w2", "b2", "w3", "b3"]
        y = np.eye(c, dtype=f)[rng.integers(0, c, n)]
        return mlp_train_step, [x, y] + ws, ["x", "y", "w1", "b1", "w2", "b2", "w3", "b3"]
    if name in ("transformer_block", "transformer_batch"):
        seq, d = (256, 512) if name == "transformer_block" else (128, 512)
        x = r(seq, d) if name == "transformer_block" else r(8, seq, d)  # a batch of 8 sequences
        args = [x, *(r(d, d, scale=0.04) for _ in range(4)), r(d, 4 * d, scale=0.04),
                r(4 * d, d, scale=0.02), r(d) + 1, r(d), r(d) + 1, r(d)]
        fn = transformer_block if name == "transformer_block" else transformer_batch
        return fn, args, ["x", "wq", "wk", "wv", "wo", "w1", "w2", "g1", "b1", "g2", "b2"]
    if name == "pipeline":
        return pipeline, [r(1_000_000), r(1_000_000)], ["a", "b"]
    raise KeyError(name)


WORKLOADS = ("mlp_forward", "mlp_train_step", "transformer_block", "pipeline")
#: inference workloads with a batch axis, and the chunk sizes (rows per
#: chunk) the memory benchmark runs them micro-batched with
MICRO_BATCHED = {"mlp_forward": (16, 64), "transformer_batch": (1, 2)}

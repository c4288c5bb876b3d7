"""Gradient oracle: fgraph's symbolic gradients against central finite
differences in float64.

``check_grad(fn, *arrays)`` takes ``fn(xp, *args)`` (written against a
namespace, like ``oracle.check``), draws a random cotangent ``c`` for the
output and compares ``grad(sum(fn(...) * c))`` with the finite difference
of the same scalar, for every float argument.  ``check_grad2`` does the
same for the gradient itself (second derivatives)."""
from __future__ import annotations

import numpy as np

import fgraph
import fgraph.numpy as fnp


def _scalar(fn, cot):
    def f(xp, *args):
        out = fn(xp, *args)
        return xp.sum(out * cot) if cot is not None else out
    return f


def _numeric_grad(f, args, k, eps):
    x = np.array(args[k], dtype=np.float64)
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        old = x[idx]
        x[idx] = old + eps
        hi = float(f(np, *args[:k], x.copy(), *args[k + 1:]))
        x[idx] = old - eps
        lo = float(f(np, *args[:k], x.copy(), *args[k + 1:]))
        x[idx] = old
        g[idx] = (hi - lo) / (2 * eps)
    return g


def check_grad(fn, *arrays, argnums=None, eps=1e-6, rtol=1e-5, atol=1e-6, seed=0):
    """Compare fgraph.grad with central differences for ``fn(xp, *arrays)``."""
    arrays = [np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a)
              for a in arrays]
    nums = [k for k, a in enumerate(arrays) if a.dtype.kind == "f"] if argnums is None else list(argnums)
    out = np.asarray(fn(np, *arrays))
    cot = None if out.ndim == 0 else np.random.default_rng(seed).normal(size=out.shape)
    f = _scalar(fn, cot)
    lazy = [fnp.asarray(a) for a in arrays]
    y = f(fnp, *lazy)
    grads = fgraph.grad(y, [lazy[k] for k in nums])
    for k, g in zip(nums, grads):
        want = _numeric_grad(f, arrays, k, eps)
        got = np.asarray(g)
        assert got.shape == arrays[k].shape, (got.shape, arrays[k].shape)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"d/d(arg {k})")


def check_grad2(fn, *arrays, eps=1e-5, rtol=1e-4, atol=1e-5, seed=1):
    """Second derivatives: the gradient of <grad f, v> against central
    differences of the (fgraph) gradient itself."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    rng = np.random.default_rng(seed)
    out = np.asarray(fn(np, *arrays))
    cot = None if out.ndim == 0 else rng.normal(size=out.shape)
    f = _scalar(fn, cot)
    vs = [rng.normal(size=a.shape) for a in arrays]

    def dot_grad(xp, *args):
        if xp is np:  # evaluate fgraph's first derivative for the finite difference
            lazy = [fnp.asarray(a) for a in args]
            gs = fgraph.grad(f(fnp, *lazy), lazy)
            return sum(float(np.sum(np.asarray(g) * v)) for g, v in zip(gs, vs))
        gs = fgraph.grad(f(fnp, *args), list(args))
        total = None
        for g, v in zip(gs, vs):
            term = fnp.sum(g * v)
            total = term if total is None else total + term
        return total

    lazy = [fnp.asarray(a) for a in arrays]
    second = fgraph.grad(dot_grad(fnp, *lazy), lazy)
    for k, g in enumerate(second):
        want = _numeric_grad(dot_grad, arrays, k, eps)
        np.testing.assert_allclose(np.asarray(g), want, rtol=rtol, atol=atol, err_msg=f"d2/d(arg {k})")

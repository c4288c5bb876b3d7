"""Loops inside graphs: a heat solver iterated to a tolerance, an RNN trained
with scan and grad, and Newton's method.

    python examples/loops.py

Each loop is one node of the graph; its body is traced once into a
sub-graph, compiled once, and run once per iteration (fgraph.while_loop,
fgraph.scan, fgraph.fori_loop follow jax.lax's signatures).
"""
from __future__ import annotations

import numpy as np

import fgraph
import fgraph.numpy as fnp


def heat(n=64, tol=1e-5):
    """Jacobi iteration for the steady heat equation: one hot edge, to a tolerance."""
    u0 = np.zeros((n, n))
    u0[0, :] = 100.0
    rim = np.ones((n, n))
    rim[1:-1, 1:-1] = 0

    def sweep(state):
        u, _, steps = state
        inner = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        new = fnp.pad(inner, 1) + u * rim  # the boundary is held
        return new, fnp.abs(new - u).max(), steps + 1

    grid = fnp.placeholder((n, n), "float64", name="grid")
    u, change, steps = fgraph.while_loop(lambda s: s[1] > tol, sweep, (grid, np.inf, np.int64(0)))
    exe = fgraph.compile(fgraph.optimise(fgraph.Graph([u, steps])))
    u, steps = exe(grid=u0)
    print(f"heat: {int(steps)} Jacobi sweeps to a change below {tol}; centre temperature {u[n // 2, n // 2]:.3f}")
    return u0, u, int(steps)


def rnn(hidden=32, T=50, steps=200, lr=0.05):
    """A tanh RNN learning to follow a delayed sine: scan over the sequence, grad through it."""
    rng = np.random.default_rng(0)
    t = np.linspace(0, 8 * np.pi, T + 1)
    xs, targets = np.sin(t[1:])[:, None], np.sin(t[:-1])[:, None]
    W = fnp.variable(rng.normal(size=(hidden, hidden)) * 0.1, name="W")
    U = fnp.variable(rng.normal(size=(hidden, 1)), name="U")
    V = fnp.variable(rng.normal(size=(1, hidden)) * 0.1, name="V")
    px, pt = fnp.placeholder(xs.shape, name="xs"), fnp.placeholder(targets.shape, name="targets")

    def step(h, row):
        x, target = row
        h = fnp.tanh(W @ h + U @ x)
        return h, ((V @ h - target) ** 2).sum()

    _, errors = fgraph.scan(step, fnp.zeros(hidden), (px, pt))
    loss = errors.mean()
    grads = fgraph.grad(loss, [W, U, V])
    exe = fgraph.compile(fgraph.optimise(fgraph.Graph(loss, updates=fgraph.optim.sgd([W, U, V], grads, lr=lr))))
    first = float(exe(xs=xs, targets=targets))
    last = float(exe.run(steps, xs=xs, targets=targets))
    print(f"rnn: loss {first:.4f} -> {last:.4f} after {steps} steps of scan + grad")
    return first, last


def newton(count=5):
    """Square roots by Newton's iteration, a fixed number of steps (fori_loop), and its derivative."""
    a = fnp.asarray(np.linspace(1.0, 100.0, count))
    root = fgraph.fori_loop(0, 20, lambda i, x: 0.5 * (x + a / x), fnp.maximum(a, 1.0))
    slope = fgraph.grad(root.sum(), a)  # d sqrt(a) / da = 1 / (2 sqrt(a)), through the loop
    print("newton: sqrt", np.round(np.asarray(root), 6), "derivative", np.round(np.asarray(slope), 6))
    return np.asarray(a), np.asarray(root), np.asarray(slope)


if __name__ == "__main__":
    heat()
    rnn()
    newton()

"""Loops inside graphs (issue 17): each workload written once with fgraph's
loops and once as the same loop in NumPy (and with JAX's, when installed),
results compared, then timed side by side.

- ``jacobi``: a heat equation's Jacobi iteration on an n x n grid, iterated
  to a tolerance (``while_loop``: a data-dependent trip count);
- ``rnn``: one training step of a tanh RNN over a sequence (``scan`` and
  ``fgraph.grad``: backpropagation through time), against hand-written BPTT;
- ``newton``: Newton's iteration for square roots, a fixed number of steps
  (``fori_loop``).
"""
from __future__ import annotations

import numpy as np

import fgraph
import fgraph.numpy as fnp

from ..engines.numpy_kernels.native import STATS, graph_code, runtime, settle
from .report import environment, save, table
from .timing import best_of


# ---------------------------------------------------------------- the workloads, in NumPy

def jacobi_numpy(u0, tol, max_steps):
    """Jacobi sweeps (the boundary held) until the largest change is below ``tol``."""
    u, steps = u0, 0
    while steps < max_steps:
        new = u.copy()
        new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        change = np.abs(new - u).max()
        u, steps = new, steps + 1
        if change < tol:
            break
    return u, steps


def rnn_step_numpy(W, U, h0, xs, targets, lr):
    """Loss and SGD-updated (W, U) of ``sum_t |h_t - target_t|^2 / T``, h_t = tanh(W h + U x_t): BPTT by hand."""
    T = xs.shape[0]
    hs = [h0]
    for t in range(T):
        hs.append(np.tanh(W @ hs[-1] + U @ xs[t]))
    loss = sum(((hs[t + 1] - targets[t]) ** 2).sum() for t in range(T)) / T
    gW, gU, dh = np.zeros_like(W), np.zeros_like(U), np.zeros_like(h0)
    for t in reversed(range(T)):
        dh = dh + 2 * (hs[t + 1] - targets[t]) / T
        da = dh * (1 - hs[t + 1] ** 2)
        gW += np.outer(da, hs[t])
        gU += np.outer(da, xs[t])
        dh = W.T @ da
    return loss, W - lr * gW, U - lr * gU


def newton_numpy(a, steps):
    x = np.maximum(a, 1.0)
    for _ in range(steps):
        x = 0.5 * (x + a / x)
    return x


# ---------------------------------------------------------------- the same with fgraph's loops

def jacobi_fgraph(u0, tol, max_steps):
    """``(u, steps)`` of :func:`jacobi_numpy`, as one ``while_loop``."""
    def sweep(state):  # NumPy's own code: a copy, a write into it
        u, _, steps = state
        new = u.copy()
        new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        return new, fnp.abs(new - u).max(), steps + 1

    u, _, steps = fgraph.while_loop(lambda s: (s[1] >= tol) & (s[2] < max_steps), sweep,
                                    (u0, np.asarray(np.inf, u0.dtype), np.int64(0)))
    return u, steps


def rnn_loss_fgraph(W, U, h0, xs, targets):
    def step(h, row):
        x, target = row
        h = fnp.tanh(W @ h + U @ x)
        return h, ((h - target) ** 2).sum()

    _, losses = fgraph.scan(step, h0, (xs, targets))
    return losses.sum() / xs.shape[0]


def newton_fgraph(a, steps):
    return fgraph.fori_loop(0, steps, lambda i, x: 0.5 * (x + a / x), fnp.maximum(a, 1.0))


# ---------------------------------------------------------------- running them

def workloads(quick: bool = False) -> list[dict]:
    """Each workload: name, its contenders (no-argument callables) and a check
    (fgraph's results against NumPy's: the largest relative difference)."""
    rng = np.random.default_rng(0)
    hidden, T = (16, 20) if quick else (64, 100)
    out = []

    tol, max_steps = 1e-4, 20000
    grids = []
    for n in (32,) if quick else (32, 128):  # small steps (a sweep of 32x32: ~10 NumPy calls of 1K values), larger
        u0 = np.zeros((n, n))
        u0[0, :] = 1.0
        pu = fnp.placeholder(u0.shape, u0.dtype, name="u0")
        exe = fgraph.compile(fgraph.optimise(fgraph.Graph(list(jacobi_fgraph(pu, tol, max_steps)))))
        exe(u0=u0)
        settle()  # the loop's native code compiles in the background: the figures are steady state
        (ug, sg), (un, sn) = exe(u0=u0), jacobi_numpy(u0, tol, max_steps)
        out.append({"name": f"jacobi {n}x{n} to tol {tol} ({sn} sweeps)", "check": _rel(ug, un) + abs(int(sg) - sn),
                    "fgraph": lambda exe=exe, u0=u0: exe(u0=u0),
                    "numpy": lambda u0=u0: jacobi_numpy(u0, tol, max_steps)})
        grids.append(u0)

    W, U = rng.normal(size=(hidden, hidden)) / hidden ** 0.5, rng.normal(size=(hidden, 8)) / 8 ** 0.5
    h0, xs, targets = np.zeros(hidden), rng.normal(size=(T, 8)), rng.normal(size=(T, hidden)) * 0.5
    vW, vU = fnp.variable(W, name="W"), fnp.variable(U, name="U")
    px, pt = fnp.placeholder(xs.shape, name="xs"), fnp.placeholder(targets.shape, name="targets")
    loss = rnn_loss_fgraph(vW, vU, fnp.asarray(h0), px, pt)
    gW, gU = fgraph.grad(loss, [vW, vU])
    train = fgraph.compile(fgraph.optimise(fgraph.Graph(loss, updates={vW: vW - 0.1 * gW, vU: vU - 0.1 * gU})))
    got = float(train(xs=xs, targets=targets))
    want, W1, U1 = rnn_step_numpy(W, U, h0, xs, targets, 0.1)
    check = max(_rel(got, want), _rel(train.variables["W"], W1), _rel(train.variables["U"], U1))
    out.append({"name": f"rnn train step, hidden {hidden}, {T} steps", "check": check,
                "fgraph": lambda: train(xs=xs, targets=targets),
                "numpy": lambda: rnn_step_numpy(W, U, h0, xs, targets, 0.1)})

    a = rng.uniform(0.1, 100.0, size=10_000 if quick else 1_000_000)
    pa = fnp.placeholder(a.shape, a.dtype, name="a")
    newton = fgraph.compile(fgraph.optimise(fgraph.Graph(newton_fgraph(pa, 30))))
    out.append({"name": f"newton sqrt, {a.size:,} values, 30 steps", "check": _rel(newton(a=a), newton_numpy(a, 30)),
                "fgraph": lambda: newton(a=a), "numpy": lambda: newton_numpy(a, 30)})
    _add_jax(out, grids, tol, max_steps, W, U, h0, xs, targets, a)
    return out


def _rel(got, want) -> float:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    return float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-300)) if want.size else 0.0


def _add_jax(out, grids, tol, max_steps, W, U, h0, xs, targets, a) -> None:
    """The same loops with jax.lax (jit), when JAX is installed."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)

    def jacobi(u):
        def sweep(s):
            u, _, k = s
            new = u.at[1:-1, 1:-1].set(0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]))
            return new, jnp.abs(new - u).max(), k + 1
        return jax.lax.while_loop(lambda s: (s[1] >= tol) & (s[2] < max_steps), sweep, (u, jnp.inf, 0))[0]

    def loss(p, xs, targets):
        def step(h, row):
            h = jnp.tanh(p[0] @ h + p[1] @ row[0])
            return h, ((h - row[1]) ** 2).sum()
        return jax.lax.scan(step, jnp.asarray(h0), (xs, targets))[1].sum() / xs.shape[0]

    jac, grad = jax.jit(jacobi), jax.jit(jax.value_and_grad(loss))
    newton = jax.jit(lambda a: jax.lax.fori_loop(0, 30, lambda i, x: 0.5 * (x + a / x), jnp.maximum(a, 1.0)))
    jxs, jt, ja, jp = jnp.asarray(xs), jnp.asarray(targets), jnp.asarray(a), (W, U)
    for row, u0 in zip(out, grids):
        row["jax"] = lambda ju=jnp.asarray(u0): jac(ju).block_until_ready()
    out[-2]["jax"] = lambda: grad(jp, jxs, jt)[0].block_until_ready()
    out[-1]["jax"] = lambda: newton(ja).block_until_ready()


def size_limit(quick: bool = False) -> list[dict]:
    """Newton's 30 steps (``fori_loop``) run whole in C against the compiled
    programs (threaded kernels), by the number of values: the measurement
    behind ``graph_code.MAX_VALUES``."""
    rows = []
    for n in (1 << 12, 1 << 14) if quick else (1 << 12, 1 << 14, 1 << 16, 1 << 18):
        a = np.random.default_rng(0).uniform(0.1, 100.0, n)
        pa = fnp.placeholder(a.shape, a.dtype, name="a")
        exe = fgraph.compile(fgraph.optimise(fgraph.Graph(newton_fgraph(pa, 30))))
        t = {}
        for way, limit in (("native", max(n, graph_code.MAX_VALUES)), ("programs", 0)):
            saved, graph_code.MAX_VALUES = graph_code.MAX_VALUES, limit
            try:
                runtime.forget_loops()  # (compiled again under this limit)
                exe(a=a)
                settle()
                before = STATS["loops"]
                t[way] = best_of({way: lambda: exe(a=a)}, 3 if quick else 7)[way]
                assert (STATS["loops"] > before) == (way == "native")
            finally:
                graph_code.MAX_VALUES = saved
        rows.append({"values": n, "native_ms": 1e3 * t["native"], "programs_ms": 1e3 * t["programs"],
                     "native_vs_programs": t["native"] / t["programs"]})
    return rows


def main(quick: bool = False, out: str = "bench-results") -> int:
    rows = []
    for w in workloads(quick):
        names = [k for k in ("fgraph", "numpy", "jax") if k in w]
        t = best_of({k: w[k] for k in names}, 3 if quick else 7)
        row = {"workload": w["name"], "max_rel_diff": w["check"], **{f"{k}_ms": 1e3 * t[k] for k in names}}
        row["fgraph_vs_numpy"] = t["fgraph"] / t["numpy"]
        if "jax" in t:
            row["fgraph_vs_jax"] = t["fgraph"] / t["jax"]
        rows.append(row)
    print("fgraph loops benchmark: while_loop, scan + grad, fori_loop against the same loops in NumPy (and JAX)")
    print(environment())
    print(table(rows, ["workload", "fgraph_ms", "numpy_ms", "jax_ms", "fgraph_vs_numpy", "fgraph_vs_jax",
                       "max_rel_diff"]))
    limit = size_limit(quick)
    print(f"\nA loop run whole in C against its compiled programs, by body size (Newton, 30 steps; loops run whole "
          f"up to {graph_code.MAX_VALUES:,} values)")
    print(table(limit, ["values", "native_ms", "programs_ms", "native_vs_programs"]))
    print("saved", save("loops", out, {"rows": rows, "size_limit": limit}))
    return 0

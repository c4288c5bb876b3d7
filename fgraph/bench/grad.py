"""A training step of a multi-layer perceptron: fgraph.grad + SGD updates as
one compiled graph, against eager NumPy with hand-written backprop (the
same arithmetic) and JAX jit when installed."""
from __future__ import annotations


import numpy as np

import fgraph
import fgraph.numpy as fnp

from .report import environment, save, table
from .timing import best_of, peak_bytes
from .workloads import make_inputs, mlp_train_step


def _loss(xp, x, y, w1, b1, w2, b2, w3, b3):
    h1 = xp.maximum(x @ w1 + b1, 0.0)
    h2 = xp.maximum(h1 @ w2 + b2, 0.0)
    logits = h2 @ w3 + b3
    shifted = logits - xp.max(logits, axis=1, keepdims=True)
    e = xp.exp(shifted)
    p = e / xp.sum(e, axis=1, keepdims=True)
    return -xp.sum(y * xp.log(p + 1e-9)) / x.shape[0]




def main(quick: bool = False, out: str = "bench-results") -> int:
    repeats = 3 if quick else 9
    _, args, names = make_inputs("mlp_train_step", np.random.default_rng(0))
    x, y, *ws = args
    px, py = fnp.placeholder(x.shape, x.dtype, name="x"), fnp.placeholder(y.shape, y.dtype, name="y")
    params = [fnp.variable(w, name=n) for w, n in zip(ws, names[2:])]
    loss = _loss(fnp, px, py, *params)
    grads = fgraph.grad(loss, params)
    graph = fgraph.Graph(loss, updates=fgraph.optim.sgd(params, grads, lr=0.01))
    exe = fgraph.compile(fgraph.optimise(graph))
    state = [w.copy() for w in ws]

    def eager():
        loss_value, new = mlp_train_step(np, x, y, *state, lr=0.01)
        state[:] = new
        return loss_value

    got, want = exe(x=x, y=y), mlp_train_step(np, x, y, *ws, lr=0.01)[0]
    rel = abs(float(got) - float(want)) / abs(float(want))
    contenders = {"fgraph": lambda: exe(x=x, y=y), "numpy_by_hand": eager}
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_platforms", "cpu")

        def jstep(p, xb, yb):
            loss_value, g = jax.value_and_grad(lambda q: _loss(jnp, xb, yb, *q))(p)
            return loss_value, [w - 0.01 * gw for w, gw in zip(p, g)]

        jf = jax.jit(jstep)
        jstate = [[jax.device_put(w) for w in ws]]
        jx, jy = jax.device_put(x), jax.device_put(y)

        def jax_step():
            loss_value, jstate[0] = jf(jstate[0], jx, jy)
            loss_value.block_until_ready()

        contenders["jax_jit"] = jax_step
    except ImportError:
        pass
    t = best_of(contenders, repeats)
    graph_peak = exe.memory.arena_bytes + peak_bytes(lambda: exe(x=x, y=y))
    eager_peak = peak_bytes(eager)
    row = {"model": "MLP 784-1024-1024-10, batch 256, float32", "nodes": len(graph),
           "fgraph_ms": 1e3 * t["fgraph"], "numpy_by_hand_ms": 1e3 * t["numpy_by_hand"],
           "fgraph_vs_numpy": t["fgraph"] / t["numpy_by_hand"], "graph_peak_MB": graph_peak / 2**20,
           "eager_peak_MB": eager_peak / 2**20, "loss_rel_diff": rel}
    if "jax_jit" in t:
        row["jax_ms"] = 1e3 * t["jax_jit"]
        row["fgraph_vs_jax"] = t["fgraph"] / t["jax_jit"]
    print("fgraph grad benchmark: one training step (forward, backward, SGD update)")
    print(environment())
    print(table([row], ["model", "nodes", "fgraph_ms", "numpy_by_hand_ms", "fgraph_vs_numpy", "jax_ms",
                        "fgraph_vs_jax", "graph_peak_MB", "eager_peak_MB", "loss_rel_diff"]))
    print("saved", save("grad", out, {"rows": [row]}))
    return 0

"""The demonstration: a two-layer network written with ``fgraph.numpy``,
built as a graph, compiled on the NumPy engine, checked against plain NumPy."""
from __future__ import annotations

import time

import numpy as np

import fgraph
import fgraph.numpy as fnp


def two_layer(xp, x, w1, b1, w2, b2):
    """The same code runs on NumPy (eager) and on fgraph.numpy (lazy)."""
    h = xp.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    z = logits - xp.max(logits, axis=1, keepdims=True)
    p = xp.exp(z) / xp.sum(xp.exp(z), axis=1, keepdims=True)
    return p


def _data(rng, n=512, d=20, classes=3):
    centres = rng.normal(scale=3.0, size=(classes, d))
    labels = rng.integers(0, classes, size=n)
    x = centres[labels] + rng.normal(size=(n, d))
    return x.astype(np.float32), labels


def run() -> int:
    rng = np.random.default_rng(0)
    x_np, labels = _data(rng)
    params = [rng.normal(scale=0.3, size=(20, 64)).astype(np.float32), np.zeros(64, np.float32),
              rng.normal(scale=0.3, size=(64, 3)).astype(np.float32), np.zeros(3, np.float32)]

    print("fgraph demo: a two-layer network on generated data (NumPy engine)\n")
    t0 = time.perf_counter()
    x = fnp.placeholder(x_np.shape, "float32", name="x")
    ws = [fnp.variable(p, name=n) for p, n in zip(params, ["w1", "b1", "w2", "b2"])]
    probs = two_layer(fnp, x, *ws)
    predicted = fnp.argmax(probs, axis=1)
    graph = fgraph.Graph({"probs": probs, "predicted": predicted})
    t1 = time.perf_counter()
    print(f"built a graph of {graph.num_nodes} nodes in {1e3 * (t1 - t0):.2f} ms; ops used:")
    ops = sorted({n.op for n in graph.nodes()})
    print("  " + ", ".join(ops))

    exe = fgraph.compile(graph)
    out = exe(x=x_np)
    t2 = time.perf_counter()
    print(f"compiled and ran it in {1e3 * (t2 - t1):.2f} ms")

    want = two_layer(np, x_np, *params)
    same_dtype = out["probs"].dtype == want.dtype
    max_diff = float(np.max(np.abs(out["probs"] - want)))
    print(f"checked against eager NumPy: dtype {out['probs'].dtype} (NumPy: {want.dtype}), "
          f"shape {out['probs'].shape}, max |difference| = {max_diff:.3g}")
    accuracy = float(np.mean(out["predicted"] == labels))
    print(f"untrained accuracy on {len(labels)} points: {accuracy:.2%} (three classes)")

    reps = 20
    t3 = time.perf_counter()
    for _ in range(reps):
        exe(x=x_np)
    t4 = time.perf_counter()
    for _ in range(reps):
        two_layer(np, x_np, *params)
    t5 = time.perf_counter()
    print(f"steady state: {1e3 * (t4 - t3) / reps:.3f} ms per run with the graph, "
          f"{1e3 * (t5 - t4) / reps:.3f} ms eager NumPy")
    ok = same_dtype and max_diff == 0.0
    print("\nresult identical to NumPy:", "yes" if ok else "NO")
    return 0 if ok else 1

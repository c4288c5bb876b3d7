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
    print("result identical to NumPy:", "yes" if ok else "NO")
    ok = optimiser_demo(rng) and ok
    return 0 if (training_demo(x_np, labels, params) and ok) else 1


def training_demo(x_np, labels, params) -> bool:
    """The same network trained: fgraph.grad and Adam updates in one graph."""
    print("\n-- training (fgraph.grad + fgraph.optim.adam, one compiled step) --")
    onehot = np.eye(3, dtype=np.float32)[labels]
    x = fnp.placeholder(x_np.shape, "float32", name="x")
    t = fnp.placeholder(onehot.shape, "float32", name="t")
    ws = [fnp.variable(p, name=n) for p, n in zip(params, ["w1", "b1", "w2", "b2"])]
    probs = two_layer(fnp, x, *ws)
    loss = -fnp.mean(fnp.sum(t * fnp.log(probs + 1e-7), axis=1))
    updates = fgraph.optim.adam(ws, fgraph.grad(loss, ws), lr=0.002)
    step = fgraph.compile(fgraph.optimise(fgraph.Graph([loss, fnp.argmax(probs, axis=1)], updates=updates)))
    history, done = [], 0
    for n in (1, 10, 10, 10, 10, 10):
        value, predicted = step.run(steps=n, x=x_np, t=onehot)  # the loss of the last step run
        done += n
        history.append(float(value))
        print(f"  step {done:>3}: loss {float(value):.4f}, accuracy {np.mean(predicted == labels):.1%}")
    print(f"  memory: {step.memory}")
    return history[-1] < history[0]


def expression(xp, a, b, c):
    """Ten element-wise ops, the kind of NumPy code that allocates a temporary per op."""
    return xp.tanh(a * b + c) * xp.exp(-a) + xp.sqrt(b) * 0.5 - xp.abs(c - a) / (b + 1.0)


def optimiser_demo(rng, n: int = 4_000_000) -> bool:
    print("\n-- the optimiser --")
    arrays = [rng.random(n, dtype=np.float32) + 0.1 for _ in range(3)]
    phs = [fnp.placeholder((n,), "float32", name=k) for k in "abc"]
    graph = fgraph.Graph(expression(fnp, *phs) * 1.0 + fnp.sin(phs[0]) * 0.0 + expression(fnp, *phs))
    optimised, report = fgraph.optimise(graph, report=True)
    print(report)
    fused = [m for m in optimised.nodes() if m.op == "fused"]
    print(f"{len(graph)} nodes -> {len(optimised)}; {len(fused)} fused kernel(s) of "
          f"{', '.join(str(len(f.param('expr'))) for f in fused)} ops")
    exe = fgraph.compile(optimised)
    feeds = dict(zip("abc", arrays))
    got = exe(**feeds)
    with np.errstate(all="ignore"):
        want = expression(np, *arrays) * 1.0 + np.sin(arrays[0]) * 0.0 + expression(np, *arrays)
    same = got.dtype == want.dtype and np.array_equal(got, want)
    from .bench.timing import best_of

    t = best_of({"graph": lambda: exe(**feeds),
                 "numpy": lambda: expression(np, *arrays) * 1.0 + np.sin(arrays[0]) * 0.0
                 + expression(np, *arrays)}, repeats=5)
    print(f"{n:,} float32 values: {1e3 * t['graph']:.1f} ms optimised graph, {1e3 * t['numpy']:.1f} ms eager "
          f"NumPy: {t['numpy'] / t['graph']:.1f}x faster; identical to NumPy: {'yes' if same else 'NO'}")
    return same

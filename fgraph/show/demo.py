"""Write an example report and its screenshot:
``python -m fgraph.show.demo [folder]`` (default ``docs``) writes
``report.html`` for one training step of a small MLP (optimised, compiled,
profiled) and, where Chromium is installed, ``report.png``."""
from __future__ import annotations

import os
import sys

import numpy as np


def training_step():
    """(graph, feeds): one SGD step of a two-layer MLP with a softmax loss."""
    import fgraph
    import fgraph.numpy as fnp

    rng = np.random.default_rng(0)
    x = fnp.placeholder((64, 32), "float32", name="x")
    labels = fnp.placeholder((64, 10), "float32", name="labels")
    w1 = fnp.variable(rng.normal(0, 0.2, (32, 48)).astype("float32"), name="w1")
    b1 = fnp.variable(np.zeros(48, "float32"), name="b1")
    w2 = fnp.variable(rng.normal(0, 0.2, (48, 10)).astype("float32"), name="w2")
    h = fnp.tanh(x @ w1 + b1)
    logits = h @ w2
    z = logits - fnp.max(logits, axis=1, keepdims=True)
    logp = z - fnp.log(fnp.sum(fnp.exp(z), axis=1, keepdims=True))
    loss = -fnp.mean(fnp.sum(labels * logp, axis=1))
    grads = fgraph.grad(loss, [w1, b1, w2])
    g = fgraph.Graph(outputs={"loss": loss}, updates={v: v - 0.1 * d for v, d in zip((w1, b1, w2), grads)})
    feeds = {"x": rng.normal(size=(64, 32)).astype("float32"),
             "labels": np.eye(10, dtype="float32")[rng.integers(0, 10, 64)]}
    return g, feeds


def main(folder: str = "docs") -> dict:
    """Write the page (and its screenshot where Chromium is); returns their paths."""
    import fgraph
    from .browser import find_chromium, screenshot

    g, feeds = training_step()
    g2, rep = fgraph.optimise(g, report=True)
    exe = fgraph.compile(g2)
    exe.profile(runs=5, **feeds)
    os.makedirs(folder, exist_ok=True)
    out = {"html": fgraph.report(exe, os.path.join(folder, "report.html"), optimiser_report=rep,
                                 title="fgraph report: one training step of a small MLP")}
    if find_chromium() is not None:
        out["png"] = screenshot(out["html"], os.path.join(folder, "report.png"), height=5600)
    return out


if __name__ == "__main__":
    for kind, path in main(*sys.argv[1:2]).items():
        print(f"{kind}: {path}")

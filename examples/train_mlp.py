"""Train logistic regression and a two-layer network with fgraph.

The data are generated (three interleaved spirals, which a linear model
cannot separate), so the example needs nothing but fgraph:

    python examples/train_mlp.py

Each model is one graph: the loss, its gradients (fgraph.grad) and an
optimiser's updates (fgraph.optim), optimised and memory-planned once, then
run for many steps with exe.run(steps=N); nothing is rebuilt between steps.
"""
from __future__ import annotations

import numpy as np

import fgraph
import fgraph.numpy as fnp


def spirals(n_per_class=300, classes=3, noise=0.15, seed=0):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(classes):
        r = np.linspace(0.05, 1.0, n_per_class)
        t = np.linspace(c * 4.0, (c + 1) * 4.0, n_per_class) + rng.normal(scale=noise, size=n_per_class)
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        ys.append(np.full(n_per_class, c))
    x, y = np.concatenate(xs).astype(np.float32), np.concatenate(ys)
    order = rng.permutation(len(y))
    return x[order], y[order]


def cross_entropy(logits, onehot):
    z = logits - fnp.max(logits, axis=1, keepdims=True)
    logp = z - fnp.log(fnp.sum(fnp.exp(z), axis=1, keepdims=True))
    return -fnp.mean(fnp.sum(onehot * logp, axis=1))


def train(model: str, x_np, y_np, steps=2000, hidden=64, seed=0, optimiser="adam"):
    rng = np.random.default_rng(seed)
    classes = int(y_np.max()) + 1
    onehot_np = np.eye(classes, dtype=np.float32)[y_np]
    x = fnp.placeholder(x_np.shape, "float32", name="x")
    t = fnp.placeholder(onehot_np.shape, "float32", name="t")
    if model == "logistic":
        params = [fnp.variable(rng.normal(scale=0.1, size=(2, classes)).astype(np.float32), name="w"),
                  fnp.variable(np.zeros(classes, np.float32), name="b")]
        logits = x @ params[0] + params[1]
    else:
        params = [fnp.variable(rng.normal(scale=1.0, size=(2, hidden)).astype(np.float32), name="w1"),
                  fnp.variable(np.zeros(hidden, np.float32), name="b1"),
                  fnp.variable(rng.normal(scale=0.1, size=(hidden, classes)).astype(np.float32), name="w2"),
                  fnp.variable(np.zeros(classes, np.float32), name="b2")]
        h = fnp.tanh(x @ params[0] + params[1])
        logits = h @ params[2] + params[3]
    loss = cross_entropy(logits, t)
    grads = fgraph.grad(loss, params)
    updates = (fgraph.optim.adam(params, grads, lr=0.02) if optimiser == "adam"
               else fgraph.optim.sgd(params, grads, lr=0.5, momentum=0.9))
    step = fgraph.compile(fgraph.optimise(fgraph.Graph(loss, updates=updates)))
    predict = fgraph.compile(fgraph.optimise(fgraph.Graph(fnp.argmax(logits, axis=1))))
    losses = [float(step(x=x_np, t=onehot_np))]
    for _ in range(9):
        losses.append(float(step.run(steps=steps // 10, x=x_np, t=onehot_np)))
    for p in params:  # carry the trained values into the prediction graph
        predict.assign(**{p.node.name: step.variables[p.node.name]})
    accuracy = float(np.mean(predict(x=x_np) == y_np))
    return losses, accuracy, step


def main():
    x, y = spirals()
    for model in ("logistic", "mlp"):
        losses, acc, step = train(model, x, y)
        print(f"{model:>8}: loss {losses[0]:.3f} -> {losses[-1]:.3f}, training accuracy {acc:.1%}; "
              f"{step.memory}")


if __name__ == "__main__":
    main()

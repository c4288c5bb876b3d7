"""Training with gradients and optimiser updates, against NumPy by hand."""
import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(64, 5))
    w_true = rng.normal(size=(5, 3))
    y = np.eye(3)[np.argmax(x @ w_true, axis=1)]
    return x, y


def _logistic(xp, x, y, w, b):
    z = x @ w + b
    z = z - xp.max(z, axis=1, keepdims=True)
    p = xp.exp(z) / xp.sum(xp.exp(z), axis=1, keepdims=True)
    return -xp.mean(xp.sum(y * xp.log(p), axis=1)), p


@pytest.mark.parametrize("optimiser", ["sgd", "momentum", "adam"])
def test_optimiser_steps_match_numpy_by_hand(optimiser):
    x, y = _problem()
    w0, b0 = np.zeros((5, 3)), np.zeros(3)
    px, py = fnp.placeholder(x.shape, name="x"), fnp.placeholder(y.shape, name="y")
    w, b = fnp.variable(w0, name="w"), fnp.variable(b0, name="b")
    loss, _ = _logistic(fnp, px, py, w, b)
    grads = fgraph.grad(loss, [w, b])
    if optimiser == "adam":
        updates = fgraph.optim.adam([w, b], grads, lr=0.05)
    else:
        updates = fgraph.optim.sgd([w, b], grads, lr=0.5, momentum=0.9 if optimiser == "momentum" else 0.0)
    exe = fgraph.compile(fgraph.optimise(fgraph.Graph(loss, updates=updates)))
    # the same steps by hand in NumPy: softmax regression's gradient is x.T (p - y) / n
    wn, bn = w0.copy(), b0.copy()
    state = [np.zeros_like(wn), np.zeros_like(bn), np.zeros_like(wn), np.zeros_like(bn)]
    for k in range(1, 21):
        got = exe(x=x, y=y)
        want, p = _logistic(np, x, y, wn, bn)
        np.testing.assert_allclose(got, want, rtol=1e-10)
        gw, gb = x.T @ (p - y) / len(x), np.sum(p - y, axis=0) / len(x)
        if optimiser == "adam":
            for i, g in enumerate((gw, gb)):
                state[i] = 0.9 * state[i] + 0.1 * g
                state[i + 2] = 0.999 * state[i + 2] + 0.001 * g * g
            mh = [m / (1 - 0.9 ** k) for m in state[:2]]
            vh = [v / (1 - 0.999 ** k) for v in state[2:]]
            wn = wn - 0.05 * mh[0] / (np.sqrt(vh[0]) + 1e-8)
            bn = bn - 0.05 * mh[1] / (np.sqrt(vh[1]) + 1e-8)
        else:
            mom = 0.9 if optimiser == "momentum" else 0.0
            state[0], state[1] = mom * state[0] + gw, mom * state[1] + gb
            wn, bn = wn - 0.5 * state[0], bn - 0.5 * state[1]
        np.testing.assert_allclose(exe.variables["w"], wn, rtol=1e-9, atol=1e-12)


def test_example_trains_to_a_stated_accuracy():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parent.parent / "examples" / "train_mlp.py"
    spec = importlib.util.spec_from_file_location("train_mlp", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, y = mod.spirals()
    losses, acc, _ = mod.train("logistic", x, y, steps=400)
    assert losses[-1] < losses[0] and acc < 0.7  # spirals are not linearly separable
    losses, acc, step = mod.train("mlp", x, y, steps=1500)
    assert losses[-1] < 0.3 * losses[0] and acc > 0.9
    steady = step.memory
    assert steady.arena_bytes <= steady.no_reuse_bytes

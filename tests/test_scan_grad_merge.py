"""A scan's gradient shares the forward pass with the scan (issue 17): the
loop that saves each step's carry for the backward pass is the scan itself
with other ys, and ``optimise`` (``merge_scans``) runs both as one loop.
So a training step (a loss and its gradient, evaluated together) runs two
loops of T steps, the forward and the backward, not three; results against
hand-written backpropagation through time and finite differences."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.numpy_kernels import control as control_kernels
from fgraph.optimiser import merge_scans


def scan_loops(graph) -> dict:
    """The distinct scans a graph runs: {(body, inputs, params but output): outputs used}."""
    loops: dict = {}
    for n in graph.nodes():
        if n.op == "scan":
            key = (n.param("body").key, tuple(id(i) for i in n.inputs),
                   tuple(p for p in n.params if p[0] not in ("body", "output")))
            loops.setdefault(key, set()).add(n.param("output"))
    return loops


def bptt_numpy(W, U, xs, targets, reverse, lr):
    """Loss ``sum_t |h_t - target_t|^2`` of h = tanh(W h + U x_t) from h = 0, and (W, U) after an SGD step."""
    T, order = xs.shape[0], list(range(xs.shape[0]))
    order = order[::-1] if reverse else order
    h = np.zeros(W.shape[0])
    h_in, h_out = {}, {}
    for t in order:
        h_in[t] = h
        h = h_out[t] = np.tanh(W @ h + U @ xs[t])
    loss = sum(((h_out[t] - targets[t]) ** 2).sum() for t in range(T))
    gW, gU, dh = np.zeros_like(W), np.zeros_like(U), np.zeros(W.shape[0])
    for t in reversed(order):
        dh = dh + 2 * (h_out[t] - targets[t])
        da = dh * (1 - h_out[t] ** 2)
        gW += np.outer(da, h_in[t])
        gU += np.outer(da, xs[t])
        dh = W.T @ da
    return loss, W - lr * gW, U - lr * gU


def rnn_train(W, U, T, reverse, checkpoint=None):
    """The train step's graph (loss, and updates of W and U by its gradient) and its variables."""
    H, D = U.shape
    vW, vU = fnp.variable(W, name="W"), fnp.variable(U, name="U")
    px, pt = fnp.placeholder((T, D), name="xs"), fnp.placeholder((T, H), name="targets")

    def step(h, row):
        x, target = row
        h = fnp.tanh(vW @ h + vU @ x)
        return h, ((h - target) ** 2).sum()

    _, losses = fgraph.scan(step, fnp.zeros(H), (px, pt), reverse=reverse, checkpoint=checkpoint)
    loss = losses.sum()
    gW, gU = fgraph.grad(loss, [vW, vU])
    return fgraph.Graph(loss, updates={vW: vW - 0.1 * gW, vU: vU - 0.1 * gU})


@settings(max_examples=examples(12), deadline=None)
@given(T=st.sampled_from([0, 1, 2, 3, 7]), reverse=st.booleans(), seed=st.integers(0, 2**16))
def test_a_train_step_runs_the_forward_loop_once(T, reverse, seed):
    rng = np.random.default_rng(seed)
    H, D = 4, 3
    W, U = rng.normal(size=(H, H)) * 0.5, rng.normal(size=(H, D))
    xs, targets = rng.normal(size=(T, D)), rng.normal(size=(T, H)) * 0.5
    graph = rnn_train(W, U, T, reverse)
    assert len(scan_loops(graph)) == 3  # as built: the loss's scan, the gradient's saving scan, the backward
    opt = fgraph.optimise(graph)
    assert len(scan_loops(opt)) == (2 if T > 1 else 0)  # (trip counts 0 and 1 are inlined)
    train = fgraph.compile(opt)
    got = float(train(xs=xs, targets=targets))
    want, W1, U1 = bptt_numpy(W, U, xs, targets, reverse, 0.1)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(train.variables["W"], W1, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(train.variables["U"], U1, rtol=1e-10, atol=1e-12)


def test_the_engine_runs_two_loops_a_train_step(monkeypatch):
    """Counted where the NumPy engine runs a scan: one forward loop (the loss's
    ys and the saved carries together), one backward loop."""
    rng = np.random.default_rng(1)
    W, U = rng.normal(size=(5, 5)) * 0.5, rng.normal(size=(5, 2))
    xs, targets = rng.normal(size=(6, 2)), rng.normal(size=(6, 5))
    train = fgraph.compile(fgraph.optimise(rnn_train(W, U, 6, False)))
    train(xs=xs, targets=targets)  # (a first run may compile bodies)
    runs = []
    real = control_kernels.body_program

    def counting(graph, *args, **kwargs):
        runs.append(graph)
        return real(graph, *args, **kwargs)

    monkeypatch.setattr(control_kernels, "body_program", counting)
    train(xs=xs, targets=targets)
    assert len(runs) == 2


def test_checkpointed_train_step_still_recomputes_segments():
    """checkpoint= keeps its rule (one carry a segment saved): no merge makes it save every step."""
    rng = np.random.default_rng(2)
    T, H, D = 9, 4, 3
    W, U = rng.normal(size=(H, H)) * 0.5, rng.normal(size=(H, D))
    xs, targets = rng.normal(size=(T, D)), rng.normal(size=(T, H)) * 0.5
    opt = fgraph.optimise(rnn_train(W, U, T, False, checkpoint=3))
    assert not [n for n in opt.nodes() if n.op == "scan" and n.shape == (T, H)]  # no step's carry saved outside
    train = fgraph.compile(opt)
    want, W1, U1 = bptt_numpy(W, U, xs, targets, False, 0.1)
    np.testing.assert_allclose(float(train(xs=xs, targets=targets)), want, rtol=1e-12)
    np.testing.assert_allclose(train.variables["W"], W1, rtol=1e-10)


def _numeric(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        g[idx] = (f(hi) - f(lo)) / (2 * eps)
    return g


@pytest.mark.parametrize("length, reverse", [(0, False), (1, True), (2, False), (5, True)])
def test_carry_and_ys_used_with_their_gradient(length, reverse):
    """Both the final carry and the ys in the loss (one backward loop each), optimised: one forward loop."""
    rng = np.random.default_rng(length)
    W0, xs, h0 = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(length, 3)), rng.normal(size=3)
    pW = fnp.placeholder((3, 3), name="W")

    def f(W):
        h, ys = fgraph.scan(lambda h, x: (fnp.tanh(W @ h + x), (h ** 2).sum()), fnp.asarray(h0), fnp.asarray(xs),
                            reverse=reverse)
        return (h * h).sum() + ys.sum() * 0.5

    loss = f(pW)
    opt = fgraph.optimise(fgraph.Graph([loss, fgraph.grad(loss, pW)]))
    forward = [k for k in scan_loops(opt) if dict(k[2])["reverse"] == reverse]
    assert len(forward) == (1 if length > 1 else 0)
    exe = fgraph.compile(opt)
    value, grad = exe(W=W0)
    loss_of = fgraph.compile(fgraph.optimise(fgraph.Graph(loss)))
    np.testing.assert_allclose(value, loss_of(W=W0), rtol=1e-13)
    np.testing.assert_allclose(grad, _numeric(lambda w: float(loss_of(W=w)), W0), rtol=1e-5, atol=1e-7)


def test_second_order_gradients_through_a_merged_scan():
    """grad of grad: the saving scans of saving scans merge too; the result against finite differences."""
    rng = np.random.default_rng(3)
    xs, a0 = rng.normal(size=(4, 2)), np.array([0.7, -0.4])
    pa = fnp.placeholder((2,), name="a")

    def loss(a):
        h, ys = fgraph.scan(lambda h, x: (fnp.sin(h * a + x), (h * a).sum()), fnp.zeros(2), fnp.asarray(xs))
        return (h ** 2).sum() + ys.sum()

    g = fgraph.grad(loss(pa), pa)
    gg = fgraph.grad((g * g).sum(), pa)
    opt = fgraph.optimise(fgraph.Graph([loss(pa), g, gg]))
    exe = fgraph.compile(opt)
    _, g_val, gg_val = exe(a=a0)
    grad_of = fgraph.compile(fgraph.optimise(fgraph.Graph(g)))
    np.testing.assert_allclose(gg_val, _numeric(lambda a: float((grad_of(a=a) ** 2).sum()), a0), rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_allclose(g_val, grad_of(a=a0), rtol=1e-13)
    forward = [k for k in scan_loops(opt) if dict(k[2])["n_carry"] == 1]  # (the others carry cotangents too)
    assert len(forward) == 1  # the loss's scan and every saving scan of it: one loop


def test_grad_of_a_scan_nested_in_a_scan_body():
    """The merge inside a loop body: a train step per outer step, the loss's scan and its gradient's in one loop."""
    xs = np.array([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8]])

    def loss(w):
        h, ys = fgraph.scan(lambda h, x: (fnp.tanh(h * w + x), (h * h).sum()), fnp.zeros(2), fnp.asarray(xs))
        return ys.sum() + (h ** 2).sum()

    def train(carry, _):
        w, _ = carry
        value = loss(w)
        return (w - 0.1 * fgraph.grad(value, w), value), value

    (w, _), values = fgraph.scan(train, (fnp.asarray(np.array([0.4, -0.2])), fnp.asarray(0.0)), None, length=3)
    opt = fgraph.optimise(fgraph.Graph([w, values]))
    (outer,) = [n.param("body") for n in opt.nodes() if n.op == "scan"][:1]
    inner_forward = [k for k in scan_loops(outer) if not dict(k[2])["reverse"]]
    assert len(inner_forward) == 1
    got_w, got_values = fgraph.compile(opt)()

    def np_loss(w):
        h, total = np.zeros(2), 0.0
        for x in xs:
            total += (h * h).sum()
            h = np.tanh(h * w + x)
        return total + (h ** 2).sum()

    want, want_values = np.array([0.4, -0.2]), []
    for _ in range(3):
        want_values.append(np_loss(want))
        want = want - 0.1 * _numeric(np_loss, want)
    np.testing.assert_allclose(got_w, want, rtol=1e-6)
    np.testing.assert_allclose(got_values, want_values, rtol=1e-9)


def test_merge_scans_joins_scans_alike_but_for_their_ys():
    """Two scans a user wrote over the same carries with other ys: one loop, both results; other carries stay apart."""
    xs = np.arange(10.0).reshape(5, 2)
    px = fnp.placeholder((5, 2), name="xs")
    c0 = fnp.zeros(2)  # (one init node: merge_scans asks for the same inputs, CSE makes them so)
    c1, ys1 = fgraph.scan(lambda c, x: (c * 0.5 + x, c.sum()), c0, px)
    c2, ys2 = fgraph.scan(lambda c, x: (c * 0.5 + x, (c * x).max()), c0, px)
    c3, ys3 = fgraph.scan(lambda c, x: (c * 0.25 + x, c.sum()), c0, px)  # other carries: not merged
    graph = fgraph.Graph([ys1, ys2, c2, ys3])
    keys = [n.key for n in graph.nodes()]
    merged = merge_scans(graph)
    assert [n.key for n in graph.nodes()] == keys  # pure: the input graph is untouched
    assert len(scan_loops(graph)) == 3 and len(scan_loops(merged)) == 2
    assert merge_scans(merged) is merged  # nothing left to merge
    opt = fgraph.optimise(graph)
    assert len(scan_loops(opt)) == 2
    got = fgraph.compile(opt)(xs=xs)
    c, want1, want2 = np.zeros(2), [], []
    for x in xs:
        want1.append(c.sum())
        want2.append((c * x).max())
        c = c * 0.5 + x
    c3n, want3 = np.zeros(2), []
    for x in xs:
        want3.append(c3n.sum())
        c3n = c3n * 0.25 + x
    for g, w in zip(got, [want1, want2, c, want3]):
        np.testing.assert_allclose(g, w)

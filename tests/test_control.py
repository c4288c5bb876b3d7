"""Loops and branches inside graphs (fgraph.while_loop, fori_loop, scan, cond,
switch; issue 17): oracles against the same loops written in NumPy, on
random trip counts (0 and 1 included), carry shapes and dtypes; eager and
compiled; nested loops; gradients against finite differences; errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.numpy_kernels import control as control_kernels

DTYPES = ["float64", "float32", "int64", "int32"]


def _arrays(rng, shape, dtype):
    a = rng.normal(size=shape) * 3
    return a.astype(dtype)


# ---------------------------------------------------------------- oracles

@settings(max_examples=examples(25))
@given(length=st.integers(0, 5), shape=st.sampled_from([(), (3,), (2, 3)]), dtype=st.sampled_from(DTYPES),
       reverse=st.booleans(), seed=st.integers(0, 2**16), how=st.sampled_from(["eager", "compiled", "optimised"]))
def test_scan_matches_a_numpy_loop(length, shape, dtype, reverse, seed, how):
    rng = np.random.default_rng(seed)
    c0, xs, k = _arrays(rng, shape, dtype), _arrays(rng, (length,) + shape, dtype), _arrays(rng, shape, dtype)

    def step(xp, c, x):
        c2 = c * 2 - x + k if dtype.startswith("int") else xp.sin(c) * k + x
        return c2, (c2 + x, x.sum())

    want_c, ys, sums = c0, [None] * length, [None] * length
    for t in (reversed(range(length)) if reverse else range(length)):
        want_c, (ys[t], sums[t]) = step(np, want_c, xs[t])
    want_ys = np.stack(ys) if length else np.zeros((0,) + shape, dtype)
    if how != "eager":
        pc, px = fnp.placeholder(shape, dtype, name="c"), fnp.placeholder((length,) + shape, dtype, name="xs")
        out = fgraph.scan(lambda c, x: step(fnp, c, x), pc, px, reverse=reverse)
        g = fgraph.Graph(out) if how == "compiled" else fgraph.optimise(fgraph.Graph(out))  # (0, 1: inlined)
        got_c, (got_ys, got_sums) = fgraph.compile(g)(c=c0, xs=xs)
    else:
        out = fgraph.scan(lambda c, x: step(fnp, c, x), fnp.asarray(c0), fnp.asarray(xs), reverse=reverse)
        got_c, (got_ys, got_sums) = np.asarray(out[0]), (np.asarray(out[1][0]), np.asarray(out[1][1]))
    assert got_c.dtype == want_c.dtype and got_ys.dtype == want_ys.dtype
    np.testing.assert_allclose(got_c, want_c, rtol=1e-6)
    np.testing.assert_allclose(got_ys, want_ys, rtol=1e-6)
    assert got_sums.shape == (length,)
    if length:
        np.testing.assert_allclose(got_sums, np.stack(sums), rtol=1e-6)


@settings(max_examples=examples(25))
@given(start=st.integers(-3, 12), limit=st.integers(0, 10), dtype=st.sampled_from(["float64", "float32"]),
       compiled=st.booleans())
def test_while_loop_with_a_data_dependent_trip_count(start, limit, dtype, compiled):
    """Trip counts 0, 1 and more, decided by the data when the loop runs."""
    v0 = np.arange(3, dtype=dtype)

    def body(xp, c):
        i, v = c
        return i + 1, v * np.asarray(1.5, dtype) + xp.asarray(i).astype(dtype)

    i, v = start, v0
    while i < limit:
        i, v = body(np, (i, v))
    if compiled:
        p = fnp.placeholder((), "int64", name="start")
        out = fgraph.while_loop(lambda c: c[0] < limit, lambda c: body(fnp, c), (p, fnp.asarray(v0)))
        got_i, got_v = fgraph.compile(fgraph.Graph(out))(start=np.int64(start))
    else:
        out = fgraph.while_loop(lambda c: c[0] < limit, lambda c: body(fnp, c), (np.int64(start), fnp.asarray(v0)))
        got_i, got_v = int(out[0]), np.asarray(out[1])
    assert got_i == max(start, limit) and got_v.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got_v, v, rtol=1e-6)


@pytest.mark.parametrize("lo, hi", [(0, 0), (0, 1), (2, 7), (5, 3)])
def test_fori_loop_static_and_dynamic_bounds(lo, hi):
    x = np.array([0.5, -1.0, 2.0])
    want = x.copy()
    for i in range(lo, hi):
        want = want * 0.9 + i
    static = fgraph.fori_loop(lo, hi, lambda i, v: v * 0.9 + i, fnp.asarray(x))
    assert static.node.op == "scan"  # static bounds: a scan (reverse-differentiable)
    np.testing.assert_allclose(np.asarray(static), want)
    plo, phi = fnp.placeholder((), "int64", name="lo"), fnp.placeholder((), "int64", name="hi")
    dynamic = fgraph.fori_loop(plo, phi, lambda i, v: v * 0.9 + i, fnp.asarray(x))
    assert dynamic.node.op == "while_loop"
    np.testing.assert_allclose(fgraph.compile(fgraph.Graph(dynamic))(lo=np.int64(lo), hi=np.int64(hi)), want)


def test_pytree_carries_keep_their_structure():
    init = {"h": fnp.zeros(2), "n": (0, [np.float32(1.0)])}
    out = fgraph.fori_loop(0, 3, lambda i, c: {"h": c["h"] + i, "n": (c["n"][0] + 2, [c["n"][1][0] * 2])}, init)
    assert set(out) == {"h", "n"} and isinstance(out["n"], tuple) and isinstance(out["n"][1], list)
    np.testing.assert_array_equal(np.asarray(out["h"]), [3.0, 3.0])
    assert int(out["n"][0]) == 6 and out["n"][0].dtype == np.int64
    assert out["n"][1][0].dtype == np.float32 and float(out["n"][1][0]) == 8.0


def test_python_scalar_results_take_the_carry_dtype_as_nep50_does():
    assert fgraph.fori_loop(0, 3, lambda i, v: 2, np.int8(1)).dtype == np.int8
    assert float(fgraph.fori_loop(0, 3, lambda i, v: 2.5, np.float32(1))) == 2.5
    with pytest.raises(fgraph.DTypeError, match=r"(?s)init_val from int64 to float64.*test_control\.py"):
        fgraph.fori_loop(0, 3, lambda i, v: 1.5, 1)  # a float into an int carry is refused, not truncated
    with pytest.raises(fgraph.DTypeError, match=r"(?s)300 out of bounds for int8.*test_control\.py"):
        fgraph.fori_loop(0, 3, lambda i, v: 300, np.int8(1))


@pytest.mark.parametrize("compiled", [False, True])
def test_cond_and_switch_pick_the_branch(compiled):
    a = np.array([1.0, -2.0, 3.0])
    branches = [lambda x, s: x * s, lambda x, s: x - s, lambda x, s: fnp.sin(x) + s]
    wants = [a * 2.0, a - 2.0, np.sin(a) + 2.0]
    for index, want in [(-1, wants[0]), (0, wants[0]), (1, wants[1]), (2, wants[2]), (9, wants[2])]:
        if compiled:
            p = fnp.placeholder((), "int64", name="i")
            got = fgraph.compile(fgraph.Graph(fgraph.switch(p, branches, fnp.asarray(a), 2.0)))(i=np.int64(index))
        else:
            got = np.asarray(fgraph.switch(index, branches, fnp.asarray(a), 2.0))
        np.testing.assert_allclose(got, want)  # the index is clamped, as jax.lax.switch
    for pred, want in [(True, a * 2), (False, a + 1), (0.0, a + 1), (3, a * 2)]:
        got = fgraph.cond(pred, lambda x: x * 2, lambda x: x + 1, fnp.asarray(a))
        np.testing.assert_allclose(np.asarray(got), want)
    both = fgraph.cond(fnp.asarray(a).sum() > 0, lambda x: (x, x.sum()), lambda x: (-x, x.max()), a)
    np.testing.assert_allclose(np.asarray(both[0]), a)
    assert float(both[1]) == a.sum()


def test_nested_loops():
    """A fori_loop inside a scan body inside a while_loop, against plain Python loops."""
    xs = np.arange(12.0).reshape(4, 3) / 10

    def inner(c, x):
        return fgraph.fori_loop(0, 3, lambda i, v: v * 0.5 + x * i, c), c.sum()

    def outer(state):
        k, c = state
        c, _ = fgraph.scan(inner, c, fnp.asarray(xs))
        return k + 1, c

    k, c = fgraph.while_loop(lambda s: s[0] < 3, outer, (0, fnp.zeros(3)))
    want = np.zeros(3)
    for _ in range(3):
        for x in xs:
            for i in range(3):
                want = want * 0.5 + x * i
    assert int(k) == 3
    np.testing.assert_allclose(np.asarray(c), want)


def test_a_body_is_compiled_once_not_per_iteration(monkeypatch):
    made = []
    real = control_kernels.Body.__init__

    def counting(self, graph, kernel_attr, device, carries=0):
        made.append(graph)
        real(self, graph, kernel_attr, device, carries)
    monkeypatch.setattr(control_kernels.Body, "__init__", counting)
    p = fnp.placeholder((3,), "float64", name="p")
    out = fgraph.fori_loop(0, 200, lambda i, v: v * 0.99 + p, fnp.zeros(3))
    exe = fgraph.compile(fgraph.Graph(out))
    first = exe(p=np.ones(3))
    second = exe(p=np.ones(3))
    assert len(made) == 1
    np.testing.assert_array_equal(first, second)  # the carries' buffers are reused: results are copies
    (body,) = [b for key, b in control_kernels._PROGRAMS.items() if key[2] is made[0]]
    assert len(body.targets) == 4  # the carry and the counter, each written into two buffers in turn


def test_exe_memory_reports_each_body_arena():
    """A body's temporaries live in its own arena, planned once (reported with the graph's)."""
    p = fnp.placeholder((50, 50), "float64", name="p")
    out = fgraph.fori_loop(0, 5, lambda i, v: fnp.tanh(v @ p) * 2 + fnp.exp(-v).mean(), fnp.zeros((50, 50)))
    exe = fgraph.compile(fgraph.Graph(out))
    ((label, body),) = exe.memory.bodies
    assert label.startswith("scan at") and "test_control.py" in label
    assert body.arena_bytes >= body.lower_bound_bytes > 0
    assert "body 0: arena" in str(exe.memory)
    pv = np.eye(50) * 0.5
    want = np.zeros((50, 50))
    for _ in range(5):
        want = np.tanh(want @ pv) * 2 + np.exp(-want).mean()
    np.testing.assert_allclose(exe(p=pv), want)


def test_closed_over_values_become_inputs_and_are_hoisted():
    """A lazy value the body uses from outside is an input of the loop node,
    computed once outside; the body graph holds only its own placeholders."""
    w = fnp.placeholder((3,), "float64", name="w")
    big = fnp.exp(w) * 2  # loop-invariant: computed outside the loop
    out = fgraph.fori_loop(0, 4, lambda i, v: v + big * fnp.cos(w), fnp.zeros(3))
    node = out.node
    body = node.param("body")
    # big * cos(w) depends on nothing the loop changes: the whole product is one input
    assert any(i.op == "multiply" and i.inputs[0] is big.node for i in node.inputs)
    assert {n.op for n in body.nodes()} == {"placeholder", "add"}  # (the counter's step, 1, is an input too)
    assert set(body.inputs) == {n for n in body.nodes() if n.op == "placeholder"}
    wv = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(fgraph.compile(fgraph.Graph(out))(w=wv), 4 * (np.exp(wv) * 2 * np.cos(wv)))


# ---------------------------------------------------------------- hashing, optimiser, immutability

def test_bodies_are_part_of_the_structural_key():
    x = fnp.placeholder((3,), "float64", name="x")
    a = fgraph.fori_loop(0, 3, lambda i, v: v * 2.0, x)
    b = fgraph.fori_loop(0, 3, lambda i, v: v * 3.0, x)
    assert a.node.key != b.node.key
    g = fgraph.optimise(fgraph.Graph([a, b]))  # CSE must not merge different bodies
    np.testing.assert_allclose(fgraph.compile(g)(x=np.ones(3)), [np.full(3, 8.0), np.full(3, 27.0)])
    again = fgraph.fori_loop(0, 3, lambda i, v: v * 2.0, x)  # the same body, traced again
    assert again.node.key == a.node.key and again.node.param("body") == a.node.param("body")
    assert hash(a.node.param("body")) == a.node.param("body").key


def test_passes_leave_loops_and_their_bodies_unchanged():
    x = fnp.placeholder((3,), "float64", name="x")
    c, ys = fgraph.scan(lambda c, r: (c + r * 1.0, fnp.exp(c) * 2 + 0), x, fnp.ones((4, 3)))
    g = fgraph.Graph([c, ys])
    body = c.node.param("body")
    before = (g.key, body.key, [n.key for n in body.nodes()])
    opt = fgraph.optimise(g)
    fgraph.compile(opt)(x=np.zeros(3))
    fgraph.grad(fnp.sum(c), x)
    assert before == (g.key, body.key, [n.key for n in body.nodes()])
    xv = np.zeros(3)
    want_c, want_ys = xv, []
    for _ in range(4):
        want_ys.append(np.exp(want_c) * 2)
        want_c = want_c + 1
    got = fgraph.compile(opt)(x=xv)
    np.testing.assert_allclose(got[0], want_c)
    np.testing.assert_allclose(got[1], np.stack(want_ys))


def _ops(graph):
    return [n.op for n in graph.nodes()]


def test_the_optimiser_inlines_trivial_loops_and_branches():
    x = fnp.placeholder((3,), "float64", name="x")
    one = fnp.placeholder((1, 3), "float64", name="one")
    (c, k), ys = fgraph.scan(lambda c, r: ((c[0] + r * 2, c[1] + 1), c[0].sum()), (x, 0), one)
    g, rep = fgraph.optimise(fgraph.Graph([c, k, ys]), report=True)
    assert rep.fired["scan_trip_count_1"] == 3 and "scan" not in _ops(g)
    xv, ov = np.array([1.0, 2.0, 3.0]), np.array([[0.5, 0.25, -1.0]])
    got = fgraph.compile(g)(x=xv, one=ov)
    np.testing.assert_allclose(got[0], xv + ov[0] * 2)
    assert got[1] == 1 and got[1].dtype == np.int64
    np.testing.assert_allclose(got[2], [xv.sum()])
    (c0, _), ys0 = fgraph.scan(lambda c, r: ((c[0] * 2, c[1] + 1), c[0]), (x, 0), None, length=0)
    g0 = fgraph.optimise(fgraph.Graph([c0, ys0]))
    assert "scan" not in _ops(g0)
    got = fgraph.compile(g0)(x=xv)
    np.testing.assert_array_equal(got[0], xv)
    assert got[1].shape == (0, 3)
    picked = fgraph.optimise(fgraph.Graph(fgraph.cond(True, lambda a: a * 2, lambda a: a - 1, x)))
    assert "switch" not in _ops(picked)
    np.testing.assert_allclose(fgraph.compile(picked)(x=xv), xv * 2)


def test_the_optimiser_removes_dead_carries():
    x = fnp.placeholder((3,), "float64", name="x")
    xs = fnp.placeholder((5, 3), "float64", name="xs")
    (c, count, spare), ys = fgraph.scan(lambda c, r: ((c[0] + r, c[1] + 1, c[2] * r), c[2].sum()), (x, 0, x), xs)
    g = fgraph.optimise(fgraph.Graph(c))
    (loop,) = [n for n in g.nodes() if n.op == "scan"]
    assert loop.param("n_carry") == 1 and len(loop.param("body").outputs) == 1
    xv, xsv = np.ones(3), np.arange(15.0).reshape(5, 3)
    np.testing.assert_allclose(fgraph.compile(g)(x=xv, xs=xsv), xv + xsv.sum(0))
    # a carry that the result does not use but the condition does stays; one that only feeds itself goes
    w = fgraph.while_loop(lambda s: s[0] < 4, lambda s: (s[0] + 1, s[1] * 2, s[2] + x), (0, x, x))
    g = fgraph.optimise(fgraph.Graph(w[1]))
    (loop,) = [n for n in g.nodes() if n.op == "while_loop"]
    assert loop.param("n_carry") == 2
    np.testing.assert_allclose(fgraph.compile(g)(x=xv), xv * 16)


def test_results_of_one_run_survive_the_next():
    """A zero-trip loop hands back a copy, never the input's (arena) buffer."""
    p = fnp.placeholder((3,), "float64", name="p")
    n = fnp.placeholder((), "int64", name="n")
    out = fgraph.fori_loop(0, n, lambda i, v: v + 1, p * 2)
    exe = fgraph.compile(fgraph.Graph([out, p * 3]))
    first = exe(p=np.ones(3), n=np.int64(0))
    exe(p=np.full(3, 5.0), n=np.int64(0))
    np.testing.assert_array_equal(first[0], [2.0, 2.0, 2.0])


# ---------------------------------------------------------------- errors

def test_a_carry_that_changes_shape_or_dtype_is_named():
    with pytest.raises(fgraph.ShapeError, match=r"carry\[1\].*\(3,\) to \(1, 3\).*test_control\.py"):
        fgraph.scan(lambda c, x: ((c[0], c[1][None]), None), (0.0, fnp.zeros(3)), None, length=2)
    with pytest.raises(fgraph.DTypeError, match=r"val\['a'\].*float64 to float32.*test_control\.py"):
        fgraph.while_loop(lambda v: v["a"].sum() < 1, lambda v: {"a": v["a"].astype("float32")}, {"a": fnp.ones(2)})
    with pytest.raises(fgraph.FgraphError, match="another structure"):
        fgraph.fori_loop(0, 2, lambda i, v: (v, v), fnp.ones(2))
    with pytest.raises(fgraph.ShapeError, match=r"branch 1 returns output of shape \(\).*branch 0 of shape \(2,\)"):
        fgraph.cond(True, lambda x: x.sum(), lambda x: x, fnp.ones(2))
    with pytest.raises(fgraph.ShapeError, match="leading axes differ"):
        fgraph.scan(lambda c, x: (c, None), 0.0, (fnp.ones(3), fnp.ones(4)))
    with pytest.raises(fgraph.ShapeError, match="pred must be a scalar"):
        fgraph.cond(fnp.ones(2) > 0, lambda: 1.0, lambda: 2.0)
    with pytest.raises(fgraph.ShapeError, match="cond_fun must return a scalar"):
        fgraph.while_loop(lambda v: v > 0, lambda v: v - 1, fnp.ones(2))
    with pytest.raises(fgraph.FgraphError, match="f must return a pair"):
        fgraph.scan(lambda c, x: c, 0.0, fnp.ones(3))


def _scan_with_branches(x):
    return fgraph.scan(lambda c, r: (c + r, fgraph.cond(r.sum() > 0, lambda a: a * 2, lambda a: -a, c)),
                       fnp.zeros(3), x)


def _scan_with_branches_numpy(xv):
    c, ys = np.zeros(3), []
    for r in xv:
        ys.append(c * 2 if r.sum() > 0 else -c)
        c = c + r
    return c, np.stack(ys)


def test_the_dask_engine_unrolls_known_trip_counts_and_refuses_while():
    x = fnp.placeholder((4, 3), "float64", name="x")
    xv = np.arange(12.0).reshape(4, 3) - 5
    got = fgraph.compile(fgraph.Graph(list(_scan_with_branches(x))), engine="dask")(x=xv)
    for g, w in zip(got, _scan_with_branches_numpy(xv)):
        np.testing.assert_allclose(g, w)
    w = fgraph.while_loop(lambda v: v.sum() < 100, lambda v: v * 2, fnp.ones(3) + x.sum())
    with pytest.raises(fgraph.FgraphError, match=r"(?s)while_loop: the dask engine.*trip count depends on the "
                                                 r"data.*test_control\.py"):
        fgraph.compile(fgraph.Graph(w), engine="dask")


def test_micro_batching_through_loops_that_keep_rows_apart():
    x = fnp.placeholder((8, 3), "float64", name="x")
    W = np.random.default_rng(0).normal(size=(3, 3))
    h = fgraph.fori_loop(0, 4, lambda i, h: fnp.tanh(h @ W + x), x * 0)
    k = fgraph.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] * 0.5 + h), (0, h))[1]
    out = fgraph.cond(fnp.asarray(1) > 0, lambda a: a * 2, lambda a: a - 1, k)
    xv = np.arange(24.0).reshape(8, 3) / 10
    g = fgraph.Graph(out)
    np.testing.assert_array_equal(fgraph.compile(g, micro_batch=3)(x=xv), fgraph.compile(g)(x=xv))


@pytest.mark.parametrize("make, reason", [
    (lambda x: fgraph.while_loop(lambda v: v.sum() < 100, lambda v: v * 2, x + 1), "one trip count for every row"),
    (lambda x: fgraph.scan(lambda c, r: (c + r, c), fnp.zeros(3), x)[0], "xs are batched"),
    (lambda x: fgraph.scan(lambda c, r: (c + r, c * 2), x, fnp.ones((5, 3)))[1], "stacked ys"),
    (lambda x: fgraph.scan(lambda c, r: (c + r, c.sum()), x, fnp.ones((5, 3)))[0],
     r"inside the scan's body: sum: it reduces over the batch axis 0 \(made at .*test_control\.py"),
])
def test_micro_batching_refuses_loops_that_mix_rows(make, reason):
    x = fnp.placeholder((8, 3), "float64", name="x")
    with pytest.raises(fgraph.FgraphError, match=r"micro_batch: (scan|while_loop|switch): .*" + reason):
        fgraph.compile(fgraph.Graph(make(x)), micro_batch=2)


def test_the_cupy_engine_runs_loops_on_its_device(host):
    """The CuPy engine's kernels (on the NumPy device, without a GPU)."""
    x = fnp.placeholder((4, 3), "float64", name="x")
    xv = np.arange(12.0).reshape(4, 3) - 5
    got = host.compile(fgraph.Graph(list(_scan_with_branches(x))))(x=xv)
    for g, w in zip(got, _scan_with_branches_numpy(xv)):
        np.testing.assert_allclose(g, w)


# ---------------------------------------------------------------- gradients

def _numeric(f, args, k, eps=1e-6):
    args = [np.array(a, dtype=np.float64) for a in args]
    g = np.zeros_like(args[k])
    for idx in np.ndindex(args[k].shape):
        old = args[k][idx]
        args[k][idx] = old + eps
        hi = float(f(*args))
        args[k][idx] = old - eps
        lo = float(f(*args))
        args[k][idx] = old
        g[idx] = (hi - lo) / (2 * eps)
    return g


def _check_grad(f, *arrays, rtol=1e-5, atol=1e-7):
    """fgraph.grad of ``f`` (built from fgraph loops) against central differences of ``f`` evaluated by fgraph."""
    lazy = [fnp.asarray(a) for a in arrays]
    grads = fgraph.grad(f(*lazy), lazy)
    for k, g in enumerate(grads):
        np.testing.assert_allclose(np.asarray(g), _numeric(lambda *a: f(*[fnp.asarray(x) for x in a]), arrays, k),
                                   rtol=rtol, atol=atol, err_msg=f"d/d(arg {k})")


@pytest.mark.parametrize("length, reverse", [(0, False), (1, False), (4, False), (3, True)])
def test_grad_through_scan_an_rnn(length, reverse):
    rng = np.random.default_rng(length)
    W, xs, h0 = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(length, 3)), rng.normal(size=3)

    def f(W, xs, h0):
        def step(h, x):
            h2 = fnp.tanh(W @ h + x)
            return h2, (h2 ** 2).sum()
        h, ys = fgraph.scan(step, h0, xs, reverse=reverse)
        return (h * h).sum() + ys.sum() * 0.5

    _check_grad(f, W, xs, h0)


@pytest.mark.parametrize("length, seg, reverse", [(7, 3, False), (9, 4, True), (6, 2, False), (5, 5, False),
                                                 (4, 1, True)])
def test_checkpointed_scan_gradients_save_a_carry_a_segment(length, seg, reverse):
    rng = np.random.default_rng(length)
    W, P, xs, h0 = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 3)), rng.normal(size=(length, 3)), np.ones(4)

    def f(W, xs, checkpoint=None):
        h, ys = fgraph.scan(lambda h, x: (fnp.tanh(W @ h + P @ x), h.sum()), fnp.asarray(h0), xs, reverse=reverse,
                            checkpoint=checkpoint)
        return (h * h).sum() + (ys * fnp.arange(length)).sum()

    _check_grad(lambda W, xs: f(W, xs, seg), W, xs)
    Wt, xst = fnp.asarray(W), fnp.asarray(xs)
    saved = lambda g: [n for n in g.nodes() if n.shape == (length, 4)]  # noqa: E731  (every step's carry)
    assert saved(fgraph.Graph(fgraph.grad(f(Wt, xst), [Wt, xst])))
    if seg > 1:
        assert not saved(fgraph.Graph(fgraph.grad(f(Wt, xst, seg), [Wt, xst])))


def test_grad_through_fori_loop_and_cond():
    x = np.array([0.3, -0.7])
    _check_grad(lambda a: fgraph.fori_loop(0, 3, lambda i, v: fnp.sin(v) * a + i, a).sum(), x)
    _check_grad(lambda a: fgraph.cond(a.sum() > 0, lambda u: (u ** 3).sum(), lambda u: fnp.exp(u).sum(), a), x)
    _check_grad(lambda a: fgraph.cond(a.sum() < 0, lambda u: (u ** 3).sum(), lambda u: fnp.exp(u).sum(), a), x)
    # an int carry rides along without a gradient
    _check_grad(lambda a: fgraph.scan(lambda c, r: ((c[0] + 1, c[1] * r + c[0]), None), (0, a[0]), a)[0][1], x)


def test_a_loop_inside_grad_inside_a_loop():
    """Gradient descent (a fori_loop) on a loss built with a scan."""
    xs = np.array([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8]])

    def loss(w):
        h, _ = fgraph.scan(lambda h, x: (fnp.tanh(h * w + x), None), fnp.zeros(2), fnp.asarray(xs))
        return (h ** 2).sum()

    w0 = np.array([0.4, -0.2])
    got = fgraph.fori_loop(0, 3, lambda i, w: w - 0.1 * fgraph.grad(loss(w), w), fnp.asarray(w0))

    def np_loss_grad(w, eps=1e-6):
        def lf(w):
            h = np.zeros(2)
            for x in xs:
                h = np.tanh(h * w + x)
            return (h ** 2).sum()
        return np.array([(lf(w + eps * e) - lf(w - eps * e)) / (2 * eps) for e in np.eye(2)])

    want = w0
    for _ in range(3):
        want = want - 0.1 * np_loss_grad(want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_jvp_through_scan_and_cond():
    a = np.array([0.5, 2.0])
    f = lambda u: fgraph.scan(lambda c, r: (c * u + r, None), fnp.zeros(2), fnp.ones((3, 2)))[0]  # noqa: E731
    out, tangent = fgraph.jvp(f, (fnp.asarray(a),), (fnp.ones(2),))
    np.testing.assert_allclose(np.asarray(out), a ** 2 + a + 1)
    np.testing.assert_allclose(np.asarray(tangent), 2 * a + 1)
    g = lambda u: fgraph.cond(u.sum() > 0, lambda v: v ** 2, lambda v: -v, u)  # noqa: E731
    _, tangent = fgraph.jvp(g, (fnp.asarray(a),), (fnp.asarray(np.array([1.0, -1.0])),))
    np.testing.assert_allclose(np.asarray(tangent), 2 * a * [1, -1])


def _jvp_check(f, a, v, rtol=1e-6):
    out, tangent = fgraph.jvp(f, (fnp.asarray(a),), (fnp.asarray(v),))
    eps = 1e-6
    hi, lo = np.asarray(f(fnp.asarray(a + eps * v))), np.asarray(f(fnp.asarray(a - eps * v)))
    np.testing.assert_allclose(np.asarray(tangent), (hi - lo) / (2 * eps), rtol=rtol, atol=1e-8)
    return np.asarray(out)


def test_jvp_through_while_loop_nested_in_scan_and_cond():
    """Forward mode through a data-dependent loop (as in JAX), inside a scan and a branch."""
    a, v = np.array([0.5, 2.0]), np.array([1.0, -0.5])

    def f(u):
        return fgraph.while_loop(lambda s: s[1].sum() < 20, lambda s: (s[0] + 1, fnp.exp(s[1]) * u + s[0]), (0, u))[1]

    out = _jvp_check(f, a, v)
    want, k = a, 0
    while want.sum() < 20:
        want, k = np.exp(want) * a + k, k + 1
    np.testing.assert_allclose(out, want)

    def g(u):
        c, ys = fgraph.scan(lambda c, r: (fgraph.fori_loop(0, fnp.asarray(2), lambda i, w: fnp.sin(w) * r, c + u),
                                          fgraph.cond(r.sum() > 0, lambda w: w * 2, lambda w: w ** 2, c)),
                            u, fnp.asarray(np.array([[1.0, 2.0], [-3.0, 0.5], [0.2, 0.1]])))
        return c + ys.sum(0)

    _jvp_check(g, a, v)


def test_while_loop_refuses_reverse_mode():
    x = fnp.asarray(np.array([1.0, 2.0]))
    y = fgraph.while_loop(lambda v: v.sum() < 10, lambda v: v * 2, x)
    with pytest.raises(fgraph.FgraphError, match=r"forward-differentiable only.*fori_loop.*test_control\.py"):
        fgraph.grad(y.sum(), x)


def test_the_loop_benchmarks_compute_what_numpy_computes():
    """python -m fgraph.bench loops: its workloads (quick sizes) agree with their NumPy loops."""
    from fgraph.bench.loops import workloads

    for w in workloads(quick=True):
        assert w["check"] < 1e-9, w["name"]


def test_the_loops_example(capsys):
    """examples/loops.py, at small sizes, against NumPy and calculus."""
    import importlib.util
    import pathlib

    from fgraph.bench.loops import jacobi_numpy

    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "loops.py"
    spec = importlib.util.spec_from_file_location("loops_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    u0, u, steps = example.heat(n=12, tol=1e-3)
    want, want_steps = jacobi_numpy(u0, 1e-3, 10**6)
    assert steps == want_steps
    np.testing.assert_allclose(u, want)
    first, last = example.rnn(hidden=6, T=13, steps=30, lr=0.1)
    assert last < first
    a, root, slope = example.newton()
    np.testing.assert_allclose(root, np.sqrt(a))
    np.testing.assert_allclose(slope, 0.5 / np.sqrt(a), rtol=1e-6)


def test_a_loop_traced_again_reuses_its_compiled_body():
    """NumPy-style code calls while_loop once per outer step: the body is
    traced each time, but equal traces are one body, compiled once."""
    from fgraph.engines.numpy_kernels import control as loop_kernels

    x = fnp.asarray(np.ones(4))
    before = len(loop_kernels._PROGRAMS)
    for _ in range(5):
        x = fgraph.while_loop(lambda s: s[1] < 3, lambda s: (s[0] * 1.5 + 1.0, s[1] + 1), (x, 0))[0]
        np.asarray(x)  # fetched every step, as an eager program does
    want = np.ones(4)
    for _ in range(5 * 3):
        want = want * 1.5 + 1.0
    np.testing.assert_allclose(np.asarray(x), want)
    assert len(loop_kernels._PROGRAMS) - before <= 2  # the condition and the body, once


@pytest.mark.parametrize("upper", [3, "lazy"])
def test_fori_loop_errors_name_fori_loop_and_init_val(upper):
    hi = fnp.asarray(3) if upper == "lazy" else upper
    with pytest.raises(fgraph.ShapeError, match=r"^fori_loop: the body changes the shape of init_val\['a'\] "
                                                r"from \(3,\) to \(2,\)(?s:.*)test_control.py"):
        fgraph.fori_loop(0, hi, lambda i, v: {"a": v["a"][:2]}, {"a": fnp.ones(3)})
    with pytest.raises(fgraph.DTypeError, match=r"^fori_loop: the body changes the dtype of init_val "):
        fgraph.fori_loop(0, hi, lambda i, v: v.astype("float32"), fnp.ones(3))
    with pytest.raises(fgraph.FgraphError, match=r"^fori_loop: body_fun's result is not an array"):
        fgraph.fori_loop(0, hi, lambda i, v: "x", fnp.ones(3))


def test_a_bodys_straight_line_program_runs_and_fails_as_the_loop_does():
    """Loop bodies run as straight-line code generated for their program
    (Program.straight); it computes what Program.run computes and names the
    failing node and the user's line the same way."""
    from fgraph.engines.program import Program

    x = fnp.placeholder((3, 3), "float64", name="x")
    y = fnp.linalg.inv(x * 2.0) @ x + fnp.exp(x).sum(axis=0)  # the user's line
    prog = Program([y.node], "numpy_kernel", "numpy")
    leaves = {k: n for k, n in prog.leaves.items()}
    a = np.arange(9.0).reshape(3, 3) + np.eye(3) * 5

    def fill(value):
        values = [None] * len(prog.order)
        for k, n in leaves.items():
            values[k] = value if n.op == "placeholder" else n.param("value").value \
                if n.op == "literal" else n.param("value").array
        return values

    want = prog.run(fill(a))[prog.slot[id(y.node)]]
    got = prog.straight()(fill(a))[prog.slot[id(y.node)]]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, np.linalg.inv(a * 2.0) @ a + np.exp(a).sum(axis=0))
    with pytest.raises(fgraph.FgraphError, match=r"(?s)inv failed at run time: LinAlgError.*test_control\.py"):
        prog.straight()(fill(np.zeros((3, 3))))

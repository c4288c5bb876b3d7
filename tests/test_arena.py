"""Planned execution: one arena, verified plans, no allocation per run."""

import numpy as np
from hypothesis import given

import fgraph
import fgraph.numpy as fnp
from fgraph.bench.timing import peak_bytes
from fgraph.engines import arena
from oracle import assert_same
from steady import run_until_settled
from random_programs import build, feeds, programs


def mlp(xp, x, ws):
    h = x
    for w in ws[:-1]:
        h = xp.maximum(h @ w, 0.0)
    out = h @ ws[-1]
    return xp.sum(out * out)


def _mlp_case(batch=256, width=512, layers=4):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch, width)).astype("float32")
    ws = [rng.normal(scale=0.05, size=(width, width)).astype("float32") for _ in range(layers)]
    px = fnp.placeholder(x.shape, "float32", name="x")
    return x, ws, px, mlp(fnp, px, [fnp.asarray(w) for w in ws])


def test_checker_runs_on_every_plan_in_the_tests():
    assert arena.CHECK  # set by conftest


def test_memory_report_and_arena_below_no_reuse():
    x, ws, px, loss = _mlp_case()
    exe = fgraph.compile(fgraph.Graph(loss))
    m = exe.memory
    assert m.lower_bound_inplace_bytes <= m.arena_bytes <= m.no_reuse_bytes
    assert m["arena_bytes"] == m.arena_bytes and m.ratio_inplace <= 1.05
    assert "arena" in str(m)
    assert_same(exe(x=x), mlp(np, x, ws))
    assert fgraph.compile(fgraph.Graph(loss), plan_memory=False).memory is None


def test_steady_state_runs_allocate_no_intermediates():
    x, ws, px, loss = _mlp_case()
    g = fgraph.optimise(fgraph.Graph(loss))
    exe = fgraph.compile(g)
    run_until_settled(lambda: exe(x=x))  # strategies chosen (their trials allocate scratch), scratch made
    runs = []
    peak = peak_bytes(lambda: runs.append(exe(x=x)))
    out = runs[0]
    intermediates = exe.memory.no_reuse_bytes
    # the only arrays a run makes are its outputs; Python's own bookkeeping
    # (frames, small tuples) stays in the kilobytes
    assert peak <= out.nbytes + 32 * 1024, (peak, intermediates)
    eager_peak = peak_bytes(lambda: mlp(np, x, ws))
    assert eager_peak > 10 * (out.nbytes + 32 * 1024)


def test_outputs_survive_later_runs():
    p = fnp.placeholder((64, 64), "float64", name="p")
    h = fnp.tanh(p @ p) + 1
    outs = [h * 2, fnp.transpose(h), h[::2]]  # a fresh array, and views of an intermediate
    exe = fgraph.compile(fgraph.Graph(outs))
    a, b = np.eye(64), np.ones((64, 64))
    first = exe(p=a)
    kept = [o.copy() for o in first]
    exe(p=b)
    for o, k in zip(first, kept):
        np.testing.assert_array_equal(o, k)


@given(prog=programs())
def test_planned_execution_matches_numpy_on_random_graphs(prog):
    inputs, steps = prog
    eager, lazy, phs = build(inputs, steps)
    for g in (fgraph.Graph(lazy[-4:], inputs=phs), fgraph.optimise(fgraph.Graph(lazy[-4:], inputs=phs))):
        exe = fgraph.compile(g)
        for _ in range(2):  # the second run reuses the arena
            with np.errstate(all="ignore"):
                results = exe(**feeds(inputs))
            for r, w in zip(results, eager[-4:]):
                assert_same(r, w)


def test_in_place_pairs_are_used():
    p = fnp.placeholder((1000,), "float64", name="p")
    y = fnp.sin(fnp.exp(p) + 1.0)  # each intermediate dies where the next is made
    exe = fgraph.compile(fgraph.Graph(fnp.sum(y)))
    assert exe.memory.inplace >= 1
    assert exe.memory.arena_bytes <= 8000 + 64
    v = np.linspace(0, 1, 1000)
    assert_same(exe(p=v), np.sum(np.sin(np.exp(v) + 1.0)))


def test_concurrent_calls_take_turns():
    from concurrent.futures import ThreadPoolExecutor

    p = fnp.placeholder((200, 200), "float64", name="p")
    exe = fgraph.compile(fgraph.Graph(fnp.sum(fnp.tanh(p @ p) * 2)))
    vals = [np.full((200, 200), k / 100.0) for k in range(8)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda v: exe(p=v), vals))
    for v, r in zip(vals, got):
        assert_same(r, np.sum(np.tanh(v @ v) * 2))


def test_full_with_a_scalar_fill_compiles():
    # full's in-place input exists only when the fill value is an array
    x = fnp.placeholder((2, 3), "float32", name="x")
    exe = fgraph.compile(fgraph.Graph(fnp.full((2, 3), np.float32(0.5), dtype=np.float32) + x))
    np.testing.assert_array_equal(exe(x=np.ones((2, 3), "float32")), np.full((2, 3), 1.5, "float32"))

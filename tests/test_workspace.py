"""Kernel workspaces in the arena: scratch planned like a tensor.

A workspace is a buffer live at its node's step alone: the planners place
it, the lower bound counts it, the independent checker verifies it; the
executable hands the convolution out-kernels their block as
``workspace=`` and a planned run of a conv net allocates no scratch.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples
from steady import run_until_settled

import fgraph
import fgraph.nn as nn
import fgraph.numpy as fnp
from fgraph.bench.planner import alias_of, is_storage
from fgraph.bench.timing import peak_bytes
from fgraph.engines.numpy_kernels import fused as fused_kernels
from fgraph.ops import nn_kernels as kernels
from fgraph.memory import (Buffer, best_schedule, check_plan, fit_workspaces, lifetimes, lower_bound, plan,
                           workspace_id)
from fgraph.memory.offsets import STRATEGIES
from test_memory_planner import brute_force_ok, random_dags

ALIGN = 64


def _ws_of(sizes):
    """A workspace sizer from a table id(node) -> bytes."""
    return lambda n: sizes.get(id(n), 0)


@st.composite
def dags_with_workspaces(draw):
    roots = draw(random_dags())
    order, _ = best_schedule(roots, is_storage=is_storage, alias_of=alias_of)
    sizes = {id(n): draw(st.sampled_from([0, 0, 64, 100, 4096, 20000])) for n in order if n.inputs}
    return roots, sizes


def _live_at(b, step):
    return b.start <= step <= b.end


# ---------------------------------------------------------------- the planner

@settings(max_examples=examples(60))
@given(dags_with_workspaces(), st.sampled_from(sorted(STRATEGIES)))
def test_no_workspace_overlaps_anything_live_at_its_step(case, strategy):
    roots, sizes = case
    ws = _ws_of(sizes)
    order, _ = best_schedule(roots, is_storage=is_storage, alias_of=alias_of, workspace=ws)
    live = lifetimes(order, roots, is_storage, alias_of, workspace=ws)
    assert set(live.workspace) == {k for k, n in enumerate(order) if ws(n) > 0}
    for k, b in live.workspace.items():
        assert (b.id, b.start, b.end, b.nbytes) == (workspace_id(k, live.n_steps), k, k, ws(order[k]))
    p = plan(live.buffers, ALIGN, strategies=[strategy])
    check_plan(live.buffers, p)
    # the same, pair by pair, without the checker's code
    for w in live.workspace.values():
        for b in live.buffers:
            if b is w or not b.nbytes or not _live_at(b, w.start):
                continue
            ow, ob = p.offsets[w.id], p.offsets[b.id]
            assert ow + w.nbytes <= ob or ob + b.nbytes <= ow, (w, b)
    assert brute_force_ok(live.buffers, p)


@settings(max_examples=examples(60))
@given(dags_with_workspaces())
def test_lower_bound_counts_workspaces_and_matches_the_schedule(case):
    roots, sizes = case
    ws = _ws_of(sizes)
    order, _ = best_schedule(roots, is_storage=is_storage, alias_of=alias_of, workspace=ws)
    live = lifetimes(order, roots, is_storage, alias_of, workspace=ws)
    plain = lifetimes(order, roots, is_storage, alias_of)
    bound = lower_bound(live.buffers, live.n_steps)
    # by brute force: at every step, the values live then plus that step's workspace
    want = max((sum(b.nbytes for b in live.buffers if _live_at(b, t)) for t in range(live.n_steps + 1)), default=0)
    assert bound == want
    assert bound >= lower_bound(plain.buffers, plain.n_steps)
    assert bound >= max((b.nbytes for b in live.workspace.values()), default=0)
    from fgraph.memory.schedule import _Graph

    g = _Graph(roots, lambda n: int(np.prod(n.shape)) * n.dtype.itemsize, is_storage, alias_of, None, ws)
    pos = {id(n): k for k, n in enumerate(g.dfs)}
    assert g.peak([pos[id(n)] for n in order]) == bound


def test_checker_catches_a_workspace_on_a_live_tensor():
    bufs = [Buffer(0, 256, 0, 3), Buffer(10, 128, 2, 2)]  # a workspace at step 2, inside tensor 0's lifetime
    p = plan(bufs, ALIGN)
    check_plan(bufs, p)
    bad = type(p)({0: 0, 10: 128}, 256, "hand")
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(bufs, bad)


@settings(max_examples=examples(80))
@given(st.data())
def test_fit_workspaces_places_in_holes_and_never_overlaps(data):
    n = data.draw(st.integers(1, 25))
    values = []
    for k in range(n):
        s = data.draw(st.integers(0, 20))
        values.append(Buffer(k, data.draw(st.sampled_from([0, 64, 100, 1000, 4096])), s,
                             s + data.draw(st.integers(0, 8))))
    base = plan(values, ALIGN)
    requests = []
    for j, step in enumerate(data.draw(st.lists(st.integers(0, 28), unique=True, max_size=8))):
        want = data.draw(st.sampled_from([64, 500, 3000, 9000]))
        requests.append((1000 + j, step, want, data.draw(st.integers(1, want))))
    p, granted = fit_workspaces(values, base, requests)
    scratch = [Buffer(bid, granted[bid], step, step) for bid, step, _, _ in requests]
    check_plan(values + scratch, p)
    assert brute_force_ok(values + scratch, p)
    for bid, step, want, least in requests:
        assert least <= granted[bid] <= want
        if granted[bid] < want:  # cut only where no hole held the preferred size below the arena
            assert p.arena_bytes >= base.arena_bytes
    assert all(p.offsets[b.id] == base.offsets[b.id] for b in values)


def test_fit_workspaces_prefers_a_hole_to_growing_the_arena():
    # a 4000-byte tensor dead at step 2 leaves a hole there: the workspace goes in it
    values = [Buffer(0, 4000, 0, 1), Buffer(1, 4000, 0, 4), Buffer(2, 4000, 3, 4)]
    base = plan(values, ALIGN)
    p, granted = fit_workspaces(values, base, [(9, 2, 6000, 1000)])
    assert p.arena_bytes == base.arena_bytes  # cut to the hole, no growth
    assert 1000 <= granted[9] < 6000
    check_plan(values + [Buffer(9, granted[9], 2, 2)], p)


# ---------------------------------------------------------------- the executable

def _conv_net(batch=2, hw=24, rng=None):
    rng = rng or np.random.default_rng(0)
    x = fnp.placeholder((batch, 3, hw, hw), "float32", name="x")
    w1 = fnp.asarray(rng.normal(scale=0.3, size=(8, 3, 3, 3)).astype("float32"))
    w2 = fnp.asarray(rng.normal(scale=0.3, size=(16, 8, 3, 3)).astype("float32"))
    w3 = fnp.asarray(rng.normal(scale=0.3, size=(16, 16, 1, 1)).astype("float32"))
    wt = fnp.asarray(rng.normal(scale=0.3, size=(16, 4, 3, 3)).astype("float32"))
    h = nn.relu(nn.conv2d(x, w1, padding=1))
    h = nn.relu(nn.conv2d(h, w2, stride=2, padding=1))
    h = nn.conv2d(h, w3, stride=2)  # strided 1x1: im2col of a subsample
    h = nn.conv_transpose2d(h, wt, stride=2, padding=1)
    y = fnp.tanh(h).sum()
    return x, y


class _scratch:
    """Run with another im2col budget (a small one makes chunks of rows)."""

    def __init__(self, nbytes):
        self.nbytes = nbytes

    def __enter__(self):
        self.old = kernels.SCRATCH_BYTES, kernels.SCRATCH_LEAST
        kernels.SCRATCH_BYTES, kernels.SCRATCH_LEAST = self.nbytes, min(self.nbytes, kernels.SCRATCH_LEAST)

    def __exit__(self, *exc):
        kernels.SCRATCH_BYTES, kernels.SCRATCH_LEAST = self.old


@pytest.fixture
def whole_workspaces():
    from fgraph.engines import arena

    old, arena.CUT_WORKSPACES = arena.CUT_WORKSPACES, False
    yield
    arena.CUT_WORKSPACES = old


@pytest.mark.parametrize("budget", [4 << 20, 4096, 300])
@pytest.mark.parametrize("batch", [1, 3])
def test_conv_net_bitwise_equal_with_and_without_the_plan(budget, batch, whole_workspaces):
    with _scratch(budget):
        x, y = _conv_net(batch)
        loss = y
        g = fgraph.Graph([loss, fgraph.grad(loss, x)])
        for graph in (g, fgraph.optimise(g)):
            exe = fgraph.compile(graph)
            ref = fgraph.compile(graph, plan_memory=False)
            m = exe.memory
            assert m.workspace_nodes >= 3 and m.workspace_bytes > 0 and m.workspace_cut == 0
            xv = np.random.default_rng(batch).random((batch, 3, 24, 24), dtype=np.float32)
            for _ in range(2):  # the second run reuses the arena and its workspaces
                got, want = exe(x=xv), ref(x=xv)
                for a, b in zip(got, want):
                    np.testing.assert_array_equal(a, b)


def test_workspace_is_handed_to_the_out_kernels():
    x, y = _conv_net()
    exe = fgraph.compile(fgraph.Graph(y))
    prog = exe._program
    handed = [(prog.order[ins[3]].op, ins[2]["workspace"]) for ins in prog.instructions if "workspace" in ins[2]]
    assert {op for op, _ in handed} == {"conv2d", "conv_transpose2d"} and len(handed) == 4
    arena = exe._arena
    for op, ws in handed:
        assert ws.dtype == np.uint8 and ws.ndim == 1 and np.shares_memory(ws, arena)
        assert (ws.__array_interface__["data"][0] - arena.__array_interface__["data"][0]) % 64 == 0
    steps = exe._plan.workspaces()
    assert sorted(b for _, b in steps.values()) == sorted(ws.nbytes for _, ws in handed)


def test_memory_report_fields():
    x, y = _conv_net()
    exe = fgraph.compile(fgraph.Graph(y))
    m = exe.memory
    ws = exe._plan.live.workspace
    assert m.workspace_nodes == len(ws) >= 3
    assert m.workspace_bytes == max(b.nbytes for b in ws.values())
    assert 0 <= m.workspace_cut <= m.workspace_nodes
    assert m.arena_bytes >= m.workspace_bytes and m.lower_bound_bytes >= m.workspace_bytes
    assert "workspace" in str(m) and m["workspace_bytes"] == m.workspace_bytes
    # without a plan the kernels allocate their own scratch
    assert fgraph.compile(fgraph.Graph(y), plan_memory=False).memory is None


def test_plan_picture_shows_the_workspace(tmp_path):
    pytest.importorskip("matplotlib")
    x, y = _conv_net()
    path = fgraph.compile(fgraph.Graph(y)).memory.plot(str(tmp_path / "plan.png"))
    assert (tmp_path / "plan.png").stat().st_size > 1000 and path.endswith("plan.png")


def test_an_output_conv_takes_its_workspace_and_returns_a_fresh_array():
    x = fnp.placeholder((1, 3, 16, 16), "float32", name="x")
    w = fnp.asarray(np.ones((4, 3, 3, 3), "float32"))
    exe = fgraph.compile(fgraph.Graph(nn.conv2d(x, w, padding=1)))
    assert exe.memory.workspace_nodes == 1
    xv = np.random.default_rng(0).random((1, 3, 16, 16), dtype=np.float32)
    first = exe(x=xv)
    kept = first.copy()
    second = exe(x=xv * 2)
    assert not np.shares_memory(first, second) and not np.shares_memory(first, exe._arena)
    np.testing.assert_array_equal(first, kept)
    ref = fgraph.compile(fgraph.Graph(nn.conv2d(x, w, padding=1)), plan_memory=False)
    np.testing.assert_array_equal(first, ref(x=xv))
    np.testing.assert_array_equal(second, ref(x=xv * 2))


@pytest.mark.parametrize("batch", [1, 3])
def test_conv_net_with_cut_workspaces_matches_within_rounding(batch):
    # a tiny least size lets the planner cut every workspace to a hole
    with _scratch(4 << 20):
        kernels.SCRATCH_LEAST = 64
        x, y = _conv_net(batch, hw=40)
        g = fgraph.optimise(fgraph.Graph([y, fgraph.grad(y, x)]))
        exe, ref = fgraph.compile(g), fgraph.compile(g, plan_memory=False)
        xv = np.random.default_rng(batch).random((batch, 3, 40, 40), dtype=np.float32)
        for _ in range(2):
            for a, b in zip(exe(x=xv), ref(x=xv)):
                np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-5)
        if exe.memory.workspace_cut:
            full = fgraph.compile(g).memory
            assert exe.memory.arena_bytes <= full.arena_bytes


def test_a_cut_workspace_gives_the_same_values_within_rounding():
    # the kernel takes shorter chunks from a smaller workspace
    rng = np.random.default_rng(3)
    x = rng.random((1, 8, 40, 40), dtype=np.float32)
    w = rng.normal(size=(8, 8, 3, 3)).astype("float32")
    kw = dict(stride=(1, 1), padding=((1, 1), (1, 1)), dilation=(1, 1), groups=1)
    want = kernels.conv2d_out(x, w, out=np.empty((1, 8, 40, 40), "float32"), **kw)
    for size in (1 << 20, 20000, 64 * 1024 + 3):
        got = kernels.conv2d_out(x, w, out=np.empty((1, 8, 40, 40), "float32"),
                                 workspace=np.empty(size, np.uint8), **kw)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # given all it prefers, the kernel runs the unplanned chunks: the same bits
    need = kernels.conv2d_workspace(fgraph.nn.conv2d(fnp.asarray(x), fnp.asarray(w), padding=1).node)[0]
    got = kernels.conv2d_out(x, w, out=np.empty((1, 8, 40, 40), "float32"), workspace=np.empty(need, np.uint8),
                             **kw)
    np.testing.assert_array_equal(got, want)


def test_steady_state_conv_runs_allocate_no_more_than_the_outputs():
    # a forward conv net with pools (conv_transpose2d still makes ~100 KB of
    # NumPy temporaries per call outside its scratch)
    rng = np.random.default_rng(0)
    x = fnp.placeholder((2, 3, 64, 64), "float32", name="x")
    h = x
    for o, c, s in ((8, 3, 1), (16, 8, 2), (16, 16, 1)):
        w = fnp.asarray(rng.normal(scale=0.3, size=(o, c, 3, 3)).astype("float32"))
        h = nn.relu(nn.conv2d(h, w, stride=s, padding=1))
        h = nn.max_pool2d(h, 3, 1, 1) if o == 8 else nn.avg_pool2d(h, 3, 1, 1) if s == 2 else h
    exe = fgraph.compile(fgraph.optimise(fgraph.Graph([h.sum(axis=(2, 3)), h[:, :2]])))
    xv = rng.random((2, 3, 64, 64), dtype=np.float32)
    run_until_settled(lambda: exe(x=xv), warm=20)  # strategies chosen (their trials allocate scratch), pools made
    runs = []
    peak = peak_bytes(lambda: runs.append(exe(x=xv)))
    outs = runs[0]
    assert exe.memory.workspace_bytes > 256 * 1024  # the scratch an unplanned run allocates
    # beyond the outputs: NumPy's ufunc iterator buffers (8192 elements per
    # operand) for strided operands, e.g. the average pool's division of its
    # padded-width sums: a constant, whatever the sizes
    assert peak <= sum(np.asarray(o).nbytes for o in outs) + 96 * 1024, peak


# ---------------------------------------------------------------- fused kernels' scratch

def _no_pool(*_args, **_kw):
    raise AssertionError("a planned fused kernel drew scratch from the thread pools")


def _leaf_values(node, xv):
    """The values a node's leaf inputs take on the NumPy engine."""
    kernels_ = {"placeholder": lambda n: xv, "constant": lambda n: n.param("value").array,
                "literal": lambda n: n.param("value").value}
    return [kernels_[n.op](n) for n in node.inputs]


def _fused_graph(shape, seed):
    """A fused group with float and bool temporaries, and a fused reduction."""
    rng = np.random.default_rng(seed)
    x = fnp.placeholder(shape, "float32", name="x")
    b = fnp.asarray(rng.normal(size=shape[-1:]).astype("float32"))
    t = fnp.tanh(x * 1.5 + b)
    y = fnp.where(t > 0.2, t * t, fnp.exp(-x)) - 0.5 * x
    r = fnp.mean((x - b) ** 2, axis=-1, keepdims=True)
    return fgraph.optimise(fgraph.Graph([y, r])), rng.normal(size=shape).astype("float32")


@pytest.mark.parametrize("strategy", sorted(fused_kernels.STRATEGIES))
@pytest.mark.parametrize("shape", [(3, 5), (40, 700), (3, 4, 33000)])
def test_every_fused_strategy_fits_its_planned_workspace(strategy, shape, monkeypatch):
    g, xv = _fused_graph(shape, 1)
    node = next(n for n in g.nodes() if n.op == "fused")
    ins = _leaf_values(node, xv)
    want = fused_kernels.run_fused(*ins, **dict(node.params))
    need = fused_kernels.fused_workspace(node)
    c, size = fused_kernels.compiled(node.param("expr"), len(ins)), int(np.prod(shape))
    whole = c.scratch_nbytes(size)
    if strategy == "whole" and size >= fused_kernels.SMALL and whole > fused_kernels.WHOLE_SCRATCH_BYTES:
        assert need < whole  # not a candidate on large arrays: not planned for
        return
    ws = np.full(need, 0xFF, np.uint8)  # garbage: scratch is written first
    monkeypatch.setattr(fused_kernels, "_scratch", _no_pool)
    got = fused_kernels.run_fused(*ins, out=np.empty(node.shape, node.dtype), workspace=ws, strategy=strategy,
                                  **dict(node.params))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(3, 5), (40, 700), (2, 70000)])
def test_fused_reduction_fits_its_planned_workspace(shape, monkeypatch):
    g, xv = _fused_graph(shape, 2)
    node = next(n for n in g.nodes() if n.op == "fused_reduce")
    ins = _leaf_values(node, xv)
    want = fused_kernels.run_fused_reduce(*ins, **dict(node.params))
    ws = np.full(fused_kernels.fused_reduce_workspace(node), 0xFF, np.uint8)
    monkeypatch.setattr(fused_kernels, "_scratch", _no_pool)
    got = fused_kernels.run_fused_reduce(*ins, out=np.empty(node.shape, node.dtype), workspace=ws,
                                         **dict(node.params))
    np.testing.assert_array_equal(got, want)


def test_planned_fused_kernels_keep_no_scratch_between_runs(monkeypatch):
    # trials and the chosen strategy alike take the planned block: nothing
    # from the per-thread pools, which unplanned runs still use
    g, xv = _fused_graph((8, 40000), 3)
    ref = fgraph.compile(g, plan_memory=False)
    want = ref(x=xv)
    exe = fgraph.compile(g)
    handed = {exe._program.order[ins[3]].op for ins in exe._program.instructions if "workspace" in ins[2]}
    assert {"fused", "fused_reduce"} <= handed
    monkeypatch.setattr(fused_kernels, "_scratch", _no_pool)
    for _ in range(25):  # through the strategy trials to the settled choice
        for a, b in zip(exe(x=xv), want):
            np.testing.assert_array_equal(a, b)

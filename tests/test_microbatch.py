"""Micro-batched execution (fgraph.compile(g, micro_batch=k)) against the plain compile."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph import nn
from fgraph.models import digits_cnn, digits_cnn_params


def _compare(g, feeds, ks, exact=True, rtol=1e-6, atol=1e-6):
    """Each micro-batched compile gives the plain compile's results."""
    def leaves(r):
        return list(r.values()) if isinstance(r, dict) else list(r) if isinstance(r, (list, tuple)) else [r]

    want = leaves(fgraph.compile(g)(**feeds))
    for k in ks:
        got = leaves(fgraph.compile(g, micro_batch=k)(**feeds))
        for a, b in zip(got, want):
            assert a.shape == b.shape and a.dtype == b.dtype
            if exact:
                np.testing.assert_array_equal(a, b)
            else:
                np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- random row-wise programs

def _softmax(xp, a, w=None):
    e = xp.exp(a - xp.max(a, axis=-1, keepdims=True))
    return e / xp.sum(e, axis=-1, keepdims=True)


#: steps that keep every row of axis 0 apart: (name, needs ndim >= 2, fn(xp, a, w)) where w is an
#: unbatched array drawn for the step (shape a.shape[1:])
STEPS = [
    ("tanh", 1, lambda xp, a, w: xp.tanh(a)),
    ("exp", 1, lambda xp, a, w: xp.exp(xp.clip(a, -3, 3))),
    ("affine", 1, lambda xp, a, w: a * 0.5 + 1),
    ("bias", 1, lambda xp, a, w: a + w),
    ("scale", 1, lambda xp, a, w: xp.maximum(a * w, 0.0)),
    ("where", 1, lambda xp, a, w: xp.where(a > w, a, -a)),
    ("sum", 2, lambda xp, a, w: xp.sum(a, axis=-1)),
    ("mean_keep", 2, lambda xp, a, w: a - xp.mean(a, axis=-1, keepdims=True)),
    ("max", 2, lambda xp, a, w: xp.max(a, axis=tuple(range(1, a.ndim)))),
    ("cumsum", 2, lambda xp, a, w: xp.cumsum(a, axis=-1)),
    ("softmax", 2, _softmax),
    ("flatten", 1, lambda xp, a, w: xp.reshape(a, (a.shape[0], -1))),
    ("transpose", 3, lambda xp, a, w: xp.transpose(a, (0,) + tuple(range(a.ndim - 1, 0, -1)))),
    ("flip", 2, lambda xp, a, w: a[:, ::-1]),
    ("slice", 2, lambda xp, a, w: a[:, 1:] if a.shape[1] > 1 else a),
    ("concat", 2, lambda xp, a, w: xp.concatenate([a, a * 2], axis=-1)),
    ("expand", 1, lambda xp, a, w: xp.expand_dims(a, 1)),
    ("sort", 2, lambda xp, a, w: xp.sort(a, axis=-1)),
    ("matmul", 2, lambda xp, a, w: a @ xp.ones((a.shape[-1], 3)) * 0.1),
    ("pad", 2, lambda xp, a, w: xp.pad(a, [(0, 0)] + [(1, 0)] * (a.ndim - 1))),
]


@st.composite
def rowwise_programs(draw):
    batch = draw(st.integers(1, 6))
    rest = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=2)))
    steps = draw(st.lists(st.tuples(st.integers(0, len(STEPS) - 1), st.integers(0, 100)), min_size=1, max_size=12))
    k = draw(st.integers(1, batch + 1))
    seed = draw(st.integers(0, 2**16))
    return batch, rest, steps, k, seed


def _run_steps(xp, x, steps, rng):
    pool = [x]
    for i, pick in steps:
        _, nd, fn = STEPS[i]
        a = pool[pick % len(pool)]
        if a.ndim < nd or (STEPS[i][0] == "expand" and a.ndim >= 4) or a.size > 4096:
            continue
        w = xp.asarray(rng.normal(size=a.shape[1:]))
        pool.append(fn(xp, a, w))
    return pool


@settings(max_examples=examples(40), deadline=None)
@given(rowwise_programs(), st.booleans())
def test_random_rowwise_programs(prog, optimise):
    """Random row-wise programs: micro-batched results equal the plain compile's
    (a product of fewer rows may round differently: a tolerance there)."""
    batch, rest, steps, k, seed = prog
    x = fnp.placeholder((batch,) + rest, "float64", name="x")
    pool = _run_steps(fnp, x, steps, np.random.default_rng(seed))
    outs = pool[-2:]
    g = fgraph.Graph(outs, inputs=[x])
    if optimise:
        g = fgraph.optimise(g)
    feed = np.random.default_rng(seed + 1).normal(size=(batch,) + rest)
    before = feed.copy()
    want = fgraph.compile(g)(x=feed)
    exe = fgraph.compile(g, micro_batch=k)
    got = exe(x=feed)
    np.testing.assert_array_equal(feed, before)  # feeds are not written
    # and against eager NumPy running the same steps
    eager = _run_steps(np, feed, steps, np.random.default_rng(seed))[-2:]
    for a, b, c in zip(got, want, eager):
        assert a.shape == b.shape == np.shape(c) and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(a, c, rtol=1e-9, atol=1e-9)
    m = exe.memory
    assert m.micro_batch == min(k, batch) and m.batch == batch and m.chunks == -(-batch // min(k, batch))


# ---------------------------------------------------------------- networks

def test_digits_cnn_forward_with_remainder():
    params = digits_cnn_params(0)
    x = fnp.placeholder((10, 1, 8, 8), "float32", name="x")
    g = fgraph.optimise(fgraph.Graph(digits_cnn(x, {k: fnp.asarray(v) for k, v in params.items()})))
    feeds = {"x": np.random.default_rng(0).random((10, 1, 8, 8), dtype=np.float32)}
    _compare(g, feeds, (1, 3, 4, 10), exact=False, rtol=1e-5, atol=1e-5)
    exe = fgraph.compile(g, micro_batch=3)
    m = exe.memory
    assert (m.chunks, m.remainder_rows) == (4, 1) and m.remainder_arena_bytes > 0
    assert m.arena_bytes < fgraph.compile(g).memory.arena_bytes
    # the last chunk's program runs in the chunks' arena: one arena in all
    assert m.remainder_shares_arena and m.total_arena_bytes == m.arena_bytes and "the chunks' arena" in str(m)
    assert exe._rest._arena is exe._chunk._arena
    plain = fgraph.compile(g)
    first = exe(**feeds)
    kept = first.copy()
    other = {"x": np.random.default_rng(1).random((10, 1, 8, 8), dtype=np.float32)}
    np.testing.assert_allclose(exe(**other), plain(**other), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(first, kept)  # a later run leaves earlier results alone


def _tiny_resnet(x, rng):
    def w(*shape):
        return fnp.asarray((rng.normal(size=shape) * 0.3).astype(np.float32))

    def bn(y, c):
        stats = [rng.uniform(0.5, 1.5, c).astype(np.float32) for _ in range(4)]
        return nn.batch_norm(y, stats[0] - 1, stats[1], stats[2], stats[3] - 1)

    y = nn.relu(bn(nn.conv2d(x, w(8, 3, 3, 3), stride=2, padding=1), 8))
    y = nn.max_pool2d(y, 2)
    r = nn.relu(bn(nn.conv2d(y, w(8, 8, 3, 3), padding=1), 8))
    r = bn(nn.conv2d(r, w(8, 8, 1, 1)), 8)
    y = nn.relu(y + r)
    y = nn.upsample_nearest(y, 2)
    y = nn.avg_pool2d(y, y.shape[-1])
    y = nn.flatten(y)
    return nn.softmax(nn.linear(y, w(8, 5), w(5)), axis=1), nn.log_softmax(y, axis=-1)


@pytest.mark.parametrize("optimise", [False, True])
def test_tiny_resnet(optimise):
    x = fnp.placeholder((5, 3, 16, 16), "float32", name="x")
    g = fgraph.Graph(list(_tiny_resnet(x, np.random.default_rng(1))))
    g = fgraph.optimise(g) if optimise else g
    feeds = {"x": np.random.default_rng(2).normal(size=(5, 3, 16, 16)).astype(np.float32)}
    _compare(g, feeds, (1, 2, 5), exact=False, rtol=1e-5, atol=1e-6)


def test_elementwise_is_bitwise_and_outputs_are_the_callers():
    x = fnp.placeholder((7, 3), "float32", name="x")
    g = fgraph.Graph({"y": fnp.tanh(x) * 2 + fnp.sum(x * x, axis=1, keepdims=True), "c": fnp.ones(3) * 2})
    feed = np.arange(21, dtype=np.float32).reshape(7, 3) / 7
    _compare(g, {"x": feed}, (1, 2, 3))
    exe = fgraph.compile(g, micro_batch=2)
    a = exe(x=feed)
    a_y = a["y"].copy()
    a["y"][...] = -1  # the caller's to keep: a later run does not see it, nor overwrite it
    b = exe(x=feed)
    np.testing.assert_array_equal(b["y"], a_y)
    assert b["y"] is not a["y"]
    np.testing.assert_array_equal(b["c"], np.full(3, 2.0))  # unbatched: from the first chunk


def test_named_feeds_and_embedding():
    """A weight whose axis 0 happens to be the batch size: named feeds say which is batched."""
    ids = fnp.placeholder((4, 6), "int64", name="ids")
    table = fnp.placeholder((4, 5), "float32", name="table")
    y = nn.softmax(fnp.take(table, ids, axis=0), axis=-1)
    g = fgraph.Graph(y)
    rng = np.random.default_rng(3)
    feeds = {"ids": rng.integers(0, 4, (4, 6)), "table": rng.normal(size=(4, 5)).astype(np.float32)}
    with pytest.raises(fgraph.FgraphError, match="take"):
        fgraph.compile(g, micro_batch=2)  # both leading dims are 4: both taken as batched
    want = fgraph.compile(g)(**feeds)
    for k in (1, 3):
        np.testing.assert_array_equal(fgraph.compile(g, micro_batch=(k, ["ids"]))(**feeds), want)


def test_unbatched_values_with_the_batch_size_are_resized():
    """Broadcasts and filled arrays of the batch size (as pad and zeros make) are the same in every row."""
    x = fnp.placeholder((5, 4), "float64", name="x")
    y = fnp.concatenate([x, fnp.zeros((5, 2)), fnp.broadcast_to(fnp.arange(3.0), (5, 3))], axis=1)
    y = y + fnp.full((5, 9), 0.5) + fnp.asarray(np.tile(np.arange(9.0), (5, 1)))
    feeds = {"x": np.random.default_rng(4).normal(size=(5, 4))}
    _compare(fgraph.Graph(y), feeds, (1, 2, 4))
    _compare(fgraph.optimise(fgraph.Graph(y)), feeds, (2,))


# ---------------------------------------------------------------- refusals

def test_mean_over_the_batch_is_refused():
    x = fnp.placeholder((6, 4), "float32", name="x")
    g = fgraph.Graph(x - fnp.mean(x, axis=0))
    with pytest.raises(fgraph.FgraphError, match=r"(?s)mean.*batch axis 0.*test_microbatch\.py"):
        fgraph.compile(g, micro_batch=2)
    with pytest.raises(fgraph.FgraphError, match=r"test_microbatch\.py"):
        fgraph.compile(fgraph.optimise(g), micro_batch=2)


def test_batch_norm_training_is_refused():
    x = fnp.placeholder((6, 3, 4, 4), "float32", name="x")
    y, _, _ = nn.batch_norm(x, np.zeros(3, "float32"), np.ones(3, "float32"), training=True)
    with pytest.raises(fgraph.FgraphError, match=r"(?s)micro_batch.*test_microbatch\.py"):
        fgraph.compile(fgraph.Graph(y), micro_batch=2)


@pytest.mark.parametrize("make, op", [
    (lambda x, w: x.T @ x, "transpose"),
    (lambda x, w: fnp.sum(x), "sum"),
    (lambda x, w: x[1:], "slice"),
    (lambda x, w: fnp.cumsum(x, axis=0), "cumsum"),
    (lambda x, w: fnp.sort(x, axis=None), "sort"),
    (lambda x, w: fnp.reshape(x, (3, 8)), "reshape"),
    (lambda x, w: w @ x, "matmul"),
    (lambda x, w: x + fnp.asarray(np.arange(24.0).reshape(6, 4)), "add"),
])
def test_batch_mixing_ops_are_refused(make, op):
    x = fnp.placeholder((6, 4), "float64", name="x")
    w = fnp.asarray(np.ones((2, 6)))
    with pytest.raises(fgraph.FgraphError, match=rf"(?s)micro_batch: {op}.*test_microbatch\.py"):
        fgraph.compile(fgraph.Graph(make(x, w)), micro_batch=2)


def test_updates_and_bad_options_are_refused():
    x = fnp.placeholder((4, 2), "float32", name="x")
    v = fnp.variable(np.zeros(2, "float32"), name="v")
    g = fgraph.Graph(x * v, updates={v: v + 1})
    with pytest.raises(fgraph.FgraphError, match="once per chunk"):
        fgraph.compile(g, micro_batch=2)
    g = fgraph.Graph(x * v)
    for bad in (0, -1, "auto", 1.5, (2, ["nope"]), (1, 2, 3)):
        with pytest.raises(fgraph.FgraphError, match="micro_batch"):
            fgraph.compile(g, micro_batch=bad)


def test_variables_without_updates_and_assign():
    x = fnp.placeholder((5, 2), "float32", name="x")
    v = fnp.variable(np.ones(2, "float32"), name="v")
    exe = fgraph.compile(fgraph.Graph(x * v), micro_batch=2)
    feed = np.arange(10, dtype=np.float32).reshape(5, 2)
    np.testing.assert_array_equal(exe(x=feed), feed)
    exe.assign(v=np.full(2, 3, "float32"))  # both chunk programs (2 rows and the last 1) see it
    np.testing.assert_array_equal(exe(x=feed), feed * 3)
    np.testing.assert_array_equal(exe.variables["v"], np.full(2, 3, "float32"))


def test_input_graph_is_not_changed():
    x = fnp.placeholder((6, 4), "float32", name="x")
    y = nn.relu(x @ fnp.asarray(np.ones((4, 3), "float32"))) + 1
    g = fgraph.Graph(y)
    key, outs, nodes = g.key, g.outputs, [(n.shape, n.params) for n in g.nodes()]
    exe = fgraph.compile(g, micro_batch=4)
    assert g.key == key and g.outputs == outs and [(n.shape, n.params) for n in g.nodes()] == nodes
    assert exe.graph is g and x.shape == (6, 4)
    with pytest.raises(fgraph.ShapeError, match="placeholder 'x'"):
        exe(x=np.zeros((4, 4), "float32"))  # feeds are checked against the full batch


@pytest.mark.parametrize("fn", [fnp.linalg.det, fnp.linalg.inv, lambda a: fnp.linalg.eigh(a)[0],
                                lambda a: fnp.linalg.svd(a, compute_uv=False), lambda a: fnp.linalg.slogdet(a)[1]])
def test_stacked_matrices_keep_their_rows(fn):
    """det, inv, eigh, svd... over a stack of matrices: each row of the batch is one matrix."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(7, 3, 3))
    a = a @ np.swapaxes(a, 1, 2) + 3 * np.eye(3)  # symmetric positive definite: every op is defined
    p = fnp.placeholder(a.shape, "float64", name="a")
    g = fgraph.Graph(fn(p) * 2.0)
    np.testing.assert_allclose(fgraph.compile(g, micro_batch=2)(a=a), fgraph.compile(g)(a=a), rtol=1e-12)


def test_a_single_matrix_and_a_refused_op_say_why():
    p = fnp.placeholder((4, 4), "float64", name="a")
    with pytest.raises(fgraph.FgraphError, match="det.*the batch axis 0 is one of its axes"):
        fgraph.compile(fgraph.Graph(fnp.linalg.det(p)), micro_batch=2)
    q = fnp.placeholder((4, 3), "float64", name="q")
    with pytest.raises(fgraph.FgraphError, match="outer.*may contract or move the batch axis"):
        fgraph.compile(fgraph.Graph(fnp.outer(q, np.ones(2))), micro_batch=2)

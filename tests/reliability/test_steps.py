"""A compiled step is all-or-nothing and safe to share between threads.

Faults (KeyboardInterrupt, MemoryError, FloatingPointError) at any node or
at any moment leave every variable as it was or every update applied;
feeds that view a variable's buffer read the value at call time; Python
feeds convert as NumPy converts; snapshots are consistent while other
threads step; one graph compiled several times may be first run from
several threads at once.
"""
import _thread
import random
import threading
import time

import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.numpy_kernels import fused


def _compile(outputs, updates, optimise=True):
    g = fgraph.Graph(outputs, updates=updates)
    return fgraph.compile(fgraph.optimise(g) if optimise else g)


def _state(exe) -> dict:
    return {k: np.array(v) for k, v in exe.variables.items()}


def _assert_state(exe, want: dict):
    got = _state(exe)
    assert sorted(got) == sorted(want)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k], err_msg=f"variable {k}")


# ---------------------------------------------------------------- item 3: a failed step changes nothing

@pytest.mark.parametrize("engine", ["numpy", "cupy on the host"])
def test_errstate_raise_leaves_an_in_place_update_unwritten(engine, request):
    w = fnp.variable(np.array([8.0, 8.0]), name="w")
    x = fnp.placeholder((2,), name="x")
    g = fgraph.optimise(fgraph.Graph(fnp.sum(w), updates={w: w / x}))
    exe = fgraph.compile(g) if engine == "numpy" else request.getfixturevalue("host").compile(g)
    assert exe.memory.updates_in_place == 1
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        exe(x=np.array([2.0, 0.0]))
    _assert_state(exe, {"w": np.array([8.0, 8.0])})
    assert exe(x=np.array([2.0, 4.0])) == 16.0
    _assert_state(exe, {"w": np.array([4.0, 2.0])})


def _mlp(rng):
    """A training step: a two-layer net, momentum SGD on three parameters."""
    x = fnp.placeholder((16, 6), name="x")
    y = fnp.placeholder((16, 2), name="y")
    w1 = fnp.variable(rng.normal(size=(6, 8)) * 0.5, name="w1")
    b1 = fnp.variable(np.zeros(8), name="b1")
    w2 = fnp.variable(rng.normal(size=(8, 2)) * 0.5, name="w2")
    h = fnp.tanh(x @ w1 + b1)
    loss = fnp.mean((h @ w2 - y) ** 2)
    params = [w1, b1, w2]
    updates = fgraph.optim.sgd(params, fgraph.grad(loss, params), lr=0.1, momentum=0.9)
    return _compile([loss, h], updates)


def _mlp_reference(state: dict, feeds: dict):
    """One step of ``_mlp`` in NumPy: results and new state."""
    x, y = feeds["x"], feeds["y"]
    w1, b1, w2 = state["w1"], state["b1"], state["w2"]
    h = np.tanh(x @ w1 + b1)
    err = h @ w2 - y
    loss = np.mean(err ** 2)
    d = 2 * err / err.size
    gw2 = h.T @ d
    dz = (d @ w2.T) * (1 - h ** 2)
    grads = {"w1": x.T @ dz, "b1": dz.sum(0), "w2": gw2}
    new = {}
    for p, g in grads.items():
        v = f"{p}/velocity"  # sgd's momentum buffer of p
        new[v] = 0.9 * state[v] + g
        new[p] = state[p] - 0.1 * new[v]
    assert sorted(new) == sorted(state)
    return [loss, h], new


@pytest.mark.parametrize("fault", [KeyboardInterrupt, MemoryError, FloatingPointError])
def test_a_fault_at_any_node_changes_no_variable(fault):
    rng = np.random.default_rng(0)
    exe = _mlp(rng)
    prog = exe._program
    feeds = {"x": rng.normal(size=(16, 6)), "y": rng.normal(size=(16, 2))}
    exe(**feeds)  # the momenta are not zero any more
    assert exe.memory.updates_in_place >= 3  # the parameters are updated in place
    for i, ins in enumerate(list(prog.instructions)):
        kernel = ins[0]

        def faulty(*args, _kernel=kernel, **params):
            _kernel(*args, **params)  # the node has written its output (maybe a variable's new value)
            raise fault(f"injected at node {i}")

        before = _state(exe)
        prog.instructions[i] = (faulty,) + ins[1:]
        try:
            with pytest.raises(fault):
                exe(**feeds)
        finally:
            prog.instructions[i] = ins
        _assert_state(exe, before)
        want, new = _mlp_reference(before, feeds)
        got = exe(**feeds)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
        for k, v in _state(exe).items():
            np.testing.assert_allclose(v, new[k], rtol=1e-10, atol=1e-12, err_msg=f"variable {k} after node {i}")


def test_interrupts_at_any_moment_apply_all_updates_or_none():
    """KeyboardInterrupt delivered at random moments of a stepping loop
    (as Ctrl-C would): the two variables always agree."""
    n = 1 << 18  # copies long enough for an interrupt to land among them
    a = fnp.variable(np.zeros(n), name="a")
    b = fnp.variable(np.zeros(n), name="b")
    exe = _compile(fnp.sum(a[:4]), {a: a + 1.0, b: b + 1.0})
    exe()
    t0 = time.perf_counter()
    exe()
    step = time.perf_counter() - t0
    rng = random.Random(0)
    interrupted = 0
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline and interrupted < 60:
        timer = threading.Timer(rng.uniform(0, 3 * step), _thread.interrupt_main)
        try:
            timer.start()
            while True:
                exe()
        except KeyboardInterrupt:
            interrupted += 1
        timer.join()
        va, vb = exe.variables["a"], exe.variables["b"]
        assert va[0] == va[-1] and vb[0] == vb[-1], "a variable half written"
        assert va[0] == vb[0], f"one update applied without the other (a={va[0]}, b={vb[0]})"
    assert interrupted >= 10


# ---------------------------------------------------------------- item 4: feeds that view a variable

@pytest.mark.parametrize("view", ["variables", "asarray", "slice"])
def test_a_feed_viewing_a_variable_reads_its_value_at_call_time(view):
    w0 = np.arange(6.0)
    w = fnp.variable(w0, name="w")
    x = fnp.placeholder((4,), name="x")
    # the update is written in place; exp(x) and x itself are read after it in the schedule
    exe = _compile([fnp.exp(x) * 2.0, x, fnp.sum(w)], {w: w * 3.0})
    held = exe.variables["w"]
    feed = {"variables": lambda: held[1:5], "asarray": lambda: np.asarray(exe.variables["w"])[:4],
            "slice": lambda: exe.variables["w"][2:]}[view]()
    value = np.array(feed)
    got_exp, got_x, got_sum = exe(x=feed)
    np.testing.assert_allclose(got_exp, np.exp(value) * 2.0)
    np.testing.assert_array_equal(got_x, value)
    assert got_sum == w0.sum()
    np.testing.assert_array_equal(exe.variables["w"], w0 * 3.0)


@pytest.mark.parametrize("how", ["view", "frombuffer"])
def test_a_variable_fed_whole_as_another_update(how):
    u = fnp.variable(np.arange(4.0), name="u")
    v = fnp.variable(np.full(4, 10.0), name="v")
    x = fnp.placeholder((4,), name="x")
    # v takes the feed (the old u); u is written in place, and committed first
    exe = _compile(fnp.sum(v), {u: u + 1.0, v: x})
    held = exe.variables["u"]
    # frombuffer: the same memory, with no .base leading back to u's buffer
    exe(x=held if how == "view" else np.frombuffer(memoryview(held), held.dtype))
    _assert_state(exe, {"u": np.arange(4.0) + 1, "v": np.arange(4.0)})


# ---------------------------------------------------------------- item 5: Python feeds convert as NumPy's

def test_a_python_list_out_of_range_for_the_placeholder_raises():
    x = fnp.placeholder((3,), "int8", name="small")
    exe = _compile(x + 1, {})
    with pytest.raises(OverflowError):
        np.asarray([1000, 2, 3], dtype="int8")  # NumPy's own answer
    with pytest.raises(fgraph.FgraphError, match="'small'") as err:
        exe(small=[1000, 2, 3])
    assert isinstance(err.value, OverflowError)
    with pytest.raises(OverflowError, match="'small'"):
        exe([2 ** 70, 0, 0])
    np.testing.assert_array_equal(exe(small=[1, -2, 126]), np.array([2, -1, 127], "int8"))
    s = fnp.placeholder((), "uint8", name="count")
    exe = _compile(s * 2, {})
    with pytest.raises(OverflowError, match="'count'"):
        exe(count=-1)
    assert exe(count=100) == np.uint8(200)
    with pytest.raises(fgraph.DTypeError, match="'count'"):
        exe(count=1.5)  # a float into an integer placeholder is still refused


# ---------------------------------------------------------------- item 6: consistent snapshots

def _stepping(exe, stop: threading.Event, errors: list):
    def loop():
        try:
            while not stop.is_set():
                exe()
        except BaseException as e:  # reported by the test
            errors.append(e)
    return threading.Thread(target=loop)


def test_snapshots_are_consistent_while_another_thread_steps():
    n = 1 << 16
    a = fnp.variable(np.zeros(n), name="a")
    b = fnp.variable(np.zeros(n), name="b")
    exe = _compile(fnp.sum(a[:2]), {a: a + 1.0, b: b + 1.0})
    stop, errors = threading.Event(), []
    t = _stepping(exe, stop, errors)
    t.start()
    try:
        seen = set()
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline or len(seen) < 3:
            for snap in (exe.snapshot(), exe.variables.copy()):
                assert sorted(snap) == ["a", "b"]
                va, vb = snap["a"], snap["b"]
                assert va[0] == va[-1] == vb[0] == vb[-1], "a torn snapshot"
                seen.add(float(va[0]))
            time.sleep(0)
    finally:
        stop.set()
        t.join()
    assert not errors
    snap = exe.snapshot()
    steps = snap["a"][0]
    exe()
    assert snap["a"][0] == steps  # a snapshot is a copy: later steps leave it alone
    snap["a"][0] = -1.0  # and the caller's to write
    assert exe.variables["a"][0] == steps + 1


# ---------------------------------------------------------------- item 7: threads

def test_executables_of_one_graph_first_run_from_threads_at_once():
    """The fused kernels' strategy trials are shared by every executable of a graph."""
    failures = []
    for r in range(12):
        n = fused.SMALL + 64 * r  # a fresh shape: the strategy is chosen again
        x = fnp.placeholder((n,), "float32", name="x")
        g = fgraph.optimise(fgraph.Graph(fnp.tanh(x * 2.0 + 1.0) * x))
        exes = [fgraph.compile(g) for _ in range(4)]
        feed = np.linspace(-1, 1, n, dtype="float32")
        want = np.tanh(feed * np.float32(2.0) + np.float32(1.0)) * feed
        start = threading.Barrier(len(exes))

        def work(exe):
            try:
                start.wait()
                for _ in range(20):
                    np.testing.assert_allclose(exe(x=feed), want, rtol=1e-6)
            except BaseException as e:  # reported by the test
                failures.append(e)

        threads = [threading.Thread(target=work, args=(e,)) for e in exes]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not failures, failures[:3]


def test_one_executable_stepped_from_many_threads():
    """Every call sees one consistent state and advances it by one step."""
    w0 = np.arange(1000.0) - 500.0  # integers: every sum below is exact
    c = fnp.variable(np.array(0.0), name="c")
    w = fnp.variable(w0, name="w")
    x = fnp.placeholder((), name="x")
    exe = _compile([c * 1.0, w * 2.0, fnp.sum(w) + x], {c: c + 1.0, w: w + 1.0})
    n_threads, calls = 4, 100
    results, failures = [], []

    def work(k):
        try:
            for j in range(calls):
                feed = float(k * calls + j)
                results.append((feed,) + tuple(exe(x=feed)))
        except BaseException as e:  # reported by the test
            failures.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[:3]
    assert sorted(float(r[1]) for r in results) == list(range(n_threads * calls))  # each call one step
    for feed, step, twice, total in results:
        np.testing.assert_array_equal(twice, 2.0 * (w0 + step))
        assert total == np.sum(w0 + step) + feed
    _assert_state(exe, {"c": np.array(float(n_threads * calls)), "w": w0 + n_threads * calls})

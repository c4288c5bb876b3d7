"""The Device layer, and the engines' independence of the device.

The generic engine (``ArrayEngine``: arena plan + Executable + Program +
evaluate's memoisation) runs on a second device that is not NumpyDevice: a
host device that counts every call and keeps its arenas in ``bytearray``s.
Its results must equal the NumPy engine's, and the counts show the engine
goes through the interface (one allocation per compiled graph, none while
running; one view per arena tensor; transfers only for feeds and state).
"""
import numpy as np
import pytest
from hypothesis import given, settings
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.devices import Device, NumpyDevice, current, use
from fgraph.engines.cupy_engine import CupyEngine
from fgraph.engines.numpy_engine import ArrayEngine
from random_programs import build, feeds, programs


class CountingDevice:
    """A host device of its own: arenas are bytearrays, every call is counted."""

    name = "counting"
    xp = np

    def __init__(self):
        self.calls = {"asarray": 0, "to_host": 0, "allocate": 0, "view": 0, "synchronize": 0}
        self.arenas = []

    def asarray(self, x, dtype=None):
        self.calls["asarray"] += 1
        return np.asarray(x, dtype=dtype)

    def to_host(self, x):
        self.calls["to_host"] += 1
        return np.array(x)  # a copy: what a transfer makes

    def allocate(self, nbytes):
        self.calls["allocate"] += 1
        buf = np.frombuffer(bytearray(max(int(nbytes), 1)), dtype=np.uint8)
        self.arenas.append(buf)
        return buf

    def view(self, arena, offset, shape, dtype):
        self.calls["view"] += 1
        assert any(arena is a for a in self.arenas), "a view of memory this device did not allocate"
        dt = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        assert offset % dt.alignment == 0 and offset + n <= arena.size
        return arena[offset:offset + n].view(dt).reshape(shape)

    def synchronize(self):
        self.calls["synchronize"] += 1


def test_devices_implement_the_interface():
    """Every member the Device protocol declares, exercised for what it promises
    (an isinstance check against a Protocol only sees that the names exist)."""
    members = {m for m in vars(Device) if not m.startswith("_")} | set(Device.__annotations__)
    for dev in (NumpyDevice(), CountingDevice()):
        assert members <= set(dir(dev)), members - set(dir(dev))
        assert isinstance(dev.name, str) and dev.xp is np
        x = dev.asarray([1.0, 2.0], dtype="float32")
        assert x.dtype == np.float32 and dev.asarray(x, dtype="float32") is x  # no copy of what is one already
        assert isinstance(dev.to_host(x), np.ndarray) and dev.to_host(x).tolist() == [1.0, 2.0]
        arena = dev.allocate(64)
        v = dev.view(arena, 16, (2, 2), "float64")
        v[...] = 7.0
        assert np.shares_memory(v, arena) and (dev.view(arena, 16, (4,), "float64") == 7.0).all()
        dev.synchronize()


def test_numpy_device_views_share_the_arena():
    dev = NumpyDevice()
    arena = dev.allocate(256)
    a = dev.view(arena, 0, (4, 4), "float32")
    b = dev.view(arena, 64, (2, 3), "int64")
    z = dev.view(arena, 128, (0, 3), "float64")
    a[...] = 1.5
    b[...] = 7
    assert np.shares_memory(a, arena) and np.shares_memory(b, arena) and z.shape == (0, 3)
    assert a.flags.c_contiguous and a.dtype == np.float32 and (b == 7).all() and (a == 1.5).all()
    assert dev.to_host(a) is not None and dev.asarray([1, 2]).dtype == np.int64
    dev.synchronize()


def test_current_device_is_the_host_unless_an_engine_makes_one_current():
    assert current().xp is np
    dev = CountingDevice()
    with use(dev):
        assert current() is dev
        with use(NumpyDevice()) as inner:
            assert current() is inner
        assert current() is dev
    assert current() is not dev


class CountingEngine(ArrayEngine):
    name = "counting"


def _graph():
    x = fnp.placeholder((8, 5), "float32", name="x")
    w = fnp.variable(np.linspace(-1, 1, 15, dtype="float32").reshape(5, 3), name="w")
    b = fnp.asarray(np.arange(3, dtype="float32"))
    h = fnp.tanh(x @ w + b)
    loss = (h ** 2).mean()
    return fgraph.Graph(outputs=[h, loss, h.sum(axis=0) * 2], updates={w: w - 0.1 * fgraph.grad(loss, w)})


@pytest.mark.parametrize("optimise", [False, True])
def test_generic_engine_on_another_device_matches_numpy(optimise):
    g = _graph()
    if optimise:
        g = fgraph.optimise(g)
    dev = CountingDevice()
    exe = CountingEngine(dev).compile(g)
    ref = fgraph.compile(g)
    assert dev.calls["allocate"] == 1  # one arena for the whole graph
    # one view per tensor in the arena, and one per kernel workspace
    assert dev.calls["view"] == sum(exe._plan.storage) + len(exe._plan.workspaces())
    compiled = dict(dev.calls)
    x = np.random.default_rng(0).normal(size=(8, 5)).astype("float32")
    for _ in range(3):
        got, want = exe(x=x), ref(x=x)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(exe.variables["w"], ref.variables["w"])
    runs = {k: dev.calls[k] - compiled[k] for k in dev.calls}
    assert runs["allocate"] == 0 and runs["view"] == 0  # running allocates no arena
    assert runs["asarray"] == 0  # the feed is an array of this device already: no transfer
    assert compiled["asarray"] >= 1  # the variable's value, put on the device at compile


def test_generic_engine_evaluate_memoises_through_the_device():
    dev = CountingDevice()
    eng = CountingEngine(dev)
    t = fnp.sin(fnp.asarray(np.arange(6.0))) * 2
    (r1,) = eng.evaluate([t.node])
    (r2,) = eng.evaluate([t.node])
    assert r1 is r2  # kept for t, the lazy array that points at it
    np.testing.assert_array_equal(r1, np.sin(np.arange(6.0)) * 2)


@settings(max_examples=examples(25))
@given(programs())
def test_random_programs_on_another_device(prog):
    inputs, steps = prog
    eager, lazy, phs = build(inputs, steps)
    g = fgraph.optimise(fgraph.Graph(lazy[len(inputs):] or lazy, inputs=phs))
    dev = CountingDevice()
    got = CountingEngine(dev).compile(g)(**feeds(inputs))
    want = fgraph.compile(g)(**feeds(inputs))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert dev.calls["allocate"] == 1


def test_cupy_engine_machinery_on_a_counting_device():
    """The CuPy engine's own parts (constants uploaded once, to_host) on a host device."""
    dev = CountingDevice()
    g = _graph()
    exe = CupyEngine(device=dev).compile(fgraph.optimise(g), to_host=True)
    ref = fgraph.compile(g)
    x = np.ones((8, 5), "float32")
    before = dict(dev.calls)
    for _ in range(2):
        got, want = exe(x=x), ref(x=x)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    assert dev.calls["to_host"] - before["to_host"] == 2 * 3  # every output, every run
    assert dev.calls["asarray"] - before["asarray"] == 0  # constants went up once, at compile
    assert before["asarray"] >= 2  # the constant and the variable


def test_cupy_engine_without_cupy_or_gpu_says_which_is_missing():
    from fgraph.devices.cupy_device import unavailable

    reason = unavailable()
    if reason is None:
        pytest.skip("CuPy and a GPU are present here")
    g = fgraph.Graph(fnp.placeholder((2,), "float32", name="x") + 1)
    with pytest.raises(fgraph.FgraphError, match="cupy engine needs an NVIDIA GPU through CuPy: .*(CuPy|GPU)"):
        fgraph.compile(g, engine="cupy")
    with pytest.raises(fgraph.FgraphError, match="CuPy"):
        fgraph.make(engine="cupy")

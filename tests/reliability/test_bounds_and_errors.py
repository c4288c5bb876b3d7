"""Issue 16, items 8 and 9: memory stays within its stated bounds, and the
mistakes that used to surface as NumPy's or protobuf's errors (or as a
silently wrong size) are FgraphErrors naming what went wrong and where.

- the result cache counts the bytes an entry really keeps alive and evicts
  at its bound;
- a tiny ONNX model asking for a huge ConstantOfShape or Range loads at
  once, with the fill as a lazy node;
- a steady-state run allocates its outputs and nothing else;
- corrupt ONNX bytes, too new an opset, an arena beyond the machine's
  memory and a shape whose size overflows int64 are refused, by name.
"""
from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp
from fgraph.bench.timing import peak_bytes
from fgraph.cache import ResultCache, held_bytes
from fgraph.engines import get_engine

from steady import run_until_settled

onnx = pytest.importorskip("onnx", reason="the ONNX cases need the onnx package (the 'onnx' extra)")
import fgraph.onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402


def _line_of(text: str) -> int:
    """The line of this file holding ``text``, besides the call asking (where an error must point)."""
    src, _ = inspect.getsourcelines(inspect.getmodule(_line_of))
    return next(k for k, line in enumerate(src, 1) if text in line and "_line_of(" not in line)


# ---------------------------------------------------------------- 8a: the result cache's bound

def test_result_cache_counts_scalars_as_what_they_hold_and_evicts_at_the_bound(monkeypatch):
    engine = get_engine("numpy")
    bound = 32 << 10
    monkeypatch.setattr(engine, "cache", ResultCache(bound))  # the engine's own cache class, a smaller bound
    base = fnp.asarray(np.arange(100_000, dtype=np.float64))
    each = None
    for i in range(1000):
        before = len(engine.cache)
        float((base * float(i)).sum())  # a 0-d result: memoised by structural key
        if each is None:
            each = engine.cache.nbytes
            assert each >= 96, f"a cached 0-d array counted as {each} bytes, not what it holds"
        if len(engine.cache) == before:  # the first eviction
            break
    # eviction starts exactly when one more scalar would pass the bound
    assert before == bound // each and i == bound // each
    assert engine.cache.nbytes <= bound
    assert engine.cache.nbytes == sum(held_bytes(v) for v in engine.cache._items.values())


def test_result_cache_counts_a_buffer_that_is_not_an_array():
    blob = bytes(80_000)
    scalar = np.frombuffer(blob, dtype=np.float64)[:1].reshape(())  # keeps all 80 kB alive
    assert held_bytes(scalar) >= len(blob)
    c = ResultCache(max_bytes=100_000)
    c.put("a", scalar)
    c.put("b", np.frombuffer(bytes(80_000), dtype=np.float64)[3:4])
    assert len(c) == 1 and c.peek("b") is not None and c.nbytes <= 100_000


# ---------------------------------------------------------------- 8b: huge creation ops stay lazy

def _creation_model(node, out_shape, inits, opset=17):
    g = helper.make_graph([node], "creation", [], [helper.make_tensor_value_info("y", node_dtype(node), out_shape)],
                          initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m.SerializeToString()


def node_dtype(node):
    return TensorProto.INT64 if node.op_type == "Range" else TensorProto.FLOAT


def _constant_of_shape(shape, value=1.5):
    node = helper.make_node("ConstantOfShape", ["shape"], ["y"],
                            value=helper.make_tensor("v", TensorProto.FLOAT, [1], [value]))
    return _creation_model(node, list(shape), [helper.make_tensor("shape", TensorProto.INT64, [len(shape)], shape)])


def _range(start, limit, delta):
    node = helper.make_node("Range", ["start", "limit", "delta"], ["y"])
    inits = [helper.make_tensor(n, TensorProto.INT64, [], [v]) for n, v in
             (("start", start), ("limit", limit), ("delta", delta))]
    return _creation_model(node, [max(-(-(limit - start) // delta), 0)] if delta else None, inits)


def test_a_tiny_onnx_model_asking_for_a_huge_fill_loads_without_allocating_it():
    model = _constant_of_shape([10**6, 10**6])
    assert len(model) < 200
    got = {}
    peak = peak_bytes(lambda: got.setdefault("g", fgraph.onnx.load(model)))
    assert peak < 1 << 20, f"loading a {len(model)}-byte model allocated {peak:,} bytes"
    (y,) = got["g"].outputs
    assert y.shape == (10**6, 10**6) and y.dtype == np.float32 and y.op != "constant"
    huge = _range(0, 10**12, 1)
    peak = peak_bytes(lambda: got.__setitem__("r", fgraph.onnx.load(huge)))
    assert peak < 1 << 20 and got["r"].outputs[0].shape == (10**12,)
    # it allocates only if it runs, and a run that cannot fit is refused at compile (item 9)
    with pytest.raises(MemoryError, match=r"ConstantOfShape.*\(1000000, 1000000\) float32: 3\.64 TiB"):
        fgraph.compile(got["g"])


@pytest.mark.parametrize("shape", [(300, 300), (2, 3)])  # above the folding cap, and folded
def test_constant_of_shape_lazy_or_folded_equals_numpy(shape):
    g = fgraph.onnx.load(_constant_of_shape(list(shape), 0.25))
    out = fgraph.compile(g)()["y"]
    np.testing.assert_array_equal(out, np.full(shape, 0.25, np.float32))
    assert out.dtype == np.float32


@pytest.mark.parametrize("start,limit,delta", [(3, 200_003, 2), (7, -200_000, -3), (0, 10, 3), (5, 5, 1)])
def test_range_lazy_or_folded_equals_numpy(start, limit, delta):
    g = fgraph.onnx.load(_range(start, limit, delta))
    out = fgraph.compile(g)()["y"]
    np.testing.assert_array_equal(out, np.arange(start, limit, delta, dtype=np.int64))
    assert out.dtype == np.int64


def test_range_with_zero_delta_is_refused():
    with pytest.raises(fgraph.FgraphError, match="Range.*non-zero delta"):
        fgraph.onnx.load(_range(0, 10, 0))


# ---------------------------------------------------------------- 8c: a run allocates its outputs only

def _attention(n=512, d=256):
    """softmax(q @ k.T) @ v + q over placeholders: a (512, 256) float64 output, 1 MiB."""
    q, k, v = (fnp.placeholder((n, d), "float64", name=s) for s in "qkv")
    s = q @ k.T
    e = fnp.exp(s - s.max(axis=-1, keepdims=True))
    out = (e / e.sum(axis=-1, keepdims=True)) @ v + q
    rng = np.random.default_rng(0)
    feeds = {s: rng.standard_normal((n, d)) * 0.1 for s in "qkv"}
    return out, feeds


@pytest.mark.parametrize("optimise", [False, True])
def test_steady_state_attention_call_allocates_its_output_only(optimise):
    out, feeds = _attention()
    g = fgraph.Graph(outputs=out)
    exe = fgraph.compile(fgraph.optimise(g) if optimise else g)
    run_until_settled(lambda: exe(**feeds))  # strategies chosen (their trials allocate scratch), scratch made
    kept = []
    peak = peak_bytes(lambda: kept.append(exe(**feeds)))
    assert kept[0].nbytes == 1 << 20
    # the output, and Python's bookkeeping in the kilobytes (no copy of it, no temporary)
    assert peak <= kept[0].nbytes + 16 * 1024, f"a call allocated {peak:,} bytes for a {kept[0].nbytes:,}-byte output"


def test_steady_state_attention_run_of_steps_allocates_one_output_at_a_time():
    out, feeds = _attention()
    exe = fgraph.compile(fgraph.Graph(outputs=out))
    run_until_settled(lambda: exe.run(steps=2, **feeds))  # (strategy trials allocate scratch of their own)
    peak = peak_bytes(lambda: exe.run(steps=3, **feeds))
    assert peak <= (1 << 20) + 16 * 1024, f"run(steps=3) allocated {peak:,} bytes for a 1 MiB output"


# ---------------------------------------------------------------- 9: errors, by name

@pytest.mark.parametrize("blob", [np.random.default_rng(0).bytes(300), b"not an onnx model at all", b"\xff" * 64],
                         ids=["random", "text", "0xff"])
def test_corrupt_onnx_bytes_raise_fgraph_error(blob):
    with pytest.raises(fgraph.FgraphError, match=f"cannot parse the {len(blob)} bytes given as an ONNX model"):
        fgraph.onnx.load(blob)


def test_corrupt_onnx_file_raises_fgraph_error_naming_it(tmp_path):
    good = _constant_of_shape([2, 2])
    path = tmp_path / "truncated.onnx"
    path.write_bytes(good[: len(good) // 2] + b"\xff" * 40)
    with pytest.raises(fgraph.FgraphError, match=re.escape(repr(str(path)))):
        fgraph.onnx.load(str(path))


def test_onnx_opset_newer_than_the_importer_reads_is_refused_naming_both():
    m = onnx.load_from_string(_constant_of_shape([2, 2]))
    m.opset_import[0].version = 99
    with pytest.raises(fgraph.FgraphError, match=rf"opset 99 is newer .*opset 7 to {fgraph.onnx.MAX_OPSET}\)"):
        fgraph.onnx.load(m)
    with pytest.raises(fgraph.FgraphError, match="opset 99"):
        fgraph.onnx.load(m.SerializeToString())
    m.opset_import[0].version = fgraph.onnx.MAX_OPSET  # the newest it reads still loads
    assert fgraph.onnx.load(m).outputs[0].shape == (2, 2)


def test_compiling_a_graph_beyond_the_machines_memory_names_its_largest_values():
    x = fnp.placeholder((10**6,), "float32", name="x")
    big = fnp.full((10**6, 10**6), 1.5, dtype="float32") * x
    y = big.sum(axis=1)
    line = _line_of('big = fnp.full((10**6, 10**6), 1.5, dtype="float32") * x')
    kept = []
    with pytest.raises(fgraph.FgraphError) as info:
        peak_bytes(lambda: kept.append(fgraph.compile(fgraph.Graph(outputs=y))))  # the compile line
    assert isinstance(info.value, MemoryError)  # `except MemoryError` still catches it
    msg = str(info.value)
    assert re.search(r"arena 3\.64 TiB \(4,000,000,000,000 B\)", msg), msg
    assert re.search(r"multiply \(1000000, 1000000\) float32: 3\.64 TiB .*made at .*test_bounds_and_errors\.py:"
                     rf"{line}", msg), msg
    assert "full (1000000, 1000000) float32" in msg and f"test_bounds_and_errors.py:{_line_of('# the compile line')}" in msg
    # refused before the arena is allocated
    peak = peak_bytes(lambda: pytest.raises(MemoryError, fgraph.compile, fgraph.Graph(outputs=y)))
    assert peak < 1 << 20


def test_the_run_memory_bound_counts_arena_and_fresh_outputs(monkeypatch):
    import fgraph.engines.arena as arena

    x = fnp.placeholder((512, 512), "float64", name="x")  # 2 MiB values
    g = fgraph.Graph(outputs=fnp.tanh(x @ x) + 1)
    need = fgraph.compile(g).memory.arena_bytes + (2 << 20)  # one intermediate in the arena, the output fresh
    monkeypatch.setattr(arena, "MAX_RUN_BYTES", need)
    np.testing.assert_allclose(fgraph.compile(g)(x=np.eye(512)), np.tanh(np.eye(512)) + 1)
    monkeypatch.setattr(arena, "MAX_RUN_BYTES", need - 1)
    with pytest.raises(MemoryError, match=re.escape(f"needs {arena.format_bytes(need)}") + r".*\(an output\)"):
        fgraph.compile(g)


@pytest.mark.parametrize("shape,dtype", [((2**63,), "int8"), ((2**61,), "float64"), ((2**32, 2**32), "float32")])
def test_placeholder_whose_size_overflows_int64_is_refused(shape, dtype):
    line = _line_of("fnp.placeholder(shape, dtype)  # the line the error names")
    with pytest.raises(fgraph.ShapeError) as info:
        fnp.placeholder(shape, dtype)  # the line the error names
    msg = str(info.value)
    assert msg.startswith(f"placeholder: shape {shape} of {dtype}"), msg
    assert f"test_bounds_and_errors.py:{line}" in msg
    assert isinstance(info.value, ValueError)


def test_placeholder_at_the_int64_edge_is_accepted_and_reshapes_with_its_true_size():
    p = fnp.placeholder((2**62,), "int8")  # 2**62 bytes: an intp counts it
    assert p.size == 2**62 and p.reshape((2**31, -1)).shape == (2**31, 2**31)

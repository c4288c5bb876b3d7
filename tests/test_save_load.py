"""fgraph.save / fgraph.load: saved graphs load with the same structure and
results, and every malformed file is refused with an FgraphError.

Round trips: random programs (raw and optimised), one small graph per op
family (every registered op is reached: a test checks the registry), special
param values, sub-graphs, variables with updates; files of earlier versions
(graph ``attrs``: checked, then ignored).  A loaded graph has the
original's structural keys (``Node.key``) and computes bit-identical results.

Refusals: truncated files, random bytes, flipped bytes, mutated JSON
(hypothesis), unknown versions, ops, tags and fields, wrong JSON types,
forward references, mismatched shapes and dtypes, missing arrays, lying
sizes (zip bombs), deep nesting; loading runs no code and allocates no more
than the file's size justifies (tracemalloc).
"""
import copy
import io
import json
import math
import struct
import subprocess
import sys
import textwrap
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph import serialize
from fgraph.registry import registered_ops
from random_programs import build, feeds, programs

# ---------------------------------------------------------------- helpers


def dump(g, **kw) -> bytes:
    buf = io.BytesIO()
    fgraph.save(g, buf, **kw)
    return buf.getvalue()


def load_bytes(data: bytes, **kw):
    return fgraph.load(io.BytesIO(data), **kw)


def members(data: bytes) -> tuple[dict, bytes]:
    """(graph.json as a dict, arrays.npz bytes) of a saved file."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return json.loads(zf.read("graph.json")), zf.read("arrays.npz")


def pack(doc, npz: bytes, extra=(), json_text: bytes | None = None) -> bytes:
    """A saved file from parts (the JSON as given, not checked)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("graph.json", json_text if json_text is not None else json.dumps(doc))
        zf.writestr(zipfile.ZipInfo("arrays.npz"), npz)
        for name, data in extra:
            zf.writestr(name, data)
    return buf.getvalue()


def npz_of(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def refused(data: bytes, match: str | None = None, **kw) -> fgraph.FgraphError:
    """Loading ``data`` raises an FgraphError (any other exception fails the
    test) that is not a bug of the loader's own."""
    with pytest.raises(fgraph.FgraphError, match=match) as info:
        load_bytes(data, **kw)
    e = info.value
    assert str(e).startswith("fgraph.load"), str(e)
    cause = e.__cause__
    if cause is not None and "not valid for the op" not in str(e):  # a shape rule may fail any way on bad params
        assert not isinstance(cause, (AttributeError, NameError, AssertionError, ZeroDivisionError)), repr(cause)
    return e


def same_graph(g, h) -> None:
    """h is g node for node: keys, ops, params, shapes, dtypes, names, locations."""
    a, b = g.nodes(), h.nodes()
    assert len(a) == len(b)
    for m, n in zip(a, b):
        assert (m.op, m.shape, m.dtype, m.dtype.char, m.weak, m.name) == \
               (n.op, n.shape, n.dtype, n.dtype.char, n.weak, n.name), (m, n)
        assert m.key == n.key, (m, m.params, n.params)
        assert m.params == n.params
        assert m.where == n.where or m.where is None
    assert g.key == h.key and g.structure == h.structure
    assert [n.key for n in g.inputs] == [n.key for n in h.inputs]
    assert [(x.key, y.key) for x, y in g.updates] == [(x.key, y.key) for x, y in h.updates]


def results(g, feed, steps=1):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        exe = fgraph.compile(g)
        out = exe.run(steps=steps, **feed) if steps > 1 else exe(**feed)
        return out, {k: np.array(v) for k, v in exe.variables.items()}


def leaves(x):
    if isinstance(x, dict):
        return [v for k in x for v in leaves(x[k])]
    if isinstance(x, (list, tuple)):
        return [v for e in x for v in leaves(e)]
    return [x]


def bitwise_equal(a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.dtype, a.shape, b.dtype, b.shape)
    assert a.tobytes() == b.tobytes(), (a, b)


def same_results(g, h, feed, steps=1) -> None:
    (r1, v1), (r2, v2) = results(g, feed, steps), results(h, feed, steps)
    for a, b in zip(leaves(r1), leaves(r2), strict=True):
        bitwise_equal(a, b)
    assert v1.keys() == v2.keys()
    for k in v1:
        bitwise_equal(v1[k], v2[k])


def round_trip(g, feed=None, **kw):
    """Save and load ``g``: same graph, same results; returns the loaded one."""
    before = snapshot(g)
    data = dump(g, **kw)
    h = load_bytes(data)
    assert snapshot(g) == before  # saving changed nothing
    same_graph(g, h)
    if feed is not None:
        same_results(g, h, feed)
    assert members(dump(h, **kw))[0] == members(data)[0]  # and saving it again gives the same JSON
    return h


def snapshot(g):
    """Everything a save could change in place."""
    out = [g.key, g.outputs, g.inputs, g.updates, g.structure]
    for n in g.nodes():
        out.append((id(n), n.key, n.params, n.inputs, n.shape, n.dtype, n.name, n.where))
        for _, v in n.params:
            if type(v) is serialize.Const:
                out.append((v.array.tobytes(), v.array.flags.writeable))
    return out


rng = np.random.default_rng(11)


def r(*shape, dtype="float64"):
    return rng.uniform(-3, 3, shape).astype(dtype)


def ints(*shape, lo=0, hi=4, dtype="int64"):
    return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)


def phs(*arrays):
    return [fnp.placeholder(a.shape, a.dtype, name=f"in{i}") for i, a in enumerate(arrays)]


# ---------------------------------------------------------------- random programs

@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prog=programs(), optimise=st.booleans())
def test_random_graphs_round_trip(prog, optimise):
    inputs, steps = prog
    _, lazy, ph = build(inputs, steps)
    g = fgraph.Graph(lazy, inputs=ph)
    if optimise:
        g = fgraph.optimise(g)
    round_trip(g, feeds(inputs))


# ---------------------------------------------------------------- every op

def _ufunc_cases():
    """Each registered op that is a NumPy ufunc, on float, int or bool inputs
    (the first its dtype rules accept)."""
    cases = {}
    for op in registered_ops():
        u = getattr(np, op, None)
        if not isinstance(u, np.ufunc) or not hasattr(fnp, op):
            continue
        for dt in ("float64", "int64", "bool"):
            arrays = [(r(3, 4) if dt == "float64" else ints(3, 4, lo=1)).astype(dt) for _ in range(u.nin)]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    getattr(fnp, op)(*phs(*arrays))
            except fgraph.FgraphError:
                continue
            cases[f"ufunc-{op}"] = (lambda xp, *a, _op=op: getattr(xp, _op)(*a), arrays)
            break
    return cases


def _nn_cases():
    from fgraph import nn
    from fgraph.ops.nn import max_pool2d_select

    x, w = r(2, 3, 6, 6), r(4, 3, 3, 3)

    def conv(xp, x, w):
        y = nn.conv2d(x, w, stride=1, padding=1)
        t = nn.conv_transpose2d(y, w, stride=2, padding=1, output_padding=1)
        m = nn.max_pool2d(y, 2, stride=2)
        a = nn.avg_pool2d(y, 3, stride=1, padding=1)
        loss = (t ** 2).sum() + (m * m).sum() + (a * a).sum() + nn.erf(y).sum()
        gx, gw = fgraph.grad(loss, (x, w))  # the backward ops
        sel = max_pool2d_select(y, m, y * 2, **dict(m.node.params))  # (made by second derivatives)
        return [loss, gx, gw, sel, nn.random_uniform(fnp.asarray(np.uint64(7)), (2, 3))]

    return {"nn": (conv, [x, w])}


def _extra_cases():
    """Ops the CuPy engine's cases leave out, through their public functions
    where they have one, else the function that makes them."""
    from fgraph.ops.checks import checked
    from fgraph.ops.elementwise import make_complex
    from fgraph.ops.indexing import scatter_add
    from fgraph.ops.movement import _slice
    from fgraph.symbol import make_node
    from fgraph.tensor import literal_node

    s = (lambda a: a @ a.T + 3 * np.eye(3))(r(3, 3))

    def reductions(xp, a):
        return [xp.all(a > 0, axis=1), xp.min(a, axis=0, initial=5.0), xp.argmin(a, axis=1), xp.cumprod(a, axis=0),
                xp.nansum(a, dtype="float32"), xp.nanprod(a, axis=1), xp.nanmean(a), xp.nanvar(a, ddof=1),
                xp.nanstd(a, axis=0), xp.nanmin(a), xp.nanargmax(a, axis=1), xp.nanargmin(a), xp.nancumprod(a, axis=1),
                xp.nanpercentile(a, 40.0, axis=1), xp.sum(a, axis=(), keepdims=True)]

    def linalg(xp, s, v):
        t4 = xp.reshape(s @ s, (3, 3, 1))
        return [xp.diagonal(s, 1), xp.inner(v, v), xp.vdot(v, v), xp.cross(v, v[::-1]),
                xp.linalg.eig(s.astype(complex))[1], xp.linalg.eigh(s)[0], xp.linalg.eigvals(s.astype(complex)),
                xp.linalg.lstsq(s, v, rcond=None)[0],
                xp.linalg.qr(s)[0], xp.linalg.slogdet(s)[1], xp.linalg.tensorinv(xp.reshape(s, (3, 3)), ind=1),
                xp.linalg.tensorsolve(xp.reshape(s, (3, 3)), v), t4.sum()]

    def sorting(xp, a, c):
        return [xp.argpartition(a, 1, axis=1), xp.sort_complex(c)]

    def complexes(xp, a, c):
        return [xp.real(c), xp.imag(c), xp.conjugate(c), make_complex(a, a[::-1]), xp.fix(a * 2.5)]

    def fft(xp, a):
        return [xp.fft.fft(a), xp.fft.rfft(a, n=6, axis=0, norm="ortho"), xp.fft.irfft(xp.fft.rfft(a)),
                xp.correlate(a[0], a[1], "full")]

    def indexing(xp, a, i):
        b = a + 0
        b[1] = 7.0  # setitem
        b[:, ::2] *= 2
        c = a[i, :2] + a[[0, 2]].sum()  # advanced indexing
        d = xp.zeros((3, 4))
        xp.add.at(d, (i, i), 1.0)  # ufunc_at
        return [b, c, d, xp.subtract.reduce(a, axis=0), xp.maximum.accumulate(a, axis=1),
                xp.add.reduceat(a, [0, 2], axis=1), xp.hypot.reduce(a, axis=None, initial=-1.0),
                scatter_add(a[:, :3], [i], (3, 5), (None, "a"))]

    def writes(xp, a, i):
        # (x[m] ** 2 kept lazy: ops.selection makes these from concrete values only)
        masked = fgraph.Tensor(make_node("ufunc_where", [(a > 0.5).node, a.node, literal_node(2.0)],
                                         (("ufunc", "power"), ("dtype", a.dtype), ("params", ()))))
        return [a.view("int64"), checked(a, a < 100, "test", "too big"), _slice(a, 1, 1, 3), masked]

    def fused(xp, a, b, c):
        return [a * b + c, a - (0.1 * b) / xp.sqrt(c + 1e-8)]  # fma and adagrad (fuse_patterns)

    return {"reductions": (reductions, [r(3, 4)]), "linalg": (linalg, [s, r(3)]),
            "sorting": (sorting, [r(3, 4), r(5) + 1j * r(5)]), "complex": (complexes, [r(3, 4), r(3, 4) + 1j]),
            "fft": (fft, [r(3, 4)]), "indexing": (indexing, [r(3, 4), ints(3, hi=2)]),
            "writes": (writes, [r(3, 4), ints(2)]), "fused": (fused, [r(3, 4), r(3, 4), r(3, 4) ** 2])}


def _control_cases():
    """Loops and branches (params holding sub-graphs), where fgraph has them."""
    if "while_loop" not in registered_ops():
        return {}

    def control(xp, x, k):
        w = fgraph.while_loop(lambda v: v[1] < 4, lambda v: (v[0] * 1.5 + x, v[1] + 1), (x, xp.asarray(0)))
        s = fgraph.scan(lambda c, row: (c + row, c * row), x, xp.stack([x, -x, x * 2]))
        b = fgraph.switch(k, [lambda v: v + 1.0, lambda v: v * x], x)
        return [w[0], s[0], s[1], b]

    return {"control": (control, [r(3), np.asarray(1)])}


def _cupy_cases():
    """The CuPy engine's table of cases: they reach most ops with a kernel."""
    from test_cupy_engine import CASES

    return {f"cupy-{name}": (fn, arrays) for name, fn, arrays, _, _ in CASES if fn is not None}


OP_CASES = {**_cupy_cases(), **_ufunc_cases(), **_nn_cases(), **_extra_cases(), **_control_cases()}


def _case_graph(fn, arrays):
    p = phs(*arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(fnp, *p)
    outs = [o for o in leaves(out) if isinstance(o, fgraph.Tensor)]
    return fgraph.Graph(outs, inputs=p), {f"in{i}": a for i, a in enumerate(arrays)}


def variants(g):
    """The graph as built, optimised (fused groups) and with pattern fusion alone (fma, adagrad)."""
    from fgraph.optimiser import fuse_patterns

    return [g, fgraph.optimise(g), fuse_patterns(g)]


@pytest.mark.parametrize("name", sorted(OP_CASES))
def test_op_families_round_trip(name):
    g, feed = _case_graph(*OP_CASES[name])
    for v in variants(g):
        round_trip(v, feed)


def test_every_registered_op_is_covered():
    """Each op of the registry appears in some case above (a new op needs a
    case in OP_CASES), so every op's params have been through a round trip."""
    seen = {"variable"}  # (test_variables_and_updates_round_trip)
    for fn, arrays in OP_CASES.values():
        g, _ = _case_graph(fn, arrays)
        seen |= {n.op for v in variants(g) for n in v.nodes()}
    missing = sorted(set(registered_ops()) - seen)
    assert not missing, f"ops without a save/load case (add one to OP_CASES): {missing}"


def test_variables_and_updates_round_trip():
    x = fnp.placeholder((5, 3), "float32", name="x")
    w = fnp.variable(r(3, 2, dtype="float32"), name="w")
    cache = fnp.variable(np.zeros((3, 2), "float32"), name="cache")
    big = fnp.variable(r(40, 40), name="big")  # keyed by identity: a new constant when loaded
    loss = (fnp.tanh(x @ w) ** 2).mean()
    gw = fgraph.grad(loss, w)
    c2 = cache + gw * gw
    g = fgraph.Graph({"loss": loss, "w": [w]}, updates={w: w - 0.1 * gw / fnp.sqrt(c2 + 1e-8), cache: c2})
    feed = {"x": r(5, 3, dtype="float32")}
    h = round_trip(g, feed)
    same_results(g, h, feed, steps=5)
    assert [v.name for v, _ in h.updates] == ["w", "cache"]
    # dtype codes that npy files merge ('q' and 'l' are both <i8) come back as saved
    q = fnp.variable(np.arange(3, dtype="q"), name="q")
    gq = fgraph.Graph([q + fnp.asarray(np.arange(3, dtype="q")), fnp.asarray(np.ones(2, "L"))], updates={q: q * 2})
    assert {n.dtype.char for n in gq.nodes() if n.op in ("constant", "variable")} == {"q", "L"}
    round_trip(gq, {})
    # a large array keeps its data and dtype, though not its identity key
    g2 = fgraph.Graph(big * 2.0)
    h2 = load_bytes(dump(g2))
    bitwise_equal(h2.inputs[0].param("value").array, g2.inputs[0].param("value").array)
    same_results(g2, h2, {})
    for compress in (False, True):
        h3 = load_bytes(dump(g, compress=compress, locations=False))
        assert all(n.where is None or n.op != "placeholder" for n in h3.nodes())
        same_results(g, h3, feed, steps=3)


def test_equal_constants_share_one_member_and_deep_graphs_load():
    """Small constants equal by content are written once; a chain of
    thousands of nodes saves and loads without recursion."""
    x = fnp.placeholder((2,), "float64", name="x")
    y = x
    for i in range(3000):
        y = fnp.sin(y) * np.float64(i % 3)
    g = fgraph.Graph(y)
    data = dump(g)
    with zipfile.ZipFile(io.BytesIO(members(data)[1])) as npz:
        assert len(npz.namelist()) == 3
    h = round_trip(g, {"x": r(2)})
    assert len(h.nodes()) == len(g.nodes()) == 9001  # (each constant its own node)


def test_fresh_ids_follow_the_loaded_ones():
    """A placeholder made after a load never shares an id with a loaded one."""
    g = fgraph.Graph(fnp.placeholder((2,), "float64") * 2)
    doc, npz = members(dump(g))
    ph = doc["graph"]["nodes"][0]
    assert ph["op"] == "placeholder"
    ph["params"][1][1] = 10 ** 12 + 5
    h = load_bytes(pack(doc, npz))
    assert h.inputs[0].param("id") == 10 ** 12 + 5
    assert fnp.placeholder((1,), "float64").node.param("id") > 10 ** 12 + 5


# ---------------------------------------------------------------- params of every kind

SPECIALS = [0.0, -0.0, math.nan, -math.nan, struct.unpack(">d", bytes.fromhex("7ff8000000000abc"))[0], math.inf,
            -math.inf, 5e-324, 1.5, complex(-0.0, math.nan), complex(math.inf, -0.0), True, False, 0, -1, -2,
            2 ** 70, None, "", "é\u2603", (), ((1, (2, None)), "a"), slice(1, None, -2), Ellipsis,
            frozenset({1, "a", (2, 3)}), np.dtype("float32"), np.dtype(">i4"), np.dtype("q"), np.dtype("l"),
            np.dtype("g"), np.float32(-0.0), np.float64(math.nan), np.int8(-3), np.uint64(2 ** 64 - 1),
            np.bool_(True), np.longdouble("1.1"), np.complex64(1 - 2j), serialize.Scalar(-0.0),
            serialize.Scalar(np.float32(1.5)), serialize.Scalar(None), serialize.Scalar(True), serialize.Scalar(1),
            serialize.Const(np.arange(6, dtype=">f8").reshape(2, 3)), serialize.Const(np.zeros((0, 3), "?"))]


def _exact(v):
    """A comparable form telling apart what == merges (0.0 and -0.0, NaN payloads, 1 and True)."""
    if isinstance(v, tuple):
        return ("tuple",) + tuple(_exact(e) for e in v)
    if isinstance(v, frozenset):
        return ("frozenset", frozenset(_exact(e) for e in v))
    if isinstance(v, slice):
        return ("slice", _exact(v.start), _exact(v.stop), _exact(v.step))
    if isinstance(v, np.dtype):
        return ("dtype", v.str, v.char)
    if isinstance(v, np.generic):
        return ("np", type(v), v.tobytes() if v.dtype.kind != "f" or v.dtype.itemsize <= 8 else repr(v))
    if isinstance(v, serialize.Scalar):
        return ("scalar", _exact(v.value))
    if isinstance(v, serialize.Const):
        return ("const", v.array.dtype.str, v.array.dtype.char, v.array.shape, v.array.tobytes())
    return serialize.symbol.exact_key(v)


def value_round_trip(value):
    """``value`` as a param value: through save's encoder (``_Writer.value``,
    what ``save`` writes for each node param), the JSON text and the npz
    member as ``save`` writes them, and load's decoder (``_Reader.value``)."""
    w = serialize._Writer(locations=False)
    enc = w.value(value, 1)
    buf = io.BytesIO()
    np.savez(buf, **w.arrays)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as npz:
        arrays = serialize._Arrays(npz, {i.filename: i for i in npz.zip.infolist()}, "test")
        text = json.dumps(enc, separators=(",", ":"), allow_nan=False).encode("utf-8")
        reader = serialize._Reader(arrays, "test")
        out = reader.value(serialize._parse_json(text, "test"), 1, "v")
        assert arrays.used == set(w.arrays)
    return out, enc


def holding(value):
    """A graph of one node whose params hold ``value`` beside an op's own
    (as a registered op's params may hold anything hashable): what save
    writes for it."""
    x = fnp.placeholder((2,), "float64", name="x")
    node = serialize.Node("negative", (("v", value),), (x.node,), x.shape, x.dtype)
    return fgraph.Graph(fgraph.Tensor(node))


@pytest.mark.parametrize("value", SPECIALS, ids=[f"{k}-{type(v).__name__}" for k, v in enumerate(SPECIALS)])
def test_every_kind_of_param_round_trips_exactly(value):
    """Param values through the encoder and decoder of params: the exact
    value comes back, sign of zero, NaN payload, dtype code and type
    included; a node holding it is saved with that very encoding."""
    back, enc = value_round_trip(value)
    assert _exact(back) == _exact(value)
    try:
        g = holding(value)
    except TypeError:  # unhashable (a slice before Python 3.12): no node can hold it
        return
    doc, npz = members(dump(g))
    assert doc["graph"]["nodes"][-1]["params"] == [["v", enc]]
    with np.load(io.BytesIO(npz)) as arrays:  # its array (a constant's) saved beside the node
        assert sorted(arrays.files) == (["a0"] if type(value) is serialize.Const else [])


def test_unsaveable_params_are_refused_when_saving():
    for bad in (object(), [1, 2], {"a": 1}, b"bytes", np.dtype([("a", "f8")]), np.str_("s"),
                serialize.Const(np.array(["a"]))):
        with pytest.raises(fgraph.FgraphError, match="fgraph.save: .*(no saved form)"):
            serialize._Writer(locations=False).value(bad, 1)
        if type(bad) in (list, dict):  # unhashable: no node can hold it, the encoder alone sees it
            continue
        with pytest.raises(fgraph.FgraphError, match="fgraph.save: .*(no saved form)"):
            dump(holding(bad))
    deep = ()
    for _ in range(serialize.MAX_DEPTH + 2):
        deep = (deep,)
    with pytest.raises(fgraph.FgraphError, match="nest more than"):
        serialize._Writer(locations=False).value(deep, 1)
    with pytest.raises(fgraph.FgraphError, match="nest more than"):
        dump(holding(deep))
    dump(holding(deep[0][0][0]))  # the control: three levels less is saved
    with pytest.raises(fgraph.FgraphError, match="expected an fgraph.Graph"):
        fgraph.save(fnp.ones(3), io.BytesIO())


@pytest.mark.skipif("switch" not in registered_ops(), reason="no control-flow ops")
def test_graph_valued_params_round_trip():
    """A param may hold graphs (a switch's branches: a tuple of graphs), and
    a graph so held may hold more (a loop in a branch holds its body): they
    are saved inside the nodes' params, their arrays beside the others, and
    load with their keys."""
    x = fnp.placeholder((3,), "float64", name="x")
    i = fnp.placeholder((), "int32", name="i")

    def plain(v):
        return v * np.arange(3.0) + 1.0

    def looped(v):
        return fgraph.fori_loop(0, 2, lambda k, c: c * 2.0 + np.arange(3.0), plain(v))

    g = fgraph.Graph(fgraph.switch(i, [plain, looped], x) - 1.0)
    h = round_trip(g, {"x": r(3), "i": np.int32(1)})
    same_results(g, h, {"x": r(3), "i": np.int32(0)})
    (s,), (t,) = ([n for n in k.nodes() if n.op == "switch"] for k in (g, h))
    assert type(t.param("branches")) is tuple and t.param("branches") == s.param("branches")
    assert t.param("branches")[0] is not s.param("branches")[0]
    (loop,), (loaded,) = ([n for n in k.param("branches")[1].nodes() if n.op in ("scan", "while_loop")]
                          for k in (s, t))
    assert loaded.param("body").key == loop.param("body").key
    same_graph(loop.param("body"), loaded.param("body"))
    branch = t.param("branches")[0]
    feed = {p.name: (np.ones(3) if p.name.endswith("in0") else np.arange(3.0)) for p in branch.inputs}
    out = fgraph.compile(branch)(**feed)
    np.testing.assert_array_equal(out[0], [1.0, 2.0, 3.0])


@pytest.mark.skipif("while_loop" not in registered_ops(), reason="no control-flow ops")
def test_a_loops_body_is_written_once():
    """A loop makes one node per result, all holding its body: the file
    holds it once, and the loaded nodes share one body again."""
    x = fnp.placeholder((3,), "float64", name="x")
    out = fgraph.while_loop(lambda v: v[2] < 3, lambda v: (v[0] + x, v[1] * 2.0, v[2] + 1), (x, x, fnp.asarray(0)))
    g = fgraph.Graph(list(out))
    doc, _ = members(dump(g))
    assert len(doc["subgraphs"]) == 2  # cond and body, not one pair per result
    h = round_trip(g, {"x": r(3)})
    loops = [n for n in h.nodes() if n.op == "while_loop"]
    assert len(loops) == 3 and len({id(n.param("body")) for n in loops}) == 1


def test_graph_valued_params_of_a_registered_op():
    """In a fresh interpreter (the registry is global): an op whose param is
    a graph, registered there, saves, loads and rebuilds through its rule."""
    code = textwrap.dedent("""
        import io, numpy as np, fgraph, fgraph.numpy as fnp
        from fgraph.symbol import make_node

        def rule(inputs, body):
            return body.outputs[0].shape, body.outputs[0].dtype

        fgraph.register_op("apply_body", infer=rule)
        x = fnp.placeholder((2,), "float32", name="x")
        body = fgraph.Graph(fnp.sin(x) + np.float32(2), inputs=[x])
        a = fnp.placeholder((2,), "float32", name="a")
        g = fgraph.Graph(fgraph.Tensor(make_node("apply_body", [a.node], (("body", body),))) * 3)
        buf = io.BytesIO(); fgraph.save(g, buf); buf.seek(0)
        h = fgraph.load(buf)
        assert [n.key for n in h.nodes()] == [n.key for n in g.nodes()]
        assert h.nodes()[1].param("body") == body and h.nodes()[1].param("body") is not body
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# ---------------------------------------------------------------- refusals

def _sample():
    """A small graph with every part of the format: arrays, a literal, a
    variable, an update, a dict structure."""
    x = fnp.placeholder((2, 3), "float32", name="x")
    w = fnp.variable(np.ones((3,), "float32"), name="w")
    y = fnp.tanh(x * w + np.arange(3, dtype="float32")) + 1.5
    return fgraph.Graph({"y": y, "s": [fnp.sum(y, axis=0)]}, updates={w: w * 0.5})


SAMPLE = dump(_sample())
DOC, NPZ = members(SAMPLE)


def _node_index(doc, op):
    return next(i for i, n in enumerate(doc["graph"]["nodes"]) if n["op"] == op)


def mutated(fn):
    doc = copy.deepcopy(DOC)
    fn(doc)
    return pack(doc, NPZ)


def test_the_sample_loads():
    g = _sample()
    same_graph(g, load_bytes(dump(g)))
    load_bytes(SAMPLE)
    assert DOC["format"] == "fgraph.graph" and DOC["version"] == 1


def _set(path, value):
    def fn(doc):
        d = doc
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
    return fn


REFUSALS = [
    ("version", _set(("version",), 2), "unknown format version 2"),
    ("version-type", _set(("version",), "1"), "version '1' is not an integer"),
    ("format", _set(("format",), "onnx"), "not a saved fgraph graph"),
    ("top-field", _set(("extra",), 1), r"unknown field\(s\) \['extra'\]"),
    ("graph-field", _set(("graph", "extra"), []), r"unknown field\(s\) \['extra'\]"),
    ("graph-missing", lambda d: d["graph"].pop("updates"), r"missing field\(s\) \['updates'\]"),
    ("node-field", lambda d: d["graph"]["nodes"][0].update(kernel="os.system"), r"unknown field\(s\) \['kernel'\]"),
    ("unknown-op", lambda d: d["graph"]["nodes"][-1].update(op="frobnicate"), "unknown op 'frobnicate'"),
    ("code-op", lambda d: d["graph"]["nodes"][-1].update(op="os.system"), "unknown op 'os.system'"),
    ("code-tag", lambda d: d["graph"]["nodes"][-1]["params"].append(["x", ["os.system", "ls"]]),
     "unknown value tag 'os.system'"),
    ("pickle-tag", lambda d: d["graph"]["nodes"][-1]["params"].append(["x", ["pickle", "gASVAAAAAAAAAACMAm9zlC4="]]),
     "unknown value tag 'pickle'"),
    ("object-dtype", lambda d: d["graph"]["nodes"][0].update(dtype=["O", "|"]), "dtype must be"),
    ("dtype-string", lambda d: d["graph"]["nodes"][0].update(dtype="float32"), "dtype must be"),
    ("shape-type", lambda d: d["graph"]["nodes"][0].update(shape="2,3"), "shape must be"),
    ("shape-negative", lambda d: d["graph"]["nodes"][0].update(shape=[-2, 3]), "shape must be"),
    ("shape-bool", lambda d: d["graph"]["nodes"][0].update(shape=[True, 3]), "shape must be"),
    ("inputs-type", lambda d: d["graph"]["nodes"][-1].update(inputs="0"), "inputs must be an array"),
    ("forward", lambda d: d["graph"]["nodes"][2].update(inputs=[0, 5]), "not the index of an earlier node"),
    ("self-cycle", lambda d: d["graph"]["nodes"][3].update(inputs=[3, 3]), "not the index of an earlier node"),
    ("index-bool", lambda d: d["graph"]["nodes"][3].update(inputs=[True, 0]), "not the index of an earlier node"),
    ("output-range", lambda d: d["graph"]["outputs"].append(99), "output 99 is not a node index"),
    ("shape-mismatch", lambda d: d["graph"]["nodes"][-1].update(shape=[7]), r"the op makes .* the file says"),
    ("dtype-mismatch", lambda d: d["graph"]["nodes"][-1].update(dtype=["d", "="]), r"the op makes .* the file says"),
    ("leaf-shape", lambda d: d["graph"]["nodes"][_node_index(d, "constant")].update(shape=[5]),
     r"the array is float32\[3\], the node says"),
    ("missing-array", lambda d: d["graph"]["nodes"][_node_index(d, "constant")]["params"][0].__setitem__(
        1, ["array", "a9"]), "array 'a9' is not in arrays.npz"),
    ("array-name-type", lambda d: d["graph"]["nodes"][_node_index(d, "constant")]["params"][0].__setitem__(
        1, ["array", 0]), "array 0 is not in arrays.npz"),
    ("bare-float", lambda d: d["graph"]["nodes"][-1]["params"].append(["x", 1.5]), "bare JSON number"),
    ("bad-bits", lambda d: d["graph"]["nodes"][-1]["params"].append(["x", ["float", "1.5"]]), "16 hex digits"),
    ("tag-arity", lambda d: d["graph"]["nodes"][-1]["params"].append(["x", ["tuple"]]), r"\[tag, payload\]"),
    ("param-pair", lambda d: d["graph"]["nodes"][-1]["params"].append("axis"), r"\[name, value\] pair"),
    ("params-object", lambda d: d["graph"]["nodes"][-1].update(params={}), "params must be an array"),
    ("update-var", lambda d: d["graph"]["updates"][0].__setitem__(0, d["graph"]["updates"][0][1]), "not a variable"),
    ("update-pair", lambda d: d["graph"]["updates"].append([1]), r"\[variable, value\] pair"),
    ("input-kind", lambda d: d["graph"]["inputs"].append(len(d["graph"]["nodes"]) - 1),
     "is not a placeholder or variable"),
    ("structure", _set(("graph", "structure"), ["tuple", ["*", "*"]]), "not an outputs structure"),
    ("structure-count", _set(("graph", "structure"), "*"), "the structure has 1 outputs, the graph 2"),
    ("literal-weak", lambda d: d["graph"]["nodes"][_node_index(d, "literal")].update(weak=False), "is weak"),
    ("nonleaf-weak", lambda d: d["graph"]["nodes"][-1].update(weak=True), "only leaves"),
    ("placeholder-params", lambda d: d["graph"]["nodes"][0]["params"].pop(), r"params must be \['name', 'id'\]"),
    ("id-range", lambda d: d["graph"]["nodes"][0]["params"][1].__setitem__(1, 1 << 64), "must be an int64"),
    ("huge-placeholder", lambda d: d["graph"]["nodes"][0].update(shape=[2 ** 40, 2 ** 40]), "more than an array"),
    ("where-type", lambda d: d["graph"]["nodes"][0].update(where="here"), r"where must be \[file, line\]"),
    ("name-type", lambda d: d["graph"]["nodes"][0].update(name=3), "name must be a string"),
    ("op-params", lambda d: d["graph"]["nodes"][-1]["params"].append(["bogus", 1]), "refuses the saved params"),
    ("param-twice", lambda d: d["graph"]["nodes"][_node_index(d, "placeholder")]["params"].append(["id", 3]),
     "a param name repeats"),
    ("graph-type", _set(("graph",), []), "expected an object, got an array"),
    ("inline-graph", lambda d: d["graph"]["nodes"][-1]["params"].append(["g", ["graph", {"nodes": 5}]]),
     "not an earlier entry"),
    ("graph-ref", lambda d: d["graph"]["nodes"][-1]["params"].append(["g", ["graph", 0]]), "not an earlier entry"),
    # the attrs of files written before graphs lost them: still checked as they were
    ("attrs-type", _set(("graph", "attrs"), {}), "'attrs' must be an array"),
    ("attr-pair", _set(("graph", "attrs"), [["k"]]), r"an attr must be a \[key, value\] pair"),
    ("attr-twice", _set(("graph", "attrs"), [["k", 1], ["k", 2]]), "attr 'k' appears twice"),
    ("attr-tag", _set(("graph", "attrs"), [["k", ["pickle", "gASV"]]]), "unknown value tag 'pickle'"),
    ("attr-float", _set(("graph", "attrs"), [["k", 1.5]]), "bare JSON number"),
    ("attr-graph-ref", _set(("graph", "attrs"), [["g", ["graph", 0]]]), "not an earlier entry"),
    ("subgraphs-type", _set(("subgraphs",), {}), "'subgraphs' must be an array"),
    ("subgraphs-missing", lambda d: d.pop("subgraphs"), r"no \['subgraphs'\]"),
]


@pytest.mark.parametrize("name, fn, match", REFUSALS, ids=[x[0] for x in REFUSALS])
def test_malformed_json_is_refused(name, fn, match):
    refused(mutated(fn), match)


def _with_old_attrs(doc, attrs):
    """``doc`` as fgraph wrote it before graphs lost their attrs: every graph
    (sub-graphs too) with an ``attrs`` field, the main graph's ``attrs``."""
    doc = copy.deepcopy(doc)
    for rec in doc["subgraphs"]:
        rec["attrs"] = []
    doc["graph"]["attrs"] = attrs
    return doc


def test_files_with_graph_attrs_still_load():
    """Files saved before graphs lost their attrs: the field is checked as
    before (its values decoded through the same whitelist) and ignored; the
    graph saves again without it."""
    g = load_bytes(SAMPLE)  # (the sample's own placeholders: its ids)
    old = _with_old_attrs(DOC, [["name", "sample"], ["v", ["float", _FLOAT_ONE]], [["tuple", [1, 2]], ["tuple", []]],
                                ["c", ["array", "a0"]], ["e", ["ellipsis", None]]])
    h = load_bytes(pack(old, NPZ))
    same_graph(g, h)
    assert not hasattr(h, "attrs") and not hasattr(fgraph.Graph, "with_attrs")
    assert members(dump(h))[0] == DOC  # saved again: the same file, without attrs
    same_results(g, h, {"x": r(2, 3, dtype="float32")}, steps=2)
    assert "attrs" not in json.dumps(DOC)  # save writes none

    if "while_loop" in registered_ops():  # a loop's body (a sub-graph) with attrs, and a sub-graph only attrs name
        x = fnp.placeholder((3,), "float64", name="x")
        out = fgraph.while_loop(lambda v: v[1] < 3, lambda v: (v[0] * 2.0 + x, v[1] + 1), (x, fnp.asarray(0)))
        loop = fgraph.Graph(list(out))
        doc, npz = members(dump(loop))
        old = _with_old_attrs(doc, [["body", ["graph", len(doc["subgraphs"]) - 1]],
                                    ["extra", ["graph", len(doc["subgraphs"])]]])
        old["subgraphs"][0]["attrs"] = [["k", ["tuple", [["slice", [1, None, -1]], ["complex", [_FLOAT_ONE] * 2]]]]]
        old["subgraphs"].append(dict(copy.deepcopy(old["subgraphs"][0]), attrs=[]))  # named by the attrs alone
        h = load_bytes(pack(old, npz))  # (a sub-graph the attrs name counts as used)
        same_graph(loop, h)
        assert members(dump(h))[0] == doc  # saved again: without the attrs and the sub-graph only they named
        same_results(loop, h, {"x": r(3)})
        old["graph"]["attrs"].pop()
        refused(pack(old, npz), r"subgraphs \[2\] are not used")

    # a key that does not hash is refused, as before (a slice: hashable from Python 3.12)
    try:
        hash(slice(1, 2))
    except TypeError:
        refused(pack(_with_old_attrs(DOC, [[["slice", [1, 2, None]], 1]]), NPZ), "attr key .* is unhashable")
    else:
        load_bytes(pack(_with_old_attrs(DOC, [[["slice", [1, 2, None]], 1]]), NPZ))
    refused(pack(_with_old_attrs(DOC, [["k", 1], ["k", 2]]), NPZ), "attr 'k' appears twice")
    refused(pack(_with_old_attrs(DOC, [[1, 1], [True, 2]]), NPZ), "appears twice")  # (equal keys, as in a dict)


def test_unused_and_unknown_members_are_refused():
    extra = npz_of(a0=np.ones(3, "float32"), a1=np.ones(3, "float32"), a7=np.zeros(2))
    refused(pack(DOC, extra), r"array\(s\) \['a7'\] that no node uses")
    refused(pack(DOC, NPZ, extra=[("evil.py", b"import os")]), r"unknown member\(s\) \['evil.py'\]")
    refused(pack(DOC, npz_of(a0=np.ones(3, "float32"), b=np.ones(3))), "unexpected member 'b.npy'")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("graph.json", json.dumps(DOC))
    refused(buf.getvalue(), r"member\(s\) \['arrays.npz'\] missing")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zipfile warns of the duplicate it is asked to write)
        twice = pack(DOC, NPZ, extra=[("graph.json", b"{}")])
    refused(twice, "appears twice")


def test_json_syntax_is_refused():
    for text, match in [(b"{", "corrupt"), (b"\xff\xfe", "corrupt"), (b"[" * 100000 + b"]" * 100000, "too deep|nest"),
                        (b'{"format": NaN}', "NaN is not JSON"), (b'{"a": 1, "a": 2}', "key twice"),
                        (b"1" * 10000, "corrupt"), (b"null", "holds null")]:
        refused(pack(None, NPZ, json_text=text), match, max_bytes=10 ** 7)  # (past the ratio check: the parser)


def test_deeply_nested_params_are_refused():
    v = 0
    for _ in range(serialize.MAX_DEPTH + 5):
        v = ["tuple", [v]]
    refused(mutated(lambda d: d["graph"]["nodes"][-1]["params"].append(["x", v])), "nest more than")


@pytest.mark.skipif("switch" not in registered_ops(), reason="no control-flow ops")
def test_chains_of_sub_graphs_load_and_cycles_are_refused():
    """Graphs held in params (here a switch's branches), written by hand."""
    # sub-graphs name earlier ones: a chain of any length decodes without recursion, a cycle cannot be written
    chain = [_leaf_graph()] + [_switch_on(k) for k in range(2000)]
    h = load_bytes(pack(_document(chain, _switch_on(len(chain) - 1)), npz_of()))
    depth, g = 0, h
    while g.outputs[0].op == "switch":  # each graph's switch holds the one before (iteratively: no recursion)
        g = g.outputs[0].param("branches")[0]
        depth += 1
    assert depth == len(chain) and g.outputs[0].op == "literal"
    text = fgraph.describe(h, max_lines=40)  # listed without recursion too
    assert len(text.splitlines()) <= 43 and "elided" in text and "branches[0] = {" in text
    assert str(h).count("switch") == len(chain)
    for cyc in ([_switch_on(0)], [_leaf_graph(), _switch_on(2), _leaf_graph()]):
        refused(pack(_document(cyc, _switch_on(len(cyc) - 1)), npz_of()), "not an earlier entry of subgraphs")
    refused(pack(_document([_leaf_graph(), _leaf_graph()], _switch_on(1)), npz_of()), r"subgraphs \[0\] are not used")


def _leaf_graph():
    """A saved graph of one output, the literal 1.0."""
    return {"nodes": [{"op": "literal", "params": [["value", ["scalar", ["float", _FLOAT_ONE]]]], "inputs": [],
                       "shape": [], "dtype": ["d", "="], "weak": True}],
            "inputs": [], "outputs": [0], "structure": "*", "updates": []}


_FLOAT_ONE = struct.pack(">d", 1.0).hex()


def _switch_on(k):
    """A saved graph whose one output is a switch with sub-graph ``k`` as its only branch."""
    params = [["branches", ["tuple", [["graph", k]]]], ["n_operands", 0], ["splits", ["tuple", [0]]], ["output", 0]]
    return {"nodes": [{"op": "literal", "params": [["value", ["scalar", 0]]], "inputs": [], "shape": [],
                       "dtype": ["l", "="], "weak": True},
                      {"op": "switch", "params": params, "inputs": [0], "shape": [], "dtype": ["d", "="]}],
            "inputs": [], "outputs": [1], "structure": "*", "updates": []}


def _document(subgraphs, graph):
    return {"format": "fgraph.graph", "version": 1, "subgraphs": subgraphs, "graph": graph}


@pytest.mark.skipif("switch" not in registered_ops(), reason="no control-flow ops")
def test_switch_graphs_written_by_hand_load():
    """The control for the hand-written documents above: a two-deep one loads and runs."""
    h = load_bytes(pack(_document([_leaf_graph(), _switch_on(0)], _switch_on(1)), npz_of()))
    assert float(fgraph.compile(h)()) == 1.0


def _npy(header: dict, payload: bytes, version=(1, 0)) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, header) if version == (1, 0) else \
        np.lib.format.write_array_header_2_0(buf, header)
    return buf.getvalue() + payload


def _npz_raw(**members) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name + ".npy", data)
    return buf.getvalue()


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_huge_declared_shapes_allocate_nothing():
    """An npy header declaring 8 TB in a member of 24 bytes is refused
    before numpy allocates it."""
    for shape in [(10 ** 12,), (2 ** 62, 4), (3,)]:
        hdr = {"descr": "<f4", "fortran_order": False, "shape": shape}
        ok = {"descr": "<f4", "fortran_order": False, "shape": (3,)}
        npz = _npz_raw(a0=_npy(hdr, b"\0" * 12), a1=_npy(ok, b"\0" * 12))
        data = pack(DOC, npz)
        if shape == (3,):  # the control: a consistent header loads
            load_bytes(data)
            continue
        peak = _peak(lambda: refused(data, "declares shape"))
        assert peak < 2 ** 20, peak
    bad = [({"descr": "|O", "fortran_order": False, "shape": (3,)}, b"\0" * 24, "dtype object"),
           ({"descr": [("a", "<f4")], "fortran_order": False, "shape": (3,)}, b"\0" * 12, "has dtype"),
           ({"descr": "<f4", "fortran_order": False, "shape": (4,)}, b"\0" * 12, "declares shape")]
    for hdr, payload, match in bad:
        refused(pack(DOC, _npz_raw(a0=_npy(hdr, payload), a1=_npy(hdr, payload))), match)


def _lie_about_size(data: bytes, name: bytes, size: int) -> bytes:
    """``data`` with member ``name``'s uncompressed size set to ``size`` in
    its local header and the central directory."""
    b = bytearray(data)
    for sig, off, name_len_at in ((b"PK\x03\x04", 22, 26), (b"PK\x01\x02", 24, 28)):
        i = b.find(sig)
        while i >= 0:
            n = struct.unpack("<H", b[i + name_len_at:i + name_len_at + 2])[0]
            hdr = 30 if sig == b"PK\x03\x04" else 46
            if bytes(b[i + hdr:i + hdr + n]) == name:
                b[i + off:i + off + 4] = struct.pack("<I", size)
            i = b.find(sig, i + 4)
    return bytes(b)


def test_zip_bombs_are_refused_before_decompressing():
    bomb = _lie_about_size(SAMPLE, b"graph.json", 2 ** 31)
    peak = _peak(lambda: refused(bomb, "zip bomb"))
    assert peak < 2 ** 20, peak
    # a member that really inflates 1000:1 is read no further than it declares
    real = pack(None, NPZ, json_text=b" " * (20 * 2 ** 20))
    refused(real, "max_bytes", max_bytes=2 ** 20)
    peak = _peak(lambda: refused(_lie_about_size(real, b"graph.json", 100), "corrupt"))
    assert peak < 2 ** 20, peak
    refused(SAMPLE, "max_bytes", max_bytes=100)
    # JSON parses to some 20 times its text: by default graph.json may inflate 200:1, not a deflate bomb's 1000:1
    empty = pack(None, NPZ, json_text=b"[" + b"[]," * 2_000_000 + b"[]]")
    peak = _peak(lambda: refused(empty, "more than 200:1; pass max_bytes"))
    assert peak < 2 ** 20, peak
    refused(empty, "holds an array", max_bytes=10 ** 8)  # (parsed, as asked, then refused)
    assert load_bytes(SAMPLE, max_bytes=len(SAMPLE) * 10)


def test_other_compression_and_encryption_are_refused():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_BZIP2) as zf:
        zf.writestr("graph.json", json.dumps(DOC))
        zf.writestr("arrays.npz", NPZ)
    refused(buf.getvalue(), "compression method 12")
    b = bytearray(SAMPLE)  # set the encrypted flag on every member
    for sig, off in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        i = b.find(sig)
        while i >= 0:
            b[i + off] |= 1
            i = b.find(sig, i + 4)
    refused(bytes(b), "encrypted")


def test_truncated_files_are_refused():
    for cut in range(0, len(SAMPLE), max(1, len(SAMPLE) // 300)):
        refused(SAMPLE[:cut])


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=2000))
def test_random_bytes_are_refused(data):
    assert _peak(lambda: refused(data)) < LOAD_PEAK


#: the most a load of the 2 kB sample, however mangled, may allocate
LOAD_PEAK = 16 * 2 ** 20


def _load_or_refuse(blob):
    try:
        load_bytes(blob)
    except fgraph.FgraphError:
        refused(blob)  # (checks what kind of error it is)


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_flipped_bytes_load_or_are_refused(data):
    b = bytearray(SAMPLE)
    for _ in range(data.draw(st.integers(1, 4))):
        b[data.draw(st.integers(0, len(b) - 1))] ^= data.draw(st.integers(1, 255))
    assert _peak(lambda: _load_or_refuse(bytes(b))) < LOAD_PEAK


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 2 ** 64) | st.text(max_size=5)
                    | st.sampled_from(["tuple", "float", "array", "graph", "scalar", "dtype", "a0", "*", "x"]),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=4), kids, max_size=3),
                    max_leaves=12)


def _paths(doc):
    """Every (container, key) in ``doc``, iteratively."""
    out, stack = [], [doc]
    while stack:
        d = stack.pop()
        items = d.items() if isinstance(d, dict) else enumerate(d) if isinstance(d, list) else ()
        for k, v in items:
            out.append((d, k))
            stack.append(v)
    return out


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_json_loads_or_is_refused(data):
    """Any field of a valid file replaced by any JSON value: the file loads
    (the change was valid) or is refused with an FgraphError."""
    doc = copy.deepcopy(DOC)
    for _ in range(data.draw(st.integers(1, 3))):
        container, key = data.draw(st.sampled_from(_paths(doc)))
        action = data.draw(st.sampled_from(["replace", "delete", "insert"]))
        if action == "replace":
            container[key] = data.draw(JSON)
        elif action == "delete":
            container.pop(key)
        elif isinstance(container, list):
            container.insert(key, data.draw(JSON))
        else:
            container[data.draw(st.text(max_size=6))] = data.draw(JSON)
    assert _peak(lambda: _load_or_refuse(pack(doc, NPZ))) < LOAD_PEAK


def test_loading_runs_no_code():
    """No unpickling, no subprocess, no exec, no import of a named module
    while loading files that name code (audit events, PEP 578)."""
    events = []
    watch = {"pickle.find_class", "os.system", "subprocess.Popen", "exec", "os.exec", "os.posix_spawn",
             "ctypes.dlopen", "import", "marshal.loads", "builtins.input"}

    def hook(event, args):
        if _AUDIT[0] and event in watch:
            events.append((event, args[:1]))

    if not _AUDIT[1]:
        sys.addaudithook(hook)  # (hooks cannot be removed: this one only listens while _AUDIT[0])
        _AUDIT[1] = True
    load_bytes(SAMPLE)  # (what a load imports the first time is not the file's doing)
    blobs = [SAMPLE]
    for op in ("os.system", "subprocess.Popen", "builtins.eval", "__import__"):
        blobs.append(mutated(lambda d, op=op: d["graph"]["nodes"][-1].update(op=op)))
        blobs.append(mutated(lambda d, op=op: d["graph"]["nodes"][-1]["params"].append(["x", [op, ["ls"]]])))
        blobs.append(mutated(lambda d, op=op: d["graph"]["nodes"][0].update(dtype=[op, "="])))
    pickled = _npy({"descr": "|O", "fortran_order": False, "shape": (1,)}, b"\x80\x04\x95")
    blobs.append(pack(DOC, _npz_raw(a0=pickled, a1=pickled)))
    _AUDIT[0] = True
    try:
        for blob in blobs:
            try:
                load_bytes(blob)
            except fgraph.FgraphError:
                pass
    finally:
        _AUDIT[0] = False
    assert events == []


_AUDIT = [False, False]  # (listening, hook installed)


def test_loaded_graphs_are_independent_values():
    """Loading twice gives equal graphs that share no node; the loaded
    graph's arrays are read-only and the file's bytes are not kept."""
    a, b = load_bytes(SAMPLE), load_bytes(SAMPLE)
    assert a.key == b.key
    assert not {id(n) for n in a.nodes()} & {id(n) for n in b.nodes()}
    for n in a.nodes():
        if n.op in ("constant", "variable"):
            assert not n.param("value").array.flags.writeable


def test_save_to_a_path_is_atomic(tmp_path, monkeypatch):
    g = _sample()
    path = tmp_path / "g.fgraph"
    fgraph.save(g, path)
    same_graph(g, fgraph.load(path))
    with pytest.raises(fgraph.FgraphError):
        fgraph.save(holding(object()), path)

    def disk_full(*args, **kw):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", disk_full)
    with pytest.raises(OSError, match="disk full"):
        fgraph.save(fgraph.Graph(g.outputs[0]), path)
    monkeypatch.undo()
    same_graph(g, fgraph.load(str(path)))  # the failed saves left the old file whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.fgraph"]
    with pytest.raises(fgraph.FgraphError, match=r"fgraph.load\('.*g.fgraph'\)"):
        path.write_bytes(SAMPLE[:100])
        fgraph.load(path)

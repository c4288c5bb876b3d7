"""Out-kernels of the movement ops against their plain kernels.

Each test builds a node through the public functions, evaluates its inputs,
and runs the op's ``numpy_kernel`` and ``numpy_out_kernel`` on them (as
given, and in other memory layouts the engine may pass: reversed, strided,
Fortran, broadcast): the out-kernel must return ``out`` itself, holding the
kernel's result bit for bit, and leave its inputs alone.  ``repeat`` runs
each of its three paths.  The ``view_strides`` attribute is checked against
the strides NumPy's own views get (and whether NumPy's reshape copies).  A
tracemalloc test checks the allocation-free claims on large arrays.
"""
import contextlib
import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.bench.timing import peak_bytes
from fgraph.ops import movement_kernels as kmov
from fgraph.ops.movement import _slice
from fgraph.shape import c_strides
from oracle import shapes

KERNEL = fgraph.attr_table("numpy_kernel")
OUT_KERNEL = fgraph.attr_table("numpy_out_kernel")
VIEW_STRIDES = fgraph.attr_table("view_strides")
DTYPES = [np.dtype(d) for d in ("bool", "int32", "int64", "float16", "float32", "float64", "complex128")]
VIEW_OPS = ["reshape", "transpose", "broadcast_to", "flip", "slice_axis"]


# ---------------------------------------------------------------- running both kernels

def _value(node):
    """An input as the engine passes it: a constant's array, a literal's Python scalar."""
    if node.op == "constant":
        return node.param("value").array
    if node.op == "literal":
        return node.param("value").value
    return np.asarray(fgraph.Tensor(node).eval())


def _reversed(x):
    v = np.empty_like(x)[(slice(None, None, -1),) * x.ndim]
    v[...] = x
    return v


def _strided(x):  # every other element of a larger buffer
    v = np.empty(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)[..., ::2]
    v[...] = x
    return v


def _broadcast(x):  # equal rows as a zero-stride (read-only) view, where x has them
    if x.shape[0] > 1 and (x == x[:1]).all():
        return np.broadcast_to(x[:1], x.shape)
    return x


LAYOUTS = [_reversed, _strided, np.asfortranarray, _broadcast]


def _variants(args):
    yield args
    if any(isinstance(a, np.ndarray) and a.ndim and a.size > 1 for a in args):
        for layout in LAYOUTS:
            yield [layout(a) if isinstance(a, np.ndarray) and a.ndim else a for a in args]


def same_bits(got, want):
    want = np.asarray(want)
    np.testing.assert_array_equal(got, want, strict=True)
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), "not bit-identical"


def run_both(t, args=None):
    """Kernel vs out-kernel of ``t``'s node, on its inputs in every layout."""
    node = t.node
    kernel, out_kernel = KERNEL[node.op], OUT_KERNEL[node.op]
    params = dict(node.params)
    args = [_value(i) for i in node.inputs] if args is None else args
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # casts (complex to real, NaN to int) warn alike in both
        for ins in _variants(args):
            want = np.asarray(kernel(*ins, **params))
            assert (want.shape, want.dtype) == (node.shape, node.dtype)
            before = [np.copy(x) for x in ins]
            for fill in (0x00, 0xA5):  # an element the out-kernel forgets shows up
                out = np.empty(node.shape, node.dtype)
                out.reshape(-1).view(np.uint8)[:] = fill
                assert out_kernel(*ins, out=out, **params) is out
                same_bits(out, want)
            for x, b in zip(ins, before):
                same_bits(x, b)


def _build(fn, *args, **kw):
    """The tensor, or None where fgraph (like NumPy) refuses the arguments."""
    try:
        return fn(*args, **kw)
    except fgraph.FgraphError:
        return None


# ---------------------------------------------------------------- strategies

def _elements(dtype):
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        return st.integers(-50, 50)
    width = 8 * dtype.itemsize // (2 if dtype.kind == "c" else 1)
    real = st.one_of(st.floats(-1e3, 1e3, width=width), st.sampled_from([0.0, -0.0, float("nan"), float("inf")]))
    return st.builds(complex, real, real) if dtype.kind == "c" else real


def data(dtype, shape):
    return hnp.arrays(dtype, shape, elements=_elements(dtype))


@st.composite
def concat_args(draw):
    ndim = draw(st.integers(1, 4))
    shape = list(draw(shapes(min_dims=ndim, max_dims=ndim, max_side=4)))
    axis = draw(st.integers(-ndim, ndim - 1))
    arrays = []
    for _ in range(draw(st.integers(1, 4))):
        shape[axis] = draw(st.integers(0, 4))
        arrays.append(draw(data(draw(st.sampled_from(DTYPES)), tuple(shape))))
    return arrays, axis


# ---------------------------------------------------------------- concatenate

@settings(max_examples=examples(200))
@given(args=concat_args(), dtype=st.sampled_from([None] + DTYPES),
       casting=st.sampled_from(["no", "equiv", "safe", "same_kind", "unsafe"]))
def test_concatenate(args, dtype, casting):
    arrays, axis = args
    t = _build(fnp.concatenate, [fnp.asarray(a) for a in arrays], axis=axis, dtype=dtype, casting=casting)
    if t is not None and t.node.op == "concatenate":
        run_both(t)


def test_concatenate_through_other_functions():
    """stack, hstack, vstack, column_stack, roll and pad end in a concatenate node."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = -np.arange(12, dtype=np.float64).reshape(3, 4)
    for t in (fnp.stack([a, b], axis=1), fnp.hstack([a, b]), fnp.vstack([a, b[:1]]), fnp.dstack([a, b]),
              fnp.column_stack([a[:, 0], b]), fnp.roll(a, 2, axis=1), fnp.pad(a, ((1, 0), (0, 2)), constant_values=7),
              fnp.stack([a, b], dtype=np.int32, casting="unsafe")):
        assert t.node.op == "concatenate"
        run_both(t)


# ---------------------------------------------------------------- repeat

@contextlib.contextmanager
def _forced(runs, block):
    """repeat's thresholds set to force one path."""
    saved = kmov.LOOP_RUNS, kmov.LOOP_BLOCK
    kmov.LOOP_RUNS, kmov.LOOP_BLOCK = runs, block
    try:
        yield
    finally:
        kmov.LOOP_RUNS, kmov.LOOP_BLOCK = saved


def run_repeat(t):
    """run_both with repeat's thresholds as shipped, then forcing the run loop,
    then the ``np.take`` path (which strided inputs leave for the fallback)."""
    assert t.node.op == "repeat"
    run_both(t)
    for runs, block in ((10**9, 0), (0, 10**12)):
        with _forced(runs, block):
            run_both(t)


@st.composite
def repeat_args(draw):
    dt = draw(st.sampled_from(DTYPES))
    a = draw(data(dt, draw(shapes(min_dims=0, max_dims=4, max_side=4))))
    axis = None if a.ndim == 0 or draw(st.booleans()) else draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.size if axis is None else a.shape[axis]
    counts = st.sampled_from([0, 1, 2, 3]) if draw(st.booleans()) else st.sampled_from([2, 3])  # runs, or not
    reps = draw(st.lists(counts, min_size=n, max_size=n))
    return a, reps, axis


@settings(max_examples=examples(150))
@given(args=repeat_args())
def test_repeat(args):
    a, reps, axis = args
    t = fnp.repeat(fnp.asarray(a), np.asarray(reps, dtype=np.intp), axis=axis)
    if t.node.op == "repeat":  # one count (a length-1 axis) broadcasts instead
        run_repeat(t)


def test_repeat_edges():
    """Empty axis, all counts zero, one long run, and many runs on a wide array."""
    x = np.arange(24.0).reshape(2, 3, 4)
    x[0, 0, 0] = -0.0
    cases = [(np.zeros((2, 0, 4)), [], 1), (x, [0, 0, 0], 1), (x, [5, 5, 5, 5], 2), (x, [0, 5], 0),
             (x, [1, 0, 2, 1], -1), (np.arange(40).reshape(20, 2), list(range(20)), 0),
             (np.array([True, False, True]), [4, 0, 1], 0)]
    for a, reps, axis in cases:
        t = fnp.repeat(fnp.asarray(a), np.asarray(reps, dtype=np.intp), axis=axis)
        run_repeat(t)


def test_repeat_plan_cache_is_bounded_and_by_identity():
    kmov._PLANS.clear()
    keep = [tuple(range(k % 5 + 2)) for k in range(kmov._PLANS_MAX + 10)]
    for r in keep:
        assert kmov._plan(r)[0] is r
    assert len(kmov._PLANS) == kmov._PLANS_MAX
    equal = tuple(list(keep[-1]))  # equal, not identical: its own entry, same runs
    assert kmov._plan(equal)[0] is equal
    np.testing.assert_array_equal(kmov._plan(equal)[1], kmov._plan(keep[-1])[1])


# ---------------------------------------------------------------- view ops

@st.composite
def view_case(draw):
    """A view op node over a constant, through the public functions."""
    dt = draw(st.sampled_from(DTYPES))
    a = draw(data(dt, draw(shapes(min_dims=0, max_dims=4, max_side=4))))
    x = fnp.asarray(a)
    op = draw(st.sampled_from(VIEW_OPS))
    if op == "reshape":
        return fnp.reshape(x, draw(st.sampled_from([(-1,), a.shape[::-1], (1,) + a.shape, (a.size, 1)])))
    if op == "transpose":
        return fnp.transpose(x, draw(st.permutations(range(a.ndim))))
    if op == "flip":
        return fnp.flip(x, draw(st.lists(st.integers(0, max(a.ndim - 1, 0)), unique=True)) if a.ndim else None)
    if op == "broadcast_to":
        shape = tuple(draw(st.integers(0, 3)) if d == 1 else d for d in a.shape)
        return fnp.broadcast_to(x, draw(shapes(max_dims=2, max_side=3)) + shape)
    if a.ndim == 0:
        return x
    axis = draw(st.integers(0, a.ndim - 1))
    return _slice(x, axis, draw(st.integers(-5, 5)), draw(st.none() | st.integers(-5, 5)),
                  draw(st.sampled_from([1, 2, -1, -3])))


@settings(max_examples=examples(200))
@given(t=view_case())
def test_view_ops(t):
    """The views' own out-kernels (for a planner that materialises a view)."""
    if t.node.op in VIEW_OPS:
        run_both(t)


def test_view_ops_on_literal_and_scalar_inputs():
    for t in (fnp.broadcast_to(3, (2, 3)), fnp.reshape(2.5, (1, 1)), fnp.expand_dims(True, 0)):
        run_both(t)
        run_both(t, args=[np.asarray(t.node.inputs[0].param("value").array)[()]])  # a NumPy scalar


def test_no_movement_op_is_in_place():
    inplace = fgraph.attr_table("inplace")
    assert not {"concatenate", "repeat", *VIEW_OPS} & set(inplace)


# ---------------------------------------------------------------- static layouts

def _norm(shape, strides):
    """What NumPy's behaviour depends on: strides of the axes longer than 1 (none at size 0)."""
    if 0 in shape:
        return ()
    return tuple(s for d, s in zip(shape, strides) if d != 1)


def _reshape_copies(x, shape) -> bool:
    try:
        np.reshape(x, shape, copy=False)
        return False
    except ValueError:
        return True


@st.composite
def view_chain(draw):
    """A chain of view nodes over a C-contiguous constant, through the public functions."""
    dt = draw(st.sampled_from([np.dtype("int8"), np.dtype("float64")]))
    shape = draw(shapes(max_dims=4, max_side=4) | shapes(min_dims=2, max_dims=4, min_side=2, max_side=4))
    a = np.arange(int(np.prod(shape))).astype(dt).reshape(shape)
    t = fnp.asarray(a)
    for _ in range(draw(st.integers(1, 8))):
        nd, s = t.ndim, t.shape
        kind = draw(st.sampled_from(["merge", "merge", "split", "unit", "ravel", "transpose", "transpose", "flip",
                                   "slice", "broadcast"]))
        if kind == "merge" and nd >= 2:
            k = draw(st.integers(0, nd - 2))
            t = fnp.reshape(t, s[:k] + (s[k] * s[k + 1],) + s[k + 2:])
        elif kind == "split" and nd >= 1:
            k = draw(st.integers(0, nd - 1))
            f = draw(st.sampled_from([d for d in range(1, s[k] + 1) if s[k] % d == 0] or [1]))
            t = fnp.reshape(t, s[:k] + (f, s[k] // f) + s[k + 1:])
        elif kind == "unit":
            t = fnp.expand_dims(t, draw(st.integers(0, nd))) if draw(st.booleans()) or 1 not in s else fnp.squeeze(t)
        elif kind == "ravel":
            t = fnp.ravel(t)
        elif kind == "transpose":
            t = fnp.transpose(t, draw(st.permutations(range(nd))))
        elif kind == "flip" and nd:
            t = fnp.flip(t, draw(st.integers(0, nd - 1)))
        elif kind == "slice" and nd:
            t = _slice(t, draw(st.integers(0, nd - 1)), draw(st.integers(-4, 4)), draw(st.none() | st.integers(-4, 4)),
                       draw(st.sampled_from([1, 2, -1, -2])))
        elif kind == "broadcast":
            t = fnp.broadcast_to(t, (draw(st.integers(1, 3)),) + tuple(draw(st.integers(1, 3)) if d == 1 else d for d in s))
    return t


@settings(max_examples=examples(300))
@given(t=view_chain())
def test_view_strides_match_numpy(t):
    """Run ``view_strides`` down the chain from the constant's C strides, as a
    planner would, beside NumPy's kernels: the strides agree, and a reshape
    gets None exactly when NumPy's reshape would copy (from then on the
    planner's copy is C-contiguous)."""
    chain, n = [], t.node
    while n.op != "constant":
        chain.append(n)
        n = n.inputs[0]
    x = n.param("value").array
    assert x.flags.c_contiguous
    strides = c_strides(x.shape, x.itemsize)
    for n in reversed(chain):
        predicted = VIEW_STRIDES[n.op](n, strides)
        if n.op == "reshape":
            assert (predicted is None) == _reshape_copies(x, n.shape), (x.shape, x.strides, n.shape)
        else:
            assert predicted is not None
        x = KERNEL[n.op](x, **dict(n.params))
        if predicted is None:
            strides = c_strides(n.shape, n.dtype.itemsize)  # the planner's own buffer
            x = np.ascontiguousarray(x)
        else:
            strides = predicted
            assert _norm(x.shape, x.strides) == _norm(n.shape, predicted), (n.op, x.strides, predicted)


def test_view_strides_examples():
    """The cases that matter to the planner: merging a transposed or broadcast
    axis copies (tile, repeat by one count, heads merged after a transpose,
    F-order ravel); splitting one, or merging contiguous axes, does not."""
    x = fnp.asarray(np.zeros((2, 3, 4, 5)))

    def copies(t):
        chain, n = [], t.node
        while n.op != "constant":
            chain.append(n)
            n = n.inputs[0]
        strides = c_strides(n.shape, n.dtype.itemsize)
        for n in reversed(chain):
            strides = VIEW_STRIDES[n.op](n, strides)
            if strides is None:
                return True
        return False

    assert copies(fnp.reshape(fnp.transpose(x, (0, 2, 1, 3)), (2, 4, 15)))
    assert copies(fnp.ravel(x, order="F"))
    assert copies(fnp.tile(fnp.asarray(np.zeros((3, 4))), (2, 1)))
    assert copies(fnp.repeat(fnp.asarray(np.zeros((3, 4))), 2, axis=1))
    assert copies(fnp.reshape(fnp.flip(x, 3), (2, 3, 20)))
    assert not copies(fnp.reshape(fnp.transpose(x, (0, 2, 1, 3)), (2, 4, 3, 5, 1)))
    assert not copies(fnp.reshape(fnp.transpose(x, (1, 0, 2, 3)), (3, 2, 20)))
    assert not copies(fnp.reshape(fnp.broadcast_to(fnp.asarray(np.zeros((1, 4))), (3, 4)), (3, 2, 2)))
    assert not copies(fnp.reshape(_slice(x, 0, 1, 2), (60,)))  # one leading row stays contiguous
    assert not copies(fnp.reshape(x, (6, 20)))


# ---------------------------------------------------------------- allocation

N = 1_000_000


def _peak(fn) -> int:
    fn()  # warm up (lazy imports; repeat's cached plan and index)
    return peak_bytes(fn)


def _out_peak(t, args=None) -> int:
    node = t.node
    args = [_value(i) for i in node.inputs] if args is None else args
    out = np.empty(node.shape, node.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _peak(lambda: OUT_KERNEL[node.op](*args, out=out, **dict(node.params)))


def test_allocation_free():
    """Traced peak of each allocation-free out-kernel: far below its output
    (each case's output is at least 1 MB; the peaks seen are under 1 kB)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N)
    m = x.reshape(1000, 1000)
    f32 = m.astype(np.float32)
    few = np.repeat([1, 3], 500)  # two runs: the run loop
    many = rng.integers(0, 4, 1000)  # ~750 runs of short rows: np.take
    many_1d = rng.integers(0, 4, N)
    cases = [
        (fnp.concatenate([m, m[::-1]], axis=0), None),
        (fnp.concatenate([m, f32.T, fnp.broadcast_to(f32[:1], (1000, 1000))], axis=1), None),  # casts, strided, broadcast
        (fnp.concatenate([m, m], axis=1, dtype=np.float32, casting="same_kind"), None),
        (fnp.repeat(m, few, axis=0), None), (fnp.repeat(m, few, axis=1), None),
        (fnp.repeat(m.T, few, axis=1), [np.ascontiguousarray(m).T]),  # the loop takes any layout
        (fnp.repeat(x, many_1d), None), (fnp.repeat(m, many, axis=1), None),
        (fnp.repeat(m, many, axis=0), None),
        (fnp.reshape(m.T, (N,)), None), (fnp.transpose(m), None), (fnp.flip(m, 0), None),
        (fnp.broadcast_to(x[:1000], (1000, 1000)), None), (_slice(fnp.asarray(m), 1, None, None, -2), None),
    ]
    for t, args in cases:
        assert t.node.op in ("concatenate", "repeat", *VIEW_OPS), t.node.op
        nbytes = t.size * t.dtype.itemsize
        assert nbytes >= 1_000_000
        peak = _out_peak(t, args)
        assert peak < 100_000, f"{t.node.op}{t.shape}: traced peak {peak} B for {nbytes} B"


def test_engine_steady_state():
    """Through the arena engine: NumPy's values, and a steady-state run that
    allocates about nothing beyond its small outputs (each intermediate is
    8 MB or more)."""
    a = np.random.default_rng(1).standard_normal((1000, 1000))
    counts = np.repeat([2, 0, 1, 3], 250)
    x = fnp.placeholder(a.shape, np.float64, name="x")
    c = fnp.concatenate([fnp.exp(x * 0.001), x * 2.0], axis=1)
    r = fnp.repeat(c, counts, axis=0)
    outs = [fnp.sum(r, axis=1), fnp.max(fnp.concatenate([r, -r], axis=0), axis=0)]
    exe = fgraph.compile(fgraph.Graph(outs, inputs=[x]))
    ce = np.concatenate([np.exp(a * 0.001), a * 2.0], axis=1)
    re = np.repeat(ce, counts, axis=0)
    want = [np.sum(re, axis=1), np.max(np.concatenate([re, -re], axis=0), axis=0)]
    exe(x=a)
    peak = _peak(lambda: exe(x=a))
    for g, w in zip(exe(x=a), want):
        same_bits(np.asarray(g), w)
    assert peak < 1_000_000, f"steady-state run: traced peak {peak} B"

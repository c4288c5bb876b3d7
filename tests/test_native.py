"""Native (generated C) fused kernels against NumPy, bit for bit.

Every op the C generator accepts runs alone and inside random expressions
through ``run_fused(..., strategy="native")`` on inputs full of NaN, inf,
-0.0, huge, tiny and extreme integers, contiguous, broadcast, strided, 0-d
and empty; then the disk cache, the fallbacks and the error semantics."""
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.numpy_kernels import fused, native
from fgraph.engines.numpy_kernels.fused import run_fused
from fgraph.ops.elementwise import UFUNCS
from oracle import assert_same

#: tests that run generated code (the generator's coverage and the fallbacks need no compiler)
needs_cc = pytest.mark.skipif(native.toolchain() is None or not native.enabled(),
                              reason="no working C compiler (cc/gcc/$CC), or FGRAPH_NATIVE=0")

DTYPES = [np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64")]
UFUNC_OPS = sorted(n for n, u in UFUNCS.items() if u.nout == 1 and u.types[0][0] not in "OmM")
OTHER_OPS = ["where", "clip", "astype", "round", "fix", "real", "imag"]
#: NumPy varies the sign of a zero result of these with the position in the array
ZERO_SIGN_FREE = {"fmax", "fmin"}


def special(dtype):
    """Values that break careless C: NaN, infinities, signed zeros, extremes."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        return st.one_of(st.sampled_from([0, 1, -1, 2, -2, 3, 7, 31, 32, 63, 64, info.min, info.max,
                                          info.min + 1, info.max - 1]),
                         st.integers(int(info.min), int(info.max)), st.integers(-100, 100))
    info = np.finfo(dtype)
    w = 8 * dtype.itemsize
    tiny = float(info.smallest_subnormal)
    return st.one_of(st.sampled_from([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5,
                                      float(info.max), -float(info.max), float(info.tiny), tiny, -tiny,
                                      88.7, -103.9, 709.8, 1e-8]),
                     st.floats(width=w), st.floats(-10, 10, width=w))


def arrays(dtype, shape):
    return hnp.arrays(np.dtype(dtype), shape, elements=special(dtype))


def numpy_op(op, args, params):
    """The eager NumPy call an instruction stands for."""
    params = dict(params)
    if op == "where":
        return np.where(*args)
    if op == "clip":
        return np.clip(*args)
    if op == "astype":
        return np.asarray(args[0]).astype(params["dtype"])
    if op == "round":
        return np.round(args[0], params.get("decimals", 0))
    if op in ("fix", "real", "imag"):
        return getattr(np, op)(args[0])
    return getattr(np, op)(*args, **params)


def assert_native_equal(got, want, ops=()):
    assert_same(got, want)
    if want.dtype.kind == "f" and not ZERO_SIGN_FREE & set(ops):  # -0.0 against 0.0 too
        real = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got)[real], np.signbit(want)[real])


def through_native(expr, ins, shape):
    """``run_fused(strategy="native")``, checking that native code ran (no fallback)."""
    before = dict(native.STATS)
    with np.errstate(all="ignore"):
        got = run_fused(*ins, expr=expr, shape=shape, strategy="native")
    if int(np.prod(shape)):
        assert native.STATS["runs"] == before["runs"] + 1, native.LAST_ERROR
        assert native.STATS["reruns"] == before["reruns"]
    return got


def instruction(op, arity, params=()):
    return (op, tuple(range(-1, -1 - arity, -1)), tuple(params))


# ---------------------------------------------------------------- coverage

MUST = {  # (op, dtype) pairs that must be native: inline C or NumPy's own loop
    **{(op, d): True for op in ("add", "subtract", "multiply", "divide", "negative", "absolute", "sqrt", "square",
                                "maximum", "minimum", "less", "equal", "tanh", "exp", "log", "sin", "power",
                                "floor", "rint", "sign", "isnan", "copysign", "logical_and", "arctan2",
                                "floor_divide", "remainder", "fmax", "hypot", "reciprocal")
       for d in ("float32", "float64")},
    **{(op, d): True for op in ("add", "subtract", "multiply", "floor_divide", "remainder", "maximum", "bitwise_and",
                                "invert", "left_shift", "right_shift", "absolute", "sign", "divide", "less", "gcd")
       for d in ("int32", "int64")},
    **{(op, "bool"): True for op in ("logical_and", "logical_xor", "add", "multiply", "maximum", "invert", "equal")},
    ("power", "int64"): False,  # NumPy raises on negative integer exponents
    ("sqrt", "bool"): False,  # a float16 loop
}


def test_the_generator_covers_the_common_ops():
    for (op, dt), want in MUST.items():
        u = UFUNCS[op]
        dt = np.dtype(dt)
        out = u.resolve_dtypes((dt,) * u.nin + (None,))[-1]
        expr = (instruction(op, u.nin) + (out,),)
        assert native.supported(expr, [np.zeros(1, dt)] * u.nin) == want, (op, dt)
    assert native.supported((("astype", (-1,), (("dtype", np.dtype("int32")),), np.dtype("int32")),),
                            [np.zeros(1, "float32")]) is False  # float -> int: undefined in C for NaN
    for a, b, out in [("int32", "int64", "int64"), ("float32", "float64", "float64"), ("int64", "float32", "float64"),
                      ("bool", "int32", "int32")]:  # strong arrays of mixed dtypes: NumPy's promotion
        assert native.supported((("add", (-1, -2), (), np.dtype(out)),), [np.zeros(1, a), np.zeros(1, b)])
    assert not native.supported((("add", (-1, -2), (), np.dtype("float32")),), [np.zeros(1, "float32"),
                                                                              np.zeros(1, ">f8")])  # big-endian


# ---------------------------------------------------------------- one op

def _native_dtypes(op):
    """The dtypes for which ``op`` over same-dtype inputs is native."""
    if op not in UFUNCS:
        return DTYPES
    u, found = UFUNCS[op], []
    for dt in DTYPES:
        try:
            out = u.resolve_dtypes((dt,) * u.nin + (None,))[-1]
        except TypeError:
            continue
        if native.supported((instruction(op, u.nin) + (out,),), [np.zeros(1, dt)] * u.nin):
            found.append(dt)
    return found


NATIVE_DTYPES = {op: _native_dtypes(op) for op in UFUNC_OPS + OTHER_OPS}
NEVER_NATIVE = {"bitwise_count"}  # uint8 results
ONE_OPS = [op for op in UFUNC_OPS + OTHER_OPS if op not in NEVER_NATIVE]
SECOND = [np.dtype("int64"), np.dtype("float64")]  # a mixed binary op's second dtype
SCALAR_OPS = ["add", "multiply", "subtract", "maximum", "less", "divide", "power", "arctan2", "floor_divide",
              "where", "clip"]
SCALARS = [7, -1.5, True]


def test_ops_never_native_are_known():
    assert {op for op, dts in NATIVE_DTYPES.items() if not dts} == NEVER_NATIVE


def one_op_case(op, dt, variant, ins=None):
    """(expr, inputs, NumPy's result) for ``op`` on inputs of dtype ``dt``;
    ``variant`` picks a second dtype, an astype target or a scalar;
    ``ins`` default to zeros laid out as the tests' (to build kernels ahead)."""
    params = ()
    if op in UFUNCS:
        dts = [dt] * UFUNCS[op].nin
        if len(dts) == 2 and variant is not None:
            dts[1] = variant
    elif op == "where":
        dts = [np.dtype(bool), dt, variant or dt]
    elif op == "clip":
        dts = [dt] * 3
    elif op == "astype":
        dts, params = [dt], (("dtype", variant or dt), ("casting", "unsafe"))
    else:
        dts, params = [dt], ((("decimals", 0),) if op == "round" else ())
    if ins is None:
        ins = [np.zeros(5, d) for d in dts]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = np.asarray(numpy_op(op, ins, params))
        except (TypeError, ValueError, OverflowError):  # NumPy refuses: no fused node would hold it
            return None
    return ((op, tuple(range(-1, -1 - len(ins), -1)), params, want.dtype),), ins, want


def scalar_inputs(op, x, s):
    return [np.array(True), x, s] if op == "where" else [x, s, s] if op == "clip" else [x, s]


@pytest.fixture(scope="module", autouse=True)
def precompiled():
    """One compiler run builds the hundreds of small kernels the per-op tests
    use (one run each would take minutes on a cold cache)."""
    items = []
    for op in ONE_OPS:
        for dt in NATIVE_DTYPES[op]:
            variants = [None] + (DTYPES if op in ("where", "astype") else
                                 SECOND if op in UFUNCS and UFUNCS[op].nin == 2 else [])
            for v in variants:
                case = one_op_case(op, dt, v)
                if case:
                    items.append((case[0], case[1], (5,)))
    for op in SCALAR_OPS:
        for dt in DTYPES[1:]:
            for sc in SCALARS:
                case = one_op_case(op, dt, None, scalar_inputs(op, np.zeros(5, dt), sc))
                if case:
                    items.append((case[0], case[1], (5,)))
    native.precompile(items)


@needs_cc
@pytest.mark.parametrize("op", ONE_OPS)
@settings(max_examples=examples(12), suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_one_op(op, data):
    dt = data.draw(st.sampled_from(NATIVE_DTYPES[op]), label="dtype")
    n = data.draw(st.sampled_from([2, 7, 33]), label="n")  # (one element: a layout of its own, tested below)
    variant = None
    if op in ("where", "astype"):
        variant = data.draw(st.sampled_from(DTYPES), label="dtype2")
    elif op in UFUNCS and UFUNCS[op].nin == 2 and data.draw(st.booleans(), label="mixed"):
        variant = data.draw(st.sampled_from(SECOND), label="dtype2")
    dts = [x.dtype for x in one_op_case(op, dt, variant)[1]] if one_op_case(op, dt, variant) else [dt]
    ins = [data.draw(arrays(d, (n,)), label=f"in{k}") for k, d in enumerate(dts)]
    if n == 33:  # several blocks, the last one partial
        ins = [np.resize(x, 10007) for x in ins]
    case = one_op_case(op, dt, variant, ins)
    assume(case is not None)
    expr, ins, want = case
    if not native.supported(expr, ins):
        assert not MUST.get((op, str(dt)))
        assume(False)
    assert_native_equal(through_native(expr, ins, want.shape), want, [op])


@needs_cc
@pytest.mark.parametrize("op", SCALAR_OPS)
@settings(max_examples=examples(10))
@given(data=st.data())
def test_python_scalars_are_weak(op, data):
    """A literal is a Python scalar at run time: NumPy casts it to the loop's dtype."""
    dt = data.draw(st.sampled_from(DTYPES[1:]))
    x = data.draw(arrays(dt, (9,)))
    kind = data.draw(st.sampled_from(SCALARS))
    s = data.draw({int: st.integers(-2 ** 31, 2 ** 31 - 1) | st.sampled_from([0, 2 ** 40]),
                   float: st.floats(-1e6, 1e6) | st.sampled_from([0.1, -0.0, np.inf]),
                   bool: st.booleans()}[type(kind)])
    case = one_op_case(op, dt, None, scalar_inputs(op, x, s))
    assume(case is not None)
    expr, ins, want = case
    with np.errstate(all="ignore"):
        got = run_fused(*ins, expr=expr, shape=want.shape, strategy="native")  # may fall back: huge ints
    assert_native_equal(got, want, [op])


@needs_cc
def test_out_of_range_python_int_falls_back():
    x = np.arange(-5, 5, dtype="int32")
    expr = (("less", (-1, -2), (), np.dtype(bool)),)
    assert not native.run(expr, [x, 2 ** 40], np.empty(10, bool))  # NumPy compares the exact value
    assert_same(run_fused(x, 2 ** 40, expr=expr, shape=(10,), strategy="native"), np.less(x, 2 ** 40))


# ---------------------------------------------------------------- random expressions

UNARY_POOL = ["negative", "absolute", "sqrt", "square", "tanh", "exp", "log1p", "sin", "floor", "rint", "sign",
              "isnan", "logical_not", "invert", "reciprocal", "cbrt", "trunc", "signbit"]
BINARY_POOL = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "power", "arctan2",
               "hypot", "floor_divide", "remainder", "less", "greater_equal", "equal", "logical_or",
               "bitwise_xor", "copysign", "logaddexp", "left_shift", "heaviside"]


@st.composite
def programs(draw, dtypes=DTYPES, shape=(23,)):
    """Inputs and a straight-line program over them; NumPy evaluates it
    eagerly as it is drawn (its result dtypes become the instructions')."""
    n_in = draw(st.integers(1, 3))
    ins = [draw(arrays(draw(st.sampled_from(dtypes)), shape)) for _ in range(n_in)]
    if draw(st.booleans()):
        ins.append(draw(st.sampled_from([0.5, -2.0, 3, True, np.float32(1.5), np.array(-0.0)])))
    values = list(ins)
    refs = [-1 - k for k in range(len(ins))]
    expr = []
    for _ in range(draw(st.integers(2, 8))):
        kind = draw(st.sampled_from(["u", "b", "b", "where", "astype"]))
        pick = lambda: draw(st.integers(0, len(values) - 1))  # noqa: E731
        if kind == "u":
            op, args = draw(st.sampled_from(UNARY_POOL)), [pick()]
        elif kind == "b":
            op, args = draw(st.sampled_from(BINARY_POOL)), [pick(), pick()]
        elif kind == "where":
            op, args = "where", [pick(), pick(), pick()]
        else:
            op, args = "astype", [pick()]
        params = (("dtype", draw(st.sampled_from(DTYPES))), ("casting", "unsafe")) if op == "astype" else ()
        argv = [values[a] for a in args]
        if op == "where":
            argv[0] = np.asarray(argv[0]).astype(bool)  # a mask: instructions take what the graph gives
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                v = np.asarray(numpy_op(op, argv, params))
            except (TypeError, ValueError):
                continue
        if v.shape != np.broadcast_shapes(shape) or np.dtype(v.dtype) not in DTYPES:
            continue
        if op == "where":  # the mask is an instruction of its own
            mask_src = args[0]
            expr.append(("astype", (refs[mask_src],), (("dtype", np.dtype(bool)), ("casting", "unsafe")),
                         np.dtype(bool)))
            values.append(argv[0])
            refs.append(len(expr) - 1)
            args = [len(values) - 1] + args[1:]
        expr.append((op, tuple(refs[a] for a in args), params, v.dtype))
        values.append(v)
        refs.append(len(expr) - 1)
    assume(expr and refs[-1] >= 0 and np.shape(values[-1]) == shape)
    return ins, tuple(expr), values[-1]


@needs_cc
@settings(max_examples=examples(40))
@given(prog=programs())
def test_random_expressions(prog):
    ins, expr, want = prog
    if not native.supported(expr, ins):  # a float -> int cast, a float16 or integer power inside
        assume(False)
    assert_native_equal(through_native(expr, ins, want.shape), want, [i[0] for i in expr])


# ---------------------------------------------------------------- layouts

def bench_like(xp, a, b, c):
    return xp.where(a > b, xp.tanh(a * b + c), xp.exp(-xp.abs(a))) * 0.5 - xp.sqrt(xp.abs(c)) / (b * b + 1)


@st.composite
def layouts(draw):
    """Output shapes 0-d to 3-d (size 0 included), inputs broadcast, strided,
    reversed or transposed views."""
    shape = draw(st.sampled_from([(), (0,), (1,), (5,), (3, 0), (4, 6), (2, 3, 5), (3, 1, 4), (2, 4099)]))
    dt = draw(st.sampled_from([np.dtype("float32"), np.dtype("float64")]))
    ins = []
    for _ in range(3):
        s = draw(hnp.broadcastable_shapes(shape, min_dims=0, max_dims=len(shape), min_side=0))
        s = tuple(1 if shape[len(shape) - len(s) + k] == 1 else d for k, d in enumerate(s))  # broadcasts *to* shape
        view = draw(st.sampled_from(["plain", "strided", "reversed", "transposed"]))
        if view == "strided":
            x = draw(arrays(dt, tuple(2 * d for d in s)))[tuple(slice(None, None, 2) for _ in s)]
        elif view == "transposed" and len(s) >= 2:
            x = np.ascontiguousarray(draw(arrays(dt, s[::-1]))).T
        else:
            x = draw(arrays(dt, s))
            x = x[tuple(slice(None, None, -1) for _ in s)] if view == "reversed" else x
        ins.append(x)
    return ins, shape


@needs_cc
@settings(max_examples=examples(30))
@given(case=layouts())
def test_layouts_broadcast_strided_0d_empty(case):
    ins, shape = case
    with np.errstate(all="ignore"):
        want = bench_like(np, *ins)
    phs = [fnp.placeholder(x.shape, x.dtype, name=n) for x, n in zip(ins, "abc")]
    g = fgraph.optimise(fgraph.Graph(bench_like(fnp, *phs)))
    (node,) = [n for n in g.nodes() if n.op == "fused" and n.shape == want.shape]
    feeds = dict(zip("abc", ins))
    args = [i.param("value").value if i.op == "literal" else
            fgraph.compile(fgraph.Graph(fgraph.Tensor(i), inputs=phs))(**feeds) for i in node.inputs]
    got = through_native(node.param("expr"), args, want.shape)
    assert_native_equal(got, want)
    for threads in (2, 3):  # several threads share the blocks
        out = np.empty(want.shape, want.dtype)
        with np.errstate(all="ignore"):
            assert native.run(node.param("expr"), args, out, threads) or out.size == 0
        assert_native_equal(out, want)


F8 = np.dtype("float64")
SAME = (("dtype", F8), ("casting", "unsafe"))


@pytest.mark.parametrize("expr, fn", [
    ((("multiply", (-1, -1), (), F8), ("exp", (0,), (), F8), ("add", (1, 0), (), F8), ("astype", (0,), SAME, F8)),
     lambda x: x * x),
    ((("exp", (-1,), (), F8), ("sin", (0,), (), F8), ("astype", (0,), SAME, F8)), np.exp),
    ((("exp", (-1,), (), F8), ("sin", (0,), (), F8), ("cos", (0,), (), F8), ("astype", (1,), SAME, F8)),
     lambda x: np.sin(np.exp(x))),
    ((("negative", (-1,), (), F8), ("astype", (-1,), SAME, F8)), lambda x: x),
])
@needs_cc
def test_the_result_may_be_an_earlier_value(expr, fn):
    """A same-dtype astype as the last instruction: the value the output
    takes was computed (and read by called loops) earlier."""
    x = np.linspace(-2, 2, 5000)
    assert_same(through_native(expr, [x], x.shape), fn(x))


@needs_cc
def test_in_place_output_may_be_an_input():
    """The memory planner may give an input's buffer as the output."""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(20000), rng.standard_normal(20000)
    want = np.tanh(a * b) + a
    expr = (("multiply", (-1, -2), (), a.dtype), ("tanh", (0,), (), a.dtype), ("add", (1, -1), (), a.dtype))
    assert native.run(expr, [a, b], a)
    assert_same(a, want)


@needs_cc
def test_autotuner_stays_exact_while_native_compiles():
    rng = np.random.default_rng(2)
    a = rng.standard_normal(fused.SMALL, dtype=np.float32)
    expr = (("multiply", (-1, -1), (), a.dtype), ("cos", (0,), (), a.dtype), ("add", (1, -2), (), a.dtype))
    want = np.cos(a * a) + 1.5
    native.clear_memory_cache(compiler=False)  # compiles (or loads) in the background again
    key = (expr, a.shape, (a.dtype, float))
    deadline = time.monotonic() + 60  # compiling may take a while on a loaded machine
    while time.monotonic() < deadline and not isinstance(fused._choice.get(key), str):
        assert_same(run_fused(a, 1.5, expr=expr, shape=a.shape), want)
    assert_same(run_fused(a, 1.5, expr=expr, shape=a.shape), want)
    assert isinstance(fused._choice[key], str)


@needs_cc
def test_autotuner_settles_when_one_native_strategy_beats_all(monkeypatch):
    """NumPy strategies and then ``native`` dropped as far slower than
    ``native_threaded``: the survivor must still be measured and chosen."""
    x = np.linspace(-1, 1, fused.SMALL)
    expr = (("multiply", (-1, -1), (), x.dtype), ("sin", (0,), (), x.dtype))

    def slowed(f, seconds):
        def run(*args):
            time.sleep(seconds)
            return f(*args)
        return run

    for name, seconds in [("whole", 0.03), ("blocked", 0.03), ("threaded", 0.03), ("native", 0.01)]:
        monkeypatch.setitem(fused.STRATEGIES, name, slowed(fused.STRATEGIES[name], seconds))
    key = (expr, x.shape, (x.dtype,))
    fused._choice.pop(key, None)
    native.kernel(expr, ((x.dtype, "c"),))  # compiled: native candidates are measured at once
    for _ in range(100):
        assert_same(run_fused(x, expr=expr, shape=x.shape), np.sin(x * x))
        if isinstance(fused._choice.get(key), str):
            break
    assert isinstance(fused._choice[key], str)


# ---------------------------------------------------------------- errors as NumPy gives them

@needs_cc
def test_floating_point_errors_warn_and_raise_like_numpy():
    x = np.array([-1.0, 0.0, 4.0] * 3000)
    expr = (("sqrt", (-1,), (), x.dtype), ("divide", (-2, 0), (), x.dtype))
    with pytest.warns(RuntimeWarning, match="invalid value"):
        got = run_fused(x, 1.0, expr=expr, shape=x.shape, strategy="native")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = np.divide(1.0, np.sqrt(x))
    assert_same(got, want)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        run_fused(x, 1.0, expr=expr, shape=x.shape, strategy="native")
    with np.errstate(all="ignore"):
        assert native.run(expr, [x, 1.0], np.empty_like(x))  # nothing to report: native stands
    int_expr = (("floor_divide", (-1, -2), (), np.dtype("int64")),)
    i = np.array([np.iinfo(np.int64).min, 7, -7, 5] * 2000)
    j = np.array([-1, 0, 2, -3] * 2000)
    with np.errstate(all="ignore"):
        assert_same(run_fused(i, j, expr=int_expr, shape=i.shape, strategy="native"), np.floor_divide(i, j))


# ---------------------------------------------------------------- cache, fallbacks

@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FGRAPH_CACHE_DIR", str(tmp_path))
    native.clear_memory_cache()
    yield tmp_path
    monkeypatch.undo()
    native.clear_memory_cache()


UNIQUE = (("multiply", (-1, -2), (), np.dtype("float64")), ("hypot", (0, -1), (), np.dtype("float64")),
          ("minimum", (1, -2), (), np.dtype("float64")))


@needs_cc
def test_disk_cache_is_reused_without_the_compiler(fresh_cache, monkeypatch):
    x, y = np.linspace(-3, 3, 5000), np.linspace(2, -2, 5000)
    want = np.minimum(np.hypot(x * y, x), y)
    before = dict(native.STATS)
    assert_same(through_native(UNIQUE, [x, y], x.shape), want)
    assert native.STATS["compiles"] == before["compiles"] + 1
    assert len([f for f in os.listdir(fresh_cache / "native") if f.endswith(".so")]) == 1
    native.clear_memory_cache(compiler=False)
    monkeypatch.setattr(native, "_compile", lambda *a: pytest.fail("the compiler ran again"))
    assert_same(through_native(UNIQUE, [x, y], x.shape), want)
    assert native.STATS["disk_loads"] == before["disk_loads"] + 1


@needs_cc
def test_processes_share_the_cache_safely(fresh_cache):
    """Several processes compiling the same kernel at once: each gets a whole library."""
    code = ("import numpy as np; from fgraph.engines.numpy_kernels import native; x = np.ones(9); "
            f"expr = eval({repr(UNIQUE)!r}, {{'dtype': np.dtype}}); assert native.run(expr, [x, x], np.empty(9))")
    env = dict(os.environ, FGRAPH_CACHE_DIR=str(fresh_cache))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, cwd=os.path.dirname(os.path.dirname(__file__)))
             for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    names = os.listdir(fresh_cache / "native")
    assert len([f for f in names if f.endswith(".so")]) == 1 and not [f for f in names if f.startswith(".")]


def test_without_a_compiler_numpy_strategies_remain(fresh_cache, monkeypatch):
    monkeypatch.setattr(native, "find_compiler", lambda: None)
    native.clear_memory_cache()
    assert native.toolchain() is None
    x = np.linspace(-1, 1, fused.SMALL)
    runs = native.STATS["runs"]
    assert_same(run_fused(x, x, expr=UNIQUE, shape=x.shape, strategy="native"), np.minimum(np.hypot(x * x, x), x))
    assert not native.run(UNIQUE, [x, x], np.empty_like(x))
    assert native.STATS["runs"] == runs
    c = fused.compiled(UNIQUE, 2)
    assert "native" not in fused._candidates(c, [x, x], np.empty_like(x))


def test_fgraph_native_0_disables_it(monkeypatch):
    monkeypatch.setenv("FGRAPH_NATIVE", "0")
    x = np.linspace(-1, 1, 100)
    assert not native.run(UNIQUE, [x, x], np.empty_like(x))
    assert "native" not in fused._candidates(fused.compiled(UNIQUE, 2), [x, x], np.empty_like(x))


def _fake_library(d, name, nbytes, mtime, *links):
    path = d / f"{name}.so"
    path.write_bytes(b"\0" * nbytes)
    for other in links:
        os.link(path, d / f"{other}.so")
    for p in (name, *links):
        os.utime(d / f"{p}.so", (mtime, mtime))


def test_the_disk_cache_is_trimmed_least_recently_used_first(tmp_path):
    d = tmp_path
    _fake_library(d, "old", 400, 1000)
    _fake_library(d, "shared_a", 300, 2000, "shared_b", "shared_c")  # one library under three names
    _fake_library(d, "recent", 300, 3000)
    (d / "notes.txt").write_bytes(b"\0" * 5000)  # not a kernel: never counted or touched
    assert native.trim_cache(str(d), limit=1000) == 0  # 400 + 300 + 300: hard links count once
    freed = native.trim_cache(str(d), limit=900)  # over: down to 3/4 of it, the stalest first
    assert freed == 400 and sorted(os.listdir(d)) == ["notes.txt", "recent.so", "shared_a.so", "shared_b.so",
                                                       "shared_c.so"]
    assert native.trim_cache(str(d), limit=400) == 300  # the shared library goes with its last name
    assert sorted(os.listdir(d)) == ["notes.txt", "recent.so"]
    assert native.trim_cache(str(d), limit=0, keep={"recent"}) == 0  # what was just built stays
    assert native.trim_cache(str(tmp_path / "missing"), limit=0) == 0


def test_the_cache_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("FGRAPH_NATIVE_CACHE_MB", "0.5")
    assert native.cache_limit_bytes() == 2**19
    monkeypatch.setenv("FGRAPH_NATIVE_CACHE_MB", "lots")
    assert native.cache_limit_bytes() == 256 * 2**20


def _libraries(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".so"))


@needs_cc
def test_a_trimmed_kernel_is_built_again(fresh_cache, monkeypatch):
    x, y = np.linspace(-3, 3, 5000), np.linspace(2, -2, 5000)
    want = np.minimum(np.hypot(x * y, x), y)
    assert_same(through_native(UNIQUE, [x, y], x.shape), want)
    (lib,) = _libraries(fresh_cache / "native")
    assert native.trim_cache(limit=0) > 0 and not _libraries(fresh_cache / "native")
    native.clear_memory_cache(compiler=False)
    compiles = native.STATS["compiles"]
    assert_same(through_native(UNIQUE, [x, y], x.shape), want)
    assert native.STATS["compiles"] == compiles + 1 and _libraries(fresh_cache / "native") == [lib]
    # building trims, sparing what it built: below one library's size, only the new one stays
    monkeypatch.setenv("FGRAPH_NATIVE_CACHE_MB", "0")
    other = (("subtract", (-1, -2), (), np.dtype("float64")), ("arctan2", (0, -1), (), np.dtype("float64")))
    assert_same(through_native(other, [x, y], x.shape), np.arctan2(x - y, x))
    left = _libraries(fresh_cache / "native")
    assert len(left) == 1 and left != [lib]
    assert sorted(os.listdir(fresh_cache / "native")) == left + ["manifest.json"]  # the digests: no temporary left


def test_one_expression_over_different_input_counts():
    """A fused group may keep inputs its expression no longer reads: the
    compiled chunk unpacks every input, so one expression over 1 and over 3
    inputs must not share it (a cache keyed by the expression alone did)."""
    from fgraph.engines.numpy_kernels.fused import run_fused

    expr = (("negative", (-1,), (), np.dtype("float32")),)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for ins in ((x, np.ones(3, np.float32), 2.0), (x,), (x, x, x)):
        np.testing.assert_array_equal(run_fused(*ins, expr=expr, shape=(2, 3), strategy="whole"), -x)

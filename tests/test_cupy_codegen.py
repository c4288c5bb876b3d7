"""The CuPy engine's generated CUDA source, tested without a GPU.

1. The op table covers every op the fuser may put in a group.
2. The source is inspected: float32 loops call the ``f`` functions, literals
   are typed constants, integer division and NumPy's promotions are explicit.
3. The source is compiled as C++ by g++ (shims for the few CUDA intrinsics)
   into one shared library and run through ctypes on special and random
   values, against NumPy: the generated expressions' semantics, on the CPU.
   Every fusable op is run on every input dtype NumPy accepts for it.
   Skipped when g++ is missing.
"""
import ctypes
import functools
import itertools
import os
import shutil
import subprocess
import tempfile
import warnings
import zlib

import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.cupy_kernels import codegen
from fgraph.engines.cupy_kernels.codegen import CTYPES, OPS, PRELUDE, Unsupported
from fgraph.ops.elementwise import UFUNCS
from fgraph.tensor import literal_node, placeholder_node
from fgraph.symbol import make_node
from fgraph.registry import attr_table

GXX = shutil.which("g++")
needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ is not installed: the generated source is not compiled")

DTYPES = [np.dtype(d) for d in ("bool", "int8", "uint8", "int32", "int64", "uint64", "float32", "float64")]
N = 96  # values per case (special values first, then random ones)

#: ops computed exactly (IEEE operations, integer arithmetic, selections): bit-identical to NumPy
INEXACT = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos",
           "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "arctan2", "hypot", "cbrt",
           "power", "float_power", "logaddexp", "logaddexp2"}


# ---------------------------------------------------------------- the table

def test_table_covers_every_fusable_op():
    fusable = sorted(op for op, v in attr_table("fusable").items() if v)
    missing = [op for op in fusable if op not in OPS and op not in codegen.EXPANDED]
    assert not missing, f"fusable ops without a CUDA form: {missing}"
    assert set(UFUNCS) <= set(OPS)


def test_expansions_are_made_of_table_ops():
    from fgraph.ops.fused import EXPANSIONS

    a, b, c, d, e = (placeholder_node((3,), "float32") for _ in range(5))
    for op, expand in EXPANSIONS.items():
        instrs = expand([a, b, c, d, e][:{"fma": 3, "adagrad": 5}[op]])
        assert all(i[0] in OPS for i in instrs), op


# ---------------------------------------------------------------- building expressions

def _expr(op, in_dtypes, params=(), literals=None):
    """A one-instruction fused expression and its Inputs: ``literals`` maps
    an input position to a Python scalar (a weak literal)."""
    literals = literals or {}
    nodes = [literal_node(literals[k]) if k in literals else placeholder_node((N,), dt)
             for k, dt in enumerate(in_dtypes)]
    node = make_node(op, nodes, tuple(params))
    expr = ((op, tuple(-1 - k for k in range(len(nodes))), tuple(params), node.dtype),)
    return expr, [codegen.input_of_node(n) for n in nodes], node


# ---------------------------------------------------------------- inspecting the source

def test_float32_uses_float_functions_and_float64_the_double_ones():
    src32 = codegen.elementwise(*_expr("sin", [np.dtype("float32")])[:2])
    src64 = codegen.elementwise(*_expr("sin", [np.dtype("float64")])[:2])
    assert "sinf(x0)" in src32.preamble and "sinf(" not in src64.preamble.replace(PRELUDE, "")
    assert "sin(x0)" in src64.preamble
    assert src32.in_params == "float32 x0" and src32.out_params == "float32 y"
    assert src32.operation.startswith("y = fg_fused_")


def test_weak_literals_are_typed_constants():
    expr, ins, _ = _expr("multiply", [np.dtype("float32"), np.dtype("float64")], literals={1: 0.1})
    fn = codegen.function(expr, ins)
    assert "((float)(0.1))" in fn.source  # NEP 50: the Python float takes the array's type
    assert "x1" not in fn.source and [n for _, n in fn.params] == ["x0"]  # inlined, not a parameter
    expr, ins, _ = _expr("add", [np.dtype("int32"), np.dtype("int64")], literals={1: 3})
    assert "((int)(3LL))" in codegen.function(expr, ins).source
    expr, ins, _ = _expr("add", [np.dtype("float64"), np.dtype("float64")], literals={1: float("nan")})
    assert "__longlong_as_double((long long)0x7ff8000000000000ULL)" in codegen.function(expr, ins).source


def test_strong_mixed_types_are_cast_to_numpy_loop_types():
    expr, ins, node = _expr("add", [np.dtype("int32"), np.dtype("float32")])
    assert node.dtype == np.float64  # int32 + float32 -> float64 in NumPy; C would say float
    src = codegen.function(expr, ins).source
    assert "((double)(x0))" in src and "((double)(x1))" in src


def test_integer_division_is_numpys():
    expr, ins, _ = _expr("floor_divide", [np.dtype("int64")] * 2)
    assert "fg_floor_divide(x0, x1)" in codegen.function(expr, ins).source
    expr, ins, node = _expr("divide", [np.dtype("int32")] * 2)
    assert node.dtype == np.float64 and "((double)(x0)) / ((double)(x1))" in codegen.function(expr, ins).source


def test_bool_ops():
    b = np.dtype("bool")
    assert "(x0 || x1)" in codegen.function(*_expr("add", [b, b])[:2]).source
    assert "(!x0)" in codegen.function(*_expr("invert", [b])[:2]).source


def test_complex_and_float16_are_not_generated():
    for dt in ("complex64", "float16"):
        with pytest.raises(Unsupported):
            codegen.function(*_expr("negative", [np.dtype(dt)])[:2])


def test_reduction_source():
    expr, ins, _ = _expr("multiply", [np.dtype("float32")] * 2)
    r = codegen.reduction(expr, ins, "mean", np.dtype("float32"), 10)
    assert (r.reduce_expr, r.identity, r.reduce_type) == ("a + b", "((float)(0.0))", "float")
    assert r.post_map_expr == "y = ((float)((double)a / (double)10))"
    r = codegen.reduction(expr, ins, "max", np.dtype("float32"), 10)
    assert "fg_max_nan" in r.reduce_expr and "0xfff0000000000000" in r.identity  # -inf
    r = codegen.reduction(*_expr("greater", [np.dtype("int64")] * 2)[:2], "any", np.dtype("bool"), 4)
    assert (r.reduce_expr, r.identity, r.reduce_type) == ("a || b", "false", "bool")


def test_fused_node_from_the_optimiser():
    """A real fused group: literals inlined, intermediates typed, one function."""
    x = fnp.placeholder((8,), "float32", name="x")
    y = fnp.tanh(x * 2.0 + 1) - fnp.exp(-x)
    g = fgraph.optimise(fgraph.Graph(y))
    (node,) = [n for n in g.nodes() if n.op == "fused"]
    src = codegen.elementwise(node.param("expr"), [codegen.input_of_node(i) for i in node.inputs])
    body = src.preamble[len(PRELUDE):]
    assert body.count("const float t") == len(node.param("expr"))
    assert "tanhf(" in body and "expf(" in body and "((float)(2.0))" in body and "double" not in body


# ---------------------------------------------------------------- compiling and running with g++

SHIM = r"""
#include <math.h>
#include <string.h>
#define __device__
#define __forceinline__ inline
static inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
"""


def _split(params: str):
    """'float32 x0, int64 x1' -> [(dtype, name), ...]"""
    return [(np.dtype(p.split()[0]), p.split()[1]) for p in params.split(",") if p.strip()]


def _elementwise_harness(name, src):
    lines = [f'extern "C" void {name}(long n, void **ins, void *out) {{', "  for (long i = 0; i < n; ++i) {"]
    for k, (dt, var) in enumerate(_split(src.in_params)):
        lines.append(f"    const {CTYPES[dt]} {var} = (({CTYPES[dt]} *)ins[{k}])[i];")
    (odt, ovar), = _split(src.out_params)
    lines += [f"    {CTYPES[odt]} {ovar};", f"    {src.operation};", f"    (({CTYPES[odt]} *)out)[i] = {ovar};",
              "  }", "}"]
    return "\n".join(lines)


def _reduction_harness(name, src):
    r = src.reduce_type
    lines = [f'extern "C" void {name}(long rows, long cols, void **ins, void *out) {{',
             "  for (long row = 0; row < rows; ++row) {", f"    {r} acc = {src.identity};",
             "    for (long c = 0; c < cols; ++c) {", "      long i = row * cols + c;"]
    for k, (dt, var) in enumerate(_split(src.in_params)):
        lines.append(f"      const {CTYPES[dt]} {var} = (({CTYPES[dt]} *)ins[{k}])[i];")
    (odt, ovar), = _split(src.out_params)
    lines += [f"      {r} m = {src.map_expr};", f"      {{ {r} a = acc; {r} b = m; acc = ({src.reduce_expr}); }}",
              "    }", f"    {{ {r} a = acc; {CTYPES[odt]} {ovar}; {src.post_map_expr}; "
              f"(({CTYPES[odt]} *)out)[row] = {ovar}; }}", "  }", "}"]
    return "\n".join(lines)


class Library:
    """Generated sources compiled by g++ into one shared library."""

    def __init__(self):
        self.functions: dict[str, str] = {}  # device function name -> definition (deduplicated)
        self.harnesses: list[str] = []
        self.count = 0

    def add(self, src, kind="elementwise") -> str:
        body = src.preamble[len(PRELUDE):]
        self.functions[body.split("(")[0].split()[-1]] = body
        name = f"case{self.count}"
        self.count += 1
        self.harnesses.append((_elementwise_harness if kind == "elementwise" else _reduction_harness)(name, src))
        return name

    def build(self, tmp):
        code = SHIM + PRELUDE + "\n".join(self.functions.values()) + "\n".join(self.harnesses)
        cpp = os.path.join(tmp, "fused.cpp")
        so = os.path.join(tmp, "fused.so")
        with open(cpp, "w") as f:
            f.write(code)
        # -fwrapv: integer overflow wraps (as on the GPU); no contraction of a*b+c (--fmad=false there)
        subprocess.run([GXX, "-std=c++17", "-O1", "-fwrapv", "-ffp-contract=off", "-fPIC", "-shared",
                        "-Wno-div-by-zero", cpp, "-o", so], check=True, capture_output=True, text=True)
        return ctypes.CDLL(so)


def special(dt, rng):
    """Edge values first, then random ones: N values of ``dt``."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        base = [False, True]
        rand = rng.integers(0, 2, N).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        base = [v for v in (0, 1, -1, 2, -2, 3, -3, 7, -7, 8, 63, 64, 127, -128, 255, info.min, info.max,
                            info.min + 1, info.max - 1) if info.min <= v <= info.max]
        rand = rng.integers(max(info.min, -1000), min(info.max, 1000), N, endpoint=True)
    else:
        tiny = float(np.finfo(dt).smallest_subnormal)
        base = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -7.0, 0.1, 1e30, -1e30, np.inf, -np.inf,
                np.nan, 123.456, tiny, -tiny, float(np.finfo(dt).max), 2.0 ** 31, -(2.0 ** 63)]
        rand = rng.normal(size=N) * 10.0 ** rng.integers(-3, 4, N)
    out = np.array(list(base) + list(rand), dtype=dt)[:N]
    return out


def _pairs(a, b):
    """Every pair of the first few values, then random pairs: (len N) x 2."""
    k = int(np.sqrt(N // 2))
    grid = np.array(list(itertools.product(range(k), range(k))))
    ia = np.concatenate([grid[:, 0], np.arange(N - len(grid))])[:N]
    ib = np.concatenate([grid[:, 1], np.arange(N - len(grid))[::-1]])[:N]
    return a[ia], b[ib]


def _assert_matches(op, got, want, exact):
    assert got.dtype == want.dtype
    if exact or want.dtype.kind in "biu":
        bad = ~((got == want) | (np.isnan(got) & np.isnan(want)) if want.dtype.kind == "f" else (got == want))
        if want.dtype.kind == "f":  # +0.0 and -0.0 are different results
            bad |= (np.signbit(got) != np.signbit(want)) & ~np.isnan(want)
        assert not bad.any(), f"{op}: got {got[bad][:6]}, NumPy {want[bad][:6]} at {np.flatnonzero(bad)[:6]}"
    else:
        rtol = 4e-6 if want.dtype == np.float32 else 1e-14
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True, err_msg=op)
        assert (np.isinf(got) == np.isinf(want)).all(), op


def _numpy(op, arrays, params):
    u = UFUNCS.get(op)
    p = dict(params)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if u is not None:
            r = u(*arrays, **({"dtype": p["dtype"]} if "dtype" in p else {}))
            return r[p.get("output", 0)] if u.nout > 1 else r
        fn = {"where": np.where, "clip": np.clip, "fix": np.fix, "real": np.real, "imag": np.imag}.get(op)
        if fn is not None:
            return fn(*arrays)
        if op == "round":
            return np.round(arrays[0], p["decimals"])
        if op == "astype":
            return arrays[0].astype(p["dtype"])
    raise KeyError(op)


def _cases():
    """(op, input dtypes, params) for every fusable op and every dtype NumPy accepts."""
    out = []
    for op, u in sorted(UFUNCS.items()):
        combos = [(dt,) * u.nin for dt in DTYPES]
        if u.nin == 2:  # a few mixed pairs: promotion, and NumPy's exact int64/uint64 loops
            combos += [(np.dtype("int32"), np.dtype("float32")), (np.dtype("int64"), np.dtype("uint64")),
                       (np.dtype("uint8"), np.dtype("int8")), (np.dtype("bool"), np.dtype("float64"))]
        for dts in combos:
            for output in range(u.nout):
                params = (("output", output),) if u.nout > 1 else ()
                out.append((op, dts, params))
    for dt in DTYPES:
        out.append(("where", (np.dtype("bool"), dt, np.dtype("float32")), ()))
        out.append(("clip", (dt, dt, dt), ()))
        out.append(("fix", (dt,), ()))
        out.append(("real", (dt,), ()))
        out.append(("imag", (dt,), ()))
        for d in (0, 1, 2, -1):
            out.append(("round", (dt,), (("decimals", d),)))
        for to in DTYPES:
            out.append(("astype", (dt,), (("dtype", to), ("casting", "unsafe"))))
    return out


@functools.lru_cache(maxsize=1)
def _compiled_cases():
    """Generate every case, build one library; returns (library, [(case, name, arrays, want)])."""
    rng = np.random.default_rng(0)
    lib = Library()
    runs, skipped = [], []
    for op, dts, params in _cases():
        try:
            expr, ins, node = _expr(op, dts, params)
        except fgraph.FgraphError:  # NumPy has no loop for these dtypes
            continue
        try:
            src = codegen.elementwise(expr, ins)
        except Unsupported as e:
            skipped.append((op, dts, str(e)))
            continue
        arrays = [special(dt, rng) for dt in dts]
        if len(arrays) == 2:
            arrays = list(_pairs(*arrays))
        elif len(arrays) == 3 and op == "clip":  # lo <= hi mostly, with NaN and swapped bounds among them
            arrays = [arrays[0], np.minimum(arrays[1], arrays[2]), np.maximum(arrays[1], arrays[2])]
            arrays[1][:3], arrays[2][:3] = arrays[2][:3].copy(), arrays[1][:3].copy()
        arrays = [_domain(op, dts, k, a) for k, a in enumerate(arrays)]
        want = np.asarray(_numpy(op, arrays, params))
        assert want.dtype == node.dtype, (op, dts, want.dtype, node.dtype)
        runs.append(((op, tuple(str(d) for d in dts), params), lib.add(src), arrays, want))
    tmp = tempfile.mkdtemp(prefix="fgraph-codegen-")
    return lib.build(tmp), runs, skipped


def _domain(op, dts, k, a):
    """Inputs where NumPy's own result is platform-defined are replaced (documented in codegen)."""
    a = a.copy()
    if op == "reciprocal" and a.dtype.kind in "iu":
        a[a == 0] = 1  # 1 // 0: a float inf converted to int (x86 gives INT_MIN)
    if op == "power" and k == 1 and a.dtype.kind in "iu":
        a[:] = np.abs(a) % 9  # negative integer powers raise in NumPy (the GPU cannot)
    return a


def _run(lib, name, arrays, want):
    got = np.empty_like(want)
    ptrs = (ctypes.c_void_p * max(len(arrays), 1))(*[a.ctypes.data for a in arrays])
    getattr(lib, name)(ctypes.c_long(want.size), ptrs, ctypes.c_void_p(got.ctypes.data))
    return got


@needs_gxx
def test_generated_elementwise_source_compiles_and_matches_numpy():
    lib, runs, skipped = _compiled_cases()
    assert len(runs) > 400
    # only float16 loops (NumPy computes sin(int8) in float16) are left to CuPy's own ufuncs
    assert all("float16" in reason for _, _, reason in skipped), skipped
    failures = []
    for (op, dts, params), name, arrays, want in runs:
        if op == "astype" and arrays[0].dtype.kind == "f" and want.dtype.kind in "iu":
            finite = np.isfinite(arrays[0]) & (np.abs(arrays[0]) < 2.0 ** (8 * want.dtype.itemsize - 1))
            arrays = [np.where(finite, arrays[0], 0).astype(arrays[0].dtype)]  # out of range: undefined in C
            want = arrays[0].astype(want.dtype)
        got = _run(lib, name, arrays, want)
        try:
            _assert_matches(f"{op}{dts}{params}", got, want, op not in INEXACT)
        except AssertionError as e:
            failures.append(str(e).splitlines()[0][:300])
    assert not failures, f"{len(failures)} cases differ from NumPy:\n" + "\n".join(failures[:40])


# ---------------------------------------------------------------- reductions and whole fused groups

REDUCE_CASES = [  # (reduce, element-wise op, input dtype)
    (r, op, dt) for r in codegen.REDUCTIONS for op, dt in [
        ("multiply", "float32"), ("subtract", "float64"), ("add", "int32"), ("multiply", "int64"),
        ("maximum", "uint8"), ("greater", "float64"), ("logical_xor", "bool")]]


@needs_gxx
def test_generated_reductions_match_numpy():
    rng = np.random.default_rng(1)
    lib = Library()
    runs = []
    rows, cols = 6, 16
    for reduce, op, dt in REDUCE_CASES:
        expr, ins, node = _expr(op, [np.dtype(dt)] * 2)
        with np.errstate(all="ignore"):
            xs = [special(dt, rng)[:rows * cols].reshape(rows, cols) for _ in range(2)]
            xs[1] = xs[1][::-1].copy()
            if reduce == "prod" and np.dtype(dt).kind == "f":  # keep products finite and exact-ish
                xs = [np.clip(x, -2, 2) for x in xs]
            value = _numpy(op, xs, ())
            want = np.asarray(getattr(np, reduce)(value, axis=-1))
        src = codegen.reduction(expr, ins, reduce, want.dtype, cols)
        v = np.abs(np.asarray(value, np.float64))
        scale = float(np.where(np.isfinite(v), v, 0).sum(-1).max())
        runs.append((f"{reduce}({op}{dt})", lib.add(src, "reduction"), xs, want, scale))
    built = lib.build(tempfile.mkdtemp(prefix="fgraph-codegen-"))
    for what, name, xs, want, scale in runs:
        got = np.empty_like(want)
        ptrs = (ctypes.c_void_p * 2)(*[x.ctypes.data for x in xs])
        getattr(built, name)(ctypes.c_long(rows), ctypes.c_long(cols), ptrs, ctypes.c_void_p(got.ctypes.data))
        if want.dtype.kind in "biu" or what.split("(")[0] in ("max", "min", "any", "all"):
            _assert_matches(what, got, want, exact=True)
        else:  # sums: sequential here, pairwise in NumPy, a tree on the GPU: equal up to rounding
            eps = np.finfo(want.dtype).eps
            np.testing.assert_allclose(got, want, rtol=8 * eps, atol=8 * eps * scale, equal_nan=True, err_msg=what)


#: element-wise steps written once against a namespace (NumPy or fgraph.numpy)
STEPS = [
    lambda xp, a, b: xp.tanh(a) * 2.5 - b, lambda xp, a, b: a * b + 1, lambda xp, a, b: xp.maximum(a, b) / 3,
    lambda xp, a, b: xp.where(a > b, a, -b), lambda xp, a, b: a // 3 + b % 4, lambda xp, a, b: xp.sqrt(xp.abs(a)),
    lambda xp, a, b: (a > 0).astype(xp.float32) + b, lambda xp, a, b: xp.clip(a, -1, 1) * b,
    lambda xp, a, b: xp.round(a, 1) - xp.floor(b), lambda xp, a, b: a ** 2 + xp.exp(-xp.abs(b)),
    lambda xp, a, b: xp.minimum(a, 0.5) * (b != 0), lambda xp, a, b: xp.sign(a) * xp.hypot(a, b),
]


@needs_gxx
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "int32"), ("int64", "int64"),
                                    ("float32", "int64"), ("int32", "bool")])
def test_fused_groups_from_the_optimiser_match_numpy(dtypes):
    """Random chains of steps, fused by fgraph.optimise into one group each;
    the group's generated kernel against NumPy on broadcast inputs."""
    rng = np.random.default_rng(zlib.crc32(repr(dtypes).encode()))  # not hash(): that varies per process
    shapes = [(4, 6), (6,)]
    lib, runs = Library(), []
    for trial in range(60):
        if len(runs) == 8:
            break
        steps = [STEPS[i] for i in rng.integers(0, len(STEPS), 4)]
        xs = [special(dt, rng)[:int(np.prod(s))].reshape(s) for dt, s in zip(dtypes, shapes)]
        xs = [np.where(np.isfinite(x), x, 1).astype(x.dtype) if x.dtype.kind == "f" else x for x in xs]
        phs = [fnp.placeholder(s, dt, name=f"x{k}") for k, (dt, s) in enumerate(zip(dtypes, shapes))]

        def chain(xp, a, b):
            for f in steps:
                a, b = f(xp, a, b), a
            return a
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                want = np.asarray(chain(np, *xs))
            lazy = chain(fnp, *phs)
        except (TypeError, fgraph.FgraphError):  # NumPy refuses (e.g. ** on negative int powers)
            continue
        g = fgraph.optimise(fgraph.Graph(lazy))
        fused = [n for n in g.nodes() if n.op == "fused"]
        if len(fused) != 1 or g.outputs[0] is not fused[0]:
            continue  # the chain did not become one group (a reduction-free chain usually does)
        node = fused[0]
        if not all(i.op in ("placeholder", "literal") for i in node.inputs):
            continue
        try:
            src = codegen.elementwise(node.param("expr"), [codegen.input_of_node(i) for i in node.inputs])
        except Unsupported:
            continue
        arrays = [np.ascontiguousarray(np.broadcast_to(xs[int(i.name[1:])], want.shape))
                  for i in node.inputs if i.op == "placeholder"]
        f32 = any(np.dtype(i[3]) == np.float32 for i in node.param("expr"))
        runs.append((trial, lib.add(src), arrays, want, f32))
    assert len(runs) >= 4, f"only {len(runs)} chains became a single fused group"
    built = lib.build(tempfile.mkdtemp(prefix="fgraph-codegen-"))
    for trial, name, arrays, want, f32 in runs:
        got = np.empty_like(want)
        ptrs = (ctypes.c_void_p * max(len(arrays), 1))(*[a.ctypes.data for a in arrays])
        getattr(built, name)(ctypes.c_long(want.size), ptrs, ctypes.c_void_p(got.ctypes.data))
        what = f"chain {trial} {dtypes}"
        if want.dtype.kind != "f":
            _assert_matches(what, got, want, exact=True)
        else:  # libm's float32 tanh/exp differ from NumPy's SIMD ones in the last bit; later ops carry that
            tol = 3e-5 if f32 else 1e-12
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=what)

"""Oracle tests for every element-wise function against NumPy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.ops.elementwise import ALIASES, UFUNCS
from oracle import DTYPES, array_of, arrays, check

ALL_DTYPES = DTYPES + [np.dtype("complex128")]
UNARY = sorted(n for n, c in ALIASES.items() if UFUNCS[c].nin == 1)
BINARY = sorted(n for n, c in ALIASES.items() if UFUNCS[c].nin == 2)


@pytest.mark.parametrize("name", UNARY)
@settings(max_examples=examples(25))
@given(data=st.data())
def test_unary_ufuncs(name, data):
    dt = data.draw(st.sampled_from(ALL_DTYPES))
    a = data.draw(arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4), -5, 5))
    check(lambda xp, x: getattr(xp, name)(x), a)


@pytest.mark.parametrize("name", BINARY)
@settings(max_examples=examples(25))
@given(data=st.data())
def test_binary_ufuncs_broadcast(name, data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4))
    d1, d2 = data.draw(st.sampled_from(ALL_DTYPES)), data.draw(st.sampled_from(ALL_DTYPES))
    a = data.draw(arrays(d1, shapes.input_shapes[0], -5, 5))
    b = data.draw(arrays(d2, shapes.input_shapes[1], -5, 5))
    check(lambda xp, x, y: getattr(xp, name)(x, y), a, b)


@pytest.mark.parametrize("name", BINARY)
@settings(max_examples=examples(20))
@given(data=st.data())
def test_binary_ufuncs_with_python_scalars(name, data):
    """NEP 50: a Python scalar takes the array's dtype (or NumPy refuses)."""
    dt = data.draw(st.sampled_from(DTYPES))
    a = data.draw(arrays(dt, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3), -5, 5))
    s = data.draw(st.one_of(st.booleans(), st.integers(-300, 300), st.floats(-5, 5, allow_nan=False)))
    left = data.draw(st.booleans())
    f = (lambda xp, x: getattr(xp, name)(x, s)) if left else (lambda xp, x: getattr(xp, name)(s, x))
    check(f, a)


OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a ** b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


@pytest.mark.parametrize("op", sorted(OPERATORS))
@settings(max_examples=examples(25))
@given(data=st.data())
def test_python_operators(op, data):
    f = OPERATORS[op]
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4))
    a = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shapes.input_shapes[0], 0, 6))
    b = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shapes.input_shapes[1], 0, 6))
    check(lambda xp, x, y: f(x, y), a, b)
    # reflected forms: a NumPy array or Python scalar on the left; a NumPy array on the right (each twice:
    # the second call takes the fast path the first remembered)
    for _ in range(2):
        check(lambda xp, y: f(a, y), b)
        check(lambda xp, x: f(x, b), a)
    check(lambda xp, y: f(2, y), b)


@pytest.mark.parametrize("unary", [lambda a: -a, lambda a: +a, lambda a: abs(a), lambda a: ~a])
@given(a=array_of(DTYPES, max_dims=3, max_side=4))
def test_unary_operators(unary, a):
    check(lambda xp, x: unary(x), a)


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "//=", "**="])
@given(data=st.data())
def test_inplace_operators_write_with_numpy_casting(op, data):
    a = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), (3, 2), 0, 5))
    b = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), data.draw(st.sampled_from([(2,), (3, 2), ()])), 0, 5))
    code = f"x {op} y"

    def f(xp, x, y):
        before = x
        env = {"x": x, "y": y}
        exec(code, env)
        if xp is fnp:  # in place, as NumPy: the same array (its handle moved), its dtype kept
            assert env["x"] is before and before.dtype == np.asarray(a).dtype
        return env["x"]

    check(f, a, b)


@pytest.mark.parametrize("exponent", [2, -1, 0.5, 2.0, -1.0, 1, 0, 3, True, np.float64(0.5), np.int64(2)])
@settings(max_examples=examples(20))
@given(data=st.data())
def test_power_operator_takes_numpys_shortcuts(exponent, data):
    """NumPy's ``x ** 2`` is square (``bool ** 2`` is int8), ``x ** -1`` and
    ``x ** 0.5`` are reciprocal and sqrt on float and complex arrays (complex
    sqrt differs from power in the last bit); other exponents take power."""
    a = data.draw(arrays(data.draw(st.sampled_from(ALL_DTYPES)), data.draw(st.sampled_from([(), (4,), (2, 3)])), -5, 5))

    def inplace(xp, x):
        x **= exponent
        return x

    check(lambda xp, x: x ** exponent, a)
    # NumPy's own complex square differs by an ulp between its in-place
    # loop on a 0-d or 1-element array and its out-of-place one (which ours
    # matches): square(b, out=b) != square(b) there
    check(inplace, a, rtol=np.finfo(a.dtype).eps if a.dtype.kind == "c" else 0.0)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_power_operator_shortcuts_on_special_values(dtype):
    a = np.array([-0.0, 0.0, -np.inf, np.inf, np.nan, -2.5, 1e-30, 3.0], dtype)
    if a.dtype.kind == "c":
        a = a + np.array([0, -0.0, 1, -1, np.inf, 2.5, 0, -3.0]) * 1j
    for exponent in (2, -1, 0.5):
        check(lambda xp, x: x ** exponent, a)
    assert (fnp.placeholder((2,), dtype) ** 2).node.op == "square"
    assert (fnp.placeholder((2,), "int32") ** 0.5).node.op == "power"


COMPARISONS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
               "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


@pytest.mark.parametrize("op", sorted(COMPARISONS))
@settings(max_examples=examples(30))
@given(data=st.data())
def test_comparisons_with_python_ints_beyond_the_dtype(op, data):
    """NumPy 2 compares an integer array with any Python int exactly (int8 ==
    300 is all False) where arithmetic refuses the int; both sides."""
    dt = data.draw(st.sampled_from(["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"]))
    a = data.draw(arrays(np.dtype(dt), data.draw(st.sampled_from([(), (3,), (2, 3)])), -100, 100))
    v = data.draw(st.one_of(st.integers(-2**70, 2**70), st.sampled_from([-1, 0, 255, 256, -129, 2**63, 2**64])))
    f = COMPARISONS[op]
    check(lambda xp, x: f(x, v), a)
    check(lambda xp, x: f(v, x), a)


@settings(max_examples=examples(60))
@given(data=st.data())
def test_clip_with_python_int_bounds_beyond_the_dtype(data):
    """NumPy clips an integer array with a Python int bound beyond its dtype
    as if that bound were absent; one beyond on the other side is refused."""
    dt = data.draw(st.sampled_from(["int8", "uint8", "int16", "uint32", "int64", "uint64", "float32"]))
    a = data.draw(arrays(np.dtype(dt), (5,), -100, 100))
    bound = st.one_of(st.none(), st.integers(-2**70, 2**70), st.sampled_from([-129, -128, 127, 128, 255, 256, -1]))
    lo, hi = data.draw(bound), data.draw(bound)
    check(lambda xp, x: xp.clip(x, lo, hi), a)


def test_a_comparison_settled_by_the_range_keeps_its_input():
    x = fnp.placeholder((4,), "int8", name="x")
    g = fgraph.Graph(x == 300)
    assert [n.name for n in g.inputs] == ["x"]
    np.testing.assert_array_equal(fgraph.compile(g)(x=np.arange(4, dtype="int8")), np.zeros(4, bool))


@given(data=st.data())
def test_where_clip_round(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=4))
    c = data.draw(arrays(np.dtype(bool), shapes.input_shapes[0]))
    a = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shapes.input_shapes[1], -5, 5))
    b = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shapes.input_shapes[2], -5, 5))
    check(lambda xp, c, a, b: xp.where(c, a, b), c, a, b)
    check(lambda xp, c, a: xp.where(c, a, 1.5), c, a)
    check(lambda xp, a, b: xp.clip(a, b, 3), a, b)
    check(lambda xp, a: xp.clip(a, -1, None), a)
    check(lambda xp, a: xp.clip(a, None, 2.5), a)
    check(lambda xp, a: xp.clip(a, min=-2), a)
    d = data.draw(st.integers(-2, 2))
    check(lambda xp, a: xp.round(a * 1.37, d), a)
    check(lambda xp, a: xp.around(a, d), a)
    check(lambda xp, a: xp.fix(a * 0.7), a)


@given(a=array_of(DTYPES + [np.dtype("complex64")], max_dims=2),
       to=st.sampled_from(DTYPES + [np.dtype("complex64"), np.dtype("uint8"), np.dtype("float16")]))
def test_astype_real_imag(a, to):
    check(lambda xp, x: x.astype(to), a)
    check(lambda xp, x: xp.real(x), a)
    check(lambda xp, x: xp.imag(x), a)


@given(a=arrays(np.dtype("float64"), (5,), -3, 3))
def test_multi_output_ufuncs(a):
    check(lambda xp, x: list(xp.modf(x)), a)
    check(lambda xp, x: list(xp.frexp(x)), a)
    check(lambda xp, x: list(xp.divmod(x, 0.7)), a)
    check(lambda xp, x: list(divmod(x, 3)), a)


def test_numpy_ufunc_on_lazy_builds_a_node():
    t = fnp.asarray(np.arange(4.0))
    for out in (np.sin(t), np.add(t, 1), np.maximum(t, t), t + np.ones(4), np.ones(4) + t):
        assert isinstance(out, fgraph.Tensor)
    np.testing.assert_array_equal(np.asarray(np.sin(t)), np.sin(np.arange(4.0)))
    assert np.add.reduce(t).shape == () if hasattr(fnp, "sum") and fnp.sum.__module__.endswith("reduction") else True


def test_ufunc_refusals_are_clear():
    t = fnp.asarray(np.arange(4.0))
    o = np.empty(4)  # out= a NumPy array: written with the values, and returned
    assert fnp.sin(t, out=o) is o and np.array_equal(o, np.sin(np.arange(4.0)))
    with pytest.raises(fgraph.DTypeError, match=r"(?s)invert.*float64.*test_elementwise.py"):
        fnp.invert(t)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)add.*\(4,\).*\(3,\).*test_elementwise.py"):
        t + fnp.ones(3) if hasattr(fnp, "ones") else t + np.ones(3)
    with pytest.raises(fgraph.DTypeError, match="out of bounds for uint8"):
        fnp.asarray(np.arange(3, dtype=np.uint8)) + 300
    with pytest.raises(fgraph.DTypeError, match="same_kind"):
        u = fnp.asarray(np.arange(3))
        u += 1.5


@pytest.mark.parametrize("op, call", [
    ("max", lambda x: fnp.max(x, initial=300)), ("sum", lambda x: fnp.sum(x, initial=2**64)),
    ("round", lambda x: fnp.round(x, 2**70)), ("var", lambda x: fnp.var(x, ddof=2**70)),
])
def test_python_ints_beyond_a_dtype_are_dtype_errors_not_numpy_tracebacks(op, call):
    # NumPy raises OverflowError for these; fgraph names the op, the input and the user's line
    x = fnp.placeholder((2, 3), "int8", name="x")
    with pytest.raises(fgraph.DTypeError, match=rf"(?s){op}.*int8.*test_elementwise.py"):
        call(x)


@pytest.mark.parametrize("call", [lambda f: f + 2**1024, lambda f: f < -2**1100, lambda f: fnp.multiply(10**400, f)])
def test_python_ints_too_large_for_a_double_are_refused_at_once(call):
    # NumPy: OverflowError "int too large to convert to float" at the call, for any float or complex array
    for dt in ("float32", "complex128"):
        with pytest.raises(fgraph.DTypeError, match=r"(?s)too large to convert to float.*test_elementwise.py"):
            call(fnp.placeholder((3,), dt, name="f"))
    assert (fnp.placeholder((3,), "float32") + 2**1023).dtype == np.float32  # a double holds it: inf in float32


@settings(max_examples=examples(80), deadline=None)
@given(st.sampled_from(["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex64",
                        "complex128"]), st.integers(0, 2 ** 32 - 1), st.sampled_from(["aa", "a0", "0a", "as", "sa"]))
def test_where_kernel_selects_the_exact_bits(dtype, seed, form):
    # the out-kernel selects bits (no branches): it must match np.where bit for bit, NaN payloads and -0.0 too
    from fgraph.ops.elementwise import _where

    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=(2, 3, 4 * np.dtype(dtype).itemsize), dtype=np.uint8)
    x = raw.view(dtype).reshape(2, 3, 4) if dtype != "bool" else raw[..., :4] > 127
    y = x[::-1, :, ::-1].copy()[0]  # another array, broadcast along the first axis
    cond = rng.random((2, 1, 4)) > 0.5
    a = {"a": x, "0": 0, "s": 1}[form[0]]
    b = {"a": y, "0": 0, "s": 1}[form[1]]
    want = np.where(cond, a, b)
    got = _where(cond, a, b, np.empty(want.shape, want.dtype))
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@settings(max_examples=examples(60))
@given(st.data(), st.sampled_from(["bool", "int8", "int64", "float16", "float32", "float64"]),
       st.sampled_from(["bool", "int32", "float32", "float64"]))
def test_make_complex_copies_the_parts(data, dt_re, dt_im):
    from fgraph.ops.elementwise import make_complex

    specials = st.sampled_from([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan])
    with np.errstate(invalid="ignore"):  # NaN and inf cast to an integer: any value will do
        re = np.array(data.draw(st.lists(specials, min_size=4, max_size=4))).astype(dt_re)
        im = np.array(data.draw(st.lists(specials, min_size=1, max_size=1))).astype(dt_im)
    with np.errstate(all="ignore"):
        want_dtype = (re + 1j * im).dtype  # the arithmetic form's dtype; its values lose signs and infinities
    for t in (make_complex(fnp.asarray(re), fnp.asarray(im)),
              fgraph.compile(fgraph.Graph(make_complex(fnp.placeholder((4,), dt_re, name="r"),
                                                       fnp.placeholder((1,), dt_im, name="i"))))):
        got = np.asarray(t) if not callable(t) else t(r=re, i=im)
        assert got.dtype == want_dtype and got.shape == (4,)
        for part, src in ((got.real, re), (got.imag, np.broadcast_to(im, (4,)))):
            np.testing.assert_array_equal(part, src.astype(part.dtype))
            assert np.array_equal(np.signbit(part), np.signbit(src.astype(part.dtype)))
    d = fgraph.make("dask")
    np.testing.assert_array_equal(np.asarray(make_complex(d.asarray(re), d.asarray(im))),
                                  np.asarray(make_complex(fnp.asarray(re), fnp.asarray(im))))


@pytest.mark.parametrize("re", [1.5, np.float32(2.0), np.array([True]), np.array([1], "int8"),
                                np.array([1.0], "float16")])
@pytest.mark.parametrize("im", [0.5, np.array([2.0], "float32"), np.array([3], "int64"), np.array([False])])
def test_make_complex_dtype_is_the_arithmetic_forms(re, im):
    from fgraph.ops.elementwise import make_complex

    lazy = lambda v: v if isinstance(v, float) else fnp.asarray(v)  # noqa: E731
    assert make_complex(lazy(re), lazy(im)).dtype == np.result_type(re + 1j * im)


@settings(max_examples=examples(30))
@given(array_of(min_dims=0, max_dims=3))
def test_comparison_with_none_is_elementwise(a):
    # arr == None: NumPy compares each element with None as objects (a sentinel check in user code)
    t = fnp.asarray(a)
    for got, want in [(t == None, a == None), (t != None, a != None),  # noqa: E711
                      (None == t, None == a), (None != t, None != a)]:  # noqa: E711
        assert repr(got) == repr(want)


@pytest.mark.parametrize("make", [lambda xp, a: a.max() - 1, lambda xp, a: a[1], lambda xp, a: a.sum() // 3,
                                  lambda xp, a: xp.array(2), lambda xp, a: a[1:2].reshape(()),
                                  lambda xp, a: a.mean(), lambda xp, a: a[0] > 1])
def test_sequence_times_a_scalar_repeats_it(make):
    # [0] * n with n = a.max(): a NumPy integer scalar repeats the list (a 0-d array multiplies elementwise)
    for seq in ([0, 1], (5,)):
        for fn in (lambda s, n: s * n, lambda s, n: n * s):
            outcomes = []
            for xp in (np, fnp):
                try:
                    outcomes.append(repr(fn(seq, make(xp, xp.array([3, 1, 2])))))
                except TypeError as e:
                    outcomes.append(f"TypeError {'sequence' in str(e) or 'index' in str(e)}")
            assert outcomes[1] == outcomes[0]

"""fgraph.numpy as a Python Array API namespace (2024.12), compared with the
reference implementation ``array_api_strict``: the dtype helpers (finfo,
iinfo, isdtype, result_type, can_cast), the inspection object, the names the
standard requires, and generic Array API code run on lazy arrays.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp

xps = pytest.importorskip("array_api_strict")

VERSION = "2024.12"
DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float32", "float64", "complex64", "complex128"]
KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric"]
# names array_api_strict adds for its own use, not part of the standard
STRICT_ONLY = {"ArrayAPIStrictFlags", "Device", "get_array_api_strict_flags", "set_array_api_strict_flags",
               "reset_array_api_strict_flags", "__version__"}
# optional extensions of the standard, checked separately (linalg) or not at all (fft)
EXTENSIONS = {"linalg", "fft"}


@pytest.fixture(scope="module", autouse=True)
def strict_2024_12():
    xps.set_array_api_strict_flags(api_version=VERSION)
    yield
    xps.reset_array_api_strict_flags()


def ours(name):
    return getattr(fnp, name)


def theirs(name):
    return getattr(xps, name)


# ---------------------------------------------------------------- what the standard requires

def _wrappers(f):
    """f and the functions it wraps (array_api_strict gates functions by decorators)."""
    while f is not None:
        yield f
        f = getattr(f, "__wrapped__", None)


def _requirement(f):
    """(API version a function needs, whether it needs data-dependent shapes)."""
    version, data_dependent = "0", False
    for w in _wrappers(f):
        code = getattr(w, "__code__", None)
        if code is None:
            continue
        cells = dict(zip(code.co_freevars, w.__closure__ or ()))
        if "version" in cells:
            version = max(version, cells["version"].cell_contents)
        if "requires_data_dependent_shapes" in getattr(code, "co_qualname", ""):
            data_dependent = True
    return version, data_dependent


def required_names(module, skip=()):
    """Names of ``module`` the 2024.12 standard requires of a namespace that,
    like ours, says ``"data-dependent shapes": False``."""
    names = []
    for name in getattr(module, "__all__", dir(module)):
        if name in STRICT_ONLY or name in skip or name.startswith("_") and name not in (
                "__array_namespace_info__", "__array_api_version__"):
            continue
        version, data_dependent = _requirement(getattr(module, name))
        if version > VERSION or data_dependent:
            continue
        names.append(name)
    return names


def test_array_api_version_and_info_capabilities():
    assert fnp.__array_api_version__ == VERSION
    info = fnp.__array_namespace_info__()
    caps = info.capabilities()
    assert caps == {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}
    assert set(caps) == set(xps.__array_namespace_info__().capabilities())


def test_namespace_has_every_required_name():
    """Every name the standard requires exists in fgraph.numpy (other families
    add theirs in parallel: the assertion lists what is still missing)."""
    missing = [n for n in required_names(xps, skip=EXTENSIONS) if not hasattr(fnp, n)]
    assert missing == [], f"fgraph.numpy lacks Array API names: {missing}"


def test_data_dependent_functions_are_the_expected_ones():
    excluded = sorted(n for n in xps.__all__ if _requirement(getattr(xps, n))[1])
    assert excluded == ["nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


def test_linalg_extension_has_every_required_name():
    assert hasattr(fnp, "linalg"), "fgraph.numpy has no linalg extension"
    missing = [n for n in required_names(xps.linalg) if not hasattr(fnp.linalg, n)]
    assert missing == [], f"fgraph.numpy.linalg lacks Array API names: {missing}"


def test_array_object_has_the_standard_attributes():
    arr_type = type(xps.asarray(1))
    internal = {"__annotations__", "__doc__", "__module__", "__new__", "__slots__", "__weakref__", "__buffer__",
                "__hash__", "__repr__", "__str__", "__iter__"}
    names = [n for n in vars(arr_type) if (not n.startswith("_") or n.startswith("__")) and n not in internal]
    missing = [n for n in names if not hasattr(fgraph.Tensor, n)]
    assert missing == []


def test_array_namespace_of_a_lazy_array():
    t = fnp.asarray(np.ones(3))
    assert t.__array_namespace__() is fnp
    assert t.__array_namespace__(api_version=VERSION) is fnp
    with pytest.raises(ValueError):
        t.__array_namespace__(api_version="1999.01")
    f32 = fgraph.make(dtype="float32")
    u = f32.zeros(3)
    assert u.__array_namespace__() is f32
    assert u.device in f32.__array_namespace_info__().devices()


# ---------------------------------------------------------------- dtypes

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_objects(name):
    d = ours(name)
    assert d is getattr(np, name)  # exactly as numpy exposes it
    assert np.dtype(d) == np.dtype(name)
    for make in (lambda: fnp.zeros(2, dtype=d), lambda: fnp.asarray([1], dtype=d), lambda: fnp.full(2, 1, dtype=d),
                 lambda: fnp.astype(fnp.ones(2), d), lambda: fnp.placeholder((2,), d)):
        assert make().dtype == d


def _xdtype(d):
    return theirs(np.dtype(d).name)


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_finfo(name):
    got, want = fnp.finfo(ours(name)), xps.finfo(theirs(name))
    for field in ("bits", "eps", "max", "min", "smallest_normal"):
        assert float(getattr(got, field)) == float(getattr(want, field)), field
    assert np.dtype(got.dtype).name == str(want.dtype).split(".")[-1]
    # an array (lazy) is accepted, as the standard says
    assert fnp.finfo(fnp.ones(1, dtype=ours(name))).bits == want.bits


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_iinfo(name):
    got, want = fnp.iinfo(ours(name)), xps.iinfo(theirs(name))
    assert (got.bits, got.min, got.max) == (want.bits, want.min, want.max)
    assert np.dtype(got.dtype).name == name
    assert fnp.iinfo(fnp.zeros(1, dtype=ours(name))).max == want.max


def test_finfo_iinfo_refuse_wrong_kinds():
    with pytest.raises(fgraph.DTypeError, match="test_array_api.py"):
        fnp.finfo(fnp.int32)
    with pytest.raises(fgraph.DTypeError, match="iinfo"):
        fnp.iinfo(fnp.float32)


kind_args = st.one_of(st.sampled_from(KINDS), st.sampled_from(DTYPE_NAMES),
                      st.lists(st.one_of(st.sampled_from(KINDS), st.sampled_from(DTYPE_NAMES)),
                               min_size=0, max_size=3).map(tuple))


@given(st.sampled_from(DTYPE_NAMES), kind_args)
def test_isdtype(name, kind):
    def conv(k, ns):
        return k if k in KINDS else getattr(ns, k)
    ours_kind = tuple(conv(k, fnp) for k in kind) if isinstance(kind, tuple) else conv(kind, fnp)
    their_kind = tuple(conv(k, xps) for k in kind) if isinstance(kind, tuple) else conv(kind, xps)
    assert fnp.isdtype(ours(name), ours_kind) == xps.isdtype(theirs(name), their_kind)
    assert fnp.isdtype(np.dtype(name), ours_kind) == xps.isdtype(theirs(name), their_kind)


@pytest.mark.parametrize("name", ["float16", "longdouble", "clongdouble", "intp"])
@pytest.mark.parametrize("kind", KINDS)
def test_isdtype_beyond_the_standard_follows_numpy(name, kind):
    assert fnp.isdtype(np.dtype(name), kind) == np.isdtype(np.dtype(name), kind)


def test_isdtype_refuses_unknown_kinds():
    with pytest.raises(fgraph.DTypeError, match="kind"):
        fnp.isdtype(fnp.float32, "floating")


def _their_result_or_error(*args):
    try:
        return xps.result_type(*args)
    except (TypeError, ValueError, OverflowError):
        return None


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPE_NAMES, repeat=2)))
def test_result_type_and_can_cast_dtypes(a, b):
    want = _their_result_or_error(theirs(a), theirs(b))
    if want is None:  # the standard leaves mixed kinds undefined; NumPy's rules decide
        assert fnp.can_cast(ours(a), ours(b)) == np.can_cast(np.dtype(a), np.dtype(b))
        return
    assert fnp.result_type(ours(a), ours(b)) == np.dtype(str(want).split(".")[-1])
    assert fnp.can_cast(ours(a), ours(b)) == xps.can_cast(theirs(a), theirs(b))


@given(st.sampled_from(DTYPE_NAMES), st.sampled_from(DTYPE_NAMES),
       st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-3, 3), st.complex_numbers(max_magnitude=3)))
@settings(max_examples=examples(100))
def test_result_type_arrays_and_python_scalars(a, b, scalar):
    """Lazy arrays and Python scalars (weak, NEP 50), as array_api_strict says."""
    x, y = fnp.zeros(2, dtype=ours(a)), fnp.zeros(2, dtype=ours(b))
    xx, yy = xps.zeros(2, dtype=theirs(a)), xps.zeros(2, dtype=theirs(b))
    args, their_args = [x, y], [xx, yy]
    if scalar is not None:
        args.append(scalar)
        their_args.append(scalar)
    want = _their_result_or_error(*their_args)
    if want is not None:
        assert fnp.result_type(*args) == np.dtype(str(want).split(".")[-1])
        # and it is the dtype our arithmetic gives, as NumPy's does
        if scalar is not None and a != "bool":
            try:
                np_dtype = (np.zeros(2, a) + scalar).dtype
            except OverflowError:  # a Python int out of range: refused by both
                with pytest.raises(fgraph.DTypeError):
                    x + scalar
            else:
                assert (x + scalar).dtype == fnp.result_type(x, scalar) == np_dtype
    if _their_result_or_error(theirs(a), theirs(b)) is not None:
        assert fnp.can_cast(x, ours(b)) == xps.can_cast(xx, theirs(b))


def test_result_type_refuses_non_dtypes():
    with pytest.raises(fgraph.DTypeError, match="result_type"):
        fnp.result_type("not a dtype")


# ---------------------------------------------------------------- the inspection object

def _names(d):
    return {k: str(v).split(".")[-1] for k, v in d.items()}


@pytest.mark.parametrize("kind", [None] + KINDS + [("bool", "real floating"), ("signed integer", "complex floating")])
def test_info_dtypes(kind):
    got = fnp.__array_namespace_info__().dtypes(kind=kind)
    want = xps.__array_namespace_info__().dtypes(kind=kind)
    assert {k: np.dtype(v).name for k, v in got.items()} == _names(want)


def test_info_devices_and_default_dtypes():
    info = fnp.__array_namespace_info__()
    want = xps.__array_namespace_info__().default_dtypes()
    assert {k: np.dtype(v).name for k, v in info.default_dtypes().items()} == _names(want)
    assert info.default_device() in info.devices()
    assert fnp.ones(2).device == info.default_device()
    assert info.dtypes(device=info.default_device()) == info.dtypes()
    with pytest.raises(fgraph.FgraphError, match="device"):
        info.dtypes(device="tpu")
    f32 = fgraph.make(dtype="float32").__array_namespace_info__().default_dtypes()
    assert f32["real floating"] == np.float32 and f32["complex floating"] == np.complex64


# ---------------------------------------------------------------- generic Array API code

def standardise(x):
    """Standardise the columns of x, written against the Array API only."""
    xp = x.__array_namespace__()
    mu = xp.mean(x, axis=0)
    sd = xp.std(x, axis=0)
    return (x - mu) / xp.sqrt(sd * sd + xp.asarray(1e-12, dtype=x.dtype))


def ramp_mix(x):
    """Creation functions, where and astype through the namespace of x."""
    xp = x.__array_namespace__()
    n, m = x.shape
    eye = xp.eye(n, m, k=1, dtype=x.dtype)
    ramp = xp.linspace(0, 1, m, dtype=x.dtype)
    grid_i, grid_j = xp.meshgrid(xp.arange(n), xp.arange(m), indexing="ij")
    steps = xp.astype(grid_i + grid_j, x.dtype)
    lower = xp.tril(xp.ones_like(x), k=-1) * xp.full_like(x, 0.5)
    return xp.where(eye > 0, x, ramp + steps) + lower + xp.zeros((n, m), dtype=x.dtype) + xp.triu(x)


@pytest.mark.parametrize("fn", [ramp_mix, standardise])
@given(st.integers(1, 6), st.integers(1, 5), st.sampled_from(["float32", "float64"]), st.data())
@settings(max_examples=examples(25))
def test_generic_array_api_code_matches_array_api_strict(fn, n, m, dtype, data):
    from oracle import arrays

    a = data.draw(arrays(dtype, (n, m), lo=-10, hi=10))
    want = np.asarray(fn(xps.asarray(a)))
    got = fn(fnp.asarray(a))
    assert isinstance(got, fgraph.Tensor)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda xp: xp.zeros((2, 3)), lambda xp: xp.ones(4, dtype=xp.int32), lambda xp: xp.full((2,), 1.5),
    lambda xp: xp.full((2, 2), True), lambda xp: xp.full(3, 7), lambda xp: xp.full(2, 1j),
    lambda xp: xp.eye(3, 4, k=-1), lambda xp: xp.arange(5), lambda xp: xp.arange(1, 2, 0.25),
    lambda xp: xp.arange(0.5, step=0.1, stop=1.3), lambda xp: xp.linspace(0, 1, 5, endpoint=False),
    lambda xp: xp.linspace(2, 3, 4, dtype=xp.float32), lambda xp: xp.tril(xp.ones((3, 3)), k=1),
    lambda xp: xp.triu(xp.ones((2, 3, 3)), k=-1), lambda xp: xp.zeros_like(xp.ones((2,), dtype=xp.int8)),
    lambda xp: xp.full_like(xp.ones(3, dtype=xp.uint8), 9), lambda xp: xp.empty((0, 2)).shape,
    lambda xp: xp.meshgrid(xp.arange(3), xp.arange(2)), lambda xp: xp.asarray([[1, 2], [3, 4]], dtype=xp.int16),
    lambda xp: xp.from_dlpack(np.arange(3.0)),
])
def test_creation_matches_array_api_strict(call):
    want, got = call(xps), call(fnp)
    if isinstance(want, tuple) and not hasattr(want, "dtype"):
        assert got == want
        return
    if isinstance(want, (list, tuple)):
        assert isinstance(got, list) and len(got) == len(want)
    else:
        want, got = [want], [got]
    for w, g in zip(want, got):
        w = np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype)
        np.testing.assert_array_equal(np.asarray(g), w, strict=True)

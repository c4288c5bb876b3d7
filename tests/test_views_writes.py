"""Views and writes, by oracle: random programs of views, writes and reads
run with NumPy and with fgraph (the same calls), compared at every read.

A program keeps a list of live arrays (NumPy's, and fgraph's side by side)
and draws steps: take a view (basic indexing, transpose, reshape, ravel,
flip, swapaxes, squeeze, expand_dims, diagonal, broadcast_to, real, imag,
view), copy, write (setitem with basic, fancy and mask keys, augmented
assignment, ``out=``, ``copyto``, ``fill``, ``put``, ``sort``), or read
(every live array's values, writeability, ``shares_memory`` of pairs and
whether it owns its data).  Where NumPy raises, fgraph must raise the same
built-in class.  ``HYPOTHESIS_PROFILE=thorough`` runs 2000 programs.
"""
import operator

import warnings

import numpy as np
import pytest
from hypothesis import example, given, note, settings
from hypothesis import strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp

ERRORS = (ValueError, TypeError, IndexError, AttributeError)


def _same_error(np_fn, fg_fn):
    """Run both; both succeed (returning their results) or both raise the same built-in class."""
    try:
        expected = np_fn()
    except ERRORS as e:
        with pytest.raises(type(e).__mro__[1] if type(e).__name__ == "AxisError" else _builtin(e)):
            fg_fn()
        return None, None
    return expected, fg_fn()


def _builtin(e):
    for cls in ERRORS:
        if isinstance(e, cls):
            return cls
    return type(e)


def _read(arrays):
    for k, (a, t) in enumerate(arrays):
        got = np.asarray(t)
        where = f"array {k}: {a.dtype}{list(a.shape)} strides {a.strides}, fgraph {got.dtype}{list(got.shape)} " \
                f"strides {t.strides}"
        assert got.shape == a.shape and got.dtype == a.dtype, where
        np.testing.assert_array_equal(got, a, err_msg=where)
        assert t.flags.writeable == a.flags.writeable, where
        if a.size and (a.base is not None or a.flags.c_contiguous):
            # (a new array is C-contiguous in fgraph, where NumPy may keep an input's order: see README)
            assert t.flags.c_contiguous == a.flags.c_contiguous, where
            assert t.strides == a.strides, where
    for i in range(len(arrays)):
        for j in range(i + 1, len(arrays)):
            (a, t), (b, u) = arrays[i], arrays[j]
            assert fnp.shares_memory(t, u) == np.shares_memory(a, b), (i, j)
            assert np.shares_memory(t, u) == np.shares_memory(a, b)


def _basic_key(data, shape):
    key = []
    for n in shape:
        kind = data.draw(st.sampled_from(["slice", "slice", "int", "all"]))
        if kind == "int" and n:
            key.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start = data.draw(st.none() | st.integers(-n - 1, n + 1))
            stop = data.draw(st.none() | st.integers(-n - 1, n + 1))
            step = data.draw(st.none() | st.sampled_from([1, 2, -1, -2, 3]))
            key.append(slice(start, stop, step))
        else:
            key.append(slice(None))
    if data.draw(st.booleans()) and key:
        key.insert(data.draw(st.integers(0, len(key))), None)
    if data.draw(st.booleans()) and key:
        k = data.draw(st.integers(0, len(key) - 1))
        key[k:] = [Ellipsis] + [e for e in key[k + 1:]]
    return tuple(key)


def _view(data, a, t):
    """One view-making call, drawn, as (numpy_fn, fgraph_fn)."""
    nd = a.ndim
    kind = data.draw(st.sampled_from(["index", "index", "T", "transpose", "reshape", "ravel", "flip", "swapaxes",
                                      "squeeze", "expand_dims", "diagonal", "broadcast_to", "real", "imag", "view",
                                      "flat_reshape_method"]))
    if kind == "index":
        key = _basic_key(data, a.shape)
        return (lambda x: x[key]), kind
    if kind == "T":
        return (lambda x: x.T), kind
    if kind == "transpose":
        perm = tuple(data.draw(st.permutations(range(nd))))
        return (lambda x: x.transpose(perm)), kind
    if kind in ("reshape", "flat_reshape_method"):
        size = a.size
        options = [(size,), (1, size), (size, 1), (-1,)]
        options += [(d, size // d) for d in range(2, size + 1) if size % d == 0][:3]
        shape = data.draw(st.sampled_from(options))
        if kind == "reshape":
            return (lambda x: x.reshape(shape)), kind
        return (lambda x: (fnp if isinstance(x, fgraph.Tensor) else np).reshape(x, shape)), kind
    if kind == "ravel":
        return (lambda x: (fnp if isinstance(x, fgraph.Tensor) else np).ravel(x)), kind
    if kind == "flip":
        axis = data.draw(st.none() | st.integers(0, max(nd - 1, 0))) if nd else None
        return (lambda x: (fnp if isinstance(x, fgraph.Tensor) else np).flip(x, axis)), kind
    if kind == "swapaxes" and nd >= 2:
        i, j = data.draw(st.integers(0, nd - 1)), data.draw(st.integers(0, nd - 1))
        return (lambda x: x.swapaxes(i, j)), kind
    if kind == "squeeze":
        return (lambda x: x.squeeze()), kind
    if kind == "expand_dims":
        ax = data.draw(st.integers(-nd - 1, nd))
        return (lambda x: (fnp if isinstance(x, fgraph.Tensor) else np).expand_dims(x, ax)), kind
    if kind == "diagonal" and nd >= 2:
        off = data.draw(st.integers(-2, 2))
        return (lambda x: x.diagonal(off)), kind
    if kind == "broadcast_to":
        shape = (2,) + a.shape
        return (lambda x: (fnp if isinstance(x, fgraph.Tensor) else np).broadcast_to(x, shape)), kind
    if kind in ("real", "imag"):
        return (lambda x: getattr(x, kind)), kind
    return (lambda x: x.view()), "view"


def _value(data, shape, dtype):
    if data.draw(st.booleans()) or not shape:
        return data.draw(st.integers(-9, 9))
    vshape = shape[data.draw(st.integers(0, len(shape))):]  # broadcastable trailing part
    return np.asarray(data.draw(st.lists(st.integers(-9, 9), min_size=int(np.prod(vshape)),
                                         max_size=int(np.prod(vshape))))).reshape(vshape).astype(dtype)


def _write(data, arrays, k):
    """One write into live array ``k``, drawn, applied to both sides."""
    a, t = arrays[k]
    kind = data.draw(st.sampled_from(["setitem", "setitem", "iadd", "imul", "fancy", "mask", "out", "copyto",
                                      "fill", "put", "sort", "whole"]))
    note(f"  write {kind}")

    def both(fn):
        _same_error(lambda: fn(a, np), lambda: fn(t, fnp))
        note(f"  -> {a!r}")

    if kind == "setitem":
        key = _basic_key(data, a.shape)
        try:
            region = a[key].shape
        except IndexError:
            region = ()
        v = _value(data, region, a.dtype)
        both(lambda x, xp: x.__setitem__(key, v))
    elif kind == "whole":
        v = _value(data, a.shape, a.dtype)
        both(lambda x, xp: x.__setitem__(Ellipsis, v))
    elif kind in ("iadd", "imul"):
        v = data.draw(st.integers(-3, 3))
        if kind == "iadd":
            def fn(x, xp):
                x += v
        else:
            def fn(x, xp):
                x *= v
        both(fn)
    elif kind == "fancy" and a.ndim:
        n = a.shape[0]
        idx = data.draw(st.lists(st.integers(-max(n, 1), max(n, 1) - 1), max_size=4)) if n else []
        v = data.draw(st.integers(-9, 9))
        both(lambda x, xp: x.__setitem__(np.array(idx, dtype=np.intp), v))
    elif kind == "mask":
        th = data.draw(st.integers(-5, 5))
        v = data.draw(st.integers(-9, 9))
        both(lambda x, xp: x.__setitem__(x.real > th if x.dtype.kind == "c" else x > th, v))
    elif kind == "out":
        v = data.draw(st.integers(-3, 3))
        both(lambda x, xp: xp.add(x, v, out=x))
    elif kind == "copyto":
        v = _value(data, a.shape, a.dtype)
        both(lambda x, xp: xp.copyto(x, v))
    elif kind == "fill":
        v = data.draw(st.integers(-9, 9))
        both(lambda x, xp: x.fill(v))
    elif kind == "put" and a.size:
        idx = data.draw(st.lists(st.integers(0, a.size - 1), min_size=1, max_size=3))
        v = data.draw(st.integers(-9, 9))
        both(lambda x, xp: xp.put(x, idx, v))
    elif kind == "sort" and a.dtype.kind != "c":
        both(lambda x, xp: x.sort())


def _program(data, ns_asarray, steps):
    dtype = data.draw(st.sampled_from([np.float64, np.int64, np.complex128]))
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    base = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    if dtype == np.complex128:
        base = np.asarray(base + 1j * base[::-1] if base.ndim else base + 1j)
    arrays = [(np.array(base), ns_asarray(base))]
    for _ in range(steps):
        action = data.draw(st.sampled_from(["view", "view", "write", "write", "write", "copy", "read"]))
        k = data.draw(st.integers(0, len(arrays) - 1))
        a, t = arrays[k]
        note(f"{action} on array {k}: {a.dtype}{list(a.shape)} flags.writeable={a.flags.writeable}")
        if action == "view":
            fn, kind = _view(data, a, t)
            note(f"  view {kind}")
            va, vt = _same_error(lambda: fn(a), lambda: fn(t))
            if isinstance(va, np.ndarray) and va.size <= 64:
                assert isinstance(vt, fgraph.Tensor)
                arrays.append((va, vt))
        elif action == "copy":
            arrays.append((a.copy(), t.copy()))
        elif action == "write":
            _write(data, arrays, k)
        else:
            _read(arrays)
        arrays = arrays[-6:] if len(arrays) > 6 else arrays
    _read(arrays)


@given(data=st.data())
def test_views_and_writes_match_numpy(data):
    _program(data, fnp.asarray, steps=12)


@settings(max_examples=examples(15))
@given(data=st.data())
def test_views_and_writes_match_numpy_on_dask(data):
    pytest.importorskip("dask")
    ns = fgraph.make(engine="dask")
    _program(data, ns.asarray, steps=6)


def test_views_and_writes_on_cupy_need_a_gpu():
    pytest.importorskip("cupy", reason="the CuPy engine's GPU tests need CuPy")
    from fgraph.devices.cupy_device import unavailable

    why = unavailable()
    if why:
        pytest.skip(why)
    ns = fgraph.make(engine="cupy")
    t = ns.zeros((4, 4))
    u = t[1:-1, 1:-1]
    u += 1
    assert float(t.sum()) == 4.0


# ---------------------------------------------------------------- the examples, exactly

def test_a_write_through_a_view_reaches_the_base():
    U = fnp.zeros((4, 4))
    u = U[1:-1, 1:-1]
    u += 1
    assert float(U.sum()) == 4.0
    U[0] = 7  # and a write to the base reaches the view
    U[1, 1] = 5
    np.testing.assert_array_equal(np.asarray(u), [[5, 1], [1, 1]])


def test_operators_on_a_view_see_a_later_write_to_its_base():
    # the ufuncs' fast paths read an array's node directly unless it is a view: a view's must be replayed
    U, A = fnp.zeros((3, 3)), np.zeros((3, 3))
    v, w = U[0], A[0]
    for _ in range(2):  # the second round takes the fast paths (their shapes and dtypes now known)
        for f in (lambda x: x + 1, lambda x: 1 + x, lambda x: x * x, np.sin):
            np.testing.assert_array_equal(np.asarray(f(v)), f(w))
        U[0, 0] += 5
        A[0, 0] += 5


def test_aliases_and_copies():
    a = fnp.arange(3.0)
    b = a
    c = a.copy()
    d = fnp.copy(a)
    e = fnp.array(a)
    a += 1
    assert b is a
    np.testing.assert_array_equal(np.asarray(b), [1, 2, 3])
    for x in (c, d, e):
        np.testing.assert_array_equal(np.asarray(x), [0, 1, 2])


def test_read_only_views_refuse_writes_with_numpys_error():
    a = fnp.arange(6.0).reshape(2, 3)
    for view in (fnp.broadcast_to(a, (2, 2, 3)), a.diagonal()):
        with pytest.raises(ValueError, match="read-only") as info:
            view[...] = 1
        assert isinstance(info.value, fgraph.FgraphError)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        a[0][0] = 1  # a view of a read-only array is read-only


def test_setitem_casts_as_numpy_and_keeps_what_it_cannot_write():
    a = fnp.zeros(3, dtype=np.int8)
    a[0] = 2.9  # unsafe, as NumPy's setitem
    with pytest.raises(OverflowError):
        a[1] = 1000
    with pytest.raises(ValueError):
        fnp.zeros(2, dtype=np.int64)[0] = np.nan
    with pytest.raises(TypeError):
        a += 1.5  # out= casts same_kind
    with pytest.raises(ValueError):
        a[:2] = [1, 2, 3]
    np.testing.assert_array_equal(np.asarray(a), [2, 0, 0])  # failed writes changed nothing


_SCALARS = st.one_of(st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True),
                     st.complex_numbers(allow_nan=True, allow_infinity=True))
_DTYPES = st.sampled_from(["bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "float32", "float64",
                           "complex64", "complex128"])


def _outcome(fn):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = repr(fn())
        except Exception as e:  # noqa: BLE001  (compared by class below)
            value = [k.__name__ for k in (OverflowError, ValueError, TypeError, FloatingPointError)
                     if isinstance(e, k)]
    return value, sorted({(w.category.__name__, str(w.message)) for w in caught})


@example(1e300, "float32")
@example(1e300 + 1j, "complex64")
@example(70000, "float16")
@example(float("nan"), "int64")
@example(2**64, "uint64")
@given(_SCALARS, _DTYPES)
def test_a_python_scalar_written_converts_raises_and_warns_as_numpy(value, dtype):
    """``a[1] = v``: the stored value, the error (its built-in class) and
    the warnings (1e300 into float32 overflows with NumPy's warning) are
    NumPy's for every Python scalar type and dtype."""
    def write(xp):
        def run():
            a = xp.zeros(3, dtype=dtype)
            a[1] = value
            return np.asarray(a)[1]
        return run

    assert _outcome(write(fnp)) == _outcome(write(np))


def test_repeated_fancy_indices_last_write_wins():
    a, n = fnp.zeros(4), np.zeros(4)
    for x in (a, n):
        x[[0, 0, 1, 0]] = [1.0, 2.0, 3.0, 4.0]
    np.testing.assert_array_equal(np.asarray(a), n)


def test_numpy_arrays_receive_lazy_values():
    n = np.zeros(3)
    t = fnp.arange(3.0)
    n[...] = t
    n += t
    np.add(t, 1, out=n)
    np.testing.assert_array_equal(n, [1, 2, 3])
    fnp.copyto(n, t * 5)
    np.testing.assert_array_equal(n, [0, 5, 10])


def test_out_writes_the_lazy_target_and_returns_it():
    a = fnp.zeros(3)
    b = a
    r = fnp.sum(fnp.ones((2, 3)), axis=0, out=a)
    assert r is a
    np.testing.assert_array_equal(np.asarray(b), [2, 2, 2])
    m = fnp.matmul(fnp.ones((2, 2)), fnp.ones(2), out=a[:2])
    np.testing.assert_array_equal(np.asarray(a), [2, 2, 2])
    assert isinstance(m, fgraph.Tensor) and m.base is a
    with pytest.raises(fgraph.ShapeError):
        fnp.sum(fnp.ones((2, 3)), axis=1, out=a)


def test_shape_assignment_and_flat():
    a = fnp.arange(6.0)
    v = a[::2]
    a.shape = (2, 3)
    a[1, 0] = 30
    np.testing.assert_array_equal(np.asarray(v), [0, 2, 4])  # the view keeps its own layout
    a.flat[::4] = -1
    n = np.arange(6.0)
    n.shape = (2, 3)
    n[1, 0] = 30
    n.flat[::4] = -1
    np.testing.assert_array_equal(np.asarray(a), n)
    with pytest.raises(AttributeError):
        a.T.shape = (6,)  # NumPy cannot do it without a copy either


def test_printing_gives_numpys_text():
    a = fnp.arange(4.0) / 3
    n = np.arange(4.0) / 3
    assert str(a) == str(n) and repr(a) == repr(n) and f"{a[1]:.3f}" == f"{n[1]:.3f}"
    with np.printoptions(precision=2):
        assert str(a) == str(n)
    x = fnp.placeholder((2,), name="x")
    assert repr(x + 1) == "<fgraph.Tensor add float64[2]>"  # not known without a feed: the lazy description
    assert fgraph.describe(a).startswith("<fgraph.Tensor")


@pytest.mark.parametrize("read", ["x[0]", "x[-1]", "x[..., 0]", "x[2, ...]", "x[()]", "x[None, 2]",
                                  "x.reshape(5, 1)[2, 0]", "x[1:2].reshape(())", "[x[0], x[3]]"])
def test_an_element_read_prints_as_numpys_scalar_and_a_0d_view_as_an_array(read):
    a = np.arange(5.0)
    assert repr(eval(read, {"x": fnp.asarray(a)})) == repr(eval(read, {"x": a}))


def test_bool_of_many_elements_is_numpys_value_error():
    with pytest.raises(ValueError, match="ambiguous"):
        bool(fnp.ones(3))


def test_a_failed_write_changes_no_handle():
    a = fnp.arange(4.0)
    v = a[1:]
    before = a.node
    with pytest.raises(IndexError):
        a[[7]] = 1.0
    with pytest.raises(ValueError):
        v[...] = np.ones(5)
    assert a.node is before


@given(data=st.data())
@settings(max_examples=examples(30))
def test_gradients_through_writes_match_finite_differences(data):
    n = data.draw(st.integers(2, 6))
    idx = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))
    lo = data.draw(st.integers(0, n - 1))
    x = np.linspace(-1.0, 1.0, n)
    v = np.linspace(0.5, 2.0, len(idx))
    w = np.arange(1.0, n + 1)

    def f(x, v):
        y = x * x
        y[lo:] *= 3.0              # an augmented write of a region
        y[np.array(idx)] = v * v   # repeated indices: the last write wins
        u = y[::-1]                # a write through a view reaches y
        u[0] = u[0] * 2.0
        return (y * w).sum()

    gx, gv = fgraph.grad(f, argnums=(0, 1))(x, v)
    eps = 1e-6
    for arg, grad in ((0, gx), (1, gv)):
        base = [x, v]
        num = []
        for i in range(base[arg].size):
            bumped = [b.copy() for b in base]
            bumped[arg][i] += eps
            lower = [b.copy() for b in base]
            lower[arg][i] -= eps
            num.append((float(f(*map(fnp.asarray, bumped))) - float(f(*map(fnp.asarray, lower)))) / (2 * eps))
        np.testing.assert_allclose(np.asarray(grad), num, rtol=1e-5, atol=1e-6)


def test_writes_to_a_jit_argument_change_the_traced_value_not_the_callers_array():
    @fgraph.jit
    def f(x):
        x[0] = 5.0
        x[1:] *= 2
        return x.sum()

    a = np.arange(3.0)
    assert float(f(a)) == 5.0 + 2.0 + 4.0
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])


def test_imag_of_a_real_view_keeps_numpys_layout():
    """``x.imag`` of a real array is a new read-only array of zeros laid out
    as ``x`` is (NumPy's K order): a transposed one's reshape then copies,
    and the copy is writeable (found by the random programs above)."""
    for xp in (np, fnp):
        a = xp.zeros((1, 3, 3)).T
        im = a.imag
        flat = im.reshape(9)
        flat[0] = 1.0
        if xp is np:
            want = (im.strides, im.flags.c_contiguous, im.flags.writeable, flat.flags.writeable, float(flat[0]))
        else:
            got = (im.strides, im.flags.c_contiguous, im.flags.writeable, flat.flags.writeable, float(flat[0]))
    assert got == want


def test_a_view_written_back_onto_itself_changes_nothing():
    """``g[1:] |= f`` ends in ``g[1:] = (g[1:] after |=)``: its own memory,
    which NumPy's write leaves as it is (no second write); a view of other
    bytes, or of another dtype over the same bytes, is written (cast)."""
    for xp in (np, fnp):
        g = xp.zeros((4, 3))
        g[1:, :] += xp.ones((3, 3))
        g[:, ::2] *= 3.0
        same = g[1:]
        g[1:] = same
        shifted = xp.arange(12.0).reshape(4, 3)
        shifted[1:] = shifted[:-1]
        ints = xp.asarray([1.5, 2.5, -1.0])
        ints[...] = ints.view(np.int64)  # its own bytes read as int64, cast back to float64: changed
        if xp is np:
            want = (g.copy(), shifted.copy(), ints.copy())
        else:
            got = (np.asarray(g), np.asarray(shifted), np.asarray(ints))
    for w, h in zip(want, got):
        np.testing.assert_array_equal(w, h)


SCALAR_CASES = [
    # (how the 0-d value is made, the in-place op): NumPy scalars rebind the name, 0-d arrays are written
    (lambda xp, a: a[1], lambda m: operator.ifloordiv(m, 2)),
    (lambda xp, a: a.sum(), lambda m: operator.iadd(m, 1)),
    (lambda xp, a: a[1], lambda m: operator.iadd(m, 0.5)),
    (lambda xp, a: a.max() * 2, lambda m: operator.imul(m, 3)),
    (lambda xp, a: next(iter(a)), lambda m: operator.isub(m, 1)),
    (lambda xp, a: a.reshape(2, 2)[1, 0], lambda m: operator.ipow(m, 2)),
    (lambda xp, a: xp.array(3), lambda m: operator.iadd(m, 1)),
    (lambda xp, a: a[..., 1], lambda m: operator.imul(m, 5)),
    (lambda xp, a: a[1:2].reshape(()), lambda m: operator.iadd(m, 7)),
    (lambda xp, a: xp.zeros(()), lambda m: operator.isub(m, 2)),
    (lambda xp, a: a.sum(), lambda m: operator.iadd(m, np.ones(3))),
    (lambda xp, a: xp.array(a.sum()), lambda m: operator.iadd(m, 1)),  # np.array/np.copy of a scalar: an array
    (lambda xp, a: xp.copy(a[2]), lambda m: operator.imul(m, 3)),
    (lambda xp, a: a.sum().copy(), lambda m: operator.iadd(m, 1)),  # a scalar's copy: a scalar
    (lambda xp, a: _written_0d(xp).copy(), lambda m: operator.iadd(m, 1)),  # a 0-d array's copy: an array
]


def _written_0d(xp):
    z = xp.array(0.0)
    z += 1
    return z


@pytest.mark.parametrize("make, op", SCALAR_CASES)
def test_inplace_operators_on_scalars_rebind_on_0d_arrays_write(make, op):
    # `for n in nums: m = n; m //= p` must leave n (a NumPy scalar there) alone; a 0-d array is written
    results = []
    for xp in (np, fnp):
        a = xp.arange(4)
        m = make(xp, a)
        alias = m
        r = op(m)
        results.append((np.asarray(r), np.asarray(alias), np.asarray(a), r is alias))
    (want_r, want_alias, want_a, want_same), (got_r, got_alias, got_a, got_same) = results
    assert got_same == want_same
    for g, w in ((got_r, want_r), (got_alias, want_alias), (got_a, want_a)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@settings(max_examples=examples(40))
@given(st.lists(st.integers(0, 4), min_size=0, max_size=3), st.lists(st.integers(0, 4), min_size=0, max_size=3),
       st.sampled_from(["int64", "float32", "bool"]))
def test_ndarray_resize_in_place(old_shape, new_shape, dtype):
    # a.resize(shape): the same array object, C-order data cut or followed by zeros; refused with views
    want = (np.arange(int(np.prod(old_shape))) % 3).astype(dtype).reshape(old_shape).copy()
    got = fnp.asarray(want.copy())
    alias = got
    want.resize(new_shape, refcheck=False)
    assert got.resize(new_shape) is None and alias is got
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    got[...] = 1  # still a writable array of the new shape
    assert np.asarray(alias).shape == tuple(new_shape)
    if got.size:
        view = got.reshape(-1)[:1]
        with pytest.raises(ValueError, match="cannot resize an array that references"):
            got.resize(3)
        assert view.shape == (1,)


def test_copies_of_0d_values_print_as_numpy_does():
    # np.array(s) and np.copy(s) of a scalar are 0-d arrays; a 0-d array's copy stays one
    for make in (lambda xp: xp.array(xp.arange(4).sum()), lambda xp: xp.copy(xp.arange(4).max()),
                 lambda xp: _written_0d(xp).copy(), lambda xp: xp.arange(4.0).mean().copy()):
        assert repr(make(fnp)) == repr(make(np))


def test_elements_hash_by_value_as_numpys_scalars_and_arrays_by_identity():
    a, t = np.array([3, 1, 3, 2, 3, 1]), fnp.asarray(np.array([3, 1, 3, 2, 3, 1]))
    want, got = {}, {}
    for v in a:
        want[v] = want.get(v, 0) + 1
    for v in t:
        got[v] = got.get(v, 0) + 1
    assert got == want and got[3] == 3 and set(t) == set(a) and 2 in set(t)
    assert {t.sum(): "total"}[13] == "total"  # a reduction's result is a scalar too
    u, w = fnp.zeros(3), fnp.zeros(3)
    assert len({u: 1, w: 2}) == 2  # arrays: by identity (updates={w: ...})
    z = fnp.zeros(())
    assert hash(z) == object.__hash__(z)  # a 0-d array is no scalar


@pytest.mark.parametrize("convert", [int, float, complex, bool])
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (2,)])
def test_scalar_conversions_of_one_element_follow_the_installed_numpy(convert, shape):
    """NumPy 2.4 refuses int() of an array with axes (earlier NumPy warned and
    converted); bool() takes one element of any shape."""
    a = np.full(shape, 7.0)

    def outcome(x):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return repr(convert(x))
        except Exception as e:  # noqa: BLE001  (compared by built-in class)
            return [c.__name__ for c in (TypeError, ValueError) if isinstance(e, c)]

    assert outcome(fnp.asarray(a)) == outcome(a)


@pytest.mark.parametrize("fn", ["asfortranarray", "ascontiguousarray"])
@pytest.mark.parametrize("shape,view", [((2, 3), False), ((4,), False), ((2, 3, 4), False), ((), False),
                                        ((4, 6), True)])
def test_contiguous_array_functions_alias_and_lay_out_as_numpy(fn, shape, view):
    """The array itself when it is laid out so already (writes reach both),
    else a copy laid out as asked: identity, aliasing, flags, strides and
    tobytes("A") as NumPy's."""
    a = np.arange(int(np.prod(shape)), dtype=float).reshape(shape)
    t = fnp.asarray(a.copy())
    if view:
        a, t = a[:, ::2], t[:, ::2]
    want, got = getattr(np, fn)(a), getattr(fnp, fn)(t)
    assert (got is t) == (want is a)
    want[(0,) * want.ndim] = 99
    got[(0,) * got.ndim] = 99
    np.testing.assert_array_equal(np.asarray(t), a)
    assert (got.flags.c_contiguous, got.flags.f_contiguous, got.strides) == \
        (want.flags.c_contiguous, want.flags.f_contiguous, want.strides)
    assert got.tobytes("A") == want.tobytes("A")


@pytest.mark.parametrize("dtype", ["f8", "f4", "i8", "u1", "?", "c16", "M8[ns]", "m8[s]", "U5", "S3", "V8", "f2",
                                   ">f8", "O", [("a", "i4"), ("b", "f8")], ("i4", (2,))])
def test_a_storage_shadow_is_numpy_s_as_strided_over_its_scratch(dtype):
    """The shadow made through an array interface (faster than as_strided's
    Python) has as_strided's dtype, shape, strides, address and flags."""
    from numpy.lib.stride_tricks import as_strided

    from fgraph.shape import c_strides
    from fgraph.views import Storage

    st = Storage(fnp.zeros(3, dtype=np.float64).node)
    st.scratch = np.zeros(1, np.dtype(dtype))
    for shape in [(), (5,), (3, 4), (2, 0, 3)]:
        for writeable in (True, False):
            got = st.shadow(shape, writeable)
            want = as_strided(st.scratch, shape, c_strides(shape, st.scratch.itemsize), writeable=writeable)
            assert (got.dtype, got.shape, got.strides, got.flags.writeable) == \
                (want.dtype, want.shape, want.strides, want.flags.writeable)
            assert got.__array_interface__["data"][0] == want.__array_interface__["data"][0]

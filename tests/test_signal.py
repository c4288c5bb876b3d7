"""Signal and polynomial functions composed of other ops (fgraph/ops/signal.py)
against NumPy, on random shapes, dtypes and parameters."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import arrays, check, shapes

REAL = ["bool", "int8", "int32", "int64", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
MODES = ["full", "same", "valid", 0, 1, 2]


def _tolerance(*dtypes):
    """For sums that run in another order than NumPy's: none for exact
    (integer, bool) arithmetic, a few roundings of the widest value else."""
    dtype = np.result_type(*dtypes)
    if dtype.kind not in "fc":
        return {}
    if np.finfo(dtype).resolution >= 1e-6:
        return {"rtol": 1e-5, "atol": 1e-3}
    return {"rtol": 1e-12, "atol": 1e-10}


@st.composite
def array(draw, dtypes=REAL, shape=None, lo=-10, hi=10, **shape_kw):
    dt = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(shapes(**shape_kw)) if shape is None else shape
    return draw(arrays(dt, shape, lo, hi))


@settings(max_examples=examples(150), deadline=None)
@given(array(REAL + COMPLEX, min_dims=1, max_dims=1, min_side=1, max_side=8),
       array(REAL + COMPLEX, min_dims=1, max_dims=1, min_side=1, max_side=8), st.sampled_from(MODES))
def test_convolve_correlate(a, v, mode):
    check(lambda xp, x, y: xp.convolve(x, y, mode), a, v)  # numpy.convolve itself: bit for bit
    check(lambda xp, x, y: xp.correlate(x, y, mode), a, v)
    check(lambda xp, x, y: xp.correlate(y, x, mode), a, v)
    # the same sums written with other ops (what gradients differentiate): equal to rounding
    from fgraph.ops.signal import _mode, composite_correlate

    m = _mode(mode, "test")
    for kind in ("convolve", "correlate"):
        got = np.asarray(composite_correlate(kind, fnp.asarray(a), fnp.asarray(v), m))
        want = getattr(np, kind)(a, v, mode)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, **_tolerance(a.dtype, v.dtype))


def test_convolve_correlate_defaults_and_edges():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    check(lambda xp, a: xp.convolve(a, [1.0, np.inf]), x)  # no 0 * inf where NumPy has no term
    check(lambda xp, a: xp.correlate(a, [np.inf, 1.0, 2.0], "same"), x)
    check(lambda xp, a: xp.correlate(a, np.array([1j, 2.0])), x)  # the second argument conjugated
    check(lambda xp, a: xp.convolve(a, 2.0), x)  # a 0-d operand counts as length 1
    check(lambda xp, a: xp.convolve(a, [1.0, 2.0], mode=np.int64(1)), x)
    check(lambda xp, a, b: xp.correlate(a, b, "full"), x.astype("float16"), x[:3].astype("float16"))
    assert isinstance(np.convolve(fnp.asarray(x), [1, 2]), fgraph.Tensor)  # NumPy's own name dispatches


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.convolve(a, []), lambda xp, a: xp.convolve([], a), lambda xp, a: xp.correlate(a, []),
    lambda xp, a: xp.correlate(a[:0], a), lambda xp, a: xp.correlate(a.reshape(2, 2), a),
    lambda xp, a: xp.convolve(a, a.reshape(2, 2)), lambda xp, a: xp.correlate(a[0], a),
    lambda xp, a: xp.convolve(a, a, mode="bad"), lambda xp, a: xp.correlate(a, a, mode="VALID"),
    lambda xp, a: xp.correlate(a, a, mode=3), lambda xp, a: xp.convolve(a, a, mode=None),
    lambda xp, a: xp.convolve(a, a, mode=True)])
def test_convolve_correlate_refusals(call):
    check(call, np.arange(4.0))  # NumPy raises, so must fgraph (an FgraphError)


@settings(max_examples=examples(80), deadline=None)
@given(array(REAL + COMPLEX, min_dims=1, max_dims=2, max_side=5), array(REAL + COMPLEX, max_dims=2, max_side=4))
def test_polyval(p, x):
    tol = {}
    if np.result_type(p, x).kind == "c":
        # not a reordering: the compiled engine evaluates a complex ``(x + c) * x + c`` a few ULP
        # (of the result's magnitude) away from NumPy's loops; real dtypes compare exactly
        try:
            scale = float(np.max(np.abs(np.polyval(p, x)), initial=1.0))
        except ValueError:  # shapes that do not broadcast: check wants a refusal
            scale = 1.0
        rtol = 1e-5 if np.result_type(p, x) == np.complex64 else 1e-13
        tol = {"rtol": rtol, "atol": rtol * scale}
    check(lambda xp, c, t: xp.polyval(c, t), p, x, **tol)
    check(lambda xp, c: xp.polyval(c, 1.5), p, **tol)


@settings(max_examples=examples(80), deadline=None)
@given(array(REAL + COMPLEX, max_dims=1, max_side=6), array(REAL + COMPLEX, max_dims=1, max_side=6))
def test_polyadd_polysub(a1, a2):
    check(lambda xp, x, y: xp.polyadd(x, y), a1, a2)
    check(lambda xp, x, y: xp.polysub(x, y), a1, a2)
    check(lambda xp, x: xp.polysub(x, [1, 2, 3]), a1)


@settings(max_examples=examples(80), deadline=None)
@given(array(REAL + COMPLEX, min_dims=1, max_dims=1, max_side=6), array(REAL + COMPLEX, max_dims=1, max_side=6))
def test_polymul(a1, a2):
    # NumPy trims leading zeros (poly1d); a lazy polynomial keeps them, so start each with a nonzero
    a1, a2 = np.concatenate([np.ones(1, a1.dtype), a1]), np.concatenate([np.ones(1, a2.dtype), a2.ravel()])
    check(lambda xp, x, y: xp.polymul(x, y), a1, a2, **_tolerance(a1.dtype, a2.dtype))  # convolve's sum order


def test_polymul_leading_zeros():
    a, b = np.array([0.0, 0.0, 1.0, 2.0]), [0, 3, 4]
    check(lambda xp: xp.polymul(a, b))  # concrete inputs: trimmed now, as NumPy does
    check(lambda xp: xp.polymul(a[:2], []))  # all zeros: the polynomial 0
    lazy = np.asarray(fnp.polymul(fnp.asarray(a), b))  # lazy: the zeros stay, in front
    np.testing.assert_array_equal(lazy, np.concatenate([[0.0, 0.0], np.polymul(a, b)]))


@settings(max_examples=examples(80), deadline=None)
@given(array(REAL + COMPLEX, max_dims=2, max_side=6), st.integers(0, 4),
       st.sampled_from([None, 2, 1.5, [1, 2, 3, 4, 5], np.array([0.5j]), np.arange(4, dtype="float32")]))
def test_polyder_polyint(p, m, k):
    check(lambda xp, c: xp.polyder(c, m), p)
    check(lambda xp, c: xp.polyint(c, m, k), p)


def test_polyint_lazy_constants():
    check(lambda xp, c, k: xp.polyint(c, 3, k), np.arange(4.0), np.array([1.0, -2.0, 3.0]))
    check(lambda xp, c, k: xp.polyint(c, 2, k), np.arange(4, dtype="int32"), np.array([7], "int64"))


@settings(max_examples=examples(80), deadline=None)
@given(array(REAL + COMPLEX + ["uint64"], min_dims=1, max_dims=1, max_side=6), st.sampled_from([None, 0, 1, 2, 4, 7]),
       st.booleans())
def test_vander(x, n, increasing):
    check(lambda xp, t: xp.vander(t, n, increasing), x)
    check(lambda xp, t: xp.vander(t, N=n, increasing=increasing), x)


@st.composite
def _with_axis(draw, dtypes=REAL + COMPLEX, min_side=0):
    a = draw(array(dtypes, min_dims=1, max_dims=3, min_side=min_side, max_side=5))
    return a, draw(st.integers(-a.ndim, a.ndim - 1))


@settings(max_examples=examples(100), deadline=None)
@given(_with_axis(), st.sampled_from(["none", "1d", "full"]), st.sampled_from([1.0, 0.5, 3, np.float32(0.25)]),
       st.data())
def test_trapezoid(ya, xkind, dx, data):
    y, axis = ya
    if xkind == "none":
        check(lambda xp, t: xp.trapezoid(t, dx=dx, axis=axis), y)
        return
    shape = (y.shape[axis],) if xkind == "1d" else y.shape
    x = data.draw(array(REAL, shape=shape))
    check(lambda xp, t, s: xp.trapezoid(t, s, axis=axis), y, x)


@st.composite
def _coordinates(draw, n):
    """Evenly spaced (NumPy's scalar branch) or not, of int or float dtype."""
    kind = draw(st.sampled_from(["even", "sorted", "int"]))
    if kind == "even":
        return np.arange(n) * draw(st.sampled_from([0.5, 2.0, -1.25]))
    if kind == "int":
        return np.cumsum(draw(arrays("int32", (n,), 1, 4)))
    values = draw(st.lists(st.floats(0.125, 4.0, width=32), min_size=n, max_size=n))
    return np.cumsum(np.array(values, draw(st.sampled_from(["float32", "float64"]))))


@settings(max_examples=examples(150), deadline=None)
@given(array(REAL + COMPLEX, min_dims=0, max_dims=3, min_side=1, max_side=5), st.sampled_from([1, 2]),
       st.sampled_from(["none", "scalar", "per-axis"]), st.booleans(), st.data())
def test_gradient(f, edge_order, spacing, one_axis, data):
    axis = data.draw(st.integers(-f.ndim, f.ndim - 1)) if one_axis and f.ndim else None
    axes = tuple(range(f.ndim)) if axis is None else (axis % f.ndim,)
    kw = {"edge_order": edge_order} if axis is None else {"edge_order": edge_order, "axis": axis}
    if spacing == "none":
        check(lambda xp, t: xp.gradient(t, **kw), f)
    elif spacing == "scalar":
        h = data.draw(st.sampled_from([2, 0.5, np.float32(1.5), np.float64(-3.0)]))
        check(lambda xp, t: xp.gradient(t, h, **kw), f)
    else:
        spacings = [data.draw(st.one_of(st.sampled_from([1.5, 3]), _coordinates(f.shape[ax]))) for ax in axes]
        check(lambda xp, t: xp.gradient(t, *spacings, **kw), f)  # concrete coordinates
        if f.dtype != bool:  # lazy coordinates: both of NumPy's branches built, one selected per run
            coords = [i for i, s in enumerate(spacings) if isinstance(s, np.ndarray)]

            def lazy(xp, t, *cs):
                given_ = list(spacings)
                for i, c in zip(coords, cs):
                    given_[i] = c
                return xp.gradient(t, *given_, **kw)

            check(lazy, f, *[spacings[i] for i in coords])


@pytest.mark.parametrize("call", [
    lambda xp, f: xp.gradient(f, edge_order=3), lambda xp, f: xp.gradient(f[:2], edge_order=2),
    lambda xp, f: xp.gradient(f[:1]), lambda xp, f: xp.gradient(f, 1.0, 2.0, 3.0),
    lambda xp, f: xp.gradient(f, np.arange(3.0), axis=0), lambda xp, f: xp.gradient(f, np.ones((4, 1)), axis=0),
    lambda xp, f: xp.gradient(f, axis=(0, -2)), lambda xp, f: xp.gradient(f, axis=2),
    lambda xp, f: xp.gradient(f > 0), lambda xp, f: xp.gradient(f[0, 0])])
def test_gradient_refusals(call):
    check(call, np.arange(12.0).reshape(4, 3))


def test_gradient_edge_order_zero_and_lazy_bool():
    f = np.arange(12.0).reshape(4, 3) ** 2
    check(lambda xp, t: xp.gradient(t, edge_order=0), f)  # NumPy: any edge_order but 1 means second order
    check(lambda xp, t: xp.gradient(t, [0.0, 1.0, 3.0], edge_order=2, axis=1), f > 10)  # concrete: NumPy's branch
    with pytest.raises(fgraph.FgraphError, match="gradient.*bool.*lazy coordinates"):
        fnp.gradient(fnp.asarray(f > 10), fnp.asarray([0.0, 1.0, 3.0]), axis=1)


@settings(max_examples=examples(80), deadline=None)
@given(array(REAL + COMPLEX, max_dims=3, max_side=4),
       st.sampled_from([None, 3, -1.5, [1, 2], np.array([[7]], "int8"), np.arange(3, dtype="float32"), []]),
       st.sampled_from([None, 0, 2.5, [4, 5, 6], np.array([1j])]))
def test_ediff1d(a, to_end, to_begin):
    check(lambda xp, t: xp.ediff1d(t, to_end=to_end, to_begin=to_begin), a)
    if to_end is not None and np.ndim(to_end) and len(to_end):
        check(lambda xp, t, e: xp.ediff1d(t, to_end=e, to_begin=to_begin), a, np.asarray(to_end))


@settings(max_examples=examples(100), deadline=None)
@given(_with_axis(REAL), st.sampled_from([None, 1.0, 4, np.pi]),
       st.sampled_from([2 * np.pi, 6, 5, 360.0, np.float32(5.5)]))
def test_unwrap(pa, discont, period):
    p, axis = pa
    check(lambda xp, t: xp.unwrap(t, discont, axis, period=period), p)
    if discont is not None:
        check(lambda xp, t, d: xp.unwrap(t, d, axis, period=period), p, np.float64(discont))  # a lazy discont


def test_unwrap_phases():
    phase = np.linspace(0, 20, 41)
    check(lambda xp, t: xp.unwrap(xp.mod(t, 2 * np.pi)), phase)
    check(lambda xp, t: xp.unwrap(t, period=4), np.array([0, 3, 5, 9, -2, 2, 6], "int32"))  # |dd| == period/2
    check(lambda xp, t: xp.unwrap(t), np.ones(3, complex))  # NumPy refuses: mod of complex


@settings(max_examples=examples(80), deadline=None)
@given(st.one_of(st.integers(-2, 40), st.sampled_from([5.5, 2.0, np.int64(9), np.float32(6)])),
       st.sampled_from([0, 1, 2.5, 8.6, 14, 30.0, np.float32(5)]))
def test_windows(m, beta):
    for name in ("hamming", "hanning", "blackman", "bartlett"):
        check(lambda xp: getattr(xp, name)(m))
    check(lambda xp: xp.kaiser(m, beta))


@settings(max_examples=examples(80), deadline=None)
@given(array(REAL + ["float16"], max_dims=2, lo=-30, hi=30))
def test_i0(x):
    check(lambda xp, t: xp.i0(t), x)


def test_i0_specials():
    x = np.array([0.0, -0.0, 8.0, np.nextafter(8.0, 9.0), -8.5, 700.0, 800.0, math.inf, -math.inf, math.nan])
    check(lambda xp, t: xp.i0(t), x)
    check(lambda xp: xp.i0(5))
    check(lambda xp, t: xp.i0(t), x.astype("complex64"))  # NumPy refuses complex


def _traced(value):
    """A placeholder: a lazy value not known while the graph is built (tracing)."""
    v = np.asarray(value)
    return fnp.placeholder(v.shape, v.dtype, name="k")


@pytest.mark.parametrize("call, argument", [
    (lambda: fnp.hamming(_traced(4)), "M"), (lambda: fnp.kaiser(4, _traced(2.0)), "beta"),
    (lambda: fnp.convolve(fnp.ones(3), fnp.ones(2), mode=_traced(1)), "mode"),
    (lambda: fnp.polyder(fnp.ones(3), _traced(1)), "m"), (lambda: fnp.polyint(fnp.ones(3), _traced(1)), "m"),
    (lambda: fnp.vander(fnp.ones(3), _traced(2)), "N"),
    (lambda: fnp.trapezoid(fnp.ones(3), axis=_traced(0)), "axis"),
    (lambda: fnp.gradient(fnp.ones(3), axis=_traced(0)), "axis"),
    (lambda: fnp.gradient(fnp.ones(3), edge_order=_traced(2)), "edge_order"),
    (lambda: fnp.unwrap(fnp.ones(3), axis=_traced(0)), "axis"),
    (lambda: fnp.unwrap(fnp.ones(3), period=_traced(6.0)), "period")])
def test_shape_arguments_must_be_python_values(call, argument):
    with pytest.raises(fgraph.FgraphError, match=rf"(?s)^\w+: {argument} must be a Python value.*placeholder 'k'"
                                                 r".*test_signal.py"):
        call()


@pytest.mark.parametrize("call", [
    lambda xp, k: xp.hamming(k), lambda xp, k: xp.kaiser(4, k / 2), lambda xp, k: xp.vander(xp.arange(3.0), k),
    lambda xp, k: xp.polyder(xp.arange(6.0), k - 2), lambda xp, k: xp.polyint(xp.arange(3.0), k - 3),
    lambda xp, k: xp.convolve(xp.ones(3), xp.ones(2), mode=["full", "same", "valid"][k - 3]),
    lambda xp, k: xp.gradient(xp.arange(12.0).reshape(3, 4) ** 2, axis=k - 4),
    lambda xp, k: xp.trapezoid(xp.arange(12.0).reshape(3, 4), axis=k - 3)])
def test_shape_arguments_from_lazy_values_outside_tracing(call):
    # k = a.max() in a NumPy program is a NumPy scalar; in fgraph a lazy 0-d array, evaluated there
    want = call(np, np.max(np.arange(5)))
    got = call(fnp, fnp.max(fnp.arange(5)))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.vander(a.reshape(2, 2)), lambda xp, a: xp.vander(a, -1), lambda xp, a: xp.vander(a, 2.0),
    lambda xp, a: xp.polyval(a[0], 2.0), lambda xp, a: xp.polyder(a[0], 0), lambda xp, a: xp.polyder(a, -1),
    lambda xp, a: xp.polyder(a.reshape(2, 2), 1), lambda xp, a: xp.polyint(a, 3, [1, 2]),
    lambda xp, a: xp.polyint(a.reshape(2, 2)), lambda xp, a: xp.polymul(a.reshape(2, 2), a),
    lambda xp, a: xp.polyadd(a.reshape(2, 2), a[:3]), lambda xp, a: xp.trapezoid(a[0]),
    lambda xp, a: xp.trapezoid(a, axis=1), lambda xp, a: xp.trapezoid(a, a[:3]),
    lambda xp, a: xp.ediff1d(a > 0), lambda xp, a: xp.ediff1d(a.astype(int), to_begin=1.5),
    lambda xp, a: xp.unwrap(a[0]), lambda xp, a: xp.unwrap(a, axis=1)])
def test_refusals(call):
    check(call, np.arange(4.0))


# ---------------------------------------------------------------- polyfit

_FIT_TOL = {}  # the same lstsq (LAPACK gelsd) runs: NumPy's values exactly


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(["int64", "float32", "float64"]), st.integers(1, 9), st.integers(0, 3),
       st.sampled_from([None, "float64", "complex128"]), st.booleans(), st.sampled_from([None, 1e-3]),
       st.sampled_from([False, True, "unscaled"]), st.booleans(), st.data())
def test_polyfit(xdt, n, deg, ydt, two_d, rcond, cov, weighted, data):
    x = np.linspace(-3, 4, n).astype(xdt) if xdt != "int64" else np.arange(n) * 2 - 5  # distinct: full rank
    ydt = ydt or xdt
    y = data.draw(arrays(ydt, (n, 2) if two_d else (n,), -10, 10))
    w = data.draw(arrays("float64", (n,), 0.5, 3)) if weighted else None
    args = (x, y) if w is None else (x, y, w)
    call = lambda full, cov: (lambda xp, a, b, *ww: xp.polyfit(a, b, deg, rcond=rcond, full=full,
                                                                 w=ww[0] if ww else None, cov=cov))
    check(call(True, False), *args, **_FIT_TOL)
    if n > deg:  # else NumPy warns (rank < order): only concrete inputs can
        check(call(False, cov), *args, **_FIT_TOL)


def test_polyfit_rank_deficient_and_warnings():
    x, y = np.array([1.0, 1.0, 1.0, 2.0, 2.0]), np.array([0.0, 1.0, 2.0, 3.0, 5.0])
    # known inputs: NumPy's RankWarning, and its empty residuals for a deficient rank
    check(lambda xp, a, b: list(xp.polyfit(a, b, 3, full=True)), x, y, paths=("eval",), **_FIT_TOL)
    with pytest.warns(np.exceptions.RankWarning):
        fnp.polyfit(fnp.asarray(x), y, 3)
    with pytest.warns(np.exceptions.RankWarning):
        fnp.polyfit([0.0, 1.0], [1.0, 2.0], 2)  # fewer points than coefficients
    # lazy inputs: no warning at build time; the rank is still computed when the graph runs
    px, py = fnp.placeholder((5,), np.float64, name="x"), fnp.placeholder((5,), np.float64, name="y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c, resids, rank, s, rcond = fnp.polyfit(px, py, 3, full=True)
    got = fgraph.compile(fgraph.Graph([c, rank, s], inputs=[px, py]))(x=x, y=y)
    want = np.polyfit(x, y, 3, full=True)
    np.testing.assert_allclose(got[0], want[0], **_FIT_TOL)
    assert got[1] == want[2] == 2 and rcond == want[4]
    np.testing.assert_allclose(got[2], want[3], **_FIT_TOL)
    with pytest.raises(np.linalg.LinAlgError, match="rank 2 < 4"):  # NumPy's empty residuals: not a static shape
        fgraph.compile(fgraph.Graph(resids, inputs=[px, py]))(x=x, y=y)


@pytest.mark.parametrize("call", [
    lambda xp, x, y: xp.polyfit(x, y, -1), lambda xp, x, y: xp.polyfit(x.reshape(2, 3), y, 1),
    lambda xp, x, y: xp.polyfit(x[:0], y[:0], 1), lambda xp, x, y: xp.polyfit(x, y[0], 1),
    lambda xp, x, y: xp.polyfit(x, y.reshape(1, 2, 3), 1), lambda xp, x, y: xp.polyfit(x, y[:4], 1),
    lambda xp, x, y: xp.polyfit(x, y, 1, w=y.reshape(2, 3)), lambda xp, x, y: xp.polyfit(x, y, 1, w=y[:4]),
    lambda xp, x, y: xp.polyfit(x, y, 1, w=y + 1j), lambda xp, x, y: xp.polyfit(x, y.astype("float16"), 1),
    lambda xp, x, y: xp.polyfit(x, y, 5, cov=True), lambda xp, x, y: xp.polyfit(x[:2], y[:2], 3, cov=True)])
def test_polyfit_refusals(call):
    check(call, np.arange(6.0), np.arange(6.0) ** 2)  # NumPy raises, so must fgraph (an FgraphError)


def test_polyfit_lazy_deg_and_dispatch():
    with pytest.raises(fgraph.FgraphError, match="polyfit.*deg must be a Python value"):
        fnp.polyfit(fnp.arange(4.0), fnp.arange(4.0), _traced(1))
    np.testing.assert_allclose(np.asarray(fnp.polyfit(fnp.arange(4.0), fnp.arange(4.0) ** 2, fnp.arange(3).max())),
                               np.polyfit(np.arange(4.0), np.arange(4.0) ** 2, 2), atol=1e-12)
    assert isinstance(np.polyfit(fnp.arange(4.0), fnp.arange(4.0), 1), fgraph.Tensor)  # NumPy's name dispatches
    check(lambda xp, x, y: xp.polyfit(x, y, 2.0), np.arange(5.0), np.arange(5.0) ** 2, **_FIT_TOL)  # int(deg)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 40), st.integers(1, 12), st.sampled_from([0, 1, 2]),
       st.sampled_from(["float64", "int64", "complex128", "bool"]))
def test_composite_correlate_in_blocks_of_outputs(n1, n2, mode, dtype):
    # the composite (gradients' form) builds a long signal's window matrix a block of
    # outputs at a time: the same values as in one block
    import fgraph.ops.signal as signal

    rng = np.random.default_rng(n1 * 100 + n2)
    a = (rng.normal(size=n1) * 3).astype(dtype) if dtype != "complex128" else rng.normal(size=n1) + 1j
    v = (rng.normal(size=n2) * 3).astype(dtype) if dtype != "complex128" else rng.normal(size=n2) - 2j
    # blocks of at least 2 outputs each: NumPy's complex product of a 1-element array may
    # differ in the last bit from the same product inside a longer one (see README)
    short, long_ = sorted((n1, n2))
    length = {0: long_ - short + 1, 1: long_, 2: long_ + short - 1}[mode]
    rows = next((r for r in range(2, length) if length % r != 1), length)  # (else one block)
    for kind in ("convolve", "correlate"):
        whole = np.asarray(signal.composite_correlate(kind, fnp.asarray(a), fnp.asarray(v), mode))
        saved, signal.WINDOW_VALUES = signal.WINDOW_VALUES, rows * short
        try:
            blocks = np.asarray(signal.composite_correlate(kind, fnp.asarray(a), fnp.asarray(v), mode))
        finally:
            signal.WINDOW_VALUES = saved
        np.testing.assert_array_equal(blocks, whole)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 9), st.integers(1, 5), st.sampled_from(["valid", "same", "full"]),
       st.sampled_from(["convolve", "correlate"]))
def test_convolve_gradients(n1, n2, mode, kind):
    from gradcheck import check_grad

    rng = np.random.default_rng(n1 * 10 + n2)
    a, v = rng.normal(size=n1), rng.normal(size=n2)
    check_grad(lambda xp, x, y: getattr(xp, kind)(x, y, mode) ** 2, a, v)

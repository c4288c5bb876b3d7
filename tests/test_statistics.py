"""Statistics and binning functions (fgraph/ops/statistics.py) against NumPy,
on random shapes, dtypes and parameters."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import arrays, check

REAL = ["bool", "int32", "int64", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
dtypes = st.sampled_from(REAL)


@st.composite
def matrices(draw, dtypes=REAL + COMPLEX, max_side=5):
    dt = draw(st.sampled_from(dtypes))
    shape = draw(st.sampled_from([(), (1,), (4,), (1, 3), (2, 5), (3, 4), (4, 1), (0, 3), (3, 0)]))
    return draw(arrays(dt, shape, -10, 10))


def _sequential_weights(draw, n, integer):
    vals = st.integers(0, 5) if integer else st.floats(0, 5, width=64)
    return np.array(draw(st.lists(vals, min_size=n, max_size=n)), dtype=float)


@settings(max_examples=examples(60), deadline=None)
@given(matrices(), st.booleans(), st.booleans(), st.sampled_from([None, 0, 1, 2]),
       st.sampled_from([None, "float32", "float64", "complex128"]), st.data())
def test_cov(m, rowvar, bias, ddof, dtype, data):
    if dtype == "complex128" or m.dtype.kind == "c":
        dtype = None if dtype != "complex128" else dtype
    check(lambda xp, x: xp.cov(x, rowvar=rowvar, bias=bias, ddof=ddof, dtype=dtype), m)
    nobs = (m.shape[-1] if rowvar else m.shape[0]) if m.ndim == 2 else m.size
    if m.ndim and m.size:
        fw = _sequential_weights(data.draw, nobs, True)
        aw = _sequential_weights(data.draw, nobs, False)
        for kw in ({"fweights": fw}, {"aweights": aw}, {"fweights": fw, "aweights": aw}):
            check(lambda xp, x, f, a: xp.cov(x, rowvar=rowvar, ddof=ddof, dtype=dtype,
                                             **{k: {"fweights": f, "aweights": a}[k] for k in kw}), m, fw, aw)
        y = data.draw(arrays("float64", m.shape, -10, 10))
        check(lambda xp, x, z: xp.cov(x, z, rowvar=rowvar, bias=bias), m, y)


@settings(max_examples=examples(60), deadline=None)
@given(matrices(), st.booleans(), st.sampled_from([None, "float32", "float64"]), st.data())
def test_corrcoef(m, rowvar, dtype, data):
    if m.dtype.kind == "c":
        dtype = None
    check(lambda xp, x: xp.corrcoef(x, rowvar=rowvar, dtype=dtype), m)
    if m.ndim == 2 and m.size:
        y = data.draw(arrays("float64", m.shape, -10, 10))
        check(lambda xp, x, z: xp.corrcoef(x, z, rowvar=rowvar), m, y)


def test_cov_refusals():
    x = fnp.ones((3, 4))
    for bad in (dict(ddof=1.5), dict(fweights=np.array([1, 2.5, 1, 1])), dict(fweights=np.array([1, -1, 1, 1])),
                dict(aweights=np.array([1, 1, 1])), dict(aweights=np.ones((2, 2))),
                dict(rowvar=fnp.placeholder((), np.bool_, name="rowvar"))):
        with pytest.raises(fgraph.FgraphError, match="cov"):
            fnp.cov(x, **bad)
    with pytest.raises(fgraph.FgraphError, match="more than 2"):
        fnp.cov(fnp.ones((2, 2, 2)))
    check(lambda xp, a: xp.cov(a, dtype="int64"), np.arange(6.0).reshape(2, 3))  # NumPy: X -= avg cannot cast


@st.composite
def monotonic_bins(draw):
    dt = draw(st.sampled_from(["int64", "float32", "float64"]))
    b = np.sort(draw(arrays(dt, (draw(st.integers(0, 6)),), -20, 20)))
    return b[::-1].copy() if draw(st.booleans()) else b


@settings(max_examples=examples(80), deadline=None)
@given(st.sampled_from(REAL), st.sampled_from([(), (7,), (2, 3)]), monotonic_bins(), st.booleans(), st.data())
def test_digitize(dt, shape, bins, right, data):
    x = data.draw(arrays(dt, shape, -25, 25))
    if bins.size:
        x.flat[:1] = bins[0]  # a value on an edge
    check(lambda xp, a, b: xp.digitize(a, b, right=right), x, bins)  # concrete bins on the eval path
    # lazy bins (placeholders): the direction is found when the graph runs
    px, pb = fnp.placeholder(x.shape, x.dtype, name="x"), fnp.placeholder(bins.shape, bins.dtype, name="b")
    exe = fgraph.compile(fgraph.Graph([fnp.digitize(px, pb, right=right)], inputs=[px, pb]))
    np.testing.assert_array_equal(exe(x=x, b=bins)[0], np.digitize(x, bins, right=right), strict=True)


def test_digitize_refusals_and_flat_bins():
    check(lambda xp, a, b: xp.digitize(a, b), np.array([1.0, 2.0]), np.array([1.0, 3.0, 2.0]))  # not monotonic
    check(lambda xp, a, b: xp.digitize(a, b), np.array([1.0, 2.0, 5.0]), np.array([2.0, 2.0, 2.0]))
    check(lambda xp, a, b: xp.digitize(a, b), np.array([1.0, 2.0, 5.0]), np.array([3.0, 3.0, 2.0, 1.0]))
    check(lambda xp, a, b: xp.digitize(a, b), np.array([1 + 1j]), np.array([1.0, 2.0]))
    check(lambda xp, a, b: xp.digitize(a, b), np.array([1.0]), np.ones((2, 2)))


@settings(max_examples=examples(80), deadline=None)
@given(st.sampled_from(REAL + COMPLEX), st.integers(1, 6), st.sampled_from([(), (5,), (2, 4)]),
       st.sampled_from([None, -1.5]), st.sampled_from([None, 7.25]), st.sampled_from([None, 3.0, -5.5]), st.data())
def test_interp(fdt, n, xshape, left, right, period, data):
    xp_ = np.sort(data.draw(arrays("float64", (n,), -10, 10)))
    fp = data.draw(arrays(fdt, (n,), -10, 10))
    x = data.draw(arrays(data.draw(st.sampled_from(["int64", "float32", "float64"])), xshape, -12, 12))
    if x.size and x.dtype.kind == "f":
        x.flat[0] = xp_[-1]  # on a sample point
    if x.size > 1 and x.dtype.kind == "f":
        x.flat[1] = np.nan
    if fdt in COMPLEX:
        left = None if left is None else complex(left, 2.0)
    check(lambda xp, a, b, f: xp.interp(a, b, f, left=left, right=right, period=period), x, xp_, fp)


def test_interp_edges_and_refusals():
    xp_, fp = np.array([0.0, 1.0, 1.0, 2.0]), np.array([0.0, np.inf, 5.0, -np.inf])
    check(lambda xp, a, b, f: xp.interp(a, b, f), np.array([-1.0, 0.5, 1.0, 1.5, 2.0, 3.0, np.nan]), xp_, fp)
    check(lambda xp, a, b, f: xp.interp(a, b, f), np.array([0.5, 2.0]), np.array([1.0]), np.array([3.0]))
    check(lambda xp, a, b, f: xp.interp(a, b, f), np.array([0.5]), np.zeros(0), np.zeros(0))
    check(lambda xp, a, b, f: xp.interp(a, b, f), np.array([0.5]), np.zeros(3), np.zeros(2))
    check(lambda xp, a, b, f: xp.interp(a, b, f), np.array([0.5]), np.zeros((2, 2)), np.zeros((2, 2)))
    check(lambda xp, a, b, f: xp.interp(a, b, f, period=0), np.array([0.5]), np.arange(3.0), np.arange(3.0))
    with pytest.raises(fgraph.FgraphError, match="interp.*period"):
        fnp.interp(fnp.ones(2), fnp.arange(3.0), fnp.arange(3.0), period=fnp.placeholder((), np.float64, name="period"))


@settings(max_examples=examples(80), deadline=None)
@given(st.sampled_from(REAL + COMPLEX), st.sampled_from(REAL + COMPLEX), st.sampled_from([(), (6,), (2, 3)]),
       st.sampled_from([(0,), (1,), (5,), (2, 4)]), st.booleans(), st.booleans(),
       st.sampled_from([None, "sort", "table"]), st.data())
def test_isin(edt, tdt, eshape, tshape, invert, assume_unique, kind, data):
    e = data.draw(arrays(edt, eshape, -4, 4))
    t = data.draw(arrays(tdt, tshape, -4, 4))
    if assume_unique:  # NumPy's answer is only defined for inputs that are unique
        e = np.unique(e)
        t = np.unique(t)
    check(lambda xp, a, b: xp.isin(a, b, assume_unique=assume_unique, invert=invert, kind=kind), e, t)


def test_isin_nan_and_refusals():
    e, t = np.array([np.nan, 0.0, -0.0, 1.0, np.inf]), np.array([np.nan, 0.0, np.inf])
    check(lambda xp, a, b: xp.isin(a, b), e, t)
    check(lambda xp, a, b: xp.isin(a, b, kind="table"), e, t)
    check(lambda xp, a, b: xp.isin(a, b, kind="hash"), e, t)


def _hist(**kw):
    def fn(xp, a, w=None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # bool data: NumPy (and fgraph) warn of the uint8 conversion
            return list(xp.histogram(a, weights=w, **kw))
    return fn


@settings(max_examples=examples(100), deadline=None)
@given(st.sampled_from(REAL + ["float16", "int8", "uint8"]), st.sampled_from([(0,), (1,), (9,), (3, 4)]),
       st.integers(1, 7), st.sampled_from([None, (0, 5), (-3.5, 2.25), (1, 1), (-10.0, 10.0)]),
       st.booleans(), st.data())
def test_histogram_int_bins(dt, shape, bins, range_, density, data):
    a = data.draw(arrays(dt, shape, -10, 10))
    if a.size > 2 and a.dtype.kind == "f" and range_ is not None:
        a.flat[0], a.flat[1] = range_[1], np.nan  # the closed last edge; NaN is dropped
    check(_hist(bins=bins, range=range_, density=density), a)
    check(lambda xp, x: xp.histogram_bin_edges(x, bins=bins, range=range_), a)
    wdt = data.draw(st.sampled_from(["bool", "int32", "int64", "float32", "float64", "complex128"]))
    w = data.draw(arrays(wdt, shape, 0, 5))
    check(_hist(bins=bins, range=range_, density=density), a, w)  # NumPy's bincount sums, exactly


@settings(max_examples=examples(100), deadline=None)
@given(st.sampled_from(REAL), st.sampled_from([(0,), (1,), (9,), (3, 4)]), st.data(), st.booleans())
def test_histogram_array_bins(dt, shape, data, density):
    a = data.draw(arrays(dt, shape, -10, 10))
    edges = np.sort(data.draw(arrays(data.draw(st.sampled_from(["int64", "float64"])),
                                     (data.draw(st.integers(1, 6)),), -12, 12)))
    if a.size and edges.size:
        a.flat[0] = edges[-1]  # the last bin is closed on the right
    check(lambda xp, x, e: list(xp.histogram(x, bins=e, density=density)), a.astype("float64"), edges)
    wdt = data.draw(st.sampled_from(["bool", "int32", "float32", "float64"]))
    w = data.draw(arrays(wdt, shape, 0, 5))
    # the same argsort, cumsum and differences as NumPy's: exact (bool weights: NumPy refuses)
    check(lambda xp, x, e, ww: list(xp.histogram(x, bins=e, weights=ww, density=density)), a, edges, w)


def test_histogram_lazy_range_and_nonfinite_data():
    a = np.array([1.0, 2.0, 7.0, 3.0])
    check(_hist(bins=3), a)
    check(_hist(bins=3), np.full(5, 4.0))  # max == min: NumPy widens the range by 0.5 each side
    check(_hist(bins=3), np.full(5, 4, np.int64))
    check(_hist(bins=2), np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max]))  # unsigned denominator
    # NaN or infinity with range=None: NumPy's ValueError, where the graph runs (for the counts alone too)
    p = fnp.placeholder((3,), np.float64, name="a")
    counts, edges = fnp.histogram(p, bins=4)
    for outputs in ([counts, edges], counts):
        exe = fgraph.compile(fgraph.Graph(outputs, inputs=[p]))
        exe(a=np.array([1.0, 2.0, 3.0]))
        for bad in ([1.0, np.nan, 3.0], [1.0, np.inf, 3.0]):
            with pytest.raises(ValueError, match="histogram: the autodetected range of the data is not finite"):
                exe(a=np.array(bad))


@settings(max_examples=examples(30))
@given(st.lists(st.integers(0, 40), max_size=30), st.booleans())
def test_bincount_of_a_computed_array_without_minlength(values, weighted):
    # np.bincount(r.ravel()) with r computed: max(r) + 1 bins, known now outside tracing (an evaluation point)
    x = np.array(values, dtype=np.int64)
    w = np.arange(x.size) / 3.0
    want = np.bincount(x * 2 % 17, weights=w if weighted else None)
    got = fnp.bincount(fnp.asarray(x) * 2 % 17, weights=fnp.asarray(w) if weighted else None)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=examples(40))
@given(st.sampled_from(["float64", "int64", "float32"]).flatmap(lambda d: arrays(d, st.integers(0, 40), -10, 10)),
       st.sampled_from(["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]),
       st.sampled_from([None, (0.0, 5.0), (-1, 1)]))
def test_histogram_string_bins_estimate_from_the_data_outside_tracing(a, est, rng):
    # np.histogram(x, bins="auto"): the count comes from the data, known now outside tracing
    # (values on a 1/64 grid: a spread of 1e-8 among outliers 20 apart made NumPy's own "fd" ask for
    # 3e9 bins, 23 GB, and the out-of-memory killer took the test's worker)
    a = (np.round(np.where(np.isfinite(a), a, 0).astype(np.float64) * 64) / 64).astype(a.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda xp, x: list(xp.histogram(x * 1, bins=est, range=rng)), a, paths=("eval",))
        check(lambda xp, x: xp.histogram_bin_edges(x * 1, bins=est, range=rng), a, paths=("eval",))


def test_histogram_takes_lazy_bins_and_range_outside_tracing():
    a = np.arange(10.0) ** 1.5
    t = fnp.asarray(a)
    for kw, lazy_kw in [(dict(bins=4), dict(bins=fnp.arange(5).max())),
                        (dict(range=(1.0, 20.0)), dict(range=(t[1], t.max() - 6.0 - a[-1] + 20.0 + 6.0))),
                        (dict(bins=[0.0, 2.0, 30.0]), dict(bins=fnp.asarray([0.0, 2.0, 30.0]) * 1))]:
        want = np.histogram(a, **kw)
        got = fnp.histogram(t, **lazy_kw)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)


def test_histogram_refusals():
    a = np.arange(6.0)
    for kw in (dict(bins=0), dict(bins=2.5), dict(bins=np.ones((2, 2))), dict(bins=np.array([3.0, 1.0, 2.0])),
               dict(range=(2, 1)), dict(range=(0, np.inf)), dict(bins="sturges", weights=np.ones(6)),
               dict(bins="nope"), dict(weights=np.ones(5)), dict(bins=1_000_000, range=(0, 1e-300))):
        check(lambda xp, x: list(xp.histogram(x, **kw)), a)
    with pytest.raises(fgraph.FgraphError, match="histogram.*bins='auto'"):
        fnp.histogram(fnp.placeholder(a.shape, a.dtype, name="a"), bins="auto")
    with pytest.raises(fgraph.FgraphError, match="histogram.*bins must be a Python value"):
        fnp.histogram(fnp.asarray(a), bins=fnp.placeholder((), np.int64, name="bins"))
    with pytest.raises(fgraph.FgraphError, match="histogram_bin_edges.*range must be a Python value"):
        fnp.histogram_bin_edges(fnp.asarray(a), range=(fnp.placeholder((), np.float64, name="lo"), 1.0))
    check(lambda xp, x, w: list(xp.histogram(x, bins=np.array([0.0, 2.0, 6.0]), weights=w)), a, a > 2)


def test_numpy_dispatches_to_the_lazy_versions():
    x = fnp.asarray(np.arange(6.0))
    for got in (np.histogram(x, bins=3)[0], np.isin(x, [1.0]), np.cov(x), np.digitize(x, [1.0, 3.0]),
                np.interp(x, [0.0, 5.0], [1.0, 2.0]), np.corrcoef(x, x)):
        assert isinstance(got, fgraph.Tensor)


def test_cov_no_degrees_of_freedom_with_weights():
    # fact = 0 (one weighted observation, ddof=1): NumPy's scale is a real
    # infinity even for complex data, not 1 / (0+0j)
    m = np.array([[1.0 + 0.0j, 1.0 + 1.0j, 0.0 + 0.0j]], dtype=np.complex64)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        check(lambda xp, x, a: xp.cov(x, rowvar=False, aweights=a), m, np.array([1.108093984787877]))


# ---------------------------------------------------------------- histogramdd, histogram2d

@st.composite
def _dd_bins(draw, d):
    """bins for d dimensions: an int, or per dimension an int or increasing edges."""
    if draw(st.booleans()):
        return draw(st.integers(1, 4))
    out = []
    for _ in range(d):
        if draw(st.booleans()):
            out.append(draw(st.integers(1, 4)))
        else:
            dt = draw(st.sampled_from(["int64", "float64"]))
            out.append(np.sort(draw(arrays(dt, (draw(st.integers(1, 5)),), -12, 12))))
    return out


def _dd_tolerance(weights):
    return {}  # weighted: NumPy's bincount sums, exactly


@settings(max_examples=examples(80), deadline=None)
@given(st.sampled_from(["int32", "int64", "float32", "float64"]), st.integers(1, 3), st.sampled_from([0, 1, 7, 12]),
       st.booleans(), st.sampled_from([None, "int64", "float64"]), st.booleans(), st.data())
def test_histogramdd(dt, d, n, density, wdt, columns, data):
    sample = data.draw(arrays(dt, (n, d), -10, 10))
    bins = data.draw(_dd_bins(d))
    range_ = None
    if data.draw(st.booleans()):
        range_ = [data.draw(st.sampled_from([None, (-5, 5), (0.5, 3.25), (2, 2), (-20.0, 20.0)])) for _ in range(d)]
    if n > 2:
        for i in range(d):
            b = bins if isinstance(bins, int) else bins[i]
            if np.ndim(b) == 1:
                sample[0, i] = b[-1]  # on the closed last edge
            elif range_ is not None and range_[i] is not None:
                sample[0, i] = range_[i][1]
                sample[1, i] = range_[i][0] - 1  # outside the range: dropped
    w = None if wdt is None else data.draw(arrays(wdt, (n,), 0, 5))

    def fn(xp, s, *ww):
        s = [s[:, i] for i in range(d)] if columns else s  # a sequence of D coordinate arrays
        return list(xp.histogramdd(s, bins=bins, range=range_, density=density, weights=ww[0] if ww else None))

    check(fn, sample, *([] if w is None else [w]), **_dd_tolerance(w))


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(["int64", "float32", "float64"]), st.sampled_from([0, 1, 9]),
       st.sampled_from(["int", "pair", "edges", "mixed"]), st.sampled_from([None, [(-5, 5), (0, 2.5)]]),
       st.booleans(), st.sampled_from([None, "int32", "float64"]), st.data())
def test_histogram2d(dt, n, bins_kind, range_, density, wdt, data):
    x, y = data.draw(arrays(dt, (n,), -8, 8)), data.draw(arrays(dt, (n,), -8, 8))
    edges = np.array([-6.0, -1.0, 0.0, 2.5, 7.0])
    bins = {"int": 3, "pair": [2, 4], "edges": edges, "mixed": [edges[:3], 2]}[bins_kind]
    if n:
        x[0], y[0] = 7, -6  # the last and first edges
    w = None if wdt is None else data.draw(arrays(wdt, (n,), 0, 5))
    args = (x, y) if w is None else (x, y, w)
    check(lambda xp, a, b, *ww: list(xp.histogram2d(a, b, bins=bins, range=range_, density=density,
                                                    weights=ww[0] if ww else None)), *args, **_dd_tolerance(w))


def test_histogramdd_lazy_edges_and_nonfinite_data():
    s = np.array([[0.0, 1.0], [2.0, 3.0], [2.0, -1.0], [5.0, 3.0]])
    ex, ey = np.array([0.0, 1.0, 2.0, 5.0]), np.array([-1.0, 3.0])
    check(lambda xp, a, b, c: list(xp.histogramdd(a, bins=[b, c])), s, ex, ey)  # edges as placeholders
    check(lambda xp, a: list(xp.histogramdd(a, bins=3)), np.full((4, 2), 7, np.int64))  # max == min: +-0.5
    check(lambda xp, a: list(xp.histogramdd(a, bins=(2, 3))), np.zeros((0, 2)))  # empty: range (0, 1)
    check(lambda xp, a: list(xp.histogramdd(a, bins=2)), np.array([1.0, 2.0, 3.0]))  # 1-D: one dimension
    check(lambda xp, a: list(xp.histogramdd(a, bins=2)), np.array([[1.0, np.nan]]))  # known now: NumPy raises
    # lazy data with NaN and range=None, lazy edges that decrease: NumPy's ValueError, where the graph runs
    p = fnp.placeholder((3, 2), np.float64, name="s")
    hist, edges = fnp.histogramdd(p, bins=2)
    exe = fgraph.compile(fgraph.Graph(hist, inputs=[p]))
    with pytest.raises(ValueError, match="histogramdd: the autodetected range of the data is not finite"):
        exe(s=np.array([[1.0, 0.0], [np.nan, 1.0], [2.0, 3.0]]))
    e = fnp.placeholder((3,), np.float64, name="e")
    exe = fgraph.compile(fgraph.Graph(fnp.histogramdd(p, bins=[e, 2])[0], inputs=[p, e]))
    with pytest.raises(ValueError, match=r"`bins\[0\]` must be monotonically increasing"):
        exe(s=np.zeros((3, 2)), e=np.array([0.0, 2.0, 1.0]))


def test_lazy_data_checks_raise_where_the_graph_runs():
    b = fnp.placeholder((3,), np.float64, name="b")
    x = fnp.asarray(np.array([0.5, 1.5]))
    exe = fgraph.compile(fgraph.Graph(fnp.digitize(x, b), inputs=[b]))
    np.testing.assert_array_equal(exe(b=np.array([3.0, 1.0, 0.0])), np.digitize([0.5, 1.5], [3.0, 1.0, 0.0]))
    with pytest.raises(ValueError, match="digitize: bins must be monotonically increasing or decreasing"):
        exe(b=np.array([0.0, 2.0, 1.0]))
    exe = fgraph.compile(fgraph.Graph(fnp.histogram(fnp.arange(4.0), bins=b)[0], inputs=[b]))
    with pytest.raises(ValueError, match="`bins` must increase monotonically"):
        exe(b=np.array([0.0, 2.0, 1.0]))
    w = fnp.placeholder((4,), np.float64, name="w")
    m = fnp.asarray(np.arange(8.0).reshape(2, 4))
    for kw, bad, match in (("fweights", [1.0, 2.5, 1.0, 1.0], "fweights must be integer"),
                           ("fweights", [1.0, -2.0, 1.0, 1.0], "fweights cannot be negative"),
                           ("aweights", [1.0, -0.5, 1.0, 1.0], "aweights cannot be negative")):
        exe = fgraph.compile(fgraph.Graph(fnp.cov(m, **{kw: w}), inputs=[w]))
        np.testing.assert_allclose(exe(w=np.ones(4)), np.cov(np.asarray(m), **{kw: np.ones(4)}))
        with pytest.raises(ValueError, match=f"cov: {match}"):
            exe(w=np.array(bad))


def test_histogramdd_refusals():
    s = np.arange(12.0).reshape(6, 2)
    for kw in (dict(bins=[2, 3, 4]), dict(bins=0), dict(bins=[2, 2.5]), dict(bins=[2, np.ones((2, 2))]),
               dict(bins=[2, np.array([3.0, 1.0])]), dict(bins=[2, np.zeros(0)]), dict(range=[(0, 1)]),
               dict(range=[(0, 1), (2, 1)]), dict(range=[(0, 1), (0, np.inf)]), dict(weights=np.ones(5)),
               dict(weights=np.ones(6, complex)), dict(weights=np.ones((6, 1)))):
        check(lambda xp, a: list(xp.histogramdd(a, **kw)), s)
    check(lambda xp, a: list(xp.histogramdd(a)), np.zeros((2, 2, 2)))  # not (N, D)
    check(lambda xp, a, b: list(xp.histogram2d(a, b)), np.arange(3.0), np.arange(4.0))
    check(lambda xp, a, b: list(xp.histogram2d(a, b, bins=[3])), np.arange(3.0), np.arange(3.0))
    check(lambda xp, a, b: list(xp.histogram2d(a, b)), np.float64(1.0), np.float64(1.0))
    with pytest.raises(fgraph.FgraphError, match="histogramdd.*bins.* must be a Python value"):
        fnp.histogramdd(fnp.asarray(s), bins=[2, fnp.placeholder((), np.int64, name="bins")])
    with pytest.raises(fgraph.FgraphError, match="histogramdd.*range.* must be a Python value"):
        fnp.histogramdd(fnp.asarray(s), range=[(0, 1), (fnp.placeholder((), np.float64, name="lo"), 1.0)])
    with pytest.raises(fgraph.FgraphError, match="histogram2d.*bins must be a Python value"):
        fnp.histogram2d(fnp.asarray(s[:, 0]), fnp.asarray(s[:, 1]), bins=fnp.placeholder((), np.int64, name="b"))
    assert isinstance(np.histogramdd(fnp.asarray(s), bins=2)[0], fgraph.Tensor)  # NumPy's names dispatch
    assert isinstance(np.histogram2d(fnp.asarray(s[:, 0]), fnp.asarray(s[:, 1]))[0], fgraph.Tensor)


@pytest.mark.parametrize("wdt", ["float32", "float64", "complex64", "int64"])
def test_weighted_histogram_over_blocks_is_exact(wdt):
    # past NumPy's 65536-value blocks each block's bincount is added into the counts in
    # the weights' dtype: float32 sums round differently from one float64 sum
    rng = np.random.default_rng(3)
    a = rng.normal(size=150_000)
    w = (rng.random(150_000) * 3).astype(wdt) if wdt[0] != "c" else \
        (rng.random(150_000) + 1j * rng.random(150_000)).astype(wdt)
    check(lambda xp, x, y: list(xp.histogram(x, bins=7, weights=y)), a, w)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.integers(0, 6), max_size=12), st.integers(0, 9), st.sampled_from([None, "int64", "float32"]),
       st.sampled_from(["int64", "int32", "uint8", "bool"]))
def test_bincount(values, minlength, wdt, xdt):
    x = np.array(values, dtype=np.int64).astype(xdt)
    w = None if wdt is None else np.arange(len(values)).astype(wdt) / 3
    # known now (constants): NumPy's own length, whatever minlength
    check(lambda xp: xp.bincount(xp.asarray(x), weights=None if w is None else xp.asarray(w), minlength=minlength))
    # lazy: the length is minlength, so values must stay below it (checked where the graph runs)
    length = max(minlength, int(x.max()) + 1 if x.size else 0)
    p = fnp.placeholder(x.shape, x.dtype, name="x")
    got = fgraph.compile(fgraph.Graph(fnp.bincount(p, weights=w, minlength=max(length, 1)), inputs=[p]))(x=x)
    want = np.bincount(x, weights=w, minlength=max(length, 1))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_bincount_refusals():
    p = fnp.placeholder((3,), "int64", name="x")
    with pytest.raises(fgraph.FgraphError, match="give minlength"):
        fnp.bincount(p)  # its length would be max(x) + 1
    exe = fgraph.compile(fgraph.Graph(fnp.bincount(p, minlength=3)))
    with pytest.raises(ValueError, match="a value >= minlength \\(3\\) would lengthen the result"):
        exe(x=np.array([0, 3, 1]))
    with pytest.raises(ValueError, match="must have no negative elements"):
        exe(x=np.array([0, -1, 1]))
    for bad in (np.array([1.5]), np.array([[1]]), np.array([-1])):
        check(lambda xp, x: xp.bincount(x, minlength=2), bad)
    check(lambda xp: xp.bincount(xp.asarray([1, 2]), minlength=-1))
    check(lambda xp: xp.bincount(xp.asarray([1, 2]), weights=xp.asarray([1 + 1j, 2]), minlength=3))

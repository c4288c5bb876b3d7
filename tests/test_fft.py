"""fgraph.numpy.fft against numpy.fft: every transform, on random shapes,
dtypes, lengths, axes and norms, bit for bit; the Dask engine and
micro-batching run the same op."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import array_of, check, shapes

DTYPES = [np.dtype(d) for d in ("bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128")]
NORMS = [None, "backward", "ortho", "forward"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]


@settings(max_examples=examples(150))
@given(st.data(), st.sampled_from(ONE_D), st.sampled_from(NORMS))
def test_one_dimensional(data, kind, norm):
    a = data.draw(array_of(DTYPES, shape=shapes(1, 3, 1, 6)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = data.draw(st.none() | st.integers(1, 9))
    check(lambda xp, x: getattr(xp.fft, kind)(x, n=n, axis=axis, norm=norm), a)


@settings(max_examples=examples(100))
@given(st.data(), st.sampled_from(["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]),
       st.sampled_from(NORMS))
def test_n_dimensional(data, name, norm):
    a = data.draw(array_of(DTYPES, shape=shapes(2, 3, 2, 5)))
    k = data.draw(st.integers(1, a.ndim)) if name.endswith("n") else 2
    axes = data.draw(st.permutations(range(a.ndim)))[:k]
    s = data.draw(st.none() | st.lists(st.integers(2, 6), min_size=k, max_size=k))
    if name.endswith("n") and data.draw(st.booleans()):
        axes = None  # NumPy's default: all axes (the last len(s) with s)
        s = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(lambda xp, x: getattr(xp.fft, name)(x, s=s, axes=axes, norm=norm), a)


@given(st.integers(1, 12), st.sampled_from([1.0, 0.1, 3]))
def test_frequencies(n, d):
    check(lambda xp: xp.fft.fftfreq(n, d))
    check(lambda xp: xp.fft.rfftfreq(n, d))


@settings(max_examples=examples(60))
@given(st.data())
def test_shifts(data):
    a = data.draw(array_of(shape=shapes(0, 3, 0, 5)))
    axes = data.draw(st.none() | (st.integers(-a.ndim, a.ndim - 1) if a.ndim else st.none())
                     | st.lists(st.integers(0, max(a.ndim - 1, 0)), max_size=a.ndim))
    if a.ndim == 0 and axes is not None:
        axes = None
    check(lambda xp, x: xp.fft.fftshift(x, axes), a)
    check(lambda xp, x: xp.fft.ifftshift(x, axes), a)
    check(lambda xp, x: xp.fft.ifftshift(xp.fft.fftshift(x, axes), axes), a)


def test_numpy_dispatches_here_and_refusals():
    t = fnp.arange(8.0)
    assert isinstance(np.fft.rfft(t), fnp.ndarray) and isinstance(np.fft.fftn(t.reshape(2, 4)), fnp.ndarray)
    np.testing.assert_array_equal(np.asarray(np.fft.irfft(np.fft.rfft(t))), np.fft.irfft(np.fft.rfft(np.arange(8.0))))
    with pytest.raises(fgraph.ShapeError, match=r"Invalid number of FFT data points \(0\)"):
        fnp.fft.fft(t, n=0)
    with pytest.raises(fgraph.ShapeError, match=r"Invalid number of FFT data points \(0\)"):
        fnp.fft.irfft(fnp.ones(1))  # the default n = 2 * (1 - 1)
    with pytest.raises(fgraph.DTypeError, match="rfft takes real input, not complex128"):
        fnp.fft.rfft(fnp.ones(4, complex))
    with pytest.raises(fgraph.FgraphError, match="Invalid norm value"):
        fnp.fft.fft(t, norm="both")
    with pytest.raises(fgraph.ShapeError, match="out of bounds"):
        fnp.fft.fft(t, axis=1)
    with pytest.raises(fgraph.FgraphError, match="n must be a Python value.*placeholder 'n'"):
        fnp.fft.fft(t, n=fnp.placeholder((), np.int64, name="n"))
    # outside tracing a lazy n is known now (an evaluation point), as NumPy's is
    np.testing.assert_allclose(np.asarray(fnp.fft.fft(fnp.arange(3.0), n=fnp.arange(6).max() - 1)),
                               np.fft.fft(np.arange(3.0), n=4))
    with pytest.raises(fgraph.FgraphError, match="immutable"):
        fnp.fft.fft(t, out=np.empty(8, complex))
    with pytest.raises(fgraph.ShapeError, match="different lengths"):
        fnp.fft.fftn(t.reshape(2, 4), s=(2, 4), axes=(0,))


def test_no_gradient_through_complex_values():
    x = fnp.placeholder((8,), "float64", name="x")
    with pytest.raises(fgraph.FgraphError, match=r"passes through complex values \(fft complex128\[8\]\)"):
        fgraph.grad(fnp.sum(fnp.real(fnp.fft.fft(x))), [x])  # not a silent zero


def test_dask_engine_and_micro_batches():
    x = np.random.default_rng(0).normal(size=(6, 16))
    d = fgraph.make("dask")
    got = np.asarray(d.fft.fft(d.fft.rfft(d.asarray(x), axis=1), axis=0, n=8))
    np.testing.assert_array_equal(got, np.fft.fft(np.fft.rfft(x, axis=1), axis=0, n=8))
    ph = fnp.placeholder((6, 16), "float64", name="x")
    g = fgraph.Graph(fnp.abs(fnp.fft.rfft(ph * 2.0)))  # along axis 1: rows stay independent
    want = np.abs(np.fft.rfft(x * 2.0))
    np.testing.assert_array_equal(fgraph.compile(g, micro_batch=4)(x=x), want)
    with pytest.raises(fgraph.FgraphError, match="batch axis"):
        fgraph.compile(fgraph.Graph(fnp.fft.fft(ph, axis=0)), micro_batch=2)

"""The flat pool kernels against the sliced ones they replace, bit for bit.

``max_pool2d_out`` (separable, on a padded flat copy of each chunk of
channels) and ``_avg_pool2d_flat`` (stride 1, flat window shifts) must give
exactly the bits of a running maximum / a sum from 0 over each window's
strided slices in row-major window order (the kernels before them, copied
here as oracles): over stride, asymmetric padding (also larger than the
kernel: windows wholly in the padding), dilation, ceil_mode, integer and
float dtypes, and NaNs of several payloads, -0.0 / +0.0 ties and infinities
in the input (the sums' NaNs as NaNs only: see ``same_bits``); with chunks of one channel, of several, and the sliced
fallback (``POOL_CHUNK_BYTES`` too small for one channel).
"""
import contextlib

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from budget import examples

import fgraph.engines.numpy_kernels  # noqa: F401  (attaches the kernels)
from fgraph.ops import nn_kernels as kernels
from fgraph.ops.nn import pool_out_size, windows

#: special values mixed into float inputs: NaNs of different signs and
#: payloads (which one a maximum keeps shows in the bits), signed zeros, infinities
SPECIAL32 = np.array([0x7FC00001, 0xFFC00002, 0x7FA00003, 0x80000000, 0x00000000, 0x7F800000, 0xFF800000],
                     np.uint32).view(np.float32)


def old_max_pool2d(x, out_hw, kernel, stride, padding, dilation):
    """The previous kernel: a running maximum from the lowest value over the window offsets."""
    out = np.empty(x.shape[:2] + tuple(out_hw), x.dtype)
    out.fill(-np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min)
    for _, _, (i0, i1, j0, j1), (rows, cols) in windows(out_hw, x.shape[2:], kernel, stride, padding, dilation):
        dst = out[:, :, i0:i1, j0:j1]
        np.maximum(dst, x[:, :, rows, cols], out=dst)
    return out


def old_avg_pool2d(x, out_hw, kernel, stride, padding, count_include_pad):
    """The previous kernel: sums from 0 over the window offsets, then the divisor."""
    out = np.zeros(x.shape[:2] + tuple(out_hw), x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        for _, _, (i0, i1, j0, j1), (rows, cols) in windows(out_hw, x.shape[2:], kernel, stride, padding,
                                                            (1, 1)):
            dst = out[:, :, i0:i1, j0:j1]
            np.add(dst, x[:, :, rows, cols], out=dst)
        np.divide(out, kernels._avg_divisor(out_hw, x.shape[2:], kernel, stride, padding, count_include_pad,
                                            x.dtype), out=out)
    return out


@contextlib.contextmanager
def pool_budget(nbytes):
    old = kernels.POOL_CHUNK_BYTES
    kernels.POOL_CHUNK_BYTES = nbytes
    try:
        yield
    finally:
        kernels.POOL_CHUNK_BYTES = old


#: chunks of one channel each ("one"), the default budget (None), no
#: channel fits (0: the sliced fallback)
BUDGETS = st.sampled_from(["one", None, 0])


def budget_bytes(budget, x, out_hw, p, flat_avg=False):
    """``POOL_CHUNK_BYTES`` for a budget of BUDGETS: "one" is the scratch
    of exactly one channel (as the kernels count it)."""
    if budget != "one":
        return kernels.POOL_CHUNK_BYTES if budget is None else budget
    stride, dil = p["stride"], p.get("dilation", (1, 1))
    hp, wp, _ = kernels._pool_geometry(x, out_hw, p["kernel"], stride, p["padding"], dil)
    wq = wp // stride[1]
    per = 2 * hp * wp if flat_avg else hp * (wp + wq * (1 + (stride[0] == 1 and p["kernel"][0] > 1)))
    return per * x.dtype.itemsize


@st.composite
def pool_case(draw, dtypes, dilation=True, stride_one=False):
    n, c = draw(st.integers(0, 2)), draw(st.integers(1, 5))
    h, w = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    dt = np.dtype(draw(st.sampled_from(dtypes)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = (rng.standard_normal((n, c, h, w)) * 10).astype(dt)
    if dt.kind == "f" and x.size:
        with np.errstate(invalid="ignore"):
            special = SPECIAL32.astype(dt) if dt != np.float32 else SPECIAL32
        where = rng.random(x.shape) < draw(st.sampled_from([0.0, 0.1, 0.5]))
        x[where] = rng.choice(special, size=int(where.sum()))
    kernel = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    stride = (1, 1) if stride_one else (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    padding = tuple((draw(st.integers(0, 4)), draw(st.integers(0, 4))) for _ in range(2))
    dil = (draw(st.integers(1, 3)), draw(st.integers(1, 3))) if dilation else (1, 1)
    ceil_mode = draw(st.booleans())
    out_hw = tuple(pool_out_size(m, k, s, p[0], p[1], d, ceil_mode)
                   for m, k, s, p, d in zip((h, w), kernel, stride, padding, dil))
    assume(min(out_hw) > 0)
    if draw(st.booleans()):  # a non-contiguous input (a feed may be one)
        wide = np.zeros(x.shape[:-1] + (2 * w,), dt)
        wide[..., ::2] = x
        x = wide[..., ::2]
    return x, out_hw, dict(kernel=kernel, stride=stride, padding=padding, dilation=dil, ceil_mode=ceil_mode)


def same_bits(got, want, nan_payloads=True):
    """Identical bits; with ``nan_payloads`` False, NaNs only as NaNs: which
    payload NaN + NaN keeps depends in NumPy on where the element falls in
    the array (a SIMD body keeps the first operand's, the scalar tail the
    second's), so the sliced sums never fixed it either."""
    assert got.shape == want.shape and got.dtype == want.dtype
    if not nan_payloads:
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan)
        got, want = np.where(nan, 0, got), np.where(nan, 0, want)
    assert got.tobytes() == want.tobytes(), (got, want)


@settings(max_examples=examples(150), deadline=None)
@given(case=pool_case([np.float32, np.float64, np.int32, np.int64, np.uint8]), budget=BUDGETS)
def test_max_pool2d_bitwise(case, budget):
    x, out_hw, p = case
    before = x.copy()
    out = np.full(x.shape[:2] + out_hw, 7, x.dtype)  # garbage: every element must be written
    with pool_budget(budget_bytes(budget, x, out_hw, p)):
        got = kernels.max_pool2d_out(x, out=out, **p)
    assert got is out
    same_bits(out, old_max_pool2d(x, out_hw, p["kernel"], p["stride"], p["padding"], p["dilation"]))
    same_bits(x, before)


@settings(max_examples=examples(150), deadline=None)
@given(case=pool_case([np.float16, np.float32, np.float64], dilation=False), budget=BUDGETS,
       count_include_pad=st.booleans())
def test_avg_pool2d_bitwise(case, budget, count_include_pad):
    x, out_hw, p = case
    del p["dilation"]
    out = np.full(x.shape[:2] + out_hw, 7, x.dtype)
    with pool_budget(budget_bytes(budget, x, out_hw, p, flat_avg=p["stride"] == (1, 1))):
        kernels.avg_pool2d_out(x, out=out, count_include_pad=count_include_pad, **p)
    same_bits(out, old_avg_pool2d(x, out_hw, p["kernel"], p["stride"], p["padding"], count_include_pad),
              nan_payloads=False)


@settings(max_examples=examples(150), deadline=None)
@given(case=pool_case([np.float16, np.float32, np.float64], dilation=False, stride_one=True),
       budget=st.sampled_from(["one", None]), count_include_pad=st.booleans())
def test_avg_pool2d_flat_bitwise(case, budget, count_include_pad):
    """The flat path itself, whatever the size heuristic would choose."""
    x, out_hw, p = case
    out = np.full(x.shape[:2] + out_hw, 7, x.dtype)
    if out.size == 0:
        return
    with pool_budget(budget_bytes(budget, x, out_hw, p, flat_avg=True)):
        assert kernels._avg_pool2d_flat(x, out, p["kernel"], p["padding"], count_include_pad)
    same_bits(out, old_avg_pool2d(x, out_hw, p["kernel"], (1, 1), p["padding"], count_include_pad),
              nan_payloads=False)


def test_flat_paths_taken(monkeypatch):
    """Small images take the flat paths (not the sliced fallback) by default."""
    def fail(*a, **k):
        raise AssertionError("the sliced fallback ran")

    monkeypatch.setattr(kernels, "_max_pool2d_sliced", fail)
    x = np.random.default_rng(0).standard_normal((2, 8, 14, 14)).astype(np.float32)
    p = dict(kernel=(3, 3), stride=(2, 2), padding=((0, 1), (0, 1)), dilation=(1, 1), ceil_mode=False)
    out = np.empty((2, 8, 7, 7), np.float32)
    same_bits(kernels.max_pool2d_out(x, out=out, **p), old_max_pool2d(x, (7, 7), **{k: p[k] for k in
                                                                                    ("kernel", "stride", "padding",
                                                                                     "dilation")}))
    out = np.empty((2, 8, 14, 14), np.float32)
    assert kernels._avg_pool2d_flat(x, out, (3, 3), ((1, 1), (1, 1)), False)


@pytest.mark.parametrize("stride", [1, 2])
def test_max_pool2d_ties_and_nans_in_window_order(stride):
    """-0.0 / +0.0 ties and NaN payloads resolve as the running maximum in
    row-major window order does, whatever their places in the window."""
    vals = np.array([0.0, -0.0, np.nan, -np.nan, 1.0], np.float32)
    rng = np.random.default_rng(5)
    for _ in range(20):
        x = rng.choice(vals, size=(1, 3, 9, 9)).astype(np.float32)
        for k in (2, 3):
            out_hw = (pool_out_size(9, k, stride, 1, 1, 1, False),) * 2
            p = dict(kernel=(k, k), stride=(stride, stride), padding=((1, 1), (1, 1)), dilation=(1, 1))
            out = np.empty((1, 3) + out_hw, np.float32)
            kernels.max_pool2d_out(x, out=out, ceil_mode=False, **p)
            same_bits(out, old_max_pool2d(x, out_hw, **p))


def test_output_a_channel_slice():
    """The output may be a strided view (a channel slice of a concatenation, batch > 1)."""
    x = np.random.default_rng(1).standard_normal((3, 4, 10, 10)).astype(np.float32)
    big = np.zeros((3, 9, 10, 10), np.float32)
    kernels.max_pool2d_out(x, out=big[:, 2:6], kernel=(3, 3), stride=(1, 1), padding=((1, 1), (1, 1)),
                           dilation=(1, 1), ceil_mode=False)
    same_bits(big[:, 2:6], old_max_pool2d(x, (10, 10), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1)))
    kernels.avg_pool2d_out(x, out=big[:, 5:9], kernel=(3, 3), stride=(1, 1), padding=((1, 1), (1, 1)),
                           ceil_mode=False, count_include_pad=False)
    same_bits(big[:, 5:9], old_avg_pool2d(x, (10, 10), (3, 3), (1, 1), ((1, 1), (1, 1)), False))
    assert not big[:, :2].any()  # nothing written outside the slice

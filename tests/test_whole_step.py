"""Eager steps run as one native function (``native/whole_step.py``): NumPy
programs with the import swapped, compared bit for bit with NumPy on the
same code, checking that the steps did run natively."""
import contextlib
import re
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.numpy_kernels.native import STATS, settle, toolchain, whole_step

from budget import examples

pytestmark = pytest.mark.skipif(toolchain() is None or not whole_step.enabled(), reason="no C compiler")


@pytest.fixture(autouse=True)
def no_step_limit(monkeypatch):
    """The tests before these in this process may have used up MAX_STEPS."""
    monkeypatch.setattr(whole_step, "MAX_STEPS", 10 ** 9)


def steps_run(program, *args):
    """``program(fnp, 0.0, *args)`` after runs on other data (the same data
    would find its values memoised), and the most steps that ran natively in
    one of them.  (Which nodes a step returns depends on the lazy arrays
    still alive, so a structure may first come back in any run: the count
    is the best of the runs after the first.)"""
    fgraph.get_engine("numpy").programs.clear()
    native = []
    for shift in (0.5, 0.25, 0.125, 0.0):
        before = STATS["steps"]
        got = program(fnp, shift, *args)
        native.append(STATS["steps"] - before)
        settle()  # (compiles under way finish before the next run)
    return got, max(native[1:])


def runs_natively_as_numpy(program):
    """``program`` (returning an array and the values it fetched) gives
    NumPy's results bit for bit, some of its steps natively."""
    want, want_f = program(np, 0.0)
    for _ in range(3):  # (steps_run's best of three runs; rarely a structure first comes back late)
        (got, got_f), native = steps_run(program)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.array(got_f), np.array(want_f))  # (NaNs in place)
        if native:
            break
    assert native >= 1


def heat(xp, shift, n, steps):
    u = xp.zeros((n, n))
    u[0, :] = 100.0 + shift
    u[:, 0] = 50.0
    deltas = []
    for _ in range(steps):
        old = u.copy()
        u[1:-1, 1:-1] = old[1:-1, 1:-1] + 0.2 * (old[:-2, 1:-1] + old[2:, 1:-1] + old[1:-1, :-2]
                                                 + old[1:-1, 2:] - 4 * old[1:-1, 1:-1])
        deltas.append(float(xp.abs(u - old).max()))
    return np.asarray(u), deltas


def reaction(xp, shift, n, steps):
    U, V = xp.ones((n, n)), xp.zeros((n, n))
    U[n // 4:n // 2, n // 4:n // 2] = 0.5 + shift
    V[n // 4:n // 2, n // 4:n // 2] = 0.25

    def lap(Z):
        return xp.roll(Z, 1, 0) + xp.roll(Z, -1, 0) + xp.roll(Z, 1, 1) + xp.roll(Z, -1, 1) - 4 * Z
    mass = []
    for _ in range(steps):
        uvv = U * V * V
        U += 0.16 * lap(U) - uvv + 0.035 * (1 - U)
        V += 0.08 * lap(V) + uvv - 0.1 * V
        mass.append(float(V.sum()))
    return np.asarray(U), np.asarray(V), mass


def adam(xp, shift, n, steps, dtype=np.float64):
    x = xp.asarray(np.linspace(-1.0, 1.0 + shift, n).astype(dtype))
    m, v = xp.zeros(n, dtype), xp.zeros(n, dtype)
    losses = []
    for t in range(1, steps + 1):
        g = 2 * x - 0.5
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        x = x - 0.01 * (m / (1 - 0.9 ** t)) / (xp.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        losses.append(float((x * x).sum()))
    return np.asarray(x), losses


@pytest.mark.parametrize("program, args", [(heat, (80, 12)), (reaction, (80, 10)), (adam, (5000, 12)),
                                           (adam, (5000, 12, np.float32))])
def test_numpy_programs_run_their_steps_natively_and_equal_numpy(program, args):
    got, native = steps_run(program, *args)
    want = program(np, 0.0, *args)
    # (after some other tests adam's steps take other structures from run to run, so they may not come
    # back the six times that compile them; the random step programs check native steps of that kind)
    if program is not adam:
        assert native >= args[1] // 2
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype


def test_a_python_int_that_does_not_fit_raises_as_numpy_does():
    def program(xp, shift, k):
        x = xp.asarray(np.arange(5000, dtype=np.int32) + int(shift * 2))
        out = []
        for _ in range(4):
            x = x + k
            out.append(int(x[7]))
        return out
    got, native = steps_run(program, 3)
    assert got == program(np, 0.0, 3) and native >= 2
    with pytest.raises(OverflowError):
        program(np, 0.0, 2 ** 40)
    with pytest.raises(fgraph.FgraphError, match="out of bounds for int32"):  # (found as the node is built)
        program(fnp, 0.0, 2 ** 40)


def test_python_scalars_of_every_kind_changing_every_step_equal_numpy():
    """A step's bool, int and float scalars (packed into its call's table
    beside the pointers) are read as NumPy reads them, whatever their
    values, negative and large ones included."""
    def program(xp, shift):
        x = xp.asarray(np.linspace(-3.0, 3.0 + shift, 5000))
        k = xp.asarray(np.arange(5000, dtype=np.int64))
        got = []
        for t in range(1, 9):
            flag = t % 3 == 0
            x = xp.where(x > 0.5 * t - 2, x * (1.0 - 0.1 ** t), x + flag) - 1e-3 * t
            k = ((k * (t - 4) + (-(2 ** 40) if t % 2 else 2 ** 33)) & 1023) + flag
            got.append((float(x.sum()), int(k.max())))
        return np.asarray(x) + np.asarray(k), got
    runs_natively_as_numpy(program)


def test_floating_point_warnings_as_numpy_gives_them():
    def program(xp, shift):
        x = xp.asarray(np.linspace(-1.0, 1.0 + shift, 5001))
        out = []
        for _ in range(4):
            x = x / (x * 0.0) + 1.0
            out.append(float(x[0]))
        return out
    steps_run(program)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = program(fnp, 0.0)
    with np.errstate(all="ignore"):
        want = program(np, 0.0)
    np.testing.assert_array_equal(got, want)
    assert any("invalid value" in str(w.message) for w in seen)


_OPS = [lambda xp, x: x * 0.5 + 1.0, lambda xp, x: xp.abs(x) - 0.75, lambda xp, x: xp.maximum(x, -x * 2),
        lambda xp, x: x[::-1] + x, lambda xp, x: xp.where(x > 0.5, x - 1.0, x * x), lambda xp, x: -x / 3.0,
        lambda xp, x: xp.sqrt(xp.abs(x)), lambda xp, x: xp.roll(x, 3) - x]


@settings(max_examples=examples(8), deadline=None)
@given(ops=st.lists(st.integers(0, len(_OPS) - 1), min_size=1, max_size=4),
       dtype=st.sampled_from([np.float64, np.float32]), seed=st.integers(0, 2 ** 16))
def test_random_step_programs_equal_numpy(ops, dtype, seed):
    x0 = np.random.default_rng(seed).normal(size=6000).astype(dtype)

    def program(xp, shift):
        x, fetched = xp.asarray(x0 + shift), []
        for _ in range(5):
            for op in ops:
                x = _OPS[op](xp, x)
            x[2] = x.max()  # (a fixed index: an index in the key would make each step new)
            fetched.append(float(x.sum()))
        return np.asarray(x), fetched
    with np.errstate(all="ignore"):
        (got, got_f), native = steps_run(program)
        want, want_f = program(np, 0.0)
    np.testing.assert_array_equal(got, want)
    assert got_f == want_f
    assert native >= 3


@settings(max_examples=examples(8), deadline=None)
@given(shape=st.sampled_from([(48, 130), (3, 2000), (130, 48)]),
       rolls=st.lists(st.tuples(st.integers(-140, 140), st.integers(0, 1)), min_size=1, max_size=3),
       seed=st.integers(0, 2 ** 16))
def test_rolls_and_joins_read_in_place_equal_numpy(shape, rolls, seed):
    """Concatenates read in place (``np.roll``, pieces of any length, along
    either axis): the innermost loop is split at the pieces' ends."""
    x0 = np.random.default_rng(seed).normal(size=shape)

    def program(xp, shift):
        x, fetched = xp.asarray(x0 + shift), []
        for _ in range(5):
            y = x * 0.5
            for s, axis in rolls:
                y = y + xp.roll(x, s, axis=axis)
            y = y - xp.concatenate([x[:, :2], x[:, 2:3] * 2, x[:, 3:]], axis=1)
            x = y * 0.25
            fetched.append(float(x.max()))
        return np.asarray(x), fetched
    runs_natively_as_numpy(program)


def test_values_sharing_a_loop_nest_read_each_other_at_their_own_index_only():
    """Element-wise values of one shape share a loop nest; one read by the
    next through a roll (another index, not yet computed there) keeps its
    own nest, so the roll reads it whole."""
    x0 = np.random.default_rng(5).normal(size=(40, 60))

    def program(xp, shift):
        x, fetched = xp.asarray(x0 + shift), []
        for _ in range(5):
            b = x * 2.0 + 1.0          # stored: read twice below
            c = b * b - x              # the same index: one nest with b
            d = xp.roll(c, 1, axis=1) + c * 0.5   # c at another index: c stored first
            x = d * 0.125 + xp.roll(b, -2, axis=0) * 0.01
            fetched.append(float(x.min()))
        return np.asarray(x), fetched
    runs_natively_as_numpy(program)


def test_writes_into_values_nothing_reads_again_equal_numpy():
    """A write whose target nothing reads afterwards is done in the
    target's own storage; one whose value reads the target at another
    index (``h[1:] = h[:-1] * 2``) copies first, as NumPy's temporary does."""
    x0 = np.random.default_rng(6).normal(size=5000)

    def program(xp, shift):
        def update(x):  # (g and h die with the call: scratch values of the step)
            g = xp.zeros_like(x)
            g[:-1] = x[1:] - x[:-1]
            g[1:] += x[1:] * 0.5
            h = x * 2.0 - 1.0
            h[1:] = h[:-1] * 2
            h[:-2] += h[2:]
            return x - 0.1 * g + 0.01 * h
        x, fetched = xp.asarray(x0 + shift), []
        for _ in range(5):
            x = update(x)
            fetched.append(float(x.sum()))
        return np.asarray(x), fetched
    runs_natively_as_numpy(program)


#: regions of a 40x40 array, in groups of one shape: a value of one may be written into another of its group
_REGIONS = [[(slice(1, None), slice(None)), (slice(None, -1), slice(None))],
            [(slice(None), slice(1, None)), (slice(None), slice(None, -1))],
            [(slice(1, -1), slice(1, -1)), (slice(2, None), slice(1, -1)), (slice(None, -2), slice(1, -1))]]


@settings(max_examples=examples(6), deadline=None)
@given(writes=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2), st.integers(0, 4)),
                       min_size=1, max_size=5),
       seed=st.integers(0, 2 ** 16))
@example(writes=[(0, 1, 0, 2)], seed=1).via("another region of the target")
@example(writes=[(2, 0, 0, 4)], seed=2).via("the same region, transposed")
@example(writes=[(0, 0, 1, 0), (1, 1, 0, 1), (2, 0, 2, 3)], seed=3).via("each element where it is written")
def test_region_writes_reading_their_own_region_or_another_equal_numpy(writes, seed):
    """A write of a region whose value reads that same region of its
    target, element for element (``g[1:] += f[:-1]``, ``g[1:] = g[1:] *
    0.5 + f``), is done in the target's own storage; one that reads
    another region of it (``g[1:] = g[:-1] + f``) or the same one at other
    elements (``g[1:-1, 1:-1].T``) still reads the old values, as NumPy's
    temporary does."""
    f0 = np.random.default_rng(seed).normal(size=(40, 40))

    def program(xp, shift):
        f, fetched = xp.asarray(f0 + shift), []
        for _ in range(4):
            g = xp.zeros_like(f) + 1.0
            for group, i, j, kind in writes:
                regions = _REGIONS[group]
                a, b = regions[i % len(regions)], regions[j % len(regions)]
                if kind == 0:
                    g[a] += f[b]
                elif kind == 1:
                    g[a] = g[a] * 0.5 + f[b]
                elif kind == 2:
                    g[a] = g[b] + f[a]
                elif kind == 3:
                    g[a] = xp.maximum(f[b], g[a]) * 2.0
                elif group == 2:  # (a square region)
                    g[a] = g[a].T * 0.5 + f[b]
            f = f * 0.5 + g * 0.25
            fetched.append(float(f.max()))  # (a float sum of transposed values is not native: NumPy's order)
        return np.asarray(f), fetched
    runs_natively_as_numpy(program)


def test_results_reused_only_when_nothing_holds_them():
    """A step's large results reuse the buffers of earlier results that
    nothing holds any more; every result still held keeps its value."""
    x0 = np.random.default_rng(8).normal(size=40_000)  # (320 kB: above the size results are reused at)

    def program(xp, shift):
        x, held, values = xp.asarray(x0 + shift), [], []
        for k in range(12):
            x = x * 0.5 + 1.0
            float(x[0])
            if k % 3 == 0:
                held.append(x)  # this step's result stays held; the others are dropped
                values.append(np.asarray(x).copy())
        return held, values
    held, values = program(fnp, 0.0)
    for _ in range(2):  # compiled by now: the reusing runs
        before = STATS["steps"]
        held, values = program(fnp, 0.0)
        settle()
    assert STATS["steps"] > before
    for h, v in zip(held, values):
        np.testing.assert_array_equal(np.asarray(h), v)
    np.testing.assert_array_equal(np.asarray(held[-1]), program(np, 0.0)[1][-1])


@settings(max_examples=examples(8), deadline=None)
@given(nan_at=st.sampled_from([None, 0, 17, 4999]), seed=st.integers(0, 2 ** 16))
def test_reductions_folded_in_the_pass_that_computes_their_input(nan_at, seed):
    """max/min (NaN and signed zeros), any/all, count_nonzero and an int
    sum of a value the step computes are folded in the same loop; a value
    that reads such a reduction keeps its own loop."""
    x0 = np.random.default_rng(seed).normal(size=5000)
    x0[::7] = 0.0
    x0[3::7] = -0.0
    if nan_at is not None:
        x0[nan_at] = np.nan

    def program(xp, shift):
        x, fetched = xp.asarray(x0 + shift), []
        for _ in range(5):
            y = x * 0.5 - 0.25
            z = xp.abs(y) - 0.5
            stats = (z.max(), y.min(), (z > 0).any(), (y < 9).all(), xp.count_nonzero(y > 0),
                     (z > 0).astype(np.int64).sum())
            x = y + z * (z.max() - 1.0)  # reads a reduction of z: after z's loop
            fetched.append(tuple(float(v) for v in stats))
        return np.asarray(x), fetched
    runs_natively_as_numpy(program)  # (with a NaN: by the step's quiet-comparison form)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_comparisons_of_nans_and_signed_zeros_run_natively_as_numpy(dtype):
    """Every ordered comparison of every pair of special values (NaN, signed
    zeros, infinities, denormals), and isfinite: the fast form's vectorised
    comparisons raise FE_INVALID on a NaN (GCC 12), so the step reruns by
    its quiet form, natively, with no warning, as NumPy gives."""
    info = np.finfo(dtype)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, info.tiny / 4, -info.tiny / 4,
                        info.max, -info.max, 2.5, -2.5], dtype)
    a0, b0 = np.repeat(special, special.size), np.tile(special, special.size)
    a0 = np.concatenate([a0] * 8)  # (above the size computed as built)
    b0 = np.concatenate([b0] * 8)

    def program(xp, shift):
        a, b, fetched = xp.asarray(a0.copy()), xp.asarray(b0.copy()), []  # (new arrays: nothing memoised)
        for _ in range(5):
            bits = (a < b) * 1 + (a <= b) * 2 + (a > b) * 4 + (a >= b) * 8 + xp.isfinite(a) * 16
            fetched.append(int(bits.sum()))
            a = xp.where(bits > 0, b, a)
        return np.asarray(bits), fetched
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (NumPy warns for none of these)
        runs_natively_as_numpy(program)


def test_compiles_stop_at_max_steps(monkeypatch):
    monkeypatch.setattr(whole_step, "MAX_STEPS", whole_step._started[0])
    got, native = steps_run(heat, 91, 6)  # (a size no other test compiled)
    assert native == 0
    np.testing.assert_array_equal(got[0], heat(np, 0.0, 91, 6)[0])


_INT_OPS = [lambda xp, x: x * 3 + 1, lambda xp, x: x - (x > 5), lambda xp, x: xp.maximum(x, 7) - x[::-1],
            lambda xp, x: xp.where(x % 2 == 0, x, -x), lambda xp, x: (x << 1) ^ x, lambda xp, x: xp.abs(x) & 1023,
            lambda xp, x: x + x.sum() + x.max() - x.min()]


@settings(max_examples=examples(8), deadline=None)
@given(ops=st.lists(st.integers(0, len(_INT_OPS) - 1), min_size=1, max_size=4),
       dtype=st.sampled_from([np.int64, np.int32]), seed=st.integers(0, 2 ** 16))
def test_random_integer_step_programs_equal_numpy(ops, dtype, seed):
    """Integers wrap as NumPy's do; sums, extremes and masks of them are exact."""
    x0 = np.random.default_rng(seed).integers(-1000, 1000, size=5000).astype(dtype)

    def program(xp, shift):
        x, fetched = xp.asarray(x0 + int(shift * 2)), []
        for _ in range(5):
            for op in ops:
                x = _INT_OPS[op](xp, x)
            fetched.append((int(x.sum()), int((x > 0).sum()), bool((x < -10 ** 6).any())))
        return np.asarray(x), fetched
    (got, got_f), native = steps_run(program)
    want, want_f = program(np, 0.0)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert got_f == want_f
    assert native >= 2


def test_a_filled_array_read_twice_is_stored_and_runs_whole():
    def program(xp, shift):
        x, out = xp.asarray(np.linspace(0.0, 1.0 + shift, 6000)), []
        for _ in range(8):
            grad = xp.zeros_like(x)
            grad[:-1] = x[1:] - x[:-1]
            base = xp.ones_like(x)  # read twice below: stored, not computed where read
            x = x - 0.1 * grad + base * 0.5 - base[::-1] * 0.25
            out.append(float(x.sum()))
        return np.asarray(x), out
    (got, got_f), native = steps_run(program)
    want, want_f = program(np, 0.0)
    np.testing.assert_array_equal(got, want)
    assert got_f == want_f and native >= 4


def _native_sources() -> list[str]:
    """The C of the steps compiled whole so far (the engine's program cache)."""
    entries = fgraph.get_engine("numpy").programs._items.values()
    return [e.whole.native.code.source() for e in entries if e.whole is not None]


def test_a_value_read_only_in_its_own_nest_is_never_stored():
    """``b`` is read twice, both times at its own index by values of its
    own loop nest: it lives in a register, and the step writes nothing to
    its workspace (particles' step wrote four such arrays: 6 of 14 MB)."""
    x0 = np.random.default_rng(7).normal(size=6000)

    def program(xp, shift):
        def update(x):  # (b and c die with the call: scratch values of the step)
            b = x * 2.0 + 1.0
            c = b * b - b * 0.5
            return c * 0.25 + (c > 1.0)
        x, fetched = xp.asarray(x0 + shift), []
        for _ in range(6):
            x = update(x)
            fetched.append(float(x.max()))
        return np.asarray(x), fetched
    runs_natively_as_numpy(program)
    sources = _native_sources()
    assert sources
    for source in sources:
        scratch = re.findall(r"\*restrict (m\d+) = \(\w+ \*\)\(ws \+", source)
        assert not [m for m in scratch if re.search(rf"\b{m}\)\[[^\]]*\] =", source)], source


def test_results_that_are_views_of_other_results_are_views_not_copies():
    """``xl, xr = x[:-1], x[1:]`` held across a step that moves x: their
    values are NumPy views of x's new value, as the interpreter's are (the
    step computed them as two more arrays), and equal NumPy's."""
    x0 = np.random.default_rng(8).normal(size=6000)

    def program(xp, shift):
        x, fetched = xp.asarray(x0 + shift), []
        for _ in range(6):
            xl, xr = x[:-1], x[1:]
            x -= 0.01 * (x * x - 1.0)
            fetched.append(float(xl.sum() - xr[0]))
        return (np.asarray(x), np.asarray(xl), np.asarray(xr)), fetched
    want, want_f = program(np, 0.0)
    (got, got_f), native = steps_run(program)
    assert native >= 3
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert got_f == want_f
    x, xl, xr = got
    assert np.shares_memory(xl, x) and np.shares_memory(xr, x)


@contextlib.contextmanager
def sharing(threads: int = 3):
    """Steps of every size above 1,000 elements compiled as functions
    ``threads`` threads share (``graph_threads``), however many cores
    this machine has, and always run so (not timed against one thread)."""
    old = whole_step.THREADED_ELEMENTS, whole_step.threads, whole_step.Race
    whole_step.THREADED_ELEMENTS, whole_step.threads = 1000, lambda: threads
    whole_step.Race = lambda shared, serial: shared
    try:
        yield
    finally:
        whole_step.THREADED_ELEMENTS, whole_step.threads, whole_step.Race = old


@settings(max_examples=examples(8), deadline=None)
@given(ops=st.lists(st.integers(0, len(_OPS) - 1), min_size=1, max_size=4),
       dtype=st.sampled_from([np.float64, np.float32]), nan_at=st.sampled_from([None, 3, 4999]),
       seed=st.integers(0, 2 ** 16))
def test_steps_shared_among_threads_equal_numpy(ops, dtype, nan_at, seed):
    """Loop nests cut in chunks among threads, one after another (a roll
    reads what an earlier nest stored), reductions folded by each chunk and
    added up (any, all, count_nonzero, an int sum) or run by one thread (a
    float max, a float sum): NumPy's values bit for bit."""
    x0 = np.random.default_rng(seed).normal(size=6000).astype(dtype)
    x0[::5] = 0.0
    if nan_at is not None:
        x0[nan_at] = np.nan

    def program(xp, shift):
        x, fetched = xp.asarray(x0 + shift), []
        for _ in range(6):
            for op in ops:
                x = _OPS[op](xp, x)
            x[2] = x.max()
            y = x * 0.5
            fetched.append((float(x.sum()), bool((y > 0.5).any()), bool((y < 9).all()), int(xp.count_nonzero(y)),
                            int((y > 0).astype(np.int64).sum()), float(y.min())))
        return np.asarray(x), fetched
    before = STATS["shared_steps"]
    with sharing(), np.errstate(all="ignore"):
        (got, got_f), native = steps_run(program)
        want, want_f = program(np, 0.0)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.array(got_f, dtype=float), np.array(want_f, dtype=float))
    assert native >= 3 and STATS["shared_steps"] > before


@settings(max_examples=examples(8), deadline=None)
@given(ops=st.lists(st.sampled_from([0, 1, 2, 4, 5, 6]), min_size=1, max_size=4), seed=st.integers(0, 2 ** 16))
def test_integer_steps_shared_among_threads_equal_numpy(ops, seed):
    """Integer extremes, sums and products folded by chunks and combined
    atomically (they do not depend on the order), as NumPy's.  (``%`` is
    left out: it calls NumPy's loop, so its steps are not native.)"""
    x0 = np.random.default_rng(seed).integers(-1000, 1000, size=5000)

    def program(xp, shift):
        x, fetched = xp.asarray(x0 + int(shift * 2)), []
        for _ in range(5):
            for op in ops:
                x = _INT_OPS[op](xp, x)
            fetched.append((int(x.max()), int(x.min()), int(((x & 3) + 1).prod()), int(x.sum())))
        return np.asarray(x), fetched
    with sharing():
        (got, got_f), native = steps_run(program)
    want, want_f = program(np, 0.0)
    np.testing.assert_array_equal(got, want)
    assert got_f == want_f and native >= 2


def test_floating_point_flags_of_every_thread_reach_numpy_s_warnings():
    """Each thread's IEEE flags are added to the call's before its chunk
    counts as done: a division by zero in whichever thread's chunk warns as
    NumPy does (the call's values are then not used: the step runs again
    by NumPy's loops, which give the warning).  (A helper thread more often
    takes the last chunks: the zero divisor is in the last one.)"""
    def program(xp, shift):
        x = xp.asarray(np.linspace(-1.0, 1.0 + shift, 50001))
        out = []
        for _ in range(6):
            x = x * 0.5 + 1.0
            y = x / (x - x[-1])
            out.append(float(y[0]))
        return out
    with sharing():
        steps_run(program)  # (compiled)
        for _ in range(3):
            before = STATS["shared_steps"]
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                got = program(fnp, 0.375)
            assert STATS["shared_steps"] > before  # the shared function ran, and its flags said so
            assert any("divide by zero" in str(w.message) for w in seen)
            with np.errstate(all="ignore"):
                assert got == program(np, 0.375)

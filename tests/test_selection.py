"""``x[mask]`` kept lazy (``fgraph/ops/selection.py``): NumPy's masked-update
idioms run with the import swapped and are compared with NumPy on the same
code, bit for bit, warnings included; the steps keep static shapes."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.numpy_kernels.native import STATS, settle, toolchain, whole_step
from fgraph.ops.selection import Selection
from fgraph.symbol import topological

from budget import examples


def ops_below(t) -> set:
    return {n.op for n in topological([t.node])}


def run(program, *args):
    """``program`` with NumPy and with fgraph.numpy: values and warnings."""
    out = {}
    for xp in (np, fnp):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = program(xp, *args)
            got = [np.asarray(g) for g in got]
        out[xp.__name__] = got, sorted({(w.category, str(w.message)) for w in caught})
    return out["numpy"], out["fgraph.numpy"]


def same(want, got):
    (wv, ww), (gv, gw) = want, got
    for a, b in zip(wv, gv):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    assert ww == gw


# ---------------------------------------------------------------- the idioms, against NumPy

UPDATES = [
    lambda xp, x, y, m: x.__setitem__(m, y[m]),
    lambda xp, x, y, m: x.__setitem__(m, -x[m]),
    lambda xp, x, y, m: x.__setitem__(m, 2.0 - x[m]),
    lambda xp, x, y, m: x.__setitem__(m, x[m] * 0.5 + y[m]),
    lambda xp, x, y, m: x.__setitem__(m, xp.maximum(x[m], y[m])),
    lambda xp, x, y, m: x.__setitem__(m, xp.sqrt(x[m])),
    lambda xp, x, y, m: x.__setitem__(m, xp.log(y[m])),
]


def _augmented(xp, x, y, m, kind):
    if kind == 0:
        x[m] += y[m]
    elif kind == 1:
        x[m] *= -1
    else:
        x[m] -= y[m] * 3


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from([(7,), (40,), (9, 2), (5, 3, 2)]), st.sampled_from(["float64", "float32"]),
       st.lists(st.integers(0, len(UPDATES) + 2), min_size=1, max_size=6), st.integers(0, 2 ** 31))
def test_masked_updates_match_numpy(shape, dtype, program, seed):
    """Random chains of masked updates, a value fetched after each, with
    masks over all of x's axes or its leading one; values (NaN of sqrt and
    log included) and warnings as NumPy's."""
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=shape).astype(dtype)
    y0 = rng.normal(size=shape).astype(dtype)
    lead = rng.integers(0, 2)

    def prog(xp, program):
        x, y = xp.asarray(x0.copy()), xp.asarray(y0)
        fetched = []
        for k in program:
            m = (x > 0.1) if not lead else (x.reshape(shape[0], -1)[:, 0] > 0.1)
            if k < len(UPDATES):
                UPDATES[k](xp, x, y, m)
            else:
                _augmented(xp, x, y, m, k - len(UPDATES))
            fetched.append(float(xp.nansum(x)))
        return [x, np.array(fetched)]

    same(*run(prog, program))


def test_selections_keep_the_step_static():
    """No mask is evaluated while the step is built: the writes are wheres
    of ufuncs computed only where the mask holds."""
    v = fnp.asarray(np.linspace(-1, 1, 9))
    c, d = fnp.full(9, -0.5), fnp.arange(9.0)
    fired = v >= 0.2
    v[fired] = c[fired]
    d[fired] += c[fired] * 2
    ops = ops_below(v) | ops_below(d)
    assert {"where", "ufunc_where"} <= ops
    assert not ops & {"advanced_index", "nonzero", "constant_index"}
    want_v, want_d = np.linspace(-1, 1, 9), np.arange(9.0)
    m = want_v >= 0.2
    want_v[m] = -0.5
    want_d[m] += -0.5 * 2
    np.testing.assert_array_equal(np.asarray(v), want_v)
    np.testing.assert_array_equal(np.asarray(d), want_d)


def test_a_selection_used_otherwise_is_numpys_boolean_index():
    """Its shape, a reduction, printing, indexing it, a cast: the selection
    materialises, from the values it was made from."""
    c0 = np.array([3.0, -1.0, 4.0, -1.5, 5.0])
    c = fnp.asarray(c0)
    s = c[c > 0]
    assert isinstance(s, Selection) and s.pending and s.dtype == np.float64 and s.ndim == 1
    c[...] = 0.0  # (a boolean index is a copy: later writes to c do not reach it)
    assert s.shape == (3,) and len(s) == 3 and not s.pending
    np.testing.assert_array_equal(np.asarray(s), [3.0, 4.0, 5.0])
    assert float(s.sum()) == 12.0 and float(s[1]) == 4.0
    assert str(c0[c0 > 0]) == str(fnp.asarray(c0)[fnp.asarray(c0) > 0])
    t = fnp.asarray(c0)[fnp.asarray(c0) > 0] * 2
    assert isinstance(t, Selection) and t.astype(np.int64).tolist() == [6, 8, 10]


def test_writes_through_another_mask_are_numpys():
    """A selection stored through another mask (or one changed since) is
    NumPy's: the counts must agree, or the same error is raised."""
    def prog(xp):
        x, y = xp.arange(6.0), xp.arange(6.0) * 10
        a, b = x < 3, x >= 3
        x[b] = y[a]  # three and three
        m = y > 25
        s = y[m]
        m[0] = True  # the mask changed: four places, three values
        try:
            x[m] = s
        except (ValueError, fgraph.FgraphError) as e:
            return [x, np.array(type(e).__mro__.__contains__(ValueError))]
        return [x, np.array(False)]
    same(*run(prog))


def test_only_the_selected_elements_are_computed():
    """``x[x > 0] = log(x[x > 0])`` warns about nothing, as in NumPy; log of
    the other elements warns as NumPy does."""
    def prog(xp):
        x = xp.asarray(np.array([-1.0, 4.0, 0.0, 9.0]))
        x[x > 0] = xp.log(x[x > 0])
        y = xp.asarray(np.array([-1.0, 4.0, 0.0, 9.0]))
        y[y <= 0] = xp.log(y[y <= 0])
        z = xp.asarray(np.array([2.0, 0.0, 4.0]))
        z[z != 0] = 1.0 / z[z != 0]
        return [x, y, z]
    want, got = run(prog)
    assert len(want[1]) == 2  # divide by zero and invalid value, from y only
    same(want, got)


def test_in_place_casting_is_refused_as_numpy_refuses():
    i, f = fnp.arange(4), fnp.asarray([0.5, 1.5, 2.5, 3.5])
    m = i > 1
    with pytest.raises(TypeError, match="Cannot cast"):
        i[m] += f[m]
    np.testing.assert_array_equal(np.asarray(i), [0, 1, 2, 3])
    ints = fnp.arange(4)
    ints[m] = f[m]  # setitem casts unsafely, as NumPy's
    np.testing.assert_array_equal(np.asarray(ints), [0, 1, 2, 3])


def test_traced_values_keep_the_boolean_index():
    """Under tracing a mask has no value: the boolean index refuses as it did."""
    with pytest.raises(fgraph.ShapeError):
        fgraph.jit(lambda v: v[v > 0] * 2)(np.array([-1.0, 2.0]))


def test_gradient_is_the_ufuncs_own_on_the_selected_elements():
    """Dropped lanes give no NaN (log at 0), second order included."""
    def f(v):
        return fnp.sum(fnp.log(v[v > 0]) * v[v > 0] + 3.0 * v[v > 0] ** 2)
    x = np.array([-1.0, 0.0, 2.0, 3.0])
    safe = np.where(x > 0, x, 1.0)
    np.testing.assert_allclose(fgraph.grad(f)(x), np.where(x > 0, np.log(safe) + 1 + 6 * x, 0.0), rtol=1e-15)
    second = fgraph.grad(lambda v: fgraph.grad(f)(v).sum())(x)
    np.testing.assert_allclose(second, np.where(x > 0, 1 / safe + 6, 0.0), rtol=1e-15)


# ---------------------------------------------------------------- compiled whole

def neurons(xp, n, steps, seed):
    """Izhikevich-style resets by mask, a count fetched every step."""
    rng = np.random.default_rng(seed)
    c, d = xp.asarray(-65 + 15 * rng.random(n)), xp.asarray(8 - 6 * rng.random(n))
    v, u = xp.asarray(rng.uniform(-70, 40, n)), xp.asarray(rng.uniform(-20, 0, n))
    counts = []
    for _ in range(steps):
        fired = v >= 30
        v[fired] = c[fired]
        u[fired] += d[fired]
        v += 0.5 * (0.04 * v ** 2 + 5 * v + 140 - u)
        u += 0.02 * (0.2 * v - u)
        counts.append(int(xp.count_nonzero(fired)))
    return [v, u, np.array(counts)]


def bouncing(xp, n, steps, seed):
    """Walls reflected by masked writes, a column's sum fetched every step."""
    rng = np.random.default_rng(seed)
    pos, vel = xp.asarray(rng.uniform(0.1, 0.9, (n, 2))), xp.asarray(rng.normal(0, 2, (n, 2)))
    sums = []
    for _ in range(steps):
        pos += vel * 0.01
        low, high = pos < 0.0, pos > 1.0
        vel[low | high] *= -1
        pos[low] = -pos[low]
        pos[high] = 2.0 - pos[high]
        sums.append(float(pos[:, 1].sum()))
    return [pos, vel, np.array(sums)]


@pytest.mark.skipif(toolchain() is None or not whole_step.enabled(), reason="no C compiler")
@pytest.mark.parametrize("program", [neurons, bouncing])
@pytest.mark.parametrize("n", [1031, 4099])  # (above COMPUTE_NOW_ELEMENTS: not computed as built)
def test_masked_steps_compile_whole(monkeypatch, program, n):
    """The steps repeat their structure, so they run as one native function
    (count_nonzero, and the float sum of a column, natively), bit for bit
    NumPy's."""
    monkeypatch.setattr(whole_step, "MAX_STEPS", 10 ** 9)
    fgraph.get_engine("numpy").programs.clear()
    native = []
    for seed in range(4):
        before = STATS["steps"]
        same(*run(program, n, 12, seed))
        native.append(STATS["steps"] - before)
        settle()
    assert max(native[1:]) > 0

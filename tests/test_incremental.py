"""Incremental evaluation (fgraph.engines.incremental): eager-style programs
that fetch as they go compute each step once, from the values still held,
keep exactly what live arrays point at, and reuse one program per step."""
import gc
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

import fgraph
import fgraph.numpy as fnp
from fgraph.engines.incremental import Step
from fgraph.engines.race import Race
from fgraph.engines.numpy_kernels.native import settle
from fgraph.symbol import Const, known_value

ENGINE = fgraph.get_engine("numpy")
BIG = (60, 70)  # above COMPUTE_NOW_ELEMENTS: stays lazy until fetched


def step_size(t) -> int:
    """How many nodes evaluating ``t`` now would compute."""
    return len(Step([t.node], ENGINE).order)


def test_each_fetch_computes_only_the_new_step():
    rng = np.random.default_rng(0)
    z0, m0 = rng.normal(size=BIG), rng.normal(size=BIG)
    Z, M = fnp.asarray(z0), fnp.asarray(m0)
    z, m = z0, m0
    sizes = []
    for _ in range(60):
        Z = Z * 0.5 + 1
        M = M * 0.9 + Z
        z = z * 0.5 + 1
        m = m * 0.9 + z
        sizes.append(step_size(M.sum()))
        assert float(M.sum()) == float(m.sum())  # the same kernels, the same order: exact
    assert set(sizes) == {5}  # Z's two ops, M's two and the sum: flat, not growing with history
    np.testing.assert_array_equal(np.asarray(M), m)


def test_values_live_arrays_point_at_are_kept_and_dropped_with_them():
    a = fnp.asarray(np.arange(4200.0).reshape(BIG))
    n = fnp.roll(a, 1, axis=0) + a  # held by the program
    z = n * 2
    total = float(z.sum())
    assert total == float((np.roll(np.asarray(a), 1, axis=0) + np.asarray(a)).sum() * 2)
    assert known_value(n.node) is not None and known_value(z.node) is not None  # intermediates held: kept
    assert step_size(z * 3) == 1  # the next fetch starts from z's value
    value = weakref.ref(known_value(n.node).value)
    node = n.node
    del n
    gc.collect()
    assert value() is None and known_value(node) is None  # dropped with the last array that held it
    assert node.op == "add" and node.inputs  # the graph itself is kept


def test_a_state_read_only_through_another_array_is_computed_at_each_fetch():
    """Gray-Scott's U is updated every step and read only through V: a fetch
    of V computes U too (as NumPy would have), so U's history never piles up."""
    def lap(z, xp):
        return xp.roll(z, 1, 0) + xp.roll(z, -1, 0) + xp.roll(z, 1, 1) + xp.roll(z, -1, 1) - 4 * z

    def prog(xp, steps, sizes=None):
        U, V = xp.ones(BIG), xp.zeros(BIG)
        V[20:30, 20:30] = 0.25
        U[20:30, 20:30] = 0.5
        mass = []
        for _ in range(steps):
            uvv = U * V * V
            U += 0.16 * lap(U, xp) - uvv + 0.035 * (1 - U)
            V += 0.08 * lap(V, xp) + uvv - 0.1 * V
            if sizes is not None:
                sizes.append(step_size(V.sum()) + step_size(U.sum()))
            mass.append(float(V.sum()))
        return mass, np.asarray(U)

    sizes = []
    got = prog(fnp, 30, sizes)
    want = prog(np, 30)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])
    assert len(set(sizes[1:])) == 1  # the same work every step


def test_temporaries_nobody_holds_are_not_kept():
    a = fnp.asarray(np.ones(BIG))
    t = fnp.sin(a) * 3  # sin(a) is a temporary: no array points at it
    float(t.sum())
    assert known_value(t.node) is not None
    assert known_value(t.node.inputs[0]) is None


def test_a_steps_inputs_stay_alive_until_it_is_evaluated():
    """M's last value is needed by M's next, unevaluated value, though the
    program rebinds M: it is pinned by the new node, then released."""
    M = fnp.asarray(np.ones(BIG)) * 1.0
    float(M.sum())
    old = weakref.ref(known_value(M.node))
    M = M * 2  # the array holding the old value is gone; the new node pins it
    gc.collect()
    assert old() is not None
    float(M.sum())
    gc.collect()
    assert old() is None  # M's new value replaced it
    np.testing.assert_array_equal(np.asarray(M), np.full(BIG, 2.0))


def test_a_loop_reuses_one_program_and_memory_stays_flat():
    import tracemalloc

    U = fnp.asarray(np.zeros(BIG))
    float(U.sum())
    tracemalloc.start()
    try:
        for i in range(40):
            U = U + fnp.sin(U) * 0.5 + i
            float(U.max())
        settle()  # (a compile under way, this test's or an earlier one's, allocates as it ends)
        misses, hits = ENGINE.programs.misses, ENGINE.programs.hits
        base = tracemalloc.get_traced_memory()[0]
        for i in range(200):
            U = U + fnp.sin(U) * 0.5 + 1
            float(U.max())
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert ENGINE.programs.misses == misses and ENGINE.programs.hits >= hits + 200
    # 200 steps of history (nodes only) is far below one value of U per step
    assert grown < 200 * U.nbytes / 4


def test_a_program_fetching_every_step_matches_numpy_game_of_life():
    def life(xp, steps):
        rng = np.random.default_rng(3)
        Z = xp.asarray(rng.integers(0, 2, size=(64, 64)))
        population = []
        for _ in range(steps):
            N = sum(xp.roll(xp.roll(Z, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
            Z = ((N == 3) | ((Z == 1) & (N == 2))).astype(int)
            population.append(int(Z.sum()))
        return np.asarray(Z), population, N

    want, wpop, _ = life(np, 30)
    got, gpop, N = life(fnp, 30)
    assert gpop == wpop
    np.testing.assert_array_equal(got, want)
    assert known_value(N.node) is not None  # N was held at the fetch: kept


def test_the_graph_is_kept_grad_sees_every_node():
    x = fnp.asarray(np.linspace(0.1, 2.0, 4200).reshape(BIG))
    y = fnp.sin(x) * x
    loss = y.sum()
    assert float(loss) == pytest.approx(float((np.sin(np.asarray(x)) * np.asarray(x)).sum()))
    g = fgraph.grad(loss, x)
    xv = np.asarray(x)
    np.testing.assert_allclose(np.asarray(g), np.cos(xv) * xv + np.sin(xv), rtol=1e-12)


def test_tiny_arrays_are_computed_when_made_and_errors_still_name_the_line():
    t = fnp.asarray(np.arange(5.0))
    u = t * 2 + 1
    assert known_value(u.node) is not None  # no fetch needed
    np.testing.assert_array_equal(np.asarray(u), np.arange(5.0) * 2 + 1)
    with pytest.raises(fgraph.FgraphError, match="test_incremental.py"):
        np.asarray(fnp.linalg.inv(fnp.zeros((3, 3))))  # singular: raised naming this line


def test_writes_and_views_after_fetches_match_numpy():
    def prog(xp):
        u = xp.zeros((50, 60))
        u[0, :] = 1.0
        inner = u[1:-1, 1:-1]
        deltas = []
        for _ in range(25):
            new = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
            deltas.append(float(abs(new - inner).max()))
            inner[...] = new
        return np.asarray(u), deltas

    want, wd = prog(np)
    got, gd = prog(fnp)
    assert gd == wd
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- the program cache

def _variants():
    """Steps that differ in one detail each: a program built for one must never run another."""
    a = np.random.default_rng(5).normal(size=BIG)
    b = np.random.default_rng(6).normal(size=BIG)
    return {
        "add": lambda x, y: x + y,
        "subtract": lambda x, y: x - y,
        "times 0.0": lambda x, y: x * 0.0 + y,
        "times -0.0": lambda x, y: x * -0.0 + y,
        "times 1": lambda x, y: x * 1 + y,
        "times True": lambda x, y: x * True + y,
        "x twice": lambda x, y: x + x,
        "sum axis 0": lambda x, y: (x + y).sum(axis=0),
        "sum axis 1": lambda x, y: (x + y).sum(axis=1),
        "float32": lambda x, y: x.astype("float32") + y,
        "transposed": lambda x, y: (x + y).T,
    }, a, b


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from(sorted(_variants()[0])), min_size=1, max_size=12))
def test_near_identical_steps_never_share_a_program(names):
    fns, a, b = _variants()
    for name in names:
        x, y = fnp.asarray(a), fnp.asarray(b)
        float(x.sum()), float(y.sum())  # known: the step starts from them
        got = np.asarray(fns[name](x, y))
        want = fns[name](a, b)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        assert np.signbit(got).tolist() == np.signbit(want).tolist()


def test_a_step_seen_again_is_optimised_and_gives_the_same_values():
    a = np.random.default_rng(7).normal(size=(300, 300))
    x = fnp.asarray(a)
    want = np.tanh(a) * 2 + a * a - 1
    results = [np.asarray(fnp.tanh(x) * 2 + x * x - 1) for _ in range(4)]
    hits = ENGINE.programs.hits
    other = np.asarray(fnp.tanh(x) * 3 + x * x - 2)  # (no assert around it: pytest would hold tanh(x))
    assert ENGINE.programs.hits == hits + 1  # other scalars: the same interpreter program
    np.testing.assert_array_equal(other, np.tanh(a) * 3 + a * a - 2)
    for r in results:
        np.testing.assert_array_equal(r, want)
    entry = ENGINE.programs._items[Step([(fnp.tanh(x) * 2 + x * x - 1).node], ENGINE).key]
    assert entry.optimised  # one optimised program, for these literals


# ---------------------------------------------------------------- data in

def test_a_read_only_array_enters_without_a_copy_a_writable_one_with_one():
    ro = np.arange(5000.0)
    ro.flags.writeable = False
    assert Const(ro).array is ro
    rw = np.arange(5000.0)
    c = Const(rw)
    assert c.array is not rw and not c.array.flags.writeable
    rw[0] = 99  # the user's array changes; the graph's does not
    assert c.array[0] == 0
    view = np.arange(5000.0)[::2]
    view.flags.writeable = False  # read-only, but its base is writable: copied
    assert Const(view).array is not view


def test_large_constants_are_keyed_by_identity_small_ones_by_content():
    big = np.zeros(10_000)
    c = Const(big)
    assert c != Const(big) and c == c  # never hashed byte by byte: each conversion is its own constant
    small = np.arange(10.0)
    assert Const(small) == Const(small.copy())
    assert Const(np.array([0.0])) != Const(np.array([-0.0]))  # exact bytes, not ==


def test_no_evaluation_changes_a_node():
    a = fnp.asarray(np.ones(BIG))
    t = fnp.exp(a) + a
    before = [(n.op, n.params, n.inputs, n.shape, n.dtype, n.key) for n in fgraph.symbol.topological([t.node])]
    float(t.sum())
    np.asarray(t)
    after = [(n.op, n.params, n.inputs, n.shape, n.dtype, n.key) for n in fgraph.symbol.topological([t.node])]
    assert before == after


def test_jit_on_a_lazy_argument_runs_only_its_own_nodes():
    def f(x):
        for _ in range(5):
            x = fnp.tanh(x) * 0.9 + 0.1
        return x

    jf = fgraph.jit(f)
    u = fnp.asarray(np.linspace(-1, 1, 4200).reshape(BIG))
    for _ in range(300):  # a long history behind the argument
        u = u * 1.0001 + 0.0
    float(u.sum())
    out = jf(u)
    assert step_size(out) == 5 * 3  # tanh, multiply and add a round: u's history is not run
    want = np.asarray(u)
    for _ in range(5):
        want = np.tanh(want) * 0.9 + 0.1
    np.testing.assert_array_equal(np.asarray(out), want)
    np.testing.assert_array_equal(jf(np.asarray(u)), want)  # the compiled call, on NumPy's array
    g = fgraph.grad(jf(u).sum(), u)  # it composes: differentiable through
    np.testing.assert_allclose(np.asarray(g), np.asarray(fgraph.grad(f(u).sum(), u)))


def test_a_python_scalar_input_that_fails_raises_fgraphs_error_naming_the_line():
    a = fnp.asarray(np.arange(4, dtype=np.int8))
    with pytest.raises(fgraph.FgraphError, match="test_incremental.py"):
        np.asarray(fnp.logical_and(a, 2 ** 64))  # NumPy's OverflowError, at the op that needed it


def test_the_program_cache_keeps_no_data_alive():
    ro = np.ones((200, 200))
    ro.flags.writeable = False  # nothing can write it: the graph takes it without a copy
    gone = weakref.ref(ro)
    for _ in range(3):  # interpreted, then optimised: both cached
        x = fnp.asarray(ro)
        v = np.asarray(fnp.sin(x) * 2.0 + 1.0)
    np.testing.assert_array_equal(v, np.sin(1.0) * 2.0 + 1.0)
    del ro, x, v
    gc.collect()
    assert gone() is None


def test_threads_evaluating_the_same_step_get_their_own_values():
    from concurrent.futures import ThreadPoolExecutor

    base = np.random.default_rng(11).normal(size=(40, 40))
    inputs = [base + k for k in range(16)]

    def work(a):
        x = fnp.asarray(a)
        u, s, vh = fnp.linalg.svd(x @ x.T + 1.0)  # one decomposition shared by three outputs
        return np.asarray(u * s @ vh)

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(work, inputs * 3))
    for a, g in zip(inputs * 3, got):
        np.testing.assert_allclose(g, a @ a.T + 1.0, atol=1e-8)


def test_data_fed_every_step_is_released_with_the_values_made_from_it():
    """A NumPy draw joined to a lazy accumulator each step (Monte Carlo) is
    not kept by the accumulator's history: it goes once the accumulator's
    next value is computed, while the graph stays whole."""
    rng = np.random.default_rng(2)
    hits = fnp.zeros(())
    for _ in range(20):
        x = rng.random(5000)  # NumPy's array: it enters the graph as a constant (a copy)
        hits = hits + fnp.sum(fnp.asarray(x) < 0.5)
        float(hits)
    gc.collect()
    consts = [n for n in fgraph.symbol.topological([hits.node]) if n.op == "constant" and n.size == 5000]
    assert len(consts) == 20  # the graph is kept ...
    alive = [c for c in consts if c.params[0][1]._array is not None or c.params[0][1]._owner() is not None]
    assert len(alive) <= 1  # ... but only the last draw's data (under the value hits holds)
    g_x = fnp.asarray(rng.random(5000))
    loss = (g_x * g_x).sum()
    float(loss)
    np.testing.assert_allclose(np.asarray(fgraph.grad(loss, g_x)), 2 * np.asarray(g_x))  # grad after a fetch


def test_grad_after_a_fetch_recomputes_through_numpy_data_that_only_the_result_holds():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(200, 30)), rng.normal(size=200)  # NumPy's arrays, used directly
    w = fnp.asarray(np.zeros(30))
    loss = ((X @ w - y) ** 2).mean()
    float(loss)  # evaluated: X's data is kept under loss's value
    gc.collect()
    g = fgraph.grad(loss, w)
    np.testing.assert_allclose(np.asarray(g), 2 * X.T @ (X @ np.zeros(30) - y) / 200, rtol=1e-12)


# ---------------------------------------------------------------- scalars that change, masks, temporaries

LARGE = (200, 200)  # above OPTIMISE_MIN_ELEMENTS: a step seen again is optimised


def test_a_scalar_that_changes_every_step_shares_one_optimised_program():
    """Adam's bias correction divides by 1 - b1**t, a new Python float each
    step: the optimised program takes it as an input, so it is built once
    (not once per value) and keeps NEP 50's float32."""
    engine = fgraph.get_engine("numpy")
    rng = np.random.default_rng(1)
    x0 = rng.normal(size=LARGE).astype(np.float32)
    x, want = fnp.asarray(x0), x0
    engine.programs.clear()
    for t in range(1, 12):
        c = 1 - 0.9 ** t
        x = x / c * 0.5 + 1.0
        want = want / c * 0.5 + 1.0
        got = np.asarray(x)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)
    (entry,) = engine.programs._items.values()
    # one program for every value: optimised, or (a small step, a C compiler) compiled whole with the
    # scalar a weak input
    assert len(entry.optimised) == 1 or (entry.whole is not None and len(entry.optimised) <= 1)


@pytest.mark.parametrize("scalar", [1.0, 0.0, -0.0, 1, True])
def test_the_scalars_rules_look_for_stay_built_in(scalar):
    """0 and 1 (x * 1.0, x + 0) pick their own optimised program; other
    values share one.  Results match NumPy either way."""
    from fgraph.engines.incremental import literal_key
    from fgraph.symbol import Scalar

    assert literal_key((Scalar(scalar), Scalar(2.5))) == (Scalar(scalar), None)
    x0 = np.random.default_rng(2).normal(size=LARGE)
    x, want = fnp.asarray(x0), x0
    for _ in range(4):
        x = x * scalar + 2.5
        want = want * scalar + 2.5
        np.testing.assert_array_equal(np.asarray(x), want)


@settings(max_examples=examples(60))
@given(shape=st.lists(st.integers(1, 5), min_size=2, max_size=4), lead=st.integers(2, 4),
       seed=st.integers(0, 2 ** 32 - 1), frac=st.sampled_from([0.0, 0.3, 1.0]))
def test_masks_of_several_axes_read_and_write_as_numpy(shape, lead, seed, frac):
    """x[m], x[m] = v, x[m] *= c and x[m] = f(x[m]) for a mask over x's
    leading axes (the flat-index gather) against NumPy."""
    lead = min(lead, len(shape))
    rng = np.random.default_rng(seed)
    a = rng.normal(size=shape)
    m = rng.random(shape[:lead]) < frac
    x, want = fnp.asarray(a.copy()), a.copy()
    np.testing.assert_array_equal(np.asarray(x[fnp.asarray(m)]), want[m])
    x[fnp.asarray(m)] *= -2.0
    want[m] *= -2.0
    x[m] = 2.0 - x[m]
    want[m] = 2.0 - want[m]
    x[fnp.asarray(m)] = 7.0
    want[m] = 7.0
    np.testing.assert_array_equal(np.asarray(x), want)


def test_a_mask_of_the_wrong_shape_raises_as_numpy():
    x = fnp.zeros((3, 4))
    with pytest.raises(IndexError, match="boolean index"):
        x[np.ones((3, 3), bool)]
    with pytest.raises(IndexError, match="boolean index"):
        x[np.ones((3, 3), bool)] = 1.0


def test_the_gradient_flows_through_a_mask_of_several_axes():
    a = np.arange(12.0).reshape(3, 4)
    m = (a % 3) == 0
    w = fnp.asarray(a)
    g = np.asarray(fgraph.grad((w[m] ** 2).sum(), w))
    np.testing.assert_array_equal(g, np.where(m, 2 * a, 0.0))


def test_a_temporary_is_reused_only_when_nobody_else_holds_it():
    """The step interpreter writes over a temporary in place; a temporary a
    view, another array or a later reader still sees keeps its value."""
    from fgraph.engines import incremental

    rng = np.random.default_rng(3)
    a0 = rng.normal(size=BIG)
    a = fnp.asarray(a0)
    t = a * 2.0  # held: an output of the step, never overwritten
    v = t.reshape(-1)  # a view of it
    u = (a + 1.0) * 3.0  # a + 1.0 is a temporary: multiplied in place
    w = t - 1.0
    got = [np.asarray(x) for x in (u, w, t, v)]
    want = [(a0 + 1.0) * 3.0, a0 * 2.0 - 1.0, a0 * 2.0, (a0 * 2.0).reshape(-1)]
    for g_, w_ in zip(got, want):
        np.testing.assert_array_equal(g_, w_)
    # the reuse itself: a writable temporary held only by the run is written over...
    reused = []
    run = incremental._reusing(np.negative, lambda x, out: reused.append(1) or np.negative(x, out=out), 0,
                               incremental._temporary_refs(False))
    from fgraph.engines.program import Program
    from fgraph.symbol import make_node

    p = fnp.placeholder((5,)).node
    first = make_node("add", [p, p])
    second = make_node("negative", [first])
    prog = Program([second], "numpy_kernel", "numpy", known={id(p): None}, order=[p, first, second])
    at = prog.slot[id(second)]
    prog.instructions[:] = [(run, *i[1:]) if i[3] == at else i for i in prog.instructions]
    values = [None] * 3
    values[prog.slot[id(p)]] = np.arange(5.0)
    np.testing.assert_array_equal(prog.run(values)[at], -2 * np.arange(5.0))
    assert reused == [1]
    # ...and one held elsewhere (here: by this list) is not
    keep = []
    run_first = prog.instructions[0][0]
    prog.instructions[0] = ((lambda *xs, **kw: keep.append(run_first(*xs, **kw)) or keep[-1]),
                            *prog.instructions[0][1:])
    values = [None] * 3
    values[prog.slot[id(p)]] = np.arange(5.0)
    prog.run(values)
    assert reused == [1] and np.array_equal(keep[0], 2 * np.arange(5.0))


def test_a_chain_of_element_writes_reuses_its_temporary_in_place():
    """``out[i] = v`` a thousand times on a large array, fetched once: each
    setitem (a kernel with params, so one more reference in the call) writes
    over the last one's result instead of copying the whole array (it
    copied every time: 2,000 writes on 1e5 elements took 65 ms, not 30)."""
    from fgraph.engines import incremental

    calls = {"copy": 0, "in place": 0}
    real = incremental._reusing

    def counting(kernel, out_kernel, p, refs):
        def copy(*a, **kw):
            calls["copy"] += 1
            return kernel(*a, **kw)

        def in_place(*a, **kw):
            calls["in place"] += 1
            return out_kernel(*a, **kw)
        return real(copy, in_place, p, refs)

    want = np.zeros(5000)
    out = fnp.zeros(5000)
    incremental._reusing = counting
    try:
        for i in range(300):
            out[i * 7 % 5000] = i * 0.5
            want[i * 7 % 5000] = i * 0.5
        np.testing.assert_array_equal(np.asarray(out), want)
    finally:
        incremental._reusing = real
    assert calls["in place"] >= 299 and calls["copy"] <= 1


def test_a_small_numpy_operand_is_one_node_and_an_asarray_array_its_own():
    """``b - x`` every step with the same small NumPy ``b``: one constant
    node (its content is its key), not a Const made anew each time; two
    ``asarray`` of equal data stay two arrays (a gradient tells them apart)."""
    b = np.arange(5.0)
    x = fnp.asarray(np.ones(5))
    first, second = (b - x).node.inputs[0], (b - x).node.inputs[0]
    assert first is second and first.op == "constant"
    b[0] = 7.0  # new content: a new constant
    third = (b - x).node.inputs[0]
    assert third is not first
    np.testing.assert_array_equal(np.asarray(b - x), b - 1.0)
    u, v = fnp.asarray(b), fnp.asarray(b)
    assert u.node is not v.node
    gu, gv = fgraph.grad((u * 2.0 + v * 3.0).sum(), [u, v])
    np.testing.assert_array_equal(np.asarray(gu), np.full(5, 2.0))
    np.testing.assert_array_equal(np.asarray(gv), np.full(5, 3.0))


def test_pins_shared_through_different_paths_stay_flat():
    """Two known values reaching a node along many paths: its pins list each
    once (they used to nest, doubling at every level: 2**60 leaves here)."""
    a0, b0 = np.arange(3000.0), np.linspace(0, 1, 3000)
    a, b = fnp.asarray(a0), fnp.asarray(b0)
    x, y = a + b, b + a
    xw, yw = a0 + b0, b0 + a0
    for _ in range(60):
        x, y = x * 0.5 + y * 0.25, y * 0.5 + x * 0.25
        xw, yw = xw * 0.5 + yw * 0.25, yw * 0.5 + xw * 0.25
    pins = x.node._pins
    assert type(pins) is tuple and len(pins) == 2 and all(type(p).__name__ == "Known" for p in pins)
    np.testing.assert_array_equal(np.asarray(x), xw)


def test_jvp_through_a_loop_under_a_long_chain_matches_the_loop_free_graph():
    """Forward mode linearises each node on a local copy: a chain of 200 ops
    above a loop builds in time linear in the chain, with the same tangent."""
    def f(x, n, loop):
        c = fgraph.fori_loop(0, 3, lambda i, v: v * 1.01, x) if loop else x * 1.01 * 1.01 * 1.01
        for _ in range(n):
            c = fnp.sin(c) * 0.5 + c
        return c.sum()

    x0, t0 = np.linspace(0.1, 0.9, 5), np.linspace(1.0, -1.0, 5)
    with_loop = fgraph.jvp(lambda x: f(x, 200, True), (x0,), (t0,))
    without = fgraph.jvp(lambda x: f(x, 200, False), (x0,), (t0,))
    np.testing.assert_allclose(with_loop[1], without[1], rtol=1e-12)
    np.testing.assert_allclose(with_loop[0], without[0], rtol=1e-12)


def test_a_step_structure_seen_once_is_not_kept():
    """A mask's count is in the shapes (``sort(v[fired])``: a selection
    used as more than a ufunc's operand): such steps may never come back,
    so a structure is kept (detached from its data) only when it is seen a
    second time; every step's values still match NumPy."""
    engine = fgraph.get_engine("numpy")
    engine.programs.clear()
    rng = np.random.default_rng(3)
    v0 = rng.normal(size=BIG[0] * BIG[1])
    v, want = fnp.asarray(v0), v0.copy()
    misses = engine.programs.misses
    for k in range(1, 6):  # the mask picks k values: a new structure each step
        fired = fnp.arange(v0.size) < k
        v[fired] = fnp.sort(v[fired]) * 0.5
        want[:k] = np.sort(want[:k]) * 0.5
        np.testing.assert_array_equal(np.asarray(v), want)
    # (the mask's own structure repeats, its literal k aside: that one is kept)
    assert engine.programs.misses - misses - len(engine.programs) >= 5
    kept = len(engine.programs)
    big = fnp.asarray(np.ones(BIG))
    for _ in range(2):  # the same structure twice (large enough not to be computed as it is built)
        np.asarray(big * 3.0 + 1.0)
    assert len(engine.programs) == kept + 1


def test_a_race_keeps_the_faster_program():
    """A large step compiled whole races the optimised program: each is
    timed on its first calls (the best of three), then only the faster runs."""
    import time

    calls = []

    def program(name, delay):
        def run(values):
            calls.append(name)
            time.sleep(delay)
            return [values[0] + 1]
        return run

    race = Race(program("whole", 0.004), program("optimised", 0.0))
    results = [race([k])[0] for k in range(10)]
    assert results == list(range(1, 11))  # every call's own result, whoever ran it
    assert calls[:6].count("whole") == 3 and calls[:6].count("optimised") == 3
    assert calls[6:] == ["optimised"] * 4


def test_a_race_slowed_by_other_work_corrects_itself():
    """The program not kept runs again every RECHECK calls: one whose
    trials were slowed (a compile in the background took the core) wins
    once it is measured at its own speed, and stays kept."""
    import time

    calls = []
    slow_trials = [3]

    def whole(values):  # slow on its first three calls only
        calls.append("whole")
        if slow_trials[0]:
            slow_trials[0] -= 1
            time.sleep(0.006)
        return [values[0]]

    def optimised(values):
        calls.append("optimised")
        time.sleep(0.002)
        return [values[0]]

    race = Race(whole, optimised)
    for k in range(3 * Race.RECHECK):
        assert race([k]) == [k]
    assert race.winner is whole
    assert calls[-Race.RECHECK:].count("optimised") == 1  # (its own recheck)


def test_a_floating_point_error_of_a_small_array_is_raised_where_it_is_made():
    """Under np.seterr(divide="raise") NumPy raises at the op, inside the
    user's try: a small array computed when made does too (a larger one
    raises at the fetch that computes it)."""
    with np.errstate(divide="raise", invalid="raise"):
        x = fnp.asarray(np.array([0.5, 0.0]))
        for _ in range(3):  # (the first call of each takes the general path, the next the ops' fast paths)
            with pytest.raises(FloatingPointError, match=r"(?s)log.*divide by zero.*test_incremental\.py"):
                fnp.log(x)
            with pytest.raises(FloatingPointError, match=r"(?s)divide.*divide by zero.*test_incremental\.py"):
                1.0 / x
        big = fnp.log(fnp.asarray(np.zeros(BIG)))  # pending: nothing raised yet
        with pytest.raises(FloatingPointError):
            np.asarray(big)
    y = fnp.log(fnp.asarray(np.array([0.5, 2.0])))  # no error state: as before
    np.testing.assert_array_equal(np.asarray(y), np.log([0.5, 2.0]))


def test_a_loop_holding_several_pending_arrays_keeps_one_step_structure():
    """Adam's loop holds m, s, grad, m_hat... each step, all computed at its
    one fetch: the step's roots are taken in the order they were made, so
    its structure (and program) is the same every step, however the
    freed arrays' ids are reused (it had cycled through four keys)."""
    from fgraph.bench.eager import adam_rosenbrock

    adam_rosenbrock(fnp, 5000, 2, seed=2)  # (arrays other tests left pending are computed with its steps)
    gc.collect()
    ENGINE.programs.clear()
    want, _ = adam_rosenbrock(np, 5000, 40, seed=3)
    got, _ = adam_rosenbrock(fnp, 5000, 40, seed=3)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert len(ENGINE.programs) <= 2  # the first step (x from linspace), then the loop's


def test_a_race_drops_a_program_that_became_slow():
    """Only each program's latest runs count: one kept while it was fast
    (a step shared among threads on an idle machine) is dropped once it
    runs slower than the other (another program took a core)."""
    import time

    calls = []

    def shared(values):
        calls.append("shared")
        time.sleep(0.0 if len(calls) < 12 else 0.004)
        return values

    def serial(values):
        calls.append("serial")
        time.sleep(0.002)
        return values

    race = Race(shared, serial)
    for k in range(12):
        race(k)
    assert race.winner is shared
    for k in range(2 * Race.RECHECK):
        race(k)
    assert race.winner is serial
    assert calls[-Race.RECHECK // 2:].count("shared") <= 1

"""fgraph.numpy.random on lazy arrays, and the linear algebra whose result
dtype or size depends on the values (eig, eigvals, roots), against NumPy.

Random: the same seed through NumPy (on an ndarray) and through fgraph (on
a lazy array of the same shape) must give the same values and leave the
stream at the same place (the next draw is compared too).
"""
import copy
import pickle

import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp

SEEDS = range(6)
SHAPES = [(1,), (7,), (0,), (4, 3), (3, 0), (1, 5), (3, 4, 5), (2, 1, 3)]


def base(shape, dtype=np.int64):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) * 3 - 5


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_array_equal(got, want)


def rngs(seed):
    return np.random.default_rng(seed), fnp.random.default_rng(seed)


def same_stream(g1, g2):
    assert g1.random() == g2.random()


def raises_like(np_call, fg_call):
    """fgraph raises where NumPy does, an exception of NumPy's class, and draws nothing before."""
    with pytest.raises(Exception) as want:
        np_call()
    with pytest.raises(type(want.value)):
        fg_call()


# ---------------------------------------------------------------- Generator.shuffle

@pytest.mark.parametrize("shape", SHAPES)
def test_generator_shuffle_every_axis(shape):
    for seed in SEEDS:
        for axis in range(-len(shape), len(shape)):
            g1, g2 = rngs(seed)
            a = base(shape)
            t = fnp.asarray(a.copy())
            alias = t
            g1.shuffle(a, axis=axis)
            assert g2.shuffle(t, axis=axis) is None
            same(alias, a)
            same_stream(g1, g2)


def test_shuffle_views_and_aliases_see_it():
    g1, g2 = rngs(3)
    a = base((6, 4))
    t = fnp.asarray(a.copy())
    va, vt = a[1:4, ::2], t[1:4, ::2]  # a view taken before the shuffle
    g1.shuffle(a)
    g2.shuffle(t)
    same(vt, va)
    # shuffling a view writes through to its base
    g1.shuffle(va, axis=1)
    g2.shuffle(vt, axis=1)
    same(t, a)
    same(vt, va)
    # a transposed view along its first axis
    g1.shuffle(a.T)
    g2.shuffle(t.T)
    same(t, a)
    same_stream(g1, g2)


def test_shuffle_many_dtypes():
    for dt in (np.float32, np.complex128, np.bool_, np.uint8):
        g1, g2 = rngs(5)
        a = base((5, 2)).astype(dt)
        t = fnp.asarray(a.copy())
        g1.shuffle(a, axis=-1)
        g2.shuffle(t, axis=-1)
        same(t, a)


def test_shuffle_refusals_draw_nothing():
    g1, g2 = rngs(0)
    raises_like(lambda: g1.shuffle(np.zeros(())), lambda: g2.shuffle(fnp.zeros(())))
    raises_like(lambda: g1.shuffle(np.zeros((3, 4)), axis=2), lambda: g2.shuffle(fnp.zeros((3, 4)), axis=2))
    raises_like(lambda: g1.shuffle(np.zeros((0, 3)), axis=-3), lambda: g2.shuffle(fnp.zeros((0, 3)), axis=-3))
    ro = np.broadcast_to(np.arange(3), (4, 3))
    raises_like(lambda: g1.shuffle(ro), lambda: g2.shuffle(fnp.broadcast_to(fnp.arange(3), (4, 3))))
    with pytest.raises(fgraph.FgraphError):
        g2.shuffle(fnp.zeros((3, 4)), axis=2)
    same_stream(g1, g2)


# ---------------------------------------------------------------- permutation, permuted

@pytest.mark.parametrize("shape", SHAPES)
def test_generator_permutation(shape):
    for seed in SEEDS:
        for axis in range(-len(shape), len(shape)):
            g1, g2 = rngs(seed)
            a = base(shape)
            t = fnp.asarray(a)
            p = g2.permutation(t, axis=axis)
            same(p, g1.permutation(a, axis=axis))
            assert isinstance(p, fgraph.Tensor)
            same(t, a)  # a copy: x itself is unchanged
            same(g2.permutation(9), g1.permutation(9))  # an int: NumPy's array
            same_stream(g1, g2)
    g1, g2 = rngs(0)
    raises_like(lambda: g1.permutation(np.zeros(())), lambda: g2.permutation(fnp.zeros(())))
    raises_like(lambda: g1.permutation(np.zeros((2, 3)), axis=2), lambda: g2.permutation(fnp.zeros((2, 3)), axis=2))


def _layouts(a):
    """NumPy arrays of a's values in several layouts, each with a lazy twin of the same layout."""
    t = fnp.asarray(a)
    yield a, t
    yield a.T, t.T
    if a.ndim >= 2:
        yield a[::2], t[::2]
        yield a[:, ::-1], t[:, ::-1]
    if a.ndim == 3:
        yield a.transpose(1, 0, 2), t.transpose(1, 0, 2)
        yield a.transpose(2, 0, 1), t.transpose(2, 0, 1)


@pytest.mark.parametrize("shape", [(7,), (4, 3), (3, 4, 5), (2, 0, 3), (1, 6)])
def test_generator_permuted(shape):
    for seed in SEEDS[:3]:
        for a, t in _layouts(base(shape)):
            for axis in [None] + list(range(-a.ndim, a.ndim)):
                g1, g2 = rngs(seed)
                got = g2.permuted(t, axis=axis)
                same(got, g1.permuted(a, axis=axis))
                same_stream(g1, g2)


def test_permuted_into_a_lazy_out():
    a = base((4, 6))
    outs = [lambda xp: (xp.zeros((4, 6)),) * 2,  # C-contiguous
            lambda xp: (lambda b: (b, b.T))(xp.zeros((6, 4))),  # Fortran-contiguous
            lambda xp: (lambda b: (b, b[:, ::2]))(xp.zeros((4, 12)))]  # neither
    for seed in SEEDS:
        for axis in (None, 0, 1, -1):
            for make in outs:
                g1, g2 = rngs(seed)
                (b1, o1), (b2, o2) = make(np), make(fnp)
                alias = o2
                assert g1.permuted(a, axis=axis, out=o1) is o1
                assert g2.permuted(fnp.asarray(a), axis=axis, out=o2) is o2
                same(alias, o1)
                same(b2, b1)  # written through the view to its base
                same_stream(g1, g2)
    g1, g2 = rngs(0)
    # NumPy's own out: NumPy writes into it
    o = np.zeros((4, 6))
    g2.permuted(fnp.asarray(base((4, 6))), axis=1, out=o)
    same(o, g1.permuted(base((4, 6)), axis=1, out=np.zeros((4, 6))))
    # a plain array into a lazy out
    o2 = fnp.zeros((4, 6))
    g2.permuted(base((4, 6)), axis=0, out=o2)
    same(o2, g1.permuted(base((4, 6)), axis=0, out=np.zeros((4, 6))))
    raises_like(lambda: g1.permuted(np.zeros((2, 2)), out=np.zeros(3)),
                lambda: g2.permuted(fnp.zeros((2, 2)), out=fnp.zeros(3)))
    raises_like(lambda: g1.permuted(np.zeros((2, 2)), out=np.zeros((2, 2), int)),
                lambda: g2.permuted(fnp.zeros((2, 2)), out=fnp.zeros((2, 2), int)))
    raises_like(lambda: g1.permuted(np.zeros((2, 2)), axis=2), lambda: g2.permuted(fnp.zeros((2, 2)), axis=2))
    raises_like(lambda: g1.permuted(np.zeros((2, 2)), out=np.broadcast_to(np.zeros(2), (2, 2))),
                lambda: g2.permuted(fnp.zeros((2, 2)), out=fnp.broadcast_to(fnp.zeros(2), (2, 2))))
    same_stream(g1, g2)


# ---------------------------------------------------------------- choice

CHOICES = [dict(), dict(size=3), dict(size=()), dict(size=(2, 2)), dict(size=4, replace=False),
           dict(size=(2, 2), replace=False, shuffle=False), dict(size=5, p="p"), dict(size=3, replace=False, p="p"),
           dict(replace=False)]


@pytest.mark.parametrize("shape", [(6,), (5, 3), (6, 2, 3)])
def test_generator_choice(shape):
    a = base(shape, np.float64)
    for seed in SEEDS:
        for axis in range(-a.ndim, a.ndim):
            n = a.shape[axis]
            for kw in CHOICES:
                kw = dict(kw)
                if kw.get("p") == "p":
                    kw["p"] = np.arange(1, n + 1) / np.arange(1, n + 1).sum()
                if not kw.get("replace", True) and np.prod(kw.get("size", 1)) > n:
                    continue
                g1, g2 = rngs(seed)
                want = g1.choice(a, axis=axis, **kw)
                got = g2.choice(fnp.asarray(a), axis=axis, **kw)
                assert isinstance(got, fgraph.Tensor)
                same(got, want)
                same_stream(g1, g2)
    g1, g2 = rngs(1)
    same(g2.choice(fnp.asarray(7), 3), g1.choice(np.asarray(7), 3))  # a 0-d a: a population size
    uniform = np.full(shape[0], 1 / shape[0])
    same(g2.choice(fnp.asarray(a), 2, p=fnp.asarray(uniform)), g1.choice(a, 2, p=uniform))  # a lazy p: evaluated
    raises_like(lambda: g1.choice(np.zeros(0), 3), lambda: g2.choice(fnp.zeros(0), 3))
    raises_like(lambda: g1.choice(np.zeros((2, 2)), 3, axis=4), lambda: g2.choice(fnp.zeros((2, 2)), 3, axis=4))
    same(g2.choice(fnp.zeros(0), 0), g1.choice(np.zeros(0), 0))
    same_stream(g1, g2)


# ---------------------------------------------------------------- RandomState and NumPy's global state

def test_random_state_methods():
    for seed in SEEDS:
        r1, r2 = np.random.RandomState(seed), fnp.random.RandomState(seed)
        for shape in SHAPES:
            a = base(shape)
            t = fnp.asarray(a.copy())
            r1.shuffle(a)
            r2.shuffle(t)
            same(t, a)
            same(r2.permutation(t), r1.permutation(a))
        same(r2.permutation(5), r1.permutation(5))
        v = base((6,), np.float32)
        for kw in CHOICES:
            kw = dict(kw)
            kw.pop("shuffle", None)
            if kw.get("p") == "p":
                kw["p"] = np.arange(1, 7) / 21
            same(r2.choice(fnp.asarray(v), **kw), r1.choice(v, **kw))
        assert r1.random_sample() == r2.random_sample()
    r1, r2 = np.random.RandomState(0), fnp.random.RandomState(0)
    raises_like(lambda: r1.shuffle(np.zeros(())), lambda: r2.shuffle(fnp.zeros(())))
    raises_like(lambda: r1.permutation(np.zeros(())), lambda: r2.permutation(fnp.zeros(())))
    raises_like(lambda: r1.choice(np.zeros((2, 2))), lambda: r2.choice(fnp.zeros((2, 2))))
    raises_like(lambda: r1.choice(np.zeros(0), 2), lambda: r2.choice(fnp.zeros(0), 2))
    assert r1.random_sample() == r2.random_sample()


def test_legacy_functions_use_numpys_global_state():
    for seed in SEEDS:
        np.random.seed(seed)
        a = base((5, 3))
        np.random.shuffle(a)
        p1, c1, after = np.random.permutation(base((4, 2))), np.random.choice(base((6,)), 4), np.random.rand()
        fnp.random.seed(seed)
        t = fnp.asarray(base((5, 3)))
        fnp.random.shuffle(t)
        same(t, a)
        same(fnp.random.permutation(fnp.asarray(base((4, 2)))), p1)
        same(fnp.random.choice(fnp.asarray(base((6,))), 4), c1)
        assert np.random.rand() == after  # NumPy's own global RandomState moved as NumPy's functions move it
    assert fnp.random.seed is np.random.seed
    np.random.seed(3)
    want = np.random.rand(2, 3)
    fnp.random.seed(3)
    drawn = fnp.random.rand(2, 3)  # NumPy's draw on NumPy's global state, handed back lazy
    assert isinstance(drawn, fgraph.Tensor)
    same(drawn, want)
    np.random.seed(1)
    want = np.random.permutation(np.arange(4))
    np.random.seed(1)
    same(fnp.random.permutation(np.arange(4)), want)  # NumPy arrays: NumPy's functions


_DRAWS = [("random", (3,)), ("random", ((2, 2),)), ("standard_normal", (4,)), ("normal", (1.0, 2.0, (2, 3))),
          ("uniform", (-1, 1, 5)), ("integers", (0, 7, 6)), ("exponential", (2.0, 3)), ("poisson", (3.0, 4)),
          ("binomial", (10, 0.3, 4)), ("choice", ([-1, 1], 5)), ("choice", (5, 3)), ("permutation", (6,)),
          ("multivariate_normal", ([0.0, 1.0], [[1.0, 0.2], [0.2, 1.0]], 3)), ("dirichlet", ([1.0, 2.0], 2))]


@pytest.mark.parametrize("name,args", _DRAWS)
def test_draws_are_numpys_numbers_as_lazy_arrays(name, args):
    """Every array draw is NumPy's (the same stream, the same numbers), as
    a lazy array; a scalar draw stays NumPy's scalar; the stream moves as
    NumPy's does."""
    for seed in SEEDS:
        g, h = np.random.default_rng(seed), fnp.random.default_rng(seed)
        want, got = getattr(g, name)(*args), getattr(h, name)(*args)
        assert isinstance(got, fgraph.Tensor) and got.flags.writeable
        same(got, want)
        assert h.random() == g.random()  # and a scalar draw is a plain float
        legacy = {"integers": "randint", "random": "random_sample"}.get(name, name)
        if hasattr(np.random.RandomState, legacy) and name != "multivariate_normal":
            r, q = np.random.RandomState(seed), fnp.random.RandomState(seed)
            same(getattr(q, legacy)(*args), getattr(r, legacy)(*args))


def test_a_drawn_array_is_written_and_masked_as_numpys():
    g, h = np.random.default_rng(5), fnp.random.default_rng(5)
    a, t = g.random(8), h.random(8)
    a[a > 0.5] = 0.0
    t[t > 0.5] = 0.0  # a lazy array of its own: writeable, as NumPy's draw is
    same(t, a)
    o = np.zeros(4)
    assert h.random(out=o) is o  # a draw into out= fills NumPy's array, as NumPy's does


def test_module_and_classes():
    g = fnp.random.default_rng(0)
    assert isinstance(g, np.random.Generator) and isinstance(g, fnp.random.Generator)
    assert isinstance(np.random.default_rng(0), fnp.random.Generator)  # NumPy's own counts too
    assert isinstance(np.random.mtrand._rand, fnp.random.RandomState)
    assert fnp.random.default_rng(g) is g
    wrapped = fnp.random.default_rng(np.random.default_rng(2))
    assert type(wrapped) is fnp.random.Generator and wrapped.random() == np.random.default_rng(2).random()
    for obj in (g, fnp.random.RandomState(3)):
        for clone in (pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj)):
            assert type(clone) is type(obj)
            t1, t2 = fnp.arange(9), fnp.arange(9)
            obj_state = pickle.dumps(obj)
            clone.shuffle(t1)
            pickle.loads(obj_state).shuffle(t2)
            same(t1, t2)
    assert all(type(c) is fnp.random.Generator for c in g.spawn(2))
    assert fnp.random.PCG64 is np.random.PCG64 and fnp.random.mtrand is np.random.mtrand
    from fgraph.numpy.random import default_rng  # noqa: F401  (a module: `from numpy.random import ...` swaps)
    assert fgraph.make(engine="numpy", dtype="float32").random is fnp.random


def test_shuffle_under_tracing():
    """The draws depend on shapes only: a shuffle of a placeholder is one
    fixed permutation, NumPy's for that seed, and the placeholder stays fed."""
    a = base((5, 2), np.float64)
    want = a.copy()
    np.random.default_rng(4).shuffle(want)
    x = fnp.placeholder((5, 2), np.float64, name="x")
    fnp.random.default_rng(4).shuffle(x)
    p = fnp.random.default_rng(4).permutation(fnp.placeholder((5, 2), np.float64, name="y"))
    exe = fgraph.compile(fgraph.Graph([x, p]))
    got_x, got_p = exe(x=a, y=a)
    same(got_x, want)
    same(got_p, want)


# ---------------------------------------------------------------- eig, eigvals, roots

MATRICES = [
    np.array([[2.0, 1.0], [1.0, 3.0]]),  # real eigenvalues
    np.array([[0.0, -1.0], [1.0, 0.0]]),  # complex ones
    np.array([[1, 2, 0], [0, 3, 1], [4, 0, 1]]),  # integers
    np.array([[1.5, -2.0], [0.5, 1.0]], np.float32),
    np.random.default_rng(0).normal(size=(3, 4, 4)),  # a batch, mixed
    np.zeros((0, 0)),
]


@pytest.mark.parametrize("k", range(len(MATRICES)))
def test_eig_of_known_real_matrices_is_numpys(k):
    a = MATRICES[k]
    for wrap in (fnp.asarray, lambda x: fnp.asarray(x) * 1, lambda x: x):
        w, v = fnp.linalg.eig(wrap(a))
        want_w, want_v = np.linalg.eig(a)
        same(w, want_w)
        same(v, want_v)
        same(fnp.linalg.eigvals(wrap(a)), np.linalg.eigvals(a))
        assert isinstance(w, fgraph.Tensor)
        assert type(fnp.linalg.eig(wrap(a))).__name__ == "EigResult"


def test_eig_refusals():
    with pytest.raises(fgraph.DTypeError, match=r"(?s)eig.*placeholders.*astype\(complex\)"):
        fgraph.jit(lambda x: fnp.linalg.eigvals(x))(np.eye(2))
    with pytest.raises(fgraph.DTypeError):
        fgraph.jit(lambda x: fnp.linalg.eig(x)[0])(np.eye(2))
    with pytest.raises(fgraph.ShapeError, match="square"):
        fnp.linalg.eig(fnp.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError) as e:
        fnp.linalg.eigvals(fnp.asarray([[np.nan, 1.0], [1.0, 1.0]]))
    assert isinstance(e.value, fgraph.FgraphError)
    # complex input stays lazy under tracing too
    c = np.array([[1 + 1j, 2], [3, 4 - 1j]])
    same(fgraph.jit(lambda x: fnp.linalg.eigvals(x))(c), np.linalg.eigvals(c))


def test_roots():
    for p in ([1, 0, -2, 1], [0, 0, 1, -3, 2, 0], [1, 0, 1], [2.5], [0, 0], np.array([1, -6, 11, -6], np.float32)):
        same(fnp.roots(p), np.roots(p))
        same(fnp.roots(fnp.asarray(np.asarray(p)) * 1), np.roots(np.asarray(p) * 1))
    with pytest.raises(fgraph.FgraphError, match="roots"):
        fgraph.jit(lambda p: fnp.roots(p))(np.array([1.0, 2.0, 1.0]))


@pytest.mark.parametrize("n, seed", [(0, 0), (1, 5), (4, 123), (6, 2**31 - 1)])
def test_lazy_counts_and_seeds_from_data(n, seed):
    # n = a.max() in a NumPy program is a NumPy integer: a count for permutation, a seed for default_rng
    ln = fnp.asarray(np.array([n])) * 1  # computed, not a constant
    ls = fnp.asarray(np.array([seed], dtype=np.int64)) * 1
    np.random.seed(seed)
    want_legacy = np.random.permutation(n)
    np.random.seed(ls[0])  # NumPy's own seed takes the lazy value
    np.testing.assert_array_equal(np.asarray(fnp.random.permutation(ln[0])), want_legacy)
    for got, want in [(fnp.random.default_rng(ls[0]).permutation(ln[0]), np.random.default_rng(seed).permutation(n)),
                      (fnp.random.default_rng([ls[0], 7]).random(3), np.random.default_rng([seed, 7]).random(3)),
                      (fnp.random.RandomState(ls[0]).rand(2), np.random.RandomState(seed).rand(2))]:
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(fgraph.ShapeError, match="seed must be a Python value.*placeholder 's'"):
        fnp.random.default_rng(fnp.placeholder((), np.int64, name="s"))

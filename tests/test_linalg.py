"""Oracle tests for the linear-algebra family (fgraph.numpy products and
fgraph.numpy.linalg) against NumPy.

Every kernel is the NumPy function itself, so values are compared exactly,
einsum with ``optimize=`` included: the kernel takes the same contraction
path as NumPy (no tolerance is needed; none is given).
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from oracle import DTYPES, arrays, check

NUMERIC = [np.dtype(d) for d in ("int32", "int64", "float32", "float64")]
FLOATS = [np.dtype("float32"), np.dtype("float64")]
ANY = DTYPES + [np.dtype("complex128")]
dtypes = st.sampled_from


def side(lo=0, hi=4):
    return st.integers(lo, hi)


def shape(min_dims=0, max_dims=3, lo=0, hi=3):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=lo, max_side=hi)


def draw_array(data, dts, shp, lo=-10, hi=10):
    return data.draw(arrays(data.draw(dtypes(dts)), shp, lo, hi))


# ---------------------------------------------------------------- matmul and friends

@st.composite
def matmul_shapes(draw):
    """Shapes for matmul: 1-D or batched operands, size-0 dims, sometimes misaligned."""
    n, k, m = draw(side()), draw(side()), draw(side())
    ba, bb = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=0,
                                                    max_side=3)).input_shapes
    kb = draw(st.sampled_from([k] * 5 + [k + 1]))
    sa = (k,) if draw(st.booleans()) else ba + (n, k)
    sb = (kb,) if draw(st.booleans()) else bb + (kb, m)
    return sa, sb


@settings(max_examples=examples(80))
@given(data=st.data())
def test_matmul_and_operator(data):
    sa, sb = data.draw(matmul_shapes())
    a, b = draw_array(data, ANY, sa), draw_array(data, ANY, sb)
    check(lambda xp, x, y: xp.matmul(x, y), a, b)
    check(lambda xp, x, y: x @ y, a, b)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_matmul_dtype_argument(data):
    sa, sb = data.draw(matmul_shapes())
    a, b = draw_array(data, DTYPES, sa), draw_array(data, DTYPES, sb)
    dt = data.draw(dtypes([np.float32, np.float64, np.int64]))
    check(lambda xp, x, y: xp.matmul(x, y, dtype=dt), a, b)


def test_matmul_refuses_scalars():
    check(lambda xp, x: xp.matmul(x, 2.0), np.ones((2, 2)))
    check(lambda xp, x, y: xp.matmul(x, y), np.ones((2, 2)), np.float64(3))


@st.composite
def dot_shapes(draw):
    """Shapes for numpy.dot's N-D rule (0-d operands multiply)."""
    sa = draw(shape(0, 3))
    sb = list(draw(shape(0, 3)))
    if sa and sb:
        k = sa[-1] if draw(st.integers(0, 7)) else sa[-1] + 1
        sb[0 if len(sb) == 1 else -2] = k
    return sa, tuple(sb)


@settings(max_examples=examples(60))
@given(data=st.data())
def test_dot(data):
    sa, sb = data.draw(dot_shapes())
    a, b = draw_array(data, ANY, sa), draw_array(data, ANY, sb)
    check(lambda xp, x, y: xp.dot(x, y), a, b)
    check(lambda xp, x, y: x.dot(y), a, b)


@pytest.mark.parametrize("fn", ["dot", "inner", "outer", "kron", "vdot"])
@pytest.mark.parametrize("scalar", [2, 2.5, True])
@pytest.mark.parametrize("dt", DTYPES)
def test_products_with_python_scalars(fn, scalar, dt):
    """These functions convert Python scalars with asarray (not weakly)."""
    a = np.arange(3).astype(dt)
    check(lambda xp, x: getattr(xp, fn)(x, scalar), a)
    check(lambda xp, x: getattr(xp, fn)(scalar, x), a)


@settings(max_examples=examples(40))
@given(data=st.data())
def test_vdot(data):
    sa = data.draw(shape(0, 3))
    size = int(np.prod(sa))
    sb = data.draw(st.sampled_from([sa[::-1], (size,), (size + 1,)]))
    a, b = draw_array(data, ANY, sa), draw_array(data, ANY, sb)
    check(lambda xp, x, y: xp.vdot(x, y), a, b)


def test_vdot_conjugates_first():
    a, b = np.array([1 + 2j, 3 - 1j]), np.array([2 - 1j, 1j])
    check(lambda xp, x, y: xp.vdot(x, y), a, b)
    check(lambda xp, x, y: xp.vecdot(x, y), a, b)
    check(lambda xp, x, y: xp.vecmat(x, y), a, np.outer(b, b))


@settings(max_examples=examples(40))
@given(data=st.data())
def test_inner(data):
    sa, sb = data.draw(shape(0, 3)), list(data.draw(shape(0, 3)))
    if sa and sb and data.draw(st.integers(0, 7)):
        sb[-1] = sa[-1]
    a, b = draw_array(data, ANY, sa), draw_array(data, ANY, tuple(sb))
    check(lambda xp, x, y: xp.inner(x, y), a, b)


@settings(max_examples=examples(40))
@given(data=st.data())
def test_outer_and_kron(data):
    a = draw_array(data, ANY, data.draw(shape(0, 3)))
    b = draw_array(data, ANY, data.draw(shape(0, 3)))
    check(lambda xp, x, y: xp.outer(x, y), a, b)
    check(lambda xp, x, y: xp.kron(x, y), a, b)


@st.composite
def tensordot_problem(draw):
    """Shapes and an ``axes`` argument (int, or a pair with negative axes)."""
    free_a, free_b = draw(shape(0, 2)), draw(shape(0, 2))
    summed = draw(shape(0, 2))
    if draw(st.booleans()):  # integer form: a's last N with b's first N
        return free_a + summed, summed + free_b, len(summed)
    na, nb = len(free_a) + len(summed), len(free_b) + len(summed)
    pa, pb = draw(st.permutations(range(na))), draw(st.permutations(range(nb)))
    dims_a, dims_b = free_a + summed, free_b + summed
    sa = tuple(dims_a[p] for p in pa)
    sb = tuple(dims_b[p] for p in pb)
    axes_a = [pa.index(len(free_a) + i) for i in range(len(summed))]
    axes_b = [pb.index(len(free_b) + i) for i in range(len(summed))]
    axes_a = [x - na if draw(st.booleans()) else x for x in axes_a]
    if draw(st.integers(0, 9)) == 0 and summed:
        axes_b = axes_b[::-1] if len(axes_b) > 1 else [axes_b[0] - 1]  # often misaligned
    return sa, sb, (axes_a, axes_b)


@settings(max_examples=examples(60))
@given(data=st.data())
def test_tensordot(data):
    sa, sb, axes = data.draw(tensordot_problem())
    a, b = draw_array(data, ANY, sa), draw_array(data, ANY, sb)
    check(lambda xp, x, y: xp.tensordot(x, y, axes), a, b)
    check(lambda xp, x, y: xp.tensordot(x, y, axes=axes), a, b)


@pytest.mark.parametrize("axes", [0, 1, 2, 3, -1, (1, 0), ([1], [0]), ([-1], [0]), ([1], [0, 1]), ([5], [0]),
                                  ((1, 1), (0, 1)), ((0, 1), (1, 0))])
def test_tensordot_axes_forms(axes):
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2)
    check(lambda xp, x, y: xp.tensordot(x, y, axes), a, b)


def _through(xp, r):
    """An exact element-wise use, so ``r`` is an intermediate node: the engine
    then writes it into its arena (out-kernels) or keeps it as a view."""
    return xp.logical_not(r) if r.dtype == np.bool_ else xp.negative(r)


@settings(max_examples=examples(40))
@given(data=st.data())
def test_products_as_intermediate_nodes(data):
    sa, sb = data.draw(matmul_shapes())
    a, b = draw_array(data, ANY, sa), draw_array(data, ANY, sb)
    check(lambda xp, x, y: _through(xp, xp.matmul(x, y)), a, b)
    check(lambda xp, x, y: _through(xp, xp.dot(x, y)), a, b)
    check(lambda xp, x, y: _through(xp, xp.einsum("...ij,...jk", x, y)), a, b)
    check(lambda xp, x, y: _through(xp, xp.einsum("...ij,...jk", x, y, optimize=True)), a, b)
    if a.ndim >= 2:
        check(lambda xp, x: _through(xp, xp.vecdot(x, x, axis=-2)), a)
        check(lambda xp, x: _through(xp, xp.matrix_transpose(x)), a)
        check(lambda xp, x: _through(xp, xp.diagonal(x, 0, -1, -2)), a)
        v, w = draw_array(data, ANY, a.shape[-1:]), draw_array(data, ANY, a.shape[-2:-1])
        check(lambda xp, x, y: _through(xp, xp.matvec(x, y)), a, v)
        check(lambda xp, y, x: _through(xp, xp.vecmat(y, x)), w, a)


# ---------------------------------------------------------------- einsum

@st.composite
def einsum_problem(draw):
    """A random einsum: 1-3 operands over labels a-c and E, repeated labels
    (diagonals and traces), ellipses with broadcast batch dims, size-1 label
    dims broadcasting, implicit or explicit output."""
    labels = "abcE"
    sizes = {c: draw(st.sampled_from([0, 1, 2, 3, 3])) for c in labels}
    batch = draw(shape(0, 2, 1, 3))
    use_ellipsis = draw(st.booleans())
    terms, shapes, used = [], [], []
    for _ in range(draw(st.integers(1, 3))):
        term = draw(st.lists(st.sampled_from(labels), max_size=3))
        dims = [sizes[c] for c in term]
        for i, c in enumerate(term):  # broadcast a label's dim (not within a diagonal)
            if term.count(c) == 1 and draw(st.integers(0, 5)) == 0:
                dims[i] = 1
        text = "".join(term)
        if use_ellipsis and draw(st.booleans()):
            pos = draw(st.integers(0, len(term)))
            b = batch[draw(st.integers(0, len(batch))):]
            b = tuple(1 if draw(st.integers(0, 4)) == 0 else d for d in b)
            text = text[:pos] + "..." + text[pos:]
            dims = dims[:pos] + list(b) + dims[pos:]
        terms.append(text)
        shapes.append(tuple(dims))
        used += term
    subscripts = ",".join(terms)
    if draw(st.booleans()):
        out = draw(st.permutations(sorted(set(used))))
        out = "".join(out[:draw(st.integers(0, len(out)))])
        if "..." in subscripts and (draw(st.integers(0, 5)) or any(len(s) > 1 for s in shapes)):
            pos = draw(st.integers(0, len(out)))
            out = out[:pos] + "..." + out[pos:]
        subscripts += "->" + out
    return subscripts, shapes


@settings(max_examples=examples(150))
@given(data=st.data())
def test_einsum(data):
    subscripts, shapes = data.draw(einsum_problem())
    dt = data.draw(dtypes(ANY))
    ops = [data.draw(arrays(dt, s, -5, 5)) for s in shapes]
    optimize = data.draw(st.sampled_from([False, False, True, "greedy", "optimal"]))
    check(lambda xp, *xs: xp.einsum(subscripts, *xs, optimize=optimize), *ops)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_einsum_mixed_dtypes_and_dtype_argument(data):
    a = draw_array(data, DTYPES, (2, 3))
    b = draw_array(data, DTYPES, (3, 4))
    check(lambda xp, x, y: xp.einsum("ij,jk->ki", x, y), a, b)
    dt = data.draw(dtypes([np.float32, np.float64, np.int64]))
    casting = data.draw(st.sampled_from(["safe", "unsafe"]))
    check(lambda xp, x, y: xp.einsum("ij,jk", x, y, dtype=dt, casting=casting), a, b)


@pytest.mark.parametrize("subscripts,shapes", [
    ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("iij->ij", [(2, 2, 3)]), ("ij,jk", [(2, 1), (3, 4)]),
    ("i,i", [(1,), (3,)]), ("...i,...i", [(2, 1, 3), (4, 3)]), ("ij...,j...", [(2, 3, 5), (3, 5)]),
    ("bA", [(2, 3)]), (" i j ", [(2, 3)]), ("ij->ji...", [(2, 3)]), ("->", [()]), ("", [()]),
    ("...", [(2, 3)]), ("i,", [(3,), ()]),
    # mistakes NumPy refuses
    ("ii", [(2, 3)]), ("ii->i", [(1, 3)]), ("i,i", [(2,), (3,)]), ("i,i->ii", [(3,), (3,)]),
    ("i->j", [(3,)]), ("i.->i", [(3, 2)]), ("i...j...", [(3, 2)]), ("i,j", [(3,)]), ("i", [(3,), (3,)]),
    ("i1", [(2, 3)]), ("...i->i", [(2, 3)]), ("ij", [(3,)]), ("i", [(2, 3)]), ("i->-i", [(2,)]),
])
def test_einsum_cases(subscripts, shapes):
    ops = [np.arange(int(np.prod(s)), dtype=np.float64).reshape(s) for s in shapes]
    for optimize in (False, True):
        check(lambda xp, *xs: xp.einsum(subscripts, *xs, optimize=optimize), *ops)


@pytest.mark.parametrize("optimize", [False, True])
def test_einsum_sublist_form(optimize):
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    check(lambda xp, x, y: xp.einsum(x, [0, 1], y, [1, 2], [2, 0], optimize=optimize), a, b)
    check(lambda xp, x, y: xp.einsum(x, [30, 1], y, [1, 2], optimize=optimize), a, b)
    check(lambda xp, x: xp.einsum(x, [0, Ellipsis], [Ellipsis], optimize=optimize), a)


def test_einsum_explicit_path():
    ops = [np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4), np.arange(8.0).reshape(4, 2)]
    path, _ = np.einsum_path("ij,jk,kl->il", *ops, optimize="optimal")
    check(lambda xp, *xs: xp.einsum("ij,jk,kl->il", *xs, optimize=path), *ops)


# ---------------------------------------------------------------- trace, diagonal, transpose

@st.composite
def two_axes(draw, ndim):
    i, j = draw(st.permutations(range(ndim)))[:2]
    return (i - ndim if draw(st.booleans()) else i), (j - ndim if draw(st.booleans()) else j)


@settings(max_examples=examples(60))
@given(data=st.data())
def test_trace_and_diagonal(data):
    a = draw_array(data, ANY, data.draw(shape(2, 4)))
    axis1, axis2 = data.draw(two_axes(a.ndim))
    offset = data.draw(st.integers(-4, 4))
    check(lambda xp, x: xp.diagonal(x, offset, axis1, axis2), a)
    check(lambda xp, x: x.diagonal(offset=offset, axis1=axis1, axis2=axis2), a)
    check(lambda xp, x: xp.trace(x, offset, axis1, axis2), a)
    dt = data.draw(dtypes([None, np.float32, np.int32, np.float64]))
    check(lambda xp, x: x.trace(offset, axis1=axis1, axis2=axis2, dtype=dt), a)
    check(lambda xp, x: xp.linalg.trace(x, offset=offset, dtype=dt), a)
    check(lambda xp, x: xp.linalg.diagonal(x, offset=offset), a)


@pytest.mark.parametrize("args", [(0, 0, 0), (0, 0, 2), (0, -3, 1), (1.5, 0, 1)])
def test_trace_diagonal_mistakes(args):
    a = np.ones((2, 3))
    check(lambda xp, x: xp.trace(x, *args), a)
    check(lambda xp, x: xp.diagonal(x, *args), a)
    check(lambda xp, x: xp.trace(x), np.ones(3))
    check(lambda xp, x: xp.diagonal(x), np.ones(3))


@settings(max_examples=examples(30))
@given(data=st.data())
def test_matrix_transpose(data):
    a = draw_array(data, ANY, data.draw(shape(0, 4)))
    check(lambda xp, x: xp.matrix_transpose(x), a)
    check(lambda xp, x: xp.linalg.matrix_transpose(x), a)
    if a.ndim >= 2:
        check(lambda xp, x: x.mT, a)


# ---------------------------------------------------------------- vecdot, matvec, vecmat, cross

@settings(max_examples=examples(60))
@given(data=st.data())
def test_vecdot(data):
    n = data.draw(side())
    ba, bb = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3)
                       ).input_shapes
    ia, ib = data.draw(st.integers(0, len(ba))), data.draw(st.integers(0, len(bb)))
    sa, sb = ba[:ia] + (n,) + ba[ia:], bb[:ib] + (n,) + bb[ib:]
    a, b = draw_array(data, ANY, sa), draw_array(data, ANY, sb)
    # only an axis that lands on both vector axes (or a mismatch NumPy refuses)
    axis = data.draw(st.sampled_from([-1, ia - len(sa), ia, ib]))
    check(lambda xp, x, y: xp.vecdot(x, y, axis=axis), a, b)
    check(lambda xp, x, y: xp.linalg.vecdot(x, y, axis=axis), a, b)
    check(lambda xp, x, y: xp.vecdot(x, y), a, b)


@settings(max_examples=examples(60))
@given(data=st.data())
def test_matvec_vecmat(data):
    m, n = data.draw(side()), data.draw(side())
    ba, bb = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3)
                       ).input_shapes
    mat = draw_array(data, ANY, ba + (m, n))
    n2 = data.draw(st.sampled_from([n] * 6 + [n + 1]))
    vec = draw_array(data, ANY, bb + (n2,))
    check(lambda xp, x, v: xp.matvec(x, v), mat, vec)
    check(lambda xp, v, x: xp.vecmat(v, xp.matrix_transpose(x)), vec, mat)


@settings(max_examples=examples(60))
@given(data=st.data())
def test_cross(data):
    ba, bb = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3)
                       ).input_shapes
    na, nb = data.draw(st.sampled_from([3, 3, 3, 2, 4])), data.draw(st.sampled_from([3, 3, 3, 2]))
    ia, ib = data.draw(st.integers(0, len(ba))), data.draw(st.integers(0, len(bb)))
    a = draw_array(data, ANY, ba[:ia] + (na,) + ba[ia:])
    b = draw_array(data, ANY, bb[:ib] + (nb,) + bb[ib:])
    axisc = data.draw(st.integers(-2, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(lambda xp, x, y: xp.cross(x, y, axisa=ia, axisb=ib - b.ndim, axisc=axisc), a, b)
    if ia == a.ndim - 1 and ib == b.ndim - 1:
        check(lambda xp, x, y: xp.linalg.cross(x, y), a, b)


def test_cross_axis_and_deprecation():
    a, b = np.arange(12.0).reshape(3, 4), np.arange(3.0)[:, None] * np.ones((3, 4))
    check(lambda xp, x, y: xp.cross(x, y, axis=0), a, b)
    check(lambda xp, x, y: xp.linalg.cross(x, y, axis=0), a, b)
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors"):
        fnp.cross(fnp.asarray(np.ones(2)), fnp.asarray(np.ones(2)))


# ---------------------------------------------------------------- numpy.linalg

@st.composite
def spd_matrices(draw, dts=DTYPES, max_n=4, min_n=0):
    """Well-conditioned symmetric positive definite (stacks of) matrices:
    M @ M.T + n*I with small integer M, in the drawn dtype."""
    dt = draw(dtypes(dts))
    n = draw(st.integers(min_n, max_n))
    batch = draw(shape(0, 2, 0, 3))
    m = draw(arrays(np.int64, batch + (n, n), -3, 3))
    a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n, dtype=np.int64)
    return (a % 2 == 1) | np.eye(n, dtype=bool) if dt == np.bool_ else a.astype(dt)


@st.composite
def matrices(draw, dts=ANY, min_dims=2):
    dt = draw(dtypes(dts))
    s = draw(shape(min_dims, 4, 0, 4))
    return draw(arrays(dt, s, -5, 5))


@settings(max_examples=examples(60))
@given(a=spd_matrices())
def test_square_matrix_functions(a):
    check(lambda xp, x: xp.linalg.det(x), a)
    check(lambda xp, x: xp.linalg.slogdet(x), a)
    check(lambda xp, x: xp.linalg.inv(x), a)
    check(lambda xp, x: xp.linalg.cholesky(x), a)
    check(lambda xp, x: xp.linalg.cholesky(x, upper=True), a)
    check(lambda xp, x: xp.linalg.eigh(x), a)
    check(lambda xp, x: xp.linalg.eigh(x, UPLO="U"), a)
    check(lambda xp, x: xp.linalg.eigvalsh(x), a)
    check(lambda xp, x: xp.linalg.eigvalsh(x, "u"), a)


@settings(max_examples=examples(40))
@given(a=matrices(), n=st.integers(-3, 5))
def test_matrix_power(a, n):
    check(lambda xp, x: xp.linalg.matrix_power(x, n), a)


@settings(max_examples=examples(60))
@given(a=spd_matrices(), data=st.data())
def test_solve(a, data):
    n = a.shape[-1]
    k = data.draw(side(0, 3))
    form = data.draw(st.sampled_from(["vector", "matrix", "batched", "mismatch"]))
    if form == "vector":
        sb = (n,)
    elif form == "matrix":
        sb = (n, k)
    elif form == "batched":
        sb = data.draw(shape(0, 2, 1, 3)) + a.shape[:-2] + (n, k)
    else:
        sb = a.shape[:-1]
    b = draw_array(data, DTYPES, sb)
    check(lambda xp, x, y: xp.linalg.solve(x, y), a, b)


@settings(max_examples=examples(60))
@given(a=matrices())
def test_decompositions(a):
    for mode in ("reduced", "complete", "r", "raw"):
        check(lambda xp, x: xp.linalg.qr(x, mode=mode), a)
    for full in (True, False):
        check(lambda xp, x: xp.linalg.svd(x, full_matrices=full), a)
    check(lambda xp, x: xp.linalg.svd(x, compute_uv=False), a)
    check(lambda xp, x: xp.linalg.svdvals(x), a)
    check(lambda xp, x: xp.linalg.pinv(x), a)
    check(lambda xp, x: xp.linalg.pinv(x, rcond=0.1), a)
    check(lambda xp, x: xp.linalg.pinv(x, rtol=None), a)
    check(lambda xp, x: xp.linalg.pinv(x, rtol=1e-3), a)
    check(lambda xp, x: xp.linalg.cond(x), a)


@settings(max_examples=examples(40))
@given(a=spd_matrices(), p=st.sampled_from([None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"]))
def test_hermitian_and_cond(a, p):
    check(lambda xp, x: xp.linalg.svd(x, hermitian=True), a)
    check(lambda xp, x: xp.linalg.svd(x, compute_uv=False, hermitian=True), a)
    check(lambda xp, x: xp.linalg.pinv(x, hermitian=True), a)
    check(lambda xp, x: xp.linalg.matrix_rank(x, hermitian=True), a)
    check(lambda xp, x: xp.linalg.cond(x, p), a)


@settings(max_examples=examples(60))
@given(a=matrices(min_dims=0), tol=st.sampled_from([None, 0.5, 3.0]), rtol=st.sampled_from([None, 0.1]))
def test_matrix_rank(a, tol, rtol):
    check(lambda xp, x: xp.linalg.matrix_rank(x), a)
    check(lambda xp, x: xp.linalg.matrix_rank(x, tol=tol, rtol=rtol), a)


VECTOR_ORDS = [None, 0, 1, -1, 2, -2, 3.5, np.inf, -np.inf, "fro", "nuc"]


@settings(max_examples=examples(60))
@given(a=matrices(min_dims=0), data=st.data())
def test_norm(a, data):
    ordv = data.draw(st.sampled_from(VECTOR_ORDS))
    keep = data.draw(st.booleans())
    check(lambda xp, x: xp.linalg.norm(x), a)
    check(lambda xp, x: xp.linalg.norm(x, ordv, keepdims=keep), a)
    if a.ndim:
        axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
        check(lambda xp, x: xp.linalg.norm(x, ordv, axis=axis, keepdims=keep), a)
    if a.ndim >= 2:
        axes = tuple(data.draw(two_axes(a.ndim)))
        check(lambda xp, x: xp.linalg.norm(x, ordv, axis=axes, keepdims=keep), a)
        check(lambda xp, x: xp.linalg.matrix_norm(x, ord=ordv if ordv is not None else "fro", keepdims=keep), a)


@settings(max_examples=examples(60))
@given(a=matrices(min_dims=0), data=st.data())
def test_vector_norm(a, data):
    ordv = data.draw(st.sampled_from([2, 0, 1, -1, 3.5, np.inf, -np.inf]))
    keep = data.draw(st.booleans())
    axis = None
    if a.ndim and data.draw(st.booleans()):
        axes = data.draw(st.permutations(range(a.ndim)))
        axis = tuple(x - a.ndim if data.draw(st.booleans()) else x for x in axes[:data.draw(side(1, a.ndim))])
        if len(axis) == 1 and data.draw(st.booleans()):
            axis = axis[0]
    check(lambda xp, x: xp.linalg.vector_norm(x, axis=axis, keepdims=keep, ord=ordv), a)


def test_norm_mistakes():
    a = np.ones((2, 3, 4))
    for kw in [dict(ord=2), dict(axis=(1, 1)), dict(axis=(1, 2, 0)), dict(ord="fro", axis=1),
               dict(ord=3, axis=(0, 1)), dict(axis=3)]:
        check(lambda xp, x: xp.linalg.norm(x, **kw), a)
    check(lambda xp, x: xp.linalg.matrix_norm(x), np.ones(3))
    check(lambda xp, x: xp.linalg.vector_norm(x, axis=(0, 0)), a)


@settings(max_examples=examples(40))
@given(data=st.data())
def test_multi_dot(data):
    count = data.draw(st.integers(2, 5))
    dims = [data.draw(side(1, 4)) for _ in range(count + 1)]
    shapes = [(dims[i], dims[i + 1]) for i in range(count)]
    if data.draw(st.booleans()):
        shapes[0] = shapes[0][1:]
    if data.draw(st.booleans()):
        shapes[-1] = shapes[-1][:1]
    arrs = [draw_array(data, DTYPES, s) for s in shapes]
    check(lambda xp, *xs: xp.linalg.multi_dot(list(xs)), *arrs)


def test_multi_dot_mistakes():
    check(lambda xp, x: xp.linalg.multi_dot([x]), np.ones((2, 2)))
    check(lambda xp, x, y, z: xp.linalg.multi_dot([x, y, z]), np.ones((2, 3)), np.ones((2, 3)), np.ones(3))
    check(lambda xp, x, y, z: xp.linalg.multi_dot([x, y, z]), np.ones((2, 3)), np.ones((2, 3, 3)), np.ones(3))
    check(lambda xp, x, y: xp.linalg.multi_dot([x, y]), np.ones((2, 3, 3)), np.ones((3, 3)))


@pytest.mark.parametrize("dt", NUMERIC)
def test_tensorinv_tensorsolve(dt):
    rng = np.random.default_rng(0)
    a = (rng.integers(-3, 4, (4, 6, 8, 3)) + 10 * np.eye(24).reshape(4, 6, 8, 3)).astype(dt)
    check(lambda xp, x: xp.linalg.tensorinv(x, ind=2), a)
    check(lambda xp, x: xp.linalg.tensorinv(x, ind=1), a)  # not square: refused
    check(lambda xp, x: xp.linalg.tensorinv(x, ind=0), a)
    a = (rng.integers(-3, 4, (6, 4, 2, 3, 4)) + 10 * np.eye(24).reshape(6, 4, 2, 3, 4)).astype(dt)
    b = rng.integers(-3, 4, (6, 4)).astype(dt)
    check(lambda xp, x, y: xp.linalg.tensorsolve(x, y), a, b)
    check(lambda xp, x, y: xp.linalg.tensorsolve(x, y, axes=(0, 1)), np.moveaxis(a, (0, 1), (3, 4)), b)
    check(lambda xp, x, y: xp.linalg.tensorsolve(x, y, axes=(-1,)), a, b)
    check(lambda xp, x, y: xp.linalg.tensorsolve(x, y), a, b[:3])


def test_eig_complex_only():
    a = np.array([[1 + 1j, 2], [3, 4 - 1j]])
    check(lambda xp, x: xp.linalg.eig(x), a)
    check(lambda xp, x: xp.linalg.eigvals(x), a)
    with pytest.raises(fgraph.DTypeError, match=r"(?s)eig.*astype\(complex\).*test_linalg.py"):
        fnp.linalg.eig(fnp.placeholder((2, 2)))  # a real matrix under tracing (tests/test_random_and_eig.py: known now)


def test_complex_decompositions():
    a = np.array([[[4, 1 - 1j], [1 + 1j, 3]]] * 2, dtype=np.complex64)
    for fn in ("det", "slogdet", "inv", "cholesky", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "qr", "cond",
               "matrix_rank", "norm", "vector_norm", "matrix_norm"):
        check(lambda xp, x: getattr(xp.linalg, fn)(x), a)


def test_singular_matrix_raises_when_evaluated():
    check(lambda xp, x: xp.linalg.inv(x), np.ones((3, 3)))
    t = fnp.linalg.inv(fnp.asarray(np.ones((3, 3))))
    with pytest.raises(fgraph.FgraphError, match=r"(?s)inv.*Singular.*test_linalg.py"):
        t.eval()


def test_results_are_named_tuples():
    a = fnp.asarray(np.eye(3))
    sign, logabsdet = fnp.linalg.slogdet(a)
    assert fnp.linalg.slogdet(a).logabsdet.shape == () and sign.dtype == np.float64
    assert fnp.linalg.eigh(a).eigenvectors.shape == (3, 3)
    assert fnp.linalg.qr(a).R.shape == (3, 3)
    assert fnp.linalg.svd(a).Vh.shape == (3, 3)
    assert isinstance(fnp.linalg.qr(a, mode="raw"), tuple)


def test_array_api_linalg_variants():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    check(lambda xp, x, y: xp.linalg.outer(x, y), a, b)  # refused: 2-D
    check(lambda xp, x, y: xp.linalg.outer(x, y), b, b)
    check(lambda xp, x, y: xp.linalg.matmul(x, y), a, b)
    check(lambda xp, x, y: xp.linalg.tensordot(x, y, axes=1), a, b)
    check(lambda xp, x, y: xp.linalg.cross(x, y), a[:, :2], a[:, :2])  # refused: 2-vectors
    check(lambda xp, x, y: xp.linalg.cross(x, y, axis=5), a, a)


def test_tolerance_arrays_are_refused():
    t = fnp.asarray(np.eye(3))
    with pytest.raises(fgraph.FgraphError, match=r"(?s)tol.*scalar.*test_linalg.py"):
        fnp.linalg.matrix_rank(t, tol=np.array([0.1]))
    with pytest.raises(fgraph.FgraphError, match=r"(?s)rcond.*scalar.*test_linalg.py"):
        fnp.linalg.lstsq(t, t, rcond=np.array([0.1]))


@settings(max_examples=examples(60), deadline=None)
@given(st.data(), st.sampled_from(["float32", "float64", "complex128", "int64"]))
def test_lstsq(data, dtype):
    m, n = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    rank = data.draw(st.integers(0, min(m, n)))
    rng = np.random.default_rng(m * 36 + n * 6 + rank)
    a = (rng.normal(size=(m, rank)) @ rng.normal(size=(rank, n)) * 3).astype(dtype)  # this rank
    b = (rng.normal(size=(m,) if data.draw(st.booleans()) else (m, 2)) * 3).astype(dtype)
    rcond = data.draw(st.sampled_from([None, 1e-3, -1]))
    want = np.linalg.lstsq(a, b, rcond=rcond)
    got = fnp.linalg.lstsq(fnp.asarray(a), fnp.asarray(b), rcond=rcond)
    assert type(got) is type(want) is tuple  # NumPy's plain tuple (printed as one)
    for k in (0, 2, 3):  # x, rank, s: NumPy's, bit for bit
        check(lambda xp, x, y: xp.linalg.lstsq(x, y, rcond=rcond)[k], a, b)
    if m <= n or want[2] == n:
        np.testing.assert_array_equal(np.asarray(got[1]), want[1])
        assert np.asarray(got[1]).dtype == want[1].dtype
    else:  # rank-deficient, more rows than columns: NumPy's residuals are empty, a shape the graph cannot take
        with pytest.raises(np.linalg.LinAlgError, match=f"has rank {want[2]} < {n}"):
            np.asarray(got[1])
    d = fgraph.make("dask")
    np.testing.assert_array_equal(np.asarray(d.linalg.lstsq(d.asarray(a), d.asarray(b), rcond=rcond)[0]), want[0])


def test_lstsq_refusals():
    check(lambda xp, x, y: xp.linalg.lstsq(x, y)[0], np.ones(3), np.ones(3))  # a 1-D a
    check(lambda xp, x, y: xp.linalg.lstsq(x, y)[0], np.ones((3, 2)), np.ones(4))  # rows differ
    x = fnp.placeholder((4, 2), "float64", name="a")
    with pytest.raises(fgraph.FgraphError, match="lstsq' is not differentiable: its rank-deficient.*pinv"):
        fgraph.grad(fnp.sum(fnp.linalg.lstsq(x, np.ones(4))[0]), [x])


# ---------------------------------------------------------------- NumPy dispatch, errors, cost

def test_numpy_functions_dispatch_lazily():
    x, y = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    t, u = fnp.asarray(x), fnp.asarray(y)
    sq = fnp.asarray(np.eye(3) * 2)
    cases = [
        (np.dot(t, u), np.dot(x, y)),
        (np.matmul(t, u), np.matmul(x, y)),
        (np.einsum("ij,jk->ik", t, u), np.einsum("ij,jk->ik", x, y)),
        (np.einsum("ij,jk->ik", x, u, optimize=True), np.einsum("ij,jk->ik", x, y, optimize=True)),
        (t @ u, x @ y),
        (x @ u, x @ y),  # ndarray @ Tensor
        (t @ y, x @ y),
        (np.tensordot(t, u, 1), np.tensordot(x, y, 1)),
        (np.inner(t, t), np.inner(x, x)),
        (np.outer(t, u), np.outer(x, y)),
        (np.vdot(t, t), np.vdot(x, x)),
        (np.kron(t, u), np.kron(x, y)),
        (np.trace(u), np.trace(y)),
        (np.diagonal(u, 1), np.diagonal(y, 1)),
        (np.vecdot(t, t), np.vecdot(x, x)),
        (np.matvec(t, t[0]), np.matvec(x, x[0])),
        (np.vecmat(t[0], u), np.vecmat(x[0], y)),
        (np.matrix_transpose(t), np.matrix_transpose(x)),
        (np.cross(u[:, :3], u[:, 1:]), np.cross(y[:, :3], y[:, 1:])),
        (np.linalg.det(sq), np.linalg.det(np.eye(3) * 2)),
        (np.linalg.inv(sq), np.linalg.inv(np.eye(3) * 2)),
        (np.linalg.norm(t, axis=1), np.linalg.norm(x, axis=1)),
        (np.linalg.svd(t).S, np.linalg.svd(x).S),
        (np.linalg.trace(u), np.linalg.trace(y)),
        (np.linalg.outer(t[0], t[1]), np.linalg.outer(x[0], x[1])),
    ]
    for got, want in cases:
        assert isinstance(got, fgraph.Tensor), got
        np.testing.assert_array_equal(np.asarray(got), want, strict=True)
    t2 = t
    t2 @= fnp.asarray(np.eye(3))
    assert isinstance(t2, fgraph.Tensor)


def test_mistakes_name_op_shapes_and_line():
    a, b = fnp.asarray(np.ones((2, 3))), fnp.asarray(np.ones((4, 5)))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)matmul.*\(2, 3\).*\(4, 5\).*test_linalg.py"):
        a @ b
    with pytest.raises(fgraph.ShapeError, match=r"(?s)matmul.*\(2, 3\).*\(4, 5\).*test_linalg.py"):
        np.matmul(a, b)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)matmul.*scalar.*test_linalg.py"):
        a @ 2
    with pytest.raises(fgraph.ShapeError, match=r"(?s)dot.*\(2, 3\).*\(4, 5\).*test_linalg.py"):
        np.dot(a, b)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)tensordot.*shape-mismatch.*test_linalg.py"):
        fnp.tensordot(a, b, 1)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)einsum.*collapsing index 'i'.*test_linalg.py"):
        np.einsum("ii", a)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)det.*square.*test_linalg.py"):
        fnp.linalg.det(a)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)solve.*test_linalg.py"):
        fnp.linalg.solve(fnp.asarray(np.eye(3)), a)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)cholesky.*at least two-dimensional.*test_linalg.py"):
        fnp.linalg.cholesky(fnp.asarray(np.ones(3)))
    with pytest.raises(fgraph.DTypeError, match=r"(?s)matrix_power.*integer.*test_linalg.py"):
        fnp.linalg.matrix_power(a, 1.5)
    with pytest.raises(fgraph.ShapeError, match=r"(?s)dot.*out=.*test_linalg.py"):
        fnp.dot(a, a.T, out=np.empty((3, 3)))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)einsum.*out=.*test_linalg.py"):
        fnp.einsum("ij", a, out=np.empty((2, 2)))
    with pytest.raises(fgraph.ShapeError, match=r"(?s)qr.*mode.*test_linalg.py"):
        fnp.linalg.qr(a, mode="economic")
    with pytest.raises(fgraph.ShapeError, match=r"(?s)eigh.*UPLO.*test_linalg.py"):
        fnp.linalg.eigh(a, UPLO="X")


def test_equal_calls_give_equal_nodes():
    a = fnp.placeholder((2, 3, 4), "float32")
    assert fnp.trace(a, 0, -3, 1).node.key == fnp.trace(a, 0, 0, 1).node.key
    assert fnp.tensordot(a, a, ([-1], [2])).node.key == fnp.tensordot(a, a, ([2], [-1])).node.key
    assert fnp.tensordot(a, a, 0).node.key == fnp.tensordot(a, a, ([], [])).node.key
    assert fnp.linalg.norm(a, axis=-1).node.key == fnp.linalg.norm(a, axis=(2,)).node.key
    assert fnp.vecdot(a, a, axis=-2).node.key == fnp.vecdot(a, a, axis=1).node.key
    assert fnp.cross(a[..., :3], a[..., :3], axisc=-2).node.key == fnp.cross(a[..., :3], a[..., :3], axisc=1).node.key


def test_negative_parameters_are_not_confused():
    """hash(-1) == hash(-2) in CPython: structural keys must still differ."""
    a = np.arange(16.0).reshape(4, 4)
    t = fnp.asarray(a)
    got = [np.asarray(fnp.trace(t, offset=k)) for k in (-1, -2)]
    assert [float(g) for g in got] == [np.trace(a, offset=-1), np.trace(a, offset=-2)]
    got = [np.asarray(fnp.linalg.norm(t, ord=k)) for k in (-1, -2)]
    np.testing.assert_array_equal(got, [np.linalg.norm(a, -1), np.linalg.norm(a, -2)])


def test_cost_attribute():
    cost = fgraph.attr_table("cost")
    a, b = fnp.placeholder((5, 2, 3), "float32"), fnp.placeholder((3, 4), "float32")
    m = a @ b
    assert cost["matmul"](m.node.inputs, m.node.params) == 2 * 5 * 2 * 4 * 3
    d = fnp.dot(a, b)
    assert cost["dot"](d.node.inputs, d.node.params) == 2 * 5 * 2 * 4 * 3
    e = fnp.einsum("bij,jk->bik", a, b)
    assert cost["einsum"](e.node.inputs, e.node.params) == 2 * 5 * 2 * 3 * 4
    td = fnp.tensordot(a, b, 1)
    assert cost["tensordot"](td.node.inputs, td.node.params) == 2 * 5 * 2 * 4 * 3
    v = fnp.vecdot(a, a)
    assert cost["vecdot"](v.node.inputs, v.node.params) == 2 * 5 * 2 * 3


def test_linalg_namespace_lists_its_names():
    import fgraph.numpy.linalg as la

    for name in la.__all__:
        assert hasattr(la, name), name
    assert fnp.linalg is la
    missing = {"det", "inv", "solve", "svd", "qr", "eigh", "cholesky", "norm", "matrix_norm", "vector_norm",
               "matmul", "vecdot", "tensordot", "outer", "trace", "diagonal", "cross",
               "matrix_transpose"} - set(la.__all__)
    assert not missing


def test_multi_output_ops_run_once_per_run(monkeypatch):
    import fgraph.ops.linalg as kernels

    calls = []
    real = {name: getattr(np.linalg, name) for name in ("svd", "qr", "eigh", "lstsq")}
    for name, fn in real.items():
        monkeypatch.setattr(kernels.la, name, lambda *a, _fn=fn, _name=name, **k: calls.append(_name) or _fn(*a, **k))
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 3)), rng.normal(size=5)
    x = fnp.placeholder((5, 3), "float64", name="a")
    u, s, vh = fnp.linalg.svd(x, full_matrices=False)
    q, r = fnp.linalg.qr(x)
    w, v = fnp.linalg.eigh(x.T @ x)
    sol, res, rank, sv = fnp.linalg.lstsq(x, b)
    exe = fgraph.compile(fgraph.Graph([u * s @ vh, q @ r, v @ fnp.diag(w) @ v.T, sol, res, rank, sv]))
    for _ in range(2):
        calls.clear()
        got = exe(a=a)
        assert sorted(calls) == ["eigh", "lstsq", "qr", "svd"]  # once each per run, not once per output
        np.testing.assert_allclose(got[0], a, atol=1e-12)
        np.testing.assert_allclose(got[1], a, atol=1e-12)
        np.testing.assert_allclose(got[2], a.T @ a, atol=1e-12)
        for g, want in zip(got[3:], real["lstsq"](a, b)):
            np.testing.assert_array_equal(g, want)
    low = np.ones((5, 3))  # rank 1: the residuals still refuse, x, rank and s still come
    with pytest.raises(np.linalg.LinAlgError, match="rank 1 < 3"):
        exe(a=low)
    only = fgraph.compile(fgraph.Graph([sol, rank]))(a=low)
    np.testing.assert_array_equal(only[0], real["lstsq"](low, b)[0])

"""Gradient rules of the linear-algebra family against central finite
differences (float64), through ``gradcheck.check_grad``.

Inputs are kept away from non-smooth points: matrices that are inverted,
solved or factored are well conditioned (``x + n * I``), symmetric inputs
are parameterised as ``x + x.T`` (the rules give the symmetric gradient),
and spectra are spread so eigenvalues and singular values are distinct.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from gradcheck import check_grad, check_grad2

seeds = st.integers(0, 2**32 - 1)


def rand(data, *shape):
    """Normal values from a drawn seed (hypothesis picks shapes, NumPy values)."""
    return np.random.default_rng(data.draw(seeds)).normal(size=shape)


def batch(data, max_dims=2):
    return data.draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=1, max_side=2))


def well_conditioned(data, n, lead=()):
    """2 I plus a small perturbation: singular values well away from 0."""
    return 0.3 * rand(data, *lead, n, n) + 2.0 * np.eye(n)


def spread(m, n):
    """A constant that separates singular values/eigenvalues: diag(3, 6, ...)."""
    d = np.zeros((m, n))
    k = min(m, n)
    d[np.arange(k), np.arange(k)] = 3.0 * np.arange(k, 0, -1)
    return d


def sym(xp, x):
    return x + xp.matrix_transpose(x)


# ---------------------------------------------------------------- products

@st.composite
def matmul_shapes(draw):
    """1-D or batched operands; batch dims broadcast (size-1 included)."""
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    ba, bb = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1,
                                                    max_side=2)).input_shapes
    sa = (k,) if draw(st.booleans()) else ba + (n, k)
    sb = (k,) if draw(st.booleans()) else bb + (k, m)
    return sa, sb


@settings(max_examples=examples(30))
@given(data=st.data())
def test_matmul(data):
    sa, sb = data.draw(matmul_shapes())
    a, b = rand(data, *sa), rand(data, *sb)
    check_grad(lambda xp, x, y: xp.matmul(x, y), a, b)
    check_grad(lambda xp, x, y: x @ y, a, b)


def test_matmul_dtype_and_integer_operand():
    a, b = np.random.default_rng(0).normal(size=(2, 3)), np.arange(12).reshape(3, 4)
    check_grad(lambda xp, x, y: xp.matmul(x, y), a, b)  # only the float operand is differentiated
    check_grad(lambda xp, x, y: xp.matmul(x, y, dtype=np.float64), a, b.astype(float))
    x = fnp.asarray(a.astype(np.float32))
    g = fgraph.grad(fnp.sum(fnp.matmul(x, b) ** 2), x)
    assert g.dtype == np.float32 and g.shape == (2, 3)


@settings(max_examples=examples(15))
@given(data=st.data())
def test_dot_and_inner(data):
    shape_a = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    k = shape_a[-1] if shape_a else 2
    nb = data.draw(st.integers(0, 3))
    rest = data.draw(hnp.array_shapes(min_dims=max(nb - 1, 0), max_dims=max(nb - 1, 0), min_side=1, max_side=3))
    a = rand(data, *shape_a)
    if nb == 0 or not shape_a:
        b = rand(data, *rest)
    else:
        b_dot = rand(data, *(rest[:-1] + (k,) + rest[-1:] if nb > 1 else (k,)))
        check_grad(lambda xp, x, y: xp.dot(x, y), a, b_dot)
        b = rand(data, *(rest + (k,)) if nb > 1 else (k,))
    check_grad(lambda xp, x, y: xp.inner(x, y), a, b)
    if nb == 0 or not shape_a:
        check_grad(lambda xp, x, y: xp.dot(x, y), a, b)


@settings(max_examples=examples(10))
@given(data=st.data())
def test_vdot_and_outer(data):
    shape_a = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    a = rand(data, *shape_a)
    b = rand(data, *data.draw(st.sampled_from([(a.size,), shape_a[::-1]])))
    check_grad(lambda xp, x, y: xp.vdot(x, y), a, b)
    c = rand(data, *data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)))
    check_grad(lambda xp, x, y: xp.outer(x, y), a, c)
    u, v = rand(data, a.size), rand(data, 3)
    check_grad(lambda xp, x, y: xp.linalg.outer(x, y), u, v)


@settings(max_examples=examples(15))
@given(data=st.data())
def test_tensordot(data):
    nd_a, nd_b = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    n = data.draw(st.integers(0, min(nd_a, nd_b)))
    sizes = [data.draw(st.integers(1, 3)) for _ in range(n)]
    ax_a = data.draw(st.permutations(range(nd_a)))[:n]
    ax_b = data.draw(st.permutations(range(nd_b)))[:n]
    sa = [data.draw(st.integers(1, 2)) for _ in range(nd_a)]
    sb = [data.draw(st.integers(1, 2)) for _ in range(nd_b)]
    for i, j, s in zip(ax_a, ax_b, sizes):
        sa[i] = sb[j] = s
    a, b = rand(data, *sa), rand(data, *sb)
    neg = data.draw(st.booleans())
    axes = ([i - nd_a if neg else i for i in ax_a], list(ax_b))
    check_grad(lambda xp, x, y: xp.tensordot(x, y, axes=axes), a, b)
    if sa[nd_a - n:] == sb[:n]:  # the integer form
        check_grad(lambda xp, x, y: xp.linalg.tensordot(x, y, axes=n), a, b)


# ---------------------------------------------------------------- einsum

EINSUM = [
    "ij,jk->ik", "ij,jk", "bij,bjk->bik", "...ij,...jk->...ik", "...ij,jk", "ii", "ii->i", "iij,j->ij",
    "iji->j", "ijk->i", "ijk,j->", "i,j->ij", "i,i", "ij,ij->i", "ij,kj,k->i", "...i,...i->...", "...,...",
    "i...->...", "ba,ca", "Ab,bA->b", "...ii->...i", "ij->ji", "i,i->i", "abc,cd,da->b",
]


@st.composite
def einsum_case(draw):
    """A subscripts string with random label sizes, ellipsis shapes of
    different ndims (broadcasting) and some labels of size 1 in one operand."""
    subscripts = draw(st.sampled_from(EINSUM))
    lhs = subscripts.partition("->")[0].split(",")
    sizes = {c: draw(st.integers(1, 3)) for c in sorted(set(subscripts) - set(".,->"))}
    ell = draw(hnp.mutually_broadcastable_shapes(num_shapes=len(lhs), min_dims=0, max_dims=2, min_side=1,
                                                 max_side=2)).input_shapes
    shapes = []
    for term, e in zip(lhs, ell):
        head, dots, tail = term.partition("...")
        one = draw(st.sampled_from([None] + sorted(set(head + tail))))  # broadcast this label from size 1
        dims = [1 if c == one and term.count(c) == 1 else sizes[c] for c in head]
        dims += list(e) if dots else []
        dims += [1 if c == one and term.count(c) == 1 else sizes[c] for c in tail]
        shapes.append(tuple(dims))
    return subscripts, shapes


@settings(max_examples=examples(60))
@given(case=einsum_case(), data=st.data(), optimize=st.sampled_from([False, True, "greedy"]))
def test_einsum(case, data, optimize):
    subscripts, shapes = case
    arrays = [rand(data, *s) for s in shapes]
    check_grad(lambda xp, *xs: xp.einsum(subscripts, *xs, optimize=optimize), *arrays)


def test_einsum_sublist_form():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 3, 4))
    check_grad(lambda xp, x, y: xp.einsum(x, [0, 1], y, [1, 1, 2], [2, 0]), a, b)


# ---------------------------------------------------------------- trace, diagonal, transposes

@settings(max_examples=examples(15))
@given(data=st.data(), offset=st.integers(-3, 3))
def test_trace_and_diagonal(data, offset):
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=3))
    nd = len(shape)
    i, j = data.draw(st.permutations(range(nd)))[:2]
    i -= data.draw(st.sampled_from([0, nd]))  # negative axes too
    a = rand(data, *shape)
    check_grad(lambda xp, x: xp.trace(x, offset, i, j), a)
    check_grad(lambda xp, x: xp.diagonal(x, offset, i, j), a)
    check_grad(lambda xp, x: x.diagonal(offset, i, j) * 2.0, a)
    check_grad(lambda xp, x: xp.linalg.trace(x, offset=offset), a)
    check_grad(lambda xp, x: xp.linalg.diagonal(x, offset=offset), a)


@settings(max_examples=examples(10))
@given(data=st.data())
def test_matrix_transpose(data):
    a = rand(data, *data.draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=3)))
    check_grad(lambda xp, x: xp.matrix_transpose(x), a)
    check_grad(lambda xp, x: xp.linalg.matrix_transpose(x) * 3.0, a)
    check_grad(lambda xp, x: x.mT @ x, a)


@settings(max_examples=examples(15))
@given(data=st.data())
def test_vecdot(data):
    sa, sb = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3, min_side=1,
                                                         max_side=3)).input_shapes
    n = data.draw(st.integers(1, 3))
    ka, kb = data.draw(st.integers(0, len(sa))), data.draw(st.integers(0, len(sb)))
    sa, sb = sa[:ka] + (n,) + sa[ka:], sb[:kb] + (n,) + sb[kb:]
    a, b = rand(data, *sa), rand(data, *sb)
    if ka == len(sa) - 1 and kb == len(sb) - 1:  # the same axis in both: -1
        check_grad(lambda xp, x, y: xp.vecdot(x, y), a, b)
        check_grad(lambda xp, x, y: xp.linalg.vecdot(x, y, axis=-1), a, b)
    if ka - len(sa) == kb - len(sb):
        check_grad(lambda xp, x, y: xp.vecdot(x, y, axis=ka - len(sa)), a, b)


@settings(max_examples=examples(15))
@given(data=st.data())
def test_matvec_and_vecmat(data):
    ba, bb = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1,
                                                         max_side=2)).input_shapes
    m, n = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    check_grad(lambda xp, x, y: xp.matvec(x, y), rand(data, *ba, m, n), rand(data, *bb, n))
    check_grad(lambda xp, x, y: xp.vecmat(x, y), rand(data, *ba, n), rand(data, *bb, n, m))


@settings(max_examples=examples(10))
@given(data=st.data())
def test_kron(data):
    sa = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    sb = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    check_grad(lambda xp, x, y: xp.kron(x, y), rand(data, *sa), rand(data, *sb))


@settings(max_examples=examples(15))
@given(data=st.data())
def test_cross(data):
    na, nb = data.draw(st.sampled_from([(3, 3), (3, 3), (2, 3), (3, 2), (2, 2)]))
    ba, bb = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1,
                                                         max_side=2)).input_shapes
    ia, ib = data.draw(st.integers(0, len(ba))), data.draw(st.integers(0, len(bb)))
    a = rand(data, *(ba[:ia] + (na,) + ba[ia:]))
    b = rand(data, *(bb[:ib] + (nb,) + bb[ib:]))
    nd = len(np.broadcast_shapes(ba, bb)) + 1
    ic = data.draw(st.integers(-nd, nd - 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 2-vectors
        check_grad(lambda xp, x, y: xp.cross(x, y, axisa=ia, axisb=ib, axisc=ic), a, b)
    if na == nb == 3 and ia == len(ba) and ib == len(bb):
        check_grad(lambda xp, x, y: xp.linalg.cross(x, y), a, b)


# ---------------------------------------------------------------- numpy.linalg

@settings(max_examples=examples(15))
@given(data=st.data(), n=st.integers(1, 3))
def test_inv_det_slogdet(data, n):
    a = well_conditioned(data, n, batch(data))
    check_grad(lambda xp, x: xp.linalg.inv(x), a)
    check_grad(lambda xp, x: xp.linalg.det(x), a)
    check_grad(lambda xp, x: xp.linalg.slogdet(x).logabsdet, a)
    check_grad(lambda xp, x: xp.linalg.slogdet(x)[0] * xp.linalg.slogdet(x)[1], -a)  # the sign: constant


@settings(max_examples=examples(15))
@given(data=st.data(), n=st.integers(1, 3), vector=st.booleans())
def test_solve(data, n, vector):
    ba, bb = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1,
                                                         max_side=2)).input_shapes
    a = well_conditioned(data, n, ba)
    b = rand(data, n) if vector else rand(data, *bb, n, data.draw(st.integers(1, 2)))
    check_grad(lambda xp, x, y: xp.linalg.solve(x, y), a, b)


@settings(max_examples=examples(15))
@given(data=st.data(), n=st.integers(1, 4), upper=st.booleans())
def test_cholesky(data, n, upper):
    x = rand(data, *batch(data, 1), n, n)
    check_grad(lambda xp, a: xp.linalg.cholesky(a @ a.mT + n * xp.eye(n), upper=upper), x)
    check_grad(lambda xp, a: xp.linalg.cholesky(0.1 * sym(xp, a) + n * xp.eye(n)), x)


@settings(max_examples=examples(15))
@given(data=st.data(), n=st.integers(1, 4), uplo=st.sampled_from(["L", "U"]))
def test_eigh(data, n, uplo):
    x = 0.3 * rand(data, *batch(data, 1), n, n)
    d = spread(n, n)  # distinct eigenvalues

    def spectrum(xp, a):
        return sym(xp, a) + d

    check_grad(lambda xp, a: xp.linalg.eigh(spectrum(xp, a), UPLO=uplo).eigenvalues, x)
    check_grad(lambda xp, a: xp.linalg.eigvalsh(spectrum(xp, a), UPLO=uplo), x)
    # eigenvectors: losses that do not depend on their signs
    check_grad(lambda xp, a: xp.linalg.eigh(spectrum(xp, a), UPLO=uplo).eigenvectors ** 2, x)
    check_grad(lambda xp, a: (lambda w, v: (v * w[..., None, :]) @ v.mT)(*xp.linalg.eigh(spectrum(xp, a))), x)


@settings(max_examples=examples(15))
@given(data=st.data(), m=st.integers(1, 4), n=st.integers(1, 4))
def test_svd(data, m, n):
    x = 0.3 * rand(data, *batch(data, 1), m, n)
    d = spread(m, n)  # distinct, nonzero singular values
    check_grad(lambda xp, a: xp.linalg.svdvals(a + d), x)
    check_grad(lambda xp, a: xp.linalg.svd(a + d, compute_uv=False), x)
    check_grad(lambda xp, a: xp.linalg.svd(a + d).S, x)
    check_grad(lambda xp, a: xp.linalg.svd(a + d, full_matrices=False).U ** 2, x)
    check_grad(lambda xp, a: xp.linalg.svd(a + d, full_matrices=False).Vh ** 2, x)
    check_grad(lambda xp, a: (lambda u, s, vh: u @ vh)(*xp.linalg.svd(a + d, full_matrices=False)), x)
    if m == n:
        check_grad(lambda xp, a: xp.linalg.svd(a + d).U ** 2 + xp.linalg.svd(a + d).Vh, x)
        check_grad(lambda xp, a: xp.linalg.svd(sym(xp, a) + d, hermitian=True).S, x)
        check_grad(lambda xp, a: xp.linalg.svd(sym(xp, a) + d, hermitian=True).U ** 2, x)


@settings(max_examples=examples(10))
@given(data=st.data(), m=st.integers(1, 4), n=st.integers(1, 4))
def test_pinv(data, m, n):
    x = 0.3 * rand(data, *batch(data, 1), m, n)
    d = spread(m, n)  # full rank
    check_grad(lambda xp, a: xp.linalg.pinv(a + d), x)
    if m == n:
        check_grad(lambda xp, a: xp.linalg.pinv(sym(xp, a) + d, hermitian=True), x)


@settings(max_examples=examples(10))
@given(data=st.data(), n=st.integers(1, 3), extra=st.integers(0, 2))
def test_qr(data, n, extra):
    m = n + extra
    x = rand(data, *batch(data, 1), m, n) + spread(m, n)
    check_grad(lambda xp, a: xp.linalg.qr(a).Q, x)
    check_grad(lambda xp, a: xp.linalg.qr(a).R, x)
    check_grad(lambda xp, a: xp.linalg.qr(a, mode="r"), x)
    if m == n:
        check_grad(lambda xp, a: xp.linalg.qr(a, mode="complete").Q, x)


@settings(max_examples=examples(15))
@given(data=st.data(), n=st.integers(1, 3), power=st.integers(-3, 4))
def test_matrix_power(data, n, power):
    a = well_conditioned(data, n, batch(data, 1)) / 2  # near the identity: powers stay tame
    check_grad(lambda xp, x: xp.linalg.matrix_power(x, power), a)


@settings(max_examples=examples(10))
@given(data=st.data(), count=st.integers(2, 5), first=st.booleans(), last=st.booleans())
def test_multi_dot(data, count, first, last):
    dims = [data.draw(st.integers(1, 3)) for _ in range(count + 1)]
    arrays = [rand(data, dims[k], dims[k + 1]) for k in range(count)]
    if first:
        arrays[0] = rand(data, dims[1])
    if last:
        arrays[-1] = rand(data, dims[-2])
    check_grad(lambda xp, *xs: xp.linalg.multi_dot(list(xs)), *arrays)


def test_tensorinv_and_tensorsolve():
    rng = np.random.default_rng(2)
    a = (rng.normal(size=(6, 6)) + 6 * np.eye(6)).reshape(2, 3, 6)
    check_grad(lambda xp, x: xp.linalg.tensorinv(x, ind=2), a)
    check_grad(lambda xp, x: xp.linalg.tensorinv(x, ind=1), a.reshape(6, 2, 3))
    b = rng.normal(size=(2, 3))
    check_grad(lambda xp, x, y: xp.linalg.tensorsolve(x, y), a.reshape(2, 3, 2, 3), b)
    check_grad(lambda xp, x, y: xp.linalg.tensorsolve(x, y, axes=(0,)), a.reshape(2, 3, 2, 3), b)


# ---------------------------------------------------------------- norms

VECTOR_ORDS = [None, 2, 1, np.inf, -np.inf, 3, 0.5, -1.5, 0]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@settings(max_examples=examples(20))
@given(data=st.data(), ord=st.sampled_from(VECTOR_ORDS), keepdims=st.booleans())
def test_vector_norms(data, ord, keepdims):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    x = rand(data, *shape)  # no zeros, no ties (almost surely)
    nd = len(shape)
    axis = data.draw(st.integers(-nd, nd - 1))
    check_grad(lambda xp, a: xp.linalg.norm(a, ord, axis=axis, keepdims=keepdims), x)
    axes = tuple(data.draw(st.permutations(range(nd)))[:data.draw(st.integers(1, nd))])
    check_grad(lambda xp, a: xp.linalg.vector_norm(a, axis=axes, keepdims=keepdims, ord=2 if ord is None else ord),
               x)
    check_grad(lambda xp, a: xp.linalg.vector_norm(a), x)
    check_grad(lambda xp, a: xp.linalg.norm(a, keepdims=keepdims), x)  # flattened 2-norm
    if nd == 1:
        check_grad(lambda xp, a: xp.linalg.norm(a, ord), x)


@settings(max_examples=examples(25))
@given(data=st.data(), ord=st.sampled_from(MATRIX_ORDS), keepdims=st.booleans())
def test_matrix_norms(data, ord, keepdims):
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=3))
    x = rand(data, *shape)
    nd = len(shape)
    r, c = data.draw(st.permutations(range(nd)))[:2]
    check_grad(lambda xp, a: xp.linalg.norm(a, ord, axis=(r, c), keepdims=keepdims), x)
    check_grad(lambda xp, a: xp.linalg.matrix_norm(a, ord="fro" if ord is None else ord, keepdims=keepdims), x)
    if nd == 2:
        check_grad(lambda xp, a: xp.linalg.norm(a, ord), x)


def test_norm_at_zero_has_zero_gradient():
    x = fnp.asarray(np.zeros((2, 3)))
    for y in (fnp.linalg.norm(x), fnp.linalg.vector_norm(x, ord=3), fnp.linalg.norm(x, axis=1).sum()):
        assert np.array_equal(np.asarray(fgraph.grad(y, x)), np.zeros((2, 3)))


def test_inf_norm_splits_ties_equally():
    x = fnp.asarray(np.array([1.0, -3.0, 3.0, 2.0]))
    g = np.asarray(fgraph.grad(fnp.linalg.norm(x, np.inf), x))
    np.testing.assert_allclose(g, [0.0, -0.5, 0.5, 0.0])


@settings(max_examples=examples(15))
@given(data=st.data(), p=st.sampled_from([None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"]), n=st.integers(2, 3))
def test_cond(data, p, n):
    x = 0.3 * rand(data, *batch(data, 1), n, n) + spread(n, n)
    check_grad(lambda xp, a: xp.linalg.cond(a, p), x, rtol=1e-4)


# ---------------------------------------------------------------- second derivatives

def test_second_derivatives():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 2))
    m = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    check_grad2(lambda xp, x, y: xp.matmul(x, y) ** 2, a, b)
    check_grad2(lambda xp, x, y: xp.einsum("ij,jk->ik", x, y) ** 2, a, b)
    check_grad2(lambda xp, x: xp.einsum("ii->i", x) ** 3, m)
    check_grad2(lambda xp, x, y: xp.tensordot(x, y, axes=([1], [0])) ** 2, a, b)
    check_grad2(lambda xp, x: xp.linalg.inv(x), m)
    check_grad2(lambda xp, x: xp.linalg.det(x), m)
    check_grad2(lambda xp, x, y: xp.linalg.solve(x, y), m, b)
    check_grad2(lambda xp, x: xp.linalg.cholesky(x @ x.mT + 3 * xp.eye(3)), m)
    check_grad2(lambda xp, x: xp.linalg.eigh(sym(xp, x) + spread(3, 3)).eigenvalues ** 2, 0.3 * m)
    check_grad2(lambda xp, x: xp.linalg.norm(x, axis=0), a)
    check_grad2(lambda xp, x: xp.trace(x @ x) + xp.diagonal(x, 1).sum() ** 2, m)


# ---------------------------------------------------------------- the rules as graph transforms

EMPTY = [
    (lambda x, y: x @ y, (2, 0), (0, 3)),
    (lambda x, y: x @ y, (0, 2, 3), (3,)),
    (lambda x, y: fnp.einsum("ij,jk->ik", x, y), (0, 2), (2, 3)),
    (lambda x, y: fnp.tensordot(x, y, 1), (2, 0), (0, 3)),
    (lambda x, y: fnp.kron(x, y), (0, 2), (3,)),
    (lambda x, y: fnp.vdot(x, y), (0,), (0, 2)),
    (lambda x, y: fnp.linalg.solve(x, y), (0, 2, 2), (2,)),
    (lambda x, y: fnp.linalg.norm(x, axis=0) + fnp.linalg.det(y), (0, 3), (3, 0, 0)),
]


@pytest.mark.parametrize("fn, sa, sb", EMPTY)
def test_size_zero(fn, sa, sb):
    """Size-0 operands (which finite differences cannot visit): cotangents of
    the right shape, zero where the loss cannot depend on the input."""
    x, y = fnp.asarray(np.ones(sa)), fnp.asarray(np.ones(sb))
    for g, shape in zip(fgraph.grad(fnp.sum(fn(x, y) * 1.5), [x, y]), (sa, sb)):
        assert np.array_equal(np.asarray(g), np.zeros(shape))


def test_gradient_compiles_from_placeholders():
    """Rules only build nodes: a gradient of placeholders compiles and runs."""
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(3, 3)) + 3 * np.eye(3), rng.normal(size=(3, 2))
    pa, pb = fnp.placeholder((3, 3), "float64", name="a"), fnp.placeholder((3, 2), "float64", name="b")
    loss = fnp.sum(fnp.linalg.solve(pa, pb) ** 2) + fnp.linalg.slogdet(pa).logabsdet
    ga, gb = fgraph.grad(loss, [pa, pb])
    exe = fgraph.compile(fgraph.Graph([ga, gb], inputs=[pa, pb]))
    got = exe(a=a, b=b)
    la, lb = fnp.asarray(a), fnp.asarray(b)
    want = fgraph.grad(fnp.sum(fnp.linalg.solve(la, lb) ** 2) + fnp.linalg.slogdet(la).logabsdet, [la, lb])
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)


def test_jit_of_grad():
    f = fgraph.jit(fgraph.grad(lambda x, y: fnp.sum(fnp.einsum("ij,jk->ik", x, y) ** 2), argnums=(0, 1)))
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    ga, gb = f(a, b)
    np.testing.assert_allclose(ga, 2 * (a @ b) @ b.T, rtol=1e-12)
    np.testing.assert_allclose(gb, 2 * a.T @ (a @ b), rtol=1e-12)


def test_grad_leaves_the_graph_alone():
    x = fnp.asarray(np.random.default_rng(6).normal(size=(3, 3)) + 3 * np.eye(3))
    y = fnp.sum(fnp.linalg.inv(x) @ x.mT)
    before = (hash(y.node), y.node.inputs, y.node.params)
    fgraph.grad(y, x)
    assert (hash(y.node), y.node.inputs, y.node.params) == before


def test_integer_outputs_on_the_path_get_no_gradient():
    """matrix_rank is integer valued: it sits on the path but passes nothing back."""
    x = np.random.default_rng(7).normal(size=(3, 3))
    check_grad(lambda xp, a: xp.sum(a) * xp.linalg.matrix_rank(a), x)


def test_constant_results_have_zero_gradient():
    x = fnp.asarray(np.random.default_rng(8).normal(size=(2, 2)) + 2 * np.eye(2))
    for y in (fnp.linalg.matrix_power(x, 0).sum(), fnp.linalg.slogdet(x).sign * 1.0):
        assert np.array_equal(np.asarray(fgraph.grad(y, x)), np.zeros((2, 2)))


def test_unsupported_gradients_say_so():
    x = fnp.asarray(np.random.default_rng(9).normal(size=(3, 2)))
    with pytest.raises(fgraph.FgraphError, match="full_matrices"):
        fgraph.grad(fnp.sum(fnp.linalg.svd(x).U), x)
    with pytest.raises(fgraph.FgraphError, match="m >= n"):
        fgraph.grad(fnp.sum(fnp.linalg.qr(x.T).Q), x)


def test_jvp_transposes_the_rules():
    """jvp differentiates the (linear) pullbacks once more: compare with finite differences."""
    rng = np.random.default_rng(10)
    a, v = 0.3 * rng.normal(size=(3, 3)) + 2 * np.eye(3), rng.normal(size=(3, 3))
    for f in (lambda xp, x: xp.linalg.inv(x), lambda xp, x: xp.einsum("ij,jk->ik", x, x),
              lambda xp, x: xp.linalg.cholesky(x @ x.mT), lambda xp, x: xp.diagonal(x, 1)):
        _, tangent = fgraph.jvp(lambda x: f(fnp, x), (a,), (v,))
        want = (f(np, a + 1e-6 * v) - f(np, a - 1e-6 * v)) / 2e-6
        np.testing.assert_allclose(tangent, want, rtol=1e-5, atol=1e-6)

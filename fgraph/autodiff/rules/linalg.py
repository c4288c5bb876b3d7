"""Gradient rules of the linear-algebra ops, written with fgraph.numpy.

Products are transposed into products (matmul into matmul, tensordot into
tensordot, einsum into einsum), so second derivatives stay in the family.

Conventions (the usual ones of JAX and PyTorch):

* ``cholesky``, ``eigh``/``eigvalsh`` and ``svd``/``pinv`` with
  ``hermitian=True`` read one triangle of their input, but their gradient
  is the *symmetric* one: the input is taken to be a symmetric matrix and
  the cotangent is a symmetric matrix (``(G + G.T) / 2``), as JAX and
  PyTorch give.  Differentiate through ``a + a.T`` (or ``a @ a.T``) to get
  the gradient with respect to an unconstrained matrix.
* ``det``, ``slogdet``, ``inv``, ``solve``, ``matrix_power`` (n < 0),
  ``cond`` and the tensor inverses need a nonsingular matrix (``det``'s
  gradient is ``det(a) * inv(a).T``).  ``slogdet``'s ``sign`` is piecewise
  constant: no gradient.
* ``eigh``'s eigenvectors and ``svd``'s ``U``/``Vh`` need distinct
  eigenvalues (singular values, and nonzero ones for non-square ``svd``);
  a loss must not depend on their signs.  ``svd``'s ``U``/``Vh`` with
  ``full_matrices=True`` are only differentiated for square matrices, and
  ``qr`` only for ``m >= n`` (mode ``'reduced'``, ``'r'``, or square
  ``'complete'``).  ``pinv`` assumes the rank does not change nearby.
* Norms: the 2-norm (and Frobenius) of a zero vector has gradient 0; ties
  of ``ord=inf``/``-inf`` (and of the 1-/inf- matrix norms' maximal column
  or row) split the gradient equally, like ``max``; ``ord=0`` counts
  nonzeros: no gradient; ``|x|**p`` for ``p < 1`` gives 0 at zero entries.
* Complex inputs have no gradient here (the core skips them), so ``vdot``,
  ``vecdot`` and ``vecmat`` need no conjugation; ``eig``/``eigvals`` (complex
  only) and ``matrix_rank`` (integer) never get a cotangent: no rule.
"""
from __future__ import annotations

import string
from collections import Counter

import numpy as np

from ... import numpy as fnp
from ...errors import FgraphError
from ...symbol import error_at
from .. import defgrad
from ..core import differentiable, sum_to

la = fnp.linalg


# ---------------------------------------------------------------- helpers

def _wants(x) -> bool:
    return differentiable(x.dtype)


def _mT(x):
    return fnp.matrix_transpose(x)


def _col(x):
    """x[..., :, None] as a reshape."""
    return fnp.reshape(x, x.shape + (1,))


def _row(x):
    """x[..., None, :] as a reshape."""
    return fnp.reshape(x, x.shape[:-1] + (1, x.shape[-1]))


def _keep(t, shape, axes):
    """A reduction's result (or cotangent) reshaped to keepdims form."""
    return fnp.reshape(t, tuple(1 if k in axes else d for k, d in enumerate(shape)))


def _eye(n, m=None, k=0, dtype=np.float64):
    return fnp.eye(n, m, k=k, dtype=dtype)


def _ftype(*xs):
    """The float dtype the cotangent computations run in."""
    dt = np.result_type(*[x.dtype for x in xs])
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _sym(x):
    return 0.5 * (x + _mT(x))


def _unpromote(g, promoted_shape, shape):
    """Sum a cotangent of a (1-D promoted, batch-broadcast) operand down to ``shape``."""
    return fnp.reshape(sum_to(g, promoted_shape), shape)


# ---------------------------------------------------------------- products

@defgrad("matmul")
def _matmul(out, ins, g, dtype=None):
    a, b = ins
    A = a if a.ndim > 1 else fnp.reshape(a, (1,) + a.shape)
    B = b if b.ndim > 1 else fnp.reshape(b, b.shape + (1,))
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    G = fnp.reshape(g, batch + (A.shape[-2], B.shape[-1]))  # the 1-D axes put back
    ga = _unpromote(fnp.matmul(G, _mT(B)), A.shape, a.shape) if _wants(a) else None
    gb = _unpromote(fnp.matmul(_mT(A), G), B.shape, b.shape) if _wants(b) else None
    return ga, gb


def _tensordot_vjp(a, b, g, axes_a, axes_b):
    """Cotangents of ``tensordot(a, b, (axes_a, axes_b))``: each a tensordot
    of g with the other operand, transposed back into the operand's order."""
    axes_a, axes_b = list(axes_a), list(axes_b)
    free_a = [x for x in range(a.ndim) if x not in axes_a]
    free_b = [y for y in range(b.ndim) if y not in axes_b]
    na = len(free_a)
    ga = gb = None
    if _wants(a):
        r = fnp.tensordot(g, b, axes=(list(range(na, g.ndim)), free_b))  # free_a + b's summed axes, in b's order
        kept = sorted(axes_b)
        perm = [free_a.index(x) if x in free_a else na + kept.index(axes_b[axes_a.index(x)]) for x in range(a.ndim)]
        ga = r if perm == sorted(perm) else fnp.transpose(r, perm)
    if _wants(b):
        r = fnp.tensordot(a, g, axes=(free_a, list(range(na))))  # a's summed axes, in a's order, + free_b
        kept = sorted(axes_a)
        nk = len(kept)
        perm = [nk + free_b.index(y) if y in free_b else kept.index(axes_a[axes_b.index(y)]) for y in range(b.ndim)]
        gb = r if perm == sorted(perm) else fnp.transpose(r, perm)
    return ga, gb


@defgrad("tensordot")
def _tensordot(out, ins, g, axes):
    a, b = ins
    return _tensordot_vjp(a, b, g, axes[0], axes[1])


def _dot_vjp(a, b, g):
    if a.ndim == 0 or b.ndim == 0:  # a product; the core sums down the scalar's cotangent
        return g * b, g * a
    return _tensordot_vjp(a, b, g, [a.ndim - 1], [0 if b.ndim == 1 else b.ndim - 2])


@defgrad("dot")
def _dot(out, ins, g):
    return _dot_vjp(*ins, g)


@defgrad("inner")
def _inner(out, ins, g):
    a, b = ins
    if a.ndim == 0 or b.ndim == 0:
        return g * b, g * a
    return _tensordot_vjp(a, b, g, [a.ndim - 1], [b.ndim - 1])


@defgrad("vdot")
def _vdot(out, ins, g):
    a, b = ins  # real inputs: no conjugation
    return g * fnp.reshape(b, a.shape), g * fnp.reshape(a, b.shape)


@defgrad("outer")
def _outer(out, ins, g):
    a, b = ins
    ga = fnp.reshape(fnp.matmul(g, fnp.reshape(b, (b.size,))), a.shape) if _wants(a) else None
    gb = fnp.reshape(fnp.matmul(fnp.reshape(a, (a.size,)), g), b.shape) if _wants(b) else None
    return ga, gb


@defgrad("matrix_transpose")
def _matrix_transpose(out, ins, g):
    return _mT(g),


@defgrad("vecdot")
def _vecdot(out, ins, g, axes, dtype=None):
    a, b = ins
    i, j = axes

    def part(x, k, other, l):  # cotangent of x, whose vector axis is k
        if not _wants(x):
            return None
        p = _col(g) * fnp.moveaxis(other, l, -1)  # out's shape + (n,)
        moved = x.shape[:k] + x.shape[k + 1:] + (x.shape[k],)
        return fnp.moveaxis(sum_to(p, moved), -1, k)

    return part(a, i, b, j), part(b, j, a, i)


@defgrad("matvec")
def _matvec(out, ins, g, dtype=None):
    a, b = ins  # (..., m, n) @ (..., n) -> (..., m)
    ga = sum_to(_col(g) * _row(b), a.shape) if _wants(a) else None
    gb = sum_to(fnp.vecmat(g, a), b.shape) if _wants(b) else None
    return ga, gb


@defgrad("vecmat")
def _vecmat(out, ins, g, dtype=None):
    a, b = ins  # (..., n) @ (..., n, m) -> (..., m)
    ga = sum_to(fnp.matvec(b, g), a.shape) if _wants(a) else None
    gb = sum_to(_col(a) * _row(g), b.shape) if _wants(b) else None
    return ga, gb


@defgrad("kron")
def _kron(out, ins, g):
    a, b = ins
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + a.shape
    sb = (1,) * (n - b.ndim) + b.shape
    # kron(a, b)[i*nb + j] = a[i] * b[j] on every axis: g viewed as (sa0, sb0, sa1, sb1, ...)
    G = fnp.reshape(g, tuple(d for pair in zip(sa, sb) for d in pair))
    ga = gb = None
    if _wants(a):
        bb = fnp.reshape(b, tuple(d for s in sb for d in (1, s)))
        ga = fnp.reshape(fnp.sum(G * bb, axis=tuple(range(1, 2 * n, 2))), a.shape)
    if _wants(b):
        aa = fnp.reshape(a, tuple(d for s in sa for d in (s, 1)))
        gb = fnp.reshape(fnp.sum(G * aa, axis=tuple(range(0, 2 * n, 2))), b.shape)
    return ga, gb


@defgrad("cross")
def _cross(out, ins, g, axisa, axisb, axisc):
    a, b = ins
    A, B = fnp.moveaxis(a, axisa, -1), fnp.moveaxis(b, axisb, -1)
    na, nb = A.shape[-1], B.shape[-1]
    dt = _ftype(a, b, g)
    # 2-vectors are 3-vectors with z = 0 (a matmul pads them), and the cross
    # product of two of them is the z component of the 3-vector one
    A3 = A if na == 3 else fnp.matmul(A, _eye(2, 3, dtype=dt))
    B3 = B if nb == 3 else fnp.matmul(B, _eye(2, 3, dtype=dt))
    G3 = fnp.moveaxis(g, axisc, -1) if 3 in (na, nb) else fnp.matmul(_col(g), _eye(1, 3, k=2, dtype=dt))

    def back(x3, n, shape, axis):  # d<g, a x b>/da = b x g; first n components, summed down
        x = x3 if n == 3 else fnp.matmul(x3, _eye(3, 2, dtype=dt))
        return fnp.moveaxis(sum_to(x, shape), -1, axis)

    ga = back(fnp.cross(B3, G3), na, A.shape, axisa) if _wants(a) else None
    gb = back(fnp.cross(G3, A3), nb, B.shape, axisb) if _wants(b) else None
    return ga, gb


# ---------------------------------------------------------------- einsum

_LABELS = string.ascii_uppercase + string.ascii_lowercase


def _einsum_labels(subscripts: str, shapes):
    """Explicit labels: one list per operand and one for the output, with
    every ellipsis dimension given its own fresh label; also the unused labels."""
    lhs, arrow, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    fresh = [c for c in _LABELS if c not in subscripts]
    nell = max((len(s) - len(t) + 3 for t, s in zip(terms, shapes) if "..." in t), default=0)
    if nell > len(fresh):
        raise error_at(FgraphError, "grad", "einsum: too many dimensions to label for its gradient")
    ell = [fresh.pop() for _ in range(nell)]
    labels = []
    for t, s in zip(terms, shapes):
        head, dots, tail = t.partition("...")
        e = len(s) - len(head) - len(tail)
        labels.append(list(head) + (ell[nell - e:] if dots and e else []) + list(tail))
    if arrow:
        head, dots, tail = rhs.partition("...")
        out = list(head) + (ell if dots else []) + list(tail)
    else:  # NumPy's implicit output: ellipsis dims, then the labels used once, sorted
        counts = Counter(c for t in terms for c in t if c != ".")
        out = ell + sorted(c for c, n in counts.items() if n == 1)
    return labels, out, fresh


@defgrad("einsum")
def _einsum(out, ins, g, subscripts, optimize=False, dtype=None, casting="safe"):
    """The cotangent of operand k is an einsum of g and the other operands
    whose output is operand k's subscripts.  A label repeated in operand k
    (a diagonal or trace) gets a fresh label tied to the first by an
    identity matrix; a label operand k alone sums over gets a ones vector;
    a size-1 dimension broadcast against a longer one is summed back (and
    a dimension the others have only as size 1 is broadcast)."""
    labels, out_labels, fresh = _einsum_labels(subscripts, [x.shape for x in ins])
    opt = False if optimize is False else "greedy"  # an explicit path is not the gradient's path
    dt = _ftype(g)
    grads = []
    for k, x in enumerate(ins):
        if not _wants(x):
            grads.append(None)
            continue
        elsewhere = set(out_labels).union(*[set(lab) for j, lab in enumerate(labels) if j != k])
        operands = [g] + [ins[j] for j in range(len(ins)) if j != k]
        terms = [out_labels] + [lab for j, lab in enumerate(labels) if j != k]
        result, seen = [], set()
        for c, n in zip(labels[k], x.shape):
            if c in seen:
                if not fresh:
                    raise error_at(FgraphError, "grad", "einsum: too many repeated labels to differentiate")
                c2 = fresh.pop()
                operands.append(_eye(n, dtype=dt))
                terms.append([c, c2])
                result.append(c2)
                continue
            seen.add(c)
            if c not in elsewhere and labels[k].count(c) == 1:
                operands.append(fnp.ones((n,), dt))
                terms.append([c])
            result.append(c)
        spec = ",".join("".join(t) for t in terms) + "->" + "".join(result)
        r = fnp.einsum(spec, *operands, optimize=opt)
        wide = tuple(p for p, (d, e) in enumerate(zip(x.shape, r.shape)) if d == 1 and e != 1)
        r = fnp.sum(r, axis=wide, keepdims=True) if wide else r
        # and where x's dimension met only size-1 ones elsewhere, r is 1 there
        grads.append(r if r.shape == x.shape else fnp.broadcast_to(r, x.shape))
    return grads


# ---------------------------------------------------------------- trace, diagonal

def _embed(m, axis1, axis2):
    """m of shape rest + (n1, n2) with those two axes moved to axis1, axis2."""
    return fnp.moveaxis(m, (-2, -1), (axis1, axis2))


@defgrad("trace")
def _trace(out, ins, g, offset=0, axis1=0, axis2=1, dtype=None):
    (a,) = ins
    n1, n2 = a.shape[axis1], a.shape[axis2]
    m = fnp.reshape(g, g.shape + (1, 1)) * _eye(n1, n2, k=offset, dtype=_ftype(g))
    return _embed(m, axis1, axis2),


@defgrad("diagonal")
def _diagonal(out, ins, g, offset=0, axis1=0, axis2=1):
    """g on the diagonal of zeros: g indexed by row (offset >= 0) or column,
    padded to that length by a matmul, times the shifted identity."""
    (a,) = ins
    n1, n2 = a.shape[axis1], a.shape[axis2]
    length = g.shape[-1]
    dt = _ftype(g)
    target = n1 if offset >= 0 else n2
    gp = g if length == target else fnp.matmul(g, _eye(length, target, dtype=dt))
    gp = _col(gp) if offset >= 0 else _row(gp)
    return _embed(gp * _eye(n1, n2, k=offset, dtype=dt), axis1, axis2),


# ---------------------------------------------------------------- numpy.linalg: square matrices

def _inv_vjp(x, gx):
    """Cotangent of a from that of x = inv(a)."""
    xt = _mT(x)
    return -fnp.matmul(fnp.matmul(xt, gx), xt)


@defgrad("inv")
def _inv(out, ins, g):
    return _inv_vjp(out, g),


@defgrad("det")
def _det(out, ins, g):
    (a,) = ins
    return fnp.reshape(g * out, g.shape + (1, 1)) * _mT(la.inv(a)),


@defgrad("slogdet")
def _slogdet(out, ins, g, output):
    (a,) = ins
    if output == 0:  # the sign: piecewise constant
        return None,
    return fnp.reshape(g, g.shape + (1, 1)) * _mT(la.inv(a)),


@defgrad("solve")
def _solve(out, ins, g):
    a, b = ins
    at = _mT(a)
    if b.ndim == 1:  # x = solve(a, b) is (..., m): a stack of vectors
        gb = fnp.reshape(la.solve(at, _col(g)), g.shape)
        ga = -_col(gb) * _row(out)
    else:
        gb = la.solve(at, g)
        ga = -fnp.matmul(gb, _mT(out))
    return (sum_to(ga, a.shape) if _wants(a) else None), (sum_to(gb, b.shape) if _wants(b) else None)


def _solve_right(x, l):
    """x @ inv(l), by a solve (l is triangular where it is used; any invertible l works)."""
    return _mT(la.solve(_mT(l), _mT(x)))


@defgrad("cholesky")
def _cholesky(out, ins, g, upper=False):
    """a = l @ l.T: with P = l.T @ gl, its lower triangle with the diagonal
    halved, gA = sym(inv(l).T @ P @ inv(l))."""
    l, gl = (_mT(out), _mT(g)) if upper else (out, g)
    n = l.shape[-1]
    dt = _ftype(l, g)
    mask = fnp.tri(n, dtype=dt) - 0.5 * _eye(n, dtype=dt)
    p = fnp.matmul(_mT(l), gl) * mask
    s = la.solve(_mT(l), p)  # inv(l).T @ P
    return _sym(_solve_right(s, l)),


def _eigvals_vjp(v, gw):
    """Cotangent of a symmetric a from that of its eigenvalues: V diag(gw) V.T."""
    return fnp.matmul(v * _row(gw), _mT(v))


def _eigvecs_vjp(w, v, gv):
    """V (F * (V.T gV)) V.T with F[i, j] = 1 / (w[j] - w[i]) off the diagonal, symmetrised."""
    n = w.shape[-1]
    eye = _eye(n, dtype=_ftype(w, gv))
    f = (1.0 - eye) / (_row(w) - _col(w) + eye)
    inner = f * fnp.matmul(_mT(v), gv)
    return _sym(fnp.matmul(fnp.matmul(v, inner), _mT(v)))


@defgrad("eigh")
def _eigh(out, ins, g, UPLO="L", output=0):
    (a,) = ins
    w, v = la.eigh(a, UPLO)
    return (_eigvals_vjp(v, g) if output == 0 else _eigvecs_vjp(w, v, g)),


@defgrad("eigvalsh")
def _eigvalsh(out, ins, g, UPLO="L"):
    (a,) = ins
    return _eigvals_vjp(la.eigh(a, UPLO).eigenvectors, g),


def _mpow_vjp(a, g, n):
    """Cotangent of a from that of a**n (n >= 1): sum_k (a.T)**k g (a.T)**(n-1-k)."""
    at = _mT(a)
    powers = [None, at]  # powers[k] = a.T ** k (None: the identity)
    for _ in range(2, n):
        powers.append(fnp.matmul(powers[-1], at))
    total = None
    for k in range(n):
        term = g if powers[k] is None else fnp.matmul(powers[k], g)
        if powers[n - 1 - k] is not None:
            term = fnp.matmul(term, powers[n - 1 - k])
        total = term if total is None else total + term
    return total


@defgrad("matrix_power")
def _matrix_power(out, ins, g, n):
    (a,) = ins
    if n == 0:  # the identity: constant
        return None,
    if n > 0:
        return _mpow_vjp(a, g, n),
    x = la.inv(a)
    return _inv_vjp(x, _mpow_vjp(x, g, -n)),


# ---------------------------------------------------------------- decompositions

def _svd_vjp(a, u, s, vh, gs=None, gu=None, gvh=None):
    """Cotangent of a from those of the reduced SVD a = u diag(s) vh (the
    transpose of JAX's svd JVP)."""
    m, n = a.shape[-2:]
    if gu is None and gvh is None:
        return fnp.matmul(u * _row(gs), vh)
    k = s.shape[-1]
    dt = _ftype(a, s)
    eye = _eye(k, dtype=dt)
    s_row, s_col = _row(s), _col(s)
    f = (1.0 - eye) / ((s_row + s_col) * (s_row - s_col) + eye)  # 1 / (s_j**2 - s_i**2)
    v = _mT(vh)
    core = None if gs is None else eye * _row(gs)
    extra = None
    if gu is not None:
        j = f * fnp.matmul(_mT(u), gu)
        t = fnp.matmul(j + _mT(j), eye * s_row)  # (J + J.T) S
        core = t if core is None else core + t
        if m > n:  # (I - U U.T) gU S^-1 V.T
            r = gu - fnp.matmul(u, fnp.matmul(_mT(u), gu))
            extra = fnp.matmul(r / s_row, vh)
    if gvh is not None:
        gv = _mT(gvh)
        kk = f * fnp.matmul(vh, gv)
        t = fnp.matmul(eye * s_row, kk + _mT(kk))  # S (K + K.T)
        core = t if core is None else core + t
        if n > m:  # U S^-1 gV.T (I - V V.T)
            r = gvh - fnp.matmul(fnp.matmul(gvh, v), vh)
            e = fnp.matmul(u / s_row, r)
            extra = e if extra is None else extra + e
    ga = fnp.matmul(fnp.matmul(u, core), vh)
    return ga if extra is None else ga + extra


@defgrad("svd")
def _svd(out, ins, g, full_matrices=True, compute_uv=True, hermitian=False, output=None):
    (a,) = ins
    m, n = a.shape[-2:]
    if output in (0, 2) and full_matrices and m != n:
        raise error_at(FgraphError, "grad", "svd: the gradient of U or Vh with full_matrices=True is only "
                                            "defined for square matrices; use full_matrices=False")
    u, s, vh = la.svd(a, full_matrices=False, hermitian=hermitian)
    kind = {None: "gs", 1: "gs", 0: "gu", 2: "gvh"}[output if compute_uv else None]
    ga = _svd_vjp(a, u, s, vh, **{kind: g})
    return (_sym(ga) if hermitian else ga),


@defgrad("pinv")
def _pinv(out, ins, g, rcond=None, hermitian=False, **rtol):
    """Golub and Pereyra's derivative of the pseudo-inverse (constant rank);
    per-matrix tolerances (a second input) get none."""
    a = ins[0]
    p, pt = out, _mT(out)
    m, n = a.shape[-2:]
    dt = _ftype(a, g)
    gt = _mT(g)
    q = _eye(m, dtype=dt) - fnp.matmul(a, p)  # I - A P
    r = _eye(n, dtype=dt) - fnp.matmul(p, a)  # I - P A
    ga = (-fnp.matmul(fnp.matmul(pt, g), pt)
          + fnp.matmul(fnp.matmul(q, gt), fnp.matmul(p, pt))
          + fnp.matmul(fnp.matmul(pt, p), fnp.matmul(gt, r)))
    return ((_sym(ga) if hermitian else ga),) + (None,) * (len(ins) - 1)


@defgrad("qr")
def _qr(out, ins, g, mode="reduced", output=None):
    """For m >= n (the formula of TensorFlow's QrGrad), with one of gQ, gR zero:
    M = tril(Q.T gQ - gQ.T Q + R gR.T - gR R.T),
    gA = Q (gR + M R^-T) + (gQ - Q Q.T gQ) R^-T."""
    (a,) = ins
    m, n = a.shape[-2:]
    if mode == "raw" or m < n or (mode == "complete" and m != n):
        raise error_at(FgraphError, "grad", f"qr: the gradient is defined for m >= n with mode 'reduced' or 'r' "
                                            f"(or square 'complete'), got shape {a.shape} and mode {mode!r}")
    q, r = la.qr(a, mode="reduced")
    lower_mask = fnp.tri(n, dtype=_ftype(a, g))  # tril as a product, so it differentiates
    gq, gr = (g, None) if output == 0 else (None, g)
    if gr is not None:
        rdr = fnp.matmul(r, _mT(gr))
        lower = (rdr - _mT(rdr)) * lower_mask
        return fnp.matmul(q, gr + _solve_right(lower, _mT(r))),
    qdq = fnp.matmul(_mT(q), gq)
    lower = (qdq - _mT(qdq)) * lower_mask
    return (fnp.matmul(q, _solve_right(lower, _mT(r)))
            + _solve_right(gq - fnp.matmul(q, qdq), _mT(r))),


@defgrad("tensorinv")
def _tensorinv(out, ins, g, ind=2):
    (a,) = ins
    rows = int(np.prod(a.shape[ind:], dtype=np.int64))
    x = fnp.reshape(out, (rows, rows))
    return fnp.reshape(_inv_vjp(x, fnp.reshape(g, (rows, rows))), a.shape),


@defgrad("tensorsolve")
def _tensorsolve(out, ins, g, axes=None):
    """NumPy's reshapes undone around solve's gradient."""
    a, b = ins
    order = list(range(a.ndim))
    if axes is not None:
        for k in axes:
            order.remove(k)
            order.append(k)
    at = fnp.transpose(a, order) if order != list(range(a.ndim)) else a
    rows = b.size
    mat = fnp.reshape(at, (rows, rows))
    gb = la.solve(_mT(mat), fnp.reshape(g, (rows,)))
    ga = -_col(gb) * fnp.reshape(out, (1, rows))
    ga = fnp.reshape(ga, at.shape)
    if at is not a:
        ga = fnp.transpose(ga, list(np.argsort(order)))
    return ga, fnp.reshape(gb, b.shape)


# ---------------------------------------------------------------- norms

def _is(ord, value) -> bool:
    return not isinstance(ord, str) and ord is not None and ord == value


def _vector_norm_vjp(x, out_k, g_k, ord, axes):
    """Cotangent of x from that of its vector norm over ``axes`` (out_k and
    g_k in keepdims form)."""
    if ord is None or _is(ord, 2):
        safe = fnp.where(out_k == 0, 1.0, out_k)
        return g_k * x / safe  # 0 where the norm is 0
    if _is(ord, 0):  # a count of nonzeros
        return None
    if _is(ord, 1):
        return g_k * fnp.sign(x)
    ax = fnp.abs(x)
    if _is(ord, np.inf) or _is(ord, -np.inf):  # ties split equally
        hit = (ax == out_k).astype(_ftype(x))
        return g_k * fnp.sign(x) * hit / fnp.sum(hit, axis=axes, keepdims=True)
    p = float(ord)
    safe = fnp.where(out_k == 0, 1.0, out_k)
    ratio = fnp.where(ax == 0, 1.0, ax / safe)
    d = fnp.where(ax == 0, 0.0, fnp.power(ratio, p - 1.0))  # |x|**(p-1) / norm**(p-1)
    return g_k * fnp.sign(x) * d


def _matrix_norm_vjp(x, out_k, g_k, ord, axes):
    """Cotangent of x from that of its matrix norm over the axes (r, c)."""
    r, c = axes
    if ord is None or ord == "fro":
        return _vector_norm_vjp(x, out_k, g_k, None, axes)
    if ord == "nuc" or _is(ord, 2) or _is(ord, -2):
        xm = fnp.moveaxis(x, (r, c), (-2, -1))
        gm = fnp.moveaxis(g_k, (r, c), (-2, -1))  # batch + (1, 1)
        u, s, vh = la.svd(xm, full_matrices=False)
        k = s.shape[-1]
        if ord == "nuc":
            d = fnp.matmul(u, vh)
        else:  # the largest (2) or smallest (-2) singular pair
            pick = _eye(1, k, k=0 if _is(ord, 2) else k - 1, dtype=_ftype(x))
            d = fnp.matmul(u * pick, vh)
        return fnp.moveaxis(gm * d, (-2, -1), (r, c))
    # 1 / -1: max / min column sum of |x|; inf / -inf: rows.  Ties split equally.
    inner, outer = (r, c) if _is(ord, 1) or _is(ord, -1) else (c, r)
    sums = fnp.sum(fnp.abs(x), axis=inner, keepdims=True)
    hit = (sums == out_k).astype(_ftype(x))
    return g_k * fnp.sign(x) * hit / fnp.sum(hit, axis=outer, keepdims=True)


@defgrad("norm")
def _norm(out, ins, g, ord=None, axis=None, keepdims=False):
    (x,) = ins
    if axis is None:
        axes = tuple(range(x.ndim))
        matrix = ord is not None and x.ndim == 2
    else:
        axes = tuple(a % x.ndim for a in axis)
        matrix = len(axes) == 2
    out_k, g_k = (out, g) if keepdims else (_keep(out, x.shape, axes), _keep(g, x.shape, axes))
    if matrix:
        return _matrix_norm_vjp(x, out_k, g_k, ord, axes),
    return _vector_norm_vjp(x, out_k, g_k, ord, axes),


@defgrad("vector_norm")
def _vector_norm(out, ins, g, axis=None, keepdims=False, ord=2):
    (x,) = ins
    axes = tuple(range(x.ndim)) if axis is None else axis
    out_k, g_k = (out, g) if keepdims else (_keep(out, x.shape, axes), _keep(g, x.shape, axes))
    return _vector_norm_vjp(x, out_k, g_k, ord, axes),


@defgrad("cond")
def _cond(out, ins, g, p=None):
    """None/2/-2: a ratio of singular values; else norm(x, p) * norm(inv(x), p)."""
    (x,) = ins
    if p is None or _is(p, 2) or _is(p, -2):
        u, s, vh = la.svd(x, full_matrices=False)
        k = s.shape[-1]
        dt = _ftype(x, g)
        big = fnp.reshape(_eye(1, k, k=0, dtype=dt), (k,))  # one-hot vectors
        small = fnp.reshape(_eye(1, k, k=k - 1, dtype=dt), (k,))
        top, bottom = (big, small) if p != -2 else (small, big)
        # cond = s_top / s_bottom
        st = fnp.sum(s * top, axis=-1)
        sb = fnp.sum(s * bottom, axis=-1)
        gs = _col(g / sb) * top - _col(g * st / (sb * sb)) * bottom
        return _svd_vjp(x, u, s, vh, gs=gs),
    axes = (x.ndim - 2, x.ndim - 1)
    xi = la.inv(x)
    n1 = _keep(la.norm(x, p, axis=(-2, -1)), x.shape, axes)
    n2 = _keep(la.norm(xi, p, axis=(-2, -1)), x.shape, axes)
    g_k = _keep(g, x.shape, axes)
    direct = _matrix_norm_vjp(x, n1, g_k * n2, p, axes)
    through_inv = _inv_vjp(xi, _matrix_norm_vjp(xi, n2, g_k * n1, p, axes))
    return direct + through_inv,


@defgrad("multi_dot")
def _multi_dot(out, ins, g):
    """Each cotangent is (product on its left).T @ g @ (product on its right).T;
    the prefix and suffix products are shared."""
    if len(ins) == 2:
        return _dot_vjp(*ins, g)
    mats = list(ins)
    if mats[0].ndim == 1:
        mats[0] = fnp.reshape(mats[0], (1,) + mats[0].shape)
    if mats[-1].ndim == 1:
        mats[-1] = fnp.reshape(mats[-1], mats[-1].shape + (1,))
    G = fnp.reshape(g, (mats[0].shape[0], mats[-1].shape[1]))
    count = len(mats)
    prefix = [None] * count  # prefix[k] = mats[0] @ ... @ mats[k-1]
    for k in range(1, count):
        prefix[k] = mats[0] if k == 1 else fnp.matmul(prefix[k - 1], mats[k - 1])
    suffix = [None] * count  # suffix[k] = mats[k+1] @ ... @ mats[-1]
    for k in range(count - 2, -1, -1):
        suffix[k] = mats[-1] if k == count - 2 else fnp.matmul(mats[k + 1], suffix[k + 1])
    grads = []
    for k, x in enumerate(ins):
        if not _wants(x):
            grads.append(None)
            continue
        t = G if prefix[k] is None else fnp.matmul(_mT(prefix[k]), G)
        if suffix[k] is not None:
            t = fnp.matmul(t, _mT(suffix[k]))
        grads.append(fnp.reshape(t, x.shape))
    return grads

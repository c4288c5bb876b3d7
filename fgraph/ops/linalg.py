"""Linear algebra: the ``numpy.linalg`` decompositions, solvers and norms
(the products, traces and diagonals are in :mod:`fgraph.ops.products`).

Shapes follow NumPy's rules and are checked when the node is made; the
result dtype is NumPy's own, found by running the NumPy function on
one-element stand-ins of the inputs (so int -> float64 for ``det``, float32
stays float32).  Every kernel is the NumPy function itself, so results are
bit-identical to NumPy's.

Functions returning several arrays (``slogdet``, ``eigh``, ``qr``, ``svd``)
make one node per output with an ``output`` parameter, like ``divmod``; their
``kernel_all`` computes every output at once (programs that use several
outputs of one computation run it once, engines/program.py), and each
output's kernel picks from it.

The ``numpy.linalg`` names are in ``LINALG_ALL`` and exposed as
``fgraph.numpy.linalg`` (the main-namespace products are the products
family's ``__all__``).

Gradients are written with the ops of this layer.  Conventions (the usual ones of JAX and PyTorch):

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

import operator
from typing import NamedTuple

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError
from .batching import refuse_batching, stacked_matrices
from ..opdef import no_gradient, one_output
from ..registry import Refused, set_attr
from ..tensor import Tensor, lift, stack_of
from ..shape import broadcast_shapes, defop, size_of
from ..symbol import error_at, make_node
from . import creation, elementwise, movement, reduction
from .building import remembered
from .products import (_build, _check_axis, _col, _eye, _ftype, _int_param, _keep, _matrices, _mT, _nodes,
                       _probe, _row, _scalar_param, _square, _sum_to, _sym, _wants, _axis, matmul)
from .products import (  # noqa: F401  (numpy.linalg's names: fgraph.numpy.linalg takes them from here)
    cross, diagonal, matrix_transpose, multi_dot, outer, tensordot, trace, vecdot)

__all__: list[str] = []  # the main-namespace names are the products family's

LINALG_ALL = ["det", "slogdet", "inv", "solve", "cholesky", "eigh", "eigvalsh", "eig", "eigvals", "qr", "svd",
              "svdvals", "pinv", "matrix_power", "matrix_rank", "norm", "vector_norm", "matrix_norm", "cond",
              "multi_dot", "tensorinv", "tensorsolve", "lstsq", "LinAlgError"]

LinAlgError = np.linalg.LinAlgError
la = np.linalg  # the kernels read NumPy's functions through it when they run


_COMPLEX = Refused("complex results: gradients are for real floating dtypes only")


# ---------------------------------------------------------------- numpy.linalg: results

class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class EigResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def _outputs(op: str, a, params: tuple, n: int):
    (x,), st = _nodes((a,))
    return [Tensor(make_node(op, (x,), params + (("output", k),)), st) for k in range(n)]


# ---------------------------------------------------------------- numpy.linalg: square matrices

def _det_rule(inputs):
    """numpy.linalg.det: (..., n, n) -> (...)."""
    (a,) = inputs
    _square(a)
    return a.shape[:-2], _probe(np.linalg.det, inputs)


def _slogdet_rule(inputs, output):
    """numpy.linalg.slogdet: (sign, logabsdet), each (...)."""
    (a,) = inputs
    _square(a)
    return a.shape[:-2], _probe(np.linalg.slogdet, inputs, output=output)


def _inv_rule(inputs):
    """numpy.linalg.inv: (..., n, n) -> (..., n, n)."""
    (a,) = inputs
    _square(a)
    return a.shape, _probe(np.linalg.inv, inputs)


def _cholesky_rule(inputs, upper=False):
    """numpy.linalg.cholesky: (..., n, n) -> (..., n, n)."""
    (a,) = inputs
    _square(a)
    return a.shape, _probe(np.linalg.cholesky, inputs, upper=upper)


def _uplo(UPLO, op):
    u = str(UPLO).upper()
    if u not in ("L", "U"):
        raise error_at(ShapeError, op, f"UPLO argument must be 'L' or 'U', got {UPLO!r}")
    return u


def _eigh_rule(inputs, UPLO="L", output=0):
    """numpy.linalg.eigh: eigenvalues (..., n) real, eigenvectors (..., n, n)."""
    (a,) = inputs
    _square(a)
    return a.shape[:-1] if output == 0 else a.shape, _probe(np.linalg.eigh, inputs, output=output, UPLO=UPLO)


def _eigvalsh_rule(inputs, UPLO="L"):
    """numpy.linalg.eigvalsh: (..., n, n) -> (..., n) real."""
    (a,) = inputs
    _square(a)
    return a.shape[:-1], _probe(np.linalg.eigvalsh, inputs, UPLO=UPLO)


def _eig_rule(inputs, output=None):
    """numpy.linalg.eig/eigvals on complex input (the only static dtype case)."""
    (a,) = inputs
    _square(a)
    if a.dtype.kind != "c":
        raise DTypeError(f"eig of a real ({a.dtype}) matrix is real or complex depending on the values, which a "
                         "graph over placeholders or variables (fgraph.jit, grad) cannot know; convert first, e.g. "
                         "a.astype(complex)")
    return a.shape[:-1] if output in (0, None) else a.shape, a.dtype


def _matrix_power_rule(inputs, n):
    """numpy.linalg.matrix_power: same shape; negative powers invert."""
    (a,) = inputs
    _square(a)
    return a.shape, _probe(np.linalg.matrix_power, inputs, n=n)



def _inv_vjp(x, gx):
    """Cotangent of a from that of x = inv(a)."""
    xt = _mT(x)
    return -matmul(matmul(xt, gx), xt)


def _inv_grad(out, ins, g):
    return _inv_vjp(out, g),


def _det_grad(out, ins, g):
    (a,) = ins
    return movement.reshape(g * out, g.shape + (1, 1)) * _mT(inv(a)),


def _slogdet_grad(out, ins, g, output):
    (a,) = ins
    if output == 0:  # the sign: piecewise constant
        return None,
    return movement.reshape(g, g.shape + (1, 1)) * _mT(inv(a)),


def _solve_right(x, l):
    """x @ inv(l), by a solve (l is triangular where it is used; any invertible l works)."""
    return _mT(solve(_mT(l), _mT(x)))


def _cholesky_grad(out, ins, g, upper=False):
    """a = l @ l.T: with P = l.T @ gl, its lower triangle with the diagonal
    halved, gA = sym(inv(l).T @ P @ inv(l))."""
    l, gl = (_mT(out), _mT(g)) if upper else (out, g)
    n = l.shape[-1]
    dt = _ftype(l, g)
    mask = creation.tri(n, dtype=dt) - 0.5 * _eye(n, dtype=dt)
    p = matmul(_mT(l), gl) * mask
    s = solve(_mT(l), p)  # inv(l).T @ P
    return _sym(_solve_right(s, l)),


def _eigvals_vjp(v, gw):
    """Cotangent of a symmetric a from that of its eigenvalues: V diag(gw) V.T."""
    return matmul(v * _row(gw), _mT(v))


def _eigvecs_vjp(w, v, gv):
    """V (F * (V.T gV)) V.T with F[i, j] = 1 / (w[j] - w[i]) off the diagonal, symmetrised."""
    n = w.shape[-1]
    eye = _eye(n, dtype=_ftype(w, gv))
    f = (1.0 - eye) / (_row(w) - _col(w) + eye)
    inner = f * matmul(_mT(v), gv)
    return _sym(matmul(matmul(v, inner), _mT(v)))


def _eigh_grad(out, ins, g, UPLO="L", output=0):
    (a,) = ins
    w, v = eigh(a, UPLO)
    return (_eigvals_vjp(v, g) if output == 0 else _eigvecs_vjp(w, v, g)),


def _eigvalsh_grad(out, ins, g, UPLO="L"):
    (a,) = ins
    return _eigvals_vjp(eigh(a, UPLO).eigenvectors, g),


def _mpow_vjp(a, g, n):
    """Cotangent of a from that of a**n (n >= 1): sum_k (a.T)**k g (a.T)**(n-1-k)."""
    at = _mT(a)
    powers = [None, at]  # powers[k] = a.T ** k (None: the identity)
    for _ in range(2, n):
        powers.append(matmul(powers[-1], at))
    total = None
    for k in range(n):
        term = g if powers[k] is None else matmul(powers[k], g)
        if powers[n - 1 - k] is not None:
            term = matmul(term, powers[n - 1 - k])
        total = term if total is None else total + term
    return total


def _matrix_power_grad(out, ins, g, n):
    (a,) = ins
    if n == 0:  # the identity: constant
        return None,
    if n > 0:
        return _mpow_vjp(a, g, n),
    x = inv(a)
    return _inv_vjp(x, _mpow_vjp(x, g, -n)),


defop("det", _det_rule, kernel=la.det, grad=_det_grad)
defop("slogdet", _slogdet_rule, kernel_all=la.slogdet, kernel=one_output(la.slogdet), grad=_slogdet_grad)
defop("inv", _inv_rule, kernel=la.inv, grad=_inv_grad, may_raise=True)
defop("cholesky", _cholesky_rule, kernel=lambda a, upper: la.cholesky(a, upper=upper), grad=_cholesky_grad,
      may_raise=True)
defop("eigh", _eigh_rule, kernel_all=lambda a, UPLO: la.eigh(a, UPLO),
      kernel=one_output(lambda a, UPLO: la.eigh(a, UPLO)), grad=_eigh_grad, may_raise=True)
defop("eigvalsh", _eigvalsh_rule, kernel=lambda a, UPLO: la.eigvalsh(a, UPLO), grad=_eigvalsh_grad, may_raise=True)
defop("eig", _eig_rule, kernel_all=lambda a: la.eig(a), kernel=one_output(lambda a: la.eig(a)), grad=_COMPLEX,
      may_raise=True)
defop("eigvals", _eig_rule, kernel=lambda a: la.eigvals(a), grad=_COMPLEX, may_raise=True)
defop("matrix_power", _matrix_power_rule, kernel=lambda a, n: la.matrix_power(a, n), grad=_matrix_power_grad,
      may_raise=True)


def det(a):
    """Lazy ``numpy.linalg.det``."""
    return _build("det", (a,))


def slogdet(a):
    """Lazy ``numpy.linalg.slogdet``: ``SlogdetResult(sign, logabsdet)``."""
    return SlogdetResult(*_outputs("slogdet", a, (), 2))


def inv(a):
    """Lazy ``numpy.linalg.inv`` (a singular matrix raises when evaluated)."""
    return _build("inv", (a,))


def cholesky(a, /, *, upper=False):
    """Lazy ``numpy.linalg.cholesky``: lower (or ``upper=True``) factor."""
    return _build("cholesky", (a,), (("upper", bool(upper)),))


def eigh(a, UPLO="L"):
    """Lazy ``numpy.linalg.eigh``: ``EighResult(eigenvalues, eigenvectors)``."""
    return EighResult(*_outputs("eigh", a, (("UPLO", _uplo(UPLO, "eigh")),), 2))


def eigvalsh(a, UPLO="L"):
    """Lazy ``numpy.linalg.eigvalsh``."""
    return _build("eigvalsh", (a,), (("UPLO", _uplo(UPLO, "eigvalsh")),))


def _eig_now(op: str, a):
    """NumPy's ``eig``/``eigvals`` of a real (or integer) matrix known now,
    as constants; None for a complex matrix (a lazy op: its dtype is known)
    or one under tracing (the op, whose rule refuses it).

    A real matrix's eigenvalues are real or complex depending on the
    values, so outside tracing the matrix is evaluated, an evaluation point
    as printing is (``concrete_value``, as the data-dependent functions do)."""
    from ..errors import also
    from ..tensor import constant_node
    from .indexing import concrete_value

    (x,), st = _nodes((a,))
    if x.dtype.kind == "c" or not x.concrete:
        return None
    try:
        _square(x)
    except FgraphError as e:
        raise error_at(type(e), op, str(e)) from None
    value = concrete_value(x, st, op, f"numpy.linalg.{op} of a real matrix is real or complex depending on the "
                                      "values", "convert first, e.g. a.astype(complex)", what="dtype")
    try:
        result = getattr(np.linalg, op)(value)
    except (LinAlgError, ValueError, TypeError) as e:
        raise error_at(also(type(e)), op, str(e)) from None
    if op == "eigvals":
        return Tensor(constant_node(result), st)
    return EigResult(*(Tensor(constant_node(r), st) for r in result))


def eig(a):
    """Lazy ``numpy.linalg.eig``.  A real matrix's result dtype depends on
    its values: outside tracing it is evaluated and NumPy's result returned
    as constants; under tracing it is refused with a hint (convert to
    complex first).  A complex matrix is a lazy op."""
    now = _eig_now("eig", a)
    return now if now is not None else EigResult(*_outputs("eig", a, (), 2))


def eigvals(a):
    """Lazy ``numpy.linalg.eigvals`` (a real matrix: see ``eig``)."""
    now = _eig_now("eigvals", a)
    return now if now is not None else _build("eigvals", (a,))


def matrix_power(a, n):
    """Lazy ``numpy.linalg.matrix_power``."""
    try:
        n = operator.index(n)
    except TypeError:
        raise error_at(DTypeError, "matrix_power", "exponent must be an integer") from None
    return _build("matrix_power", (a,), (("n", n),))


# ---------------------------------------------------------------- numpy.linalg: solvers, decompositions

def _solve_rule(inputs):
    """numpy.linalg.solve: b is a vector only when 1-D (NumPy 2), else (..., m, k)."""
    a, b = inputs
    _square(a)
    m = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != m:
            raise ShapeError(f"a of shape {a.shape} needs b with {m} rows, got shape {b.shape}")
        shape = a.shape[:-1]
    else:
        if b.ndim == 0 or b.shape[-2] != m:
            raise ShapeError(f"a of shape {a.shape} needs b of shape (..., {m}, k) or ({m},), got shape {b.shape}")
        shape = broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:]
    return shape, _probe(np.linalg.solve, inputs, shapes=((1, 1), (1,) * max(b.ndim, 1)))


def _solve_grad(out, ins, g):
    a, b = ins
    at = _mT(a)
    if b.ndim == 1:  # x = solve(a, b) is (..., m): a stack of vectors
        gb = movement.reshape(solve(at, _col(g)), g.shape)
        ga = -_col(gb) * _row(out)
    else:
        gb = solve(at, g)
        ga = -matmul(gb, _mT(out))
    return (_sum_to(ga, a.shape) if _wants(a) else None), (_sum_to(gb, b.shape) if _wants(b) else None)


defop("solve", _solve_rule, kernel=la.solve, grad=_solve_grad, may_raise=True)


def solve(a, b):
    """Lazy ``numpy.linalg.solve``."""
    return _build("solve", (a, b))


_QR_MODES = ("reduced", "complete", "r", "raw")


def _qr_rule(inputs, mode="reduced", output=None):
    """numpy.linalg.qr: Q and R for reduced/complete, R for 'r', (h, tau) for 'raw'."""
    (a,) = inputs
    _matrices(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    shapes = {"reduced": [(m, k), (k, n)], "complete": [(m, m), (m, n)], "r": [(k, n)], "raw": [(n, m), (k,)]}
    shape = shapes[mode][output or 0]
    return batch + shape, _probe(np.linalg.qr, inputs, output=output, mode=mode)


def _qr_grad(out, ins, g, mode="reduced", output=None):
    """For m >= n (the formula of TensorFlow's QrGrad), with one of gQ, gR zero:
    M = tril(Q.T gQ - gQ.T Q + R gR.T - gR R.T),
    gA = Q (gR + M R^-T) + (gQ - Q Q.T gQ) R^-T."""
    (a,) = ins
    m, n = a.shape[-2:]
    if mode == "raw" or m < n or (mode == "complete" and m != n):
        raise error_at(FgraphError, "grad", f"qr: the gradient is defined for m >= n with mode 'reduced' or 'r' "
                                            f"(or square 'complete'), got shape {a.shape} and mode {mode!r}")
    q, r = qr(a, mode="reduced")
    lower_mask = creation.tri(n, dtype=_ftype(a, g))  # tril as a product, so it differentiates
    gq, gr = (g, None) if output == 0 else (None, g)
    if gr is not None:
        rdr = matmul(r, _mT(gr))
        lower = (rdr - _mT(rdr)) * lower_mask
        return matmul(q, gr + _solve_right(lower, _mT(r))),
    qdq = matmul(_mT(q), gq)
    lower = (qdq - _mT(qdq)) * lower_mask
    return (matmul(q, _solve_right(lower, _mT(r)))
            + _solve_right(gq - matmul(q, qdq), _mT(r))),


defop("qr", _qr_rule, kernel_all=lambda a, mode: la.qr(a, mode=mode),
      kernel=one_output(lambda a, mode: la.qr(a, mode=mode)), grad=_qr_grad, may_raise=True)


def qr(a, mode="reduced"):
    """Lazy ``numpy.linalg.qr``: ``QRResult(Q, R)``; mode 'r' gives R alone
    and 'raw' the pair (h, tau), as in NumPy."""
    if mode not in _QR_MODES:
        raise error_at(ShapeError, "qr", f"unrecognized mode {mode!r}; use one of {_QR_MODES}")
    if mode == "r":
        return _build("qr", (a,), (("mode", mode),))
    outs = _outputs("qr", a, (("mode", mode),), 2)
    return tuple(outs) if mode == "raw" else QRResult(*outs)


def _svd_rule(inputs, full_matrices=True, compute_uv=True, hermitian=False, output=None):
    """numpy.linalg.svd: U, S, Vh (or S alone without compute_uv)."""
    (a,) = inputs
    _matrices(a)
    if hermitian:
        _square(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    if not compute_uv:
        core = (k,)
    else:
        core = [(m, m) if full_matrices else (m, k), (k,), (n, n) if full_matrices else (k, n)][output]
    return a.shape[:-2] + core, _probe(np.linalg.svd, inputs, output=output, full_matrices=full_matrices,
                                       compute_uv=compute_uv, hermitian=hermitian)


def _svd_vjp(a, u, s, vh, gs=None, gu=None, gvh=None):
    """Cotangent of a from those of the reduced SVD a = u diag(s) vh (the
    transpose of JAX's svd JVP)."""
    m, n = a.shape[-2:]
    if gu is None and gvh is None:
        return matmul(u * _row(gs), vh)
    k = s.shape[-1]
    dt = _ftype(a, s)
    eye = _eye(k, dtype=dt)
    s_row, s_col = _row(s), _col(s)
    f = (1.0 - eye) / ((s_row + s_col) * (s_row - s_col) + eye)  # 1 / (s_j**2 - s_i**2)
    v = _mT(vh)
    core = None if gs is None else eye * _row(gs)
    extra = None
    if gu is not None:
        j = f * matmul(_mT(u), gu)
        t = matmul(j + _mT(j), eye * s_row)  # (J + J.T) S
        core = t if core is None else core + t
        if m > n:  # (I - U U.T) gU S^-1 V.T
            r = gu - matmul(u, matmul(_mT(u), gu))
            extra = matmul(r / s_row, vh)
    if gvh is not None:
        gv = _mT(gvh)
        kk = f * matmul(vh, gv)
        t = matmul(eye * s_row, kk + _mT(kk))  # S (K + K.T)
        core = t if core is None else core + t
        if n > m:  # U S^-1 gV.T (I - V V.T)
            r = gvh - matmul(matmul(gvh, v), vh)
            e = matmul(u / s_row, r)
            extra = e if extra is None else extra + e
    ga = matmul(matmul(u, core), vh)
    return ga if extra is None else ga + extra


def _svd_grad(out, ins, g, full_matrices=True, compute_uv=True, hermitian=False, output=None):
    (a,) = ins
    m, n = a.shape[-2:]
    if output in (0, 2) and full_matrices and m != n:
        raise error_at(FgraphError, "grad", "svd: the gradient of U or Vh with full_matrices=True is only "
                                            "defined for square matrices; use full_matrices=False")
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    kind = {None: "gs", 1: "gs", 0: "gu", 2: "gvh"}[output if compute_uv else None]
    ga = _svd_vjp(a, u, s, vh, **{kind: g})
    return (_sym(ga) if hermitian else ga),


defop("svd", _svd_rule, kernel_all=lambda a, **p: la.svd(a, **p), kernel=one_output(lambda a, **p: la.svd(a, **p)),
      grad=_svd_grad, may_raise=True)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """Lazy ``numpy.linalg.svd``: ``SVDResult(U, S, Vh)``, or S alone."""
    params = (("full_matrices", bool(full_matrices)), ("compute_uv", bool(compute_uv)),
              ("hermitian", bool(hermitian)))
    if not compute_uv:
        return _build("svd", (a,), params)
    return SVDResult(*_outputs("svd", a, params, 3))


def svdvals(x, /):
    """Lazy ``numpy.linalg.svdvals``: the singular values."""
    return svd(x, compute_uv=False)


def _pinv_rule(inputs, rcond=None, hermitian=False, **rtol):
    """numpy.linalg.pinv: (..., m, n) -> (..., n, m); ``rtol`` only if given.
    A second input holds per-matrix tolerances, of the batch shape (...)."""
    a = inputs[0]
    _matrices(a)
    if hermitian:
        _square(a)
    if len(inputs) > 1 and inputs[1].shape != a.shape[:-2]:
        raise ShapeError(f"the tolerances' shape {inputs[1].shape} is not the batch shape {a.shape[:-2]}")
    m, n = a.shape[-2:]
    if m * n == 0:  # NumPy returns an empty array of the input's own dtype
        return a.shape[:-2] + (n, m), a.dtype
    if len(inputs) > 1:  # pinv(a, tolerances): positional, NumPy's rcond
        return a.shape[:-2] + (n, m), _probe(np.linalg.pinv, inputs, hermitian=hermitian)
    return a.shape[:-2] + (n, m), _probe(np.linalg.pinv, inputs, rcond=rcond, hermitian=hermitian, **rtol)


def _pinv_grad(out, ins, g, rcond=None, hermitian=False, **rtol):
    """Golub and Pereyra's derivative of the pseudo-inverse (constant rank);
    per-matrix tolerances (a second input) get none."""
    a = ins[0]
    p, pt = out, _mT(out)
    m, n = a.shape[-2:]
    dt = _ftype(a, g)
    gt = _mT(g)
    q = _eye(m, dtype=dt) - matmul(a, p)  # I - A P
    r = _eye(n, dtype=dt) - matmul(p, a)  # I - P A
    ga = (-matmul(matmul(pt, g), pt)
          + matmul(matmul(q, gt), matmul(p, pt))
          + matmul(matmul(pt, p), matmul(gt, r)))
    return ((_sym(ga) if hermitian else ga),) + (None,) * (len(ins) - 1)


def _pinv_kernel(a, *tolerances, **params):
    if tolerances:  # per-matrix tolerances, of the batch shape (NumPy's rcond and rtol are one then)
        params = dict(params, rcond=tolerances[0])
    return la.pinv(a, **params)


defop("pinv", _pinv_rule, kernel=_pinv_kernel, grad=_pinv_grad, may_raise=True)

_NO_VALUE = object()  # NumPy's "rtol not given"


def _is_tolerance_array(value) -> bool:
    """A tolerance that is not one number: a lazy array, or array-like data with axes."""
    return isinstance(value, Tensor) or (value is not None and not isinstance(value, (bool, int, float))
                                         and np.ndim(value) > 0)


def pinv(a, rcond=None, hermitian=False, *, rtol=_NO_VALUE):
    """Lazy ``numpy.linalg.pinv``.  ``rcond``/``rtol`` may be an array (lazy
    or not) broadcastable to the stack's batch shape: one tolerance a matrix."""
    if rtol is not _NO_VALUE and rcond is not None:
        raise error_at(FgraphError, "pinv", "`rtol` and `rcond` can't be both set.")
    tol = rtol if rtol is not _NO_VALUE else rcond
    if _is_tolerance_array(tol):  # NumPy: rcond = rtol, then rcond[..., None] * max(s) per matrix
        x = a if isinstance(a, Tensor) else Tensor(lift(a, stack_of((a,))), stack_of((a,)))
        t = tol if isinstance(tol, Tensor) else Tensor(lift(np.asarray(tol), x.stack), x.stack)
        if x.ndim < 2:
            return _build("pinv", (x,), (("rcond", None), ("hermitian", bool(hermitian))))  # the rule says why
        try:
            t = movement.broadcast_to(t, x.shape[:-2])
        except ShapeError:
            raise error_at(ShapeError, "pinv", f"the tolerances' shape {t.shape} does not broadcast to the batch "
                                               f"shape {x.shape[:-2]} of {x.shape}") from None
        return _build("pinv", (x, t), (("rcond", None), ("hermitian", bool(hermitian))))
    params = (("rcond", _scalar_param(rcond, "pinv", "rcond")), ("hermitian", bool(hermitian)))
    if rtol is not _NO_VALUE:
        params += (("rtol", _scalar_param(rtol, "pinv", "rtol")),)
    return _build("pinv", (a,), params)


def _matrix_rank_rule(inputs, tol=None, hermitian=False, rtol=None):
    """numpy.linalg.matrix_rank: (..., m, n) -> (...) int; below 2-D, 0 or 1."""
    (a,) = inputs
    if a.ndim < 2:
        return (), np.dtype(np.int64)
    if hermitian:
        _square(a)
    return a.shape[:-2], _probe(np.linalg.matrix_rank, inputs, tol=tol, hermitian=hermitian, rtol=rtol)


defop("matrix_rank", _matrix_rank_rule, may_raise=True, grad=no_gradient,
      # below 2-D NumPy returns a Python int
      kernel=lambda a, tol, hermitian, rtol: np.asarray(la.matrix_rank(a, tol, hermitian, rtol=rtol)))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """Lazy ``numpy.linalg.matrix_rank`` (scalar ``tol``/``rtol`` only)."""
    if tol is not None and rtol is not None:
        raise error_at(FgraphError, "matrix_rank", "`tol` and `rtol` can't be both set.")
    params = (("tol", _scalar_param(tol, "matrix_rank", "tol")), ("hermitian", bool(hermitian)),
              ("rtol", _scalar_param(rtol, "matrix_rank", "rtol")))
    return _build("matrix_rank", (A,), params)


def _cond_rule(inputs, p=None):
    """numpy.linalg.cond: (..., m, n) -> (...); square unless p is None/2/-2."""
    (x,) = inputs
    _matrices(x)
    if p not in (None, 2, -2):
        _square(x)
    return x.shape[:-2], _probe(np.linalg.cond, inputs, p=p)




def cond(x, p=None):
    """Lazy ``numpy.linalg.cond``."""
    return _build("cond", (x,), (("p", p),))


# ---------------------------------------------------------------- numpy.linalg: norms

def _norm_rule(inputs, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: vector norm over one axis, matrix norm over two."""
    (x,) = inputs
    nd = x.ndim
    if axis is None:
        if ord is None:  # the 2-norm of the flattened array
            return (1,) * nd if keepdims else (), _probe(np.linalg.norm, inputs, keepdims=keepdims)
        if nd not in (1, 2):
            raise ShapeError(f"improper number of dimensions to norm: ord={ord!r} without axis needs a 1-D or "
                             f"2-D array, got shape {x.shape}")
        axis = tuple(range(nd))
    axes = tuple(_check_axis(a, nd) for a in axis)
    if len(axes) not in (1, 2):
        raise ShapeError(f"improper number of dimensions to norm: axis={axis!r}")
    if len(set(axes)) != len(axes):
        raise ShapeError(f"duplicate axes given: {axis!r}")
    shape = tuple(1 if k in axes else d for k, d in enumerate(x.shape) if keepdims or k not in axes)
    # the dtype depends on the dtype, ord and the number of axes only
    probe = _ProbeNode(x.dtype, len(axes))
    return shape, _probe(np.linalg.norm, (probe,), ord=ord, axis=0 if len(axes) == 1 else (0, 1))


class _ProbeNode:
    """A stand-in node (dtype and ndim) for a dtype probe."""

    __slots__ = ("dtype", "ndim")
    weak = False

    def __init__(self, dtype, ndim):
        self.dtype, self.ndim = dtype, ndim


def _is(ord, value) -> bool:
    return not isinstance(ord, str) and ord is not None and ord == value


def _vector_norm_vjp(x, out_k, g_k, ord, axes):
    """Cotangent of x from that of its vector norm over ``axes`` (out_k and
    g_k in keepdims form)."""
    if ord is None or _is(ord, 2):
        safe = elementwise.where(out_k == 0, 1.0, out_k)
        return g_k * x / safe  # 0 where the norm is 0
    if _is(ord, 0):  # a count of nonzeros
        return None
    if _is(ord, 1):
        return g_k * elementwise.sign(x)
    ax = elementwise.abs(x)
    if _is(ord, np.inf) or _is(ord, -np.inf):  # ties split equally
        hit = (ax == out_k).astype(_ftype(x))
        return g_k * elementwise.sign(x) * hit / reduction.sum(hit, axis=axes, keepdims=True)
    p = float(ord)
    safe = elementwise.where(out_k == 0, 1.0, out_k)
    ratio = elementwise.where(ax == 0, 1.0, ax / safe)
    d = elementwise.where(ax == 0, 0.0, elementwise.power(ratio, p - 1.0))  # |x|**(p-1) / norm**(p-1)
    return g_k * elementwise.sign(x) * d


def _matrix_norm_vjp(x, out_k, g_k, ord, axes):
    """Cotangent of x from that of its matrix norm over the axes (r, c)."""
    r, c = axes
    if ord is None or ord == "fro":
        return _vector_norm_vjp(x, out_k, g_k, None, axes)
    if ord == "nuc" or _is(ord, 2) or _is(ord, -2):
        xm = movement.moveaxis(x, (r, c), (-2, -1))
        gm = movement.moveaxis(g_k, (r, c), (-2, -1))  # batch + (1, 1)
        u, s, vh = svd(xm, full_matrices=False)
        k = s.shape[-1]
        if ord == "nuc":
            d = matmul(u, vh)
        else:  # the largest (2) or smallest (-2) singular pair
            pick = _eye(1, k, k=0 if _is(ord, 2) else k - 1, dtype=_ftype(x))
            d = matmul(u * pick, vh)
        return movement.moveaxis(gm * d, (-2, -1), (r, c))
    # 1 / -1: max / min column sum of |x|; inf / -inf: rows.  Ties split equally.
    within, across = (r, c) if _is(ord, 1) or _is(ord, -1) else (c, r)
    sums = reduction.sum(elementwise.abs(x), axis=within, keepdims=True)
    hit = (sums == out_k).astype(_ftype(x))
    return g_k * elementwise.sign(x) * hit / reduction.sum(hit, axis=across, keepdims=True)


def _norm_grad(out, ins, g, ord=None, axis=None, keepdims=False):
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


def _norm_kernel(x, ord, axis, keepdims):
    if ord is None and axis is None and type(x) is np.ndarray and x.dtype.kind == "f":
        # numpy.linalg.norm's own first case (a real array's 2-norm) as it writes it, without its
        # dispatch and tests: 0.4 of a small norm's 1.1 us
        ndim, x = x.ndim, x.ravel(order="K")
        ret = np.sqrt(x.dot(x))
        return ret.reshape(ndim * [1]) if keepdims else ret
    return la.norm(x, ord, axis, keepdims)


defop("norm", _norm_rule, kernel=_norm_kernel, grad=_norm_grad, may_raise=True)


def _norm_axis(axis, ndim):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(_axis(a, ndim) for a in axis)
    return (_axis(axis, ndim),)


#: norm's nodes by the lazy array's (shape, dtype, weak) and the arguments (``building.remembered``): a
#: loop's ``norm(x)`` makes its node at once, with the params the first call made (so their canonical form
#: and the kernel's keywords are remembered by that object): 1 us against 9
_NORMS: dict = {}


def norm(x, ord=None, axis=None, keepdims=False):
    """Lazy ``numpy.linalg.norm`` (NumPy's signature and rules)."""
    t = type(ord)
    # keyed with ord's type (2, 2.0 and True are equal keys); no float but the infinities (0.0 == -0.0)
    if type(x) is Tensor and type(keepdims) is bool and \
            (ord is None or t is int or t is str or (t is float and abs(ord) == np.inf)) and \
            (axis is None or type(axis) is int or (type(axis) is tuple and all(type(a) is int for a in axis))):
        n = x.node
        return remembered(_NORMS, (n.shape, n.dtype, n.weak, t, ord, axis, keepdims), n, x.stack, None,
                          _norm, x, ord, axis, keepdims)
    return _norm(x, ord, axis, keepdims)


def _norm(x, ord, axis, keepdims):
    (n,), st = _nodes((x,))
    params = (("ord", ord), ("axis", _norm_axis(axis, n.ndim)), ("keepdims", bool(keepdims)))
    return Tensor(make_node("norm", (n,), params), st)


def _vector_norm_rule(inputs, axis=None, keepdims=False, ord=2):
    """numpy.linalg.vector_norm: over any set of axes (flattened together)."""
    (x,) = inputs
    axes = tuple(range(x.ndim)) if axis is None else tuple(_check_axis(a, x.ndim) for a in axis)
    if len(set(axes)) != len(axes):
        raise ShapeError(f"repeated axis in {axis!r}")
    shape = tuple(1 if k in axes else d for k, d in enumerate(x.shape) if keepdims or k not in axes)
    return shape, _probe(np.linalg.vector_norm, (_ProbeNode(x.dtype, 1),), ord=ord)


def _vector_norm_grad(out, ins, g, axis=None, keepdims=False, ord=2):
    (x,) = ins
    axes = tuple(range(x.ndim)) if axis is None else axis
    out_k, g_k = (out, g) if keepdims else (_keep(out, x.shape, axes), _keep(g, x.shape, axes))
    return _vector_norm_vjp(x, out_k, g_k, ord, axes),


defop("vector_norm", _vector_norm_rule,
      kernel=lambda x, axis, keepdims, ord: la.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord),
      grad=_vector_norm_grad)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Lazy ``numpy.linalg.vector_norm``."""
    (n,), st = _nodes((x,))
    if axis is not None:  # an int and a 1-tuple give the same result
        axis = tuple(_axis(a, n.ndim) for a in axis) if isinstance(axis, (tuple, list)) else (_axis(axis, n.ndim),)
    params = (("axis", axis), ("keepdims", bool(keepdims)), ("ord", ord))
    return Tensor(make_node("vector_norm", (n,), params), st)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Lazy ``numpy.linalg.matrix_norm``: ``norm`` over the last two axes."""
    (n,), st = _nodes((x,))
    if n.ndim < 2:
        raise error_at(ShapeError, "matrix_norm", f"needs an array of at least two dimensions, got shape {n.shape}")
    return norm(Tensor(n, st), ord=ord, axis=(-2, -1), keepdims=keepdims)



# ---------------------------------------------------------------- cond (with the norms' cotangents)

def _cond_grad(out, ins, g, p=None):
    """None/2/-2: a ratio of singular values; else norm(x, p) * norm(inv(x), p)."""
    (x,) = ins
    if p is None or _is(p, 2) or _is(p, -2):
        u, s, vh = svd(x, full_matrices=False)
        k = s.shape[-1]
        dt = _ftype(x, g)
        big = movement.reshape(_eye(1, k, k=0, dtype=dt), (k,))  # one-hot vectors
        small = movement.reshape(_eye(1, k, k=k - 1, dtype=dt), (k,))
        top, bottom = (big, small) if p != -2 else (small, big)
        # cond = s_top / s_bottom
        st = reduction.sum(s * top, axis=-1)
        sb = reduction.sum(s * bottom, axis=-1)
        gs = _col(g / sb) * top - _col(g * st / (sb * sb)) * bottom
        return _svd_vjp(x, u, s, vh, gs=gs),
    axes = (x.ndim - 2, x.ndim - 1)
    xi = inv(x)
    n1 = _keep(norm(x, p, axis=(-2, -1)), x.shape, axes)
    n2 = _keep(norm(xi, p, axis=(-2, -1)), x.shape, axes)
    g_k = _keep(g, x.shape, axes)
    direct = _matrix_norm_vjp(x, n1, g_k * n2, p, axes)
    through_inv = _inv_vjp(xi, _matrix_norm_vjp(xi, n2, g_k * n1, p, axes))
    return direct + through_inv,


defop("cond", _cond_rule, kernel=lambda x, p: la.cond(x, p), grad=_cond_grad, may_raise=True)


# ---------------------------------------------------------------- numpy.linalg: tensor inverses, lstsq

def _tensorinv_rule(inputs, ind=2):
    """numpy.linalg.tensorinv: a.shape[ind:] + a.shape[:ind]."""
    (a,) = inputs
    if ind <= 0:
        raise ShapeError(f"invalid ind argument {ind}; it must be positive")
    rows = size_of(a.shape[ind:])
    if rows == 0 or a.size != rows * rows:
        raise ShapeError(f"tensorinv needs prod(a.shape[ind:]) == prod(a.shape[:ind]) (non-zero), got shape "
                         f"{a.shape} with ind={ind}")
    return a.shape[ind:] + a.shape[:ind], _probe(np.linalg.inv, (_ProbeNode(a.dtype, 2),))


def _tensorinv_grad(out, ins, g, ind=2):
    (a,) = ins
    rows = int(np.prod(a.shape[ind:], dtype=np.int64))
    x = movement.reshape(out, (rows, rows))
    return movement.reshape(_inv_vjp(x, movement.reshape(g, (rows, rows))), a.shape),


defop("tensorinv", _tensorinv_rule, kernel=lambda a, ind: la.tensorinv(a, ind), grad=_tensorinv_grad,
      may_raise=True)


def tensorinv(a, ind=2):
    """Lazy ``numpy.linalg.tensorinv``."""
    return _build("tensorinv", (a,), (("ind", _int_param(ind, "tensorinv", "ind")),))


def _tensorsolve_rule(inputs, axes=None):
    """numpy.linalg.tensorsolve: x with tensordot(a, x, x.ndim) == b."""
    a, b = inputs
    shape = a.shape
    if axes is not None:  # moved to the end, in order; NumPy takes non-negative axes only
        order = list(range(a.ndim))
        for k in axes:
            if k not in order:
                raise ShapeError(f"invalid axis {k!r} in axes={axes!r} for a of shape {a.shape}")
            order.remove(k)
            order.append(k)
        shape = tuple(shape[k] for k in order)
    x_shape = shape[-(a.ndim - b.ndim):]  # NumPy's own slice (whole shape when equal ndims)
    rows = size_of(x_shape)
    if a.size != rows * rows or b.size != rows:
        raise ShapeError(f"tensorsolve needs prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim]) == b.size, got "
                         f"shapes {a.shape} and {b.shape}")
    return x_shape, _probe(np.linalg.solve, inputs, shapes=((1, 1), (1,)))


def _tensorsolve_grad(out, ins, g, axes=None):
    """NumPy's reshapes undone around solve's gradient."""
    a, b = ins
    order = list(range(a.ndim))
    if axes is not None:
        for k in axes:
            order.remove(k)
            order.append(k)
    at = movement.transpose(a, order) if order != list(range(a.ndim)) else a
    rows = b.size
    mat = movement.reshape(at, (rows, rows))
    gb = solve(_mT(mat), movement.reshape(g, (rows,)))
    ga = -_col(gb) * movement.reshape(out, (1, rows))
    ga = movement.reshape(ga, at.shape)
    if at is not a:
        ga = movement.transpose(ga, list(np.argsort(order)))
    return ga, movement.reshape(gb, b.shape)


defop("tensorsolve", _tensorsolve_rule, kernel=lambda a, b, axes: la.tensorsolve(a, b, axes), grad=_tensorsolve_grad,
      may_raise=True)


def tensorsolve(a, b, axes=None):
    """Lazy ``numpy.linalg.tensorsolve``."""
    return _build("tensorsolve", (a, b), (("axes", None if axes is None else tuple(axes)),))


def _lstsq_rule(inputs, rcond, output):
    """numpy.linalg.lstsq: (M, N) and (M,) or (M, K) -> x, residuals, rank, s.
    The residuals are (K,) ((1,) for 1-D b) when M > N, and empty when
    M <= N; NumPy also empties them for a rank below N, which only the data
    tell: the kernel refuses that case where the graph runs."""
    a, b = inputs
    if a.ndim != 2:
        raise ShapeError(f"{a.ndim}-dimensional array given; a must be two-dimensional")
    if b.ndim not in (1, 2):
        raise ShapeError(f"b must be 1- or 2-dimensional, got {b.ndim} dimensions")
    m, n = a.shape
    if b.shape[0] != m:
        raise ShapeError(f"incompatible dimensions: a is {a.shape} and b is {b.shape}")
    k = 1 if b.ndim == 1 else b.shape[1]
    shape = [(n,) + b.shape[1:], (k if m > n else 0,), (), (min(m, n),)][output]
    return shape, _probe(np.linalg.lstsq, inputs, shapes=((2, 1), (2,) + (1,) * (b.ndim - 1)), output=output,
                         rcond=rcond)


def _lstsq_all(a, b, rcond):
    """lstsq's four results; the residuals an error where NumPy's are empty
    for a rank below N though the graph's shape is the full-rank one."""
    x, residuals, rank, s = la.lstsq(a, b, rcond=rcond)
    if a.shape[0] > a.shape[1] and rank < a.shape[1]:
        residuals = la.LinAlgError(f"lstsq: a {a.shape} has rank {rank} < {a.shape[1]}, so NumPy's residuals "
                                   "are empty, a shape the graph's static one cannot take (x, rank and s are fine)")
    return x, residuals, rank, s


defop("lstsq", _lstsq_rule, kernel_all=_lstsq_all, kernel=one_output(_lstsq_all), may_raise=True,
      grad=Refused("its rank-deficient and residual cases have no gradient rule here; differentiate "
                   "pinv(a) @ b instead"))


def lstsq(a, b, rcond=None):
    """Lazy ``numpy.linalg.lstsq``: ``(x, residuals, rank, s)``, NumPy's
    values.  The residuals' shape is static: (K,) when a has more rows than
    columns, so a rank-deficient ``a`` there (NumPy: empty residuals) raises
    where the residuals are computed; x, rank and s are always NumPy's."""
    (x, y), st = _nodes((a, b))
    params = (("rcond", _scalar_param(rcond, "lstsq", "rcond")),)
    # a plain tuple, as NumPy's (it has no named result for lstsq: print(np.linalg.lstsq(...)) shows a tuple)
    return tuple(Tensor(make_node("lstsq", (x, y), params + (("output", k),)), st) for k in range(4))

# ---------------------------------------------------------------- micro-batching

for _op in ("det", "slogdet", "inv", "cholesky", "eigh", "eigvalsh", "eig", "eigvals", "matrix_power", "qr", "svd",
            "cond"):
    set_attr(_op, "batch_rule", stacked_matrices)
refuse_batching(("solve", "lstsq", "norm", "vector_norm", "tensorinv", "tensorsolve", "pinv", "matrix_rank",
                 "multi_dot"),
                "not audited for micro-batching: operands broadcast against the stack in ways the batch rows may not "
                "survive")

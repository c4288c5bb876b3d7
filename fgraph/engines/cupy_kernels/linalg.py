"""Linear algebra on the CuPy engine.

Products and most of ``numpy.linalg`` dispatch (``np.linalg.inv(cupy_array)``
is ``cupy.linalg.inv``).  Kernels of their own where CuPy lacks an argument
(cholesky's ``upper``, svd's ``hermitian``, einsum's contraction path) or a
function (matvec, vecmat, vecdot, matrix_transpose, vector_norm, cond,
pinv's ``rtol``, matrix_rank's ``hermitian``/``rtol``), written with
NumPy's own formulas.  eig/eigvals need a CuPy that has ``linalg.eig``.
Decompositions are defined up to signs and phases: CuPy's (cuSOLVER's)
eigenvectors and singular vectors may differ from LAPACK's by those.
"""
import numpy as np

from ...ops.products import einsum_optimize_arg
from .support import cupy, dispatch, xp


def _inexact(m, a):
    """``a`` as NumPy's linalg computes: integers and bools as float64."""
    a = m.asarray(a)
    return a if a.dtype.kind in "fc" else a.astype(np.float64)


def _einsum(*operands, subscripts, optimize=False, **kwargs):
    m = xp()
    if m is np:  # NumPy's own plan (its unoptimised C einsum cannot broadcast some '...' forms)
        kwargs["optimize"] = einsum_optimize_arg(optimize)
    return m.einsum(subscripts, *operands, **kwargs)  # CuPy plans its own contraction


def _matrix_transpose(x):
    return xp().swapaxes(xp().asarray(x), -1, -2)


def _as(m, x, dtype):
    x = m.asarray(x)
    return x if dtype is None else x.astype(dtype)


def _conj(m, x):
    return m.conj(x) if x.dtype.kind == "c" else x  # conj of bool would make int8


def _vecdot(a, b, axes, dtype=None):
    m = xp()
    a = m.moveaxis(_as(m, a, dtype), axes[0], -1)
    b = m.moveaxis(_as(m, b, dtype), axes[1], -1)
    return m.matmul(_conj(m, a)[..., None, :], b[..., :, None])[..., 0, 0]


def _matvec(a, b, dtype=None):
    m = xp()
    return m.matmul(_as(m, a, dtype), _as(m, b, dtype)[..., None])[..., 0]


def _vecmat(a, b, dtype=None):
    m = xp()
    return m.matmul(_conj(m, _as(m, a, dtype))[..., None, :], _as(m, b, dtype))[..., 0, :]


def _cholesky(a, upper):
    m = xp()
    low = m.linalg.cholesky(_inexact(m, a))
    return m.conj(m.swapaxes(low, -1, -2)) if upper else low


def _svd(a, full_matrices, compute_uv, hermitian, output=None):
    m = xp()
    a = _inexact(m, a)
    if hermitian:  # NumPy's method: eigh, singular values sorted by magnitude, signs moved into vt
        if not compute_uv:
            return m.flip(m.sort(m.abs(m.linalg.eigvalsh(a)), axis=-1), axis=-1)
        w, u = m.linalg.eigh(a)
        sgn = m.sign(w)
        w = m.abs(w)
        order = m.flip(m.argsort(w, axis=-1), axis=-1)
        w = m.take_along_axis(w, order, axis=-1)
        u = m.take_along_axis(u, order[..., None, :], axis=-1)
        sgn = m.take_along_axis(sgn, order, axis=-1)
        vt = m.conj(m.swapaxes(u * sgn[..., None, :], -1, -2))
        r = (u, w, vt)
    else:
        r = m.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return r if output is None else r[output]


def _pinv(a, *tolerances, rcond=None, hermitian=False, **rtol):
    """NumPy's pinv: 1/s above rcond * max(s), through the SVD of conj(a)
    (``tolerances``: one per matrix, of the batch shape)."""
    m = xp()
    a = m.asarray(a)
    rows, cols = a.shape[-2:]
    if tolerances:
        rcond = m.asarray(tolerances[0])[..., None]
    elif rcond is None:
        if not rtol:
            rcond = 1e-15
        elif rtol["rtol"] is None:
            rcond = max(rows, cols) * np.finfo(a.dtype).eps  # raises for bool/int, as NumPy
        else:
            rcond = rtol["rtol"]
    if rows * cols == 0:  # NumPy: an empty array of the input's own dtype
        return m.empty(a.shape[:-2] + (cols, rows), a.dtype)
    u, s, vt = _svd(m.conj(_inexact(m, a)), False, True, hermitian)
    large = s > rcond * m.max(s, axis=-1, keepdims=True)
    s = m.where(large, 1 / m.where(large, s, 1), 0).astype(s.dtype)
    return m.matmul(m.swapaxes(vt, -1, -2), s[..., None] * m.swapaxes(u, -1, -2))


def _matrix_rank(a, tol, hermitian, rtol):
    m = xp()
    a = m.asarray(a)
    if a.ndim < 2:
        return m.asarray(int(not bool(m.all(a == 0))))
    s = m.linalg.svd(_inexact(m, a), compute_uv=False)
    if s.shape[-1] == 0:
        return m.zeros(s.shape[:-1], np.int64)
    if tol is None:
        if rtol is None:
            rtol = max(a.shape[-2:]) * np.finfo(s.dtype).eps
        limit = m.max(s, axis=-1, keepdims=True) * rtol
    else:
        limit = tol
    return m.sum(s > limit, axis=-1, dtype=np.int64)


def _cond(x, p):
    m = xp()
    x = _inexact(m, x)
    if x.shape[-1] * x.shape[-2] == 0:
        raise np.linalg.LinAlgError("cond is not defined on empty arrays")
    if p is None or p in (2, -2):
        s = m.linalg.svd(x, compute_uv=False)
        r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    else:
        wide = x.astype(np.result_type(x.dtype, np.float64))  # NumPy inverts in double
        r = m.linalg.norm(x, p, axis=(-2, -1)) * m.linalg.norm(m.linalg.inv(wide), p, axis=(-2, -1))
        r = r.astype(np.finfo(x.dtype).dtype)
    # NaN (a failed inversion) becomes inf unless x itself holds a NaN
    bad = m.isnan(r) & ~m.any(m.isnan(x), axis=(-2, -1))
    return m.where(bad, np.inf, r).astype(r.dtype)


def _vector_norm(x, axis, keepdims, ord):
    """numpy.linalg.vector_norm: the reduced axes flattened into one, then a vector norm."""
    m = xp()
    x = _inexact(m, x)
    shape = x.shape
    axes = tuple(range(x.ndim)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(a % max(x.ndim, 1) for a in axes)
    rest = tuple(i for i in range(x.ndim) if i not in axes)
    n = 1
    for a in axes:
        n *= shape[a]
    flat = m.transpose(x, axes + rest).reshape((n,) + tuple(shape[i] for i in rest))
    r = m.linalg.norm(flat, ord=ord, axis=0)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else d for i, d in enumerate(shape)))
    return r


def _chain_order(shapes) -> list:
    """NumPy's multi_dot order: the cheapest parenthesisation (matrix-chain
    dynamic programme; ties keep the first split, as NumPy's)."""
    n = len(shapes)
    p = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = float("inf")
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _multi_dot(*arrays):
    """numpy.linalg.multi_dot: 1-D ends as a row / column, dots in NumPy's order
    (which also decides where bool products are logical)."""
    m = xp()
    arrays = [m.asarray(a) for a in arrays]
    if len(arrays) == 2:
        return m.dot(*arrays)
    first, last = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first:
        arrays[0] = arrays[0][None, :]
    if last:
        arrays[-1] = arrays[-1][:, None]
    split = _chain_order([a.shape for a in arrays])

    def product(i, j):  # recursion over the few arrays given, not over graph nodes
        return arrays[i] if i == j else m.dot(product(i, split[i][j]), product(split[i][j] + 1, j))
    r = product(0, len(arrays) - 1)
    if first and last:
        return r[0, 0]
    return r[0] if first else r[:, 0] if last else r


def _la(name: str, note: str = ""):
    dispatch(name, note or f"np.linalg.{name} -> cupy.linalg.{name}", needs=(f"linalg.{name}",), out=False)


dispatch("matmul", "np.matmul(out=) -> cupy.matmul (cuBLAS)", needs=("matmul",))
dispatch("dot", "np.dot(out=) -> cupy.dot", needs=("dot",))
for _op in ("vdot", "inner", "outer", "tensordot", "kron", "trace", "diagonal", "cross"):
    dispatch(_op, f"np.{_op} -> cupy.{_op}", needs=(_op,), out=False)
cupy("einsum", _einsum, None, "xp.einsum without NumPy's contraction path", needs=("einsum",))
cupy("matrix_transpose", _matrix_transpose, None, "xp.swapaxes (a view)")
cupy("vecdot", _vecdot, None, "conj(a) @ b over the axis (matmul)")
cupy("matvec", _matvec, None, "a @ b[..., None]")
cupy("vecmat", _vecmat, None, "conj(a)[..., None, :] @ b")
for _op in ("det", "slogdet", "inv", "solve", "eigh", "eigvalsh", "matrix_power", "qr", "norm", "tensorinv",
            "tensorsolve", "lstsq"):
    _la(_op)
for _op in ("eig", "eigvals"):
    _la(_op, f"np.linalg.{_op} -> cupy.linalg.{_op}: unsupported on a CuPy without a general eigensolver")
cupy("cholesky", _cholesky, None, "lower factor, conj-transposed for upper=True", needs=("linalg.cholesky",))
cupy("svd", _svd, None, "xp.linalg.svd (hermitian= dropped: same decomposition)", needs=("linalg.svd",))
cupy("pinv", _pinv, None, "NumPy's formula over xp.linalg.svd (rcond/rtol as NumPy)", needs=("linalg.svd",))
cupy("matrix_rank", _matrix_rank, None, "count of singular values above NumPy's tolerance",
     needs=("linalg.svd",))
cupy("cond", _cond, None, "NumPy's formula: svd ratio, or norm(x) * norm(inv(x))", needs=("linalg.svd",))
cupy("vector_norm", _vector_norm, None, "reduced axes flattened, then xp.linalg.norm", needs=("linalg.norm",))
cupy("multi_dot", _multi_dot, None, "dot left to right (NumPy picks the cheapest order: same value up to "
     "rounding)")

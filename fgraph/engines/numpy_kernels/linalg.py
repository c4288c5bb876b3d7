"""NumPy kernels for the linalg ops: the NumPy functions themselves, so
results are bit-identical to NumPy's.  Multi-output ops pick one output.

The products that NumPy can write into a given buffer also have an out-form
(``numpy_out_kernel``) so the engine's arena needs no copy; ``diagonal``
and ``matrix_transpose`` return views (their ops say ``view=True``)."""
import warnings

import numpy as np

from ...ops.linalg import einsum_optimize_arg
from ...types import set_attr

la = np.linalg


def _einsum(*operands, subscripts, optimize=False, **kwargs):
    return np.einsum(subscripts, *operands, optimize=einsum_optimize_arg(optimize), **kwargs)


def _einsum_out(*operands, out, subscripts, optimize=False, **kwargs):
    return np.einsum(subscripts, *operands, out=out, optimize=einsum_optimize_arg(optimize), **kwargs)


def _cross(a, b, axisa, axisb, axisc):
    with warnings.catch_warnings():  # NumPy's 2-vector deprecation was raised when the node was made
        warnings.simplefilter("ignore", DeprecationWarning)
        return np.cross(a, b, axisa=axisa, axisb=axisb, axisc=axisc)


def _qr(a, mode, output=None):
    r = la.qr(a, mode=mode)
    return r if output is None else r[output]


def _svd(a, full_matrices, compute_uv, hermitian, output=None):
    r = la.svd(a, full_matrices=full_matrices, compute_uv=compute_uv, hermitian=hermitian)
    return r if output is None else r[output]


def _lstsq_all(a, b, rcond):
    """lstsq's four results; the residuals an error where NumPy's are empty
    for a rank below N though the graph's shape is the full-rank one."""
    x, residuals, rank, s = la.lstsq(a, b, rcond=rcond)
    if a.shape[0] > a.shape[1] and rank < a.shape[1]:
        residuals = la.LinAlgError(f"lstsq: a {a.shape} has rank {rank} < {a.shape[1]}, so NumPy's residuals "
                                   "are empty, a shape the graph's static one cannot take (x, rank and s are fine)")
    return x, residuals, rank, s


def _lstsq(a, b, rcond, output):
    r = _lstsq_all(a, b, rcond)[output]
    if isinstance(r, BaseException):
        raise r
    return r


def _pinv(a, **params):
    return la.pinv(a, **params)


def _eig(a, output):
    return la.eig(a)[output]


for _name, _kernel in {
    "matmul": lambda a, b, dtype=None: np.matmul(a, b, dtype=dtype),
    "dot": np.dot,
    "vdot": np.vdot,
    "inner": np.inner,
    "outer": np.outer,
    "tensordot": lambda a, b, axes: np.tensordot(a, b, axes=(list(axes[0]), list(axes[1]))),
    "einsum": _einsum,
    "trace": lambda a, offset, axis1, axis2, dtype=None: np.trace(a, offset, axis1, axis2, dtype),
    "diagonal": lambda a, offset, axis1, axis2: np.diagonal(a, offset, axis1, axis2),
    "matrix_transpose": np.matrix_transpose,
    "vecdot": lambda a, b, axes, dtype=None: np.vecdot(a, b, axes=[axes[:1], axes[1:], ()], dtype=dtype),
    "matvec": lambda a, b, dtype=None: np.matvec(a, b, dtype=dtype),
    "vecmat": lambda a, b, dtype=None: np.vecmat(a, b, dtype=dtype),
    "kron": np.kron,
    "cross": _cross,
    "det": la.det,
    "slogdet": lambda a, output: la.slogdet(a)[output],
    "inv": la.inv,
    "solve": la.solve,
    "cholesky": lambda a, upper: la.cholesky(a, upper=upper),
    "eigh": lambda a, UPLO, output: la.eigh(a, UPLO)[output],
    "eigvalsh": lambda a, UPLO: la.eigvalsh(a, UPLO),
    "eig": _eig,
    "eigvals": la.eigvals,
    "matrix_power": lambda a, n: la.matrix_power(a, n),
    "qr": _qr,
    "svd": _svd,
    "lstsq": _lstsq,
    "pinv": _pinv,
    # below 2-D NumPy returns a Python int
    "matrix_rank": lambda a, tol, hermitian, rtol: np.asarray(la.matrix_rank(a, tol, hermitian, rtol=rtol)),
    "cond": lambda x, p: la.cond(x, p),
    "norm": lambda x, ord, axis, keepdims: la.norm(x, ord, axis, keepdims),
    "vector_norm": lambda x, axis, keepdims, ord: la.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord),
    "multi_dot": lambda *arrays: la.multi_dot(list(arrays)),
    "tensorinv": lambda a, ind: la.tensorinv(a, ind),
    "tensorsolve": lambda a, b, axes: la.tensorsolve(a, b, axes),
}.items():
    set_attr(_name, "numpy_kernel", _kernel)

for _name, _kernel in {
    "matmul": lambda a, b, out, dtype=None: np.matmul(a, b, out=out, dtype=dtype),
    "dot": lambda a, b, out: np.dot(a, b, out=out),
    "einsum": _einsum_out,
    "vecdot": lambda a, b, out, axes, dtype=None: np.vecdot(a, b, out=out, axes=[axes[:1], axes[1:], ()],
                                                          dtype=dtype),
    "matvec": lambda a, b, out, dtype=None: np.matvec(a, b, out=out, dtype=dtype),
    "vecmat": lambda a, b, out, dtype=None: np.vecmat(a, b, out=out, dtype=dtype),
}.items():
    set_attr(_name, "numpy_out_kernel", _kernel)

# every output at once, for programs that use several of one computation's
# outputs (fgraph/engines/program.py: the decomposition runs once a run)
for _name, _all in {"svd": lambda a, **p: la.svd(a, **p), "qr": lambda a, mode: la.qr(a, mode=mode),
                    "slogdet": la.slogdet, "eigh": lambda a, UPLO: la.eigh(a, UPLO), "eig": la.eig,
                    "lstsq": _lstsq_all}.items():
    set_attr(_name, "numpy_kernel_all", _all)

"""NumPy kernels for the linalg ops: the NumPy functions themselves, so
results are bit-identical to NumPy's.  Multi-output ops pick one output.

The products that NumPy can write into a given buffer also have an out-form
(``numpy_out_kernel``) so the engine's arena needs no copy; ``diagonal``
and ``matrix_transpose`` return views (their ops say ``view=True``)."""
import warnings

import numpy as np

from ...ops.linalg import einsum_optimize_arg
from ...registry import set_attr
from ..program import picked

la = np.linalg


def _einsum(*operands, subscripts, optimize=False, **kwargs):
    return np.einsum(subscripts, *operands, optimize=einsum_optimize_arg(optimize), **kwargs)


def _einsum_out(*operands, out, subscripts, optimize=False, **kwargs):
    return np.einsum(subscripts, *operands, out=out, optimize=einsum_optimize_arg(optimize), **kwargs)


def _cross(a, b, axisa, axisb, axisc):
    with warnings.catch_warnings():  # NumPy's 2-vector deprecation was raised when the node was made
        warnings.simplefilter("ignore", DeprecationWarning)
        return np.cross(a, b, axisa=axisa, axisb=axisb, axisc=axisc)


def _lstsq_all(a, b, rcond):
    """lstsq's four results; the residuals an error where NumPy's are empty
    for a rank below N though the graph's shape is the full-rank one."""
    x, residuals, rank, s = la.lstsq(a, b, rcond=rcond)
    if a.shape[0] > a.shape[1] and rank < a.shape[1]:
        residuals = la.LinAlgError(f"lstsq: a {a.shape} has rank {rank} < {a.shape[1]}, so NumPy's residuals "
                                   "are empty, a shape the graph's static one cannot take (x, rank and s are fine)")
    return x, residuals, rank, s


#: the multi-output ops' kernels of every output at once; programs that use
#: several outputs of one computation run it once (engines/program.py), and
#: each output's own kernel picks from it (``output`` None: the one result)
_ALL = {"svd": lambda a, **p: la.svd(a, **p), "qr": lambda a, mode: la.qr(a, mode=mode), "slogdet": la.slogdet,
        "eigh": lambda a, UPLO: la.eigh(a, UPLO), "eig": la.eig, "lstsq": _lstsq_all}


def _one_output(compute):
    def kernel(*args, output=None, **params):
        return picked(compute(*args, **params), output)
    return kernel


def _pinv(a, *tolerances, **params):
    if tolerances:  # per-matrix tolerances, of the batch shape (NumPy's rcond and rtol are one then)
        params = dict(params, rcond=tolerances[0])
    return la.pinv(a, **params)


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
    "inv": la.inv,
    "solve": la.solve,
    "cholesky": lambda a, upper: la.cholesky(a, upper=upper),
    "eigvalsh": lambda a, UPLO: la.eigvalsh(a, UPLO),
    "eigvals": la.eigvals,
    "matrix_power": lambda a, n: la.matrix_power(a, n),
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

for _name, _all in _ALL.items():
    set_attr(_name, "numpy_kernel_all", _all)
    set_attr(_name, "numpy_kernel", _one_output(_all))

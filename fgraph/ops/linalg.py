"""Linear algebra: products (matmul, dot, einsum, ...), traces and diagonals,
and the ``numpy.linalg`` decompositions and solvers.

Shapes follow NumPy's rules and are checked when the node is made; the
result dtype is NumPy's own, found by running the NumPy function on
one-element stand-ins of the inputs (so int -> float64 for ``det``, float32
stays float32, and Python scalars count as NumPy counts them: ``dot``
converts them with ``asarray``, ``matmul`` refuses them).  Every kernel is
the NumPy function itself, so results are bit-identical to NumPy's.

Functions returning several arrays (``slogdet``, ``eigh``, ``qr``, ``svd``)
make one node per output with an ``output`` parameter, like ``divmod``.

The main-namespace names are in ``__all__``; the ``numpy.linalg`` names are
in ``LINALG_ALL`` and exposed as ``fgraph.numpy.linalg``.
"""
from __future__ import annotations

import operator
import string
import warnings
from collections import Counter
from typing import NamedTuple

import numpy as np

from ..errors import DTypeError, FgraphError, ShapeError
from ..tensor import Tensor, lift, stack_of
from ..shape import broadcast_shapes, defop, size_of, ufunc_dtypes
from ..symbol import error_at, make_node, refuse_out
from ..registry import set_attr

__all__ = ["matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum", "trace", "diagonal",
           "matrix_transpose", "vecdot", "matvec", "vecmat", "kron", "cross"]

LINALG_ALL = ["det", "slogdet", "inv", "solve", "cholesky", "eigh", "eigvalsh", "eig", "eigvals", "qr", "svd",
              "svdvals", "pinv", "matrix_power", "matrix_rank", "norm", "vector_norm", "matrix_norm", "cond",
              "multi_dot", "tensorinv", "tensorsolve", "lstsq", "LinAlgError"]

LinAlgError = np.linalg.LinAlgError


# ---------------------------------------------------------------- helpers

def _build(op: str, args, params: tuple = ()) -> Tensor:
    st = stack_of(args)
    return Tensor(make_node(op, [lift(a, st) for a in args], params), st)


def _nodes(args):
    st = stack_of(args)
    return [lift(a, st) for a in args], st


def _axis(axis, ndim: int):
    """A valid axis made non-negative (equal calls, equal params); an invalid
    one is passed through so the op's rule raises with the user's line."""
    try:
        axis = operator.index(axis)
    except TypeError:
        return axis
    return axis % ndim if ndim and -ndim <= axis < ndim else axis


def _check_axis(axis, ndim: int, what: str = "axis") -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise DTypeError(f"{what} must be an integer, got {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise ShapeError(f"{what} {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim


def _int_param(value, op: str, what: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise error_at(DTypeError, op, f"{what} must be an integer, got {type(value).__name__}") from None


def _scalar_param(value, op: str, what: str):
    """A tolerance-like parameter as a hashable Python scalar (arrays refused)."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:
        return value.item()
    raise error_at(FgraphError, op, f"{what} must be a scalar here (got {type(value).__name__}); "
                                    "a per-matrix array of tolerances is not supported")


_PROBES: dict = {}


def _probe(fn, inputs, shapes=None, output=None, **kwargs) -> np.dtype:
    """NumPy's result dtype: ``fn`` run on one-element stand-ins of the inputs.

    Dtypes do not depend on sizes (except where a rule says so), so an
    all-ones array of each input's dtype and ndim (or of ``shapes``) is
    enough; weak Python scalars are passed as the Python values they are.
    """
    key = (fn, tuple(n.params if n.weak else (n.dtype, n.ndim) for n in inputs), shapes, output,
           tuple(sorted(kwargs.items())))
    try:
        return _PROBES[key]
    except KeyError:
        pass
    args = [n.params[0][1].value if n.weak else
            np.ones(shapes[k] if shapes is not None else (1,) * n.ndim, n.dtype) for k, n in enumerate(inputs)]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = fn(*args, **kwargs)
    if output is not None:
        out = out[output]
    dtype = np.asarray(out).dtype
    if len(_PROBES) > 4096:
        _PROBES.clear()
    _PROBES[key] = dtype
    return dtype


def _matrices(x, what: str = "array") -> None:
    if x.ndim < 2:
        raise ShapeError(f"{x.ndim}-dimensional {what} given; it must be at least two-dimensional")


def _square(x) -> None:
    _matrices(x)
    if x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"last 2 dimensions of the array must be square, got shape {x.shape}")


# ---------------------------------------------------------------- products

def _matmul_rule(inputs, dtype=None):
    """numpy.matmul: 1-D operands promoted and squeezed; batch dims broadcast."""
    a, b = inputs
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("matmul does not take scalar (0-d) operands; use '*' instead")
    sa = a.shape if a.ndim > 1 else (1,) + a.shape
    sb = b.shape if b.ndim > 1 else b.shape + (1,)
    if sa[-1] != sb[-2]:
        raise ShapeError(f"shapes {a.shape} and {b.shape} are not aligned: {sa[-1]} (dim {a.ndim - 1}) != "
                         f"{sb[-2]} (dim {max(b.ndim - 2, 0)})")
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    shape = batch + sa[-2:-1] * (a.ndim > 1) + sb[-1:] * (b.ndim > 1)
    return shape, ufunc_dtypes(np.matmul, inputs, dtype)[2]


def _matmul_cost(inputs, params):
    shape, _ = _matmul_rule(inputs, **dict(params))
    return 2 * size_of(shape) * inputs[0].shape[-1]


defop("matmul", _matmul_rule, cost=_matmul_cost)


def matmul(x1, x2, /, out=None, *, dtype=None, **kwargs):
    """Lazy ``numpy.matmul`` (also ``a @ b``): NumPy's rules for 1-D operands,
    batch broadcasting and dtypes; mismatched inner dimensions raise
    ShapeError when the node is made."""
    refuse_out("matmul", out)
    _no_gufunc_kwargs("matmul", kwargs)
    return _build("matmul", (x1, x2), () if dtype is None else (("dtype", np.dtype(dtype)),))


def _no_gufunc_kwargs(op, kwargs):
    if kwargs:
        raise error_at(FgraphError, op, f"arguments {sorted(kwargs)} are not supported lazily")


def _dot_rule(inputs):
    """numpy.dot: scalar -> multiply; else sum over a's last and b's second-to-last axis."""
    a, b = inputs
    if a.ndim == 0 or b.ndim == 0:
        shape = b.shape if a.ndim == 0 else a.shape
    else:
        k = 0 if b.ndim == 1 else b.ndim - 2
        if a.shape[-1] != b.shape[k]:
            raise ShapeError(f"shapes {a.shape} and {b.shape} not aligned: {a.shape[-1]} (dim {a.ndim - 1}) != "
                             f"{b.shape[k]} (dim {k})")
        shape = a.shape[:-1] + b.shape[:k] + b.shape[k + 1:]
    return shape, _probe(np.dot, inputs)


def _dot_cost(inputs, params):
    shape, _ = _dot_rule(inputs)
    a, b = inputs
    return 2 * size_of(shape) * (a.shape[-1] if a.ndim and b.ndim else 1)


defop("dot", _dot_rule, cost=_dot_cost)


def dot(a, b, out=None):
    """Lazy ``numpy.dot`` (N-D rules: a's last axis with b's second-to-last)."""
    refuse_out("dot", out)
    return _build("dot", (a, b))


def _vdot_rule(inputs):
    """numpy.vdot: both flattened, conjugating the first; sizes must agree."""
    a, b = inputs
    if a.size != b.size:
        raise ShapeError(f"vdot needs inputs of equal size, got shapes {a.shape} ({a.size} elements) and "
                         f"{b.shape} ({b.size} elements)")
    return (), _probe(np.vdot, inputs, shapes=((1,), (1,)))


defop("vdot", _vdot_rule, cost=lambda inputs, params: 2 * inputs[0].size)


def vdot(a, b, /):
    """Lazy ``numpy.vdot``: the dot product of the flattened inputs, conj(a)."""
    return _build("vdot", (a, b))


def _inner_rule(inputs):
    """numpy.inner: sum over the last axes; scalar -> multiply."""
    a, b = inputs
    if a.ndim == 0 or b.ndim == 0:
        shape = b.shape if a.ndim == 0 else a.shape
    else:
        if a.shape[-1] != b.shape[-1]:
            raise ShapeError(f"shapes {a.shape} and {b.shape} not aligned: {a.shape[-1]} (dim {a.ndim - 1}) != "
                             f"{b.shape[-1]} (dim {b.ndim - 1})")
        shape = a.shape[:-1] + b.shape[:-1]
    return shape, _probe(np.inner, inputs)


def _inner_cost(inputs, params):
    shape, _ = _inner_rule(inputs)
    a, b = inputs
    return 2 * size_of(shape) * (a.shape[-1] if a.ndim and b.ndim else 1)


defop("inner", _inner_rule, cost=_inner_cost)


def inner(a, b, /):
    """Lazy ``numpy.inner``."""
    return _build("inner", (a, b))


def _outer_rule(inputs):
    """numpy.outer: (a.size, b.size), the inputs flattened."""
    a, b = inputs
    return (a.size, b.size), _probe(np.outer, inputs)


defop("outer", _outer_rule, cost=lambda inputs, params: inputs[0].size * inputs[1].size)


def outer(a, b, out=None):
    """Lazy ``numpy.outer`` (inputs are flattened)."""
    refuse_out("outer", out)
    return _build("outer", (a, b))


def _tensordot_axes(axes):
    """NumPy's reading of ``axes``: an int N or a pair of int/sequences."""
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        return list(range(-n, 0)), list(range(n))
    try:
        axes_a, axes_b = axes
    except (TypeError, ValueError):
        raise ShapeError(f"axes must be an integer or a pair of sequences of axes, got {axes!r}") from None
    out = []
    for ax in (axes_a, axes_b):
        try:
            ax = list(ax)
        except TypeError:
            ax = [ax]
        out.append(ax)
    return out


def _normalize_tensordot_axes(axes, nda: int, ndb: int):
    """Non-negative axis tuples when valid (else as given, for the rule to refuse)."""
    try:
        axes_a, axes_b = _tensordot_axes(axes)
    except ShapeError:
        return axes
    return tuple(_axis(x, nda) for x in axes_a), tuple(_axis(x, ndb) for x in axes_b)


def _tensordot_rule(inputs, axes):
    """numpy.tensordot: a's free axes then b's, summing over the paired axes."""
    a, b = inputs
    axes_a, axes_b = _tensordot_axes(axes)
    if len(axes_a) != len(axes_b):
        raise ShapeError(f"tensordot sums over pairs of axes, got {len(axes_a)} axes of a and {len(axes_b)} of b "
                         f"(shapes {a.shape} and {b.shape})")
    axes_a = [_check_axis(x, a.ndim, "axis of a") for x in axes_a]
    axes_b = [_check_axis(x, b.ndim, "axis of b") for x in axes_b]
    if len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
        raise ShapeError("duplicate axes are not allowed in tensordot")
    for i, j in zip(axes_a, axes_b):
        if a.shape[i] != b.shape[j]:
            raise ShapeError(f"shape-mismatch for sum: axis {i} of a {a.shape} has {a.shape[i]} elements, axis {j} "
                             f"of b {b.shape} has {b.shape[j]}")
    shape = tuple(d for k, d in enumerate(a.shape) if k not in axes_a) + \
        tuple(d for k, d in enumerate(b.shape) if k not in axes_b)
    return shape, _probe(np.tensordot, inputs, axes=(tuple(axes_a), tuple(axes_b)))


def _tensordot_cost(inputs, params):
    shape, _ = _tensordot_rule(inputs, **dict(params))
    a = inputs[0]
    summed = size_of(tuple(a.shape[i] for i in _tensordot_axes(dict(params)["axes"])[0]))
    return 2 * size_of(shape) * summed


defop("tensordot", _tensordot_rule, cost=_tensordot_cost)


def tensordot(a, b, axes=2):
    """Lazy ``numpy.tensordot``: ``axes`` is an int N (a's last N with b's
    first N) or a pair of axis sequences."""
    (na, nb), st = _nodes((a, b))
    axes = _normalize_tensordot_axes(axes, na.ndim, nb.ndim)
    return Tensor(make_node("tensordot", (na, nb), (("axes", _hashable(axes)),)), st)


def _hashable(x):
    if isinstance(x, (list, tuple)):
        return tuple(_hashable(e) for e in x)
    return x


# ---------------------------------------------------------------- einsum

def _einsum_term(term: str, where: str):
    """A term's labels before and after its ellipsis, and whether it has one."""
    if "." in term:
        if term.count(".") != 3 or "..." not in term:
            raise ShapeError(f"einstein sum subscripts string contains a '.' that is not part of an ellipsis "
                             f"('...') in {where}")
        head, tail = term.split("...")
        has_ellipsis = True
    else:
        head, tail, has_ellipsis = term, "", False
    for c in head + tail:
        if c not in string.ascii_letters:
            raise ShapeError(f"invalid subscript {c!r} in einstein sum subscripts string, subscripts must be letters")
    return head, tail, has_ellipsis


def _einsum_shape(subscripts: str, shapes, optimize=False) -> tuple:
    """Output shape of ``einsum(subscripts, *operands)``; NumPy's rules:
    implicit output (ellipsis dims, then labels seen once, sorted), repeated
    labels in one operand take a diagonal, size-1 dims broadcast across
    operands.  NumPy's optimizing path (``optimize`` not False) also sums
    broadcast dims away when an explicit output has no ellipsis."""
    lhs, arrow, rhs = subscripts.partition("->")
    if "->" in rhs or "-" in lhs or ">" in lhs:
        raise ShapeError("einstein sum subscript string does not contain proper '->' output specified")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        more = "more" if len(shapes) > len(terms) else "fewer"
        raise ShapeError(f"{more} operands provided to einstein sum function than specified in the subscripts "
                         f"string ({len(shapes)} operands, {len(terms)} terms)")
    sizes: dict[str, int] = {}
    counts: Counter = Counter()
    ellipsis_shapes = []
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        head, tail, has_ellipsis = _einsum_term(term, f"operand {k}")
        n = len(head) + len(tail)
        if n > len(shape) or (n < len(shape) and not has_ellipsis):
            raise ShapeError(f"einstein sum subscripts string {term!r} has {n} subscripts for operand {k} of "
                             f"shape {shape}")
        dims = shape[:len(head)] + shape[len(shape) - len(tail):]
        ellipsis_shapes.append(shape[len(head):len(shape) - len(tail)])
        local: dict[str, int] = {}
        for c, d in zip(head + tail, dims):
            if local.get(c, d) != d:
                raise ShapeError(f"dimensions in operand {k} for collapsing index {c!r} don't match "
                                 f"({local[c]} != {d})")
            local[c] = d
            counts[c] += 1
        for c, d in local.items():
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = d
            elif d != 1 and d != prev:
                raise ShapeError(f"operands could not be broadcast together: index {c!r} has size {prev} and "
                                 f"{d} (shapes {', '.join(map(str, shapes))})")
    ellipsis = broadcast_shapes(*ellipsis_shapes)
    if not arrow:
        return ellipsis + tuple(sizes[c] for c in sorted(c for c, n in counts.items() if n == 1))
    head, tail, has_ellipsis = _einsum_term(rhs, "the output")
    for c, n in Counter(head + tail).items():
        if n > 1:
            raise ShapeError(f"einstein sum subscripts string includes output subscript {c!r} multiple times")
        if c not in sizes:
            raise ShapeError(f"einstein sum subscripts string included output subscript {c!r} which never "
                             "appeared in an input")
    if ellipsis and not has_ellipsis and optimize is False:
        raise ShapeError("output has more dimensions than subscripts given in einstein sum, but no '...' "
                         "ellipsis provided to broadcast the extra dimensions.")
    return tuple(sizes[c] for c in head) + (ellipsis if has_ellipsis else ()) + tuple(sizes[c] for c in tail)


def _einsum_rule(inputs, subscripts, optimize=False, dtype=None, casting="safe"):
    """numpy.einsum on a subscripts string."""
    shape = _einsum_shape(subscripts, [n.shape for n in inputs], optimize)
    return shape, _probe(_einsum_probe, inputs, subscripts=subscripts, optimize=optimize, dtype=dtype,
                         casting=casting)


def _einsum_probe(*operands, subscripts, optimize, **kwargs):
    return np.einsum(subscripts, *operands, optimize=einsum_optimize_arg(optimize), **kwargs)


def einsum_optimize_arg(optimize):
    """The hashable ``optimize`` parameter back in the form NumPy takes."""
    if isinstance(optimize, tuple):  # an explicit path ['einsum_path', (0, 1), ...]
        return [optimize[0]] + [tuple(p) for p in optimize[1:]]
    return optimize


def _einsum_cost(inputs, params):
    """The naive loop's multiply-adds: one per operand at each point of the
    full index space (an upper bound on what ``optimize`` does)."""
    lhs = dict(params)["subscripts"].partition("->")[0].split(",")
    sizes: dict = {}
    ellipses = []
    for term, n in zip(lhs, inputs):
        head, _, tail = term.partition("...")
        dims = n.shape[:len(head)] + n.shape[n.ndim - len(tail):]
        ellipses.append(n.shape[len(head):n.ndim - len(tail)])
        for c, d in zip(head + tail, dims):
            sizes[c] = d if sizes.get(c, 1) == 1 else sizes[c]
    return len(inputs) * size_of(tuple(sizes.values())) * size_of(broadcast_shapes(*ellipses))


defop("einsum", _einsum_rule, cost=_einsum_cost)

# NumPy's letters for sublist integers 0..51 (both of its einsum paths)
_SYMBOLS = string.ascii_uppercase + string.ascii_lowercase


def _sublist_to_subscripts(sublist) -> str:
    out = []
    for s in sublist:
        if s is Ellipsis:
            out.append("...")
        else:
            try:
                s = operator.index(s)
            except TypeError:
                raise error_at(DTypeError, "einsum", f"subscript lists take integers and Ellipsis, got {s!r}"
                               ) from None
            if not 0 <= s < 52:
                raise error_at(ShapeError, "einsum", f"subscript {s} is not within the valid range [0, 52)")
            out.append(_SYMBOLS[s])
    return "".join(out)


def einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    """Lazy ``numpy.einsum``: a subscripts string (implicit or explicit
    output, ``...``, repeated indices for traces and diagonals) or the
    interleaved ``(op0, sublist0, op1, sublist1, ..., [sublistout])`` form.

    The kernel is ``numpy.einsum`` with the same ``optimize`` argument, so
    results equal NumPy's exactly.  ``order`` is accepted and ignored (the
    result's memory layout is the engine's business).
    """
    refuse_out("einsum", out)
    if not operands:
        raise error_at(FgraphError, "einsum", "no subscripts given")
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], operands[1:]
    else:  # interleaved sublists
        arrays = operands[0::2]
        terms = [_sublist_to_subscripts(s) for s in operands[1::2]]
        explicit = len(operands) % 2 == 1
        if explicit:
            arrays = arrays[:-1]
            subscripts = ",".join(terms) + "->" + _sublist_to_subscripts(operands[-1])
        else:
            subscripts = ",".join(terms)
    subscripts = subscripts.replace(" ", "")
    if isinstance(optimize, list):
        optimize = _hashable(optimize)
    elif optimize not in (True, False, "greedy", "optimal"):
        raise error_at(FgraphError, "einsum", f"optimize must be a bool, 'greedy', 'optimal' or an einsum_path "
                                              f"list, got {optimize!r}")
    params = (("subscripts", subscripts), ("optimize", optimize))
    if dtype is not None:
        params += (("dtype", np.dtype(dtype)),)
    if casting != "safe":
        params += (("casting", casting),)
    return _build("einsum", arrays, params)


# ---------------------------------------------------------------- trace, diagonal, transpose

def _diagonal_shape(a, offset, axis1, axis2):
    if a.ndim < 2:
        raise ShapeError(f"diag requires an array of at least two dimensions, got shape {a.shape}")
    i = _check_axis(axis1, a.ndim, "axis1")
    j = _check_axis(axis2, a.ndim, "axis2")
    if i == j:
        raise ShapeError("axis1 and axis2 cannot be the same")
    n1, n2 = a.shape[i], a.shape[j]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    return tuple(d for k, d in enumerate(a.shape) if k not in (i, j)), length


def _trace_rule(inputs, offset=0, axis1=0, axis2=1, dtype=None):
    """numpy.trace: sum of a diagonal; drops axis1 and axis2."""
    (a,) = inputs
    rest, _ = _diagonal_shape(a, offset, axis1, axis2)
    return rest, _probe(np.trace, inputs, dtype=dtype)


defop("trace", _trace_rule)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Lazy ``numpy.trace``."""
    refuse_out("trace", out)
    (x,), st = _nodes((a,))
    params = (("offset", _int_param(offset, "trace", "offset")), ("axis1", _axis(axis1, x.ndim)),
              ("axis2", _axis(axis2, x.ndim)))
    if dtype is not None:
        params += (("dtype", np.dtype(dtype)),)
    return Tensor(make_node("trace", (x,), params), st)


def _diagonal_rule(inputs, offset=0, axis1=0, axis2=1):
    """numpy.diagonal: drops axis1 and axis2, appends the diagonal."""
    (a,) = inputs
    rest, length = _diagonal_shape(a, offset, axis1, axis2)
    return rest + (length,), a.dtype


defop("diagonal", _diagonal_rule, view=True)  # the kernel returns a view of input 0


def diagonal(a, offset=0, axis1=0, axis2=1):
    """Lazy ``numpy.diagonal``."""
    (x,), st = _nodes((a,))
    params = (("offset", _int_param(offset, "diagonal", "offset")), ("axis1", _axis(axis1, x.ndim)),
              ("axis2", _axis(axis2, x.ndim)))
    return Tensor(make_node("diagonal", (x,), params), st)


def _matrix_transpose_rule(inputs):
    """numpy.matrix_transpose: swaps the last two axes."""
    (x,) = inputs
    if x.ndim < 2:
        raise ShapeError(f"input array must be at least 2-dimensional, but it is {x.ndim}")
    return x.shape[:-2] + (x.shape[-1], x.shape[-2]), x.dtype


defop("matrix_transpose", _matrix_transpose_rule, view=True)


def matrix_transpose(x, /):
    """Lazy ``numpy.matrix_transpose`` (also ``t.mT``)."""
    return _build("matrix_transpose", (x,))


# ---------------------------------------------------------------- gufunc products

def _vecdot_rule(inputs, axes=(-1, -1), dtype=None):
    """numpy.vecdot: (n),(n)->() over the vector axis of each operand; conj(x1)."""
    a, b = inputs
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("vecdot needs operands of at least one dimension")
    i = _check_axis(axes[0], a.ndim)
    j = _check_axis(axes[1], b.ndim)
    if a.shape[i] != b.shape[j]:
        raise ShapeError(f"vector axis {i} of {a.shape} has {a.shape[i]} elements, axis {j} of {b.shape} has "
                         f"{b.shape[j]}")
    shape = broadcast_shapes(a.shape[:i] + a.shape[i + 1:], b.shape[:j] + b.shape[j + 1:])
    return shape, ufunc_dtypes(np.vecdot, inputs, dtype)[2]


def _vecdot_cost(inputs, params):
    shape, _ = _vecdot_rule(inputs, **dict(params))
    return 2 * size_of(shape) * inputs[1].shape[dict(params)["axes"][1]]


defop("vecdot", _vecdot_rule, cost=_vecdot_cost)


def vecdot(x1, x2, /, out=None, *, axis=-1, dtype=None, **kwargs):
    """Lazy ``numpy.vecdot`` (the Array API's ``vecdot``): the dot product of
    vectors along ``axis``, conjugating ``x1``; other axes broadcast."""
    refuse_out("vecdot", out)
    _no_gufunc_kwargs("vecdot", kwargs)
    (a, b), st = _nodes((x1, x2))
    axis = _int_param(axis, "vecdot", "axis")
    # NumPy reads a gufunc's axis in each operand separately (its axes= form)
    params = (("axes", (_axis(axis, a.ndim), _axis(axis, b.ndim))),)
    if dtype is not None:
        params += (("dtype", np.dtype(dtype)),)
    return Tensor(make_node("vecdot", (a, b), params), st)


def _matvec_rule(inputs, dtype=None):
    """numpy.matvec: (m,n),(n)->(m); batch dims broadcast."""
    a, b = inputs
    if a.ndim < 2 or b.ndim < 1:
        raise ShapeError(f"matvec needs a stack of matrices and a stack of vectors, got shapes {a.shape} and {b.shape}")
    if a.shape[-1] != b.shape[-1]:
        raise ShapeError(f"shapes {a.shape} and {b.shape} are not aligned: {a.shape[-1]} != {b.shape[-1]}")
    return broadcast_shapes(a.shape[:-2], b.shape[:-1]) + a.shape[-2:-1], ufunc_dtypes(np.matvec, inputs, dtype)[2]


def _vecmat_rule(inputs, dtype=None):
    """numpy.vecmat: (n),(n,m)->(m), conjugating the vector; batch dims broadcast."""
    a, b = inputs
    if a.ndim < 1 or b.ndim < 2:
        raise ShapeError(f"vecmat needs a stack of vectors and a stack of matrices, got shapes {a.shape} and {b.shape}")
    if a.shape[-1] != b.shape[-2]:
        raise ShapeError(f"shapes {a.shape} and {b.shape} are not aligned: {a.shape[-1]} != {b.shape[-2]}")
    return broadcast_shapes(a.shape[:-1], b.shape[:-2]) + b.shape[-1:], ufunc_dtypes(np.vecmat, inputs, dtype)[2]


defop("matvec", _matvec_rule,
      cost=lambda inputs, params: 2 * size_of(_matvec_rule(inputs)[0]) * inputs[0].shape[-1])
defop("vecmat", _vecmat_rule,
      cost=lambda inputs, params: 2 * size_of(_vecmat_rule(inputs)[0]) * inputs[0].shape[-1])


def matvec(x1, x2, /, out=None, *, dtype=None, **kwargs):
    """Lazy ``numpy.matvec``: matrix-vector products over stacks."""
    refuse_out("matvec", out)
    _no_gufunc_kwargs("matvec", kwargs)
    return _build("matvec", (x1, x2), () if dtype is None else (("dtype", np.dtype(dtype)),))


def vecmat(x1, x2, /, out=None, *, dtype=None, **kwargs):
    """Lazy ``numpy.vecmat``: vector-matrix products over stacks, conj(x1)."""
    refuse_out("vecmat", out)
    _no_gufunc_kwargs("vecmat", kwargs)
    return _build("vecmat", (x1, x2), () if dtype is None else (("dtype", np.dtype(dtype)),))


def _kron_rule(inputs):
    """numpy.kron: shapes padded to the same ndim, then multiplied."""
    a, b = inputs
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + a.shape
    sb = (1,) * (n - b.ndim) + b.shape
    return tuple(x * y for x, y in zip(sa, sb)), _probe(np.kron, inputs)


defop("kron", _kron_rule, cost=lambda inputs, params: inputs[0].size * inputs[1].size)


def kron(a, b):
    """Lazy ``numpy.kron``."""
    return _build("kron", (a, b))


def _cross_rule(inputs, axisa=-1, axisb=-1, axisc=-1):
    """numpy.cross: vectors of 2 or 3 elements along axisa/axisb."""
    a, b = inputs
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("cross needs operands of at least one dimension")
    i = _check_axis(axisa, a.ndim, "axisa")
    j = _check_axis(axisb, b.ndim, "axisb")
    na, nb = a.shape[i], b.shape[j]
    if na not in (2, 3) or nb not in (2, 3):
        raise ShapeError(f"incompatible dimensions for cross product (dimension must be 2 or 3), got {na} and {nb}")
    shape = broadcast_shapes(a.shape[:i] + a.shape[i + 1:], b.shape[:j] + b.shape[j + 1:])
    if 3 in (na, nb):
        k = _check_axis(axisc, len(shape) + 1, "axisc")
        shape = shape[:k] + (3,) + shape[k:]
    return shape, _probe(np.cross, inputs, shapes=((na,), (nb,)))


defop("cross", _cross_rule)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Lazy ``numpy.cross`` (2-element vectors are deprecated, as in NumPy)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    (na, nb), st = _nodes((a, b))
    ia, ib = _axis(axisa, na.ndim), _axis(axisb, nb.ndim)
    axisc = _int_param(axisc, "cross", "axisc")
    sizes = ()
    if all(type(i) is int and 0 <= i < n.ndim for i, n in ((ia, na), (ib, nb))):
        sizes = (na.shape[ia], nb.shape[ib])
        # axisc is read against the result's ndim, and ignored when it has no vector axis
        axisc = _axis(axisc, max(na.ndim, nb.ndim)) if 3 in sizes else 0
    node = make_node("cross", (na, nb), (("axisa", ia), ("axisb", ib), ("axisc", axisc)))
    if 2 in sizes:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional vectors "
                      "instead. (deprecated in NumPy 2.0)", DeprecationWarning, stacklevel=2)
    return Tensor(node, st)


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


defop("det", _det_rule)
defop("slogdet", _slogdet_rule)
defop("inv", _inv_rule)
defop("cholesky", _cholesky_rule)
defop("eigh", _eigh_rule)
defop("eigvalsh", _eigvalsh_rule)
defop("eig", _eig_rule)
defop("eigvals", _eig_rule)
defop("matrix_power", _matrix_power_rule)


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


defop("solve", _solve_rule)


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


defop("qr", _qr_rule)


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


defop("svd", _svd_rule)


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


defop("pinv", _pinv_rule)

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
        from .movement import broadcast_to

        x = a if isinstance(a, Tensor) else Tensor(lift(a, stack_of((a,))), stack_of((a,)))
        t = tol if isinstance(tol, Tensor) else Tensor(lift(np.asarray(tol), x.stack), x.stack)
        if x.ndim < 2:
            return _build("pinv", (x,), (("rcond", None), ("hermitian", bool(hermitian))))  # the rule says why
        try:
            t = broadcast_to(t, x.shape[:-2])
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


defop("matrix_rank", _matrix_rank_rule)


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


defop("cond", _cond_rule)


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


defop("norm", _norm_rule)


def _norm_axis(axis, ndim):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(_axis(a, ndim) for a in axis)
    return (_axis(axis, ndim),)


def norm(x, ord=None, axis=None, keepdims=False):
    """Lazy ``numpy.linalg.norm`` (NumPy's signature and rules)."""
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


defop("vector_norm", _vector_norm_rule)


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


# ---------------------------------------------------------------- numpy.linalg: several arrays

def _multi_dot_rule(inputs):
    """numpy.linalg.multi_dot: a chain of dots (ends may be 1-D)."""
    if len(inputs) < 2:
        raise ShapeError("multi_dot expects at least two arrays")
    if len(inputs) == 2:
        return _dot_rule(inputs)
    shapes = [n.shape for n in inputs]
    first = shapes[0] if len(shapes[0]) != 1 else (1,) + shapes[0]
    last = shapes[-1] if len(shapes[-1]) != 1 else shapes[-1] + (1,)
    chain = [first] + shapes[1:-1] + [last]
    for k, s in enumerate(chain):
        if len(s) != 2:
            raise ShapeError(f"array {k} has shape {shapes[k]}; multi_dot needs 2-D arrays (the ends may be 1-D)")
    for k in range(len(chain) - 1):
        if chain[k][1] != chain[k + 1][0]:
            raise ShapeError(f"arrays {k} and {k + 1} are not aligned: shapes {shapes[k]} and {shapes[k + 1]}")
    shape = chain[0][:1] * (len(shapes[0]) == 2) + chain[-1][1:] * (len(shapes[-1]) == 2)
    return shape, _probe(_multi_dot_probe, inputs)


def _multi_dot_probe(*arrays):
    return np.linalg.multi_dot(list(arrays))


defop("multi_dot", _multi_dot_rule)


def multi_dot(arrays, *, out=None):
    """Lazy ``numpy.linalg.multi_dot`` (NumPy picks the product order at run time)."""
    refuse_out("multi_dot", out)
    return _build("multi_dot", tuple(arrays))


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


defop("tensorinv", _tensorinv_rule)


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


defop("tensorsolve", _tensorsolve_rule)


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


defop("lstsq", _lstsq_rule)


class LstsqResult(NamedTuple):
    x: Tensor
    residuals: Tensor
    rank: Tensor
    s: Tensor


def lstsq(a, b, rcond=None):
    """Lazy ``numpy.linalg.lstsq``: ``(x, residuals, rank, s)``, NumPy's
    values.  The residuals' shape is static: (K,) when a has more rows than
    columns, so a rank-deficient ``a`` there (NumPy: empty residuals) raises
    where the residuals are computed; x, rank and s are always NumPy's."""
    (x, y), st = _nodes((a, b))
    params = (("rcond", _scalar_param(rcond, "lstsq", "rcond")),)
    return LstsqResult(*(Tensor(make_node("lstsq", (x, y), params + (("output", k),)), st) for k in range(4)))


# may_raise: the kernel can fail on the data (a singular or non-definite
# matrix, no convergence); the engine writes no variable in place before it
for _op in ("inv", "cholesky", "solve", "eig", "eigvals", "eigh", "eigvalsh", "svd", "qr", "pinv", "lstsq",
            "matrix_power", "matrix_rank", "cond", "norm", "tensorinv", "tensorsolve"):
    set_attr(_op, "may_raise", True)


def _gufunc_objects() -> None:
    """matmul, vecdot, matvec and vecmat are NumPy ufuncs (gufuncs): here
    ufunc objects too (``fgraph.ops.ufunc``), taking out=, dtype=,
    casting= and signature=, and refusing reduce/accumulate/outer/at as
    NumPy refuses them for a ufunc with a core signature."""
    from .ufunc import OBJECTS, Ufunc

    for name in ("matmul", "vecdot", "matvec", "vecmat"):
        u = getattr(np, name, None)
        if isinstance(u, np.ufunc):
            OBJECTS[name] = globals()[name] = Ufunc(u, globals()[name])


_gufunc_objects()

"""Products: matmul, dot, vdot, inner, outer, tensordot, einsum, the gufunc
products (vecdot, matvec, vecmat), kron, cross and multi_dot; and the matrix
views their rules are written with (trace, diagonal, matrix_transpose).

Shapes follow NumPy's rules and are checked when the node is made; the
result dtype is NumPy's own, found by running the NumPy function on
one-element stand-ins of the inputs (float32 stays float32, and Python
scalars count as NumPy counts them: ``dot`` converts them with ``asarray``,
``matmul`` refuses them).  Every kernel is the NumPy function itself, so
results are bit-identical to NumPy's; the products that NumPy can write
into a given buffer also have an out-form (``out_kernel``) so the engine's
arena needs no copy; ``diagonal`` and ``matrix_transpose`` return views
(their ops say ``view=True``).

Gradients: products are transposed into products (matmul into matmul,
tensordot into tensordot, einsum into einsum), so second derivatives stay
in the family.  Complex inputs have no gradient here (the core skips them),
so ``vdot``, ``vecdot`` and ``vecmat`` need no conjugation.

The decompositions and solvers of ``numpy.linalg`` are in
:mod:`fgraph.ops.linalg`, which builds on the helpers here.
"""
from __future__ import annotations

import operator
import string
import warnings
from collections import Counter

import numpy as np

from .. import eager as _eager
from ..errors import DTypeError, FgraphError, ShapeError, user_location
from ..tensor import Tensor, lift, stack_of
from ..shape import broadcast_shapes, defop, size_of, ufunc_dtypes
from ..symbol import Node, error_at, make_node, new_node, refuse_out
from . import creation, movement, reduction
from .batching import Ctx, Mixes, _desc, refuse_batching

__all__ = ["matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum", "trace", "diagonal",
           "matrix_transpose", "vecdot", "matvec", "vecmat", "kron", "cross"]

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


# ---------------------------------------------------------------- gradient helpers

def _wants(x) -> bool:
    """Whether x gets a cotangent: real floating dtypes only (the core's ``differentiable``)."""
    return x.dtype.kind == "f"


def _sum_to(g, shape: tuple):
    """Undo broadcasting: sum ``g`` down to ``shape`` (the core's ``sum_to``,
    with the ops of this layer)."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + k for k, d in enumerate(shape) if d == 1 and g.shape[lead + k] != 1)
    out = reduction.sum(g, axis=axes) if axes else g
    return movement.reshape(out, shape) if out.shape != shape else out


def _mT(x):
    return matrix_transpose(x)


def _col(x):
    """x[..., :, None] as a reshape."""
    return movement.reshape(x, x.shape + (1,))


def _row(x):
    """x[..., None, :] as a reshape."""
    return movement.reshape(x, x.shape[:-1] + (1, x.shape[-1]))


def _keep(t, shape, axes):
    """A reduction's result (or cotangent) reshaped to keepdims form."""
    return movement.reshape(t, tuple(1 if k in axes else d for k, d in enumerate(shape)))


def _eye(n, m=None, k=0, dtype=np.float64):
    return creation.eye(n, m, k=k, dtype=dtype)


def _ftype(*xs):
    """The float dtype the cotangent computations run in."""
    dt = np.result_type(*[x.dtype for x in xs])
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _sym(x):
    return 0.5 * (x + _mT(x))


def _unpromote(g, promoted_shape, shape):
    """Sum a cotangent of a (1-D promoted, batch-broadcast) operand down to ``shape``."""
    return movement.reshape(_sum_to(g, promoted_shape), shape)


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


def _matmul_grad(out, ins, g, dtype=None):
    a, b = ins
    A = a if a.ndim > 1 else movement.reshape(a, (1,) + a.shape)
    B = b if b.ndim > 1 else movement.reshape(b, b.shape + (1,))
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    G = movement.reshape(g, batch + (A.shape[-2], B.shape[-1]))  # the 1-D axes put back
    ga = _unpromote(matmul(G, _mT(B)), A.shape, a.shape) if _wants(a) else None
    gb = _unpromote(matmul(_mT(A), G), B.shape, b.shape) if _wants(b) else None
    return ga, gb


def _matmul_kernel(a, b, dtype=None):
    # (np.matmul's dtype= keyword, even None, costs it 0.05 us: passed only when given)
    return np.matmul(a, b) if dtype is None else np.matmul(a, b, dtype=dtype)


def _matmul_batch(node, c: Ctx) -> tuple:
    """Rows of the left operand (2-d), or a leading broadcast (batch) axis of
    either operand (>= 3-d) that is the result's axis 0."""
    a, b = node.inputs
    nd = node.ndim
    if c.batched[0] and not (a.ndim == nd and (nd >= 3 or (nd == 2 and b.ndim <= 2))):
        raise Mixes(f"the batched left operand {_desc(a)} does not give the result's axis 0")
    if c.batched[1] and not (b.ndim == nd >= 3):
        raise Mixes(f"the product contracts over the rows of the batched right operand {_desc(b)}")
    if nd >= 3:  # the stacked (broadcast) dims: an unbatched operand there must be 1 long
        c.aligned(node, [p for p in (0, 1) if node.inputs[p].ndim == nd and not c.batched[p]], nd)
    return node.params

defop("matmul", _matmul_rule, cost=_matmul_cost, kernel=_matmul_kernel,
      out_kernel=lambda a, b, out, dtype=None: np.matmul(a, b, out=out, dtype=dtype), grad=_matmul_grad,
      batch_rule=_matmul_batch)


#: (shape, dtype, weak) of both operands -> the product's (shape, dtype), for lazy arrays whose product
#: make_node made before (after its checks passed)
_MATMUL_SEEN: dict = {}


def matmul(x1, x2, /, out=None, *, dtype=None, **kwargs):
    """Lazy ``numpy.matmul`` (also ``a @ b``): NumPy's rules for 1-D operands,
    batch broadcasting and dtypes; mismatched inner dimensions raise
    ShapeError when the node is made."""
    if type(x1) is Tensor and type(x2) is Tensor and out is None and dtype is None and not kwargs:
        # ``A @ x`` in a loop: two lazy arrays whose shapes and dtypes were multiplied before make their
        # node at once (no lifting, no inference key: 0.7 us).  user_location(2) starts at the caller of
        # this function, as make_node's does at _build's.
        a, b = x1.node, x2.node
        key = (a.shape, a.dtype, a.weak, b.shape, b.dtype, b.weak)
        hit = _MATMUL_SEEN.get(key)
        if hit is not None:
            return _eager.made_now(new_node(Node, "matmul", (), (a, b), hit[0], hit[1], False, None,
                                            user_location(2)), x1.stack)
        result = _build("matmul", (x1, x2))
        if len(_MATMUL_SEEN) >= 4096:
            _MATMUL_SEEN.clear()
        _MATMUL_SEEN[key] = (result.node.shape, result.node.dtype)
        return result
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


def _tensordot_vjp(a, b, g, axes_a, axes_b):
    """Cotangents of ``tensordot(a, b, (axes_a, axes_b))``: each a tensordot
    of g with the other operand, transposed back into the operand's order."""
    axes_a, axes_b = list(axes_a), list(axes_b)
    free_a = [x for x in range(a.ndim) if x not in axes_a]
    free_b = [y for y in range(b.ndim) if y not in axes_b]
    na = len(free_a)
    ga = gb = None
    if _wants(a):
        r = tensordot(g, b, axes=(list(range(na, g.ndim)), free_b))  # free_a + b's summed axes, in b's order
        kept = sorted(axes_b)
        perm = [free_a.index(x) if x in free_a else na + kept.index(axes_b[axes_a.index(x)]) for x in range(a.ndim)]
        ga = r if perm == sorted(perm) else movement.transpose(r, perm)
    if _wants(b):
        r = tensordot(a, g, axes=(free_a, list(range(na))))  # a's summed axes, in a's order, + free_b
        kept = sorted(axes_a)
        nk = len(kept)
        perm = [nk + free_b.index(y) if y in free_b else kept.index(axes_a[axes_b.index(y)]) for y in range(b.ndim)]
        gb = r if perm == sorted(perm) else movement.transpose(r, perm)
    return ga, gb


def _dot_vjp(a, b, g):
    if a.ndim == 0 or b.ndim == 0:  # a product; the core sums down the scalar's cotangent
        return g * b, g * a
    return _tensordot_vjp(a, b, g, [a.ndim - 1], [0 if b.ndim == 1 else b.ndim - 2])


def _dot_grad(out, ins, g):
    return _dot_vjp(*ins, g)


def _dot_batch(node, c: Ctx) -> tuple:
    if not (c.batched[0] and node.inputs[0].ndim >= 2):
        raise Mixes("only a batched left operand of >= 2 dims keeps the batch on axis 0")
    c.only(node, 0)
    return node.params

defop("dot", _dot_rule, cost=_dot_cost, kernel=np.dot, out_kernel=lambda a, b, out: np.dot(a, b, out=out),
      grad=_dot_grad, batch_rule=_dot_batch)


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


def _vdot_grad(out, ins, g):
    a, b = ins  # real inputs: no conjugation
    return g * movement.reshape(b, a.shape), g * movement.reshape(a, b.shape)

defop("vdot", _vdot_rule, cost=lambda inputs, params: 2 * inputs[0].size,
      kernel=np.vdot, grad=_vdot_grad)


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


def _inner_grad(out, ins, g):
    a, b = ins
    if a.ndim == 0 or b.ndim == 0:
        return g * b, g * a
    return _tensordot_vjp(a, b, g, [a.ndim - 1], [b.ndim - 1])

defop("inner", _inner_rule, cost=_inner_cost, kernel=np.inner, grad=_inner_grad)


def inner(a, b, /):
    """Lazy ``numpy.inner``."""
    return _build("inner", (a, b))


def _outer_rule(inputs):
    """numpy.outer: (a.size, b.size), the inputs flattened."""
    a, b = inputs
    return (a.size, b.size), _probe(np.outer, inputs)


def _outer_grad(out, ins, g):
    a, b = ins
    ga = movement.reshape(matmul(g, movement.reshape(b, (b.size,))), a.shape) if _wants(a) else None
    gb = movement.reshape(matmul(movement.reshape(a, (a.size,)), g), b.shape) if _wants(b) else None
    return ga, gb

defop("outer", _outer_rule, cost=lambda inputs, params: inputs[0].size * inputs[1].size,
      kernel=np.outer, grad=_outer_grad)


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


def _tensordot_grad(out, ins, g, axes):
    a, b = ins
    return _tensordot_vjp(a, b, g, axes[0], axes[1])

defop("tensordot", _tensordot_rule, cost=_tensordot_cost,
      kernel=lambda a, b, axes: np.tensordot(a, b, axes=(list(axes[0]), list(axes[1]))), grad=_tensordot_grad)


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


def _einsum_grad(out, ins, g, subscripts, optimize=False, dtype=None, casting="safe"):
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
                operands.append(creation.ones((n,), dt))
                terms.append([c])
            result.append(c)
        spec = ",".join("".join(t) for t in terms) + "->" + "".join(result)
        r = einsum(spec, *operands, optimize=opt)
        wide = tuple(p for p, (d, e) in enumerate(zip(x.shape, r.shape)) if d == 1 and e != 1)
        r = reduction.sum(r, axis=wide, keepdims=True) if wide else r
        # and where x's dimension met only size-1 ones elsewhere, r is 1 there
        grads.append(r if r.shape == x.shape else movement.broadcast_to(r, x.shape))
    return grads


def _einsum_kernel(*operands, subscripts, optimize=False, **kwargs):
    return np.einsum(subscripts, *operands, optimize=einsum_optimize_arg(optimize), **kwargs)


def _einsum_out(*operands, out, subscripts, optimize=False, **kwargs):
    return np.einsum(subscripts, *operands, out=out, optimize=einsum_optimize_arg(optimize), **kwargs)

defop("einsum", _einsum_rule, cost=_einsum_cost, kernel=_einsum_kernel, out_kernel=_einsum_out, grad=_einsum_grad)

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


def _embed(m, axis1, axis2):
    """m of shape rest + (n1, n2) with those two axes moved to axis1, axis2."""
    return movement.moveaxis(m, (-2, -1), (axis1, axis2))


def _trace_grad(out, ins, g, offset=0, axis1=0, axis2=1, dtype=None):
    (a,) = ins
    n1, n2 = a.shape[axis1], a.shape[axis2]
    m = movement.reshape(g, g.shape + (1, 1)) * _eye(n1, n2, k=offset, dtype=_ftype(g))
    return _embed(m, axis1, axis2),

defop("trace", _trace_rule,
      kernel=lambda a, offset, axis1, axis2, dtype=None: np.trace(a, offset, axis1, axis2, dtype), grad=_trace_grad)


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


def _diagonal_grad(out, ins, g, offset=0, axis1=0, axis2=1):
    """g on the diagonal of zeros: g indexed by row (offset >= 0) or column,
    padded to that length by a matmul, times the shifted identity."""
    (a,) = ins
    n1, n2 = a.shape[axis1], a.shape[axis2]
    length = g.shape[-1]
    dt = _ftype(g)
    target = n1 if offset >= 0 else n2
    gp = g if length == target else matmul(g, _eye(length, target, dtype=dt))
    gp = _col(gp) if offset >= 0 else _row(gp)
    return _embed(gp * _eye(n1, n2, k=offset, dtype=dt), axis1, axis2),

defop("diagonal", _diagonal_rule, view=True,  # the kernel returns a view of input 0
      kernel=lambda a, offset, axis1, axis2: np.diagonal(a, offset, axis1, axis2), grad=_diagonal_grad)


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


def _matrix_transpose_grad(out, ins, g):
    return _mT(g),


def _matrix_transpose_batch(node, c: Ctx) -> tuple:
    if node.ndim < 3:
        raise Mixes("it swaps the batch axis 0 with axis 1")
    return node.params

defop("matrix_transpose", _matrix_transpose_rule, view=True, kernel=np.matrix_transpose, grad=_matrix_transpose_grad,
      batch_rule=_matrix_transpose_batch)


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


def _vecdot_grad(out, ins, g, axes, dtype=None):
    a, b = ins
    i, j = axes

    def part(x, k, other, l):  # cotangent of x, whose vector axis is k
        if not _wants(x):
            return None
        p = _col(g) * movement.moveaxis(other, l, -1)  # out's shape + (n,)
        moved = x.shape[:k] + x.shape[k + 1:] + (x.shape[k],)
        return movement.moveaxis(_sum_to(p, moved), -1, k)

    return part(a, i, b, j), part(b, j, a, i)

defop("vecdot", _vecdot_rule, cost=_vecdot_cost,
      kernel=lambda a, b, axes, dtype=None: np.vecdot(a, b, axes=[axes[:1], axes[1:], ()], dtype=dtype),
      out_kernel=lambda a, b, out, axes, dtype=None: np.vecdot(a, b, out=out, axes=[axes[:1], axes[1:], ()],
                                                               dtype=dtype),
      grad=_vecdot_grad)


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


def _matvec_grad(out, ins, g, dtype=None):
    a, b = ins  # (..., m, n) @ (..., n) -> (..., m)
    ga = _sum_to(_col(g) * _row(b), a.shape) if _wants(a) else None
    gb = _sum_to(vecmat(g, a), b.shape) if _wants(b) else None
    return ga, gb


def _vecmat_grad(out, ins, g, dtype=None):
    a, b = ins  # (..., n) @ (..., n, m) -> (..., m)
    ga = _sum_to(matvec(b, g), a.shape) if _wants(a) else None
    gb = _sum_to(_col(a) * _row(g), b.shape) if _wants(b) else None
    return ga, gb

defop("matvec", _matvec_rule,
      cost=lambda inputs, params: 2 * size_of(_matvec_rule(inputs)[0]) * inputs[0].shape[-1],
      kernel=lambda a, b, dtype=None: np.matvec(a, b, dtype=dtype),
      out_kernel=lambda a, b, out, dtype=None: np.matvec(a, b, out=out, dtype=dtype), grad=_matvec_grad)


defop("vecmat", _vecmat_rule,
      cost=lambda inputs, params: 2 * size_of(_vecmat_rule(inputs)[0]) * inputs[0].shape[-1],
      kernel=lambda a, b, dtype=None: np.vecmat(a, b, dtype=dtype),
      out_kernel=lambda a, b, out, dtype=None: np.vecmat(a, b, out=out, dtype=dtype), grad=_vecmat_grad)


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


def _kron_grad(out, ins, g):
    a, b = ins
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + a.shape
    sb = (1,) * (n - b.ndim) + b.shape
    # kron(a, b)[i*nb + j] = a[i] * b[j] on every axis: g viewed as (sa0, sb0, sa1, sb1, ...)
    G = movement.reshape(g, tuple(d for pair in zip(sa, sb) for d in pair))
    ga = gb = None
    if _wants(a):
        bb = movement.reshape(b, tuple(d for s in sb for d in (1, s)))
        ga = movement.reshape(reduction.sum(G * bb, axis=tuple(range(1, 2 * n, 2))), a.shape)
    if _wants(b):
        aa = movement.reshape(a, tuple(d for s in sa for d in (s, 1)))
        gb = movement.reshape(reduction.sum(G * aa, axis=tuple(range(0, 2 * n, 2))), b.shape)
    return ga, gb

defop("kron", _kron_rule, cost=lambda inputs, params: inputs[0].size * inputs[1].size,
      kernel=np.kron, grad=_kron_grad)


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


def _cross_grad(out, ins, g, axisa, axisb, axisc):
    a, b = ins
    A, B = movement.moveaxis(a, axisa, -1), movement.moveaxis(b, axisb, -1)
    na, nb = A.shape[-1], B.shape[-1]
    dt = _ftype(a, b, g)
    # 2-vectors are 3-vectors with z = 0 (a matmul pads them), and the cross
    # product of two of them is the z component of the 3-vector one
    A3 = A if na == 3 else matmul(A, _eye(2, 3, dtype=dt))
    B3 = B if nb == 3 else matmul(B, _eye(2, 3, dtype=dt))
    G3 = movement.moveaxis(g, axisc, -1) if 3 in (na, nb) else matmul(_col(g), _eye(1, 3, k=2, dtype=dt))

    def back(x3, n, shape, axis):  # d<g, a x b>/da = b x g; first n components, summed down
        x = x3 if n == 3 else matmul(x3, _eye(3, 2, dtype=dt))
        return movement.moveaxis(_sum_to(x, shape), -1, axis)

    ga = back(cross(B3, G3), na, A.shape, axisa) if _wants(a) else None
    gb = back(cross(G3, A3), nb, B.shape, axisb) if _wants(b) else None
    return ga, gb


def _cross_kernel(a, b, axisa, axisb, axisc):
    with warnings.catch_warnings():  # NumPy's 2-vector deprecation was raised when the node was made
        warnings.simplefilter("ignore", DeprecationWarning)
        return np.cross(a, b, axisa=axisa, axisb=axisb, axisc=axisc)

defop("cross", _cross_rule, kernel=_cross_kernel, grad=_cross_grad)


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


# ---------------------------------------------------------------- multi_dot (numpy.linalg's)

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


def _multi_dot_grad(out, ins, g):
    """Each cotangent is (product on its left).T @ g @ (product on its right).T;
    the prefix and suffix products are shared."""
    if len(ins) == 2:
        return _dot_vjp(*ins, g)
    mats = list(ins)
    if mats[0].ndim == 1:
        mats[0] = movement.reshape(mats[0], (1,) + mats[0].shape)
    if mats[-1].ndim == 1:
        mats[-1] = movement.reshape(mats[-1], mats[-1].shape + (1,))
    G = movement.reshape(g, (mats[0].shape[0], mats[-1].shape[1]))
    count = len(mats)
    prefix = [None] * count  # prefix[k] = mats[0] @ ... @ mats[k-1]
    for k in range(1, count):
        prefix[k] = mats[0] if k == 1 else matmul(prefix[k - 1], mats[k - 1])
    suffix = [None] * count  # suffix[k] = mats[k+1] @ ... @ mats[-1]
    for k in range(count - 2, -1, -1):
        suffix[k] = mats[-1] if k == count - 2 else matmul(mats[k + 1], suffix[k + 1])
    grads = []
    for k, x in enumerate(ins):
        if not _wants(x):
            grads.append(None)
            continue
        t = G if prefix[k] is None else matmul(_mT(prefix[k]), G)
        if suffix[k] is not None:
            t = matmul(t, _mT(suffix[k]))
        grads.append(movement.reshape(t, x.shape))
    return grads

defop("multi_dot", _multi_dot_rule, kernel=lambda *arrays: np.linalg.multi_dot(list(arrays)),
      grad=_multi_dot_grad)


def multi_dot(arrays, *, out=None):
    """Lazy ``numpy.linalg.multi_dot`` (NumPy picks the product order at run time)."""
    refuse_out("multi_dot", out)
    return _build("multi_dot", tuple(arrays))


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

refuse_batching(("cross", "diagonal", "einsum", "inner", "kron", "outer", "tensordot", "trace", "vdot", "vecdot",
                 "matvec", "vecmat"),
                "not audited for micro-batching: a product may contract or move the batch axis 0 (matmul and dot "
                "have rules)")

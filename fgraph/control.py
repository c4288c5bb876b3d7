"""Loops and branches inside graphs, with JAX's signatures and semantics.

    fgraph.while_loop(cond_fun, body_fun, init_val)
    fgraph.fori_loop(lower, upper, body_fun, init_val)
    fgraph.scan(f, init, xs=None, length=None, reverse=False)
    fgraph.cond(pred, true_fun, false_fun, *operands)
    fgraph.switch(index, branches, *operands)

Values are pytrees (tuples, lists, dicts; ``None`` is an empty subtree) of
lazy arrays, NumPy arrays or Python scalars.  Each body is traced once, on
placeholders standing for its arguments, into a closed sub-graph held by
the loop's node (see :mod:`fgraph.ops.control`): a lazy array the body
uses from outside becomes an input of the node (computed once, outside the
loop: loop-invariant code is hoisted when the body is traced).  A carry
must keep its structure, shapes and dtypes; a mismatch raises, naming the
carry and the user's line.  As in JAX, both branches of ``cond`` are
traced and must agree.
"""
from __future__ import annotations

import operator as _operator

import numpy as np

from .errors import DTypeError, FgraphError, ShapeError, format_location, user_location
from .tensor import Tensor, constant_node, lift, placeholder_node, python_data_array, stack_of
from .shape import int_fits, result_type
from .symbol import Node, _infer, topological
from .tree import flatten, unflatten

__all__ = ["while_loop", "fori_loop", "scan", "cond", "switch"]

# ---------------------------------------------------------------- pytrees

def _is_leaf(x) -> bool:
    return not isinstance(x, (dict, list, tuple))


def _tree(obj):
    """(leaves without the Nones, their paths, structure with the Nones): a
    ``None`` is an empty subtree, as in JAX."""
    leaves, structure = flatten(obj, _is_leaf)
    paths = _paths(obj)
    keep = [k for k, v in enumerate(leaves) if v is not None]
    return [leaves[k] for k in keep], [paths[k] for k in keep], (structure, tuple(k for k, v in enumerate(leaves)
                                                                                   if v is None), len(leaves))


def _untree(tree, leaves):
    structure, nones, total = tree
    it = iter(leaves)
    nones = set(nones)
    return unflatten(structure, [None if k in nones else next(it) for k in range(total)])


def _paths(obj) -> list[str]:
    """Each leaf's path (``[0]['h']``), in :func:`fgraph.tree.flatten`'s order (iterative)."""
    out = []
    stack = [(obj, "")]
    while stack:
        o, path = stack.pop()
        if isinstance(o, dict):
            stack.extend((o[k], f"{path}[{k!r}]") for k in reversed(list(o)))
        elif isinstance(o, (list, tuple)):
            stack.extend((o[k], f"{path}[{k}]") for k in reversed(range(len(o))))
        else:
            out.append(path)
    return out


def _strong(x, st) -> Node:
    """A value as a node with a definite dtype: a Python scalar takes NumPy's
    default dtype (the stack's float dtype for floats), as a carry must."""
    node = lift(x, st)
    if node.weak:
        node = constant_node(python_data_array(node.params[0][1].value, None, st))
    return node


def _where_of(node: Node) -> str:
    return format_location(node.where)


# ---------------------------------------------------------------- tracing

class _Traced:
    """A traced body: ``graph`` (closed), the outer nodes its extra
    placeholders stand for (``consts``), and its results' tree."""

    __slots__ = ("graph", "consts", "tree", "paths")

    def __init__(self, graph, consts, tree, paths):
        self.graph, self.consts, self.tree, self.paths = graph, consts, tree, paths


def _trace(fn, args, templates: list[Node], st, what: str, out_dtypes=None) -> _Traced:
    """Trace ``fn(value)`` where ``value`` has the tree ``args`` and its
    leaves are placeholders shaped as ``templates``.
    ``out_dtypes``: a dtype per result, for weak Python-scalar results."""
    # identities by position (the body is closed: they never meet another graph's), so a body traced again is equal
    phs = [placeholder_node(t.shape, t.dtype, f"{what}_in{k}", uid=-1 - k) for k, t in enumerate(templates)]
    result = fn(_untree(args, [Tensor(p, st) for p in phs]))
    leaves, paths, out_tree = _tree(result)
    outs = []
    for k, leaf in enumerate(leaves):
        try:
            node = lift(leaf, st)
        except FgraphError as e:
            raise _error(FgraphError, what, f"result{paths[k]} is not an array: {e}") from None
        if node.weak:  # a Python scalar result takes the carry's dtype where NEP 50 would (JAX's weak types)
            if out_dtypes is not None and k < len(out_dtypes) and result_type(node, out_dtypes[k]) == out_dtypes[k]:
                value = node.params[0][1].value
                if type(value) is int and out_dtypes[k].kind in "iu" and not int_fits(value, out_dtypes[k]):
                    raise _error(DTypeError, what, f"result{paths[k]}: Python integer {value} out of bounds for "
                                                   f"{out_dtypes[k]} (NumPy 2 refuses it too)")
                node = constant_node(np.asarray(value, dtype=out_dtypes[k]))
            else:  # NumPy's default dtype (a float for an int carry: refused by the carry check)
                node = _strong(leaf, st)
        outs.append(node)
    graph, consts = _close(outs, phs, what)
    return _Traced(graph, consts, out_tree, paths)


def _close(outs: list[Node], phs: list[Node], what: str):
    """The body graph over ``phs`` plus one placeholder per value from
    outside: every node that depends on no placeholder of ``phs`` and is
    used by one that does (or is a result) is replaced by a new placeholder,
    and its node becomes an input of the loop (computed once, outside).
    Only Python-scalar literals stay inside: a constant array may be what a
    gradient is taken with respect to, so it must be an input.  Iterative."""
    from .graph import Graph

    own = {id(p) for p in phs}
    order = topological(outs)
    inside: set[int] = set()  # depends on the body's own placeholders
    for n in order:
        if id(n) in own or any(id(i) in inside for i in n.inputs):
            inside.add(id(n))
    consts: dict[int, Node] = {}
    mapping: dict[int, Node] = {}

    def outer(n: Node) -> Node:
        if id(n) in inside or n.op == "literal":
            return mapping.get(id(n), n)
        p = mapping.get(id(n))
        if p is None:
            p = mapping[id(n)] = placeholder_node(n.shape, n.dtype, f"{what}_const{len(consts)}",
                                                  uid=-1 - len(phs) - len(consts))
            consts[id(n)] = n
        return p

    for n in order:
        if id(n) not in inside or not n.inputs:
            continue
        ins = tuple(outer(i) for i in n.inputs)
        if any(a is not b for a, b in zip(ins, n.inputs)):
            mapping[id(n)] = n.with_inputs(ins)
    new_outs = [outer(o) for o in outs]
    const_nodes = list(consts.values())
    graph = Graph(outputs=new_outs, inputs=phs + [mapping[id(c)] for c in const_nodes])
    return graph, const_nodes


def _error(cls, op: str, detail: str):
    return cls(f"{op}: {detail}\n  at {format_location(user_location(3))}")


def _check_carry(op: str, init_leaves: list[Node], init_paths, outs: list[Node], what: str) -> None:
    """The body's carry must have the init's structure, shapes and dtypes."""
    for k, (a, b) in enumerate(zip(init_leaves, outs)):
        path = f"{what}{init_paths[k]}"
        if a.shape != b.shape:
            raise _error(ShapeError, op, f"the body changes the shape of {path} from {a.shape} to {b.shape} "
                                         f"(made at {_where_of(b)}); loop carries keep their shapes")
        if a.dtype != b.dtype:
            raise _error(DTypeError, op, f"the body changes the dtype of {path} from {a.dtype} to {b.dtype} "
                                         f"(made at {_where_of(b)}); loop carries keep their dtypes "
                                         f"(cast with .astype({str(a.dtype)!r}))")


def _results(op: str, inputs: list[Node], params: tuple, count: int, st) -> list[Tensor]:
    """One node per result.  Made without make_node's shape cache, which would
    keep the bodies (and the constants they hold) alive after the graph is gone."""
    return loop_results(op, inputs, params, range(count), st)


def loop_results(op: str, inputs, params: tuple, which, st) -> list[Tensor]:
    """The result nodes ``which`` (output numbers) of a loop or branch with
    these inputs and params (``output`` aside): gradient rules build loops
    of their own with it (fgraph/autodiff/graph_rules.py)."""
    inputs, where = tuple(inputs), user_location(2)
    out = []
    for k in which:
        p = params + (("output", k),)
        shape, dtype = _infer(op, inputs, p)
        out.append(Tensor(Node(op, p, inputs, shape, dtype, False, None, where), st))
    return out


def _body_carry(op, traced: _Traced, init_tree, n: int, what: str):
    """The body's carry results, checked against the init's tree (structure first)."""
    if traced.tree != init_tree:
        raise _error(FgraphError, op, f"the body returns a {what} of another structure than the init: "
                                      f"{_show(traced.tree)} for {_show(init_tree)}")
    return list(traced.graph.outputs[:n])


def _show(tree) -> str:
    structure, nones, total = tree
    return str(_untree(tree, ["*"] * (total - len(nones))))


# ---------------------------------------------------------------- while_loop

def while_loop(cond_fun, body_fun, init_val):
    """Repeat ``val = body_fun(val)`` while ``cond_fun(val)``; returns the last ``val``.

    ``jax.lax.while_loop``: the trip count may depend on the data (the NumPy
    engine runs it), ``val`` keeps its structure, shapes and dtypes, and the
    loop is forward-differentiable only (reverse mode raises: use
    ``fori_loop`` with static bounds or ``scan``)."""
    leaves, paths, tree = _tree(init_val)
    st = stack_of(leaves)
    init = [_strong(x, st) for x in leaves]
    dtypes = [n.dtype for n in init]
    c = _trace(cond_fun, tree, init, st, "cond")
    if len(c.graph.outputs) != 1 or c.graph.outputs[0].shape != () or c.tree[0] != "*":
        got = ", ".join(f"{o.dtype}{list(o.shape)}" for o in c.graph.outputs)
        raise _error(ShapeError, "while_loop", f"cond_fun must return a scalar, got {got or 'nothing'}")
    cond_graph = c.graph
    if cond_graph.outputs[0].dtype != np.bool_:  # a number is true when nonzero, as Python's while
        cond_graph = _as_bool(cond_graph)
    b = _trace(body_fun, tree, init, st, "body", dtypes)
    outs = _body_carry("while_loop", b, tree, len(init), "value")
    _check_carry("while_loop", init, paths, outs, "val")
    params = (("cond", cond_graph), ("body", b.graph), ("n_carry", len(init)), ("n_cond", len(c.consts)))
    res = _results("while_loop", init + c.consts + b.consts, params, len(init), st)
    return _untree(tree, res)


def _as_bool(graph):
    from .graph import Graph
    from .ops.elementwise import astype

    out = astype(Tensor(graph.outputs[0]), np.bool_).node
    return Graph(outputs=[out], inputs=list(graph.inputs))


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None, checkpoint=None):
    """``for i in range(lower, upper): val = body_fun(i, val)``; returns ``val``.

    ``jax.lax.fori_loop``: with Python (or NumPy) integer bounds the loop is
    a ``scan`` of known length (reverse-differentiable; ``checkpoint``: as
    :func:`scan`'s); with lazy bounds a ``while_loop``."""
    del unroll  # accepted for JAX's signature; bodies always run as one compiled program
    try:
        return _fori(lower, upper, body_fun, init_val, checkpoint)
    except FgraphError as e:  # raised by the scan or while_loop it is made of: named as the user wrote it
        raise _as_fori(e) from None


def _fori(lower, upper, body_fun, init_val, checkpoint):
    static = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (lower, upper))
    if static:
        dtype = np.result_type(*(np.asarray(v).dtype if isinstance(v, np.integer) else np.int64
                                 for v in (lower, upper)))
        start = np.asarray(lower, dtype)

        def step(carry, _):
            i, val = carry
            return (i + np.asarray(1, dtype), body_fun(i, val)), None

        (_, val), _ = scan(step, (start, init_val), None, length=max(int(upper) - int(lower), 0),
                           checkpoint=checkpoint)
        return val
    st = stack_of([lower, upper])
    lo, hi = Tensor(_strong(lower, st), st), Tensor(_strong(upper, st), st)
    for name, v in (("lower", lo), ("upper", hi)):
        if v.shape != () or v.dtype.kind not in "iu":
            raise _error(DTypeError, "fori_loop", f"{name} must be an integer scalar, got {v.dtype}{list(v.shape)}")
    i0 = lo.astype(np.result_type(lo.dtype, hi.dtype))
    _, val = while_loop(lambda c: c[0] < hi, lambda c: (c[0] + 1, body_fun(c[0], c[1])), (i0, init_val))
    return val


def _as_fori(e: FgraphError) -> FgraphError:
    """An error of the scan/while_loop a fori_loop is made of, in the fori_loop's
    terms: its carry is ``(i, val)``, so ``carry[1]...`` is ``init_val...``."""
    msg = str(e)
    for op in ("scan: ", "while_loop: ", "body: "):
        if msg.startswith(op):
            msg = "fori_loop: " + msg[len(op):]
    for theirs, ours in (("carry[1]", "init_val"), ("val[1]", "init_val"), ("result[0][1]", "body_fun's result"),
                         ("result[1]", "body_fun's result"),
                         ("f returns a carry", "body_fun returns a value"), (" than init:", " than init_val:")):
        msg = msg.replace(theirs, ours)
    return type(e)(msg)


# ---------------------------------------------------------------- scan

def scan(f, init, xs=None, length=None, reverse=False, unroll=1, *, checkpoint=None):
    """``jax.lax.scan``: ``carry, y = f(carry, x)`` over the leading axis of
    ``xs``; returns ``(final carry, ys stacked)``.

    ``xs`` may be ``None`` (then ``length`` steps with ``x=None``);
    ``reverse=True`` runs from the last row to the first (``ys`` keep their
    row order).  The carry keeps its structure, shapes and dtypes.

    Reverse mode saves the carry of every step; ``checkpoint=k`` saves one
    every ``k`` steps instead and recomputes the others a segment at a time
    while going back (about ``length/k + k`` carries held instead of
    ``length``, for one more forward pass)."""
    del unroll  # accepted for JAX's signature
    leaves, paths, tree = _tree(init)
    x_leaves, x_paths, x_tree = _tree(xs)
    st = stack_of(leaves + x_leaves)
    init_nodes = [_strong(x, st) for x in leaves]
    x_nodes = [_strong(x, st) for x in x_leaves]
    lengths = set()
    for p, n in zip(x_paths, x_nodes):
        if n.ndim == 0:
            raise _error(ShapeError, "scan", f"xs{p} is a scalar ({n.dtype}); scan runs over the leading axis")
        lengths.add(n.shape[0])
    if length is not None:
        try:
            length = _operator.index(length)
        except TypeError:
            raise _error(DTypeError, "scan", f"length must be an int, got {type(length).__name__}") from None
        lengths.add(length)
    if len(lengths) != 1:
        if not lengths:
            raise _error(FgraphError, "scan", "scan needs xs or a length")
        got = ", ".join(f"xs{p}: {n.shape[0]}" for p, n in zip(x_paths, x_nodes))
        raise _error(ShapeError, "scan", f"the leading axes differ: {got}" + (f", length={length}" if length
                                                                              is not None else ""))
    (n_steps,) = lengths
    rows = [_Template(n.shape[1:], n.dtype) for n in x_nodes]
    dtypes = [n.dtype for n in init_nodes]
    traced = _trace(lambda cx: _pair(f(*cx)), _pair_tree(tree, x_tree), init_nodes + rows, st, "scan", dtypes)
    carry_tree, y_tree = _split_pair(traced.tree)
    n = len(init_nodes)
    if carry_tree != tree:
        raise _error(FgraphError, "scan", f"f returns a carry of another structure than init: "
                                          f"{_show(carry_tree)} for {_show(tree)}")
    outs = list(traced.graph.outputs)
    _check_carry("scan", init_nodes, paths, outs[:n], "carry")
    params = (("body", traced.graph), ("n_carry", n), ("n_xs", len(x_nodes)), ("length", n_steps),
              ("reverse", bool(reverse)))
    if checkpoint is not None:
        try:
            checkpoint = _operator.index(checkpoint)
        except TypeError:
            raise _error(DTypeError, "scan", f"checkpoint must be an int, got {type(checkpoint).__name__}") from None
        if checkpoint < 1:
            raise _error(FgraphError, "scan", f"checkpoint must be at least 1 (steps a segment), got {checkpoint}")
        params += (("checkpoint", checkpoint),)
    res = _results("scan", init_nodes + x_nodes + traced.consts, params, len(outs), st)
    return _untree(tree, res[:n]), _untree(y_tree, res[n:])


class _Template:
    """The shape and dtype a placeholder takes (an xs row)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


def _pair(result):
    if not isinstance(result, tuple) or len(result) != 2:
        raise _error(FgraphError, "scan", f"f must return a pair (carry, y), got {type(result).__name__}")
    return result


def _pair_tree(a, b):
    """The tree of the pair ``(a, b)`` (the scan body's two arguments)."""
    (sa, na, ta), (sb, nb, tb) = a, b
    return (("tuple", 2, (sa, sb)), tuple(na) + tuple(ta + k for k in nb), ta + tb)


def _split_pair(tree):
    """The trees of a pair's two halves (the scan body's ``(carry, y)``)."""
    (_, _, (sa, sb)), nones, total = tree
    ta = _count(sa)
    return (sa, tuple(k for k in nones if k < ta), ta), (sb, tuple(k - ta for k in nones if k >= ta), total - ta)


def _count(structure) -> int:
    """How many leaves a structure holds (iterative)."""
    count, stack = 0, [structure]
    while stack:
        s = stack.pop()
        if s == "*":
            count += 1
        else:
            stack.extend(s[2])
    return count


# ---------------------------------------------------------------- branches

def switch(index, branches, *operands):
    """``jax.lax.switch``: ``branches[index](*operands)``, with ``index``
    clamped to ``[0, len(branches) - 1]``.  Every branch is traced and must
    return the same structure, shapes and dtypes."""
    branches = list(branches)
    if not branches:
        raise _error(FgraphError, "switch", "switch needs at least one branch")
    leaves, _, tree = _tree(operands)
    st = stack_of(leaves + [index])
    idx = _strong(index, st)
    if idx.shape != () or idx.dtype.kind not in "iub":
        raise _error(DTypeError, "switch", f"the index must be an integer scalar, got {idx.dtype}{list(idx.shape)}")
    if idx.dtype.kind == "b":
        from .ops.elementwise import astype

        idx = astype(Tensor(idx, st), np.int32).node
    ops = [_strong(x, st) for x in leaves]
    traced = [_trace(lambda a, _f=fn: _f(*a), tree, ops, st, f"branch{b}") for b, fn in enumerate(branches)]
    first = traced[0]
    for b, t in enumerate(traced[1:], 1):
        if t.tree != first.tree:
            raise _error(FgraphError, "switch", f"branch {b} returns {_show(t.tree)}, branch 0 {_show(first.tree)}: "
                                                "branches must return the same structure")
        for p, o, o0 in zip(t.paths, t.graph.outputs, first.graph.outputs):
            if o.shape != o0.shape:
                raise _error(ShapeError, "switch", f"branch {b} returns output{p} of shape {o.shape} (made at "
                                                   f"{_where_of(o)}), branch 0 of shape {o0.shape}")
            if o.dtype != o0.dtype:
                raise _error(DTypeError, "switch", f"branch {b} returns output{p} of dtype {o.dtype} (made at "
                                                   f"{_where_of(o)}), branch 0 of dtype {o0.dtype}")
    params = (("branches", tuple(t.graph for t in traced)), ("n_operands", len(ops)),
              ("splits", tuple(len(t.consts) for t in traced)))
    inputs = [idx] + ops + [c for t in traced for c in t.consts]
    res = _results("switch", inputs, params, len(first.graph.outputs), st)
    return _untree(first.tree, res)


def cond(pred, true_fun, false_fun, *operands):
    """``jax.lax.cond``: ``true_fun(*operands)`` if ``pred`` else
    ``false_fun(*operands)``.  ``pred`` is a scalar (bool, or a number: true
    when nonzero); both branches are traced, as in JAX, and must agree."""
    st = stack_of([pred, *flatten(operands, _is_leaf)[0]])
    p = Tensor(_strong(pred, st), st)
    if p.shape != ():
        raise _error(ShapeError, "cond", f"pred must be a scalar, got {p.dtype}{list(p.shape)}")
    if p.dtype.kind not in "biuf":
        raise _error(DTypeError, "cond", f"pred must be a bool or a number, got {p.dtype}")
    index = (p != 0).astype(np.int32) if p.dtype.kind != "b" else p.astype(np.int32)
    return switch(index, [false_fun, true_fun], *operands)

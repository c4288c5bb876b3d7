"""Flatten nested outputs (a tensor, lists/tuples, dicts) and rebuild them."""
from __future__ import annotations

from typing import Any, Callable

LEAF = "*"


def flatten(obj: Any, is_leaf: Callable[[Any], bool]) -> tuple[list, Any]:
    """(leaves, structure); the structure is hashable.  Iterative."""
    leaves: list = []
    # build the structure with an explicit stack: (obj, parent list, index)
    root: list = [None]
    stack = [(obj, root, 0)]
    while stack:
        o, parent, idx = stack.pop()
        if is_leaf(o):
            leaves.append(o)
            parent[idx] = LEAF
        elif isinstance(o, dict):
            keys = list(o)
            kids: list = [None] * len(keys)
            parent[idx] = ("dict", tuple(keys), kids)
            for i in reversed(range(len(keys))):
                stack.append((o[keys[i]], kids, i))
        elif isinstance(o, (list, tuple)):
            kids = [None] * len(o)
            parent[idx] = (type(o).__name__, len(o), kids)
            for i in reversed(range(len(o))):
                stack.append((o[i], kids, i))
        else:
            leaves.append(o)
            parent[idx] = LEAF
    return leaves, _freeze(root[0])


def _freeze(s):
    if s == LEAF:
        return s
    kind, meta, kids = s
    return (kind, meta, tuple(_freeze(k) for k in kids))  # nesting depth only


def unflatten(structure: Any, leaves: list) -> Any:
    """The nested value of ``structure`` with ``leaves`` in order.  Iterative,
    and with no self-referencing closure: a recursive inner function is a
    reference cycle that would keep every call's results alive until the
    cyclic garbage collector runs."""
    if structure == LEAF:
        return leaves[0]
    it = iter(leaves)
    root: list = [None]
    # (structure, its children's values, parent's values, index in parent):
    # a node is finished once all its children are
    stack = [(structure, [], root, 0)]
    while stack:
        s, vals, parent, idx = stack[-1]
        kind, meta, kids = s
        if len(vals) < len(kids):
            k = kids[len(vals)]
            if k == LEAF:
                vals.append(next(it))
            else:
                vals.append(None)
                stack.append((k, [], vals, len(vals) - 1))
            continue
        stack.pop()
        parent[idx] = dict(zip(meta, vals)) if kind == "dict" else tuple(vals) if kind == "tuple" else vals
    return root[0]

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
    it = iter(leaves)

    def build(s):
        if s == LEAF:
            return next(it)
        kind, meta, kids = s
        vals = [build(k) for k in kids]
        if kind == "dict":
            return dict(zip(meta, vals))
        return tuple(vals) if kind == "tuple" else vals

    return build(structure)

"""What the functions composed of other ops share (``composite``,
``arrays``, ``signal``, ``statistics``, ``fft``): the namespace they build
with, NumPy's ``asarray`` for their arguments, and the refusal of a lazy
value where NumPy's definition needs it now (it decides a shape, or NumPy
checks it before computing)."""
from __future__ import annotations

import operator

import numpy as np

from .. import eager as _eager
from ..errors import FgraphError, ShapeError, user_location
from ..tensor import Tensor
from ..symbol import Node, error_at, new_node


def namespace():
    """``fgraph.numpy`` (imported when called: it is built from these modules)."""
    from .. import numpy as fnp

    return fnp


def lazy(x):
    """``x`` as a lazy array, as NumPy's ``asarray`` (a Python scalar takes its default dtype)."""
    return x if isinstance(x, Tensor) else namespace().asarray(x)


def _traced_leaf(node: Node) -> Node:
    """The placeholder or variable below a node that is not concrete."""
    while node.inputs:
        node = next(i for i in node.inputs if not i.concrete)
    return node


def evaluated(t: Tensor, op: str, name: str, why: str):
    """The value of the lazy array ``t`` where NumPy needs it now: outside
    tracing (no placeholder or variable below) it is evaluated, an evaluation
    point as ``int(t)`` is, and a 0-d value comes back as the NumPy scalar a
    NumPy program would have held there (``n = a.max()``); under tracing it
    is refused, naming the placeholder or variable it depends on."""
    if not t.node.concrete:
        leaf = _traced_leaf(t.node)
        raise error_at(ShapeError, op, f"{name} must be a Python value, not a lazy array ({why}): here it "
                                        f"depends on the {leaf.op} {leaf.name!r}, whose value is not known while "
                                        "the graph is built (fgraph.jit, a graph over placeholders or variables)")
    value = np.asarray(t.eval())
    return value[()] if value.ndim == 0 else value


def python_value(value, op: str, name: str, why: str = "it decides the result's shape"):
    """``value`` as NumPy takes it now: a lazy array in it (or a lazy entry of
    a tuple or list) is evaluated outside tracing and refused under tracing
    (:func:`evaluated`)."""
    if isinstance(value, Tensor):
        return evaluated(value, op, name, why)
    if isinstance(value, (tuple, list)) and any(isinstance(v, Tensor) for v in value):
        return type(value)(evaluated(v, op, name, why) if isinstance(v, Tensor) else v for v in value)
    return value


def python_int(value, op: str, name: str, why: str = "it decides the result's shape") -> int:
    """``value`` as a Python int, refused when lazy or not an integer."""
    value = python_value(value, op, name, why)
    try:
        return operator.index(value)
    except TypeError:
        raise error_at(FgraphError, op, f"{name} must be an integer, not {value!r}") from None


def axis_index(axis, ndim: int, op: str) -> int:
    """``axis`` (a Python int) for an array of ``ndim`` axes, made non-negative."""
    axis = python_int(axis, op, "axis")
    if not -ndim <= axis < ndim:
        raise error_at(ShapeError, op, f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def known_value(x):
    """The value of ``x`` if it is known now (not lazy, or a constant), else None."""
    if not isinstance(x, Tensor):
        return np.asarray(x)
    node = x.node
    if node.op == "constant":
        return node.param("value").array
    if node.op == "literal":
        return np.asarray(node.param("value").value)
    return None


# ---------------------------------------------------------------- recipes
# A function that builds several nodes from one lazy array (``roll``: two
# slices and a concatenate, with reshapes around them for axis=None) builds
# the same ops, params, shapes and dtypes whenever the array has the same
# shape, dtype and weak flag and the other arguments are the same.  Its first
# result is recorded as a recipe, and later calls replay it: one user_location
# for all the nodes, and no handle for the intermediate ones.

_RECIPE_NODES = 32  # recipes record at most this many nodes


def record(result: Tensor, x: Node):
    """The nodes of ``result`` above ``x`` as a recipe for :func:`replay`:
    (op, params, input positions, shape, dtype) per node, inputs first (0
    is x).  None when result depends on anything but x, or has more nodes."""
    root = result.node
    if root is x:
        return ()
    index = {id(x): 0}
    steps = []
    stack = [(root, 0)]
    seen = {id(root)}
    while stack:
        node, i = stack[-1]
        if i < len(node.inputs):
            stack[-1] = (node, i + 1)
            child = node.inputs[i]
            if id(child) in seen or id(child) in index:
                continue
            if not child.inputs or len(seen) >= _RECIPE_NODES:
                return None  # a leaf other than x (a constant...): not a recipe over x alone
            seen.add(id(child))
            stack.append((child, 0))
        else:
            stack.pop()
            if node.weak or node.name is not None:
                return None
            index[id(node)] = len(steps) + 1
            steps.append((node.op, node.params, tuple([index[id(i)] for i in node.inputs]), node.shape, node.dtype))
    return tuple(steps)


def replay(recipe: tuple, x: Node, stack, skip: int = 3) -> Tensor:
    """The nodes of ``recipe`` made again on node ``x`` (of the recorded
    shape, dtype and weak flag), as a lazy array of ``stack``, located at
    the user's line (``user_location(skip)`` from here: the caller's caller
    by default).  An empty recipe gives a new lazy array on ``x`` itself."""
    where = user_location(skip)
    if len(recipe) == 1:  # the common case (a slice, a reshape): its inputs can only be x
        op, params, ins, shape, dtype = recipe[0]
        return _eager.made_now(new_node(Node, op, params, (x,) * len(ins), shape, dtype, False, None, where), stack)
    nodes = [x]
    for op, params, ins, shape, dtype in recipe:
        nodes.append(Node(op, params, tuple([nodes[i] for i in ins]), shape, dtype, False, None, where))
    return Tensor(nodes[-1], stack)


_SAME = object()  # the function returned the lazy array it was given
_REMEMBERED_MAX = 4096  # entries of each table; cleared when full


def remembered(table: dict, key, x: Node, stack, given: Tensor | None, build, *args) -> Tensor:
    """``build(*args)``, a function's result on node ``x``, made again from
    ``table`` when the same ``key`` (which must fix x's shape, dtype and weak
    flag and the other arguments) came before: the recipe of what it built
    above x (:func:`record`), or ``given`` itself when it returned that lazy
    array.  A result that is neither is not remembered; nor is an
    unhashable key."""
    try:
        recipe = table.get(key)
    except TypeError:
        return build(*args)
    if recipe is not None:
        return given if recipe is _SAME else replay(recipe, x, stack)
    result = build(*args)
    recipe = _SAME if result is given and given is not None else record(result, x)
    if recipe is not None:
        if len(table) >= _REMEMBERED_MAX:
            table.clear()
        table[key] = recipe
    return result

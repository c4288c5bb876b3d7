"""A small pattern language for rewrite rules.

    x, y = Var("x"), Var("y")
    Rule("mul_one", Op("multiply", x, Lit(1), commutative=True),
         lambda m: m.x, when=lambda m: m.same_type(m.x))

Patterns: ``Var(name, test=None)`` matches any node and binds it (a name
used twice must bind structurally equal nodes); ``Lit(value)`` matches a
literal or a constant whose every element equals ``value`` (zeros compared
with their sign); ``Op(name, *inputs, commutative=False, **params)``
matches a node of op ``name`` whose inputs match and whose params equal the
given values (a ``Var`` as a param value binds the param; ``as_="n"`` binds
the matched node itself, e.g. to require ``m.single_use("n")``).  ``AnyOp(names,
...)`` matches any of several ops.

A rule's ``build(m)`` returns the replacement, written with the ordinary
``fgraph.numpy`` functions on ``m.<name>`` (lazy arrays) or as a Node; it must
have the matched node's shape and dtype.  ``when(m)`` guards the rule (shapes,
dtypes, single use).  Rules with ``fast_math=True`` may change results for
NaN/inf and run only under ``optimise(..., fast_math=True)``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..errors import FgraphError
from ..graph import Graph
from ..tensor import Tensor
from ..symbol import Node
from .framework import record, rewrite


class Var:
    def __init__(self, name: str, test: Callable[[Node], bool] | None = None):
        self.name, self.test = name, test

    def __repr__(self):
        return self.name


class Lit:
    def __init__(self, value, name: str | None = None):
        self.value, self.name = value, name

    def matches(self, node: Node) -> bool:
        if node.op == "literal":
            v = np.asarray(node.params[0][1].value)
        elif node.op == "constant" and node.size <= 1 << 16:
            v = node.params[0][1].array
        else:
            return False
        target = np.asarray(self.value)
        with np.errstate(all="ignore"):
            if not np.all(v == target):
                return False
            if v.dtype.kind in "fc" and target == 0:  # +0.0 and -0.0 differ in a rewrite
                return bool(np.all(np.signbit(np.real(v)) == np.signbit(np.real(target))))
        return True

    def __repr__(self):
        return repr(self.value)


class Op:
    def __init__(self, op: str, *inputs, commutative: bool = False, as_: str | None = None, **params):
        self.ops = (op,)
        self.inputs, self.commutative, self.params, self.as_ = inputs, commutative, params, as_

    def __repr__(self):
        return f"{self.ops[0]}({', '.join(map(repr, self.inputs))})"


class AnyOp(Op):
    def __init__(self, ops: Sequence[str], *inputs, commutative: bool = False, as_: str | None = None, **params):
        super().__init__(ops[0], *inputs, commutative=commutative, as_=as_, **params)
        self.ops = tuple(ops)


class Match:
    """Bindings of a successful match: ``m.x`` is a lazy array, ``m["x"]`` the node."""

    def __init__(self, node: Node, bindings: dict, users: Callable[[Node], int]):
        self.node, self.bindings, self._users = node, bindings, users

    def __getitem__(self, name: str) -> Any:
        return self.bindings[name]

    def __getattr__(self, name: str) -> Any:
        try:
            v = self.__dict__["bindings"][name]
        except KeyError:
            raise AttributeError(name) from None
        return Tensor(v) if isinstance(v, Node) else v

    def single_use(self, *names: str) -> bool:
        """The bound nodes feed only the matched subgraph (safe to absorb)."""
        return all(self._users(self.bindings[n]) <= 1 for n in names)

    def same_type(self, name: str) -> bool:
        """The bound node has the matched node's shape and dtype."""
        n = self.bindings[name]
        return n.shape == self.node.shape and n.dtype == self.node.dtype


def match(pattern, node: Node, b: dict) -> bool:
    """Match ``node`` against ``pattern``, extending bindings ``b``.

    Recursion follows the pattern, which is a few levels deep, never the graph.
    """
    if isinstance(pattern, Var):
        if pattern.test is not None and not pattern.test(node):
            return False
        bound = b.get(pattern.name)
        if bound is None:
            b[pattern.name] = node
            return True
        return bound is node or (bound.key == node.key and bound.shape == node.shape and bound.dtype == node.dtype)
    if isinstance(pattern, Lit):
        if not pattern.matches(node):
            return False
        if pattern.name:
            b[pattern.name] = node
        return True
    if node.op not in pattern.ops or len(node.inputs) != len(pattern.inputs):
        return False
    params = dict(node.params)
    for k, want in pattern.params.items():
        have = params.get(k)
        if isinstance(want, Var):
            if want.name in b and b[want.name] != have:
                return False
            b[want.name] = have
        elif have != want:
            return False
    orders = [pattern.inputs]
    if pattern.commutative and len(pattern.inputs) == 2:
        orders.append(pattern.inputs[::-1])
    for order in orders:
        trial = dict(b)
        if all(match(p, n, trial) for p, n in zip(order, node.inputs)):
            b.clear()
            b.update(trial)
            if pattern.as_:
                b[pattern.as_] = node
            return True
    return False


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: Op
    build: Callable[[Match], Any]
    when: Callable[[Match], bool] | None = None
    fast_math: bool = False


def rules_step(rules: Iterable[Rule], graph: Graph):
    """A per-node step rewriting with ``rules`` (first match wins), and the
    ``origin`` map that ``rewrite`` must fill for use counts to follow
    rebuilt nodes."""
    by_op: dict[str, list[Rule]] = {}
    for r in rules:
        for op in r.pattern.ops:
            by_op.setdefault(op, []).append(r)
    users: dict[int, int] = {}
    origin: dict[int, Node] = {}

    def count(n: Node) -> int:
        if not users:  # counted on first need: most rules never ask
            users.update(_use_counts(graph))
        return users.get(id(origin.get(id(n), n)), 0)

    def step(node: Node) -> Node:
        for _ in range(8):  # a few rules in a row at one node; the pipeline loops for more
            for rule in by_op.get(node.op, ()):
                b: dict = {}
                if not match(rule.pattern, node, b):
                    continue
                m = Match(node, b, count)
                if rule.when is not None and not rule.when(m):
                    continue
                new = _as_node(rule.build(m), rule, node)
                record(rule.name)
                origin[id(new)] = origin.get(id(node), node)
                node = new
                break
            else:
                return node
        return node

    return step, origin


def rules_pass(rules: Iterable[Rule], name: str = "rules"):
    """A pass that rewrites bottom-up with ``rules`` (first match wins)."""
    rules = list(rules)

    def run(graph: Graph) -> Graph:
        step, origin = rules_step(rules, graph)
        return rewrite(graph, step, origin)

    run.__name__ = name
    return run


def _use_counts(graph: Graph) -> dict[int, int]:
    counts: dict[int, int] = {}
    for n in graph.nodes():
        for i in n.inputs:
            counts[id(i)] = counts.get(id(i), 0) + 1
    for r in graph.roots():
        counts[id(r)] = counts.get(id(r), 0) + 1
    return counts


def _as_node(x, rule: Rule, old: Node) -> Node:
    node = x.node if isinstance(x, Tensor) else x
    if not isinstance(node, Node):
        raise FgraphError(f"rule {rule.name!r} built {type(x).__name__}, not a lazy array")
    if node.shape != old.shape or node.dtype != old.dtype:
        raise FgraphError(f"rule {rule.name!r} changed {old.dtype}{list(old.shape)} into "
                          f"{node.dtype}{list(node.shape)}")
    return node

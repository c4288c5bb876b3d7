"""The Optimiser layer: pure passes ``Graph -> Graph`` and the pipeline.

``optimise(graph)`` runs the simplification passes (dead updates, CSE,
constant folding, algebraic rules) to a fixed point, then fusion (pattern
fusion: fma and AdaGrad; then element-wise groups).  Nothing in the default
pipeline changes a result: fused element-wise kernels apply the same ufuncs
in the same order to each element.  ``fast_math=True`` adds the rules that
ignore NaN/inf/signed zeros.
"""
from __future__ import annotations

from typing import Sequence

from ..graph import Graph
from .algebra import EXACT, FAST_MATH
from .basic import cse, dead_updates, fold_constants
from .framework import Pass, Report, record, rewrite, run_passes
from .fusion import PATTERN_RULES, fuse_elementwise, fuse_patterns
from .pattern import AnyOp, Lit, Match, Op, Rule, Var, rules_pass

#: rules anyone may extend: ``fgraph.optimiser.USER_RULES.append(Rule(...))``
USER_RULES: list[Rule] = []

simplify = rules_pass(EXACT, "simplify")
simplify_fast_math = rules_pass(EXACT + FAST_MATH, "simplify_fast_math")


def default_passes(fast_math: bool = False) -> tuple[tuple[Pass, ...], tuple[Pass, ...]]:
    """(passes run to a fixed point, passes run once after them)."""
    rules = [r for r in USER_RULES if fast_math or not r.fast_math]
    algebra = simplify_fast_math if fast_math else simplify
    first = [dead_updates, cse, fold_constants, algebra]
    if rules:
        first.append(rules_pass(rules, "user_rules"))
    return tuple(first), (fuse_patterns, fuse_elementwise, cse)


def optimise(graph: Graph, passes: Sequence[Pass] | None = None, fast_math: bool = False,
             report: bool = False, max_rounds: int = 10):
    """Optimise ``graph``; pure (the input is never changed).

    ``passes``: run these to a fixed point instead of the default pipeline.
    ``report=True`` returns ``(graph, Report)``: per pass, nodes before and
    after, time, and which rules fired.
    """
    if not isinstance(graph, Graph):
        graph = Graph(graph)
    rep = Report() if report else None
    if passes is not None:
        g = run_passes(graph, tuple(passes), rep, fixed_point=True, max_rounds=max_rounds)
    else:
        first, last = default_passes(fast_math)
        g = run_passes(graph, first, rep, fixed_point=True, max_rounds=max_rounds)
        g = run_passes(g, last, rep, fixed_point=False)
    return (g, rep) if report else g


optimize = optimise

__all__ = ["optimise", "optimize", "Report", "Rule", "Op", "AnyOp", "Var", "Lit", "Match", "rules_pass",
           "rewrite", "record", "cse", "dead_updates", "fold_constants", "simplify", "fuse_patterns",
           "fuse_elementwise", "USER_RULES", "PATTERN_RULES", "default_passes"]

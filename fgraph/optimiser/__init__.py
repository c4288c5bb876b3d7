"""The Optimiser layer: pure passes ``Graph -> Graph`` and the pipeline.

``optimise(graph)`` runs the simplification passes (dead updates; CSE,
constant folding and algebraic rules in one sweep; loops and branches:
scans that differ only in their ys merged, as a loss's and its gradient's;
their bodies simplified, trivial ones inlined, dead carries removed) to a
fixed point, then fusion (pattern
fusion: fma and AdaGrad; then element-wise groups).  Nothing in the default
pipeline changes a result: fused element-wise kernels apply the same ufuncs
in the same order to each element.  ``fast_math=True`` adds the rules that
ignore NaN/inf/signed zeros.
"""
from __future__ import annotations

from typing import Sequence

from ..graph import Graph
from ..symbol import no_gc
from .algebra import EXACT, FAST_MATH
from .basic import cse, cse_step, dead_updates, fold_constants, fold_step
from .control import loops, merge_scans
from .framework import Pass, Report, record, rewrite, run_passes
from .fusion import PATTERN_RULES, fuse_elementwise, fuse_patterns, fuse_reductions
from .pattern import AnyOp, Lit, Match, Op, Rule, Var, rules_pass, rules_step

#: rules anyone may extend: ``fgraph.optimiser.USER_RULES.append(Rule(...))``
USER_RULES: list[Rule] = []

simplify = rules_pass(EXACT, "simplify")
simplify_fast_math = rules_pass(EXACT + FAST_MATH, "simplify_fast_math")


def simplify_all(fast_math: bool = False) -> Pass:
    """CSE, constant folding and the algebra (and user) rules in one
    bottom-up sweep: each node is merged, folded and rewritten after its
    inputs were, so one sweep usually reaches the fixed point."""
    rules = EXACT + (FAST_MATH if fast_math else []) + [r for r in USER_RULES if fast_math or not r.fast_math]

    def simplify_sweep(graph: Graph) -> Graph:
        merge, fold = cse_step(), fold_step()
        rule, origin = rules_step(rules, graph)

        def step(node):
            node = fold(merge(node))
            return merge(rule(node))

        return rewrite(graph, step, origin)

    return simplify_sweep


def default_passes(fast_math: bool = False) -> tuple[tuple[Pass, ...], tuple[Pass, ...]]:
    """(passes run to a fixed point, passes run once after them)."""
    return (dead_updates, simplify_all(fast_math), loops), (fuse_patterns, fuse_elementwise, fuse_reductions)


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
    with no_gc():
        if passes is not None:
            g = run_passes(graph, tuple(passes), rep, fixed_point=True, max_rounds=max_rounds)
        else:
            first, last = default_passes(fast_math)
            g = run_passes(graph, first, rep, fixed_point=True, max_rounds=max_rounds)
            g = run_passes(g, last, rep, fixed_point=False)
    return (g, rep) if report else g


optimize = optimise

__all__ = ["optimise", "optimize", "Report", "Rule", "Op", "AnyOp", "Var", "Lit", "Match", "rules_pass",
           "rewrite", "record", "cse", "dead_updates", "fold_constants", "simplify", "simplify_all", "fuse_patterns",
           "fuse_elementwise", "fuse_reductions", "USER_RULES", "PATTERN_RULES", "default_passes", "loops",
           "merge_scans"]

"""Choosing between two ways to run the same thing by timing them."""
from __future__ import annotations

import time
from math import inf


class Race:
    """Two ways to run one thing, timed on their first calls, the faster
    kept: a large step compiled whole against the optimised program (its
    fused kernels; which wins depends on the step: at 262,144 elements
    gray_scott's rolls took 1.6 against 2.6 ms, adam's arithmetic 4.1
    against 3.3), a step compiled whole run by one thread or by all.  The
    one not kept runs again every ``RECHECK`` calls, so a trial slowed by
    other work on the machine (a compile in the background takes a core)
    is not final: the best time of each decides (the eager bench's
    gray_scott had kept the optimised program, 2.2 against 1.0 ms a step).
    ``race(x)`` is ``a(x)`` or ``b(x)``."""

    __slots__ = ("a", "b", "best", "runs", "winner", "calls")
    TRIALS = 3  # timed calls of each (the best counts: a first call pays for fresh memory)
    RECHECK = 32

    def __init__(self, a, b):
        self.a, self.b, self.winner, self.calls = a, b, None, 0
        self.best, self.runs = [inf, inf], [0, 0]

    def __call__(self, values):
        self.calls += 1
        if self.winner is not None and self.calls % self.RECHECK:
            return self.winner(values)
        if self.winner is None:
            k = 0 if self.runs[0] <= self.runs[1] else 1
        else:
            k = 1 if self.winner is self.a else 0  # the other one, again
        t0 = time.perf_counter()
        out = (self.a, self.b)[k](values)
        self.best[k] = min(self.best[k], time.perf_counter() - t0)
        self.runs[k] += 1
        if min(self.runs) >= self.TRIALS:
            self.winner = self.a if self.best[0] <= self.best[1] else self.b
        return out

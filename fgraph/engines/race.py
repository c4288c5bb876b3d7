"""Choosing between two ways to run the same thing by timing them."""
from __future__ import annotations

import time
from collections import deque


class Race:
    """Two ways to run one thing, timed on their first calls, the faster
    kept: a large step compiled whole against the optimised program (its
    fused kernels; which wins depends on the step: at 262,144 elements
    gray_scott's rolls took 1.6 against 2.6 ms, adam's arithmetic 4.1
    against 3.3), a step compiled whole run by one thread or by all.  The
    one not kept runs again every ``RECHECK`` calls, so a trial slowed by
    other work on the machine (a compile in the background takes a core)
    is not final: the best of each one's latest runs decides (the eager
    bench's gray_scott had kept the optimised program, 2.2 against 1.0 ms
    a step; a step shared among threads that was fast while the machine
    was idle is dropped when another program takes a core).
    ``race(x)`` is ``a(x)`` or ``b(x)``."""

    __slots__ = ("a", "b", "recent", "winner", "calls")
    TRIALS = 3  # timed calls of each before a choice (the best counts: a first call pays for fresh memory)
    RECHECK = 32
    WINDOW = 4  # the latest runs of each that count: a program that was fast once is not kept for good

    def __init__(self, a, b):
        self.a, self.b, self.winner, self.calls = a, b, None, 0
        self.recent = (deque(maxlen=self.WINDOW), deque(maxlen=self.WINDOW))

    def __call__(self, values):
        self.calls += 1
        if self.winner is None:
            k = 0 if len(self.recent[0]) <= len(self.recent[1]) else 1
        else:
            k = 0 if self.winner is self.a else 1
            if not self.calls % self.RECHECK:
                k = 1 - k  # the other one, again
        t0 = time.perf_counter()
        out = (self.a, self.b)[k](values)
        self.recent[k].append(time.perf_counter() - t0)
        if min(len(r) for r in self.recent) >= self.TRIALS:
            self.winner = self.a if min(self.recent[0]) <= min(self.recent[1]) else self.b
        return out

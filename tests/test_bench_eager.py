"""The eager benchmark's programs (``python -m fgraph.bench eager``) as a
correctness test: each plain NumPy program, at its tiny size and for a few
steps, gives fgraph.numpy the same final result as NumPy (shape, dtype and
values).  No timing is asserted.

A program that exposes an fgraph bug stays as NumPy users write it: it goes
into ``KNOWN_FAILURES`` (xfail, strict) until the bug is fixed.
"""
import numpy
import pytest

import fgraph
import fgraph.numpy as fnp
from fgraph.bench.eager import PROGRAMS, TINY, compare
from fgraph.bench.eager_jit import JIT_PROGRAMS, _loop

#: enough steps to reach each program's interesting part at the tiny size (BFS reaches
#: the goal and walks the path back; k-means converges), a few otherwise
STEPS = {"bfs_grid": 60, "kmeans": 20}
DEFAULT_STEPS = 6

# program -> why fgraph fails it today. Remove an entry when its program passes.
KNOWN_FAILURES = {}


def _params():
    return [pytest.param(prog, id=prog.name,
                         marks=[pytest.mark.xfail(reason=KNOWN_FAILURES[prog.name], strict=True)]
                         if prog.name in KNOWN_FAILURES else [])
            for prog in PROGRAMS]


@pytest.mark.parametrize("prog", _params())
def test_program_matches_numpy(prog):
    assert TINY in prog.sizes
    steps = STEPS.get(prog.name, DEFAULT_STEPS)
    want, want_times = prog.fn(numpy, TINY, steps)
    got, got_times = prog.fn(fnp, TINY, steps)
    assert compare(want, got) == "ok"
    assert len(got_times) == len(want_times)  # the same data-dependent control flow


def test_programs_cover_the_sizes():
    """Every program has a tiny and a medium size; the element-wise-heavy ones a large one too."""
    assert len(PROGRAMS) >= 10
    for prog in PROGRAMS:
        assert min(prog.sizes) < 1e3 and any(s >= 1e4 for s in prog.sizes)
        assert prog.quick_steps < prog.steps
    assert sum(any(s >= 1e5 for s in p.sizes) for p in PROGRAMS) >= 2


def test_bfs_reaches_the_goal_at_the_tiny_size():
    """The test's steps for BFS are enough for its path walk-back (``int()`` reads) to run."""
    bfs = next(p for p in PROGRAMS if p.name == "bfs_grid")
    result, _ = bfs.fn(numpy, TINY, STEPS["bfs_grid"])
    assert result[1].sum() > 1 and result[1][-1, -1] == 1 and result[1][0, 0] == 1


def test_compare_reports_every_difference():
    a = numpy.arange(6.0).reshape(2, 3)
    assert compare(a, a.copy()) == "ok"
    assert compare(a, a.ravel()).startswith("MISMATCH shape")
    assert compare(a, a.astype("float32")).startswith("MISMATCH dtype")
    assert compare(a, a + 1).startswith("MISMATCH values")


@pytest.mark.parametrize("prog", JIT_PROGRAMS, ids=lambda p: p.name)
def test_jit_steps_match_numpy(prog):
    """The benchmark's steps under fgraph.jit give NumPy's states."""
    start = prog.start(TINY, numpy.random.default_rng(1))
    want, _ = _loop(prog, prog.step(numpy), list(start), 4)
    got, _ = _loop(prog, fgraph.jit(prog.step(fnp)), list(start), 4)
    for g, w in zip(got, want):
        numpy.testing.assert_array_equal(g, w)

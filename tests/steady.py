"""Steady state for memory tests: fused kernels choose their strategy by
timing the first calls (native candidates compile in the background,
longer on a cold kernel cache), and the trials allocate scratch of their
own; a test measuring a steady step's allocations runs past them first."""
import time

from fgraph.engines.numpy_kernels import fused
from fgraph.engines.numpy_kernels.native import settle


def _progress() -> dict:
    """Each expression still choosing: how many trials it has run."""
    return {k: sum(map(len, v.values())) for k, v in list(fused._choice.items()) if not isinstance(v, str)}


def run_until_settled(step, warm: int = 12, tries: int = 400) -> None:
    """Run ``step()`` until every fused strategy it meets is chosen: the
    expressions it adds, and those another test left choosing that its
    calls go on trying (keyed by expression, shape and dtypes, they are
    shared)."""
    before = set(fused._choice)
    ours: set = set()
    for _ in range(warm):
        was = _progress()
        step()
        ours |= {k for k, n in _progress().items() if was.get(k) != n}
    ours |= set(fused._choice) - before
    settle()  # native candidates compiled: a pending one runs untimed until then
    for _ in range(tries):
        if all(isinstance(fused._choice[k], str) for k in ours):
            return
        time.sleep(0.005)
        was = _progress()
        step()
        ours |= {k for k, n in _progress().items() if was.get(k) != n}
    raise AssertionError("the fused strategies never settled")

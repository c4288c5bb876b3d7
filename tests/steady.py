"""Steady state for memory tests: fused kernels choose their strategy by
timing the first calls (native candidates compile in the background,
longer on a cold kernel cache), and the trials allocate scratch of their
own; a test measuring a steady step's allocations runs past them first."""
import time

from fgraph.engines.numpy_kernels import fused


def run_until_settled(step, warm: int = 12, tries: int = 400) -> None:
    """Run ``step()`` until every fused strategy it meets is chosen."""
    before = set(fused._choice)
    for _ in range(warm):
        step()
    ours = set(fused._choice) - before
    for _ in range(tries):
        if all(isinstance(fused._choice[k], str) for k in ours):
            return
        time.sleep(0.005)
        step()
    raise AssertionError("the fused strategies never settled")

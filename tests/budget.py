"""Hypothesis example counts, from the profile (``HYPOTHESIS_PROFILE``).

A test states its budget relative to the default run (``max_examples=
examples(30)``: 30 examples there); the profile scales every budget at once:

- ``default``: the README's ``pytest`` (under 3 minutes on 2 cores);
- ``quick``: a fifth of the examples, for a contributor's edit-test loop;
- ``thorough``: ten times as many (the random-graph oracles: 1000 graphs each).
"""
import os

SCALE = {"quick": 0.2, "default": 1.0, "thorough": 10.0}
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")


def examples(n: int) -> int:
    """The example count for a test budgeted ``n`` examples in the default run."""
    return max(1, round(n * SCALE.get(PROFILE, 1.0)))

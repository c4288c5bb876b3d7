from hypothesis import HealthCheck, settings

from budget import examples

# example counts come from the profile, HYPOTHESIS_PROFILE=quick | default | thorough (tests/budget.py):
# a test's own budget is examples(n); one without a budget runs examples(100)
settings.register_profile("fgraph", deadline=None, max_examples=examples(100),
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("fgraph")

# every plan the tests compile is verified by the independent checker
import fgraph.engines.arena as _arena  # noqa: E402

_arena.CHECK = True
from fgraph.engines.program import Program as _Program  # noqa: E402

_Program.CHECK = True  # and every kernel's result must match its node's shape and dtype


# ---------------------------------------------------------------- the CuPy engine's fixtures
import pytest  # noqa: E402


@pytest.fixture(scope="module")
def host():
    """The CuPy engine on the NumPy device: everything but the generated CUDA, without a GPU."""
    from fgraph.devices import NumpyDevice
    from fgraph.engines.cupy_engine import CupyEngine

    return CupyEngine(device=NumpyDevice())


@pytest.fixture(scope="module")
def cuda():
    """The CuPy engine on a GPU (skipped, with the reason, without CuPy or a GPU)."""
    pytest.importorskip("cupy", reason="the CuPy engine's GPU tests need CuPy")
    from fgraph.devices.cupy_device import unavailable
    from fgraph.engines.cupy_engine import CupyEngine

    reason = unavailable()
    if reason is not None:
        pytest.skip(f"the CuPy engine's GPU tests need a GPU: {reason}")
    return CupyEngine()

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, max_examples=100,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# HYPOTHESIS_PROFILE=thorough: the random-graph oracles run 2000 graphs each
settings.register_profile("thorough", deadline=None, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

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

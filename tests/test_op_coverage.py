"""Every registered op says, for every layer that runs or transforms it,
what happens: a kernel or rule, or an explicit ``Refused(reason)``.

This is the checklist CONTRIBUTING.md gives for adding an op: an op that
misses one fails here by name, instead of failing for a user the first time
a graph holding it is differentiated, sent to another engine or
micro-batched.
"""
import pytest

import fgraph
import fgraph.numpy  # noqa: F401  (registers the ops)
from fgraph.registry import ATTRIBUTES, Refused, attr_table, get_attr, kernel_attrs, registered_ops

# the engines and transforms attach what is theirs on import
import fgraph.autodiff  # noqa: F401,E402
import fgraph.engines.numpy_engine  # noqa: F401,E402
import fgraph.engines.cupy_kernels  # noqa: F401,E402  (registers without CuPy installed: kernels are plain functions)
import fgraph.engines.microbatch  # noqa: F401,E402
from fgraph.ops.batching import rule_for  # noqa: E402

dask = pytest.importorskip("dask", reason="the Dask engine's lowerings need dask")
import fgraph.engines.dask_engine  # noqa: F401,E402

OPS = sorted(registered_ops())
#: leaves the engines fill themselves (feeds, state): no kernel, no gradient rule
FILLED = {op for op in OPS if get_attr(op, "leaf", False) and op in ("placeholder", "variable")}


def _has(attr: str, op: str) -> bool:
    return attr_table(attr).get(op) is not None


def _missing(check) -> list[str]:
    return [op for op in OPS if op not in FILLED and not check(op)]


def test_every_op_has_a_numpy_kernel_or_a_refusal():
    assert _missing(lambda op: _has(kernel_attrs("numpy").kernel, op)) == []


def test_every_op_has_a_gradient_or_a_refusal():
    # a leaf (a constant, a literal) has no inputs to differentiate
    leaves = {op for op in OPS if get_attr(op, "leaf", False)}
    assert _missing(lambda op: op in leaves or _has("grad", op)) == []


def test_every_op_has_a_cupy_route_or_a_refusal():
    assert _missing(lambda op: _has(kernel_attrs("cupy").kernel, op)) == []


def test_every_op_has_a_dask_lowering_or_a_refusal():
    # an element-wise op with a NumPy kernel gets the engine's element-wise lowering
    implied = attr_table("elementwise")
    assert _missing(lambda op: _has(kernel_attrs("dask").kernel, op) or implied.get(op)) == []


def test_every_op_has_a_micro_batching_rule_or_a_refusal():
    # an array made from params alone depends on no batched feed: micro-batching keeps it as it is
    made = {op for op in OPS if get_attr(op, "creation", False) or get_attr(op, "leaf", False)}
    assert _missing(lambda op: op in made or rule_for(op) is not None) == []


def test_refusals_give_a_reason():
    for attr in ATTRIBUTES:
        for op, value in attr_table(attr).items():
            if isinstance(value, Refused):
                assert isinstance(value.reason, str) and len(value.reason) > 10, (attr, op, value)


def test_a_misspelt_attribute_raises():
    with pytest.raises(fgraph.FgraphError, match="unknown op attribute 'numpy_kernal'.*numpy_kernel"):
        attr_table("numpy_kernal")
    with pytest.raises(fgraph.FgraphError, match="unknown op attribute"):
        fgraph.set_attr("add", "elementwize", True)
    with pytest.raises(TypeError):
        from fgraph.opdef import OpDef
        OpDef("never_registered", lambda *a: None, elementwize=True)


@pytest.fixture
def probe_op():
    """A name for an op registered by the test and removed after it (other
    tests walk every registered op)."""
    from fgraph import registry

    name = "coverage_probe_step"
    yield name
    registry._OPS.pop(name, None)
    for column in registry._ATTRS.values():
        column.pop(name, None)


def test_a_refused_gradient_names_the_op_and_its_reason(probe_op):
    from fgraph.opdef import OpDef
    from fgraph.tensor import apply

    name = probe_op
    OpDef(name, lambda inputs: (inputs[0].shape, inputs[0].dtype), "a probe op",
          kernel=lambda x: (x > 0) * 1.0, grad=Refused("it stands for a step function in this test")).register()
    x = fgraph.numpy.placeholder((3,), "float64", name="x")
    y = apply(name, (x,)).sum()
    with pytest.raises(fgraph.FgraphError, match="coverage_probe_step' is not differentiable: it stands for a step"):
        fgraph.grad(y, x)

"""The element-wise family is declared in one place (fgraph/ops/elementwise.py,
ops/ufunc.py, ops/fused.py): each op's OpDef carries its kernels, its
gradient and its flags, and a new element-wise op needs nothing else."""
import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp
from fgraph.opdef import OpDef, no_gradient
from fgraph.ops.elementwise import UFUNCS, out_form
from fgraph.registry import Refused, attr_table, get_attr
from fgraph.tensor import apply

NON_UFUNCS = ("where", "clip", "round", "fix", "real", "imag", "astype", "complex")


def test_every_ufunc_has_a_gradient_rule_from_the_tables():
    # (a ufunc a later NumPy adds gets a Refused until the tables give it a rule: this test names it)
    refused = sorted(op for op in UFUNCS if isinstance(get_attr(op, "grad"), Refused))
    assert refused == []


@pytest.mark.parametrize("op", sorted(UFUNCS) + list(NON_UFUNCS))
def test_each_op_declares_its_kernels_gradient_and_flags(op):
    assert get_attr(op, "elementwise") is True
    assert callable(get_attr(op, "numpy_kernel")) and callable(get_attr(op, "numpy_out_kernel"))
    assert get_attr(op, "grad") is not None
    assert out_form(op) is get_attr(op, "numpy_out_kernel")
    assert get_attr(op, "fusable", None) is (None if op == "complex" else True)
    if op in UFUNCS and UFUNCS[op].nout == 1:
        assert get_attr(op, "numpy_kernel") is UFUNCS[op] is get_attr(op, "numpy_out_kernel")


def test_the_ops_optimiser_passes_build_declare_their_facts():
    for op in ("fused", "fused_reduce", "fma", "adagrad"):
        assert isinstance(get_attr(op, "grad"), Refused) and "expand" in get_attr(op, "grad").reason
    assert callable(get_attr("fused", "may_raise")) and callable(get_attr("fused_reduce", "may_raise"))
    assert callable(get_attr("fused_reduce", "batch_rule"))
    may_raise = get_attr("power", "may_raise")
    assert may_raise((fnp.placeholder((2,), "int64") ** 2).node) and not may_raise((fnp.ones(2) ** 2).node)
    for op in ("ufunc_reduce", "ufunc_accumulate", "ufunc_reduceat", "ufunc_at"):
        assert callable(get_attr(op, "numpy_kernel")) and callable(get_attr(op, "grad"))


def test_piecewise_constant_ops_pass_no_gradient():
    for op in ("floor", "sign", "equal", "round", "fix"):
        assert get_attr(op, "grad") is no_gradient


@pytest.mark.parametrize("op", ["where", "clip", "round", "fix", "real", "imag", "astype", "complex"])
def test_the_out_kernel_matches_the_kernel(op):
    rng = np.random.default_rng(0)
    x, lo, hi = rng.normal(size=(3, 4)) * 5, -1.0, np.full((4,), 2.0)
    args, params = {
        "where": ((x > 0, x, -x), {}), "clip": ((x, lo, hi), {}), "round": ((x,), {"decimals": 1}),
        "fix": ((x,), {}), "real": ((x + 2j * x,), {}), "imag": ((x + 2j * x,), {}),
        "astype": ((x,), {"dtype": np.dtype(np.int16)}), "complex": ((x, -x), {"dtype": np.dtype(np.complex64)}),
    }[op]
    want = get_attr(op, "numpy_kernel")(*args, **params)
    out = np.empty(want.shape, want.dtype)
    got = get_attr(op, "numpy_out_kernel")(*args, out=out, **params)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(out, want)


@pytest.fixture
def softplus_op():
    """A new element-wise op, declared in one OpDef, removed after the test."""
    from fgraph import registry

    name = "softplus_probe"

    def rule(inputs):
        (x,) = inputs
        return x.shape, x.dtype

    def grad(out, ins, g):
        return (g / (1.0 + fnp.exp(-ins[0])),)

    OpDef(name, rule, "log(1 + exp(x))", elementwise=True, fusable=True, nin=1, inplace="all",
          kernel=lambda x: np.logaddexp(0.0, x), out_kernel=lambda x, out: np.logaddexp(0.0, x, out=out),
          grad=grad).register()
    yield name
    registry._OPS.pop(name, None)
    for column in registry._ATTRS.values():
        column.pop(name, None)


def test_a_new_elementwise_op_needs_only_its_opdef(softplus_op):
    x = np.linspace(-3.0, 3.0, 12).reshape(3, 4)

    def f(t):
        return (apply(softplus_op, (fnp.tanh(t) * 2.0,)) * 3.0 + 1.0).sum()

    want = (np.logaddexp(0.0, np.tanh(x) * 2.0) * 3.0 + 1.0).sum()
    np.testing.assert_allclose(fgraph.jit(f)(x), want)          # optimised: the op joins a fused group
    t = fnp.placeholder(x.shape, "float64", name="x")
    graph = fgraph.optimise(fgraph.Graph(outputs=[f(t)], inputs=[t]))
    assert any(n.op == "fused" and softplus_op in {i[0] for i in n.param("expr")} for n in graph.nodes())
    g = fgraph.grad(f)(x)
    np.testing.assert_allclose(g, 3.0 / (1.0 + np.exp(-np.tanh(x) * 2.0)) * 2.0 * (1.0 - np.tanh(x) ** 2))
    assert set(attr_table("fusable")) >= {softplus_op}


def test_a_new_elementwise_op_runs_on_every_engine_and_micro_batched(softplus_op, host):
    """Its routes are implied by the flag: the CuPy engine (here on the NumPy
    device) runs its NumPy kernel on device arrays, the Dask engine maps it
    over blocks, and micro-batching keeps its rows apart."""
    x = np.linspace(-3.0, 3.0, 24).reshape(6, 4)
    t = fnp.placeholder(x.shape, "float64", name="x")
    graph = fgraph.Graph(apply(softplus_op, (t * 2.0,)) - 1.0)
    want = np.logaddexp(0.0, x * 2.0) - 1.0
    np.testing.assert_allclose(host.compile(graph, to_host=True)(x=x), want)
    np.testing.assert_allclose(fgraph.compile(graph, micro_batch=4)(x=x), want)
    pytest.importorskip("dask", reason="the Dask engine needs dask")
    np.testing.assert_allclose(np.asarray(fgraph.compile(graph, engine="dask")(x=x)), want)


def test_reduceat_keeps_the_rows_of_a_micro_batch_apart():
    x = fnp.placeholder((6, 5), "float64", name="x")
    g = fgraph.Graph(fnp.subtract.reduceat(x * 2.0, [0, 2, 3], axis=1))
    feed = np.arange(30.0).reshape(6, 5) ** 1.5
    want = np.subtract.reduceat(feed * 2.0, [0, 2, 3], axis=1)
    for k in (2, 4):
        np.testing.assert_array_equal(fgraph.compile(g, micro_batch=k)(x=feed), want)
    with pytest.raises(fgraph.FgraphError, match="batch axis 0"):
        fgraph.compile(fgraph.Graph(fnp.subtract.reduceat(x, [0, 2], axis=0)), micro_batch=2)

"""Element-wise gradient rules against finite differences; the grad API."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from budget import examples

import fgraph
import fgraph.numpy as fnp
from gradcheck import check_grad, check_grad2
from oracle import arrays

# (function, input ranges that keep away from non-smooth points and domain edges)
UNARY = {
    "negative": (-2, 2), "positive": (-2, 2), "absolute": (0.2, 2), "fabs": (0.2, 2), "exp": (-2, 2),
    "exp2": (-2, 2), "expm1": (-2, 2), "log": (0.2, 3), "log2": (0.2, 3), "log10": (0.2, 3), "log1p": (-0.5, 2),
    "sqrt": (0.2, 3), "cbrt": (0.2, 3), "square": (-2, 2), "reciprocal": (0.3, 3), "sin": (-3, 3),
    "cos": (-3, 3), "tan": (-1, 1), "arcsin": (-0.8, 0.8), "arccos": (-0.8, 0.8), "arctan": (-3, 3),
    "sinh": (-2, 2), "cosh": (-2, 2), "tanh": (-2, 2), "arcsinh": (-2, 2), "arccosh": (1.2, 3),
    "arctanh": (-0.8, 0.8), "deg2rad": (-2, 2), "radians": (-2, 2), "rad2deg": (-2, 2), "degrees": (-2, 2),
    "conjugate": (-2, 2),
}
BINARY = {
    "add": ((-2, 2), (-2, 2)), "subtract": ((-2, 2), (-2, 2)), "multiply": ((-2, 2), (-2, 2)),
    "divide": ((-2, 2), (0.5, 2)), "power": ((0.5, 2), (-1.5, 1.5)), "float_power": ((0.5, 2), (-1.5, 1.5)),
    "arctan2": ((0.3, 2), (0.3, 2)), "hypot": ((0.3, 2), (0.3, 2)), "logaddexp": ((-2, 2), (-2, 2)),
    "logaddexp2": ((-2, 2), (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=examples(8))
@given(data=st.data())
def test_unary_rules(name, data):
    lo, hi = UNARY[name]
    a = data.draw(arrays(np.float64, data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=4)), lo, hi))
    check_grad(lambda xp, x: getattr(xp, name)(x), a)


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=examples(8))
@given(data=st.data())
def test_binary_rules_with_broadcasting(name, data):
    (l1, h1), (l2, h2) = BINARY[name]
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3))
    a = data.draw(arrays(np.float64, shapes.input_shapes[0], l1, h1))
    b = data.draw(arrays(np.float64, shapes.input_shapes[1], l2, h2))
    check_grad(lambda xp, x, y: getattr(xp, name)(x, y), a, b)


@settings(max_examples=examples(10))
@given(a=arrays(np.float64, (4,), -2, 2), b=arrays(np.float64, (4,), -2, 2))
def test_piecewise_rules(a, b):
    b = np.where(np.abs(a - b) < 0.1, b + 0.3, b)  # away from ties
    for f in (lambda xp, x, y: xp.maximum(x, y), lambda xp, x, y: xp.minimum(x, y),
              lambda xp, x, y: xp.fmax(x, y), lambda xp, x, y: xp.fmin(x, y),
              lambda xp, x, y: xp.where(x > y, x * y, x - y)):
        check_grad(f, a, b)
    away = np.where(np.abs(a) < 0.1, 0.5, a), np.where(np.abs(b) < 0.1, -0.5, b)  # copysign jumps at 0
    check_grad(lambda xp, x, y: xp.copysign(x, y) * 1.0, *away)
    # remainder and fmod jump where x crosses a multiple of y: keep 0 < x < y
    for f in (lambda xp, x, y: xp.remainder(x, y), lambda xp, x, y: xp.fmod(x, y)):
        check_grad(f, np.abs(a) + 0.1, np.abs(b) + 3.0)
    a = np.where(np.abs(np.abs(a) - 1) < 0.1, a * 0.5, a)
    check_grad(lambda xp, x: xp.clip(x, -1.0, 1.0), a)
    a = np.where(np.abs(a - np.round(a)) < 0.1, a + 0.3, a)  # floor jumps at integers
    check_grad(lambda xp, x: xp.floor(x) + x * 2, a)


def test_literal_and_dtype_handling():
    x = fnp.asarray(np.array([1.0, 2.0], "float32"))
    g = fgraph.grad(fnp.sum(x ** 2 * 3), x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(np.asarray(g), [6.0, 12.0])
    i = fnp.asarray(np.array([1, 2]))
    y = fnp.sum(x * i)  # an integer input gets no gradient; the float one does
    np.testing.assert_allclose(np.asarray(fgraph.grad(y, x)), [1.0, 2.0])
    with pytest.raises(fgraph.DTypeError, match="only floating"):
        fgraph.grad(y, i)
    # a real input and output joined through complex values: refused, never a silent zero
    with pytest.raises(fgraph.FgraphError, match="passes through complex values"):
        fgraph.grad(fnp.sum(fnp.abs(x * 1j)), x)
    with pytest.raises(fgraph.FgraphError, match="passes through complex values"):
        fgraph.grad(fnp.sum(fnp.real(x.astype("complex64")) * x), x)


@settings(max_examples=examples(5))
@given(a=arrays(np.float64, (3,), -1, 1), b=arrays(np.float64, (3,), 0.5, 2))
def test_second_derivatives(a, b):
    check_grad2(lambda xp, x, y: xp.sum(xp.tanh(x * y) * xp.exp(x) / y), a, b)
    check_grad2(lambda xp, x, y: xp.sum(xp.sin(x) ** 2 + xp.log(y) * x), a, b)


def test_grad_api_structures_and_errors():
    w = fnp.asarray(np.array([1.0, 2.0]))
    b = fnp.asarray(np.array(0.5))
    y = fnp.sum(fnp.tanh(w * 2.0 + b))
    gw, gb = fgraph.grad(y, [w, b])
    d = fgraph.grad(y, {"w": w, "b": b})
    np.testing.assert_allclose(np.asarray(d["w"]), np.asarray(gw))
    assert gb.shape == ()
    unrelated = fnp.asarray(np.ones(3))
    np.testing.assert_array_equal(np.asarray(fgraph.grad(y, unrelated)), np.zeros(3))  # no dependence: zeros
    with pytest.raises(fgraph.FgraphError, match=r"(?s)scalar.*vjp.*test_grad_elementwise.py"):
        fgraph.grad(w * 2, w)


def test_function_transforms_and_jit():
    def f(x, y):
        return fnp.sum(fnp.sin(x) * y)

    x, y = np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 3.0])
    val, (gx, gy) = fgraph.value_and_grad(f, argnums=(0, 1))(x, y)
    assert isinstance(gx, np.ndarray)
    np.testing.assert_allclose(val, np.sum(np.sin(x) * y))
    np.testing.assert_allclose(gx, np.cos(x) * y)
    np.testing.assert_allclose(gy, np.sin(x))
    np.testing.assert_allclose(fgraph.grad(f)(x, y), np.cos(x) * y)
    jg = fgraph.jit(fgraph.grad(f, argnums=1))  # compiled backward pass
    np.testing.assert_allclose(jg(x, y), np.sin(x))
    out, pull = fgraph.vjp(lambda a: fnp.sin(a) * 2, x)
    np.testing.assert_allclose(pull(np.ones(3))[0], 2 * np.cos(x))
    out, tangent = fgraph.jvp(lambda a: fnp.sin(a) * a, (x,), (np.array([1.0, 0.0, 2.0]),))
    np.testing.assert_allclose(tangent, (np.cos(x) * x + np.sin(x)) * [1.0, 0.0, 2.0])


def test_gradients_of_optimised_graphs_equal_unoptimised():
    x = fnp.placeholder((50,), "float64", name="x")
    y = fnp.sum(fnp.tanh(x * 2.0 + 1.0) * fnp.exp(-x) * 1.0)
    g_plain = fgraph.Graph(fgraph.grad(y, x))
    opt = fgraph.optimise(fgraph.Graph(y))
    y_opt = fgraph.Tensor(opt.outputs[0])  # fused nodes: grad expands them
    assert any(n.op in ("fused", "fused_reduce") for n in opt.nodes())
    g_opt = fgraph.Graph(fgraph.grad(y_opt, x))
    v = np.linspace(-1, 1, 50)
    a = fgraph.compile(g_plain)(x=v)
    b = fgraph.compile(fgraph.optimise(g_opt))(x=v)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_gradient_of_float32_power_stays_float32():
    # x ** 2 with a Python exponent: the rule's x ** 1 must not promote to float64
    from fgraph.symbol import topological

    x = fnp.placeholder((3,), "float32")
    g = fgraph.grad(fnp.sum(x ** 2), x)
    assert {str(n.dtype) for n in topological([g.node]) if n.op != "literal"} == {"float32"}

"""Random programs of dozens of ops, written once against a namespace ``xp``.

``programs()`` draws inputs and steps; ``run_program(xp, inputs, steps)``
applies them and returns the pool of every value made (NumPy refusing a step
skips it; fgraph must then refuse too)."""
import warnings

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fgraph
from oracle import arrays

UNARY = [
    lambda xp, a: xp.negative(a), lambda xp, a: xp.abs(a), lambda xp, a: xp.sin(a), lambda xp, a: xp.tanh(a),
    lambda xp, a: xp.exp(xp.clip(a, -5, 5)), lambda xp, a: xp.sqrt(xp.abs(a)), lambda xp, a: a * a,
    lambda xp, a: xp.floor(a), lambda xp, a: xp.sign(a), lambda xp, a: a * 0.5 + 1,
    lambda xp, a: xp.sum(a, axis=-1) if a.ndim else a, lambda xp, a: xp.mean(a, axis=0, keepdims=True) if a.ndim else a,
    lambda xp, a: xp.max(a), lambda xp, a: xp.cumsum(a, axis=-1) if a.ndim else a,
    lambda xp, a: xp.transpose(a), lambda xp, a: xp.reshape(a, (-1,)), lambda xp, a: xp.expand_dims(a, 0),
    lambda xp, a: xp.flip(a), lambda xp, a: a[..., ::-1] if a.ndim else a, lambda xp, a: a.astype(xp.float32),
    lambda xp, a: xp.sort(a, axis=-1) if a.ndim else a, lambda xp, a: xp.square(a).T,
]
BINARY = [
    lambda xp, a, b: a + b, lambda xp, a, b: a - b, lambda xp, a, b: a * b, lambda xp, a, b: xp.maximum(a, b),
    lambda xp, a, b: xp.where(a > b, a, b), lambda xp, a, b: xp.hypot(a, b), lambda xp, a, b: a / (xp.abs(b) + 1),
]


@st.composite
def programs(draw):
    n_inputs = draw(st.integers(1, 3))
    base = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))
    inputs = []
    for _ in range(n_inputs):
        shape = draw(hnp.broadcastable_shapes(base, min_dims=0, max_dims=3, max_side=4))
        dt = draw(st.sampled_from([np.dtype("float64"), np.dtype("float32"), np.dtype("int64")]))
        inputs.append(draw(arrays(dt, shape, -3, 3)))
    steps = []
    for _ in range(draw(st.integers(10, 40))):
        if draw(st.booleans()):
            steps.append(("u", draw(st.integers(0, len(UNARY) - 1)), draw(st.integers(0, 1000))))
        else:
            steps.append(("b", draw(st.integers(0, len(BINARY) - 1)), draw(st.integers(0, 1000)),
                          draw(st.integers(0, 1000))))
    return inputs, steps


def _apply(xp, pool, step):
    if step[0] == "u":
        a = pool[step[2] % len(pool)]
        return UNARY[step[1]](xp, a)
    a, b = pool[step[2] % len(pool)], pool[step[3] % len(pool)]
    return BINARY[step[1]](xp, a, b)




def build(inputs, steps):
    """(NumPy pool, lazy pool, placeholders): the same steps, eagerly and lazily."""
    import fgraph.numpy as fnp

    eager = list(inputs)
    phs = [fnp.placeholder(a.shape, a.dtype, name=f"in{i}") for i, a in enumerate(inputs)]
    lazy = list(phs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in steps:
            try:
                want = _apply(np, eager, step)
            except ValueError:  # shapes that do not broadcast: fgraph must refuse too
                try:
                    _apply(fnp, lazy, step)
                except fgraph.ShapeError:
                    continue
                raise AssertionError("NumPy refused a step that fgraph accepted")
            got = _apply(fnp, lazy, step)
            assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype, (step, got, want)
            eager.append(want)
            lazy.append(got)
    return eager, lazy, phs


def feeds(inputs):
    return {f"in{i}": a for i, a in enumerate(inputs)}

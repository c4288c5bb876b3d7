"""The networks of fgraph.models: ResNet-50 and BN-Inception against
onnxruntime running the onnx package's light models with the same random
weights; the digits CNN against a NumPy reference and finite differences;
the digits training example; and the eager baseline the benchmark uses."""
import importlib.util
import os
import tracemalloc

import numpy as np
import pytest

import fgraph
import fgraph.numpy as fnp
from fgraph.models import (MODELS, as_constants, digits_cnn, digits_cnn_params, light_model_path,
                           onnx_with_params)
from gradcheck import check_grad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ort_run(model, feeds):
    ort = pytest.importorskip("onnxruntime")
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)[0]


@pytest.mark.parametrize("name, batch", [("resnet50", 1), ("inception_v2", 1), ("inception_v2", 2)])
def test_imagenet_model_matches_onnxruntime(name, batch):
    pytest.importorskip("onnx")
    fn, params_fn, light, input_name, _ = MODELS[name]
    params = params_fn(np.random.default_rng(7))
    model = onnx_with_params(light_model_path(light), params, batch=batch)
    # every weight of the ONNX graph is one of ours (no ConstantOfShape left), so the layouts agree
    assert not [n for n in model.graph.node if n.op_type == "ConstantOfShape"]
    assert {t.name for t in model.graph.initializer} >= set(params)
    images = np.random.default_rng(8).random((batch, 3, 224, 224), dtype=np.float32)
    want = _ort_run(model, {input_name: images})
    x = fnp.placeholder(images.shape, "float32", name="x")
    exe = fgraph.compile(fgraph.optimise(fgraph.Graph(fn(x, as_constants(params)))))
    got = exe(x=images)
    assert got.shape == (batch, 1000) and got.dtype == np.float32
    # the random weights give a spread-out softmax (neither flat nor one-hot), so this compares logits closely
    entropy = -np.sum(want * np.log(want), axis=1)
    assert np.all((entropy > 1.0) & (entropy < 0.95 * np.log(1000)))
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-7)


def test_onnx_with_params_checks_names_and_shapes():
    pytest.importorskip("onnx")
    params = MODELS["resnet50"][1](0)
    path = light_model_path("resnet50")
    with pytest.raises(KeyError, match="not weights"):
        onnx_with_params(path, {"no_such_weight": np.zeros(3, np.float32)})
    name = "gpu_0/conv1_w_0"
    with pytest.raises(ValueError, match="conv1_w_0"):
        onnx_with_params(path, {name: params[name][:1]})


# ---------------------------------------------------------------- the digits CNN

def _conv3x3_same(x, w, b):
    """Direct NumPy cross-correlation, 3x3 kernel, padding 1 (the reference)."""
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, wd), np.result_type(x, w))
    for a in range(3):
        for d in range(3):
            out += np.einsum("nchw,oc->nohw", xp[:, :, a:a + h, d:d + wd], w[:, :, a, d])
    return out + b[None, :, None, None]


def _pool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def _cnn(xp, x, c1w, c1b, c2w, c2b, fw, fb):
    p = dict(zip(("conv1_w", "conv1_b", "conv2_w", "conv2_b", "fc_w", "fc_b"), (c1w, c1b, c2w, c2b, fw, fb)))
    if xp is not np:
        return digits_cnn(x, p)
    y = _pool2(np.maximum(_conv3x3_same(x, c1w, c1b), 0))
    y = _pool2(np.maximum(_conv3x3_same(y, c2w, c2b), 0))
    return y.reshape(len(y), -1) @ fw + fb


def _tiny_cnn_args(dtype, seed=3):
    rng = np.random.default_rng(seed)
    p = digits_cnn_params(rng, dtype, channels=(3, 4))
    p = {k: (v + rng.normal(0, 0.1, v.shape)).astype(dtype) for k, v in p.items()}  # nonzero biases
    x = rng.random((2, 1, 8, 8)).astype(dtype)
    return [x] + [p[k] for k in ("conv1_w", "conv1_b", "conv2_w", "conv2_b", "fc_w", "fc_b")]


def test_digits_cnn_forward_matches_numpy():
    args = _tiny_cnn_args(np.float32)
    want = _cnn(np, *args)
    got = fgraph.compile(fgraph.optimise(fgraph.Graph(_cnn(fnp, *[fnp.asarray(a) for a in args]))))()
    assert got.shape == (2, 10) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_digits_cnn_gradient_matches_finite_differences():
    # float64, tiny batch; max pooling and ReLU are piecewise linear: random
    # data keeps every point away from their kinks by far more than eps
    check_grad(_cnn, *_tiny_cnn_args(np.float64), rtol=1e-5, atol=1e-6)


def test_digits_cnn_params_shapes():
    p = digits_cnn_params(0)
    x = fnp.placeholder((5, 1, 8, 8), "float32")
    assert digits_cnn(x, p).shape == (5, 10)
    assert all(v.dtype == np.float32 for v in p.values())


# ---------------------------------------------------------------- the training example

def _example(name):
    pytest.importorskip("sklearn")
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_train_digits_example_loss_falls():
    result = _example("train_digits_cnn").main(steps=12, rounds=3, train_size=200, verbose=False)
    losses = result["losses"]
    assert len(losses) == 4 and all(np.isfinite(losses))
    assert losses[-1] < 0.7 * losses[0]
    assert result["accuracy"] > 0.5  # ten classes: chance is 0.1; these 36 steps reach ~0.86


# ---------------------------------------------------------------- the benchmark's eager baseline

def test_unplanned_program_frees_each_value_after_its_last_use():
    """``compile(graph, plan_memory=False)``, the benchmark's "without the
    graph", holds what eager NumPy holds: a chain of 30 element-wise ops on
    1 MB arrays peaks at a few arrays, not 30."""
    n = 1 << 18  # float32: 1 MiB
    x = fnp.placeholder((n,), "float32", name="x")
    y = x
    for k in range(30):
        y = fnp.sin(y) * 1.5 + float(k)
    exe = fgraph.compile(fgraph.Graph(y), plan_memory=False)
    feed = np.random.default_rng(0).random(n, dtype=np.float32)
    exe(x=feed)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        exe(x=feed)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < 4 * n * 4, f"peak {peak / 2**20:.1f} MiB for 1 MiB values"

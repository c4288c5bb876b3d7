"""Inception v2 (BN-Inception, Ioffe and Szegedy 2015), as the ONNX model
zoo's Caffe2 export ``light_inception_v2.onnx``.

    from fgraph.models import inception_v2, inception_v2_params
    probs = inception_v2(fnp.placeholder((1, 3, 224, 224), "float32"), inception_v2_params(0))

Why v2 rather than v1 (GoogLeNet): it is the shipped network closest to the
InceptionV3 of Owl's table (batch norm after every convolution, the 5x5
branches factorised into two 3x3s, stride-2 reduction blocks), and it is
the larger one (69 convolutions, 10 concatenations), so it is the harder
test of memory planning; v1's local response norm and dropout add nothing
to that.

Every convolution unit here is, as in the ONNX graph: convolution (no bias)
-> batch norm (``bn_scale``, ``bn_bias``, ``bn_mean``, ``bn_var``) -> a
per-channel affine ``* bn/sc_w + bn/sc_b`` (Caffe's separate Scale layer)
-> ReLU.  Parameters are keyed by the ONNX initializer names.
"""
from __future__ import annotations

import numpy as np

from .. import nn
from .. import numpy as fnp
from .resnet import init_params

EPS = 1e-5
INPUT = "data_0"
OUTPUT = "prob_1"

#: standard blocks: (name, 1x1, 3x3 reduce, 3x3, double 3x3 reduce, double 3x3, pool projection, pool)
BLOCKS = {"3a": (64, 64, 64, 64, 96, 32, "avg"), "3b": (64, 64, 96, 64, 96, 64, "avg"),
          "4a": (224, 64, 96, 96, 128, 128, "avg"), "4b": (192, 96, 128, 96, 128, 128, "avg"),
          "4c": (160, 128, 160, 128, 160, 96, "avg"), "4d": (96, 128, 192, 160, 192, 96, "avg"),
          "5a": (352, 192, 320, 160, 224, 128, "avg"), "5b": (352, 192, 320, 192, 224, 128, "max")}
#: reduction blocks (stride 2, no 1x1 branch, max pool passes through): (3x3 reduce, 3x3, double reduce, double)
REDUCTIONS = {"3c": (128, 160, 64, 96), "4e": (128, 192, 192, 256)}
ORDER = ("3a", "3b", "3c", "4a", "4b", "4c", "4d", "4e", "5a", "5b")

#: Caffe's ceil-mode 3x3/2 max pool, exported as padding at the bottom and right
_CEIL_PAD = ((0, 1), (0, 1))


def _unit(x, params, name: str, stride=1, padding=0):
    """conv -> batch norm -> scale -> ReLU, parameters ``{name}_w_0`` and ``{name}/bn...``."""
    y = nn.conv2d(x, params[f"{name}_w_0"], stride=stride, padding=padding)
    y = nn.batch_norm(y, params[f"{name}/bn_mean_0"], params[f"{name}/bn_var_0"], params[f"{name}/bn_scale_0"],
                      params[f"{name}/bn_bias_0"], eps=EPS)
    c = y.shape[1]
    y = y * fnp.reshape(params[f"{name}/bn/sc_w_0"], (c, 1, 1)) + fnp.reshape(params[f"{name}/bn/sc_b_0"], (c, 1, 1))
    return nn.relu(y)


def _block(x, params, b: str):
    p = f"inception_{b}/"
    if b in REDUCTIONS:
        t = _unit(_unit(x, params, p + "3x3_reduce"), params, p + "3x3", stride=2, padding=1)
        d = _unit(_unit(x, params, p + "double3x3_reduce"), params, p + "double3x3a", padding=1)
        d = _unit(d, params, p + "double3x3b", stride=2, padding=1)
        return fnp.concatenate([t, d, nn.max_pool2d(x, 3, stride=2, padding=_CEIL_PAD)], axis=1)
    one = _unit(x, params, p + "1x1")
    t = _unit(_unit(x, params, p + "3x3_reduce"), params, p + "3x3", padding=1)
    d = _unit(_unit(x, params, p + "double3x3_reduce"), params, p + "double3x3a", padding=1)
    d = _unit(d, params, p + "double3x3b", padding=1)
    if BLOCKS[b][-1] == "avg":  # ONNX AveragePool's default: the padding is not counted
        pool = nn.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)
    else:
        pool = nn.max_pool2d(x, 3, stride=1, padding=1)
    return fnp.concatenate([one, t, d, _unit(pool, params, p + "pool_proj")], axis=1)


def inception_v2(x, params: dict):
    """BN-Inception class probabilities, (N, 1000), of images ``x`` (N, 3, 224, 224)."""
    y = _unit(x, params, "conv1/7x7_s2", stride=2, padding=3)
    y = nn.max_pool2d(y, 3, stride=2, padding=_CEIL_PAD)
    y = _unit(y, params, "conv2/3x3_reduce")
    y = _unit(y, params, "conv2/3x3", padding=1)
    y = nn.max_pool2d(y, 3, stride=2, padding=_CEIL_PAD)
    for b in ORDER:
        y = _block(y, params, b)
    y = nn.avg_pool2d(y, 7, stride=1)
    y = fnp.reshape(y, (y.shape[0], -1))
    logits = y @ fnp.transpose(params["loss3/classifier_w_0"]) + params["loss3/classifier_b_0"]
    return nn.softmax(logits, axis=1)


def _shapes() -> dict:
    shapes = {}

    def unit(name, cin, cout, k):
        shapes[f"{name}_w_0"] = (cout, cin, k, k)
        for s in ("bn_scale", "bn_bias", "bn_mean", "bn_var", "bn/sc_w", "bn/sc_b"):
            shapes[f"{name}/{s}_0"] = (cout,)

    unit("conv1/7x7_s2", 3, 64, 7)
    unit("conv2/3x3_reduce", 64, 64, 1)
    unit("conv2/3x3", 64, 192, 3)
    cin = 192
    for b in ORDER:
        p = f"inception_{b}/"
        if b in REDUCTIONS:
            r3, c3, rd, cd = REDUCTIONS[b]
            unit(p + "3x3_reduce", cin, r3, 1)
            unit(p + "3x3", r3, c3, 3)
            unit(p + "double3x3_reduce", cin, rd, 1)
            unit(p + "double3x3a", rd, cd, 3)
            unit(p + "double3x3b", cd, cd, 3)
            cin = c3 + cd + cin
            continue
        c1, r3, c3, rd, cd, cp, _ = BLOCKS[b]
        unit(p + "1x1", cin, c1, 1)
        unit(p + "3x3_reduce", cin, r3, 1)
        unit(p + "3x3", r3, c3, 3)
        unit(p + "double3x3_reduce", cin, rd, 1)
        unit(p + "double3x3a", rd, cd, 3)
        unit(p + "double3x3b", cd, cd, 3)
        unit(p + "pool_proj", cin, cp, 1)
        cin = c1 + c3 + cd + cp
    shapes["loss3/classifier_w_0"] = (1000, cin)
    shapes["loss3/classifier_b_0"] = (1000,)
    return shapes


def inception_v2_params(rng=None, dtype=np.float32) -> dict:
    """Random BN-Inception weights keyed by the ONNX initializer names
    (He-normal weights, batch norm near the identity; the Scale layers'
    ``sc_w`` in [0.5, 1.5] and ``sc_b`` ~ N(0, 0.1))."""
    rng = np.random.default_rng(rng)
    params = init_params(_shapes(), rng, dtype, ("/bn_scale_0", "/bn_bias_0", "/bn_mean_0", "/bn_var_0"),
                         last_scale=0.1)
    for name, a in params.items():  # init_params drew the Scale layers as biases
        if name.endswith("/bn/sc_w_0"):
            params[name] = rng.uniform(0.5, 1.5, a.shape).astype(dtype)
    return params

"""ResNet-50 (v1, as the ONNX model zoo's Caffe2 export ``light_resnet50.onnx``).

    import fgraph, fgraph.numpy as fnp
    from fgraph.models import resnet50, resnet50_params
    params = resnet50_params(np.random.default_rng(0))
    x = fnp.placeholder((8, 3, 224, 224), "float32", name="gpu_0/data_0")
    probs = resnet50(x, params)                       # (8, 1000) softmax

The layout follows that ONNX graph exactly: a 7x7/2 convolution, batch norm,
ReLU and a 3x3/2 max pool; four stages of 3, 4, 6 and 3 bottleneck blocks
(1x1 -> 3x3 -> 1x1, each convolution without bias and followed by batch
norm), the stride-2 of stages 3-5 on the 3x3 convolution and on the 1x1
projection shortcut of each stage's first block; then a 7x7 average pool,
a fully connected layer (``Gemm`` with ``transB``: weight (1000, 2048)) and
a softmax.  Parameters are keyed by the ONNX initializer names, so the same
weights can be written into the ONNX file
(:func:`fgraph.models.onnx_with_params`).
"""
from __future__ import annotations

import numpy as np

from .. import nn
from .. import numpy as fnp

#: (stage name, blocks, bottleneck width, output channels, stride of the first block)
STAGES = (("res2", 3, 64, 256, 1), ("res3", 4, 128, 512, 2), ("res4", 6, 256, 1024, 2), ("res5", 3, 512, 2048, 2))
#: the model's epsilon: float32(1e-5) rounded up one ulp, as stored in the ONNX file
EPS = 1.0000000656873453e-05
P = "gpu_0/"
INPUT = P + "data_0"
OUTPUT = P + "softmax_1"


def _conv_bn(x, params, conv: str, bn: str, stride=1, padding=0, relu=True):
    """Convolution ``{conv}_w_0`` (no bias), batch norm ``{bn}_{s,b,rm,riv}_0``, ReLU."""
    y = nn.conv2d(x, params[f"{P}{conv}_w_0"], stride=stride, padding=padding)
    y = nn.batch_norm(y, params[f"{P}{bn}_rm_0"], params[f"{P}{bn}_riv_0"], params[f"{P}{bn}_s_0"],
                      params[f"{P}{bn}_b_0"], eps=EPS)
    return nn.relu(y) if relu else y


def _bottleneck(x, params, name: str, stride: int, project: bool):
    y = _conv_bn(x, params, f"{name}_branch2a", f"{name}_branch2a_bn")
    y = _conv_bn(y, params, f"{name}_branch2b", f"{name}_branch2b_bn", stride=stride, padding=1)
    y = _conv_bn(y, params, f"{name}_branch2c", f"{name}_branch2c_bn", relu=False)
    if project:
        x = _conv_bn(x, params, f"{name}_branch1", f"{name}_branch1_bn", stride=stride, relu=False)
    return nn.relu(y + x)


def resnet50(x, params: dict):
    """ResNet-50 class probabilities, (N, 1000), of images ``x`` (N, 3, 224, 224).

    ``params``: the dict :func:`resnet50_params` makes (NumPy arrays, or
    fgraph constants/variables with the same names and shapes).
    """
    y = _conv_bn(x, params, "conv1", "res_conv1_bn", stride=2, padding=3)
    y = nn.max_pool2d(y, 3, stride=2, padding=1)
    for stage, blocks, _, _, stride in STAGES:
        for i in range(blocks):
            y = _bottleneck(y, params, f"{stage}_{i}", stride if i == 0 else 1, project=i == 0)
    y = nn.avg_pool2d(y, 7, stride=1)
    y = fnp.reshape(y, (y.shape[0], -1))
    logits = y @ fnp.transpose(params[P + "pred_w_0"]) + params[P + "pred_b_0"]
    return nn.softmax(logits, axis=1)


def _shapes() -> dict:
    """Every parameter's name and shape, in the order the network uses them."""
    shapes = {}

    def conv_bn(conv, bn, cin, cout, k):
        shapes[f"{P}{conv}_w_0"] = (cout, cin, k, k)
        for s in ("s", "b", "rm", "riv"):
            shapes[f"{P}{bn}_{s}_0"] = (cout,)

    conv_bn("conv1", "res_conv1_bn", 3, 64, 7)
    cin = 64
    for stage, blocks, width, cout, _ in STAGES:
        for i in range(blocks):
            name = f"{stage}_{i}"
            conv_bn(f"{name}_branch2a", f"{name}_branch2a_bn", cin, width, 1)
            conv_bn(f"{name}_branch2b", f"{name}_branch2b_bn", width, width, 3)
            conv_bn(f"{name}_branch2c", f"{name}_branch2c_bn", width, cout, 1)
            if i == 0:
                conv_bn(f"{name}_branch1", f"{name}_branch1_bn", cin, cout, 1)
            cin = cout
    shapes[P + "pred_w_0"] = (1000, 2048)
    shapes[P + "pred_b_0"] = (1000,)
    return shapes


def init_params(shapes: dict, rng, dtype, bn_suffixes: tuple, last_scale: float = 1.0) -> dict:
    """Random weights: He-normal convolutions and fully connected layers;
    batch-norm statistics and affine terms near the identity (mean ~ 0,
    variance and scale in [0.5, 1.5]), so activations keep their scale
    through the network and the softmax is neither flat nor one-hot.
    ``bn_suffixes``: (scale, bias, mean, var) name endings."""
    s_, b_, m_, v_ = bn_suffixes
    out = {}
    for name, shape in shapes.items():
        if len(shape) > 1:
            fan_in = int(np.prod(shape[1:]))
            scale = np.sqrt(2.0 / fan_in) * (last_scale if len(shape) == 2 else 1.0)
            a = rng.normal(0.0, scale, shape)
        elif name.endswith(s_) or name.endswith(v_):
            a = rng.uniform(0.5, 1.5, shape)
        elif name.endswith(b_) or name.endswith(m_):
            a = rng.normal(0.0, 0.1, shape)
        else:  # a fully connected layer's bias
            a = rng.normal(0.0, 0.1, shape)
        out[name] = a.astype(dtype)
    return out


def resnet50_params(rng=None, dtype=np.float32) -> dict:
    """Random ResNet-50 weights keyed by the ONNX initializer names (see
    :func:`init_params`); ``rng`` a NumPy Generator or a seed."""
    rng = np.random.default_rng(rng)
    params = init_params(_shapes(), rng, dtype, ("_bn_s_0", "_bn_b_0", "_bn_rm_0", "_bn_riv_0"), last_scale=0.2)
    for name, a in params.items():
        # a small last scale in each residual branch, so 16 residual sums do
        # not grow the activations ~1.6x each (there are no real statistics)
        if name.endswith("_branch2c_bn_s_0"):
            params[name] = rng.uniform(0.2, 0.4, a.shape).astype(dtype)
    return params

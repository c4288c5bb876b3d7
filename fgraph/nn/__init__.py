"""fgraph.nn: neural-network layers on lazy arrays (NCHW layout).

    import fgraph.nn as nn
    y = nn.relu(nn.batch_norm(nn.conv2d(x, w, stride=2, padding=3), mean, var, gamma, beta))
    loss = nn.cross_entropy(nn.linear(nn.flatten(y), w2, b2), labels)

Convolutions, pooling, erf and the random generator are ops of their own
(``fgraph/ops/nn.py``, with im2col + BLAS kernels); everything else is a
composite of ``fgraph.numpy`` ops, so it is fused, memory-planned and
differentiated like any NumPy code.  Every function takes lazy arrays or
NumPy data and returns lazy arrays; argument mistakes raise
``FgraphError`` / ``ShapeError`` / ``DTypeError`` naming the function and
the caller's line.
"""
from .conv import avg_pool2d, conv2d, conv_transpose2d, global_avg_pool2d, max_pool2d, upsample_nearest
from .functional import (cross_entropy, dropout, embedding, erf, flatten, gelu, leaky_relu, linear, log_softmax,
                         random_uniform, relu, sigmoid, softmax)
from .norm import batch_norm, layer_norm, local_response_norm

__all__ = ["conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d", "global_avg_pool2d", "batch_norm",
           "layer_norm", "relu", "leaky_relu", "sigmoid", "gelu", "softmax", "log_softmax", "cross_entropy",
           "dropout", "linear", "embedding", "flatten", "upsample_nearest", "local_response_norm", "erf",
           "random_uniform"]

"""A small convolutional network for scikit-learn's 8x8 digits.

    (N, 1, 8, 8) -> conv 3x3 (pad 1) + ReLU -> max pool 2  -> (N, c1, 4, 4)
                 -> conv 3x3 (pad 1) + ReLU -> max pool 2  -> (N, c2, 2, 2)
                 -> flatten -> linear                       -> (N, 10) logits

Train it with ``fgraph.nn.cross_entropy``, ``fgraph.grad`` and
``fgraph.optim.adam`` as graph updates (``examples/train_digits_cnn.py``).
"""
from __future__ import annotations

import numpy as np

from .. import nn

NAMES = ("conv1_w", "conv1_b", "conv2_w", "conv2_b", "fc_w", "fc_b")


def digits_cnn(x, params: dict):
    """Logits (N, 10) of images ``x`` (N, 1, 8, 8); ``params`` as
    :func:`digits_cnn_params` makes them (arrays or fgraph variables)."""
    y = nn.relu(nn.conv2d(x, params["conv1_w"], params["conv1_b"], padding=1))
    y = nn.max_pool2d(y, 2)
    y = nn.relu(nn.conv2d(y, params["conv2_w"], params["conv2_b"], padding=1))
    y = nn.max_pool2d(y, 2)
    return nn.linear(nn.flatten(y), params["fc_w"], params["fc_b"])


def digits_cnn_params(rng=None, dtype=np.float32, channels=(16, 32), classes=10) -> dict:
    """He-normal weights and zero biases; ``channels`` the two convolutions'
    widths."""
    rng = np.random.default_rng(rng)
    c1, c2 = channels

    def he(shape, fan_in):
        return rng.normal(0.0, np.sqrt(2.0 / fan_in), shape).astype(dtype)

    return {"conv1_w": he((c1, 1, 3, 3), 9), "conv1_b": np.zeros(c1, dtype),
            "conv2_w": he((c2, c1, 3, 3), 9 * c1), "conv2_b": np.zeros(c2, dtype),
            "fc_w": he((4 * c2, classes), 4 * c2), "fc_b": np.zeros(classes, dtype)}

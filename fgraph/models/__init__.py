"""Networks written with ``fgraph.numpy`` and ``fgraph.nn`` as plain
functions of (input, params dict).

    import fgraph, fgraph.numpy as fnp
    from fgraph.models import resnet50, resnet50_params, as_constants
    params = as_constants(resnet50_params(0))        # weights "loaded" once
    x = fnp.placeholder((8, 3, 224, 224), "float32", name="x")
    exe = fgraph.compile(fgraph.optimise(fgraph.Graph(resnet50(x, params))))
    probs = exe(x=images)

``resnet50`` and ``inception_v2`` reproduce the onnx package's
``light_resnet50.onnx`` and ``light_inception_v2.onnx`` layer for layer,
with parameters keyed by their initializer names, so
``onnx_with_params(light_model_path("resnet50"), params)`` is the same
network with the same weights for another runtime.
"""
from __future__ import annotations

from .. import numpy as fnp
from .cnn import digits_cnn, digits_cnn_params
from .inception import inception_v2, inception_v2_params
from .onnx_weights import light_model_path, onnx_with_params
from .resnet import resnet50, resnet50_params

__all__ = ["resnet50", "resnet50_params", "inception_v2", "inception_v2_params", "digits_cnn",
           "digits_cnn_params", "as_constants", "as_variables", "light_model_path", "onnx_with_params", "MODELS"]

#: name -> (model function, params function, ONNX light model name, input name, output name)
MODELS = {"resnet50": (resnet50, resnet50_params, "resnet50", "gpu_0/data_0", "gpu_0/softmax_1"),
          "inception_v2": (inception_v2, inception_v2_params, "inception_v2", "data_0", "prob_1")}


def as_constants(params: dict) -> dict:
    """The arrays as fgraph constants (each copied and hashed once), so
    building a model from them copies no weights."""
    return {k: fnp.asarray(v) for k, v in params.items()}


def as_variables(params: dict) -> dict:
    """The arrays as fgraph variables named by their keys (trainable state)."""
    return {k: fnp.variable(v, name=k) for k, v in params.items()}

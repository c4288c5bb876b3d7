"""The onnx package's light models, with chosen weights written in.

The ``light_*.onnx`` models fill every large weight with one constant
(a ``ConstantOfShape`` node) and list every initializer as a graph input
(IR v3).  :func:`onnx_with_params` returns the model with the given arrays
as plain initializers instead (so a runtime may fold them, as it would
for a real model), the unused ones dropped, and optionally a new batch size.
"""
from __future__ import annotations

import os

import numpy as np


def light_model_path(name: str) -> str:
    """Path of ``light_<name>.onnx`` in the installed onnx package."""
    import onnx

    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", f"light_{name}.onnx")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} (the onnx package ships the light models under backend/test/data/light)")
    return path


def onnx_with_params(model, params: dict, batch: int | None = None):
    """A copy of ``model`` (a path or an onnx.ModelProto) whose weights are
    ``params`` ({initializer or ConstantOfShape output name: array}).

    Every name in ``params`` must be a weight of the model with the same
    shape.  ``batch``: rewrite the first dimension of the graph inputs and
    outputs, and turn a Reshape target's hard-coded batch entry into 0
    ("keep this dimension"), so the model runs at that batch size.
    """
    import onnx
    from onnx import numpy_helper

    m = onnx.ModelProto()
    m.CopyFrom(onnx.load(model) if isinstance(model, (str, os.PathLike)) else model)
    g = m.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    todo = dict(params)
    weights = {}
    keep_nodes = []
    for node in g.node:
        if node.op_type == "ConstantOfShape" and node.output[0] in todo:
            name = node.output[0]
            shape = tuple(int(d) for d in inits[node.input[0]])
            weights[name] = _checked(name, todo.pop(name), shape)
        else:
            keep_nodes.append(node)
    for name in list(todo):
        if name in inits:
            weights[name] = _checked(name, todo.pop(name), inits[name].shape)
    if todo:
        raise KeyError(f"not weights of the model: {sorted(todo)[:5]}{' ...' if len(todo) > 5 else ''}")
    used = {i for node in keep_nodes for i in node.input}
    # drop what no node reads any more (ConstantOfShape's shapes, stray blobs)
    new_inits = [(n, a) for n, a in inits.items() if n in used and n not in weights] + list(weights.items())
    reshape_shapes = {node.input[1] for node in keep_nodes if node.op_type == "Reshape"}
    del g.node[:]
    g.node.extend(keep_nodes)
    del g.initializer[:]
    old_batch = _batch_of(g.input[0]) if batch is not None else None
    for name, arr in new_inits:
        if batch is not None and name in reshape_shapes and arr.ndim == 1 and arr.size and arr[0] == old_batch:
            arr = arr.copy()
            arr[0] = 0
        g.initializer.append(numpy_helper.from_array(np.asarray(arr), name))
    names = {t.name for t in g.initializer}
    real_inputs = [vi for vi in g.input if vi.name not in names and vi.name not in inits]
    del g.input[:]
    g.input.extend(real_inputs)
    if batch is not None:
        for vi in list(g.input) + list(g.output):
            dims = vi.type.tensor_type.shape.dim
            if len(dims):
                dims[0].dim_value = int(batch)
    if m.ir_version < 4:
        m.ir_version = 4  # initializers need not be graph inputs (and may be folded)
    return m


def _checked(name, value, shape):
    arr = np.asarray(value)
    if tuple(arr.shape) != tuple(shape):
        raise ValueError(f"weight {name!r} has shape {tuple(shape)} in the model, got {arr.shape}")
    return arr


def _batch_of(vi):
    dims = vi.type.tensor_type.shape.dim
    return dims[0].dim_value if len(dims) and dims[0].HasField("dim_value") else None

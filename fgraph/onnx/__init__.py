"""ONNX import: ``fgraph.onnx.load(model) -> fgraph.Graph``; export:
``fgraph.onnx.save(graph, path, opset=18)`` (:mod:`fgraph.onnx.export`).

    import fgraph, fgraph.onnx
    g = fgraph.onnx.load("resnet50.onnx", batch=8)     # a path, bytes or an onnx.ModelProto
    exe = fgraph.compile(fgraph.optimise(g))
    probs = exe(images)["prob"]                        # outputs: a dict keyed by ONNX output name

Graph inputs that are not initializers become placeholders named as in the
model (``shapes={name: shape}`` or ``batch=`` fill in dynamic dimensions);
initializers become constants.  Every node is converted by the function the
op table (:mod:`fgraph.onnx.ops`, :mod:`fgraph.onnx.nn_ops`) holds for its
op type, following the semantics of the model's opset; the fgraph nodes it
makes are named ``"<OpType> <node name>"``, so errors and memory pictures
name the ONNX node.  An op the table lacks raises ``FgraphError`` naming the
op type, the node and the opset.

Static shapes: inputs that fix a shape (Reshape's shape, Slice's starts,
Unsqueeze's axes in newer opsets, ...) must be known when the model is
loaded.  ``Shape`` of a tensor is a constant here (shapes are static), and a
constant subgraph computing such an input (Shape -> Gather -> Concat ->
Reshape, as PyTorch exports write) is evaluated with fgraph itself; one that
depends on a graph input's values raises ``FgraphError``.

Opsets 7 to 22 of the default domain are read (a newer opset is refused:
it may change what an op means); ops of other domains (``com.microsoft``,
``ai.onnx.ml``) are reported as unknown.  Unreadable bytes (corrupt,
truncated, another format) raise ``FgraphError`` naming the file.
"""
from __future__ import annotations

import os

import numpy as np

import fgraph.numpy as fnp

from ..errors import FgraphError
from ..graph import Graph
from ..tensor import Tensor, constant_node
from ..symbol import error_at
from . import nn_ops  # noqa: F401  (registers the neural-network ops)
from .ops import OPS, OnnxNode, convert_node, tensor_dtype

__all__ = ["load", "save", "supported_ops"]

MIN_OPSET = 7
#: the newest opset whose changes the op table's rules follow (what the docstring
#: promises); a later opset may change an op's meaning, so it is refused
MAX_OPSET = 22


def _onnx(op: str = "onnx.load", task: str = "reading ONNX models"):
    """The onnx package, or an FgraphError naming ``op`` and the extra to install."""
    try:
        import onnx
    except ImportError:  # pragma: no cover - the extra is missing
        raise error_at(FgraphError, op, f"{task} needs the onnx package: pip install 'fgraph[onnx]'") from None
    return onnx


def save(graph, path=None, opset=None, **options):
    """Export an fgraph Graph as an ONNX model for inference (see
    :func:`fgraph.onnx.export.save`): ``save(g, "model.onnx", opset=18)``
    writes the file and returns the ``onnx.ModelProto``."""
    from . import export  # imported on first use: it is not needed to read models

    return export.save(graph, path, export.DEFAULT_OPSET if opset is None else opset, **options)


def supported_ops() -> list[str]:
    """The ONNX op types (default domain) the importer converts."""
    return sorted(OPS)


def load(model, batch: int | None = None, shapes: dict | None = None) -> Graph:
    """Import an ONNX model as an immutable :class:`fgraph.Graph`.

    Parameters
    ----------
    model : str, os.PathLike, bytes or onnx.ModelProto
        The model (a file path, its serialized bytes, or a loaded proto).
    batch : int, optional
        The first dimension of every graph input of rank >= 1 (it overrides a
        fixed batch size too).  Reshape targets that hard-code the model's
        own batch size in their first entry (as the Caffe2-exported zoo
        models do) follow the new batch.
    shapes : dict, optional
        ``{input name: shape}``: full shapes of graph inputs; ``None`` or -1
        entries keep the model's dimension.  Wins over ``batch``.

    Returns
    -------
    fgraph.Graph
        Placeholders for the graph inputs (in the model's order), outputs as
        a dict keyed by ONNX output name.
    """
    onnx = _onnx()
    m, what = _model(onnx, model)
    opset = _default_opset(m, what)
    g = m.graph
    if len(g.sparse_initializer):
        raise error_at(FgraphError, "onnx.load", "sparse initializers are not supported")
    shapes = dict(shapes or {})
    env: dict[str, Tensor] = {}
    for init in g.initializer:  # constants named as the model names them
        env[init.name] = Tensor(constant_node(_array(onnx, init, init.name), name=init.name))
    placeholders = []
    model_batch = None
    for vi in g.input:
        if vi.name in env:  # IR < 4 lists every initializer as an input too
            continue
        shape, dtype, declared = _input_type(onnx, vi, batch, shapes.pop(vi.name, None))
        if batch is not None and declared:
            model_batch = declared
        t = fnp.placeholder(shape, dtype, name=vi.name)
        env[vi.name] = t
        placeholders.append(t)
    if shapes:
        raise error_at(FgraphError, "onnx.load", f"shapes= names {sorted(shapes)}, which are not graph inputs; "
                                                 f"inputs: {[p.name for p in placeholders]}")
    rebatch = (model_batch, batch) if batch is not None and model_batch not in (None, batch) else None
    known: set[int] = set()  # ids of every node made so far (labelling stops there)
    for t in env.values():
        known.add(id(t.node))
    for proto in g.node:
        node = OnnxNode(proto, opset, env, rebatch)
        for name, t in convert_node(node, known):
            env[name] = t
    outputs = {}
    for vi in g.output:
        if vi.name not in env:
            raise error_at(FgraphError, "onnx.load", f"graph output {vi.name!r} is made by no node")
        outputs[vi.name] = env[vi.name]
    return Graph(outputs=outputs, inputs=placeholders)  # every graph input, even one no output needs


def _model(onnx, model):
    """The ModelProto, and how errors name where it came from."""
    if isinstance(model, onnx.ModelProto):
        return model, f"model {model.graph.name!r}"
    if isinstance(model, (bytes, bytearray)):
        what = f"the {len(model):,} bytes given"
        read = lambda: onnx.load_from_string(bytes(model))  # noqa: E731
    elif isinstance(model, (str, os.PathLike)):
        what = repr(os.fspath(model))
        read = lambda: onnx.load(os.fspath(model))  # noqa: E731
    else:
        raise error_at(FgraphError, "onnx.load", f"expected a path, bytes or an onnx.ModelProto, got "
                                                 f"{type(model).__name__}")
    from google.protobuf.message import DecodeError  # (onnx depends on protobuf)

    try:
        return read(), what
    except OSError as e:
        raise error_at(FgraphError, "onnx.load", f"cannot read {what}: {e}") from None
    except (DecodeError, ValueError) as e:  # protobuf's parse errors: corrupt, truncated, not ONNX
        raise error_at(FgraphError, "onnx.load", f"cannot parse {what} as an ONNX model (corrupt, truncated or "
                                                 f"another format): {e}") from None


def _default_opset(m, what: str) -> int:
    versions = [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")]
    if not versions:
        raise error_at(FgraphError, "onnx.load", f"{what} imports no opset of the default ONNX domain (is it an "
                                                 "ONNX model?)")
    if versions[0] < MIN_OPSET:
        raise error_at(FgraphError, "onnx.load", f"{what}: opset {versions[0]} is older than fgraph reads "
                                                 f"(>= {MIN_OPSET}); convert it with onnx.version_converter first")
    if versions[0] > MAX_OPSET:
        raise error_at(FgraphError, "onnx.load", f"{what}: opset {versions[0]} is newer than fgraph reads (opset "
                                                 f"{MIN_OPSET} to {MAX_OPSET}); convert it with "
                                                 f"onnx.version_converter to opset {MAX_OPSET}")
    return versions[0]


def _array(onnx, tensor, what) -> np.ndarray:
    try:
        arr = onnx.numpy_helper.to_array(tensor)
    except Exception as e:  # external data not found, unknown dtypes
        raise error_at(FgraphError, "onnx.load", f"cannot read tensor {what!r}: {e}") from None
    tensor_dtype(tensor.data_type, what)  # refuses strings, bfloat16, float8 ...
    return arr


def _input_type(onnx, vi, batch, override):
    """(shape, dtype, declared batch) of graph input ``vi``; a dimension the
    model leaves open must come from ``batch`` or ``override``."""
    tt = vi.type.tensor_type
    if not vi.type.HasField("tensor_type"):
        raise error_at(FgraphError, "onnx.load", f"graph input {vi.name!r} is not a tensor (sequences, maps and "
                                                 "optionals are not supported)")
    dtype = tensor_dtype(tt.elem_type, vi.name)
    dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
    if not tt.HasField("shape"):
        if override is None:
            raise error_at(FgraphError, "onnx.load", f"graph input {vi.name!r} has no shape in the model: "
                                                     f"pass shapes={{{vi.name!r}: (...)}}")
        dims = [None] * len(override)
    declared = dims[0] if dims else None
    if batch is not None and dims:
        dims[0] = int(batch)
    if override is not None:
        override = list(override)
        if len(override) != len(dims):
            raise error_at(FgraphError, "onnx.load", f"shapes[{vi.name!r}] = {tuple(override)} has rank "
                                                     f"{len(override)}, the model's input has rank {len(dims)}")
        dims = [d if o is None or o == -1 else int(o) for d, o in zip(dims, override)]
    open_axes = [i for i, d in enumerate(dims) if d is None]
    if open_axes:
        names = [tt.shape.dim[i].dim_param or "?" for i in open_axes]
        raise error_at(FgraphError, "onnx.load", f"graph input {vi.name!r} has dynamic dimension(s) {names} at "
                                                 f"axes {open_axes}: fgraph needs static shapes; pass batch= or "
                                                 f"shapes={{{vi.name!r}: (...)}}")
    return tuple(dims), dtype, declared

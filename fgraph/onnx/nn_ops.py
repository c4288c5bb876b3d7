"""ONNX neural-network ops: convolution, pooling, normalisation, Gelu/Erf.

They map onto :mod:`fgraph.nn` (NCHW, 2-D); 1-D convolutions and pools run
as 2-D ones over a unit height.  ONNX ``pads`` are ``[x1_begin, x2_begin,
..., x1_end, x2_end, ...]``; ``auto_pad`` SAME_UPPER / SAME_LOWER put the odd
pixel at the end / the beginning.
"""
from __future__ import annotations

import numpy as np

import fgraph.numpy as fnp

from ..errors import FgraphError, ShapeError
from .ops import OnnxNode, _axis, _scalar, op


def _nn():
    try:
        from .. import nn
    except ImportError as e:  # pragma: no cover - fgraph.nn is part of fgraph
        raise FgraphError(f"fgraph.nn is not available ({e})") from None
    return nn


# ---------------------------------------------------------------- geometry

def _spatial(n: OnnxNode, x, kernel, what: str):
    """(strides, dilations, [(begin, end)] pads) of a conv or pool node."""
    nd = len(kernel)
    if x.ndim != nd + 2:
        raise ShapeError(f"{what} of a rank-{x.ndim} input with a {nd}-d kernel")
    strides = n.ints("strides", [1] * nd)
    dil = n.ints("dilations", [1] * nd)
    auto = n.attr("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        pads = n.ints("pads", [0] * 2 * nd)
        if len(pads) != 2 * nd:
            raise ShapeError(f"pads has {len(pads)} entries for {nd} spatial axes")
        pads = list(zip(pads[:nd], pads[nd:]))
    elif auto == "VALID":
        pads = [(0, 0)] * nd
    elif auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = []
        for size, k, s, d in zip(x.shape[2:], kernel, strides, dil):
            out = -(-size // s)
            total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
            small, big = total // 2, total - total // 2
            pads.append((small, big) if auto == "SAME_UPPER" else (big, small))
    else:
        raise FgraphError(f"auto_pad {auto!r} is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID")
    if any(p < 0 for pair in pads for p in pair):
        raise ShapeError(f"negative pads {pads} are not supported")
    return strides, dil, pads


def _to2d(x, nd: int):
    """A 1-d spatial input as a 2-d one of height 1; 2-d as it is; else an error."""
    if nd == 2:
        return x
    if nd == 1:
        return fnp.reshape(x, x.shape[:2] + (1,) + x.shape[2:])
    raise FgraphError(f"{nd}-d convolutions and pools are not supported (1-d and 2-d are)")


def _from2d(y, nd: int):
    return y if nd == 2 else fnp.reshape(y, y.shape[:2] + y.shape[3:])


def _pair(v, nd: int, one: int):
    return tuple(v) if nd == 2 else (one,) + tuple(v)


def _pads2(pads, nd: int):
    return tuple(pads) if nd == 2 else ((0, 0),) + tuple(pads)


# ---------------------------------------------------------------- convolution

@op("Conv")
def conv(n):
    x, w, b = n.input(0), n.input(1), n.input(2)
    kernel = list(w.shape[2:])
    if n.ints("kernel_shape") not in (None, kernel):
        raise ShapeError(f"kernel_shape {n.ints('kernel_shape')} differs from the weight's {kernel}")
    nd = len(kernel)
    strides, dil, pads = _spatial(n, x, kernel, "Conv")
    y = _nn().conv2d(_to2d(x, nd), _to2d(w, nd), b, stride=_pair(strides, nd, 1), padding=_pads2(pads, nd),
                     dilation=_pair(dil, nd, 1), groups=n.attr("group", 1))
    return _from2d(y, nd)


@op("ConvTranspose")
def conv_transpose(n):
    x, w, b = n.input(0), n.input(1), n.input(2)
    kernel = list(w.shape[2:])
    nd = len(kernel)
    if x.ndim != nd + 2:
        raise ShapeError(f"ConvTranspose of a rank-{x.ndim} input with a {nd}-d kernel")
    strides = n.ints("strides", [1] * nd)
    dil = n.ints("dilations", [1] * nd)
    out_pad = n.ints("output_padding", [0] * nd)
    out_shape = n.ints("output_shape")
    auto = n.attr("auto_pad", "NOTSET")
    if out_shape is not None or auto in ("SAME_UPPER", "SAME_LOWER"):
        if out_shape is None:
            out_shape = [size * s for size, s in zip(x.shape[2:], strides)]
        out_shape = list(out_shape)[-nd:]
        pads = []
        for size, k, s, d, op_, o in zip(x.shape[2:], kernel, strides, dil, out_pad, out_shape):
            total = s * (size - 1) + op_ + (k - 1) * d + 1 - o
            half = total // 2  # a negative total grows the output (by zeros, then the bias)
            pads.append((half, total - half) if auto == "SAME_UPPER" else (total - half, half))  # the spec's split
    elif auto == "VALID":
        pads = [(0, 0)] * nd
    else:
        p = n.ints("pads", [0] * 2 * nd)
        pads = list(zip(p[:nd], p[nd:]))
    grow = [(max(-p0, 0), max(-p1, 0)) for p0, p1 in pads]
    crop = [(max(p0, 0), max(p1, 0)) for p0, p1 in pads]
    grown = any(g != (0, 0) for g in grow)
    y = _nn().conv_transpose2d(_to2d(x, nd), _to2d(w, nd), None if grown else b, stride=_pair(strides, nd, 1),
                               padding=_pads2(crop, nd), output_padding=_pair(out_pad, nd, 0),
                               dilation=_pair(dil, nd, 1), groups=n.attr("group", 1))
    if grown:
        y = fnp.pad(y, ((0, 0), (0, 0)) + _pads2(grow, nd))
        if b is not None:
            y = y + fnp.reshape(b, (-1, 1, 1))
    return _from2d(y, nd)


# ---------------------------------------------------------------- pooling

@op("MaxPool", "AveragePool")
def pool(n):
    x = n.input(0)
    kernel = n.ints("kernel_shape")
    nd = len(kernel)
    strides, dil, pads = _spatial(n, x, kernel, n.op_type)
    ceil = bool(n.attr("ceil_mode", 0))
    x2 = _to2d(x, nd)
    nn = _nn()
    if n.op_type == "MaxPool":
        if n.wants(1):
            raise FgraphError("the Indices output of MaxPool is not supported")
        y = nn.max_pool2d(x2, _pair(kernel, nd, 1), stride=_pair(strides, nd, 1), padding=_pads2(pads, nd),
                          dilation=_pair(dil, nd, 1), ceil_mode=ceil)
    else:
        if any(d != 1 for d in dil):
            raise FgraphError("AveragePool with dilations is not supported")
        y = nn.avg_pool2d(x2, _pair(kernel, nd, 1), stride=_pair(strides, nd, 1), padding=_pads2(pads, nd),
                          ceil_mode=ceil, count_include_pad=bool(n.attr("count_include_pad", 0)))
    return _from2d(y, nd)


@op("GlobalAveragePool", "GlobalMaxPool")
def global_pool(n):
    x = n.input(0)
    if n.op_type == "GlobalAveragePool" and x.ndim == 4:
        return _nn().global_avg_pool2d(x)
    axes = tuple(range(2, x.ndim))
    f = fnp.mean if n.op_type == "GlobalAveragePool" else fnp.max
    return f(x, axis=axes, keepdims=True)


# ---------------------------------------------------------------- normalisation

@op("BatchNormalization")
def batch_norm(n):
    x, scale, bias, mean, var = (n.input(k) for k in range(5))
    if n.attr("training_mode", 0):
        raise FgraphError("training_mode=1: the importer builds inference graphs")
    if n.opset < 9 and n.attr("spatial", 1) == 0:
        raise FgraphError("spatial=0 (per-activation statistics) is not supported")
    if any(n.wants(k) for k in (3, 4)):
        raise FgraphError("the saved_mean/saved_var outputs exist in training only")
    y = _nn().batch_norm(x, mean, var, scale, bias, training=False, eps=float(n.attr("epsilon", 1e-5)))
    return (y, mean, var) if n.wants(1) or n.wants(2) else y


@op("InstanceNormalization")
def instance_norm(n):
    x, scale, bias = n.input(0), n.input(1), n.input(2)
    axes = tuple(range(2, x.ndim))
    mean = fnp.mean(x, axis=axes, keepdims=True)
    d = x - mean
    var = fnp.mean(d * d, axis=axes, keepdims=True)
    c = (-1,) + (1,) * (x.ndim - 2)
    eps = _scalar(n.attr("epsilon", 1e-5), x.dtype)
    return d / fnp.sqrt(var + eps) * fnp.reshape(scale, c) + fnp.reshape(bias, c)


@op("LayerNormalization")
def layer_norm(n):
    x, scale, bias = n.input(0), n.input(1), n.input(2)
    axis = _axis(n.attr("axis", -1), x.ndim)
    axes = tuple(range(axis, x.ndim))
    eps = float(n.attr("epsilon", 1e-5))
    dt = x.dtype
    xs = fnp.astype(x, np.float32) if n.attr("stash_type", 1) == 1 and dt == np.float16 else x
    if not (n.wants(1) or n.wants(2)):
        norm_shape = x.shape[axis:]
        if scale.shape == norm_shape and (bias is None or bias.shape == norm_shape) and xs is x:
            return _nn().layer_norm(x, scale, bias, axis=axes, eps=eps)
    mean = fnp.mean(xs, axis=axes, keepdims=True)
    d = xs - mean
    inv = _scalar(1, xs.dtype) / fnp.sqrt(fnp.mean(d * d, axis=axes, keepdims=True) + _scalar(eps, xs.dtype))
    y = fnp.astype(d * inv, dt) * scale
    if bias is not None:
        y = y + bias
    return y, mean, inv


@op("LRN")
def lrn(n):
    return _nn().local_response_norm(n.input(0), n.attr("size"), alpha=float(n.attr("alpha", 1e-4)),
                                     beta=float(n.attr("beta", 0.75)), k=float(n.attr("bias", 1.0)))


# ---------------------------------------------------------------- Gelu, Erf

@op("Erf")
def erf(n):
    return _nn().erf(n.input(0))


@op("Gelu")
def gelu(n):
    return _nn().gelu(n.input(0), approximate=n.attr("approximate", "none"))


@op("Upsample", "Resize")
def resize(n):
    """Nearest-neighbour resizing by integer factors (what the common
    exports need); other modes raise."""
    x = n.input(0)
    mode = n.attr("mode", "nearest")
    if mode != "nearest":
        raise FgraphError(f"mode {mode!r} is not supported (only 'nearest' with integer scales)")
    if n.op_type == "Upsample":
        scales = n.attr("scales") if n.opset < 9 else n.static(1, "scales")
        ctm, nearest = "asymmetric", "floor"
    else:
        if n.opset < 11:
            scales = n.static(1, "scales")
        else:
            scales, sizes = n.static(2, "scales"), n.static(3, "sizes")
            if (scales is None or np.size(scales) == 0) and sizes is not None:
                sizes = [int(s) for s in np.asarray(sizes).reshape(-1)]
                if n.opset >= 18 and n.ints("axes") is not None:
                    raise FgraphError("Resize with axes is not supported")
                scales = [o / i for o, i in zip(sizes, x.shape)]
        ctm = n.attr("coordinate_transformation_mode", "half_pixel" if n.opset >= 11 else "asymmetric")
        nearest = n.attr("nearest_mode", "round_prefer_floor")
    scales = [float(s) for s in np.asarray(scales).reshape(-1)]
    if len(scales) != x.ndim or any(s != int(s) or s < 1 for s in scales):
        raise FgraphError(f"scales {scales}: only integer upsampling factors are supported")
    # integer factors: half_pixel picks floor(i / s) whatever the rounding; asymmetric needs 'floor'
    if not (ctm in ("half_pixel", "pytorch_half_pixel") or (ctm == "asymmetric" and nearest == "floor")):
        raise FgraphError(f"coordinate_transformation_mode {ctm!r} with nearest_mode {nearest!r} is not "
                          "supported")
    y = x
    for axis, s in enumerate(scales):
        if s != 1:
            y = fnp.repeat(y, int(s), axis=axis)
    return y


"""Convolutions, pooling and nearest upsampling (NCHW)."""
from __future__ import annotations

from .. import numpy as fnp
from ..errors import ShapeError
from ..ops import nn as ops
from ..symbol import error_at
from ._args import as_int, bias_of, ndim_is, pair, tensor
from ._args import padding as _padding

_NCHW = " (N, C, H, W)"


def _groups(op: str, groups) -> int:
    g = as_int(op, groups, "groups")
    if g < 1:
        raise error_at(ShapeError, op, f"groups must be at least 1, got {groups!r}")
    return g


def conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution (cross-correlation, as PyTorch and ONNX), NCHW.

    Parameters
    ----------
    x : (N, C, H, W) floating array
    w : (O, C/groups, kh, kw) weight
    b : (O,) bias, optional
    stride, dilation : int or (sh, sw)
    padding : int, (ph, pw) or ((top, bottom), (left, right)); zeros
    groups : int dividing C and O

    Returns
    -------
    (N, O, H', W') with H' = (H + top + bottom - dilation*(kh-1) - 1) // stride + 1.
    """
    op = "conv2d"
    x, w = tensor(x), tensor(w)
    ndim_is(op, x, 4, "x", _NCHW)
    ndim_is(op, w, 4, "weight", " (O, C/groups, kh, kw)")
    y = ops.conv2d(x, w, pair(op, stride, "stride"), _padding(op, padding), pair(op, dilation, "dilation"),
                   _groups(op, groups))
    if b is not None:
        y = y + fnp.reshape(bias_of(op, b, w.shape[0]), (1, w.shape[0], 1, 1))
    return y


def conv_transpose2d(x, w, b=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1):
    """2-d transposed convolution (the gradient of conv2d with respect to its
    input), NCHW; weight in the PyTorch / ONNX layout.

    Parameters
    ----------
    x : (N, C, H, W) floating array
    w : (C, O/groups, kh, kw) weight
    b : (O,) bias, optional
    stride, dilation, output_padding : int or (sh, sw); ``output_padding``
        adds rows/columns at the bottom/right of the output
    padding : int, (ph, pw) or ((top, bottom), (left, right)): removed from the output
    groups : int dividing C

    Returns
    -------
    (N, O, H', W') with H' = (H-1)*stride - top - bottom + dilation*(kh-1) + output_padding + 1.
    """
    op = "conv_transpose2d"
    x, w = tensor(x), tensor(w)
    ndim_is(op, x, 4, "x", _NCHW)
    ndim_is(op, w, 4, "weight", " (C, O/groups, kh, kw)")
    g = _groups(op, groups)
    y = ops.conv_transpose2d(x, w, pair(op, stride, "stride"), _padding(op, padding),
                             pair(op, output_padding, "output_padding", minimum=0), pair(op, dilation, "dilation"),
                             g)
    if b is not None:
        o = w.shape[1] * g
        y = y + fnp.reshape(bias_of(op, b, o), (1, o, 1, 1))
    return y


def _pool_args(op, x, kernel_size, stride):
    x = tensor(x)
    ndim_is(op, x, 4, "x", _NCHW)
    k = pair(op, kernel_size, "kernel_size")
    s = k if stride is None else pair(op, stride, "stride")
    return x, k, s


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """2-d max pooling, NCHW; the padding counts as -inf.

    Parameters
    ----------
    x : (N, C, H, W) real array
    kernel_size, dilation : int or (kh, kw)
    stride : int or (sh, sw); None means ``kernel_size``
    padding : int, (ph, pw) or ((top, bottom), (left, right))
    ceil_mode : round the output size up (a last window starting in the
        end padding is dropped, as PyTorch)

    The gradient goes to the first maximum of each window (row-major).
    """
    op = "max_pool2d"
    x, k, s = _pool_args(op, x, kernel_size, stride)
    return ops.max_pool2d(x, k, s, _padding(op, padding), pair(op, dilation, "dilation"), bool(ceil_mode))


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """2-d average pooling, NCHW.

    Parameters
    ----------
    x : (N, C, H, W) floating array
    kernel_size : int or (kh, kw)
    stride : int or (sh, sw); None means ``kernel_size``
    padding : int, (ph, pw) or ((top, bottom), (left, right)); zeros
    ceil_mode : round the output size up
    count_include_pad : divide by the window size clipped to the padded
        image (True) or to the image itself (False), as PyTorch
    """
    op = "avg_pool2d"
    x, k, s = _pool_args(op, x, kernel_size, stride)
    return ops.avg_pool2d(x, k, s, _padding(op, padding), bool(ceil_mode), bool(count_include_pad))


def global_avg_pool2d(x):
    """Mean over H and W: (N, C, H, W) -> (N, C, 1, 1)."""
    x = tensor(x)
    ndim_is("global_avg_pool2d", x, 4, "x", _NCHW)
    return fnp.mean(x, axis=(2, 3), keepdims=True)


def upsample_nearest(x, scale_factor):
    """Nearest-neighbour upsampling by integer factors, NCHW:
    (N, C, H, W) -> (N, C, H*sh, W*sw); ``scale_factor`` int or (sh, sw)."""
    op = "upsample_nearest"
    x = tensor(x)
    ndim_is(op, x, 4, "x", _NCHW)
    sh, sw = pair(op, scale_factor, "scale_factor")
    n, c, h, w = x.shape
    y = fnp.broadcast_to(fnp.reshape(x, (n, c, h, 1, w, 1)), (n, c, h, sh, w, sw))
    return fnp.reshape(y, (n, c, h * sh, w * sw))

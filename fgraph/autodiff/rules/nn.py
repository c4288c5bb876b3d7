"""Gradient rules of the neural-network ops, written with forward ops only.

The convolution ops are bilinear and transposes of one another:

* ``conv2d(x, w)``: dx = ``conv_transpose2d(g, w)`` (output_padding chosen
  to give back x's size), dw = ``conv2d_backward_weight(x, g)``;
* ``conv_transpose2d(x, w)``: dx = ``conv2d(g, w)`` (cropped to x when an
  output_padding >= stride made the output longer), dw =
  ``conv2d_backward_weight(g, x)``;
* ``conv2d_backward_weight(x, g)`` (= dW): with cotangent c (a weight),
  dx = ``conv_transpose2d(g, c)``, dg = ``conv2d(x, c)``;

so derivatives of any order stay within these three ops.  Pools:
``max_pool2d`` sends each window's cotangent to the window's first maximum
(row-major; ties go to the first, a NaN maximum gets none);
``max_pool2d_backward`` and ``max_pool2d_select`` are linear in their last
input and each other's transpose (the argmax is locally constant, so x and
y get no gradient).  ``avg_pool2d`` and ``avg_pool2d_backward`` are linear
and each other's transpose.  ``random_uniform`` has no gradient (its key is
an integer); ``erf``' is ``2/sqrt(pi) exp(-x**2)``.
"""
from __future__ import annotations

import math

from ... import numpy as fnp
from ...ops import nn as ops
from .. import defgrad

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _output_padding(x_hw, g_hw, kernel, stride, padding, dilation):
    """The output_padding that makes conv_transpose2d of g give x's size back."""
    return tuple(n - ops.conv_transpose_out_size(m, k, s, p[0], p[1], d, 0)
                 for n, m, k, s, p, d in zip(x_hw, g_hw, kernel, stride, padding, dilation))


def _input_grad(x, g, w, stride, padding, dilation, groups):
    """conv2d's gradient with respect to its input x, for weight w."""
    if x.size == 0:
        return None
    opad = _output_padding(x.shape[2:], g.shape[2:], w.shape[2:], stride, padding, dilation)
    return ops.conv_transpose2d(g, w, stride, padding, opad, dilation, groups)


@defgrad("conv2d")
def _conv2d(out, ins, g, stride, padding, dilation, groups):
    x, w = ins
    return (_input_grad(x, g, w, stride, padding, dilation, groups),
            ops.conv2d_backward_weight(x, g, stride, padding, dilation, groups, tuple(w.shape[2:])))


@defgrad("conv_transpose2d")
def _conv_transpose2d(out, ins, g, stride, padding, output_padding, dilation, groups):
    x, w = ins
    if x.size == 0:
        return None, None
    dx = ops.conv2d(g, w, stride, padding, dilation, groups)
    h, wd = x.shape[2:]
    extra = (dx.shape[2] - h, dx.shape[3] - wd)  # > 0 only when output_padding >= stride
    if extra != (0, 0):
        dx = dx[:, :, :h, :wd]
        x = fnp.pad(x, ((0, 0), (0, 0), (0, extra[0]), (0, extra[1])))
    return dx, ops.conv2d_backward_weight(g, x, stride, padding, dilation, groups, tuple(w.shape[2:]))


@defgrad("conv2d_backward_weight")
def _conv2d_backward_weight(out, ins, c, stride, padding, dilation, groups, kernel):
    x, g = ins
    return (_input_grad(x, g, c, stride, padding, dilation, groups),
            ops.conv2d(x, c, stride, padding, dilation, groups))


@defgrad("max_pool2d")
def _max_pool2d(out, ins, g, **params):
    (x,) = ins
    if x.dtype.kind != "f":
        return (None,)
    return (ops.max_pool2d_backward(x, out, g, **params),)


@defgrad("max_pool2d_backward")
def _max_pool2d_backward(out, ins, c, **params):
    x, y, _ = ins
    return None, None, ops.max_pool2d_select(x, y, c, **params)


@defgrad("max_pool2d_select")
def _max_pool2d_select(out, ins, g, **params):
    x, y, _ = ins
    return None, None, ops.max_pool2d_backward(x, y, g, **params)


@defgrad("avg_pool2d")
def _avg_pool2d(out, ins, g, **params):
    (x,) = ins
    return (ops.avg_pool2d_backward(g, x.shape[2:], **params),)


@defgrad("avg_pool2d_backward")
def _avg_pool2d_backward(out, ins, c, input_hw, **params):
    return (ops.avg_pool2d(c, **params),)


@defgrad("random_uniform")
def _random_uniform(out, ins, g, **params):
    return (None,)


@defgrad("erf")
def _erf(out, ins, g):
    (x,) = ins
    return (g * (_TWO_OVER_SQRT_PI * fnp.exp(-(x * x))),)

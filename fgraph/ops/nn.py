"""Neural-network ops: convolutions, pooling, erf, a keyed random generator.

Only what needs a kernel of its own lives here; everything exact as a
composite of NumPy-named ops (relu, softmax, layer_norm, batch_norm, ...) is
written in :mod:`fgraph.nn` and so gets fusion, planning and gradients from
the ops it is made of.  ``__all__`` is empty: ``fgraph.numpy`` keeps NumPy's
names only; the public functions are in ``fgraph.nn``.

Layout NCHW.  Static parameters are normalised so equal calls make equal
nodes: ``stride``, ``dilation``, ``kernel``, ``output_padding`` are pairs of
ints, ``padding`` is ``((top, bottom), (left, right))``, ``groups`` an int,
``ceil_mode`` / ``count_include_pad`` bools.

===========================  ==================  ==================================
op                           inputs              result
===========================  ==================  ==================================
conv2d                       x, w                (N, O, H', W')
conv_transpose2d             x, w                (N, O, H', W'), w (C, O/groups, kh, kw)
conv2d_backward_weight       x, g                dL/dw of conv2d(x, w) for cotangent g
max_pool2d                   x                   window maxima (padding is -inf)
max_pool2d_backward          x, y, g             g routed to each window's first maximum
max_pool2d_select            x, y, c             c read at each window's first maximum
avg_pool2d                   x                   window means
avg_pool2d_backward          g                   the transpose of avg_pool2d
random_uniform               key                 uniform [0, 1) from Philox(key)
erf                          x                   the error function, element-wise
===========================  ==================  ==================================

The backward ops are linear in their last input and come in transpose pairs
(``conv2d`` / ``conv_transpose2d`` / ``conv2d_backward_weight``,
``max_pool2d_backward`` / ``max_pool2d_select``, ``avg_pool2d`` /
``avg_pool2d_backward``), so the gradient of a gradient is made of these ops
again (their gradient rules are below, with the ops).
"""
from __future__ import annotations

import math
import operator

import numpy as np

from ..errors import DTypeError, ShapeError
from ..opdef import no_gradient
from ..tensor import Tensor, lift, stack_of
from ..shape import defop, size_of, ufunc_dtypes
from ..symbol import make_node
from . import elementwise, movement
from . import nn_kernels as K
from .batching import Ctx, Mixes, refuse_batching
from .nn_kernels import (  # noqa: F401  (the window geometry, shared with the kernels; public here too)
    ceil_div, conv_out_size, conv_transpose_out_size, pool_out_size, valid_range, windows)

__all__: list[str] = []


# ---------------------------------------------------------------- checks
# (rules raise plain messages: make_node prefixes the op and adds the user's line)

def _float_dtype(*nodes) -> np.dtype:
    for n in nodes:
        if n.dtype.kind != "f":
            raise DTypeError(f"needs floating-point arrays, got {n.dtype}")
    return np.result_type(*(n.dtype for n in nodes))


def _nchw(x, what: str = "x") -> tuple:
    if len(x.shape) != 4:
        raise ShapeError(f"needs a 4-d (N, C, H, W) {what}, got shape {x.shape}")
    return x.shape


def _spatial(out_hw, in_hw, what: str = "output"):
    if min(out_hw) <= 0:
        raise ShapeError(f"the {what} would be empty ({out_hw[0]} x {out_hw[1]}) for a "
                         f"{in_hw[0]} x {in_hw[1]} input: the (dilated) kernel is larger than the padded input")


def _conv_out_hw(x_hw, kernel, stride, padding, dilation):
    return tuple(conv_out_size(n, k, s, p[0], p[1], d)
                 for n, k, s, p, d in zip(x_hw, kernel, stride, padding, dilation))


# ---------------------------------------------------------------- gradients
# Gradient rules of the neural-network ops, written with forward ops only.
#
# The convolution ops are bilinear and transposes of one another:
#
# * ``conv2d(x, w)``: dx = ``conv_transpose2d(g, w)`` (output_padding chosen
#   to give back x's size), dw = ``conv2d_backward_weight(x, g)``;
# * ``conv_transpose2d(x, w)``: dx = ``conv2d(g, w)`` (cropped to x when an
#   output_padding >= stride made the output longer), dw =
#   ``conv2d_backward_weight(g, x)``;
# * ``conv2d_backward_weight(x, g)`` (= dW): with cotangent c (a weight),
#   dx = ``conv_transpose2d(g, c)``, dg = ``conv2d(x, c)``;
#
# so derivatives of any order stay within these three ops.  Pools:
# ``max_pool2d`` sends each window's cotangent to the window's first maximum
# (row-major; ties go to the first, a NaN maximum gets none);
# ``max_pool2d_backward`` and ``max_pool2d_select`` are linear in their last
# input and each other's transpose (the argmax is locally constant, so x and
# y get no gradient).  ``avg_pool2d`` and ``avg_pool2d_backward`` are linear
# and each other's transpose.  ``random_uniform`` has no gradient (its key is
# an integer); ``erf``' is ``2/sqrt(pi) exp(-x**2)``.

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _output_padding(x_hw, g_hw, kernel, stride, padding, dilation):
    """The output_padding that makes conv_transpose2d of g give x's size back."""
    return tuple(n - conv_transpose_out_size(m, k, s, p[0], p[1], d, 0)
                 for n, m, k, s, p, d in zip(x_hw, g_hw, kernel, stride, padding, dilation))


def _input_grad(x, g, w, stride, padding, dilation, groups):
    """conv2d's gradient with respect to its input x, for weight w."""
    if x.size == 0:
        return None
    opad = _output_padding(x.shape[2:], g.shape[2:], w.shape[2:], stride, padding, dilation)
    return conv_transpose2d(g, w, stride, padding, opad, dilation, groups)


def _conv2d_grad(out, ins, g, stride, padding, dilation, groups):
    x, w = ins
    return (_input_grad(x, g, w, stride, padding, dilation, groups),
            conv2d_backward_weight(x, g, stride, padding, dilation, groups, tuple(w.shape[2:])))


def _conv_transpose2d_grad(out, ins, g, stride, padding, output_padding, dilation, groups):
    x, w = ins
    if x.size == 0:
        return None, None
    dx = conv2d(g, w, stride, padding, dilation, groups)
    h, wd = x.shape[2:]
    extra = (dx.shape[2] - h, dx.shape[3] - wd)  # > 0 only when output_padding >= stride
    if extra != (0, 0):
        dx = dx[:, :, :h, :wd]
        x = movement.pad(x, ((0, 0), (0, 0), (0, extra[0]), (0, extra[1])))
    return dx, conv2d_backward_weight(g, x, stride, padding, dilation, groups, tuple(w.shape[2:]))


def _conv2d_backward_weight_grad(out, ins, c, stride, padding, dilation, groups, kernel):
    x, g = ins
    return (_input_grad(x, g, c, stride, padding, dilation, groups),
            conv2d(x, c, stride, padding, dilation, groups))


def _max_pool2d_grad(out, ins, g, **params):
    (x,) = ins
    if x.dtype.kind != "f":
        return (None,)
    return (max_pool2d_backward(x, out, g, **params),)


def _max_pool2d_backward_grad(out, ins, c, **params):
    x, y, _ = ins
    return None, None, max_pool2d_select(x, y, c, **params)


def _max_pool2d_select_grad(out, ins, g, **params):
    x, y, _ = ins
    return None, None, max_pool2d_backward(x, y, g, **params)


def _avg_pool2d_grad(out, ins, g, **params):
    (x,) = ins
    return (avg_pool2d_backward(g, x.shape[2:], **params),)


def _avg_pool2d_backward_grad(out, ins, c, input_hw, **params):
    return (avg_pool2d(c, **params),)


def _erf_grad(out, ins, g):
    (x,) = ins
    return (g * (_TWO_OVER_SQRT_PI * elementwise.exp(-(x * x))),)


def _conv_like(node, c: Ctx) -> tuple:
    """The batch rule of conv2d, conv_transpose2d, pools: images batched on axis 0, weights not."""
    if not c.batched[0]:
        raise Mixes("its weights are batched")
    c.only(node, 0)
    return node.params


# ---------------------------------------------------------------- convolutions

def _conv2d_rule(inputs, stride, padding, dilation, groups):
    x, w = inputs
    n, c, *hw = _nchw(x)
    o, cg, kh, kw = _nchw(w, "weight")
    dt = _float_dtype(x, w)
    if groups < 1 or c % groups or o % groups:
        raise ShapeError(f"groups={groups} must divide the input channels ({c}) and the output "
                         f"channels ({o})")
    if cg * groups != c:
        raise ShapeError(f"weight {w.shape} expects {cg * groups} input channels "
                         f"({cg} per group x {groups} groups), x {x.shape} has {c}")
    out_hw = _conv_out_hw(hw, (kh, kw), stride, padding, dilation)
    _spatial(out_hw, hw)
    return (n, o) + out_hw, dt


def _conv_transpose2d_rule(inputs, stride, padding, output_padding, dilation, groups):
    x, w = inputs
    n, c, *hw = _nchw(x)
    cw, og, kh, kw = _nchw(w, "weight")
    dt = _float_dtype(x, w)
    if groups < 1 or c % groups:
        raise ShapeError(f"groups={groups} must divide the input channels ({c})")
    if cw != c:
        raise ShapeError(f"weight {w.shape} (C, O/groups, kh, kw) expects {cw} input "
                         f"channels, x {x.shape} has {c}")
    out_hw = tuple(conv_transpose_out_size(m, k, s, p[0], p[1], d, q) for m, k, s, p, d, q in
                   zip(hw, (kh, kw), stride, padding, dilation, output_padding))
    _spatial(out_hw, hw)
    return (n, og * groups) + out_hw, dt


def _conv2d_backward_weight_rule(inputs, stride, padding, dilation, groups, kernel):
    x, g = inputs
    n, c, *hw = _nchw(x)
    gn, o, *ghw = _nchw(g, "cotangent")
    dt = _float_dtype(x, g)
    if groups < 1 or c % groups or o % groups:
        raise ShapeError(f"groups={groups} must divide the channels ({c}, {o})")
    want = (n, o) + _conv_out_hw(hw, kernel, stride, padding, dilation)
    if tuple(g.shape) != want:
        raise ShapeError(f"cotangent {g.shape} is not the conv2d output shape {want}")
    return (o, c // groups) + tuple(kernel), dt


def _flops(inputs, params, op):
    """The ``cost`` attribute (flops, 2 per multiply-add, as ``matmul``'s):
    one multiply-add per (output position, output channel, C/G*kh*kw)."""
    p = dict(params)
    a, b = inputs
    if op == "conv2d":  # a: x, b: w (O, C/G, kh, kw)
        shape, _ = _conv2d_rule(inputs, **p)
        return 2 * size_of(shape) * b.shape[1] * b.shape[2] * b.shape[3]
    if op == "conv_transpose2d":  # the same product seen from the input: per element of x, O/G*kh*kw
        return 2 * a.size * b.shape[1] * b.shape[2] * b.shape[3]
    kh, kw = p["kernel"]  # conv2d_backward_weight(x, g): per element of g, C/G*kh*kw
    return 2 * b.size * (a.shape[1] // p["groups"]) * kh * kw


defop("conv2d", _conv2d_rule, "2-d convolution (cross-correlation, NCHW); inputs x, w; params stride, padding, "
                              "dilation, groups.", cost=lambda inputs, params: _flops(inputs, params, "conv2d"),
      kernel=K.conv2d_kernel, out_kernel=K.conv2d_out, workspace=K.conv2d_workspace, grad=_conv2d_grad,
      batch_rule=_conv_like)
defop("conv_transpose2d", _conv_transpose2d_rule, "2-d transposed convolution (the adjoint of conv2d in its "
                                                  "input); inputs x, w (C, O/groups, kh, kw).",
      cost=lambda inputs, params: _flops(inputs, params, "conv_transpose2d"),
      kernel=K.conv_transpose2d_kernel, out_kernel=K.conv_transpose2d_out, workspace=K.conv_transpose2d_workspace,
      grad=_conv_transpose2d_grad, batch_rule=_conv_like)
defop("conv2d_backward_weight", _conv2d_backward_weight_rule, "The gradient of conv2d with respect to its "
                                                              "weight; inputs x, g; params as conv2d, kernel.",
      cost=lambda inputs, params: _flops(inputs, params, "conv2d_backward_weight"),
      kernel=K.conv2d_backward_weight_kernel, out_kernel=K.conv2d_backward_weight_out,
      workspace=K.conv2d_backward_weight_workspace, grad=_conv2d_backward_weight_grad)


def _tensor(op: str, args, params: tuple) -> Tensor:
    st = stack_of(args)
    return Tensor(make_node(op, [lift(a, st) for a in args], params), st)


def conv2d(x, w, stride, padding, dilation, groups) -> Tensor:
    """The ``conv2d`` node on normalised params (no bias)."""
    return _tensor("conv2d", (x, w), (("stride", stride), ("padding", padding), ("dilation", dilation),
                                      ("groups", groups)))


def conv_transpose2d(x, w, stride, padding, output_padding, dilation, groups) -> Tensor:
    """The ``conv_transpose2d`` node on normalised params (no bias)."""
    return _tensor("conv_transpose2d", (x, w), (("stride", stride), ("padding", padding),
                                                ("output_padding", output_padding), ("dilation", dilation),
                                                ("groups", groups)))


def conv2d_backward_weight(x, g, stride, padding, dilation, groups, kernel) -> Tensor:
    return _tensor("conv2d_backward_weight", (x, g), (("stride", stride), ("padding", padding),
                                                      ("dilation", dilation), ("groups", groups),
                                                      ("kernel", kernel)))


# ---------------------------------------------------------------- pooling

def _pool_out_hw(x, kernel, stride, padding, dilation, ceil_mode):
    n, c, *hw = _nchw(x)
    out_hw = tuple(pool_out_size(m, k, s, p[0], p[1], d, ceil_mode)
                   for m, k, s, p, d in zip(hw, kernel, stride, padding, dilation))
    _spatial(out_hw, hw)
    return (n, c) + out_hw


def _max_pool2d_rule(inputs, kernel, stride, padding, dilation, ceil_mode):
    (x,) = inputs
    if x.dtype.kind not in "iuf":
        raise DTypeError(f"needs a real numeric array, got {x.dtype}")
    return _pool_out_hw(x, kernel, stride, padding, dilation, ceil_mode), x.dtype


def _max_pool2d_backward_rule(inputs, kernel, stride, padding, dilation, ceil_mode, op="max_pool2d_backward"):
    """backward: (x, y, g of y's shape) -> x's shape; select: (x, y, c of x's
    shape) -> y's shape."""
    x, y, g = inputs
    want = _pool_out_hw(x, kernel, stride, padding, dilation, ceil_mode)
    g_want, result = (want, tuple(x.shape)) if op == "max_pool2d_backward" else (tuple(x.shape), want)
    if tuple(y.shape) != want or y.dtype != x.dtype:
        raise ShapeError(f"the pooled value must be {x.dtype}{list(want)}, got {y.dtype}{list(y.shape)}")
    if tuple(g.shape) != g_want:
        raise ShapeError(f"the last input must have shape {g_want}, got {g.shape}")
    _float_dtype(x, g)
    return result, g.dtype


def _avg_pool2d_rule(inputs, kernel, stride, padding, ceil_mode, count_include_pad):
    (x,) = inputs
    _float_dtype(x)
    return _pool_out_hw(x, kernel, stride, padding, (1, 1), ceil_mode), x.dtype


def _avg_pool2d_backward_rule(inputs, kernel, stride, padding, ceil_mode, count_include_pad, input_hw):
    (g,) = inputs
    _float_dtype(g)
    n, c, *ghw = _nchw(g, "cotangent")
    x_shape = (n, c) + tuple(input_hw)
    want = tuple(pool_out_size(m, k, s, p[0], p[1], 1, ceil_mode)
                 for m, k, s, p in zip(input_hw, kernel, stride, padding))
    if tuple(ghw) != want:
        raise ShapeError(f"cotangent {g.shape} is not the pooled shape {(n, c) + want}")
    return x_shape, g.dtype


defop("max_pool2d", _max_pool2d_rule, "2-d max pooling (padding counts as -inf); params kernel, stride, padding, "
                                      "dilation, ceil_mode.",
      kernel=K.max_pool2d_kernel, out_kernel=K.max_pool2d_out, workspace=K.max_pool2d_workspace,
      grad=_max_pool2d_grad, batch_rule=_conv_like)
defop("max_pool2d_backward", _max_pool2d_backward_rule, "The gradient of max_pool2d: g added at the first "
                                                        "maximum of each window; inputs x, y=max_pool2d(x), g.",
      kernel=K.max_pool2d_backward_kernel, out_kernel=K.max_pool2d_backward_out, grad=_max_pool2d_backward_grad)
defop("max_pool2d_select", lambda inputs, **p: _max_pool2d_backward_rule(inputs, op="max_pool2d_select", **p),
      "The transpose of max_pool2d_backward in g: c read at the first maximum of each window; inputs x, y, c.",
      kernel=K.max_pool2d_select_kernel, out_kernel=K.max_pool2d_select_out, grad=_max_pool2d_select_grad)
defop("avg_pool2d", _avg_pool2d_rule, "2-d average pooling; params kernel, stride, padding, ceil_mode, "
                                      "count_include_pad.",
      kernel=K.avg_pool2d_kernel, out_kernel=K.avg_pool2d_out, workspace=K.avg_pool2d_workspace,
      grad=_avg_pool2d_grad, batch_rule=_conv_like)
defop("avg_pool2d_backward", _avg_pool2d_backward_rule, "The transpose of avg_pool2d (its gradient); params "
                                                        "those of avg_pool2d and input_hw.",
      kernel=K.avg_pool2d_backward_kernel, out_kernel=K.avg_pool2d_backward_out, grad=_avg_pool2d_backward_grad)


def _pool_params(kernel, stride, padding, dilation, ceil_mode) -> tuple:
    return (("kernel", kernel), ("stride", stride), ("padding", padding), ("dilation", dilation),
            ("ceil_mode", ceil_mode))


def max_pool2d(x, kernel, stride, padding, dilation, ceil_mode) -> Tensor:
    return _tensor("max_pool2d", (x,), _pool_params(kernel, stride, padding, dilation, ceil_mode))


def max_pool2d_backward(x, y, g, **params) -> Tensor:
    return _tensor("max_pool2d_backward", (x, y, g), _pool_params(**params))


def max_pool2d_select(x, y, c, **params) -> Tensor:
    return _tensor("max_pool2d_select", (x, y, c), _pool_params(**params))


def _avg_params(kernel, stride, padding, ceil_mode, count_include_pad) -> tuple:
    return (("kernel", kernel), ("stride", stride), ("padding", padding), ("ceil_mode", ceil_mode),
            ("count_include_pad", count_include_pad))


def avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad) -> Tensor:
    return _tensor("avg_pool2d", (x,), _avg_params(kernel, stride, padding, ceil_mode, count_include_pad))


def avg_pool2d_backward(g, input_hw, **params) -> Tensor:
    return _tensor("avg_pool2d_backward", (g,), _avg_params(**params) + (("input_hw", tuple(input_hw)),))


# ---------------------------------------------------------------- random numbers

_RANDOM_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _random_uniform_rule(inputs, shape, dtype):
    (key,) = inputs
    if key.shape != () or key.dtype.kind not in "iu":
        raise DTypeError(f"the key must be a 0-d integer, got {key.dtype}{list(key.shape)}")
    if np.dtype(dtype) not in _RANDOM_DTYPES:
        raise DTypeError(f"makes float32 or float64, not {dtype}")
    return tuple(shape), dtype


defop("random_uniform", _random_uniform_rule, "Uniform values in [0, 1) drawn from Philox with the key "
                                              "input; deterministic for a key.",
      kernel=K.random_uniform_kernel, out_kernel=K.random_uniform_out, grad=no_gradient)  # (an integer key)


def random_uniform(key, shape, dtype="float64") -> Tensor:
    """Uniform [0, 1) values of ``shape`` from Philox keyed by ``key`` (a
    Python int or a 0-d integer Tensor).  The same key gives the same values."""
    shape = tuple(operator.index(d) for d in shape)
    return _tensor("random_uniform", (key,), (("shape", shape), ("dtype", np.dtype(dtype))))


# ---------------------------------------------------------------- erf

def _erf_rule(inputs):
    (x,) = inputs
    if x.dtype.kind == "c":
        raise DTypeError("erf is not defined here for complex arrays")
    return x.shape, ufunc_dtypes(np.sin, inputs)[1]  # the dtypes NumPy's float ufuncs pick


defop("erf", _erf_rule, "The error function, element-wise (float64-accurate rational approximation).",
      elementwise=True, nin=1, inplace=(0,), kernel=K.erf_kernel, out_kernel=K.erf_out, grad=_erf_grad)


def erf(x) -> Tensor:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt``, element-wise."""
    return _tensor("erf", (x,), ())

refuse_batching(("conv2d_backward_weight",), "the weight gradient sums over the batch: its rows mix")
refuse_batching(("avg_pool2d_backward", "max_pool2d_backward", "max_pool2d_select"),
                "a training-time op: not audited for micro-batching (only inference graphs are)")
refuse_batching(("random_uniform",), "its draws depend on the whole shape: chunks would draw other numbers")

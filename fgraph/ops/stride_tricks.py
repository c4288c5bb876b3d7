"""``numpy.lib.stride_tricks`` on lazy arrays: ``sliding_window_view`` (and
the broadcasting functions NumPy also lists there).

NumPy makes the windows a strided view of its input; here they are one
gather (advanced indexing) with constant index arrays, one per axis of the
input, each spanning only the axes it varies along (an open mesh, so the
indices take a few kilobytes where the windows take megabytes).  Shape,
dtype and values are NumPy's.  ``as_strided`` reads memory through
arbitrary strides, which a lazy array does not have: it runs NumPy's on
NumPy data and refuses a lazy array.
"""
from __future__ import annotations

import operator

import numpy as np

from ..errors import FgraphError, ShapeError
from ..tensor import Tensor
from ..symbol import error_at
from .building import lazy, namespace, python_value

__all__: list[str] = []  # nothing in the main namespace: fgraph.numpy.lib.stride_tricks holds STRIDE_TRICKS_ALL
STRIDE_TRICKS_ALL = ["sliding_window_view", "as_strided", "broadcast_to", "broadcast_arrays", "broadcast_shapes"]


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Lazy ``numpy.lib.stride_tricks.sliding_window_view``: every window of
    ``window_shape`` along ``axis`` (all axes when None), windows last.

    The windows are a lazy array (a gather), not a view: ``writeable=True``
    (writing through overlapping windows) is refused.
    """
    op = "sliding_window_view"
    if writeable:
        raise error_at(FgraphError, op, "writeable=True writes through overlapping windows of one buffer, which "
                                        "fgraph's windows (a gather, not a strided view) do not share")
    window_shape = python_value(window_shape, op, "window_shape")
    window = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    try:
        window = tuple(operator.index(w) for w in window)
    except TypeError:
        raise error_at(FgraphError, op, f"window_shape must hold integers, got {window_shape!r}") from None
    x = lazy(x)
    if any(w < 0 for w in window):
        raise error_at(ShapeError, op, "`window_shape` cannot contain negative values")
    if axis is None:
        axes = tuple(range(x.ndim))
        if len(window) != len(axes):
            raise error_at(ShapeError, op, f"Since axis is `None`, must provide window_shape for all dimensions of "
                                           f"`x`; got {len(window)} window_shape elements and `x.ndim` is {x.ndim}.")
    else:
        axes = python_value(axis, op, "axis")
        axes = tuple(axes) if np.iterable(axes) else (axes,)
        try:  # NumPy's own normalisation (repeats allowed: an axis may be windowed twice)
            axes = tuple(np.lib.array_utils.normalize_axis_index(operator.index(a), x.ndim) for a in axes)
        except np.exceptions.AxisError as e:
            from ..errors import AxisError

            raise error_at(AxisError, op, str(e)) from None
        if len(window) != len(axes):
            raise error_at(ShapeError, op, f"Must provide matching length window_shape and axis; got {len(window)} "
                                           f"window_shape elements and {len(axes)} axes elements.")
    trimmed = list(x.shape)
    for ax, w in zip(axes, window):
        if trimmed[ax] < w:
            raise error_at(ShapeError, op, "window shape cannot be larger than input array shape")
        trimmed[ax] -= w - 1
    out_shape = tuple(trimmed) + window
    if x.ndim == 0:
        return namespace().array(x)
    # out[i..., w...] = x[..., i_d + (sum of the w_j windowing axis d), ...]: one open-mesh index per axis d
    n = len(out_shape)
    index = []
    for d in range(x.ndim):
        shape = [1] * n
        shape[d] = trimmed[d]
        idx = np.arange(trimmed[d], dtype=np.intp).reshape(shape)
        for j, ax in enumerate(axes):
            if ax == d:
                shape = [1] * n
                shape[x.ndim + j] = window[j]
                idx = idx + np.arange(window[j], dtype=np.intp).reshape(shape)
        index.append(idx)
    return x[tuple(index)]  # the indices broadcast to out_shape: each axis has its length in one of them


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """``numpy.lib.stride_tricks.as_strided`` on NumPy data; a lazy array is
    refused (it has no memory to stride through)."""
    if isinstance(x, Tensor):
        raise error_at(FgraphError, "as_strided", "as_strided reads memory through strides, which a lazy array "
                                                  "does not have; use sliding_window_view for windows, "
                                                  "broadcast_to for repeats, or evaluate first with "
                                                  "numpy.asarray(t)")
    return np.lib.stride_tricks.as_strided(x, shape, strides, subok, writeable)


def broadcast_to(array, shape, subok=False):
    """Lazy ``numpy.broadcast_to``."""
    return namespace().broadcast_to(array, shape, subok=subok)


def broadcast_arrays(*args, subok=False):
    """Lazy ``numpy.broadcast_arrays``."""
    return namespace().broadcast_arrays(*args, subok=subok)


def broadcast_shapes(*args):
    """``numpy.broadcast_shapes``."""
    return namespace().broadcast_shapes(*args)

"""Sorting ops on the CuPy engine.

CuPy's sorts take no ``kind``/``stable`` (its sort is a stable radix/merge
sort), its ``lexsort`` only 2-D key stacks, and the NumPy kernels call
``np.asarray``; so sort, argsort, partition and lexsort have kernels here
(``kind`` goes to NumPy only, on the NumPy device).  Order statistics call
``xp.<name>``; weighted quantiles and NumPy's newer quantile methods have no
CuPy form and are refused when the graph is compiled.

Where NumPy leaves an order unspecified CuPy's may differ: ties in
``argsort`` with the default (unstable) kind, the order within the two
sides of ``partition``/``argpartition``.
"""
import numpy as np

from ...ops.sorting import _ORDER_STATS, order_stat_layout
from .support import cupy, dispatch, xp

#: quantile methods CuPy implements
_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _kind(m, kind, stable=None):
    return {"kind": kind, "stable": stable} if m is np else {}


def _flat(m, x, axis):
    x = m.asarray(x)
    return (x.reshape(-1), 0) if axis is None else (x, axis)


def _sort(x, axis, kind, stable, descending):
    m = xp()
    x, axis = _flat(m, x, axis)
    if not descending:
        return m.sort(x, axis=axis, **_kind(m, kind, stable))
    return m.flip(m.sort(m.flip(x, axis), axis=axis, **_kind(m, "stable")), axis)


def _argsort(x, axis, kind, stable, descending):
    m = xp()
    x = m.asarray(x)
    if not descending:
        if axis is None:
            x, axis = x.reshape(-1), 0
        return m.argsort(x, axis=axis, **_kind(m, kind, stable))
    x, axis = (x.reshape(-1), 0) if axis is None or x.ndim == 0 else (x, axis)
    idx = m.argsort(m.flip(x, axis), axis=axis, **_kind(m, "stable"))
    return (x.shape[axis] - 1) - m.flip(idx, axis)


def _partition(x, kth, axis, kind):
    m = xp()
    x, axis = _flat(m, x, axis)
    return m.partition(x, kth, axis=axis, **({"kind": kind} if m is np else {}))


def _argpartition(x, kth, axis, kind):
    m = xp()
    x, axis = _flat(m, x, axis)
    return m.argpartition(x, kth, axis=axis, **({"kind": kind} if m is np else {}))


def _lexsort(*keys, axis):
    """Stable argsorts from the least to the most significant key (the last)."""
    m = xp()
    ks = [m.asarray(k) for k in keys]
    if ks[0].ndim == 0:
        return m.asarray(0, dtype=np.intp)
    if axis is None:
        ks, axis = [k.reshape(-1) for k in ks], 0
    idx = m.argsort(ks[0], axis=axis, kind="stable")
    for k in ks[1:]:
        order = m.argsort(m.take_along_axis(k, idx, axis), axis=axis, kind="stable")
        idx = m.take_along_axis(idx, order, axis)
    return idx


def call(fn, a, q, axis, keepdims, method):
    try:
        return fn(a, q, axis=axis, keepdims=keepdims, method=method)
    except TypeError:  # CuPy before 13 calls it interpolation=
        return fn(a, q, axis=axis, keepdims=keepdims, interpolation=method)


def _order_stat(name: str):
    def kernel(a, *rest, axis, keepdims, method=None, weighted=False):
        m = xp()
        fn = getattr(m, name)
        ax = axis if axis is None or len(axis) != 1 else axis[0]
        if "median" in name:
            return fn(m.asarray(a), axis=ax, keepdims=keepdims)
        q = rest[0] if type(rest[0]) in (int, float) else m.asarray(rest[0])  # a Python q stays weak
        a = m.asarray(a)
        layout = order_stat_layout(name, a.ndim, axis, np.ndim(q), keepdims, empty=a.size == 0)
        if layout != order_stat_layout("plain", a.ndim, axis, np.ndim(q), keepdims) and a.size:
            # NumPy's nan-forms' own layout (see order_stat_layout): the plain
            # one over the reduced axes merged last (one non-negative axis,
            # where every form agrees), its axes then moved where NumPy has them
            keep = [j for j in range(a.ndim) if j not in axis]
            merged = m.moveaxis(a, keep, range(len(keep))).reshape(tuple(a.shape[j] for j in keep) + (-1,))
            r = call(fn, merged, q, len(keep), False, method)
            order = [k for k in layout if k is not None]
            return r.transpose(order).reshape(tuple(1 if k is None else r.shape[k] for k in layout))
        return call(fn, a, q, ax, keepdims, method)
    kernel.__name__ = f"cupy_{name}"
    return kernel


def _refuse_order_stat(node):
    params = dict(node.params)
    if params.get("weighted"):
        return "weighted quantiles have no CuPy form"
    if params.get("method") not in (None,) + _METHODS:
        return f"quantile method {params['method']!r} has no CuPy form (CuPy has {', '.join(_METHODS)})"
    return None


cupy("sort", _sort, None, "xp.sort (kind/stable: NumPy only; CuPy's sort is stable)", needs=("sort",))
cupy("argsort", _argsort, None, "xp.argsort (ties: CuPy's order is the stable one)", needs=("argsort",))
cupy("partition", _partition, None, "xp.partition without kind (order within sides differs)",
     needs=("partition",))
cupy("argpartition", _argpartition, None, "xp.argpartition without kind", needs=("argpartition",))
cupy("lexsort", _lexsort, None, "stable argsorts key by key (cupy.lexsort takes only 2-D stacks)",
     needs=("argsort", "take_along_axis"))
dispatch("sort_complex", "np.sort_complex -> cupy.sort_complex", needs=("sort_complex",), out=False)
for _name in _ORDER_STATS:
    cupy(_name, _order_stat(_name), None, f"xp.{_name} (method=; weights refused)", needs=(_name,),
         refuse=_refuse_order_stat)

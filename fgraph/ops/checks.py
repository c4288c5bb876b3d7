"""Run-time checks: ``checked(value, ok, op, message)`` is ``value``, and
where the graph runs it raises NumPy's ``ValueError`` (an ``FgraphError``
too, naming the user's line) unless every element of the lazy bool ``ok``
is true.

NumPy checks some data before it computes: a histogram's range found from
data with NaN, bins that do not increase, negative weights,
``asarray_chkfinite``.  A lazy input cannot be checked when its node is
made, so the check is a node of its own, and the value that depends on it
flows through it (a check nothing reads is removed with its value).
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, also
from ..tensor import Tensor, lift, stack_of
from ..shape import defop
from ..symbol import error_at, make_node
from ..registry import set_attr
from .building import lazy, namespace

__all__ = ["asarray_chkfinite"]


def _check_rule(inputs, op, message):
    value, ok = inputs
    if ok.dtype != np.bool_:
        raise DTypeError(f"the condition of a check is bool, not {ok.dtype}")
    return value.shape, value.dtype


defop("check", _check_rule, "The value (input 0), after a run-time check that every element of input 1 is "
                            "true (params op, message: NumPy's ValueError otherwise)", inplace=(0,))
set_attr("check", "may_raise", True)  # a failed check writes no variable in place


def checked(value, ok, op: str, message: str) -> Tensor:
    """``value``, raising ``ValueError(f"{op}: {message}")`` where the graph
    runs unless ``ok`` is all true.  A known ``ok`` is checked now."""
    if not isinstance(ok, Tensor) or ok.node.op == "constant":
        known = np.asarray(ok if not isinstance(ok, Tensor) else ok.node.param("value").array)
        if not known.all():
            raise error_at(also(ValueError), op, message)
        return value
    st = stack_of((value, ok))
    return Tensor(make_node("check", [lift(value, st), lift(ok, st)], (("op", op), ("message", message))), st)


def asarray_chkfinite(a, dtype=None, order=None):
    """Lazy ``numpy.asarray_chkfinite``: the array, where the graph runs
    refused with NumPy's ValueError if it holds an infinity or a NaN."""
    a = lazy(a) if dtype is None else namespace().asarray(a, dtype=dtype)
    if a.dtype.kind not in "fc":
        return a
    # the element-wise verdict: the kernel reads all of it, and chunks (micro-batches, Dask blocks) check their own
    return checked(a, namespace().isfinite(a), "asarray_chkfinite", "array must not contain infs or NaNs")

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
from .batching import Ctx, Mixes
from .building import lazy, namespace

__all__ = ["asarray_chkfinite"]


def _check_rule(inputs, op, message):
    value, ok = inputs
    if ok.dtype != np.bool_:
        raise DTypeError(f"the condition of a check is bool, not {ok.dtype}")
    return value.shape, value.dtype


def _test(ok, op, message):
    if not bool(ok.all() if hasattr(ok, "all") else ok):
        raise ValueError(f"{op}: {message}")


def _check_kernel(value, ok, op, message):
    """The condition tested, the value copied."""
    _test(ok, op, message)
    return value.copy() if hasattr(value, "copy") else value


def _check_out(value, ok, *, out, op, message):
    """The condition tested, the value copied into ``out`` (which the planner
    may make the value itself: then nothing)."""
    _test(ok, op, message)
    if out is not value:
        np.copyto(out, value)  # (NumPy's protocols hand CuPy arrays to CuPy)
    return out


def _check_grad(out, ins, g, op, message):
    """The value passes the cotangent through; the condition (bool) has none."""
    return g, None


def _check_batch(node, c: Ctx) -> tuple:
    """Each chunk's value checked; a condition on the batch's rows needs the
    value batched too (each chunk checks its own)."""
    if c.batched[1] and not c.batched[0]:
        raise Mixes("its condition reads the batch rows but its value does not")
    return node.params


defop("check", _check_rule, "The value (input 0), after a run-time check that every element of input 1 is "
                            "true (params op, message: NumPy's ValueError otherwise)", inplace=(0,),
      may_raise=True,  # a failed check writes no variable in place
      kernel=_check_kernel, out_kernel=_check_out, grad=_check_grad, batch_rule=_check_batch)


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

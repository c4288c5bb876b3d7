"""Gradient rules of the ufunc-method ops (``fgraph/ops/ufunc.py``).

``add/multiply/maximum/minimum.reduce`` and ``add/multiply.accumulate`` are
built from ``sum``/``prod``/``max``/``min``/``cumsum``/``cumprod``, whose
rules apply; the dedicated ops cover what those cannot express exactly:

* ``ufunc_at`` of ``add``/``subtract`` (``np.add.at``, a scatter-add):
  ``a``'s cotangent is ``g``, ``b``'s is ``g`` gathered at the index
  (negated for subtract; every occurrence of a repeated index adds its
  ``b``), summed down to ``b``'s shape.
* Integer and bool results are not differentiable: None for every input
  (as for ``argmax``), so a vector-Jacobian product through them gives zeros.
* A float result of any other ufunc method (``subtract.reduce``,
  ``divide.accumulate``, ``add.reduceat``, ``maximum.at``...) has no rule
  yet: asking for its gradient raises, naming the method.
"""
from __future__ import annotations

from ...errors import FgraphError
from ...ops.ufunc import decode_key
from ...symbol import error_at
from .. import defgrad

_METHOD = {"ufunc_reduce": "reduce", "ufunc_accumulate": "accumulate", "ufunc_reduceat": "reduceat",
           "ufunc_at": "at"}


def _refused(out, ufunc: str, op: str):
    raise error_at(FgraphError, "grad", f"numpy.{ufunc}.{_METHOD[op]} has no gradient rule (node made at "
                                        f"{out.node.where[0]}:{out.node.where[1]})" if out.node.where else
                   f"numpy.{ufunc}.{_METHOD[op]} has no gradient rule")


def _method_rule(op: str):
    def rule(out, ins, g, ufunc, **params):
        if out.dtype.kind != "f":
            return (None,) * len(ins)
        _refused(out, ufunc, op)
    return rule


for _op in ("ufunc_reduce", "ufunc_accumulate", "ufunc_reduceat"):
    defgrad(_op)(_method_rule(_op))


@defgrad("ufunc_at")
def _at(out, ins, g, ufunc, key, tuple, operand):
    if out.dtype.kind != "f":
        return (None,) * len(ins)
    if ufunc not in ("add", "subtract") or not operand:
        _refused(out, ufunc, "ufunc_at")
    region = g[decode_key(key, ins[2:], tuple)]
    return (g, region if ufunc == "add" else -region) + (None,) * (len(ins) - 2)

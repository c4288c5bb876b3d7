"""One op, one place: :class:`OpDef`, the typed definition of an op.

An op is declared once, in its family file under ``fgraph/ops/``, with
every fact about it: its shape/dtype rule, its reference NumPy kernel (and
out-form, every-output form, scratch size), its gradient (or an explicit
:class:`~fgraph.registry.Refused`), its micro-batching rule, its C
expression (element-wise ops), its flags and cost.  Engines add only their
overrides, through :func:`fgraph.registry.override`.  A misspelt field is a
``TypeError`` here, not a silent new attribute::

    OpDef("clip", _clip_rule, "numpy.clip(a, lo, hi)", elementwise=True, nin=3, inplace="all",
          kernel=np.clip, out_kernel=_clip_into, grad=_clip_grad).register()
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

from .registry import NUMPY, Refused, register_op

#: an OpDef field -> the registry attribute it is stored as (the rest keep their names)
_STORED_AS = {"kernel": NUMPY.kernel, "out_kernel": NUMPY.out, "kernel_all": NUMPY.all,
              "workspace": NUMPY.workspace}


def no_gradient(out, ins, g, **params):
    """The gradient rule of an op whose output is piecewise constant in its
    inputs (integer results, comparisons, sorting permutations): none reaches them."""
    return (None,) * len(ins)


def picked(results, output: int | None):
    """Output ``output`` of a multi-output kernel's ``results`` (None: the
    single result); an output held as an exception is one its op refuses
    (lstsq's residuals where NumPy's would change shape): raised."""
    value = results if output is None else results[output]
    if isinstance(value, BaseException):
        raise value
    return value


def one_output(compute):
    """The kernel of one output (the node's ``output``) from ``compute``, which gives them all."""
    def kernel(*args, output=None, **params):
        return picked(compute(*args, **params), output)
    kernel.__name__ = getattr(compute, "__name__", "kernel")
    return kernel


@dataclasses.dataclass(frozen=True)
class OpDef:
    """Everything about one op (see the module docstring); ``register()`` enters it."""

    name: str
    infer: Callable
    doc: str = ""
    # the reference NumPy kernel: kernel(*inputs, **params) -> result
    kernel: Callable | Refused | None = None
    out_kernel: Callable | None = None        # out_kernel(*inputs, out=..., **params)
    kernel_all: Callable | None = None        # every output of a multi-output op at once
    workspace: Callable | None = None         # node -> bytes of scratch the out-kernel takes
    grad: Callable | Refused | None = None    # rule(out, inputs, g, **params) -> cotangents
    batch_rule: Callable | Refused | None = None  # micro-batching (element-wise/reductions/scans: implied)
    c_expr: Any = None                        # element-wise: the C expression both native generators share
    elementwise: bool | None = None
    fusable: bool | None = None
    inplace: Any = None
    may_raise: bool | None = None
    nin: int | None = None
    nout: int | None = None
    reduction: bool | None = None
    scan: bool | None = None
    view: bool | None = None
    view_strides: Callable | None = None
    creation: bool | None = None
    leaf: bool | None = None
    stateful: bool | None = None
    cost: Callable | None = None

    def register(self) -> str:
        """Enter the op and its facts in the registry; returns its name."""
        attrs = {_STORED_AS.get(f.name, f.name): getattr(self, f.name) for f in dataclasses.fields(self)
                 if f.name not in ("name", "doc") and getattr(self, f.name) is not None}
        return register_op(self.name, self.doc or (self.infer.__doc__ or ""), **attrs)


def defop(name: str, infer: Callable, doc: str = "", **facts: Any) -> str:
    """Declare and register op ``name``: ``OpDef(name, infer, doc, **facts).register()``."""
    return OpDef(name, infer, doc, **facts).register()

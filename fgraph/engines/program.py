"""A compiled program: a flat instruction list over value slots.

Shared by the engines: the schedule (topological order), kernel lookup by
op attribute, value lifetimes (a slot is dropped after its last use, so
memory is freed as eagerly as NumPy would), and the run loop.
"""
from __future__ import annotations

from keyword import iskeyword
from typing import Mapping, Sequence

import numpy as np

from ..devices import current
from ..errors import FgraphError, error_like, format_location
from ..symbol import Node, describe, topological
from ..opdef import picked
from ..registry import Refused, attr_table, kernel_attrs


class Program:
    """Instructions ``(kernel, input slots, params, output slot, slots to free)``.

    ``leaves`` maps slot -> leaf node (constants, literals, placeholders,
    variables), filled before the loop; ``roots`` are slots never freed.
    """

    __slots__ = ("order", "slot", "instructions", "leaves", "root_slots", "_straight")

    def __init__(self, roots: Sequence[Node], kernel_attr: str, engine: str,
                 known: Mapping[int, object] | None = None, order: Sequence[Node] | None = None,
                 outs: Mapping[int, object] | None = None, workspaces: Mapping[int, object] | None = None):
        """``order``: a schedule to follow (default: DFS post-order).  ``outs``:
        step -> a preallocated array that node writes into with its
        ``<kernel_attr>``-out kernel (``out_kernel(*inputs, out=..., **params)``).
        ``workspaces``: step -> a flat ``uint8`` array of planned scratch,
        passed to that node's out-kernel as ``workspace=`` (with the params;
        an output's out-kernel then writes a fresh array)."""
        known = known or {}
        outs = outs or {}
        workspaces = workspaces or {}
        order = list(order) if order is not None else order_below(roots, known)
        slot = {id(n): k for k, n in enumerate(order)}
        root_slots = {slot[id(r)] for r in roots}
        last_use = {}
        for k, n in enumerate(order):
            if id(n) in known:
                continue
            for i in n.inputs:
                last_use[slot[id(i)]] = k
        frees: dict[int, list[int]] = {}
        for s, k in last_use.items():
            if s not in root_slots:
                frees.setdefault(k, []).append(s)
        names = kernel_attrs(kernel_attr)
        kernels = attr_table(names.kernel)
        out_kernels = attr_table(names.out)
        shared = _shared_results(order, slot, known, attr_table(names.all))
        instructions = []
        leaves = {}
        for k, n in enumerate(order):
            if id(n) in known or not n.inputs and n.op in ("placeholder", "variable"):
                leaves[k] = n
                continue
            kernel = shared.get(k) or kernels.get(n.op)
            if kernel is None or isinstance(kernel, Refused):
                why = f"cannot run on the {engine} engine: {kernel.reason}" if kernel is not None else \
                    f"has no kernel on the {engine} engine"
                raise FgraphError(f"op {n.op!r} {why} (node made at {format_location(n.where)})")
            ins = tuple(slot[id(i)] for i in n.inputs)
            target = outs.get(k)
            if target is not None:
                kernel = out_kernels.get(n.op) or _copy_into(kernel)
            params = dict(n.params)
            if k in workspaces and out_kernels.get(n.op) is not None:  # out-kernels take one
                params["workspace"] = workspaces[k]
                if target is None:  # an output: a fresh array each run, its scratch planned
                    kernel = _fresh_into(out_kernels[n.op], n.shape, n.dtype)
            instructions.append((kernel, ins, params, k, tuple(frees.get(k, ())), target))
        self.order = order
        self.slot = slot
        self.instructions = instructions
        self.leaves = leaves
        self.root_slots = root_slots
        self._straight = None

    #: compare every kernel's result with its node's shape and dtype (tests)
    CHECK = False

    def run(self, values: list) -> list:
        """Run every instruction; ``values`` holds the leaves already."""
        k, check = -1, Program.CHECK
        try:
            for k, (kernel, ins, params, out, free, target) in enumerate(self.instructions):
                if target is None:
                    values[out] = kernel(*[values[i] for i in ins], **params)
                else:
                    kernel(*[values[i] for i in ins], out=target, **params)
                    values[out] = target
                if check:
                    self._check(out, values[out])
                for f in free:
                    values[f] = None
        except FgraphError:
            raise
        except Exception as e:  # name the node and the user's line, not NumPy's internals
            raise self._failed(k, e) from e
        return values

    def _failed(self, k: int, e: Exception) -> Exception:
        return node_failed(self.order[self.instructions[k][3]], e, "failed at run time")

    def straight(self):
        """``run`` as straight-line code generated for these instructions
        (each kernel, its slots and its params bound by name): no loop, no
        argument lists or keyword dicts built per call.  For a program run
        many times as it is (a loop body, thousands of trips); one whose
        instructions are changed later must keep using ``run``."""
        if self._straight is not None and self._straight[0] == Program.CHECK:
            return self._straight[1]
        names = {"FgraphError": FgraphError, "failed": self._failed, "check": self._check}
        lines = ["def run(values):", "    k = -1", "    try:"]
        for j, (kernel, ins, params, out, free, target) in enumerate(self.instructions):
            names[f"f{j}"] = kernel
            args = [f"values[{i}]" for i in ins]
            if all(key.isidentifier() and not iskeyword(key) for key in params):
                for key, value in params.items():
                    names[f"p{j}_{key}"] = value
                    args.append(f"{key}=p{j}_{key}")
            elif params:
                names[f"p{j}"] = params
                args.append(f"**p{j}")
            if target is None:
                lines.append(f"        k = {j}; values[{out}] = f{j}({', '.join(args)})")
            else:
                names[f"t{j}"] = target
                lines.append(f"        k = {j}; f{j}({', '.join(args + [f'out=t{j}'])}); values[{out}] = t{j}")
            if Program.CHECK:
                lines.append(f"        check({out}, values[{out}])")
            lines.extend(f"        values[{f}] = None" for f in free)
        lines += ["        pass", "    except FgraphError:", "        raise",
                  "    except Exception as e:", "        raise failed(k, e) from e", "    return values"]
        exec(compile("\n".join(lines), f"<program of {len(self.instructions)} kernels>", "exec"), names)
        self._straight = (Program.CHECK, names["run"])
        return names["run"]


    def _check(self, k: int, value) -> None:
        node = self.order[k]
        got = (np.shape(value), getattr(value, "dtype", None) or np.asarray(value).dtype)
        if node.op == "literal":
            return  # a weak Python scalar: its dtype is only nominal
        if got != (node.shape, node.dtype):
            raise AssertionError(f"{node.op} kernel made {got[1]}{list(got[0])}, its rule said "
                                 f"{node.dtype}{list(node.shape)} (node made at {format_location(node.where)})")


def order_below(roots: Sequence[Node], known: Mapping[int, object]) -> list[Node]:
    """Topological order that does not descend below ``known`` nodes."""
    if not known:
        return topological(roots)
    order: list[Node] = []
    seen: set[int] = set()
    for r in roots:
        if id(r) in seen:
            continue
        seen.add(id(r))
        stack = [(r, 0)]
        while stack:
            node, i = stack[-1]
            ins = () if id(node) in known else node.inputs
            if i < len(ins):
                stack[-1] = (node, i + 1)
                child = ins[i]
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                stack.pop()
                order.append(node)
    return order


def _shared_results(order, slot, known, all_kernels) -> dict:
    """step -> kernel, for the outputs of one multi-output computation
    (``svd``'s U, S and Vh: nodes alike but for their ``output`` param)
    that a program uses more than one of: the first in the schedule runs
    the op's ``<engine>_kernel_all`` (every output at once) and keeps the
    results; each sibling picks its own, and the last lets them go.  So the
    decomposition runs once a run, not once per output."""
    groups: dict = {}
    for k, n in enumerate(order):
        if id(n) in known or n.op not in all_kernels or "output" not in n.kwargs:
            continue
        rest = tuple((name, v) for name, v in n.params if name != "output")
        groups.setdefault((n.op, tuple(slot[id(i)] for i in n.inputs), rest), []).append(k)
    out = {}
    for (op, _, rest), steps in groups.items():
        if len(steps) > 1:
            held = _Held(all_kernels[op], dict(rest))
            for j, k in enumerate(steps):
                out[k] = held.picker(order[k].param("output"), first=j == 0, last=j == len(steps) - 1)
    return out


class _Held:
    """The results of one multi-output computation, held between its
    first and last sibling in a run (see ``_shared_results``)."""

    __slots__ = ("compute", "params", "results")

    def __init__(self, compute, params):
        self.compute, self.params, self.results = compute, params, None

    def picker(self, output: int, first: bool, last: bool):
        def pick(*args, output=output, **params):
            if first:  # the schedule runs it before its siblings, every run
                self.results = self.compute(*args, **self.params)
            results = self.results
            if last:
                self.results = None
            return picked(results, output)
        return pick


def _fresh_into(out_kernel, shape, dtype):
    """A plain kernel from an out-kernel: a new result array each call (of
    the current device: the executable runs under it), written by the out-kernel."""
    def run(*args, workspace, **params):
        out = current().xp.empty(shape, dtype)
        return out_kernel(*args, out=out, workspace=workspace, **params)
    return run


def _copy_into(kernel):
    """An out-kernel for an op that has none: compute, then copy into place."""
    def run(*args, out, **params):
        np.copyto(out, kernel(*args, **params), casting="unsafe")
        return out
    return run


def may_alias(arr, persistent: set[int]) -> bool:
    """Whether ``arr`` is, or is a view into, an array the engine must keep."""
    b = arr
    while b is not None:
        if id(b) in persistent:
            return True
        b = getattr(b, "base", None)
    return False


def node_failed(node: Node, e: Exception, what: str = "failed") -> Exception:
    """Kernel error ``e`` as an FgraphError of its built-in class, naming the
    node's op, its inputs and the user's line that made it."""
    return error_like(e, f"{node.op} {what}: {type(e).__name__}: {e} (inputs: {describe(node.inputs)})\n"
                         f"  node made at {format_location(node.where)}")

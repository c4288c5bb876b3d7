"""A :class:`.graph_code.GraphCode` run by several threads at once.

The function's body is a sequence of *units*, each a top-level statement
of the code (a loop nest, a float sum, a folded reduction with its
accumulator).  Every thread runs the whole function; a unit's work is
taken from counters in ``ctl``, so threads never wait for each other to be
scheduled, only for work to be done (as the fused kernels share blocks,
:mod:`.codegen`):

- a loop nest has its outermost loop cut in chunks, taken from an atomic
  counter by whichever thread comes first; a reduction folded in it (any,
  all, count_nonzero, an integer sum, product, max or min) is folded by
  each chunk and added to the result atomically, as those do not depend on
  the order;
- any other unit (a float sum, NumPy's pairwise order; a float max or min,
  whose zero's sign depends on the order) runs once, by the thread that
  takes it.

Before a unit starts, every earlier unit is done (a later nest may read
any element an earlier one stored: a roll of a stored value), so the
order of the serial function is kept, and each element is computed by
the same C as there: results are the serial function's bit for bit.
Floating-point flags are per thread: each chunk adds its thread's flags to
``ctl[0]`` before it counts as done, so the caller sees all of them.
"""
from __future__ import annotations

import re

_FOR = re.compile(r"for \(int64_t (i\d+) = (\d+); \1 < (\d+); \1\+\+\) \{")
#: chunks a nest's outermost loop is cut into (enough to even out two to eight threads)
CHUNKS = 16


def _statements(lines: list[str]) -> list[list[str]]:
    """The body's top-level statements (a nest is one: its lines until its braces close)."""
    out, current, depth = [], [], 0
    for line in lines:
        current.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0 and line != "FG_IVDEP":
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def _units(code) -> list[tuple[str, list[str], list]]:
    """(how, lines, accumulators) per unit: ``"shared"`` (its outermost
    loop in chunks) or ``"once"``.  An accumulator's nests are shared when
    each thread's part can be folded into the result atomically
    (``GraphCode.folds``): the result starts at the initial value (a unit
    of its own), and each chunk folds into a local accumulator, then adds
    it to the result.  Otherwise its declaration, nests and final store
    are one unit, run by one thread."""
    units: list = []
    group: list = []  # the statements of the accumulators still open
    open_accs: set = set()
    for st in _statements(code.lines):
        text = "\n".join(st)
        declared = set(re.findall(r"^\w+ (acc_\w+) =", text, re.M))
        if open_accs or declared:
            group.append(st)
            open_accs = (open_accs | declared) - set(re.findall(r"= (acc_\w+);\s*$", text, re.M))
            if not open_accs:
                units += _folding(group, code.folds)
                group = []
            continue
        units.append(("shared" if _nest(st) and "acc_" not in text else "once", st, []))
    if group:
        units.append(("once", [line for st in group for line in st], []))
    return units


def _nest(st: list[str]) -> bool:
    return bool(_FOR.match(next((line for line in st if line != "FG_IVDEP"), "")))


def _folding(group: list, folds: dict) -> list:
    """The units of an accumulator group (declarations, nests, final stores)."""
    names = sorted({name for st in group for name in re.findall(r"^\w+ (acc_\w+) =", "\n".join(st), re.M)})
    nests = [st for st in group if _nest(st)]
    rest = [st for st in group if not _nest(st)]
    simple = all(len(st) == 1 and (re.match(r"^\w+ acc_\w+ = ", st[0]) or re.search(r"= acc_\w+;$", st[0]))
                 for st in rest)
    if not (simple and nests and all(folds.get(n, (None,) * 4)[3] for n in names)):
        return [("once", [line for st in group for line in st], [])]
    start = [f"{folds[n][0]}[0] = {folds[n][2]};" for n in names]
    return [("once", start, [])] + [("shared", st, [folds[n][1:] + (n,) for n in names]) for st in nests]


def _shared(lines: list[str], u: int, accs: list) -> list[str]:
    """A nest whose outermost loop runs over chunks taken from ``ctl``;
    each chunk folds into local accumulators, added to the results."""
    k = next(j for j, line in enumerate(lines) if line != "FG_IVDEP")
    i, lo, hi = _FOR.match(lines[k]).groups()
    n = int(hi) - int(lo)
    chunk = max(1, -(-n // CHUNKS))
    head = [f"int64_t *const c_ = ctl + {1 + 2 * u};",
            "for (;;) {",
            f"const int64_t lo_ = {lo} + __atomic_fetch_add(&c_[0], 1, __ATOMIC_RELAXED) * {chunk};",
            f"if (lo_ >= {hi}) break;",
            f"const int64_t hi_ = lo_ + {chunk} < {hi} ? lo_ + {chunk} : {hi};"]
    head += [f"{ct} {name} = {init};" for ct, init, _, name in accs]
    nest = lines[:k] + [f"for (int64_t {i} = lo_; {i} < hi_; {i}++) {{"] + lines[k + 1:]
    tail = [combine for _, _, combine, _ in accs] + ["FG_DONE(c_, hi_ - lo_);", "}", f"FG_WAIT(c_, {n});"]
    return ["{"] + head + nest + tail + ["}"]


def _once(lines: list[str], u: int) -> list[str]:
    """A unit run by the thread that takes it first."""
    return (["{", f"int64_t *const c_ = ctl + {1 + 2 * u};",
             "if (__atomic_fetch_add(&c_[0], 1, __ATOMIC_RELAXED) == 0) {"]
            + lines + ["FG_DONE(c_, 1);", "}", "FG_WAIT(c_, 1);", "}"])


_HELPERS = """
#include <sched.h>
/* a unit's work done (flags first: the caller reads ctl[0] once every unit is done) */
#define FG_DONE(c, n) do { int f_ = fetestexcept(FE_ALL_EXCEPT); \\
  if (f_) __atomic_fetch_or(&ctl[0], (int64_t)FG_IEEE(f_), __ATOMIC_RELAXED); \\
  __atomic_fetch_add(&(c)[1], (n), __ATOMIC_RELEASE); } while (0)
#define FG_WAIT(c, n) while (__atomic_load_n(&(c)[1], __ATOMIC_ACQUIRE) < (n)) sched_yield()
"""


def threaded(code, name: str) -> tuple[str | None, int]:
    """(C of ``int name(in, k, out, ws, ctl)``, the int64s ``ctl`` needs,
    zeroed before each call): ``code``'s graph, run by every thread that
    calls it with the same arguments; each returns once all is done.
    (None, 0) where no unit can be shared."""
    units = _units(code)
    if not any(how == "shared" for how, _, _ in units):
        return None, 0  # nothing to share: the serial function is all there is
    body = []
    for u, (how, lines, accs) in enumerate(units):
        body += _shared(lines, u, accs) if how == "shared" else _once(lines, u)
    fn = ([_HELPERS, f"int {name}(char *const *in, char *const *k, char *const *out, char *ws, int64_t *ctl) {{",
           "  (void)in; (void)k; (void)out; (void)ws;", "  feclearexcept(FE_ALL_EXCEPT);"]
          + ["  " + line for line in code.decls + body] + ["  return 0;", "}", ""])
    return "\n".join(fn), 1 + 2 * len(units)

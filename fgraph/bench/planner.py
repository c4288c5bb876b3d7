"""Memory planner: arena against the lower bound, and planning time, on
graphs of 1e3..1e5 nodes built with fgraph.numpy (an MLP forward pass and
training step, stacked transformer blocks, a long element-wise pipeline).

Buffers follow what an engine would do: leaves own their memory, view ops
alias their input, outputs and update values live to the end, element-wise
ops may overwrite an input of their shape that dies with them.
"""
from __future__ import annotations

import gc
import time

import numpy as np

import fgraph.numpy as fnp
from fgraph.memory import (Buffer, best_schedule, check_plan, inplace_pairs, lifetimes, lower_bound, no_reuse_bytes,
                           plan, schedule)
from fgraph.memory.offsets import STRATEGIES, overlapping_pairs
from fgraph.symbol import topological
from fgraph.registry import attr_table

from .report import environment, save, table

_LEAF = attr_table("leaf")
_VIEW = attr_table("view")
_ELEMENTWISE = attr_table("elementwise")


def is_storage(n) -> bool:
    return n.op not in _LEAF


def alias_of(n):
    return n.inputs[0] if n.op in _VIEW else None


def inplace_candidates(n):
    return range(len(n.inputs)) if n.op in _ELEMENTWISE else ()


# ---------------------------------------------------------------- graphs

def mlp(layers: int, train: bool, batch: int = 64, width: int = 256):
    """Dense tanh layers (widths cycle 1x, 2x, 4x); with ``train``, a
    hand-written backward pass and SGD updates (roots: loss and updates)."""
    widths = [width * (1 << (i % 3)) for i in range(layers + 1)]
    x = fnp.placeholder((batch, widths[0]), "float32", name="x")
    ws = [fnp.placeholder((widths[i], widths[i + 1]), "float32", name=f"w{i}") for i in range(layers)]
    bs = [fnp.placeholder((widths[i + 1],), "float32", name=f"b{i}") for i in range(layers)]
    hs = [x]
    for w, b in zip(ws, bs):
        hs.append(fnp.tanh(hs[-1] @ w + b))
    if not train:
        return [hs[-1]]
    y = fnp.placeholder(hs[-1].shape, "float32", name="y")
    err = hs[-1] - y
    loss = (err * err).mean()
    g = err * (2.0 / err.size)
    updates = []
    for i in reversed(range(layers)):
        gz = g * (1.0 - hs[i + 1] * hs[i + 1])
        updates.append(ws[i] - 0.01 * (hs[i].T @ gz))
        updates.append(bs[i] - 0.01 * gz.sum(axis=0))
        if i:
            g = gz @ ws[i].T
    return [loss] + updates


def transformer(blocks: int, tokens: int = 128, width: int = 256):
    """Pre-norm single-head attention and a 4x tanh MLP, with residuals."""
    x = fnp.placeholder((tokens, width), "float32", name="x")

    def norm(h):
        hc = h - h.mean(axis=-1, keepdims=True)
        return hc / fnp.sqrt((hc * hc).mean(axis=-1, keepdims=True) + 1e-5)

    for i in range(blocks):
        wq, wk, wv, wo = (fnp.placeholder((width, width), "float32", name=f"{c}{i}") for c in "qkvo")
        w1 = fnp.placeholder((width, 4 * width), "float32", name=f"up{i}")
        w2 = fnp.placeholder((4 * width, width), "float32", name=f"down{i}")
        h = norm(x)
        q, k, v = h @ wq, h @ wk, h @ wv
        s = (q @ k.T) * (1.0 / width ** 0.5)
        e = fnp.exp(s - s.max(axis=-1, keepdims=True))
        x = x + ((e / e.sum(axis=-1, keepdims=True)) @ v) @ wo
        x = x + fnp.tanh(norm(x) @ w1) @ w2
    return [x]


def pipeline(steps: int, n: int = 1 << 16):
    """Element-wise steps with a residual every third step and a
    normalisation (a reduction and a broadcast) every tenth."""
    x = fnp.placeholder((n // 256, 256), "float32", name="x")
    y = x
    for i in range(steps):
        z = fnp.tanh(y) * 0.5
        y = z + y if i % 3 == 0 else z
        if i % 10 == 9:
            y = y - y.mean(axis=0)
    return [y]


#: name -> (builder, nodes per unit): units are scaled to reach the size asked for
GRAPHS = {"mlp_forward": (lambda k: mlp(k, False), 5), "mlp_train": (lambda k: mlp(k, True), 21),
          "transformer": (transformer, 38), "pipeline": (pipeline, 4)}


def build(name: str, nodes: int):
    fn, per_unit = GRAPHS[name]
    return [t.node for t in fn(max(1, nodes // per_unit))]


# ---------------------------------------------------------------- measuring

def measure(name: str, nodes: int, check: bool = True) -> dict:
    roots = build(name, nodes)
    n = len(topological(roots))
    gc.collect()
    gc.disable()  # collector pauses are not planning cost
    try:
        t0 = time.perf_counter()
        order, chosen = best_schedule(roots, is_storage=is_storage, alias_of=alias_of)
        t1 = time.perf_counter()
        live = lifetimes(order, roots, is_storage, alias_of)
        pairs = inplace_pairs(order, live, inplace_candidates)
        t2 = time.perf_counter()
        p = plan(live.buffers, 64, pairs)
        t3 = time.perf_counter()
        p_plain = plan(live.buffers, 64)
        t4 = time.perf_counter()
    finally:
        gc.enable()
    if check:
        check_plan(live.buffers, p, pairs)
        check_plan(live.buffers, p_plain)
    lb = lower_bound(live.buffers, live.n_steps)
    row = {"graph": name, "nodes": n, "buffers": len(live.buffers), "schedule": chosen,
           "schedule_s": t1 - t0, "lifetimes_s": t2 - t1, "plan_s": t3 - t2, "total_s": t3 - t0,
           "plan_no_inplace_s": t4 - t3,
           "overlapping_pairs": overlapping_pairs(live.buffers), "inplace_pairs": len(pairs),
           "lower_bound": lb, "lower_bound_inplace": lower_bound(live.buffers, live.n_steps, pairs),
           "no_reuse": no_reuse_bytes(live.buffers, 64), "arena": p.arena_bytes, "strategy": p.strategy,
           "arena_no_inplace": p_plain.arena_bytes, "strategy_no_inplace": p_plain.strategy}
    row["ratio"] = p.arena_bytes / lb
    row["ratio_no_inplace"] = p_plain.arena_bytes / lb
    row["no_reuse_ratio"] = row["no_reuse"] / lb
    for s in STRATEGIES:  # each planner alone, without in-place pairs (what plan() chose from)
        if s in p_plain.stats:
            row[f"ratio_{s}"] = p_plain.stats[s] / lb
    dfs = schedule(roots, "dfs", is_storage=is_storage, alias_of=alias_of)
    greedy = schedule(roots, "greedy", is_storage=is_storage, alias_of=alias_of)
    for label, o in (("dfs", dfs), ("greedy", greedy)):
        lv = lifetimes(o, roots, is_storage, alias_of)
        row[f"lb_{label}_vs_chosen"] = lower_bound(lv.buffers, lv.n_steps) / lb
    return row


def random_buffers(rng, n: int) -> list:
    """``n`` buffers with log-uniform sizes (64 B .. 1 MiB) and geometric
    lifetimes (mean 8 steps) starting over ``n`` steps."""
    sizes = np.exp(rng.uniform(np.log(64), np.log(1 << 20), n)).astype(np.int64)
    starts = rng.integers(0, n, n)
    lengths = rng.geometric(1 / 8, n) - 1
    return [Buffer(k, int(sizes[k]), int(starts[k]), int(starts[k] + lengths[k])) for k in range(n)]


def measure_random(sets: int, n: int) -> dict:
    """arena / lower bound of each planner over random buffer sets (no graph)."""
    rng = np.random.default_rng(0)
    ratios: dict[str, list] = {}
    for _ in range(sets):
        bufs = random_buffers(rng, n)
        lb = lower_bound(bufs)
        p = plan(bufs, 64, strategies=list(STRATEGIES))
        check_plan(bufs, p)
        for name, arena in p.stats.items():
            ratios.setdefault(name, []).append(arena / lb)
        ratios.setdefault("plan (best)", []).append(p.arena_bytes / lb)
    return {"sets": sets, "buffers": n,
            **{f"{k}_mean": float(np.mean(v)) for k, v in ratios.items()},
            **{f"{k}_max": float(np.max(v)) for k, v in ratios.items()}}


def main(quick: bool = False, out: str = "bench-results") -> int:
    sizes = [1_000, 10_000] + ([] if quick else [100_000])
    measure("pipeline", 1_000)  # warm imports and caches
    rows = [measure(g, n) for n in sizes for g in GRAPHS]
    print("fgraph memory planner: schedule + lifetimes + plan, arena against the lower bound")
    print(environment())
    print(table(rows, ["graph", "nodes", "buffers", "schedule", "total_s", "schedule_s", "plan_s",
                       "overlapping_pairs", "ratio", "ratio_no_inplace", "ratio_greedy_by_size",
                       "ratio_greedy_by_size_best_fit", "ratio_interference", "ratio_sweep",
                       "ratio_sweep_keepers_on_top", "no_reuse_ratio",
                       "lb_dfs_vs_chosen", "lb_greedy_vs_chosen"]))
    worst = max(r["ratio_no_inplace"] for r in rows)
    slowest = max(r["total_s"] for r in rows)
    print(f"\nworst arena / lower bound without in-place: {worst:.3f} (target <= 1.05); "
          f"slowest planning: {slowest:.2f} s (target < 1 s at 1e5 nodes)")
    print("ratio: with in-place pairs (may fall below 1: an output shares its input's bytes); "
          "ratio_<strategy>: each planner alone, without in-place; blank: skipped (too many overlapping pairs)")
    rand = [measure_random(20 if quick else 50, n) for n in (100, 2000)]
    print("\nrandom buffer sets (log-uniform sizes, geometric lifetimes), arena / lower bound:")
    names = list(STRATEGIES) + ["plan (best)"]
    print(table([{"planner": k, **{f"mean_{r['buffers']}": r[f"{k}_mean"] for r in rand},
                  **{f"max_{r['buffers']}": r[f"{k}_max"] for r in rand}} for k in names],
                ["planner"] + [f"{m}_{r['buffers']}" for r in rand for m in ("mean", "max")]))
    print("saved", save("planner", out, {"rows": rows, "random_sets": rand}))
    return 0

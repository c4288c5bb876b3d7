"""The optimiser's payoff and cost.

1. Fused element-wise expressions (10 ops, float32, 1e7 values; and a
   broadcasting variant) through ``optimise`` + ``compile``, against eager
   NumPy and, when installed, JAX jit on the CPU.
2. The optimiser's own cost on random graphs of 1e3, 1e4, 1e5 nodes.
"""
from __future__ import annotations

import time

import numpy as np

import fgraph
import fgraph.numpy as fnp

from ..engines.numpy_kernels import native
from ..engines.numpy_kernels.fused import _choice
from .report import environment, save, table
from .timing import best_of


def expression(xp, a, b, c):
    """Ten element-wise ops: mul, add, tanh, neg, exp, mul, sqrt, mul, add, sub, abs, add, div."""
    return xp.tanh(a * b + c) * xp.exp(-a) + xp.sqrt(b) * 0.5 - xp.abs(c - a) / (b + 1.0)


def _jax():
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_platforms", "cpu")
        return jax, jnp
    except Exception:
        return None, None


def fused_case(name: str, shapes: list[tuple], repeats: int) -> dict:
    rng = np.random.default_rng(0)
    arrays = [rng.random(s, dtype=np.float32) + 0.1 for s in shapes]
    phs = [fnp.placeholder(s, "float32", name=n) for s, n in zip(shapes, "abc")]
    graph = fgraph.Graph(expression(fnp, *phs))
    t0 = time.perf_counter()
    optimised = fgraph.optimise(graph)
    t_opt = time.perf_counter() - t0
    exe = fgraph.compile(optimised)
    feeds = dict(zip("abc", arrays))
    want = expression(np, *arrays)
    compile_s = native.STATS["compile_s"]
    got = exe(**feeds)
    assert got.dtype == want.dtype and np.array_equal(got, want), "fused result differs from NumPy"
    # let the autotuner settle (native code compiles in the background meanwhile)
    calls, deadline = 1, time.perf_counter() + 60
    while time.perf_counter() < deadline and any(not isinstance(v, str) for k, v in _choice.items()
                                                  if k[1] == want.shape):
        exe(**feeds)
        calls += 1
    contenders = {"fgraph": lambda: exe(**feeds), "numpy": lambda: expression(np, *arrays)}
    jax, jnp = _jax()
    if jax is not None:
        jf = jax.jit(lambda a, b, c: expression(jnp, a, b, c))
        dev = [jax.device_put(x) for x in arrays]
        contenders["jax_jit"] = lambda: jf(*dev).block_until_ready()
    t = best_of(contenders, repeats)
    strategy = sorted({v for k, v in _choice.items() if isinstance(v, str) and k[1] == want.shape})
    row = {"case": name, "values": int(want.size), "nodes": len(graph), "nodes_optimised": len(optimised),
           "optimise_ms": 1e3 * t_opt, "fgraph_ms": 1e3 * t["fgraph"], "numpy_ms": 1e3 * t["numpy"],
           "speedup_vs_numpy": t["numpy"] / t["fgraph"], "strategy": ",".join(strategy),
           "tuning_calls": calls, "native_compile_s": native.STATS["compile_s"] - compile_s}
    if "jax_jit" in t:
        row["jax_ms"] = 1e3 * t["jax_jit"]
        row["fgraph_vs_jax"] = t["fgraph"] / t["jax_jit"]
    return row


def random_graph(n_nodes: int, seed: int = 0) -> fgraph.Graph:
    """A random DAG of element-wise ops with some redundancy (for CSE and the
    algebra rules), reductions and reshapes, over three small inputs."""
    rng = np.random.default_rng(seed)
    pool = [fnp.placeholder((16,), "float64", name=f"x{k}") for k in range(3)]
    unary = [fnp.sin, fnp.tanh, fnp.abs, fnp.negative, fnp.exp, lambda t: t * 1.0, lambda t: t + -0.0]
    binary = [fnp.add, fnp.multiply, fnp.subtract, fnp.maximum]
    used: set[int] = set()
    made = 0
    while made < n_nodes:
        r = rng.random()
        pick = pool[-1 - int(rng.integers(0, min(len(pool), 50)))]
        used.add(id(pick))
        if r < 0.5:
            t = unary[int(rng.integers(len(unary)))](pick)
        elif r < 0.95:
            other = pool[int(rng.integers(len(pool)))]
            used.add(id(other))
            t = binary[int(rng.integers(len(binary)))](pick, other)
        else:
            t = fnp.sin(pick)  # a duplicate of earlier work, sometimes
        pool.append(t)
        made += 1 + sum(1 for i in t.node.inputs if i.op == "literal")
    return fgraph.Graph([t for t in pool[3:] if id(t) not in used])  # every sink: all nodes reachable


def optimiser_cost(sizes: list[int]) -> list[dict]:
    rows = []
    for n in sizes:
        g = random_graph(n)
        nodes = len(g)
        t0 = time.perf_counter()
        g2 = fgraph.optimise(g)
        dt = time.perf_counter() - t0
        rows.append({"nodes": nodes, "nodes_after": len(g2), "optimise_s": dt, "nodes_per_s": nodes / dt})
    for prev, row in zip(rows, rows[1:]):
        row["growth_per_10x"] = row["optimise_s"] / prev["optimise_s"]
    return rows


def main(quick: bool = False, out: str = "bench-results") -> int:
    n = 1_000_000 if quick else 10_000_000
    repeats = 3 if quick else 7
    fused = [fused_case(f"10 ops, {n:.0e} values", [(n,)] * 3, repeats),
             fused_case("broadcasting (1000, n/1000) with (n/1000,) and (1000, 1)",
                        [(1000, n // 1000), (n // 1000,), (1000, 1)], repeats)]
    print("fgraph optimise benchmark")
    print(environment())
    print("\nFused element-wise (float32; times are best of", repeats, "interleaved runs):")
    print(table(fused, ["case", "nodes", "nodes_optimised", "fgraph_ms", "numpy_ms", "speedup_vs_numpy",
                        "jax_ms", "fgraph_vs_jax", "strategy", "tuning_calls", "native_compile_s"]))
    cost = optimiser_cost([1_000, 10_000] + ([] if quick else [100_000]))
    print("\nOptimiser cost on random graphs:")
    print(table(cost, ["nodes", "nodes_after", "optimise_s", "nodes_per_s", "growth_per_10x"]))
    print("saved", save("optimise", out, {"fused": fused, "optimiser_cost": cost}))
    return 0

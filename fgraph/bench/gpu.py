"""The CuPy engine on a GPU.

1. Fused element-wise throughput: the optimise benchmark's 10-op float32
   expression over 1e8 values (1e7 with --quick), one generated kernel,
   against CuPy eager (one kernel and one temporary per op) and against the
   card's memory bandwidth (a device-to-device copy, GB/s read + written).
2. Networks: the MLP (forward; a training step) and the transformer block of
   ``workloads.py`` through ``optimise`` + ``compile(engine="cupy")`` against
   the same code run eagerly on CuPy arrays.
3. ResNet-50 (``fgraph.models.resnet50``, random weights, float32, batch 8
   at 224x224; batch 2 with --quick): the optimised, memory-planned graph on
   the CuPy engine against CuPy eager (the unoptimised graph compiled with
   ``plan_memory=False`` on the CuPy engine: the same kernels node by node,
   CuPy's pool allocating each result, as the models benchmark defines eager
   for NumPy) and against the NumPy engine; the device memory each run takes
   at its peak (a CuPy memory hook counting the pool's allocations and frees
   during one run, above what was live before it: weights, arena, feeds), and
   the largest difference from the NumPy engine's result relative to its
   largest value.

Times are the best of N interleaved runs, each ended by a stream
synchronisation.  Without CuPy or a GPU this prints why and exits 0.
"""
from __future__ import annotations

import time

import numpy as np

import fgraph
import fgraph.numpy as fnp

from ..tree import flatten
from . import workloads
from .optimise import expression
from .report import environment, save, table


def _best(contenders: dict, repeats: int, sync) -> dict:
    """Seconds per call (best of ``repeats`` interleaved rounds, synchronised)."""
    for f in contenders.values():  # warm-up: kernel compilation, pool blocks
        for _ in range(3):
            f()
    sync()
    best = {k: float("inf") for k in contenders}
    for _ in range(repeats):
        for k, f in contenders.items():
            sync()
            t0 = time.perf_counter()
            f()
            sync()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def fused_throughput(cupy, n: int, repeats: int) -> dict:
    rng = np.random.default_rng(0)
    host = [rng.random(n, dtype=np.float32) + 0.1 for _ in range(3)]
    dev = [cupy.asarray(a) for a in host]
    phs = [fnp.placeholder((n,), "float32", name=k) for k in "abc"]
    g = fgraph.optimise(fgraph.Graph(expression(fnp, *phs)))
    exe = fgraph.compile(g, engine="cupy")
    feeds = dict(zip("abc", dev))
    got = cupy.asnumpy(exe(**feeds)[:1000])
    want = expression(np, *[a[:1000] for a in host])
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    src, dst = cupy.empty(n, np.float32), cupy.empty(n, np.float32)
    sync = cupy.cuda.get_current_stream().synchronize
    t = _best({"fgraph": lambda: exe(**feeds), "cupy_eager": lambda: expression(cupy, *dev),
               "copy": lambda: cupy.copyto(dst, src)}, repeats, sync)
    moved = 4 * n * 4  # three inputs read, one output written
    copy_gbs = 2 * 4 * n / t["copy"] / 1e9
    return {"values": n, "kernels": sum(1 for x in g.nodes() if x.op == "fused"),
            "fgraph_ms": 1e3 * t["fgraph"], "cupy_eager_ms": 1e3 * t["cupy_eager"],
            "fgraph_GBps": moved / t["fgraph"] / 1e9, "cupy_eager_GBps": moved / t["cupy_eager"] / 1e9,
            "copy_GBps": copy_gbs, "fgraph_vs_eager": t["cupy_eager"] / t["fgraph"],
            "fgraph_of_bandwidth": moved / t["fgraph"] / 1e9 / copy_gbs}


def network(cupy, name: str, repeats: int) -> dict:
    fn, args, names = workloads.make_inputs(name, np.random.default_rng(1))
    phs = [fnp.placeholder(a.shape, a.dtype, name=k) for a, k in zip(args, names)]
    out = fn(fnp, *phs)
    g = fgraph.optimise(fgraph.Graph(out))
    exe = fgraph.compile(g, engine="cupy")
    dev = [cupy.asarray(a) for a in args]
    feeds = dict(zip(names, dev))
    leaf = lambda x: not isinstance(x, (list, tuple, dict))  # noqa: E731
    got, _ = flatten(exe(**feeds), leaf)
    want, _ = flatten(fn(np, *args), leaf)
    for a, b in zip(got, want):
        np.testing.assert_allclose(cupy.asnumpy(a), b, rtol=2e-3, atol=2e-4)
    sync = cupy.cuda.get_current_stream().synchronize
    t = _best({"fgraph": lambda: exe(**feeds), "cupy_eager": lambda: fn(cupy, *dev)}, repeats, sync)
    return {"workload": name, "nodes": len(g), "arena_MB": exe.memory.arena_bytes / 1e6,
            "fgraph_ms": 1e3 * t["fgraph"], "cupy_eager_ms": 1e3 * t["cupy_eager"],
            "speedup_vs_eager": t["cupy_eager"] / t["fgraph"]}


def run_peak_bytes(cupy, run, sync) -> int:
    """Device bytes ``run`` holds at its peak above what was live before it:
    a memory hook on CuPy's pool adds each allocation and subtracts each
    free.  Without memory hooks: the growth of the pool's total, emptied
    first (its cached blocks are the run's high-water, fragmentation included)."""
    sync()
    try:
        from cupy.cuda.memory_hook import MemoryHook
    except ImportError:
        MemoryHook = None
    if MemoryHook is None:
        pool = cupy.get_default_memory_pool()
        pool.free_all_blocks()
        before = pool.total_bytes()
        run()
        sync()
        return pool.total_bytes() - before

    class Peak(MemoryHook):
        name = "fgraph_peak"

        def __init__(self):
            self.live = self.peak = 0

        def malloc_postprocess(self, device_id, size, mem_size, mem_ptr=None, pmem_id=None):
            self.live += mem_size
            self.peak = max(self.peak, self.live)

        def free_postprocess(self, device_id, mem_size, mem_ptr=None, pmem_id=None):
            self.live -= mem_size

    hook = Peak()
    with hook:
        run()
        sync()
    return hook.peak


def resnet50_row(cupy, batch: int, repeats: int) -> dict:
    """ResNet-50 on the CuPy engine (optimised + planned) against CuPy eager
    and the NumPy engine."""
    from ..models import as_constants, resnet50, resnet50_params

    params = as_constants(resnet50_params(0))
    x = fnp.placeholder((batch, 3, 224, 224), "float32", name="x")
    raw = fgraph.Graph(resnet50(x, params))
    t0 = time.perf_counter()
    opt = fgraph.optimise(raw)
    t1 = time.perf_counter()
    exe = fgraph.compile(opt, engine="cupy")
    t2 = time.perf_counter()
    eager = fgraph.compile(raw, engine="cupy", plan_memory=False)
    host = fgraph.compile(opt)
    images = np.random.default_rng(1).random((batch, 3, 224, 224), dtype=np.float32)
    feed = cupy.asarray(images)
    sync = cupy.cuda.get_current_stream().synchronize
    want = host(x=images)
    scale = float(np.max(np.abs(want))) or 1.0
    row = {"network": "resnet50", "batch": batch, "nodes": len(opt), "optimise_s": t1 - t0,
           "compile_s": t2 - t1, "arena_MB": exe.memory.arena_bytes / 2**20}
    for name, f in (("fgraph", exe), ("cupy_eager", eager)):
        got = cupy.asnumpy(f(x=feed))
        row[f"{name}_max_rel_diff"] = float(np.max(np.abs(got - want))) / scale
        row[f"{name}_run_peak_MB"] = run_peak_bytes(cupy, lambda f=f: f(x=feed), sync) / 2**20
    t = _best({"fgraph": lambda: exe(x=feed), "cupy_eager": lambda: eager(x=feed)}, repeats, sync)
    t_np = _best({"numpy": lambda: host(x=images)}, max(2, repeats // 5), lambda: None)
    row.update({"fgraph_ms": 1e3 * t["fgraph"], "cupy_eager_ms": 1e3 * t["cupy_eager"],
                "numpy_engine_ms": 1e3 * t_np["numpy"], "speedup_vs_eager": t["cupy_eager"] / t["fgraph"],
                "speedup_vs_numpy": t_np["numpy"] / t["fgraph"],
                "eager_vs_fgraph_memory": (row["cupy_eager_run_peak_MB"] + 1e-9)
                / (row["fgraph_run_peak_MB"] + row["arena_MB"] + 1e-9)})
    return row


def main(quick: bool = False, out: str = "bench-results") -> int:
    from ..devices.cupy_device import unavailable

    reason = unavailable()
    if reason is not None:
        print(f"gpu benchmark skipped: {reason}")
        return 0
    import cupy

    n = 10_000_000 if quick else 100_000_000
    repeats = 5 if quick else 20
    print("fgraph gpu benchmark (CuPy engine)")
    env = environment()
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.runtime.getDevice())
    env.update(cupy=cupy.__version__, gpu=props["name"].decode() if isinstance(props["name"], bytes) else props["name"])
    print(env)
    fused = fused_throughput(cupy, n, repeats)
    print(f"\nFused element-wise, 10 ops, float32, {n:.0e} values (best of {repeats}):")
    print(table([fused], ["values", "kernels", "fgraph_ms", "cupy_eager_ms", "fgraph_vs_eager", "fgraph_GBps",
                          "cupy_eager_GBps", "copy_GBps", "fgraph_of_bandwidth"]))
    nets = [network(cupy, name, repeats) for name in ("mlp_forward", "mlp_train_step", "transformer_block")]
    print("\nNetworks (float32) against the same code on CuPy arrays:")
    print(table(nets, ["workload", "nodes", "arena_MB", "fgraph_ms", "cupy_eager_ms", "speedup_vs_eager"]))
    resnet = resnet50_row(cupy, 2 if quick else 8, repeats)
    print(f"\nResNet-50, float32, batch {resnet['batch']} at 224x224 (best of {repeats}; memory: what one run "
          "takes from CuPy's pool at its peak, above weights, arena and feeds):")
    print(table([resnet], ["network", "batch", "fgraph_ms", "cupy_eager_ms", "numpy_engine_ms", "speedup_vs_eager",
                           "speedup_vs_numpy", "arena_MB", "fgraph_run_peak_MB", "cupy_eager_run_peak_MB",
                           "eager_vs_fgraph_memory", "fgraph_max_rel_diff", "cupy_eager_max_rel_diff"]))
    print("saved", save("gpu", out, {"environment_gpu": env, "fused": fused, "networks": nets, "resnet50": resnet}))
    return 0

"""Owl's table on real networks: ResNet-50, Inception v2 and a digits CNN.

    python -m fgraph.bench models [--quick] [--out bench-results]

One row per network and batch size (ResNet-50 and BN-Inception at 224x224,
batch 1 and 8; ``--quick``: batch 1 only; the digits CNN as a training step,
forward, backward and Adam, at batch 128):

- build: writing the model with ``fgraph.nn`` (the weights are already
  fgraph constants: loading them, a copy and a hash, is ``load``);
- optimise + plan: ``fgraph.optimise`` and ``fgraph.compile`` (schedule,
  memory plan, arena);
- eval with the graph: the optimised, memory-planned program;
- eval without it: the unoptimised graph compiled with
  ``plan_memory=False``, i.e. the same kernels run one node at a time with
  NumPy allocating each result as it goes and each value dropped after its
  last use (``fgraph/engines/program.py``: the frees are per instruction),
  which is what eager NumPy code does;
- peak memory of each variant measured in a fresh process
  (``python -m fgraph.bench.models --child ...``): the high-water RSS
  (``VmHWM``, i.e. ``ru_maxrss`` of this process alone, reset through
  ``/proc/self/clear_refs`` once the imports, the weights and the compiled
  program are in place) minus the RSS then; and, for fgraph, tracemalloc's peak of NumPy buffers
  (plus the arena, allocated before).  The children run with glibc's
  ``MALLOC_MMAP_THRESHOLD_=65536``, so every buffer of 64 KiB or more is its
  own mapping returned to the system when freed: the RSS then follows live
  memory and does not depend on what setup happened to free;
- micro-batched (``graph_mb``, ImageNet networks at batch > k): the
  optimised graph compiled with ``micro_batch=k`` for each k of
  ``MICRO_BATCHES`` (rows of the batch run k at a time in an arena planned
  for k rows; the same results): memory traded for time, each timed beside
  the others and measured in a fresh process the same way; its rows and
  target lines are labelled with k;
- onnxruntime (when installed): the onnx package's ``light_*.onnx`` of the
  same network with the same weights written in
  (:func:`fgraph.models.onnx_with_params`), ``intra_op_num_threads`` = the
  cores, timed and measured in a fresh process.

Times are the best of at least N interleaved rounds, counting only rounds
in which other processes used under ``QUIET_CORES`` of CPU (more rounds run
until 3 are quiet, or a time budget ends): on this shared 2-core machine
any other load stalls 2-thread OpenBLAS by a scheduler slice per call
(5-7x slower runs measured), which best-of-N alone does not filter out.
The other processes' CPU use during the rounds used is recorded beside
each time.  The table is written as Markdown and JSON
under ``out`` with a PNG bar chart (skipped, with a note, without
matplotlib).  Where fgraph's evaluation time goes is printed per op family
(each instruction of the compiled program timed), with onnxruntime's own
profile per op family beside it.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

from .report import environment, save, table
from .timing import peak_bytes

IMAGENET = ("resnet50", "inception_v2")
DIGITS_BATCH = 128
#: the targets of issue 6
TARGET_MEMORY = {"resnet50": 3.3, "inception_v2": 2.7}
TARGET_TIME_VS_EAGER = 0.8
TARGET_TIME_VS_ORT = 1.5
TARGET_BUILD_S = 0.2
MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": "65536"}
#: other processes' CPU use (cores) below which a timing round counts as quiet
QUIET_CORES = 0.25
#: rows per chunk of the micro-batched variants (fgraph.compile(g, micro_batch=k)):
#: fewer rows, less memory; more rows, larger products (closer to the plain time)
MICRO_BATCHES = (1, 2, 4)

FAMILIES = ("conv", "matmul/gemm", "pool", "elementwise (fused, incl. batch norm)", "other")
_CONV = {"conv2d", "conv_transpose2d", "conv2d_backward_weight"}
_MATMUL = {"matmul", "dot", "tensordot", "einsum", "inner", "outer", "vecdot", "matvec", "vecmat", "vdot",
           "multi_dot", "kron"}
_POOL = {"max_pool2d", "avg_pool2d", "max_pool2d_backward", "max_pool2d_select", "avg_pool2d_backward"}
_ORT_FAMILY = {"Conv": 0, "FusedConv": 0, "NchwcConv": 0, "ConvTranspose": 0, "Gemm": 1, "MatMul": 1,
               "FusedGemm": 1, "FusedMatMul": 1, "MaxPool": 2, "AveragePool": 2, "GlobalAveragePool": 2,
               "NchwcMaxPool": 2, "NchwcAveragePool": 2, "NchwcGlobalAveragePool": 2, "BatchNormalization": 3,
               "Relu": 3, "Add": 3, "Sum": 3, "Mul": 3}


# ---------------------------------------------------------------- the networks

def _fgraph():
    import fgraph

    fgraph.get_engine("numpy")  # load the kernels first: constant folding looks them up
    return fgraph


def load_weights(net: str, seed: int = 0):
    """(params as NumPy arrays, the same as fgraph constants or variables,
    seconds taken to lift them into the graph)."""
    from ..models import MODELS, as_constants, as_variables, digits_cnn_params

    params = digits_cnn_params(seed) if net == "digits_cnn" else MODELS[net][1](seed)
    t0 = time.perf_counter()
    lifted = as_variables(params) if net == "digits_cnn" else as_constants(params)
    return params, lifted, time.perf_counter() - t0


def build(net: str, batch: int, lifted: dict):
    """The graph as a user writes it."""
    fgraph = _fgraph()
    import fgraph.numpy as fnp

    from .. import nn
    from ..models import MODELS, digits_cnn

    if net == "digits_cnn":  # one training step: loss, gradients, Adam updates
        x = fnp.placeholder((batch, 1, 8, 8), "float32", name="x")
        y = fnp.placeholder((batch,), "int64", name="y")
        loss = nn.cross_entropy(digits_cnn(x, lifted), y)
        ws = list(lifted.values())
        return fgraph.Graph(loss, updates=fgraph.optim.adam(ws, fgraph.grad(loss, ws), lr=1e-3))
    x = fnp.placeholder((batch, 3, 224, 224), "float32", name="x")
    return fgraph.Graph(MODELS[net][0](x, lifted))


def make_feeds(net: str, batch: int) -> dict:
    rng = np.random.default_rng(1)
    if net == "digits_cnn":
        return {"x": rng.random((batch, 1, 8, 8), dtype=np.float32), "y": rng.integers(0, 10, batch)}
    return {"x": rng.random((batch, 3, 224, 224), dtype=np.float32)}


def prepare(net: str, batch: int, variant: str, micro_batch: int = 1) -> dict:
    """Load, build, (optimise,) compile, timing each stage."""
    fgraph = _fgraph()
    params, lifted, t_load = load_weights(net)
    t0 = time.perf_counter()
    graph = build(net, batch, lifted)
    t1 = time.perf_counter()
    if variant in ("graph", "graph_mb"):
        optimised = fgraph.optimise(graph)
        t2 = time.perf_counter()
        exe = fgraph.compile(optimised, **({"micro_batch": micro_batch} if variant == "graph_mb" else {}))
    else:
        optimised, t2 = graph, t1
        exe = fgraph.compile(graph, plan_memory=False)
    t3 = time.perf_counter()
    feeds = make_feeds(net, batch)
    return {"exe": exe, "feeds": feeds, "graph": graph, "optimised": optimised, "params": params,
            "load_s": t_load, "build_s": t1 - t0, "optimise_s": t2 - t1, "plan_s": t3 - t2}


def ort_session(net: str, batch: int, threads: int, profile: bool = False):
    """An onnxruntime session on the light model with our weights, and its feeds."""
    import onnxruntime as ort

    from ..models import MODELS, light_model_path, onnx_with_params

    _, pfn, light, inp, _ = MODELS[net]
    model = onnx_with_params(light_model_path(light), pfn(0), batch=batch).SerializeToString()
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    if profile:
        so.enable_profiling = True
        so.profile_file_prefix = os.path.join("/tmp", f"fgraph_ort_{os.getpid()}")
    t0 = time.perf_counter()
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    t_sess = time.perf_counter() - t0
    x = np.random.default_rng(1).random((batch, 3, 224, 224), dtype=np.float32)
    return sess, {inp: x}, t_sess


# ---------------------------------------------------------------- measuring

class CpuLoad:
    """Other processes' CPU use, in cores, over a ``with`` block (from
    /proc/stat minus this process's own CPU time)."""

    def __enter__(self):
        self._start = (_busy_s(), _own_cpu_s(), time.perf_counter())
        return self

    def __exit__(self, *exc):
        busy, own, wall = _busy_s(), _own_cpu_s(), time.perf_counter()
        b0, o0, w0 = self._start
        self.other_cores = None if busy is None else max(0.0, ((busy - b0) - (own - o0)) / max(wall - w0, 1e-9))


def _busy_s():
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except OSError:
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_cpu_s():
    t = os.times()
    return t.user + t.system


def timed(fns: dict, repeats: int, warmup: int = 3, quiet: float = QUIET_CORES, budget_s: float = 90.0) -> dict:
    """Best-of seconds per call, the contenders interleaved round by round.

    Each round's other-process CPU use is measured; rounds go on past
    ``repeats`` (up to ``budget_s``) until 3 of them were quiet (other
    processes below ``quiet`` cores), and the best times are taken over the
    quiet rounds only: on a shared 2-core machine a busy moment stalls
    multi-threaded BLAS by a scheduler time slice per call."""
    for f in fns.values():
        for _ in range(warmup):
            f()
    gc.collect()
    samples = {k: [] for k in fns}
    loads = []
    start = time.perf_counter()
    while True:
        with CpuLoad() as load:
            for k, f in fns.items():
                t0 = time.perf_counter()
                f()
                samples[k].append(time.perf_counter() - t0)
        loads.append(load.other_cores)
        calm = [i for i, v in enumerate(loads) if v is not None and v < quiet]
        if len(loads) >= repeats and (len(calm) >= min(3, repeats) or time.perf_counter() - start > budget_s):
            break
    use = calm or list(range(len(loads)))
    known = [loads[i] for i in use if loads[i] is not None]
    return {"best_s": {k: min(v[i] for i in use) for k, v in samples.items()},
            "other_cores": sum(known) / len(known) if known else None, "rounds": len(loads), "quiet_rounds": len(calm)}


def family(op: str, elementwise: dict) -> str:
    if op in _CONV:
        return FAMILIES[0]
    if op in _MATMUL:
        return FAMILIES[1]
    if op in _POOL:
        return FAMILIES[2]
    if op in ("fused", "fused_reduce", "fma", "adagrad") or elementwise.get(op):
        return FAMILIES[3]
    return FAMILIES[4]


def profile_program(exe, feeds: dict, runs: int = 5, quiet: float = QUIET_CORES, budget_s: float = 60.0) -> dict:
    """Seconds per op family: each instruction of the compiled program timed
    (its best over the quiet ones of at least ``runs`` runs), in the same
    loop as ``Program.run``."""
    from ..registry import attr_table

    elementwise = attr_table("elementwise")
    prog = exe._program
    best_quiet = [float("inf")] * len(prog.instructions)
    best_any = list(best_quiet)
    start, done, calm = time.perf_counter(), 0, 0
    while done < runs or (calm < min(3, runs) and time.perf_counter() - start < budget_s):
        with CpuLoad() as load:
            times = exe._timed_run(feeds)  # (exe.profile's loop: no commit, each instruction timed)
        done += 1
        is_calm = load.other_cores is not None and load.other_cores < quiet
        calm += is_calm
        for j, t in enumerate(times):
            best_any[j] = min(best_any[j], t)
            if is_calm:
                best_quiet[j] = min(best_quiet[j], t)
    best = best_quiet if calm else best_any
    out = dict.fromkeys(FAMILIES, 0.0)
    for j, ins in enumerate(prog.instructions):
        out[family(prog.order[ins[3]].op, elementwise)] += best[j]
    return out


def _status_kb(field: str):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Reset the RSS high-water mark (Linux >= 4.0); False if we cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss_delta(run, times: int = 3) -> dict:
    """High-water RSS during ``times`` calls of ``run`` minus the RSS before.

    The high-water mark is this process's ``VmHWM`` (what ``ru_maxrss``
    reports for a process that was not forked from a bigger one: a child's
    ``ru_maxrss`` never drops below its parent's RSS at the fork, and
    ``clear_refs`` cannot reset that floor)."""
    gc.collect()
    reset = _reset_peak()
    base = _status_kb("VmRSS")
    for _ in range(times):
        run()
    peak = _status_kb("VmHWM") if reset else None
    if peak is None or base is None:  # no /proc: ru_maxrss (KiB on Linux), an upper bound
        base = base or 0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"rss_peak_MB": max(0, peak - base) / 1024, "rss_base_MB": base / 1024, "hwm_reset": reset}


# ---------------------------------------------------------------- children (fresh processes)

def child(variant: str, net: str, batch: int, runs: int, repeats: int, micro_batch: int = 1) -> dict:
    """Measured in this (fresh) process; the result is printed as JSON."""
    if variant == "ort":
        threads = os.cpu_count() or 1
        sess, feeds, t_sess = ort_session(net, batch, threads)
        run = lambda: sess.run(None, feeds)  # noqa: E731
        res = {"session_s": t_sess, "threads": threads}
        res.update(peak_rss_delta(run, runs))  # from before the first run: the arena it grows counts
        t = timed({"ort": run}, repeats)
        res.update({"eval_s": t["best_s"]["ort"], "other_cores": t["other_cores"], "quiet_rounds": t["quiet_rounds"]})
        del sess
        res["families_s"] = _ort_families(net, batch, threads)
        return res
    p = prepare(net, batch, variant, micro_batch)
    exe, feeds = p["exe"], p["feeds"]
    res = {k: p[k] for k in ("load_s", "build_s", "optimise_s", "plan_s")}
    del p
    m = exe.memory
    arena = 0 if m is None else getattr(m, "total_arena_bytes", m.arena_bytes)  # micro-batched: both programs
    tm = {}

    def runs_from_the_first():
        for _ in range(runs):
            exe(**feeds)

    def traced():  # tracemalloc over the same runs (its own overhead: < 1 MB)
        tm["peak"] = peak_bytes(runs_from_the_first)

    res.update(peak_rss_delta(traced, 1))
    res["tracemalloc_peak_MB"] = (arena + tm["peak"]) / 2**20
    res["arena_MB"] = arena / 2**20
    res["fused_scratch_MB"] = fused_scratch_bytes() / 2**20
    return res


def fused_scratch_bytes() -> int:
    """Bytes the fused element-wise kernels keep between runs (their
    per-thread scratch pools; not in the arena)."""
    from ..engines.numpy_kernels import fused

    return fused.scratch_bytes()


def _ort_families(net, batch, threads, runs: int = 5) -> dict:
    """Seconds per op family from onnxruntime's own profiler (best run)."""
    try:
        sess, feeds, _ = ort_session(net, batch, threads, profile=True)
        for _ in range(runs):
            sess.run(None, feeds)
        path = sess.end_profiling()
        with open(path) as f:
            events = json.load(f)
        os.remove(path)
    except Exception as e:  # the profiler is a nicety
        return {"error": str(e)}
    runs_at = sorted((ev["ts"], ev["ts"] + ev["dur"]) for ev in events
                     if ev.get("cat") == "Session" and ev.get("name") == "model_run")
    per_run = [dict.fromkeys(FAMILIES, 0.0) for _ in runs_at]
    for ev in events:
        if ev.get("cat") != "Node" or not ev.get("name", "").endswith("_kernel_time"):
            continue
        k = next((i for i, (t0, t1) in enumerate(runs_at) if t0 <= ev["ts"] <= t1), None)
        if k is not None:
            per_run[k][FAMILIES[_ORT_FAMILY.get(ev["args"].get("op_name", ""), 4)]] += ev["dur"] / 1e6
    if not per_run:
        return {"error": "no runs in the profile"}
    return min(per_run, key=lambda d: sum(d.values()))


def run_child(variant: str, net: str, batch: int, runs: int = 3, repeats: int = 10, micro_batch: int = 1) -> dict:
    cmd = [sys.executable, "-m", "fgraph.bench.models", "--child", variant, "--net", net, "--batch", str(batch),
           "--runs", str(runs), "--repeats", str(repeats), "--micro-batch", str(micro_batch)]
    env = dict(os.environ, **MALLOC_ENV)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"child {variant} {net} b{batch} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- the table

def has_ort() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("onnx", "onnxruntime"))


def measure(net: str, batch: int, repeats: int, ort: bool) -> dict:
    _fgraph()
    row = {"network": net, "batch": batch}
    # in this process: warm build/optimise/plan (best of 3), the two programs timed side by side
    g = None
    for _ in range(3):
        p = prepare(net, batch, "graph")
        if g is None or p["build_s"] + p["optimise_s"] + p["plan_s"] < g["build_s"] + g["optimise_s"] + g["plan_s"]:
            g = p
        del p
    e = prepare(net, batch, "eager")
    feeds = g["feeds"]
    row.update({"load_ms": 1e3 * g["load_s"], "build_ms": 1e3 * g["build_s"], "optimise_ms": 1e3 * g["optimise_s"],
                "plan_ms": 1e3 * g["plan_s"], "nodes": len(g["graph"]), "nodes_optimised": len(g["optimised"])})
    row["build_opt_plan_ms"] = row["build_ms"] + row["optimise_ms"] + row["plan_ms"]
    exe, eager = g["exe"], e["exe"]
    got, want = exe(**feeds), eager(**feeds)
    row["max_rel_diff_vs_eager"] = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) or 1.0))
    m = exe.memory
    row.update({"arena_MB": m.arena_bytes / 2**20, "workspace_MB": m.workspace_bytes / 2**20,
                "workspace_nodes": m.workspace_nodes, "lower_bound_MB": m.lower_bound_bytes / 2**20,
                "arena_vs_lower_bound": m.ratio, "arena_vs_lower_bound_inplace": m.ratio_inplace,
                "no_reuse_MB": m.no_reuse_bytes / 2**20})
    # the unoptimised graph's own lower bound: what eager evaluation must hold at best
    from ..engines.arena import ArenaPlan

    unopt = ArenaPlan(e["graph"].outputs, e["graph"].updates).report
    row["eager_lower_bound_MB"] = unopt.lower_bound_bytes / 2**20
    fns = {"graph": lambda: exe(**feeds), "eager": lambda: eager(**feeds)}
    micro = {}  # k -> row of the micro-batched variant, timed beside the others
    for k in (MICRO_BATCHES if net in IMAGENET else ()):
        if batch <= k:
            continue
        mb = prepare(net, batch, "graph_mb", k)["exe"]
        got_mb = mb(**feeds)
        micro[k] = {"mb_micro_batch": k, "mb_arena_MB": mb.memory.total_arena_bytes / 2**20,
                    "mb_max_rel_diff_vs_graph": float(np.max(np.abs(got_mb - got)) / (np.max(np.abs(got)) or 1.0))}
        fns[f"graph_mb{k}"] = lambda mb=mb: mb(**feeds)
    t = timed(fns, repeats)
    row.update({"graph_ms": 1e3 * t["best_s"]["graph"], "eager_ms": 1e3 * t["best_s"]["eager"],
                "graph_vs_eager_time": t["best_s"]["graph"] / t["best_s"]["eager"],
                "other_cores_during_timing": t["other_cores"], "timing_rounds": t["rounds"],
                "quiet_rounds": t["quiet_rounds"]})
    row["families_graph_ms"] = {k: 1e3 * v for k, v in profile_program(exe, feeds).items()}
    row["families_eager_ms"] = {k: 1e3 * v for k, v in profile_program(eager, feeds).items()}
    for k, m in micro.items():
        m["mb_ms"] = 1e3 * t["best_s"][f"graph_mb{k}"]
        m["mb_vs_eager_time"] = t["best_s"][f"graph_mb{k}"] / t["best_s"]["eager"]
    g = e = exe = eager = mb = fns = None  # free the weights and arenas before the children run
    gc.collect()
    # fresh processes: cold build times and peak memory
    cg = run_child("graph", net, batch)
    ce = run_child("eager", net, batch)
    row.update({"cold_build_opt_plan_ms": 1e3 * (cg["build_s"] + cg["optimise_s"] + cg["plan_s"]),
                "peak_graph_MB": cg["rss_peak_MB"], "peak_eager_MB": ce["rss_peak_MB"],
                "tracemalloc_graph_MB": cg["tracemalloc_peak_MB"], "tracemalloc_eager_MB": ce["tracemalloc_peak_MB"],
                "hwm_reset": cg["hwm_reset"] and ce["hwm_reset"], "fused_scratch_MB": cg["fused_scratch_MB"]})
    row["eager_vs_graph_peak"] = row["peak_eager_MB"] / max(row["peak_graph_MB"], 1e-9)
    row["eager_vs_graph_tracemalloc"] = row["tracemalloc_eager_MB"] / max(row["tracemalloc_graph_MB"], 1e-9)
    for k, m in micro.items():
        cm = run_child("graph_mb", net, batch, micro_batch=k)
        m.update({"peak_mb_MB": cm["rss_peak_MB"], "tracemalloc_mb_MB": cm["tracemalloc_peak_MB"],
                  "eager_vs_mb_peak": row["peak_eager_MB"] / max(cm["rss_peak_MB"], 1e-9)})
    row["micro_batched"] = list(micro.values())
    if ort and net in IMAGENET:
        co = run_child("ort", net, batch, repeats=repeats)
        row.update({"ort_ms": 1e3 * co["eval_s"], "ort_peak_MB": co["rss_peak_MB"],
                    "ort_other_cores": co["other_cores"], "ort_quiet_rounds": co["quiet_rounds"],
                    "ort_session_ms": 1e3 * co["session_s"],
                    "graph_vs_ort_time": row["graph_ms"] / (1e3 * co["eval_s"]),
                    "ort_vs_graph_peak": co["rss_peak_MB"] / max(row["peak_graph_MB"], 1e-9)})
        fam = co.get("families_s", {})
        row["families_ort_ms"] = {k: 1e3 * v for k, v in fam.items()} if "error" not in fam else fam
    return row


COLUMNS = ["network", "batch", "build_ms", "optimise_ms", "plan_ms", "graph_ms", "eager_ms", "graph_vs_eager_time",
           "ort_ms", "graph_vs_ort_time", "peak_graph_MB", "peak_eager_MB", "eager_vs_graph_peak", "ort_peak_MB",
           "arena_MB", "workspace_MB", "lower_bound_MB", "arena_vs_lower_bound"]
#: the micro-batched variants (one row per network, batch and k)
COLUMNS_MB = ["network", "batch", "mb_micro_batch", "mb_ms", "graph_ms", "eager_ms", "mb_vs_eager_time", "peak_mb_MB",
              "peak_graph_MB", "peak_eager_MB", "eager_vs_mb_peak", "ort_peak_MB", "mb_arena_MB", "tracemalloc_mb_MB",
              "mb_max_rel_diff_vs_graph"]
COLUMNS2 = ["network", "batch", "load_ms", "cold_build_opt_plan_ms", "build_opt_plan_ms", "nodes", "nodes_optimised",
            "tracemalloc_graph_MB", "fused_scratch_MB", "tracemalloc_eager_MB", "eager_lower_bound_MB",
            "eager_vs_graph_tracemalloc", "no_reuse_MB",
            "arena_vs_lower_bound_inplace", "other_cores_during_timing", "quiet_rounds", "ort_other_cores",
            "ort_quiet_rounds", "max_rel_diff_vs_eager"]


def micro_rows(rows: list[dict]) -> list[dict]:
    """The micro-batched variants as table rows, beside their plain figures."""
    keep = ("network", "batch", "graph_ms", "eager_ms", "peak_graph_MB", "peak_eager_MB", "ort_peak_MB")
    return [{**{c: r.get(c) for c in keep}, **m} for r in rows for m in r.get("micro_batched", ())]


def _verdict(tag: str, figure: str, target: str, ok: bool) -> str:
    return f"{tag}: {figure} ({target}): {'met' if ok else 'MISSED'}"


def _memory_verdicts(tag: str, label: str, ratio: float, want: float, peak: float, ort_peak) -> list[str]:
    """The memory target against eager, and the peak against onnxruntime's."""
    lines = [_verdict(tag, f"memory {label} {ratio:.2f}x", f"target >= {want}x", ratio >= want)]
    if ort_peak is not None:
        lines.append(_verdict(tag, f"peak {peak:.1f} MB vs onnxruntime {ort_peak:.1f} MB", "target below",
                              peak < ort_peak))
    return lines


def _time_verdict(tag: str, figure: str, got: float, limit: float, stretch: str = "") -> str:
    return _verdict(tag, f"{figure} {got:.2f}x", f"{stretch}target <= {limit}x", got <= limit)


def targets(rows: list[dict]) -> list[str]:
    """One line per target of the issue: met or missed, with the figure."""
    lines = []
    for r in rows:
        tag = f"{r['network']} b{r['batch']}"
        want, ort_peak = TARGET_MEMORY.get(r["network"]), r.get("ort_peak_MB")
        if want:
            lines += _memory_verdicts(tag, "without/with graph", r["eager_vs_graph_peak"], want, r["peak_graph_MB"],
                                      ort_peak)
        for m in r.get("micro_batched", ()) if want else ():
            mbtag = f"{tag} micro-batched (micro_batch={m['mb_micro_batch']})"
            lines += _memory_verdicts(mbtag, "without graph / micro-batched graph", m["eager_vs_mb_peak"], want,
                                      m["peak_mb_MB"], ort_peak)
            lines.append(_time_verdict(mbtag, "eval micro-batched/without graph", m["mb_vs_eager_time"],
                                       TARGET_TIME_VS_EAGER))
        if r["network"] not in IMAGENET:  # the targets are for the 224x224 networks
            lines.append(f"{tag}: eval with/without graph {r['graph_vs_eager_time']:.2f}x (no target)")
            continue
        lines.append(_time_verdict(tag, "eval with/without graph", r["graph_vs_eager_time"], TARGET_TIME_VS_EAGER))
        if "graph_vs_ort_time" in r:
            lines.append(_time_verdict(tag, "eval vs onnxruntime", r["graph_vs_ort_time"], TARGET_TIME_VS_ORT,
                                       "stretch "))
        if r["network"] == "resnet50":
            for key, what in (("build_opt_plan_ms", "warm"), ("cold_build_opt_plan_ms", "fresh process")):
                got = r[key] / 1e3
                lines.append(_verdict(tag, f"build + optimise + plan {got:.3f} s, {what}",
                                      f"target < {TARGET_BUILD_S} s", got < TARGET_BUILD_S))
    return lines


def family_table(rows: list[dict]) -> str:
    out = []
    for r in rows:
        for who in ("graph", "eager", "ort"):
            fam = r.get(f"families_{who}_ms")
            if not fam or "error" in fam:
                continue
            total = sum(fam.values()) or 1.0
            d = {"network": r["network"], "batch": r["batch"], "program": who, "total_ms": total}
            for k in FAMILIES:
                d[k] = f"{fam[k]:.1f} ({100 * fam[k] / total:.0f}%)"
            out.append(d)
    return table(out, ["network", "batch", "program", "total_ms", *FAMILIES])


def chart(rows: list[dict], path: str) -> str | None:
    """Bars: evaluation time and peak memory per row and variant."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    labels = [f"{r['network']}\nbatch {r['batch']}" for r in rows]
    k = MICRO_BATCHES[1] if len(MICRO_BATCHES) > 1 else MICRO_BATCHES[0]

    def micro(r, key):  # the micro-batched variant at k rows, where measured
        return next((m.get(key) for m in r.get("micro_batched", ()) if m["mb_micro_batch"] == k), None)

    series = [("graph", lambda r: r.get("graph_ms"), lambda r: r.get("peak_graph_MB")),
              (f"graph, micro_batch={k}", lambda r: micro(r, "mb_ms"), lambda r: micro(r, "peak_mb_MB")),
              ("without graph", lambda r: r.get("eager_ms"), lambda r: r.get("peak_eager_MB")),
              ("onnxruntime", lambda r: r.get("ort_ms"), lambda r: r.get("ort_peak_MB"))]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    xs = np.arange(len(rows))
    width = 0.8 / len(series)
    for ax, idx, title in ((axes[0], 1, "evaluation time (ms, best of N)"),
                           (axes[1], 2, "peak memory (MB, RSS high-water in a fresh process)")):
        for j, s in enumerate(series):
            vals = [s[idx](r) or 0.0 for r in rows]
            ax.bar(xs + (j - (len(series) - 1) / 2) * width, vals, width, label=s[0])
        ax.set_xticks(xs, labels, fontsize=8)
        ax.set_title(title)
        ax.set_yscale("log")
        ax.legend(fontsize=8)
    fig.suptitle("fgraph: Owl's table (with the graph, micro-batched, without it, onnxruntime)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(quick: bool = False, out: str = "bench-results") -> int:
    repeats = 5 if quick else 10
    ort = has_ort()
    cases = [(net, b) for net in IMAGENET for b in ((1,) if quick else (1, 8))] + [("digits_cnn", DIGITS_BATCH)]
    print("fgraph models benchmark (Owl's table; float32, NCHW)")
    print(environment())
    rows = []
    for net, b in cases:
        print(f"  measuring {net} batch {b} ...", flush=True)
        rows.append(measure(net, b, repeats, ort))
    md = [f"# fgraph models benchmark\n\n{environment()}\n",
          f"Times: best of >= {repeats} interleaved rounds (the quiet ones), ms; memory: MB; `peak_*`: RSS "
          f"high-water in a fresh process (the "
          f"memory the run adds to the loaded weights and program); the digits CNN row is a training step "
          f"(forward, backward, Adam) at batch {DIGITS_BATCH}; `*_other_cores`: other processes' CPU use during "
          f"the timing.\n",
          table(rows, COLUMNS), "", table(rows, COLUMNS2), "",
          *(["## Micro-batched (`fgraph.compile(g, micro_batch=k)`: the batch run k rows at a time in an arena "
             "planned for k rows; the same results)\n", table(mb_rows, COLUMNS_MB), ""]
            if (mb_rows := micro_rows(rows)) else []), "## Where the time goes (ms per op family)\n",
          family_table(rows), "", "## Targets\n", *[f"- {t}" for t in targets(rows)]]
    if not ort:
        md.append("\nonnxruntime is not installed (pip install 'fgraph[bench]'): its columns are empty.")
    text = "\n".join(md)
    print(text)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "models.md"), "w") as f:
        f.write(text + "\n")
    png = chart(rows, os.path.join(out, "models.png"))
    print("chart:", png or "skipped (matplotlib is not installed: pip install 'fgraph[plot]')")
    print("saved", save("models", out, {"rows": rows, "targets": targets(rows)}))
    return 0


def _child_main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fgraph.bench.models")
    ap.add_argument("--child", choices=("graph", "graph_mb", "eager", "ort"))
    ap.add_argument("--net", default="resnet50")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--micro-batch", type=int, default=1)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default="bench-results")
    a = ap.parse_args(argv)
    if a.child is None:
        return main(quick=a.quick, out=a.out)
    print(json.dumps(child(a.child, a.net, a.batch, a.runs, a.repeats, a.micro_batch)))
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())

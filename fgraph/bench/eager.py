"""Eager NumPy programs, written the way NumPy users write them, run with
``numpy`` and with ``fgraph.numpy`` (the same code, in one process).

These are not graph-building programs: each step updates arrays in place,
writes through slices and boolean masks, and fetches a value to Python
(``float(loss)``, ``int(t)``, ``bool(...)``, ``while delta > eps``,
``if (x > k).any()``).  Every fetch evaluates the lazy arrays it depends on,
so what this measures is fgraph's cost per step as an eager library: node
building, evaluation of small graphs, conversions, and whether the per-step
cost stays flat as the program runs (the last tenth of the steps against
the first tenth) or grows with the history.

Each program is ``prog(np, size, steps, seed=0) -> (result, step_seconds)``:
``np`` is the module (``numpy`` or ``fgraph.numpy``), ``size`` the number of
elements of its main state, ``steps`` the most steps it runs (a convergence
test may stop it sooner).  Its random draws (and its starting data) come
from ``seed`` through the module it is given, so both modules see the same
numbers; the timed runs use seeds the warm-up did not, so fgraph cannot
answer them from results it memoised in the warm-up.
"""
from __future__ import annotations

import gc
import math
import os
import statistics
import subprocess
import sys
import traceback
from dataclasses import dataclass
from time import perf_counter

import numpy

import fgraph.numpy as fnp

from ..engines import incremental, numpy_engine
from ..engines.numpy_kernels.native import settle
from .eager_jit import jit_steps
from .report import environment, save, table
from .timing import peak_bytes

TINY, MEDIUM, LARGE = 400, 16_384, 262_144  # elements: 20x20, 128x128, 512x512
SLOW_S = 10.0  # a program whose warm-up run with fgraph took longer is timed once, not the mean of N


# ---------------------------------------------------------------- the programs

def bfs_grid(np, size, steps, seed=0):
    """Breadth-first search from one corner of a grid with walls to the
    other, one frontier expansion a step (``.any()`` and an ``int()`` read of
    the goal's distance every step), then the path walked back from the goal
    with ``int()`` reads of the neighbours' distances."""
    n = math.isqrt(size)
    rng = np.random.default_rng(seed)
    free = rng.random((n, n)) > 0.25
    free[:2, :2] = free[-2:, -2:] = True  # the start and the goal are not walled in
    dist = np.full((n, n), -1)
    dist[0, 0] = 0
    frontier = np.zeros((n, n), dtype=bool)
    frontier[0, 0] = True
    times = []
    for d in range(1, steps + 1):
        t0 = perf_counter()
        nxt = np.zeros_like(frontier)
        nxt[1:, :] |= frontier[:-1, :]
        nxt[:-1, :] |= frontier[1:, :]
        nxt[:, 1:] |= frontier[:, :-1]
        nxt[:, :-1] |= frontier[:, 1:]
        nxt &= free & (dist < 0)
        dist[nxt] = d
        frontier = nxt
        reached = int(dist[-1, -1]) >= 0
        times.append(perf_counter() - t0)
        if reached or not frontier.any():
            break
    route = np.zeros((n, n), dtype=bool)
    y, x = n - 1, n - 1
    if dist[y, x] >= 0:
        route[y, x] = True
        while int(dist[y, x]) > 0:
            here = int(dist[y, x])
            for dy, dx in ((-1, 0), (0, -1), (1, 0), (0, 1)):
                yy, xx = y + dy, x + dx
                if 0 <= yy < n and 0 <= xx < n and int(dist[yy, xx]) == here - 1:
                    y, x = yy, xx
                    break
            route[y, x] = True
    return np.stack([dist, route.astype(int)]), times


def heat_diffusion(np, size, steps, seed=0):
    """Explicit heat equation on a plate with hot edges (and a random
    interior to start from), run until the
    largest change of a step is below ``eps`` (``while delta > eps``)."""
    n = math.isqrt(size)
    rng = np.random.default_rng(seed)
    u = np.zeros((n, n))
    u[1:-1, 1:-1] = rng.uniform(0.0, 20.0, size=(n - 2, n - 2))
    u[0, :] = 100.0
    u[:, 0] = 50.0
    alpha, eps = 0.2, 1e-4
    delta, it = np.inf, 0
    times = []
    while delta > eps and it < steps:
        t0 = perf_counter()
        old = u.copy()
        u[1:-1, 1:-1] = old[1:-1, 1:-1] + alpha * (old[:-2, 1:-1] + old[2:, 1:-1] + old[1:-1, :-2]
                                                   + old[1:-1, 2:] - 4 * old[1:-1, 1:-1])
        delta = np.abs(u - old).max()
        it += 1
        times.append(perf_counter() - t0)
    return u, times


def game_of_life(np, size, steps, seed=0):
    """Conway's Game of Life on a torus: neighbours with ``np.roll`` summed
    by ``np.add.reduce``, the population counted every step."""
    n = math.isqrt(size)
    rng = np.random.default_rng(seed)
    board = rng.random((n, n)) < 0.3
    population = []
    times = []
    for _ in range(steps):
        t0 = perf_counter()
        neighbours = np.add.reduce([np.roll(np.roll(board, dy, axis=0), dx, axis=1)
                                    for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx])
        board = (neighbours == 3) | (board & (neighbours == 2))
        population.append(int(board.sum()))
        times.append(perf_counter() - t0)
        if population[-1] == 0:
            break
    return board, times


def gray_scott(np, size, steps, seed=0):
    """Gray-Scott reaction-diffusion: two fields updated in place with a
    five-point Laplacian, the total of V logged every step."""
    n = math.isqrt(size)
    U = np.ones((n, n))
    V = np.zeros((n, n))
    c, r = n // 2, max(n // 10, 2)
    U[c - r:c + r, c - r:c + r] = 0.50
    V[c - r:c + r, c - r:c + r] = 0.25
    rng = np.random.default_rng(seed)
    V += 0.01 * rng.random((n, n))
    Du, Dv, F, k = 0.16, 0.08, 0.035, 0.065

    def laplacian(Z):
        return np.roll(Z, 1, 0) + np.roll(Z, -1, 0) + np.roll(Z, 1, 1) + np.roll(Z, -1, 1) - 4 * Z

    mass = []
    times = []
    for _ in range(steps):
        t0 = perf_counter()
        uvv = U * V * V
        U += Du * laplacian(U) - uvv + F * (1 - U)
        V += Dv * laplacian(V) + uvv - (F + k) * V
        mass.append(float(V.sum()))
        times.append(perf_counter() - t0)
    return np.stack([U, V]), times


def particles(np, size, steps, seed=0):
    """Particles falling in a unit box: positions and velocities updated in
    place, walls reflected with boolean-mask writes, the energy fetched every
    step and a warning when any particle has left the box."""
    n = size // 2
    rng = np.random.default_rng(seed)
    pos = np.asarray(rng.uniform(0.1, 0.9, size=(n, 2)))
    vel = np.asarray(rng.normal(0.0, 0.5, size=(n, 2)))
    g, dt = np.array([0.0, -9.81]), 0.002
    energy = []
    times = []
    escaped = 0
    for _ in range(steps):
        t0 = perf_counter()
        vel += g * dt
        pos += vel * dt
        low, high = pos < 0.0, pos > 1.0
        vel[low | high] *= -1
        pos[low] = -pos[low]
        pos[high] = 2.0 - pos[high]
        if ((pos < 0) | (pos > 1)).any():
            escaped += 1
        energy.append(float(0.5 * (vel ** 2).sum() + 9.81 * pos[:, 1].sum()))
        times.append(perf_counter() - t0)
    return np.concatenate([pos, vel], axis=1), times


def random_walk(np, size, steps, seed=0):
    """Random walkers, one draw a step each; an absorbing wall below records
    first-passage times, and the experiment stops when any walker gets past
    the wall above (``if (pos > k).any()``)."""
    n = size
    rng = np.random.default_rng(seed)
    pos = np.zeros(n, dtype=np.int64)
    hit = np.full(n, -1)
    k = int(2.5 * math.sqrt(steps * math.log(n)))
    times = []
    for t in range(steps):
        t0 = perf_counter()
        alive = hit < 0
        pos[alive] += rng.choice([-1, 1], size=n)[alive]
        hit[(pos <= -k // 3) & alive] = t
        stop = (pos > k).any()
        times.append(perf_counter() - t0)
        if stop:
            break
    return np.stack([pos, hit]), times


def monte_carlo_pi(np, size, steps, seed=0):
    """Estimating pi from batches of random points (the legacy
    ``np.random.seed`` stream), stopping when the estimate is within ``tol``
    of pi; the running estimate is fetched every batch."""
    np.random.seed(seed)
    hits, total, tol = 0, 0, 1e-6
    estimates = []
    times = []
    for _ in range(steps):
        t0 = perf_counter()
        x, y = np.random.random((2, size))
        hits = hits + np.add.reduce(np.hypot(x, y) <= 1.0)
        total += size
        estimate = 4 * hits / total
        estimates.append(float(estimate))
        times.append(perf_counter() - t0)
        if abs(estimate - np.pi) < tol:
            break
    return estimates, times


def jacobi(np, size, steps, seed=0):
    """Jacobi iteration for a weakly diagonally dominant system, until the
    update's norm is below ``tol``; the residual norm fetched every step."""
    n = math.isqrt(size)
    rng = np.random.default_rng(seed)
    A = rng.random((n, n))
    A[np.diag_indices(n)] = A.sum(axis=1)
    b = rng.random(n)
    D = np.diag(A)
    R = A - np.diag(D)
    x = np.zeros(n)
    residuals = []
    delta, tol = 1.0, 1e-10
    times = []
    while delta > tol and len(times) < steps:
        t0 = perf_counter()
        x_new = (b - R @ x) / D
        delta = np.linalg.norm(x_new - x)
        x = x_new
        residuals.append(float(np.linalg.norm(A @ x - b)))
        times.append(perf_counter() - t0)
    return x, times


def power_iteration(np, size, steps, seed=0):
    """The largest eigenvalue of the 1-D Laplacian by power iteration (small
    spectral gap: slow), the Rayleigh quotient fetched every step."""
    n = math.isqrt(size)
    A = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    rng = np.random.default_rng(seed)
    v = rng.random(n)
    v /= np.linalg.norm(v)
    lam_old, tol = 0.0, 1e-12
    times = []
    for _ in range(steps):
        t0 = perf_counter()
        w = A @ v
        lam = float(v @ w)
        v = w / np.linalg.norm(w)
        times.append(perf_counter() - t0)
        if abs(lam - lam_old) < tol * abs(lam):
            break
        lam_old = lam
    return np.append(v, lam_old), times


def izhikevich(np, size, steps, seed=0):
    """A population of Izhikevich neurons driven by noise (1 ms steps, two
    half steps for v): many element-wise ops on four arrays, resets by
    boolean-mask writes, one spike count fetched per step."""
    n = size
    rng = np.random.default_rng(seed)
    r = np.asarray(rng.random(n))
    a = np.full(n, 0.02)
    b = np.full(n, 0.2)
    c = -65 + 15 * r ** 2
    d = 8 - 6 * r ** 2
    v = np.full(n, -65.0)
    u = b * v
    spikes = []
    times = []
    for _ in range(steps):
        t0 = perf_counter()
        current = 5 * rng.standard_normal(n)
        fired = v >= 30
        v[fired] = c[fired]
        u[fired] += d[fired]
        v += 0.5 * (0.04 * v ** 2 + 5 * v + 140 - u + current)
        v += 0.5 * (0.04 * v ** 2 + 5 * v + 140 - u + current)
        u += a * (b * v - u)
        spikes.append(int(np.count_nonzero(fired)))
        times.append(perf_counter() - t0)
    return np.stack([v, u]), times


def adam_rosenbrock(np, size, steps, seed=0):
    """Adam on the n-dimensional Rosenbrock function with its gradient
    written out: a dozen element-wise ops on several arrays a step, the loss
    fetched with ``float`` every step."""
    n = size
    rng = np.random.default_rng(seed)
    x = np.linspace(-1.5, 1.5, n) + 0.1 * rng.standard_normal(n)
    m = np.zeros(n)
    s = np.zeros(n)
    lr, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-8
    losses = []
    times = []
    for t in range(1, steps + 1):
        t0 = perf_counter()
        xl, xr = x[:-1], x[1:]
        inner = xr - xl ** 2
        loss = np.sum(100 * inner ** 2 + (1 - xl) ** 2)
        grad = np.zeros_like(x)
        grad[:-1] = -400 * xl * inner - 2 * (1 - xl)
        grad[1:] += 200 * inner
        m = b1 * m + (1 - b1) * grad
        s = b2 * s + (1 - b2) * grad * grad
        m_hat = m / (1 - b1 ** t)
        s_hat = s / (1 - b2 ** t)
        x -= lr * m_hat / (np.sqrt(s_hat) + eps)
        losses.append(float(loss))
        times.append(perf_counter() - t0)
    return x, times


def kmeans(np, size, steps, seed=0):
    """Lloyd's k-means on four blobs, until no label changes
    (``if not (labels != new).any()``): boolean-mask selections of
    data-dependent size, ``argmin`` and the inertia fetched every step."""
    n = size // 2
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [3.0, 3.0], [0.0, 3.0], [3.0, 0.0]])
    X = np.concatenate([c + rng.standard_normal((n // 4, 2)) for c in centres])
    C = X[:: len(X) // 4][:4].copy()
    labels = np.full(len(X), -1)
    inertia = []
    times = []
    for _ in range(steps):
        t0 = perf_counter()
        d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
        new = d2.argmin(axis=1)
        inertia.append(float(d2.min(axis=1).sum()))
        if not (new != labels).any():
            times.append(perf_counter() - t0)
            break
        labels = new
        C = np.array([X[labels == j].mean(axis=0) for j in range(len(C))])
        times.append(perf_counter() - t0)
    return C, times


@dataclass(frozen=True)
class Program:
    name: str
    fn: object
    sizes: tuple  # elements of the main state
    steps: int  # the most steps (a full run)
    quick_steps: int  # the most steps with --quick


PROGRAMS = [
    Program("bfs_grid", bfs_grid, (TINY, MEDIUM), 400, 60),
    Program("heat_diffusion", heat_diffusion, (TINY, MEDIUM), 300, 40),
    Program("game_of_life", game_of_life, (TINY, MEDIUM), 200, 30),
    Program("gray_scott", gray_scott, (TINY, MEDIUM, LARGE), 200, 30),
    Program("particles", particles, (TINY, MEDIUM, LARGE), 200, 30),
    Program("random_walk", random_walk, (TINY, MEDIUM), 300, 40),
    Program("monte_carlo_pi", monte_carlo_pi, (TINY, MEDIUM), 300, 40),
    Program("jacobi", jacobi, (TINY, MEDIUM), 300, 40),
    Program("power_iteration", power_iteration, (TINY, MEDIUM), 300, 40),
    Program("izhikevich", izhikevich, (TINY, MEDIUM, LARGE), 200, 30),
    Program("adam_rosenbrock", adam_rosenbrock, (TINY, MEDIUM, LARGE), 200, 30),
    Program("kmeans", kmeans, (TINY, MEDIUM), 50, 20),
]


# ---------------------------------------------------------------- checking and measuring

def compare(want, got, rtol: float = 1e-6, atol: float = 1e-9) -> str:
    """"ok", or what differs between NumPy's result and fgraph's (shape,
    dtype, values), in a few words."""
    w = numpy.asarray(want)
    g = numpy.asarray(got)
    if w.shape != g.shape:
        return f"MISMATCH shape {g.shape} != {w.shape}"
    if w.dtype != g.dtype:
        return f"MISMATCH dtype {g.dtype} != {w.dtype}"
    if not numpy.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
        if w.dtype.kind in "fciub":
            err = numpy.abs(g.astype(float) - w.astype(float))
            bad = int(numpy.count_nonzero(~numpy.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)))
            return f"MISMATCH values: {bad}/{w.size} differ, max abs err {float(numpy.nanmax(err)):.3g}"
        return "MISMATCH values"
    return "ok"


def _run(fn, module, size, steps, seed):
    t0 = perf_counter()
    result, times = fn(module, size, steps, seed=seed)
    result = numpy.asarray(result)  # the final fetch is part of the program's time
    return result, list(times), perf_counter() - t0


def _tenths(times: list) -> tuple:
    """Mean seconds per step of the first and the last tenth of the steps."""
    k = max(1, len(times) // 10)
    return statistics.fmean(times[:k]), statistics.fmean(times[-k:])


def _ratio(a, b):
    return a / b if b else None


def _verdict(want, want_times, got, got_times) -> str:
    verdict = compare(want, got)
    if len(got_times) != len(want_times):  # the same data should take the same branches
        verdict = ("" if verdict == "ok" else verdict + "; ") + f"MISMATCH steps {len(got_times)} != {len(want_times)}"
    return verdict


def measure(prog: Program, size: int, steps: int, repeats: int) -> dict:
    """One program at one size: warm-up runs of each module (seed 0: the
    correctness reference, and fgraph's cold run), ``repeats`` timed runs
    interleaved (seeds 1, 2...: each module gets the same data, but no run
    repeats an earlier run's data, so fgraph's memoised results of the
    warm-up cannot stand in for computing; compiled kernels stay warm, and
    the compiles the warm-up started have ended), and
    a run of each under tracemalloc.  Every run's result is checked against
    NumPy's for the same seed."""
    row = {"program": prog.name, "size": size, "max_steps": steps}
    verdicts = []
    try:
        _run(prog.fn, numpy, size, steps, 0)
        want, want_times, row["numpy_seed0_s"] = _run(prog.fn, numpy, size, steps, 0)
        got, got_times, row["fgraph_cold_s"] = _run(prog.fn, fnp, size, steps, 0)
        verdicts.append((0, _verdict(want, want_times, got, got_times)))
        if row["fgraph_cold_s"] > SLOW_S:  # a slow engine: one timed run is enough to see it
            repeats = 1
        settle()  # the compiles the warm-up started end before the timed runs (cold_ratio counts them)
        runs = {"numpy": [], "fgraph": []}
        gc.collect()
        for seed in range(1, repeats + 1):  # interleaved, so noise hits both
            want, want_times, np_s = _run(prog.fn, numpy, size, steps, seed)
            got, got_times, fg_s = _run(prog.fn, fnp, size, steps, seed)
            runs["numpy"].append((np_s, want_times))
            runs["fgraph"].append((fg_s, got_times))
            verdicts.append((seed, _verdict(want, want_times, got, got_times)))
        seed = repeats + 1
        gc.collect()
        np_peak = peak_bytes(lambda: _run(prog.fn, numpy, size, steps, seed))
        gc.collect()
        fg_peak = peak_bytes(lambda: _run(prog.fn, fnp, size, steps, seed))
    except Exception as e:  # an fgraph bug: shown in the table, never hidden
        row.update(agree=f"ERROR {type(e).__name__}: {str(e)[:100]}", traceback=traceback.format_exc())
        return row
    bad = {}
    for seed, v in verdicts:
        if v != "ok":
            bad.setdefault(v, []).append(str(seed))
    row["agree"] = "; ".join(f"{v} (seed {','.join(seeds)})" for v, seeds in bad.items()) if bad else "ok"
    row["steps"] = round(statistics.fmean(len(t) for _, t in runs["fgraph"]))
    for name, rs in runs.items():
        row[f"{name}_s"] = statistics.fmean(s for s, _ in rs)
        first, last = zip(*(_tenths(t) for _, t in rs))
        row[f"{name}_first_ms"] = 1e3 * statistics.fmean(first)
        row[f"{name}_last_ms"] = 1e3 * statistics.fmean(last)
    row.update(time_ratio=_ratio(row["fgraph_s"], row["numpy_s"]),
               cold_ratio=_ratio(row["fgraph_cold_s"], row["numpy_seed0_s"]),
               numpy_peak_MB=np_peak / 2**20, fgraph_peak_MB=fg_peak / 2**20, mem_ratio=_ratio(fg_peak, np_peak),
               flatness=_ratio(row["fgraph_last_ms"], row["fgraph_first_ms"]),
               fgraph_step_ms=[[1e3 * t for t in ts] for _, ts in runs["fgraph"]])
    return row


def import_times(runs: int = 5) -> dict:
    """Seconds to import each module in a fresh interpreter, less the
    interpreter's own start (``python -c pass``): the median of ``runs``.
    Bytecode is written as Python writes it by default (a
    PYTHONDONTWRITEBYTECODE in the environment made every module changed
    since its last ``.pyc`` compile at every import: 113 ms of a 190 ms
    import on a working tree, none of a user's)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def wall(code):
        subprocess.run([sys.executable, "-c", code], check=True, env=env)  # writes what bytecode is missing
        ts = []
        for _ in range(runs):
            t0 = perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=env)
            ts.append(perf_counter() - t0)
        return statistics.median(ts)

    base = wall("pass")
    return {"python_start_s": base, "numpy_s": wall("import numpy") - base,
            "fgraph.numpy_s": wall("import fgraph.numpy") - base}


def _per_call(fn, number: int, repeats: int = 5) -> float:
    """Seconds a call of ``fn(i)``, ``i`` counting up over all calls: the best of ``repeats`` batches."""
    best, i = math.inf, 0
    for _ in range(repeats):
        t0 = perf_counter()
        for i in range(i, i + number):
            fn(i)
        i += 1
        best = min(best, (perf_counter() - t0) / number)
    return best


def micro_costs(quick: bool) -> list[dict]:
    """Per-call cost of what every eager step does, fgraph against NumPy."""
    n = 200 if quick else 1000
    a = numpy.ones((100, 100))
    t = fnp.ones((100, 100))
    u = t + 1
    numpy.asarray(u)  # evaluated: later conversions are cached
    small = [numpy.arange(10.0) + i for i in range(5 * n + 5)]
    fresh = [fnp.asarray(x) for x in small]  # lazy, none evaluated yet: no memoised sum to find
    again = fnp.arange(10.0)
    float(again.sum())
    rows = [("build one node: t + 1, t lazy 100x100", lambda i: a + 1, lambda i: t + 1),
            ("np.asarray(t), t evaluated (a cached conversion)", lambda i: numpy.asarray(a),
             lambda i: numpy.asarray(u)),
            ("float(t.sum()), t lazy of 10 elements, new each call", lambda i: float(small[i].sum()),
             lambda i: float(fresh[i].sum())),
            ("float(t.sum()), the same t again (memoised)", lambda i: float(small[0].sum()),
             lambda i: float(again.sum()))]
    return [{"operation": name, "numpy_us": 1e6 * _per_call(f_np, n), "fgraph_us": 1e6 * _per_call(f_fg, n)}
            for name, f_np, f_fg in rows]


# ---------------------------------------------------------------- long runs

def _counter_loop(np, steps: int, fetch_every: int = 10):
    """An in-place update, an element write and a read every few steps, on
    100 elements: the shape of a simulation that runs for hours."""
    x = np.zeros(100)
    times = []
    for i in range(steps):
        t0 = perf_counter()
        x += 1.0
        x[i % 100] = i
        if i % fetch_every == 0:
            float(x[1])
        times.append(perf_counter() - t0)
    return x, times


def _relaxation_loop(np, steps: int, fetch_every: int = 100):
    """A 128x128 state rebound every step (``u = ...``), read now and then."""
    u = np.linspace(0.0, 1.0, 16_384).reshape(128, 128)
    times = []
    for i in range(steps):
        t0 = perf_counter()
        u = 0.5 * u + 0.125 * (np.roll(u, 1, 0) + np.roll(u, -1, 1)) + 0.25
        if i % fetch_every == 0:
            float(u[0, 0])
        times.append(perf_counter() - t0)
    return u, times


LONG_RUNS = [("counter, 100 elements", _counter_loop, 100_000, 10_000),
             ("relaxation, 128x128", _relaxation_loop, 30_000, 3_000)]


def long_runs(quick: bool) -> list[dict]:
    """Each long loop with both modules: per-step time over the first and
    the last tenth (flat is 1.0), and the objects the run leaves held (the
    graph a lazy loop keeps; ``fgraph.symbol.HISTORY_DEPTH`` bounds it)."""
    rows = []
    for name, fn, steps, quick_steps in LONG_RUNS:
        n = quick_steps if quick else steps
        row = {"loop": name, "steps": n}
        for label, module in (("numpy", numpy), ("fgraph", fnp)):
            gc.collect()
            before = len(gc.get_objects())
            result, times = fn(module, n)
            numpy.asarray(result)
            gc.collect()
            row[f"{label}_objects_held"] = len(gc.get_objects()) - before
            first, last = _tenths(times)
            row[f"{label}_us"] = 1e6 * statistics.fmean(times)
            if label == "fgraph":
                row.update(fgraph_first_us=1e6 * first, fgraph_last_us=1e6 * last, flatness=_ratio(last, first))
            del result
        row["time_ratio"] = _ratio(row["fgraph_us"], row["numpy_us"])
        rows.append(row)
    return rows


def breakdown(quick: bool) -> list[dict]:
    """Where an fgraph step's time goes, per program at 400 and 16,384
    elements: evaluating (finding the step above the known values, then
    running its program) and the rest (the program's own Python, building
    the nodes, and small arrays computed as they are built).  ``rest``
    alone against NumPy's whole step bounds the ratio any evaluation could
    reach."""
    now = perf_counter
    spent = {"walk": 0.0, "evaluate": 0.0}
    step_init, evaluate = incremental.Step.__init__, numpy_engine.evaluate_step

    def timed_init(self, roots, engine):
        t0 = now()
        step_init(self, roots, engine)
        spent["walk"] += now() - t0

    def timed_evaluate(roots, engine):
        t0 = now()
        try:
            return evaluate(roots, engine)
        finally:
            spent["evaluate"] += now() - t0

    rows = []
    incremental.Step.__init__, numpy_engine.evaluate_step = timed_init, timed_evaluate
    try:
        for prog in PROGRAMS:
            for size in (TINY, MEDIUM):
                steps = prog.quick_steps if quick else prog.steps
                prog.fn(fnp, size, steps, seed=7)  # warm: programs cached and compiled
                settle()
                spent.update(walk=0.0, evaluate=0.0)
                t0 = now()
                _, times = prog.fn(fnp, size, steps, seed=8)
                total = now() - t0
                t0 = now()
                _, ntimes = prog.fn(numpy, size, steps, seed=8)
                ntotal = now() - t0
                n = len(times)
                rest = total - spent["evaluate"]
                rows.append({"program": prog.name, "size": size, "numpy_us": 1e6 * ntotal / len(ntimes),
                             "fgraph_us": 1e6 * total / n, "step_walk_us": 1e6 * spent["walk"] / n,
                             "run_us": 1e6 * (spent["evaluate"] - spent["walk"]) / n, "rest_us": 1e6 * rest / n,
                             "rest_vs_numpy": (rest / n) / (ntotal / len(ntimes))})
    finally:
        incremental.Step.__init__, numpy_engine.evaluate_step = step_init, evaluate
    return rows


def main(quick: bool = False, out: str = "bench-results") -> int:
    repeats = 1 if quick else 3
    rows = []
    for prog in PROGRAMS:
        steps = prog.quick_steps if quick else prog.steps
        for size in prog.sizes:
            rows.append(measure(prog, size, steps, repeats))
            print(f"  {prog.name} {size}: {rows[-1]['agree']}", file=sys.stderr, flush=True)
    split = breakdown(quick)
    longs = long_runs(quick)
    micro = micro_costs(quick)
    jitted = jit_steps(quick)
    for r in micro:
        r["ratio"] = r["fgraph_us"] / r["numpy_us"]
    imports = import_times()
    print("fgraph eager benchmark: NumPy programs run with numpy and with fgraph.numpy (the same code)")
    print(environment())
    print(f"\nTimes: seconds a run, the mean of {repeats} run(s) of each (fewer for very slow ones) after a warm-up "
          "run of each on other data and the compiles it started (cold_ratio: fgraph's warm-up run against "
          "NumPy's on its data); mem_ratio: "
          "tracemalloc peaks, fgraph/numpy, in a separate run; first/last: fgraph's mean ms per step over the "
          "first and the last tenth of the steps (flatness = last/first: above 1, steps get slower as the program "
          "runs); agree: every run's final result against NumPy's on the same data.")
    print(table(rows, ["program", "size", "steps", "numpy_s", "fgraph_s", "time_ratio", "cold_ratio", "mem_ratio",
                       "fgraph_first_ms", "fgraph_last_ms", "flatness", "agree"]))
    bad = [r for r in rows if r["agree"] != "ok"]
    if bad:
        print("\n" + "!" * 78)
        print(f"!!! fgraph's results differ from NumPy's (or fgraph failed) in {len(bad)} run(s):")
        for r in bad:
            print(f"!!!   {r['program']} size {r['size']}: {r['agree']}")
        print("!" * 78)
    print("\nWhere fgraph's step time goes (microseconds a step): step_walk finds what a fetch computes, run runs "
          "its program, rest is everything else (the program's own lines, building nodes, arrays under 1,024 "
          "elements computed as they are built); rest_vs_numpy: that alone against NumPy's whole step")
    print(table(split, ["program", "size", "numpy_us", "fgraph_us", "step_walk_us", "run_us", "rest_us",
                        "rest_vs_numpy"]))
    print("\nLong runs (microseconds a step; first/last: fgraph's mean over the first and the last tenth; "
          "objects_held: objects the run leaves alive, for fgraph mostly the graph it keeps)")
    print(table(longs, ["loop", "steps", "numpy_us", "fgraph_us", "time_ratio", "fgraph_first_us", "fgraph_last_us",
                        "flatness", "numpy_objects_held", "fgraph_objects_held"]))
    print("\nThe same steps under fgraph.jit (the loop's body one traced function, a value fetched every step; "
          "microseconds a step, best of 3 runs after warm-up calls and the compile they started): what tracing the "
          "step gives where eager style cannot pay (each NumPy call builds a node)")
    print(table(jitted, ["program", "size", "steps", "numpy_us", "jit_us", "jit_ratio", "agree"]))
    print("\nMicro-costs (microseconds a call, best of 5 batches)")
    print(table(micro, ["operation", "numpy_us", "fgraph_us", "ratio"]))
    print("\nImport time in a fresh interpreter, less `python -c pass` (median of 5): "
          f"numpy {1e3 * imports['numpy_s']:.0f} ms, fgraph.numpy {1e3 * imports['fgraph.numpy_s']:.0f} ms "
          f"(interpreter start {1e3 * imports['python_start_s']:.0f} ms)")
    print("saved", save("eager", out, {"rows": rows, "micro_costs": micro, "breakdown": split, "long_runs": longs,
                                       "jit_steps": jitted, "import": imports, "quick": quick}))
    return 1 if bad or any(r["agree"] != "ok" for r in jitted) else 0

"""The eager benchmark's programs with their step under ``fgraph.jit``: the
same NumPy code, the loop's body one traced function, a value fetched every
step (``python -m fgraph.bench eager`` prints the table).  What a program
whose arrays are too small for eager style to pay (each NumPy call builds a
node) gets by tracing its step once."""
from __future__ import annotations

import math
from dataclasses import dataclass
from time import perf_counter
from typing import Callable

import numpy

import fgraph
import fgraph.numpy as fnp

from ..engines.native_executable import CALLS_BEFORE_COMPILE
from ..engines.numpy_kernels.native import settle


def _gray_scott(np):
    def laplacian(Z):
        return np.roll(Z, 1, 0) + np.roll(Z, -1, 0) + np.roll(Z, 1, 1) + np.roll(Z, -1, 1) - 4 * Z

    def step(U, V):
        uvv = U * V * V
        U = U + 0.16 * laplacian(U) - uvv + 0.035 * (1 - U)
        V = V + 0.08 * laplacian(V) + uvv - 0.1 * V
        return U, V, V.sum()
    return step


def _gray_scott_start(size, rng):
    n = math.isqrt(size)
    U, V = numpy.ones((n, n)), 0.25 * rng.random((n, n))
    return [U, V]


def _heat(np):
    def step(u):
        new = u.copy()
        new[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.2 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                                                 - 4 * u[1:-1, 1:-1])
        return new, np.abs(new - u).max()
    return step


def _heat_start(size, rng):
    n = math.isqrt(size)
    u = rng.uniform(0.0, 20.0, size=(n, n))
    u[0, :] = 100.0
    return [u]


def _adam(np):
    def step(x, m, s, c1, c2):  # (c1, c2: 1 - b ** t as 0-d arrays, inputs: a Python number would be static)
        xl, xr = x[:-1], x[1:]
        inner = xr - xl ** 2
        loss = np.sum(100 * inner ** 2 + (1 - xl) ** 2)
        grad = np.zeros_like(x)
        grad[:-1] = -400 * xl * inner - 2 * (1 - xl)
        grad[1:] += 200 * inner
        m = 0.9 * m + 0.1 * grad
        s = 0.999 * s + 0.001 * grad * grad
        x = x - 1e-3 * (m / c1) / (np.sqrt(s / c2) + 1e-8)
        return x, m, s, loss
    return step


def _adam_per_step(t: int) -> list:
    """Adam's bias corrections at step ``t``, as 0-d arrays (inputs of the traced step)."""
    return [numpy.asarray(1 - 0.9 ** t), numpy.asarray(1 - 0.999 ** t)]


def _adam_start(size, rng):
    x = numpy.linspace(-1.5, 1.5, size) + 0.1 * rng.standard_normal(size)
    return [x, numpy.zeros(size), numpy.zeros(size)]


@dataclass
class JitProgram:
    name: str
    step: Callable  # step(np) -> the step function, written with np
    start: Callable  # start(size, rng) -> the state arrays
    sizes: tuple
    steps: int
    per_step: Callable = lambda t: []  # per_step(t) -> the step's other arguments at step t (1, 2, ...)


JIT_PROGRAMS = [
    JitProgram("gray_scott", _gray_scott, _gray_scott_start, (400, 16_384, 262_144), 100),
    JitProgram("heat_diffusion", _heat, _heat_start, (400, 16_384), 200),
    JitProgram("adam_rosenbrock", _adam, _adam_start, (400, 16_384, 262_144), 100, _adam_per_step),
]


def _loop(prog: JitProgram, step, state: list, steps: int) -> tuple:
    """``steps`` steps from ``state``, the step's last result fetched with
    ``float`` each: (the final state, seconds)."""
    t0 = perf_counter()
    for t in range(1, steps + 1):
        *state, fetched = step(*state, *prog.per_step(t))
        float(fetched)
    return state, perf_counter() - t0


def jit_steps(quick: bool) -> list[dict]:
    """Each program's step per step, NumPy against the step under
    ``fgraph.jit`` (traced, then compiled in the background: its warm-up
    calls and the compile are not timed), best of three runs, and whether
    the final states agree bit for bit."""
    rows = []
    for prog in JIT_PROGRAMS:
        steps = max(prog.steps // 5, 5) if quick else prog.steps
        for size in prog.sizes:
            start = prog.start(size, numpy.random.default_rng(3))
            numpy_step, jitted = prog.step(numpy), fgraph.jit(prog.step(fnp))
            _loop(prog, jitted, list(start), CALLS_BEFORE_COMPILE + 2)
            settle()
            best = {"numpy": math.inf, "jit": math.inf}
            for _ in range(3):
                want, t = _loop(prog, numpy_step, list(start), steps)
                best["numpy"] = min(best["numpy"], t)
                got, t = _loop(prog, jitted, list(start), steps)
                best["jit"] = min(best["jit"], t)
            agree = all(numpy.array_equal(numpy.asarray(g), w) for g, w in zip(got, want))
            rows.append({"program": prog.name, "size": size, "steps": steps,
                         "numpy_us": 1e6 * best["numpy"] / steps, "jit_us": 1e6 * best["jit"] / steps,
                         "jit_ratio": best["jit"] / best["numpy"], "agree": "ok" if agree else "DIFFERENT"})
    return rows


__all__ = ["JIT_PROGRAMS", "jit_steps"]

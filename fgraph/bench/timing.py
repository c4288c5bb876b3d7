"""Timing several contenders side by side (interleaved, best of N)."""
from __future__ import annotations

import gc
import time
import tracemalloc
from typing import Callable


def best_of(contenders: dict[str, Callable[[], object]], repeats: int = 7) -> dict[str, float]:
    """Seconds per call for each contender: the minimum over ``repeats``
    rounds, each round running every contender once (so noise hits all)."""
    for f in contenders.values():  # warm-up: traces, autotuning, caches
        for _ in range(8):
            f()
    best = {k: float("inf") for k in contenders}
    gc.collect()
    for _ in range(repeats):
        for k, f in contenders.items():
            t0 = time.perf_counter()
            f()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def peak_bytes(fn: Callable[[], object]) -> int:
    """Bytes allocated at the peak of ``fn()`` beyond what existed before
    (tracemalloc: NumPy reports its buffers to it)."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()

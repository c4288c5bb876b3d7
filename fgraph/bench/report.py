"""Printing and saving benchmark tables."""
from __future__ import annotations

import json
import os
import platform
import time

import numpy as np


def environment() -> dict:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"python": platform.python_version(), "numpy": np.__version__, "cpus": os.cpu_count(),
            "load_average_1m": load, "when": time.strftime("%Y-%m-%d %H:%M:%S")}


def table(rows: list[dict], columns: list[str]) -> str:
    widths = [max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in columns]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(columns, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c)).rjust(w) for c, w in zip(columns, widths)) + " |")
    return "\n".join(lines)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return "" if v is None else str(v)


def save(name: str, out: str, payload: dict) -> str:
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{name}.json")
    with open(path, "w") as f:
        json.dump({"environment": environment(), **payload}, f, indent=2)
    return path

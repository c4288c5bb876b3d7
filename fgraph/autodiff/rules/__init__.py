"""Gradient rules, one module per op family (attribute ``grad``)."""
from importlib import import_module

for _family in ("linalg", "nn", "checks", "signal", "control"):
    try:
        import_module(f"{__name__}.{_family}")
    except ModuleNotFoundError as e:  # a family without rules yet
        if e.name != f"{__name__}.{_family}":
            raise

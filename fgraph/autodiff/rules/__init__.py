"""Gradient rules, one module per op family (attribute ``grad``)."""
from importlib import import_module

for _family in ("elementwise", "reduction", "movement", "indexing", "sorting", "creation", "nn", "checks",
                "signal", "writes", "ufunc", "control"):
    try:
        import_module(f"{__name__}.{_family}")
    except ModuleNotFoundError as e:  # a family without rules yet
        if e.name != f"{__name__}.{_family}":
            raise

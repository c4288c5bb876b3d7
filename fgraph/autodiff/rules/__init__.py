"""Gradient rules, one module per op family (attribute ``grad``)."""
from importlib import import_module

for _family in ("elementwise", "reduction", "movement", "indexing", "sorting", "creation", "writes", "ufunc"):
    try:
        import_module(f"{__name__}.{_family}")
    except ModuleNotFoundError as e:  # a family without rules yet
        if e.name != f"{__name__}.{_family}":
            raise

from .. import graph_rules  # noqa: F401,E402  (scan, switch, correlate: rules that differentiate a graph)

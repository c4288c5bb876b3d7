"""Op families.  Each module registers its ops with their shape rules (the
Shape layer) and defines the NumPy-named functions that build them (the
Operator layer); kernels are attached separately, from ``fgraph/engines``.

A family module lists its public names in ``__all__``; the namespace
``fgraph.numpy`` is the union of these lists and of the ``COMPOSITES``
modules' (functions built from other ops: no ops or kernels of their own)."""
FAMILIES = ("elementwise", "creation", "reduction", "movement", "indexing", "products", "linalg", "sorting", "fused",
            "nn", "fft", "checks", "signal", "writes", "control")
COMPOSITES = ("composite", "arrays", "statistics", "evaluated", "data_dependent")

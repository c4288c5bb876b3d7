"""The leaves the Dask engine lowers itself: a constant becomes a dask array
chunked by the policy; a literal stays a Python scalar (weak, as the NumPy
kernels receive it).  Placeholders and variables are filled by the engine."""
from ...registry import override

override("dask", "constant", lambda ctx, node: ctx.array(node.param("value").array))
override("dask", "literal", lambda ctx, node: node.param("value").value)

"""How leaves get their values on the NumPy engine."""
from ...registry import set_attr

set_attr("constant", "numpy_kernel", lambda *, value: value.array)
set_attr("literal", "numpy_kernel", lambda *, value: value.value)

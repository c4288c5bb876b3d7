# Code that branches on dtypes and shapes: issubdtype, kind, itemsize, nbytes, result_type, can_cast.
import numpy as np

arrs = [np.arange(3), np.linspace(0, 1, 3), np.array([True, False]), np.zeros(2, np.float32),
        np.array([1 + 2j]), np.ones((2, 3), dtype=np.uint16)]
for a in arrs:
    kind = "int" if np.issubdtype(a.dtype, np.integer) else \
        "float" if np.issubdtype(a.dtype, np.floating) else \
        "complex" if np.iscomplexobj(a) else "other"
    print(a.dtype, a.dtype.kind, a.itemsize, a.nbytes, a.shape, kind, str(a.dtype) == "float64")
print(np.result_type(arrs[0], arrs[3]), np.result_type(np.int8, 1.0), np.promote_types("i2", "u2"))
print(np.can_cast(np.int64, np.float64), np.can_cast(np.float64, np.int64), np.can_cast(np.int16, np.uint8))
print(arrs[1].dtype == np.float64, arrs[1].dtype.name, arrs[5].dtype.itemsize, np.dtype("f4").char)
m = np.ones((2, 3), order="C")
print(m.ndim, m.size, m.T.shape, np.shape(m), np.ndim(5), np.size(m, 1))
print(isinstance(m, np.ndarray), np.isscalar(3.0), np.isscalar(m), np.iterable(m))
result = [a.dtype.str for a in arrs]

# Floating-point comparisons: isclose with tolerances and NaNs, allclose, array_equal, array_equiv.
import numpy as np

a = np.array([1.0, 1e-10, 1e10, np.nan, np.inf])
b = np.array([1.0 + 1e-9, 2e-10, 1.00001e10, np.nan, np.inf])
print(np.isclose(a, b))
print(np.isclose(a, b, equal_nan=True))
print(np.isclose(a, b, rtol=0, atol=1e-9))
print(np.allclose(a[:3], b[:3]), np.allclose(a, b, equal_nan=True))
print(0.1 + 0.2 == 0.3, np.isclose(0.1 + 0.2, 0.3))
x = np.linspace(0, 1, 11)
print(np.isclose(x * 10, np.arange(11)).all(), (x * 10 == np.arange(11)).sum())
print(np.array_equal([1, 2], [1, 2]), np.array_equal(a, a), np.array_equal(a, a, equal_nan=True))
print(np.array_equiv([1, 2], [[1, 2], [1, 2]]), np.array_equiv([1, 2], [[1, 2], [1, 3]]))
print(np.spacing(1.0), np.nextafter(1.0, 2.0) - 1.0, np.finfo(np.float32).eps)
result = (np.isclose(a, b, equal_nan=True), np.isclose(x * 10, np.arange(11)))

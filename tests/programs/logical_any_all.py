# Logical tests over arrays: any, all, isclose, allclose and logical operators.
import numpy as np

a = np.array([0.1 + 0.2, 0.3, 0.30001])
print(a == 0.3)
print(np.isclose(a, 0.3))
print(np.allclose(a[:2], 0.3), np.allclose(a, 0.3))
M = np.array([[1, 0, 3], [4, 5, 6]])
print(M.all(axis=0), M.any(axis=1), np.all(M >= 0))
print(np.logical_xor(M > 2, M % 2 == 0))
if (M > 0).any():
    print("some positive")
if not (M > 0).all():
    print("not all positive")
print(np.array_equal(M, M.copy()), np.array_equiv(M[0], [1, 0, 3]))
result = (np.isclose(a, 0.3), np.logical_xor(M > 2, M % 2 == 0))

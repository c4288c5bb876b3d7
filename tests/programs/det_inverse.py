# Determinant, inverse, matrix power and rank of small matrices.
import numpy as np

A = np.array([[4.0, 7.0, 2.0], [3.0, 6.0, 1.0], [2.0, 5.0, 3.0]])
print(f"det: {np.linalg.det(A):.6f}")
Ainv = np.linalg.inv(A)
print(Ainv.round(6))
print("A @ inv(A) ~ I:", np.allclose(A @ Ainv, np.eye(3)))
F = np.array([[1, 1], [1, 0]])
print("Fibonacci via matrix power:", np.linalg.matrix_power(F, 10))
S = np.outer(np.arange(1, 4), np.arange(1, 5))
print("rank:", np.linalg.matrix_rank(S))
result = (Ainv, np.linalg.matrix_power(F, 10))

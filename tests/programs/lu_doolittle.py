# Doolittle LU factorisation written with row and column slices.
import numpy as np

A = np.array([[4.0, 3, 2, 1],
              [8, 7, 5, 3],
              [4, 6, 9, 4],
              [2, 2, 5, 10]])
n = A.shape[0]
L = np.eye(n)
U = np.zeros_like(A)
for i in range(n):
    U[i, i:] = A[i, i:] - L[i, :i] @ U[:i, i:]
    L[i + 1:, i] = (A[i + 1:, i] - L[i + 1:, :i] @ U[:i, i]) / U[i, i]
print("L =\n", L)
print("U =\n", U)
print("L@U == A:", np.allclose(L @ U, A))
print("det:", np.prod(np.diag(U)), "vs", round(np.linalg.det(A), 6))
print("triangular:", np.array_equal(np.triu(U), U), np.array_equal(np.tril(L), L))
result = (L, U)

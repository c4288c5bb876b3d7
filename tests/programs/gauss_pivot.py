# Gaussian elimination with partial pivoting by swapping rows through fancy indexing.
import numpy as np

rng = np.random.default_rng(3)
n = 5
A = rng.normal(size=(n, n))
b = rng.normal(size=n)
M = np.hstack([A, b[:, None]])
for i in range(n):
    p = i + np.argmax(np.abs(M[i:, i]))
    if p != i:
        M[[i, p]] = M[[p, i]]
    M[i] = M[i] / M[i, i]
    for j in range(i + 1, n):
        M[j] -= M[j, i] * M[i]
x = np.zeros(n)
for i in range(n - 1, -1, -1):
    x[i] = M[i, -1] - M[i, i + 1:n] @ x[i + 1:]
print(np.round(x, 6))
print("residual small:", np.linalg.norm(A @ x - b) < 1e-10)
print("agrees with solve:", np.allclose(x, np.linalg.solve(A, b)))
print("upper triangular:", np.allclose(np.tril(M[:, :n], -1), 0))
result = np.round(x, 8)

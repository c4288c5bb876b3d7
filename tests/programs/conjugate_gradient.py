# Conjugate gradient on a 1-D Poisson matrix, iterating while the residual is large.
import numpy as np

n = 20
A = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
b = np.ones(n)
x = np.zeros(n)
r = b - A @ x
p = r.copy()
rs = r @ r
it = 0
while np.sqrt(rs) > 1e-10 and it < 100:
    Ap = A @ p
    alpha = rs / (p @ Ap)
    x += alpha * p
    r -= alpha * Ap
    rs_new = r @ r
    p = r + (rs_new / rs) * p
    rs = rs_new
    it += 1
print("iterations:", it)
print("x[:5] =", x[:5].round(6))
print("solves:", np.allclose(A @ x, b))
result = x

# Jacobi iteration for Laplace's equation on a square, until the update is small.
import numpy as np

n = 16
u = np.zeros((n, n))
u[0, :] = 1.0  # hot top edge
tol = 1e-3
diff = 1.0
it = 0
while diff > tol and it < 1000:
    new = u.copy()
    new[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
    diff = np.abs(new - u).max()
    u = new
    it += 1
print("iterations:", it)
print(f"final change: {diff:.3e}")
print(u[::4, ::4].round(4))
result = u

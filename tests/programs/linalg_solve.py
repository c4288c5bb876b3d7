# Solve a linear system and check the residual.
import numpy as np

rng = np.random.default_rng(0)
A = rng.random((6, 6)) + 6 * np.eye(6)
b = rng.random(6)
x = np.linalg.solve(A, b)
print("x =", x.round(6))
r = A @ x - b
print(f"residual norm: {np.linalg.norm(r):.2e}")
print("ok:", np.allclose(A @ x, b))
result = x

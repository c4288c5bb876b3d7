# Explicit 2-D heat diffusion on a 64x64 plate with a hot square in the middle.
import numpy as np

n = 64
u = np.zeros((n, n))
u[28:36, 28:36] = 100.0
alpha = 0.2
for step in range(50):
    u[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
print(f"total heat: {u.sum():.6f}")
print(f"peak: {u.max():.6f}")
print(u[30:34, 30:34].round(3))
result = u

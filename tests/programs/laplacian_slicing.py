# Discrete Laplacian of f(x, y) = x^2 + y^2 using array slicing (should be about 4).
import numpy as np

n = 50
x = np.linspace(-1, 1, n)
h = x[1] - x[0]
X, Y = np.meshgrid(x, x)
f = X**2 + Y**2
lap = np.zeros_like(f)
lap[1:-1, 1:-1] = (f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2] - 4 * f[1:-1, 1:-1]) / h**2
inner = lap[1:-1, 1:-1]
print(f"mean laplacian: {inner.mean():.6f}")
print(f"max error: {np.abs(inner - 4).max():.2e}")
result = lap

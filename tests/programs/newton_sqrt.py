# Vectorised Newton iteration for square roots, looping until all have converged.
import numpy as np

a = np.array([2.0, 10.0, 0.5, 144.0, 1e4])
x = a.copy()
it = 0
while np.max(np.abs(x * x - a)) > 1e-9 and it < 100:
    x = 0.5 * (x + a / x)
    it += 1
print("iterations:", it)
print(x)
print("matches np.sqrt:", np.allclose(x, np.sqrt(a)))
result = x

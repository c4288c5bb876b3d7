# Estimate pi by throwing random points into the unit square.
import numpy as np

rng = np.random.default_rng(0)
pts = rng.random((10000, 2))
inside = np.sum(pts ** 2, axis=1) <= 1.0
pi = 4 * inside.mean()
print(f"pi ~ {pi:.4f}")
print("error:", abs(pi - np.pi))
result = pi

# Fit a straight line to noisy data with least squares.
import numpy as np

rng = np.random.default_rng(2)
x = np.linspace(0, 10, 30)
y = 2.0 * x + 1.0 + rng.normal(0, 0.5, x.size)
A = np.vstack([x, np.ones(len(x))]).T
(m, c), res, rank, sv = np.linalg.lstsq(A, y, rcond=None)
print(f"slope {m:.4f} intercept {c:.4f}")
print("rank:", rank, "residual:", res.round(4))
result = (m, c)

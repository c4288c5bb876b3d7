# Vector and matrix norms along axes, with keepdims for normalising rows.
import numpy as np

rng = np.random.default_rng(14)
X = rng.integers(-5, 6, size=(4, 3)).astype(float)
print(X)
print("row L2:", np.round(np.linalg.norm(X, axis=1), 4))
print("col L1:", np.linalg.norm(X, ord=1, axis=0))
print("row max:", np.linalg.norm(X, ord=np.inf, axis=1))
unit = X / np.linalg.norm(X, axis=1, keepdims=True)
print(np.round(unit, 4))
print("unit rows:", np.allclose(np.linalg.norm(unit, axis=1), 1))
print("fro:", round(np.linalg.norm(X), 6), round(np.linalg.norm(X, "fro"), 6))
print("induced 1:", np.linalg.norm(X, 1), "induced inf:", np.linalg.norm(X, np.inf))
print("spectral:", round(np.linalg.norm(X, 2), 6), "nuclear:", round(np.linalg.norm(X, "nuc"), 6))
D = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=-1)
print(np.round(D, 3))
result = (np.round(unit, 10), np.round(D, 10))

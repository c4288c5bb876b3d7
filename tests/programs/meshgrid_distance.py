# Pairwise distances between random points, and distances from a grid to a centre.
import numpy as np

rng = np.random.default_rng(12)
P = rng.random((10, 2))
D = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(axis=-1))
print(D[:3, :3].round(4))
np.fill_diagonal(D, np.inf)
i, j = np.unravel_index(D.argmin(), D.shape)
print("closest pair:", sorted((int(i), int(j))), f"{D[i, j]:.5f}")
X, Y = np.meshgrid(np.linspace(-1, 1, 11), np.linspace(-1, 1, 11))
R = np.hypot(X, Y)
print("inside unit circle:", (R <= 1).sum())
result = (D, R)

# Find minimum, maximum and per-row means of a random 10x10 array.
import numpy as np

rng = np.random.default_rng(42)
Z = rng.random((10, 10))
Zmin, Zmax = np.min(Z), np.max(Z)
print(Zmin, Zmax)
means = np.mean(Z, axis=1)
print("row means:", means)
print("argmax:", np.argmax(Z), np.unravel_index(np.argmax(Z), Z.shape))
result = (Zmin, Zmax, means)

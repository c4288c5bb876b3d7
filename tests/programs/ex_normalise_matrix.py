# Normalise a random 5x5 matrix to zero mean and unit variance, and min-max scale it.
import numpy as np

rng = np.random.default_rng(0)
Z = rng.random((5, 5))
Zn = (Z - np.mean(Z)) / np.std(Z)
print(Zn.round(4))
Zmin, Zmax = Z.min(), Z.max()
Zs = (Z - Zmin) / (Zmax - Zmin)
print(f"min={Zs.min():.3f} max={Zs.max():.3f} mean={Zs.mean():.4f}")
result = (Zn, Zs)

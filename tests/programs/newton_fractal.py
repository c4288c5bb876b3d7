# Newton's method for z**3 - 1 on a complex grid: which root does each start converge to?
import numpy as np

x = np.linspace(-1.5, 1.5, 41)
y = np.linspace(-1.5, 1.5, 31)
Z = x[None, :] + 1j * y[:, None]
roots = np.exp(2j * np.pi * np.arange(3) / 3)
with np.errstate(divide="ignore", invalid="ignore"):
    for _ in range(30):
        Z = Z - (Z ** 3 - 1) / (3 * Z ** 2)
dist = np.abs(Z[..., None] - roots)
basin = np.argmin(dist, axis=-1)
basin[~np.isfinite(Z)] = 3
print(Z.dtype, basin.shape)
for row in basin[::3]:
    print("".join("abc?"[k] for k in row[::2]))
print("counts:", np.bincount(basin.ravel(), minlength=4))
result = basin

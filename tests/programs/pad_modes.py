# Padding images and signals: constant, edge, reflect, symmetric and wrap.
import numpy as np

a = np.array([1, 2, 3, 4])
for mode in ["constant", "edge", "reflect", "symmetric", "wrap"]:
    print(f"{mode:>9}:", np.pad(a, (2, 3), mode=mode))
print(np.pad(a, 1, constant_values=-1))
M = np.arange(6).reshape(2, 3)
print(np.pad(M, ((1, 0), (2, 1))))
print(np.pad(M, 1, mode="edge"))
print(np.pad(M, ((0, 0), (1, 1)), mode="wrap"))
f = np.pad(M.astype(float), 1, mode="constant", constant_values=np.nan)
print(np.isnan(f).sum(), f.dtype)
result = (np.pad(M, ((1, 0), (2, 1))), np.pad(a, (2, 3), mode="reflect"))

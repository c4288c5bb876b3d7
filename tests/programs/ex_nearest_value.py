# Find the value in a random array closest to a given number.
import numpy as np

rng = np.random.default_rng(1)
Z = rng.uniform(0, 1, 100)
z = 0.5
idx = (np.abs(Z - z)).argmin()
print("index:", idx)
print("nearest:", Z[idx])
result = (idx, Z[idx])

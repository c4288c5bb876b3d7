# Shuffle arrays in place with a seeded generator, and permute rows.
import numpy as np

rng = np.random.default_rng(0)
z = np.arange(10)
rng.shuffle(z)
print(z)
M = np.arange(12).reshape(4, 3)
rng.shuffle(M)
print(M)
p = rng.permutation(M)
print(p)
np.random.seed(3)
w = np.arange(8)
np.random.shuffle(w)
print(w)
result = (z, M, p, w)

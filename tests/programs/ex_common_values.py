# Set operations between two random integer arrays.
import numpy as np

rng = np.random.default_rng(0)
Z1 = rng.integers(0, 10, 10)
Z2 = rng.integers(0, 10, 10)
common = np.intersect1d(Z1, Z2)
print("common:", common)
print("only in first:", np.setdiff1d(Z1, Z2))
print("union:", np.union1d(Z1, Z2))
print("in second:", np.isin(Z1, Z2))
result = common

# Set routines on integer id arrays: intersections with indices, unions, differences, membership.
import numpy as np

a = np.array([5, 1, 9, 3, 7, 3, 11])
b = np.array([3, 4, 5, 6, 7, 8])
common, ia, ib = np.intersect1d(a, b, return_indices=True)
print(common, ia, ib)
print(np.union1d(a, b), np.setdiff1d(a, b), np.setxor1d(a, b))
print(np.isin(a, b), np.isin(a, b, invert=True).sum())
print(np.isin(b, a))
print(np.setdiff1d(a, b, assume_unique=False).size)
grid = np.arange(12).reshape(3, 4)
print(np.isin(grid, [1, 5, 11]))
print(np.unique(np.concatenate([a, b]))[-3:])
result = (common, ia, ib, np.setxor1d(a, b))

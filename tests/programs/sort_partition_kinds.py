# Sorting with kinds, descending order, partition for k smallest and medians, lexsort of numbers.
import numpy as np

rng = np.random.default_rng(31)
a = rng.integers(0, 20, size=12)
print(a)
print(np.sort(a, kind="stable"), np.sort(a, kind="mergesort")[::-1])
print(np.argsort(a, kind="stable"))
p = np.partition(a, 3)
print("3 smallest:", np.sort(p[:3]), "4th:", p[3])
ap = np.argpartition(a, -2)[-2:]
print("2 largest:", np.sort(a[ap]))
mid = len(a) // 2
print("median via partition:", np.partition(a, [mid - 1, mid])[mid - 1:mid + 1].mean(), np.median(a))
M = rng.integers(0, 9, size=(3, 5))
print(np.sort(M, axis=0))
print(np.sort(M, axis=None))
print(np.partition(M, 1, axis=1)[:, :2])
last = np.array([3, 1, 2, 1, 3])
first = np.array([9, 8, 9, 7, 8])
print(np.lexsort((first, last)))
a.sort()
print(a)
result = (np.sort(M, axis=0), np.lexsort((first, last)), a)

# Filtering with boolean masks: a[a > 0], combined conditions, counts.
import numpy as np

a = np.sin(np.arange(30) * 2.3) * 1.5
pos = a[a > 0]
print(pos.round(3))
print("n positive:", pos.size, "mean:", pos.mean().round(4))
mid = a[(a > -0.5) & (a < 0.5)]
print(mid.round(3))
M = np.arange(20).reshape(4, 5) * 7 % 10
print(M[M.sum(axis=1) > 20])
print(M[:, M[0] > 4])
result = (pos, mid)

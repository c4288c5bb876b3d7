# Masked assignments: zero the negatives, cap large values, scale a band.
import numpy as np

a = np.cos(np.arange(36.0).reshape(6, 6)) * 2
a[a < 0] = 0
a[a > 1.5] = 1.5
band = (a > 0.5) & (a < 1.0)
a[band] *= 10
print(a.round(3))
print("zeros:", (a == 0).sum(), "scaled:", band.sum())
result = a

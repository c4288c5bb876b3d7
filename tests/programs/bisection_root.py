# Bisection for roots of x^3 - c for several c at once, halving intervals in a loop.
import numpy as np

c = np.array([1.0, 8.0, 27.0, 2.0, 100.0])
lo = np.zeros_like(c)
hi = np.maximum(c, 1.0)
it = 0
while (hi - lo).max() > 1e-12 and it < 200:
    mid = (lo + hi) / 2
    f = mid ** 3 - c
    lo[f < 0] = mid[f < 0]
    hi[f >= 0] = mid[f >= 0]
    it += 1
print("iterations:", it)
print(((lo + hi) / 2).round(10))
result = (lo + hi) / 2

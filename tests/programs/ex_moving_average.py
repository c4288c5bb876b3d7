# Moving average over a window using a cumulative sum.
import numpy as np


def moving_average(a, n=3):
    ret = np.cumsum(a, dtype=float)
    ret[n:] = ret[n:] - ret[:-n]
    return ret[n - 1:] / n


Z = np.arange(20)
m = moving_average(Z, n=3)
print(m)
result = m

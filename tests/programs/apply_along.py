# apply_along_axis and vectorize for functions written for one row or one scalar.
import numpy as np

def spread(row):
    return row.max() - row.min()

def normalise(row):
    return (row - row.mean()) / row.std()

rng = np.random.default_rng(61)
M = rng.integers(0, 50, size=(4, 6)).astype(float)
print(np.apply_along_axis(spread, 1, M))
print(np.apply_along_axis(spread, 0, M))
Z = np.apply_along_axis(normalise, 1, M)
print(np.round(Z, 4))
print(np.round(Z.mean(axis=1), 12) + 0.0)

def collatz_len(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps

f = np.vectorize(collatz_len)
print(f(np.arange(1, 11)))
clamp = np.vectorize(lambda v, lo: v if v > lo else lo)
print(clamp(np.array([1, 5, 3, 8]), 4))
result = (np.apply_along_axis(spread, 1, M), f(np.arange(1, 11)))

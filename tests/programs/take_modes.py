# np.take with axes and out-of-range modes; take_along_axis for per-row top two.
import numpy as np

a = np.array([10, 20, 30, 40, 50])
print(np.take(a, [0, 4, 7], mode="wrap"))
print(np.take(a, [-9, 2, 99], mode="clip"))
M = np.arange(20).reshape(4, 5)
print(np.take(M, [3, 0], axis=0))
print(np.take(M, [4, 4, 1], axis=1))
print(M.take([1, 7, 19]))
rng = np.random.default_rng(6)
S = rng.integers(0, 100, size=(4, 6))
top2 = np.argsort(S, axis=1)[:, :-3:-1]
print(S)
print(np.take_along_axis(S, top2, axis=1))
col = np.argmin(S, axis=0)
print(np.take_along_axis(S, col[None, :], axis=0))
result = (np.take_along_axis(S, top2, axis=1), np.take(a, [0, 4, 7], mode="wrap"))

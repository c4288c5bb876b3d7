# Sizes, seeds and bounds computed from data: the values NumPy programs pass straight back in.
import numpy as np

scores = np.array([7, 3, 9, 4, 9, 1, 6])
n = scores.max()
print("n =", n)
grid = np.zeros((n - 6, n))
grid[:, : scores.min() + 1] = 1
print(grid)
ids = np.arange(n + 1)
print(ids[scores[1]:], np.r_[0:scores[3], -1])
rng = np.random.default_rng(scores.sum())
print(rng.permutation(scores[1]), np.random.default_rng(n).integers(0, 100, 3))
np.random.seed(scores[0])
print(np.random.permutation(scores.min() + 3), np.random.randint(0, n, size=scores[1]))
window = scores.argmax() + 1
print("moving sums:", np.convolve(scores, np.ones(window, dtype=int), mode="valid"))
print("best two:", np.partition(scores, len(scores) - 2)[-2:], np.roll(scores, scores[5]))
print("capped:", np.max(scores, initial=scores.sum() // 4), np.min(scores[:0], initial=n))
hist, edges = np.histogram(scores, bins=scores.min() + 2)
print(hist, edges)
counts = np.bincount(scores - scores.min())
print("counts:", counts, len(counts))
result = (grid, counts, hist)

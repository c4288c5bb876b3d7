# Keep each row's top-k scores and zero the rest, using argpartition, take_along_axis and put_along_axis.
import numpy as np

rng = np.random.default_rng(211)
S = rng.integers(0, 100, size=(5, 8)).astype(float)
k = 3
idx = np.argpartition(-S, k - 1, axis=1)[:, :k]
top = np.take_along_axis(S, idx, axis=1)
order = np.argsort(-top, axis=1, kind="stable")
idx_sorted = np.take_along_axis(idx, order, axis=1)
print(np.take_along_axis(S, idx_sorted, axis=1))
mask = np.zeros_like(S, dtype=bool)
np.put_along_axis(mask, idx, True, axis=1)
kept = np.where(mask, S, 0.0)
print(kept)
probs = kept / kept.sum(axis=1, keepdims=True)
print(np.round(probs, 3))
cols = np.argmax(S, axis=0)
np.put_along_axis(S, cols[None, :], -1, axis=0)
print(S)
result = (idx_sorted, kept, S)

# A few iterations of k-means on three well-separated blobs.
import numpy as np

rng = np.random.default_rng(13)
centres_true = np.array([[0, 0], [5, 5], [0, 5]])
X = np.concatenate([c + rng.normal(0, 0.5, (30, 2)) for c in centres_true])
C = X[[0, 30, 60]].copy()
for it in range(10):
    d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    labels = d.argmin(axis=1)
    newC = np.array([X[labels == k].mean(axis=0) for k in range(3)])
    if np.allclose(newC, C):
        break
    C = newC
print("iterations:", it + 1)
print(C.round(4))
print("sizes:", np.bincount(labels, minlength=3))
result = (C, labels)

# k-nearest-neighbour voting with argpartition over a distance matrix.
import numpy as np

rng = np.random.default_rng(121)
centres = np.array([[0, 0], [4, 0], [2, 3]])
train = np.concatenate([c + rng.normal(0, 0.8, (15, 2)) for c in centres])
labels = np.repeat(np.arange(3), 15)
test = np.array([[0.5, 0.2], [3.5, 0.5], [2.0, 2.5], [2.0, 1.0]])
d2 = ((test[:, None, :] - train[None, :, :]) ** 2).sum(axis=-1)
k = 5
nearest = np.argpartition(d2, k, axis=1)[:, :k]
votes = labels[nearest]
pred = np.array([np.bincount(v, minlength=3).argmax() for v in votes])
print(np.sort(votes, axis=1))
print("predicted:", pred)
closest = np.argmin(d2, axis=1)
print("closest:", closest, np.round(np.sqrt(d2[np.arange(4), closest]), 4))
print("leave-one-out accuracy:", end=" ")
D = ((train[:, None] - train[None]) ** 2).sum(-1)
np.fill_diagonal(D, np.inf)
nn = np.argsort(D, axis=1)[:, :k]
loo = np.array([np.bincount(labels[r], minlength=3).argmax() for r in nn])
print((loo == labels).mean())
result = (pred, loo)

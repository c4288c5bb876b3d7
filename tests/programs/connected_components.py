# Label connected regions of a binary image by propagating the minimum label until nothing changes.
import numpy as np

img = np.array([[1, 1, 0, 0, 0, 1],
                [0, 1, 0, 1, 1, 1],
                [0, 0, 0, 0, 0, 0],
                [1, 0, 1, 1, 0, 1],
                [1, 0, 0, 1, 0, 1]], dtype=bool)
big = img.size + 1
labels = np.where(img, np.arange(img.size).reshape(img.shape) + 1, big)
sweeps = 0
while True:
    p = np.pad(labels, 1, constant_values=big)
    neigh = np.minimum.reduce([p[1:-1, 1:-1], p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]])
    new = np.where(img, neigh, big)
    sweeps += 1
    if np.array_equal(new, labels):
        break
    labels = new
ids, relabel = np.unique(labels[img], return_inverse=True)
out = np.zeros(img.shape, dtype=int)
out[img] = relabel + 1
print(out)
print("regions:", len(ids), "sizes:", np.bincount(relabel), "sweeps:", sweeps)
result = out

# k-means with explicit handling of clusters that lose all their points.
import numpy as np

rng = np.random.default_rng(151)
pts = np.concatenate([rng.normal([0, 0], 0.5, (20, 2)), rng.normal([5, 5], 0.5, (20, 2))])
k = 3
centres = np.array([[0.0, 0.0], [5.0, 5.0], [50.0, 50.0]])
for it in range(10):
    d = np.linalg.norm(pts[:, None, :] - centres[None, :, :], axis=2)
    lab = d.argmin(axis=1)
    counts = np.bincount(lab, minlength=k)
    sums = np.zeros((k, 2))
    np.add.at(sums, lab, pts)
    empty = counts == 0
    centres[~empty] = sums[~empty] / counts[~empty, None]
    far = np.argmax(d.min(axis=1))
    centres[empty] = pts[far]
    print(it, counts, np.round(centres, 3).tolist())
    if not empty.any() and it > 2:
        break
inertia = ((pts - centres[lab]) ** 2).sum()
print("inertia:", round(float(inertia), 4))
result = (lab, np.round(centres, 8))

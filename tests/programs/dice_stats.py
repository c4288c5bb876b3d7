# Roll two dice 1000 times with the legacy seeded generator and tabulate the sums.
import numpy as np

np.random.seed(1)
rolls = np.random.randint(1, 7, size=(1000, 2))
sums = rolls.sum(axis=1)
counts = np.bincount(sums, minlength=13)
freq = counts / counts.sum()
for s in range(2, 13):
    print(f"{s:2d}: {counts[s]:4d} {freq[s]:.3f}")
print("mean:", sums.mean(), "doubles:", (rolls[:, 0] == rolls[:, 1]).sum())
result = counts

# Find the most frequent value in an integer array.
import numpy as np

rng = np.random.default_rng(4)
Z = rng.integers(0, 10, 50)
counts = np.bincount(Z)
print(counts)
print("most frequent:", counts.argmax())
result = (counts, counts.argmax())

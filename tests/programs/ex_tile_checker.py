# Build a checkerboard with np.tile and compare to one built by indexing.
import numpy as np

T = np.tile(np.array([[0, 1], [1, 0]]), (4, 4))
print(T)
C = (np.indices((8, 8)).sum(axis=0) % 2)
print("same:", np.array_equal(T, C))
result = T

# Accumulate values into bins given an index list (repeated indices add up).
import numpy as np

X = [1, 2, 3, 4, 5, 6]
I = [1, 3, 9, 3, 4, 1]
F = np.bincount(I, X)
print(F)
G = np.zeros(10)
np.add.at(G, I, X)
print(G)
H = np.zeros(10)
H[I] += X  # only the last write for each repeated index counts
print(H)
result = (F, G, H)

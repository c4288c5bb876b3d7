# Sort the rows of an array by its second column.
import numpy as np

rng = np.random.default_rng(2)
Z = np.reshape(rng.permutation(15), (5, 3))
print(Z)
S = Z[Z[:, 1].argsort()]
print(S)
result = S

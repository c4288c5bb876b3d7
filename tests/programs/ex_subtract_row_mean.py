# Subtract the mean of each row of a matrix.
import numpy as np

rng = np.random.default_rng(11)
X = rng.random((5, 10))
Y = X - np.mean(X, axis=1, keepdims=True)
print(Y.round(3))
print("row sums ~ 0:", np.allclose(Y.sum(axis=1), 0))
result = Y

# Correlation and covariance of three related variables.
import numpy as np

rng = np.random.default_rng(2)
a = rng.normal(size=100)
b = 2 * a + rng.normal(scale=0.5, size=100)
c = rng.normal(size=100)
data = np.vstack([a, b, c])
C = np.corrcoef(data)
print(C.round(4))
S = np.cov(data)
print(S.round(4))
print("most correlated pair:", np.unravel_index(np.argmax(np.abs(C - np.eye(3))), C.shape))
result = (C, S)

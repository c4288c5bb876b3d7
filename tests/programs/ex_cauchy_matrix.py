# Build a Cauchy matrix with subtract.outer and print its determinant.
import numpy as np

X = np.arange(8)
Y = X + 0.5
C = 1.0 / np.subtract.outer(X, Y)
print(C[:3, :3])
d = np.linalg.det(C)
print(f"det = {d:.6e}")
result = C

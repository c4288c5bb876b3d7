# A 10x10 array with ones on the border and zeros inside; then add a border of zeros around another.
import numpy as np

Z = np.ones((10, 10))
Z[1:-1, 1:-1] = 0
print(Z)
P = np.ones((5, 5))
P = np.pad(P, pad_width=1, mode="constant", constant_values=0)
print(P)
result = (Z, P)

# Replace the maximum value of a vector (squares modulo 17) with zero.
import numpy as np

Z = (np.arange(10) ** 2 % 17).astype(float)
print(Z.round(3))
Z[Z.argmax()] = 0
print(Z.round(3))
result = Z

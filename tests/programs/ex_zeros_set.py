# Make a vector of ten zeros, set the fifth element to one, and print it.
import numpy as np

Z = np.zeros(10)
Z[4] = 1
print(Z)
print("size:", Z.size, "nbytes:", Z.nbytes)
result = Z

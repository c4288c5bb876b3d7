# Transposes, swapped axes and writes through them.
import numpy as np

A = np.arange(12).reshape(3, 4)
T = A.T
print(T)
T[0, :] = -1
print(A)
B = np.arange(24).reshape(2, 3, 4)
S = np.swapaxes(B, 0, 2)
print(S.shape, S[1, 2, 0])
S[0] *= 10
print(B)
print("shares memory:", np.shares_memory(A, T))
result = (A, B)

# Diagonal and identity matrices, a sub-diagonal, the trace and a diagonal extraction.
import numpy as np

D = np.diag(1 + np.arange(4), k=-1)
print(D)
I = np.eye(4)
print(I)
M = np.arange(16).reshape(4, 4)
print("diagonal:", np.diag(M))
print("trace:", np.trace(M))
print("anti-diagonal:", np.fliplr(M).diagonal())
result = (D, I, np.diag(M), np.trace(M))

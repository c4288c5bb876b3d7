# np.copyto with and without a where mask, and casting into an integer array.
import numpy as np

dst = np.zeros((3, 4))
src = np.arange(12.0).reshape(3, 4)
np.copyto(dst, src, where=src % 2 == 0)
print(dst)
np.copyto(dst[0], 5.5)
print(dst)
ints = np.zeros(4, dtype=np.int32)
np.copyto(ints, np.array([1.7, 2.2, -3.9, 4.0]), casting="unsafe")
print(ints, ints.dtype)
result = (dst, ints)

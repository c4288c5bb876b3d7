# reshape, ravel and flatten: which are views and what writes through them do.
import numpy as np

a = np.arange(12)
m = a.reshape(3, 4)
m[1, 1] = 50
r = m.ravel()
r[-1] = 77
f = m.flatten()
f[0] = -100
print(a)
print(m)
print(f)
n = m[:, ::2].ravel()  # a copy: the slice is not contiguous
n[:] = 0
print(m)
e = m[np.newaxis, :, None]
print(e.shape, np.squeeze(e).shape)
result = (a, f)

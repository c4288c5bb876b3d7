# Fancy-index writes with repeated indices: buffered += counts once, add.at counts every time.
import numpy as np

idx = np.array([0, 1, 1, 3, 3, 3])
a = np.zeros(5, dtype=int)
a[idx] += 1
print("buffered:", a)
b = np.zeros(5, dtype=int)
np.add.at(b, idx, 1)
print("unbuffered:", b)
c = np.zeros(5)
c[idx] = np.arange(6) * 10.0
print("last write wins:", c)
d = np.arange(12).reshape(3, 4)
d[[0, 2, 0], [1, 3, 1]] *= -1
print(d)
m = np.ones((3, 3), dtype=int)
np.multiply.at(m, ([0, 0, 2], [1, 1, 2]), 3)
print(m)
e = np.zeros(4)
np.subtract.at(e, [2, 2, 0], [1.5, 2.5, 4.0])
print(e)
result = (a, b, c, d, m, e)

# Two names for one array: an in-place update through either name is seen by both.
import numpy as np

a = np.arange(5.0)
b = a
b += 1
print(a, b, a is b)
c = a[1:4]
a *= 2
print("view after base update:", c)
c[:] = 0
print("base after view write:", a)
d = a.copy()
d[0] = 100
print("copy is independent:", a[0], d[0])
result = (a, c, d)

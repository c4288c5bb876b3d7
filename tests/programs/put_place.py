# Writing by flat position: put, place, putmask, put_along_axis and the .flat iterator.
import numpy as np

a = np.arange(10)
np.put(a, [0, 3, 7], [-1, -2, -3])
print(a)
np.place(a, a > 5, [100, 200])
print(a)
b = np.arange(12).reshape(3, 4)
np.putmask(b, b % 3 == 0, 0)
print(b)
b.flat[::5] = 9
print(b, b.flat[6])
c = np.array([[2, 3, 1], [8, 9, 7]])
idx = np.argmax(c, axis=1)[:, None]
np.put_along_axis(c, idx, -1, axis=1)
print(c)
print(np.take_along_axis(c, np.argsort(c, axis=1), axis=1))
result = (a, b, c)

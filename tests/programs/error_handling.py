# Programs that expect NumPy to refuse: mismatched shapes, bad indices, unsafe in-place casts.
import numpy as np

a = np.arange(6)
for label, attempt in [
    ("broadcast", lambda: a + np.arange(4)),
    ("index", lambda: a[10]),
    ("reshape", lambda: a.reshape(4, 2)),
    ("matmul", lambda: np.ones((2, 3)) @ np.ones((2, 3))),
    ("axis", lambda: a.sum(axis=2)),
]:
    try:
        attempt()
        print(label, "no error")
    except (ValueError, IndexError, TypeError) as exc:
        print(label, "->", isinstance(exc, IndexError) or isinstance(exc, ValueError), isinstance(exc, TypeError))
b = np.arange(3)
try:
    b += 0.5
except TypeError:
    print("in-place float into int refused; b is", b)
b += np.int8(2)
print(b, b.dtype)
c = np.zeros(3, dtype=np.uint8)
try:
    c[0] = 300
except OverflowError:
    print("out of range for uint8")
c[1] = 255
print(c)
result = (a, b, c)

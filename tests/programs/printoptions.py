# Change NumPy's print options: precision, suppression of small numbers, thresholds.
import numpy as np

rng = np.random.default_rng(0)
x = rng.random(6) * 1e-4 + np.arange(6)
np.set_printoptions(precision=3)
print(x)
np.set_printoptions(suppress=True)
print(x / 1000)
np.set_printoptions(threshold=10, edgeitems=2)
print(np.arange(50))
with np.printoptions(precision=1):
    print(x)
print(np.array2string(x, precision=2, separator=", "))
result = x

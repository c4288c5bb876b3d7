# Piecewise rules with select, where, extract, compress and count_nonzero by axis.
import numpy as np

temps = np.array([-5.0, 3.2, 12.5, 18.0, 24.9, 31.0, 38.5, 7.0])
labels = np.select([temps < 0, temps < 10, temps < 25, temps < 35],
                   [0, 1, 2, 3], default=4)
print(labels)
tax = np.select([temps > 30, temps > 20], [temps * 2, temps + 1], default=temps)
print(tax)
print(np.extract((temps > 0) & (temps < 20), temps))
print(np.compress(labels == 2, temps))
grid = np.arange(20).reshape(4, 5)
print(np.compress([True, False, True, False, True], grid, axis=1))
print(np.count_nonzero(grid % 3 == 0, axis=0), np.count_nonzero(grid % 3 == 0, axis=1))
pw = np.piecewise(temps, [temps < 10, temps >= 10], [lambda t: 0.0, lambda t: t - 10])
print(pw)
print(np.where(temps > 20, "hot" == "hot", False))
result = (labels, tax, pw)

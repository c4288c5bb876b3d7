# Ufunc methods: reduce, accumulate, outer, reduceat.
import numpy as np

a = np.arange(1, 11)
print("sum:", np.add.reduce(a))
print("running sum:", np.add.accumulate(a))
print("running product:", np.multiply.accumulate(a[:6]))
table = np.multiply.outer(np.arange(1, 6), np.arange(1, 6))
print(table)
b = np.array([4, 1, 7, 3, 9, 2, 8, 6])
print("block max:", np.maximum.reduceat(b, [0, 3, 5]))
print("column min:", np.minimum.reduce(table, axis=0))
print("all:", np.logical_and.reduce(a > 0))
result = (np.add.accumulate(a), table, np.maximum.reduceat(b, [0, 3, 5]))

# Rows of Pascal's triangle built by adding a shifted copy of the row to itself.
import numpy as np

n = 12
row = np.zeros(n, dtype=np.int64)
row[0] = 1
for k in range(1, n):
    row[1:] += row[:-1]
    print(row[:k + 1])
result = row

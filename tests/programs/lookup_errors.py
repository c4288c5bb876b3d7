# Telling a bad position from a bad value: except clauses in the order a user writes them.
import numpy as np

table = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

def lookup(i, j):
    try:
        return table[i, j]
    except ValueError:
        return "bad value"
    except IndexError:
        return "out of range"

for i, j in [(0, 1), (1, 2), (2, 0), (0, -4)]:
    print(i, j, lookup(i, j))
try:
    table.reshape(4, 2)
except IndexError:
    print("reshape: index error")
except ValueError:
    print("reshape: value error")
result = table

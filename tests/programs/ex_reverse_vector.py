# Create a range, reverse it, and pick out the even numbers.
import numpy as np

Z = np.arange(10, 50)
Z = Z[::-1]
print(Z)
evens = Z[Z % 2 == 0]
print(evens)
print(len(evens), "even numbers, first", Z[0], "last", Z[-1])
result = (Z, evens)

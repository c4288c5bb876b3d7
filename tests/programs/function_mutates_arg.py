# Helper functions that modify the array passed to them, as callers expect NumPy to allow.
import numpy as np


def normalise_inplace(arr):
    arr -= arr.min()
    arr /= arr.max()


def clamp_rows(arr, limit):
    for r in range(arr.shape[0]):
        arr[r, arr[r] > limit] = limit


data = np.array([[3.0, 9.0, 1.0], [4.0, 4.0, 8.0]])
normalise_inplace(data)
print(data.round(4))
clamp_rows(data, 0.5)
print(data.round(4))
segment = data[:, 1:]
normalise_inplace(segment)
print(data.round(4))
result = data

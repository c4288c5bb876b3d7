# Run-length encoding and decoding with diff, flatnonzero and repeat; cumsum/diff round trips.
import numpy as np

s = np.array([1, 1, 1, 0, 0, 2, 2, 2, 2, 1, 0, 0])
change = np.flatnonzero(np.diff(s)) + 1
starts = np.concatenate(([0], change))
lengths = np.diff(np.append(starts, len(s)))
values = s[starts]
print("values:", values)
print("lengths:", lengths)
decoded = np.repeat(values, lengths)
print("round trip:", np.array_equal(decoded, s))
print("longest run:", values[np.argmax(lengths)], "x", lengths.max())
x = np.array([3, 8, 2, 9, 4])
d = np.diff(x, prepend=0)
print(d, np.cumsum(d))
print(np.diff(x, n=2), np.diff(x, append=x[-1]))
M = np.arange(12).reshape(3, 4) ** 2
print(np.diff(M, axis=0))
print(np.cumsum(M, axis=1)[:, -1], M.sum(axis=1))
print(np.ediff1d(x, to_begin=-1, to_end=[100, 200]))
result = (values, lengths, np.diff(M, axis=0))

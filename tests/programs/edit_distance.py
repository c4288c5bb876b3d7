# Levenshtein distance table filled cell by cell, then the anti-diagonal maximum for fun.
import numpy as np

def distance(s, t):
    D = np.zeros((len(s) + 1, len(t) + 1), dtype=int)
    D[:, 0] = np.arange(len(s) + 1)
    D[0, :] = np.arange(len(t) + 1)
    for i in range(1, len(s) + 1):
        for j in range(1, len(t) + 1):
            cost = 0 if s[i - 1] == t[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D

D = distance("kitten", "sitting")
print(D)
print("distance:", D[-1, -1])
words = ["graph", "giraffe", "grape", "paragraph"]
M = np.array([[distance(a, b)[-1, -1] for b in words] for a in words])
print(M)
print("closest pairs:", np.argwhere(M == M[M > 0].min()).tolist())
result = (D, M)

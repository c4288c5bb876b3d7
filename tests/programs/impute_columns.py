# Cleaning a table with missing values: column means fill the gaps, then standardise and rank.
import io
import numpy as np

raw = io.StringIO("""height,weight,age
170,65,31
182,,45
,72,29
165,58,
177,81,52
""")
X = np.genfromtxt(raw, delimiter=",", skip_header=1)
print(X)
col_mean = np.nanmean(X, axis=0)
inds = np.where(np.isnan(X))
print("missing at:", list(zip(inds[0].tolist(), inds[1].tolist())))
X[inds] = np.take(col_mean, inds[1])
print(np.round(X, 2))
Z = (X - X.mean(axis=0)) / X.std(axis=0)
print(np.round(Z, 3))
rank = Z.sum(axis=1).argsort()[::-1]
print("ranking:", rank)
result = (np.round(X, 8), rank)

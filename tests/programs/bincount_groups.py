# Grouped statistics with bincount weights and digitize: mean score per age band.
import numpy as np

rng = np.random.default_rng(9)
ages = rng.integers(18, 80, size=50)
scores = rng.normal(60, 12, size=50).round(1)
bands = np.array([18, 30, 45, 60, 80])
band = np.digitize(ages, bands, right=False) - 1
n = np.bincount(band, minlength=len(bands) - 1)
total = np.bincount(band, weights=scores, minlength=len(bands) - 1)
print("per band:", n)
print("mean score:", np.round(total / n, 2))
sq = np.bincount(band, weights=scores ** 2, minlength=4)
print("std:", np.round(np.sqrt(sq / n - (total / n) ** 2), 2))
right = np.digitize([18, 30, 45, 79], bands, right=True)
print("right edges:", right)
best = np.argmax(total / n)
print(f"best band: {bands[best]}-{bands[best + 1]}")
result = (n, np.round(total / n, 6))

# Insert NaNs into data, detect them, and compute NaN-aware statistics.
import numpy as np

rng = np.random.default_rng(8)
a = np.round(rng.normal(10, 2, 20), 3)
a[[3, 7, 15]] = np.nan
print("nan count:", np.isnan(a).sum())
print(f"nanmean={np.nanmean(a):.4f} nanstd={np.nanstd(a):.4f} nanmax={np.nanmax(a):.4f}")
filled = a.copy()
filled[np.isnan(filled)] = 0
print(filled.round(2))
result = (a, filled)

# Ratios with zeros in the denominator: errstate, nan_to_num, and the nan-aware reductions.
import numpy as np

num = np.array([[1.0, 0.0, 3.0], [4.0, 5.0, 0.0], [0.0, 8.0, 9.0]])
den = np.array([[2.0, 0.0, 0.0], [1.0, 5.0, 2.0], [0.0, 4.0, 3.0]])
with np.errstate(divide="ignore", invalid="ignore"):
    r = num / den
print(r)
print("finite:", np.isfinite(r).sum(), "nan:", np.isnan(r).sum(), "inf:", np.isinf(r).sum())
clean = np.where(np.isfinite(r), r, np.nan)
print("nanmean rows:", np.nanmean(clean, axis=1))
print("nanmax cols:", np.nanmax(clean, axis=0), "nanargmax:", np.nanargmax(clean))
print("nansum:", np.nansum(clean), "nanstd:", round(float(np.nanstd(clean)), 6))
print("nanmedian:", np.nanmedian(clean, axis=0))
print(np.nan_to_num(r, nan=-1.0, posinf=99.0))
old = np.seterr(all="ignore")
print(np.log(np.array([0.0, 1.0, -1.0])))
np.seterr(**old)
print(np.nanpercentile(clean, 50), np.nanmin(clean))
result = (r, np.nan_to_num(r, nan=-1.0, posinf=99.0))

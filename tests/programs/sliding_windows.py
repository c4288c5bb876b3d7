# Rolling statistics with sliding_window_view instead of Python loops.
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

rng = np.random.default_rng(4)
prices = 100 + np.cumsum(rng.normal(0, 1, 40))
w = sliding_window_view(prices, 5)
print(w.shape)
print("rolling mean:", np.round(w.mean(axis=1)[:6], 3))
print("rolling max :", np.round(w.max(axis=1)[:6], 3))
print("rolling median:", np.round(np.median(w, axis=1)[:6], 3))
img = np.arange(36).reshape(6, 6)
patches = sliding_window_view(img, (3, 3))
print(patches.shape)
print(patches[1, 2])
pooled = patches.max(axis=(2, 3))
print(pooled)
result = (np.round(w.mean(axis=1), 6), pooled)

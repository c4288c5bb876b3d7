# Padding a signal and a small image by edge statistics and linear ramps before filtering.
import numpy as np

sig = np.array([3, 8, 2, 9, 4, 7])
for mode in ["maximum", "minimum", "mean", "median"]:
    print(f"{mode:>8}:", np.pad(sig, (2, 3), mode=mode), np.pad(sig, 2, mode=mode, stat_length=2))
print("ramp:", np.pad(sig, (3, 2), mode="linear_ramp", end_values=(0, 20)))
img = np.arange(12, dtype=float).reshape(3, 4) ** 1.5
padded = np.pad(img, 1, mode="mean")
print(np.round(padded, 3))
smooth = (padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:]) / 4
print(np.round(smooth, 3))
edges = np.pad(img.astype(np.uint8), ((1, 1), (2, 0)), mode="linear_ramp", end_values=255)
print(edges)
print(np.pad(img, 1, mode="empty").shape)
result = (np.pad(sig, (2, 3), mode="mean"), np.round(smooth, 10), edges)

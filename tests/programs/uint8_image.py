# uint8 image arithmetic: wraparound, safe brightening through a wider type, clip with out=.
import numpy as np

rng = np.random.default_rng(21)
img = rng.integers(0, 256, size=(4, 6), dtype=np.uint8)
print(img)
wrapped = img + np.uint8(100)
print("wrapped:", wrapped[0], wrapped.dtype)
wide = img.astype(np.int16) + 100
bright = np.clip(wide, 0, 255).astype(np.uint8)
print("bright :", bright[0])
dark = img.astype(np.int16)
np.clip(dark - 80, 0, 255, out=dark)
print("dark   :", dark[0], dark.dtype)
inv = 255 - img
print("inverse:", inv[1], inv.dtype)
avg = ((img.astype(np.uint16) + inv) // 2).astype(np.uint8)
print("average:", avg[1])
print("mean:", img.mean(), "sum dtype:", img.sum().dtype, np.iinfo(img.dtype).max)
result = (wrapped, bright, dark, avg)

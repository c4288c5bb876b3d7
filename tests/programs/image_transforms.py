# Flip, rotate, crop, downsample and block-average a generated image.
import numpy as np

img = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) % 17
r = np.rot90(img)
f = np.fliplr(img)
crop = img[10:20, 5:15]
small = img[::2, ::2]
blocks = img.reshape(32, 2, 32, 2).mean(axis=(1, 3))
print(r[:2, :5])
print(f[:2, :5])
print(crop.shape, small.shape, blocks.shape, blocks.dtype)
print(blocks[:3, :3])
print("flipud(flipud) == img:", np.array_equal(np.flipud(np.flipud(img)), img))
result = (r, f, blocks)

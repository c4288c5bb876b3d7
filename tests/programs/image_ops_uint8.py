# A small grey image: box blur by shifted sums, gamma via a lookup table, thresholds and a histogram.
import numpy as np

y, x = np.mgrid[0:12, 0:16]
img = ((x * 16 + y * 8) % 256).astype(np.uint8)
img[4:8, 5:11] = 255
pad = np.pad(img.astype(np.uint16), 1, mode="edge")
blur = sum(pad[dy:dy + 12, dx:dx + 16] for dy in range(3) for dx in range(3)) // 9
blur = blur.astype(np.uint8)
print(blur[3:9, 3:12])
lut = (255 * (np.arange(256) / 255.0) ** 0.5).round().astype(np.uint8)
gamma = lut[img]
print(gamma[0, :8], gamma.dtype)
binary = np.where(blur > 128, 255, 0).astype(np.uint8)
print("white pixels:", np.count_nonzero(binary), "of", binary.size)
hist = np.bincount(img.ravel(), minlength=256)
print("levels used:", np.count_nonzero(hist), "most common:", hist.argmax())
cdf = hist.cumsum()
print("median level:", np.searchsorted(cdf, cdf[-1] // 2))
result = (blur, gamma, binary)

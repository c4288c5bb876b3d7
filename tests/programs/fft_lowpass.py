# Low-pass filtering with the real FFT, frequency bins from rfftfreq, and a spectrum's peaks.
import numpy as np

fs = 64
t = np.arange(128) / fs
sig = np.sin(2 * np.pi * 3 * t) + 0.5 * np.sin(2 * np.pi * 20 * t)
spec = np.fft.rfft(sig)
freqs = np.fft.rfftfreq(len(sig), d=1 / fs)
print(len(spec), freqs[:5], freqs[-1])
peaks = freqs[np.argsort(np.abs(spec))[-2:]]
print("peaks:", np.sort(peaks))
spec[freqs > 10] = 0
smooth = np.fft.irfft(spec, n=len(sig))
print("max deviation from 3 Hz tone:", round(float(np.max(np.abs(smooth - np.sin(2 * np.pi * 3 * t)))), 6))
print(np.fft.fftshift(np.fft.fftfreq(8, d=0.5)))
k = np.fft.ifftshift(np.arange(-4, 4))
print(k)
img = np.zeros((8, 8))
img[2:5, 3:6] = 1
F = np.fft.fft2(img)
print("dc:", F[0, 0].real, "roundtrip:", np.allclose(np.fft.ifft2(F).real, img))
result = (np.round(smooth, 8), np.round(np.abs(F), 8))

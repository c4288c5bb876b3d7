# Find the dominant frequencies of a sampled two-tone signal with the FFT.
import numpy as np

fs = 128
t = np.arange(256) / fs
sig = np.sin(2 * np.pi * 5 * t) + 0.5 * np.sin(2 * np.pi * 20 * t)
spec = np.abs(np.fft.rfft(sig))
freqs = np.fft.rfftfreq(sig.size, d=1 / fs)
top = np.argsort(spec)[-2:]
print("peaks at:", np.sort(freqs[top]))
print(f"peak heights: {spec[top].round(3)}")
back = np.fft.irfft(np.fft.rfft(sig), n=sig.size)
print("round trip:", np.allclose(back, sig))
result = (spec, freqs)

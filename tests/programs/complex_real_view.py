# Complex arrays: .real and .imag as writable views, conjugates and magnitudes.
import numpy as np

z = np.exp(1j * np.linspace(0, np.pi, 5))
print(z.round(4))
z.real[z.real < 0] = 0
z.imag *= 2
print(z.round(4))
print("abs:", np.abs(z).round(4))
print("angle:", np.angle(z).round(4))
c = np.zeros(3, dtype=complex)
c.real = [1, 2, 3]
c.imag[1] = -1
print(c, c.conj())
result = (z, c)

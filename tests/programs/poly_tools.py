# Polynomials as coefficient arrays: fit, evaluate, roots, derivative, integral, poly1d.
import numpy as np

x = np.linspace(-2, 2, 9)
y = 2 * x ** 3 - x + 1
c = np.polyfit(x, y, 3)
print("coeffs:", np.round(c, 6))
print("values:", np.round(np.polyval(c, [0.0, 1.0, 3.0]), 6))
r = np.roots([1, -6, 11, -6])
print("roots:", np.round(np.sort(r.real), 6))
print("derivative:", np.polyder([2, 0, -1, 1]))
print("integral:", np.polyint([3, 0, 1]))
p = np.poly1d([1, -3, 2])
print("p(4) =", p(4), "order", p.order)
print("product:", np.polymul([1, 1], [1, -1]))
q, rem = np.polydiv([1, 0, -1], [1, 1])
print("quotient:", q, "remainder:", rem)
print("from roots:", np.poly([1, 2, 3]))
result = (np.round(c, 8), np.polyder([2, 0, -1, 1]))

# Fit a cubic polynomial to samples, evaluate it and find its roots.
import numpy as np

x = np.linspace(-2, 2, 25)
y = x ** 3 - 2 * x + 1 + 0.01 * np.cos(7 * x)
coef = np.polyfit(x, y, 3)
print("coefficients:", coef.round(5))
print("value at 1.5:", np.polyval(coef, 1.5).round(6))
print("roots:", np.sort(np.roots([1, 0, -2, 1]).real).round(6))
d = np.polyder(coef)
print("derivative:", d.round(5))
result = coef

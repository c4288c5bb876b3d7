# Weighted averages, medians along axes and sample variance of a grade table.
import numpy as np

grades = np.array([[82, 91, 77], [68, 75, 88], [95, 89, 92], [55, 70, 61]], dtype=float)
weights = np.array([0.2, 0.3, 0.5])
final = np.average(grades, axis=1, weights=weights)
print("final:", final)
print("class median per test:", np.median(grades, axis=0))
print("sample variance per test:", grades.var(axis=0, ddof=1).round(4))
print("best student:", final.argmax(), "passed:", (final >= 70).sum())
result = final

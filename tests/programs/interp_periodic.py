# Interpolating angles and a daily temperature cycle with np.interp's period, and resampling a signal.
import numpy as np

hours = np.array([0, 6, 12, 18])
temps = np.array([10.0, 8.0, 18.0, 15.0])
query = np.array([-3, 3, 9, 15, 21, 25, 47.5])
print(np.interp(query, hours, temps, period=24))
angles = np.array([350.0, 10.0, 30.0])
vals = np.array([1.0, 2.0, 3.0])
print(np.interp([0.0, 355.0, 20.0], angles, vals, period=360))
t = np.linspace(0, 1, 11)
sig = np.sin(2 * np.pi * t)
fine = np.linspace(0, 1, 41)
print(np.round(np.interp(fine, t, sig)[::5], 5))
print(np.interp([-1, 2], [0, 1], [5, 6], left=np.nan, right=-1.0))
xp = np.array([1.0, 2.0, 3.0])
print(np.interp(2.5, xp, np.array([1 + 1j, 2 + 0j, 0 + 2j])))
result = (np.interp(query, hours, temps, period=24), np.interp(fine, t, sig))

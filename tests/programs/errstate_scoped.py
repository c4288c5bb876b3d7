# Strict floating-point errors everywhere, relaxed only inside blocks that expect NaN and infinity.
import numpy as np

np.seterr(all="raise")
x = np.linspace(-2, 2, 9)
grid = x[None, :] + 1j * x[:, None]
with np.errstate(divide="ignore", invalid="ignore"):
    z = grid.copy()
    for _ in range(25):
        z = z - (z ** 3 - 1) / (3 * z ** 2)
    ratio = np.log(np.abs(x)) / x
finite = np.isfinite(z)
print("converged points:", finite.sum(), "of", z.size)
print("roots found:", np.unique(np.round(z[finite], 6)))
print("ratio:", np.round(np.nan_to_num(ratio, nan=0.0, neginf=-99.0), 4))
try:
    print(np.log(np.array([0.0, 1.0])))
except FloatingPointError as e:
    print("outside the block:", type(e).__name__)
result = (finite, np.round(np.nan_to_num(ratio, nan=0.0, neginf=-99.0), 8))

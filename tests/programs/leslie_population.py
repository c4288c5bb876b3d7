# Leslie matrix population model: projected age structure and the asymptotic growth rate.
import numpy as np

fert = np.array([0.0, 1.2, 1.1, 0.4])
surv = np.array([0.8, 0.7, 0.5])
L = np.zeros((4, 4))
L[0] = fert
L[np.arange(1, 4), np.arange(3)] = surv
print(L)
pop = np.array([100.0, 50.0, 30.0, 10.0])
history = [pop]
for year in range(15):
    pop = L @ pop
    history.append(pop)
H = np.array(history)
print(np.round(H[::5], 2))
growth = H[1:].sum(axis=1) / H[:-1].sum(axis=1)
print("growth:", np.round(growth[-3:], 5))
vals = np.linalg.eigvals(L)
lam = vals[np.argmax(np.abs(vals))].real
print("dominant eigenvalue:", round(float(lam), 5))
share = H[-1] / H[-1].sum()
print("stable age shares:", np.round(share, 4))
result = (np.round(H, 6), round(float(lam), 8))

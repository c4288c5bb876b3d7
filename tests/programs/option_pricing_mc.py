# Monte Carlo price of a European call and an Asian call, with antithetic variates.
import numpy as np

rng = np.random.default_rng(161)
S0, K, r, sigma, T, steps, paths = 100.0, 105.0, 0.03, 0.2, 1.0, 50, 2000
dt = T / steps
z = rng.standard_normal((paths // 2, steps))
z = np.concatenate([z, -z])
log_inc = (r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * z
S = S0 * np.exp(np.cumsum(log_inc, axis=1))
disc = np.exp(-r * T)
euro = disc * np.maximum(S[:, -1] - K, 0)
asian = disc * np.maximum(S.mean(axis=1) - K, 0)
print(f"european {euro.mean():.4f} +- {euro.std(ddof=1) / np.sqrt(paths):.4f}")
print(f"asian    {asian.mean():.4f} +- {asian.std(ddof=1) / np.sqrt(paths):.4f}")
print("in the money:", np.mean(S[:, -1] > K))
q = np.percentile(S[:, -1], [5, 50, 95])
print("terminal quantiles:", np.round(q, 3))
result = (round(float(euro.mean()), 8), round(float(asian.mean()), 8), np.round(q, 6))

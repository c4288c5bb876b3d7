# Portfolio returns: cumulative growth, running peak with maximum.accumulate, and the worst drawdown.
import numpy as np

rng = np.random.default_rng(201)
daily = rng.normal(0.0005, 0.012, size=250)
wealth = 1000 * np.cumprod(1 + daily)
peak = np.maximum.accumulate(wealth)
dd = wealth / peak - 1
trough = np.argmin(dd)
start = np.argmax(wealth[:trough + 1])
print(f"final {wealth[-1]:.2f}, best {wealth.max():.2f} on day {wealth.argmax()}")
print(f"max drawdown {dd.min():.4%} from day {start} to day {trough}")
rec = np.flatnonzero(wealth[trough:] >= wealth[start])
print("recovered on day:", trough + rec[0] if rec.size else "never")
monthly = np.add.reduceat(daily, np.arange(0, 250, 21))
print("monthly sums:", np.round(monthly, 4))
vol = daily.std(ddof=1) * np.sqrt(252)
print(f"annual vol {vol:.4f}, sharpe {daily.mean() / daily.std(ddof=1) * np.sqrt(252):.3f}")
result = (np.round(dd, 12), np.round(monthly, 12))

# Running maximum and drawdown of a simulated price series.
import numpy as np

rng = np.random.default_rng(15)
returns = rng.normal(0.001, 0.02, 100)
price = 100 * np.cumprod(1 + returns)
peak = np.maximum.accumulate(price)
drawdown = (price - peak) / peak
worst = drawdown.argmin()
print(f"final price {price[-1]:.4f}")
print(f"max drawdown {drawdown.min():.4%} at day {worst}")
print("new highs:", (price == peak).sum())
result = (price, drawdown)

# Collatz sequences for many starting values at once, until every one reaches 1.
import numpy as np

x = np.arange(1, 31)
steps = np.zeros_like(x)
rounds = 0
while np.any(x != 1) and rounds < 1000:
    rounds += 1
    active = x != 1
    even = x % 2 == 0
    x = np.where(even, x // 2, 3 * x + 1)
    x[~active] = 1
    steps += active
print(steps)
print("longest:", steps.argmax() + 1, "with", steps.max(), "steps")
result = steps

# Convert a week of temperatures, find hot days, and label them.
import numpy as np

celsius = np.array([21.5, 25.0, 30.2, 28.7, 19.4, 33.1, 26.0])
fahrenheit = celsius * 9 / 5 + 32
days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
hot = fahrenheit > 85
for day, c, f, h in zip(days, celsius, fahrenheit, hot):
    print(f"{day}: {c:5.1f}C {f:6.2f}F{' hot' if h else ''}")
print("hot days:", [d for d, h in zip(days, hot) if h])
print(f"average {fahrenheit.mean():.2f}F, warmest {days[int(np.argmax(celsius))]}")
result = fahrenheit

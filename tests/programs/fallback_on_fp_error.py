# Computing with strict floating-point errors and falling back when NumPy refuses an operation.
import numpy as np

np.seterr(divide="raise", invalid="raise")
samples = [np.array([1.0, 2.0, 4.0]), np.array([0.5, 0.0, 3.0]), np.array([-1.0, 1.0, 9.0])]
for s in samples:
    try:
        logs = np.log(s)
        how = "log"
    except FloatingPointError:
        logs = np.log(np.clip(s, 1e-12, None))
        how = "clipped log"
    print(how, np.round(logs, 4))
result = logs

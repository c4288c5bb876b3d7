# Formatting arrays for reports: array2string, printoptions context, format specs on 0-d values.
import numpy as np

x = np.array([0.000123, 1.5, 22.25, 3333.0])
print(np.array2string(x, precision=2, separator=", "))
print(np.array2string(x, suppress_small=True, precision=3))
print(np.array2string(np.arange(5), formatter={"int": lambda v: f"<{v}>"}))
with np.printoptions(precision=2, suppress=True):
    print(x)
    print(np.array([1e-9, 1.0]))
print(x)
print(np.array_repr(np.arange(3.0)), np.array_str(np.eye(2)))
s = x.sum()
print(f"{s:.1f} {s:10.3e} {x.mean():>12.4f}|")
z = np.array(2.5)
print(f"{z:.3f}", "{:08.2f}".format(z), f"{np.int64(42):5d}|")
with np.printoptions(threshold=5, edgeitems=2):
    print(np.arange(20))
print(np.format_float_positional(0.1 + 0.2), np.format_float_scientific(12345.678, precision=3))
with np.printoptions(floatmode="fixed", precision=3):
    print(np.array([1.0, 2.5]))
result = x

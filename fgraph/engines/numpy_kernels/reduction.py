"""NumPy kernels for the reduction ops (to be filled)."""

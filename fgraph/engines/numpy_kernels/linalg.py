"""NumPy kernels for the linalg ops (to be filled)."""

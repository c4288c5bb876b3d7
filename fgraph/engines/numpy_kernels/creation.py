"""NumPy kernels for the creation ops (to be filled)."""

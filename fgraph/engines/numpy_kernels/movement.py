"""NumPy kernels for the movement ops (to be filled)."""

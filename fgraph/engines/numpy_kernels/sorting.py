"""NumPy kernels for the sorting ops (to be filled)."""

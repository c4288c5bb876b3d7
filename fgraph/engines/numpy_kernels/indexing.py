"""NumPy kernels for the indexing ops (to be filled)."""

"""reduction ops (to be filled)."""
__all__: list = []

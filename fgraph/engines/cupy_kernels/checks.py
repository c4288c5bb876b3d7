"""The ``check`` op on the CuPy engine: the NumPy kernels (the condition's
``all`` and the copy dispatch to CuPy; reading the verdict syncs the device)."""
from .support import dispatch

dispatch("check", "ok.all() read on the host (a device sync); copyto dispatches")

"""Movement ops on the CuPy engine: views and copies dispatch (np.reshape,
np.transpose, np.broadcast_to, np.flip and np.concatenate have CuPy
namesakes with the same arguments); ``slice_axis`` indexes ``np.asarray(x)``
and ``repeat`` passes a host array of counts, so both have kernels here.
The view ops' out-forms (copies the planner asks for) compute and copy."""
from .support import cupy, dispatch, xp


def _slice_axis(x, axis, start, stop, step):
    return xp().asarray(x)[(slice(None),) * axis + (slice(start, stop, step),)]


def _repeat(x, repeats, axis):
    # CuPy takes an int or a list of counts (not an array); one count repeats every element
    counts = int(repeats[0]) if len(repeats) == 1 else [int(r) for r in repeats]
    return xp().repeat(xp().asarray(x), counts, axis=axis)


for _op in ("reshape", "transpose", "broadcast_to", "flip"):
    dispatch(_op, f"np.{_op} -> cupy.{_op} (a view); out: compute + copy", needs=(_op,), out=False)
dispatch("concatenate", "np.concatenate(..., out=) -> cupy.concatenate", needs=("concatenate",))
cupy("slice_axis", _slice_axis, None, "np.asarray(x)[...] refuses device arrays: xp.asarray(x)[...] (a view)")
cupy("repeat", _repeat, None, "counts as an int or a list (CuPy takes no array of counts)", needs=("repeat",))
